// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Prometheus text exposition helpers shared by rinactl and rina-tor
 * (prom.h).
 */
#include <stdio.h>

#include "prom.h"

void rina_prom_head(FILE *f, const char *name, const char *type,
		    const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void rina_prom_sample(FILE *f, const char *name, const char *labels,
		      unsigned long long v)
{
	if (labels && *labels)
		fprintf(f, "%s{%s} %llu\n", name, labels, v);
	else
		fprintf(f, "%s %llu\n", name, v);
}

void rina_prom_escape(char *out, size_t len, const char *in)
{
	size_t n = 0;

	for (; *in && n + 2 < len; in++) {
		if (*in == '\\' || *in == '"' || *in == '\n') {
			out[n++] = '\\';
			out[n++] = *in == '\n' ? 'n' : *in;
		} else {
			out[n++] = *in;
		}
	}
	out[n] = 0;
}
