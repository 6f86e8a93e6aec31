/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * rina.ko's net.rina.* job defaults, read from userspace so that librina
 * and rinactl fill in what a job file leaves out as the module does.
 */
#ifndef RINA_SYSCTL_DFLT_H
#define RINA_SYSCTL_DFLT_H

#include <stddef.h>
#include "jobfile.h"

/* Where the sysctls are; RINA_SYSCTL_DIR overrides it (tests only). */
#define RINA_SYSCTL_PATH	"/proc/sys/net/rina"

/*
 * Fill d from the sysctls of this network namespace: 1 if rina.ko is
 * loaded (the directory exists), 0 if not (d gets the built-in
 * defaults), -1 with "path: reason" in err for an unreadable or
 * out-of-range value.
 */
int rina_sysctl_dflt(struct rina_jobfile_dflt *d, char *err, size_t errlen);

/* rina_jobfile_parse_dflt() with the defaults rina_sysctl_dflt() gives. */
int rina_jobfile_parse_host(const char *path, const char *text,
			    unsigned int *given, struct rina_job_desc *job,
			    char *err, size_t errlen);

#endif /* RINA_SYSCTL_DFLT_H */
