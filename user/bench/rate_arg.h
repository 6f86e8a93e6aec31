/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A link rate in tc's syntax ("25mbit", "1gbit", "10mibit", "3mbps"), as
 * rina-run --rate takes it and exports it in RINA_LINK_RATE, for the
 * benchmarks' line-rate ideal (efficiency).
 */
#ifndef RINA_BENCH_RATE_ARG_H
#define RINA_BENCH_RATE_ARG_H

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * 0 and *bps in bits per second, or -1: a positive number, an optional
 * k, m, g or t prefix (powers of 1000; ki, mi, gi, ti: of 1024) and the
 * unit bit or bps (bytes per second). A bare number is refused: tc reads
 * it as bytes per second where people mean bits.
 */
static inline int bench_parse_rate(const char *s, double *bps)
{
	static const char prefixes[] = "kmgt";
	double v, mul = 1, base = 1000;
	const char *p;
	char *end;
	int i, k;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	p = strchr(prefixes, tolower((unsigned char)*end));
	if (*end && p) {
		k = (int)(p - prefixes) + 1;
		end++;
		if (tolower((unsigned char)*end) == 'i') {
			base = 1024;
			end++;
		}
		for (i = 0; i < k; i++)
			mul *= base;
	}
	if (!strcasecmp(end, "bps"))
		mul *= 8;
	else if (strcasecmp(end, "bit"))
		return -1;
	*bps = v * mul;
	return 0;
}

#endif /* RINA_BENCH_RATE_ARG_H */
