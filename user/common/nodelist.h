/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Slurm's compressed host lists (SLURM_JOB_NODELIST): "node[01-04,07],
 * gpu5" is node01 node02 node03 node04 node07 gpu5; several bracket
 * groups in one name multiply ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2).
 */
#ifndef RINA_NODELIST_H
#define RINA_NODELIST_H

#include <stddef.h>

#define RINA_NODELIST_MAX	4096	/* hosts, at most */
#define RINA_HOSTNAME_MAX	256	/* bytes of one name, with its NUL */

/*
 * Expand list into at most max names of RINA_HOSTNAME_MAX bytes each at
 * out: the count, or -1 with the reason in err (unbalanced bracket, bad
 * range, empty name, too many hosts, name too long).
 */
int rina_nodelist_expand(const char *list, char (*out)[RINA_HOSTNAME_MAX],
			 int max, char *err, size_t errlen);

#endif /* RINA_NODELIST_H */
