/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The size argument of the benchmarks' -b/-e flags ("4", "64K", "1M",
 * "2G"), shared by rina-bench and mpi-bench so both read a size alike.
 */
#ifndef RINA_BENCH_SIZE_ARG_H
#define RINA_BENCH_SIZE_ARG_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* 0 and *out in bytes, or -1 for anything else (also on overflow). */
static inline int bench_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (*s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'G': case 'g':
		mul <<= 10;
		/* fall through */
	case 'M': case 'm':
		mul <<= 10;
		/* fall through */
	case 'K': case 'k':
		mul <<= 10;
		end++;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (*end != '\0' || v > SIZE_MAX / mul)
		return -1;
	*out = (size_t)(v * mul);
	return 0;
}

#endif /* RINA_BENCH_SIZE_ARG_H */
