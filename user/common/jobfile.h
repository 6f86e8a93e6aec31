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

/*
 * The values a job file may leave out. The parser's built-in ones are
 * rina_jobfile_builtin; on a host with rina.ko loaded, rina_sysctl_dflt()
 * (sysctl_dflt.h) reads the module's net.rina.* instead.
 */
struct rina_jobfile_dflt {
	__u16	elems;
	__u16	window;
	__u32	timeout_ms;
	__u32	rto_us;
	__u8	fallback;	/* enum rina_fallback */
};
extern const struct rina_jobfile_dflt rina_jobfile_builtin;

/* Bits of *given: which of those the file itself gave. */
#define RINA_JF_ELEMS		0x1
#define RINA_JF_WINDOW		0x2
#define RINA_JF_TIMEOUT		0x4
#define RINA_JF_RTO		0x8
#define RINA_JF_FALLBACK	0x10

/* As above, with defaults dflt (NULL: built-in); given may be NULL. */
int rina_jobfile_parse_dflt(const char *path,
			    const struct rina_jobfile_dflt *dflt,
			    unsigned int *given, struct rina_job_desc *job,
			    char *err, size_t errlen);
int rina_jobfile_parse_text_dflt(const char *text, const char *name,
				 const struct rina_jobfile_dflt *dflt,
				 unsigned int *given,
				 struct rina_job_desc *job, char *err,
				 size_t errlen);

/* A "cc" value: off, all, or signals loss,delay,ecn; -1 if bad. */
int rina_jobfile_cc(const char *val, __u16 *cc);

#endif /* RINA_JOBFILE_H */
