/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The Prometheus text exposition format (version 0.0.4) as rinactl and
 * rina-tor write it, and node_exporter's textfile collector reads it: a
 * metric's HELP and TYPE lines, then its samples, together.
 */
#ifndef RINA_PROM_H
#define RINA_PROM_H

#include <stddef.h>
#include <stdio.h>

/* "# HELP name help" and "# TYPE name type" (counter, gauge). */
void rina_prom_head(FILE *f, const char *name, const char *type,
		    const char *help);
/* "name{labels} value"; labels: "" or 'a="1",b="x"' (already escaped). */
void rina_prom_sample(FILE *f, const char *name, const char *labels,
		      unsigned long long v);
/* A label value with \, " and newline escaped, at most len - 1 bytes. */
void rina_prom_escape(char *out, size_t len, const char *in);

/* A textfile for node_exporter: rina_write_atomic() (atomic_write.h). */

#endif /* RINA_PROM_H */
