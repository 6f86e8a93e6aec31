/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The job description file parser (format: Documentation/job-file.md).
 */
#ifndef RINA_JOBFILE_H
#define RINA_JOBFILE_H

#include <stddef.h>
#include "plan.h"

/* 0 on success; -1 with "file:line: directive: reason" in err. */
int rina_jobfile_parse(const char *path, struct rina_job_desc *job,
		       char *err, size_t errlen);
/* The same for text held in memory; name is used in messages. */
int rina_jobfile_parse_text(const char *text, const char *name,
			    struct rina_job_desc *job, char *err,
			    size_t errlen);

/* A "cc" value: off, all, or signals loss,delay,ecn; -1 if bad. */
int rina_jobfile_cc(const char *val, __u16 *cc);

#endif /* RINA_JOBFILE_H */
