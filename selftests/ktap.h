/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Minimal KTAP emitter for C tests: ktap_plan(n), ktap_result(ok, fmt...),
 * ktap_skip(fmt...), ktap_skip_reason(name, fmt...), ktap_finish() -> exit
 * status (0, 1, or 4 if all skipped); ktap_skip_all(fmt...) when nothing
 * can run. Diagnostics go out as "# " lines.
 * A test whose count is known only at the end starts with ktap_start()
 * instead of ktap_plan(); ktap_finish() then prints the plan last, as KTAP
 * allows.
 */
#ifndef RINA_KTAP_H
#define RINA_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_n, ktap_pass, ktap_fail, ktap_nskip, ktap_planned;

static inline void ktap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	ktap_planned = 1;
}

/* The header only: ktap_finish() prints the plan. */
static inline void ktap_start(void)
{
	printf("TAP version 13\n");
	fflush(stdout);
}

__attribute__((format(printf, 2, 3)))
static inline void ktap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	ktap_n++;
	if (ok)
		ktap_pass++;
	else
		ktap_fail++;
	printf("%s %d ", ok ? "ok" : "not ok", ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

__attribute__((format(printf, 1, 2)))
static inline void ktap_skip(const char *fmt, ...)
{
	va_list ap;

	ktap_n++;
	ktap_nskip++;
	printf("ok %d ", ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP\n");
	fflush(stdout);
}

/* "ok N NAME # SKIP REASON", as ktap.sh's ktap_skip NAME REASON */
__attribute__((format(printf, 2, 3)))
static inline void ktap_skip_reason(const char *name, const char *fmt, ...)
{
	va_list ap;

	ktap_n++;
	ktap_nskip++;
	printf("ok %d %s # SKIP ", ktap_n, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Nothing can run: "1..0 # SKIP REASON"; returns the exit status, 4. */
__attribute__((format(printf, 1, 2)))
static inline int ktap_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return 4;
}

#define ktap_diag(...)	do { printf("# " __VA_ARGS__); printf("\n"); } while (0)

static inline int ktap_finish(void)
{
	if (!ktap_planned)
		printf("1..%d\n", ktap_n);
	printf("# Totals: pass:%d fail:%d skip:%d\n", ktap_pass, ktap_fail,
	       ktap_nskip);
	fflush(stdout);
	if (ktap_fail)
		return 1;
	return ktap_pass ? 0 : 4;
}

#endif /* RINA_KTAP_H */
