// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reads the job defaults of rina.ko's net.rina.* sysctls (per network
 * namespace, so /proc/sys/net/rina as this process sees it): a job file
 * that leaves a value out gets the same one in librina as in the module.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sysctl_dflt.h"

static int read_int(const char *dir, const char *name, long min, long max,
		    long *out, char *err, size_t errlen)
{
	char path[512], buf[32], *end;
	size_t n;
	FILE *f;
	long v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	while (*end == '\n' || *end == ' ' || *end == '\t')
		end++;
	if (end == buf || *end || errno || v < min || v > max) {
		snprintf(err, errlen, "%s: \"%.*s\" is not a number in %ld..%ld",
			 path, (int)strcspn(buf, "\n"), buf, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int rina_sysctl_dflt(struct rina_jobfile_dflt *d, char *err, size_t errlen)
{
	const char *dir = getenv("RINA_SYSCTL_DIR");
	long elems, window, timeout, rto, fallback;
	struct stat st;

	*d = rina_jobfile_builtin;
	if (!dir || !*dir)
		dir = RINA_SYSCTL_PATH;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return 0;	/* rina.ko is not loaded */
	/* the module's ranges (kmod/sysctl.c) */
	if (read_int(dir, RINA_SYSCTL_DEFAULT_ELEMS, 1, RINA_MAX_ELEMS,
		     &elems, err, errlen) ||
	    read_int(dir, RINA_SYSCTL_DEFAULT_WINDOW, RINA_MIN_WINDOW,
		     RINA_MAX_WINDOW, &window, err, errlen) ||
	    read_int(dir, RINA_SYSCTL_TIMEOUT_MS, 10, 3600000, &timeout, err,
		     errlen) ||
	    read_int(dir, RINA_SYSCTL_RTO_US, 50, 10000000, &rto, err,
		     errlen) ||
	    read_int(dir, RINA_SYSCTL_FALLBACK, RINA_FALLBACK_ABORT,
		     RINA_FALLBACK_RING, &fallback, err, errlen))
		return -1;
	if (window & (window - 1)) {
		snprintf(err, errlen, "%s/%s: %ld is not a power of two", dir,
			 RINA_SYSCTL_DEFAULT_WINDOW, window);
		return -1;
	}
	d->elems = (__u16)elems;
	d->window = (__u16)window;
	d->timeout_ms = (__u32)timeout;
	d->rto_us = (__u32)rto;
	d->fallback = (__u8)fallback;
	return 1;
}

int rina_jobfile_parse_host(const char *path, const char *text,
			    unsigned int *given, struct rina_job_desc *job,
			    char *err, size_t errlen)
{
	struct rina_jobfile_dflt d;

	if (rina_sysctl_dflt(&d, err, errlen) < 0)
		return -1;
	if (text)
		return rina_jobfile_parse_text_dflt(text, path, &d, given,
						    job, err, errlen);
	return rina_jobfile_parse_dflt(path, &d, given, job, err, errlen);
}
