/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The line parsers of rinactl job gen's inputs, apart from its file and
 * DNS handling so that one copy exists and a fuzzer can drive it
 * (selftests/core/fuzz_jobgen.c): a hostfile line (OpenMPI "host
 * slots=N [max_slots=M]", Slurm/MPICH "host:N"), a rack-map line ("HOST
 * RACK [IPV4]") and SLURM_TASKS_PER_NODE ("2(x3),1"). Slurm's host
 * lists: nodelist.h.
 */
#ifndef RINA_HOSTFILE_H
#define RINA_HOSTFILE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "nodelist.h"

#define RINA_HOST_PORTS	8	/* worker ports 21056..21063 per host */

/*
 * s as a decimal number of digits only (no blank, sign or overflow) in
 * min..max: 0 with *v, else -1.
 */
int rina_parse_uint(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v);

/*
 * One hostfile line, modified in place (comments cut, name terminated):
 * 1 with *name (shorter than RINA_HOSTNAME_MAX, no '=', '[', ']' or
 * ',') and *slots (1..RINA_HOST_PORTS), 0 for a blank or comment line,
 * -1 with the reason in err.
 */
int rina_hostfile_line(char *line, const char **name, unsigned int *slots,
		       char *err, size_t errlen);

/*
 * One rack-map line, modified in place: 1 with *host, *rack (0..65535)
 * and, when the line has one, *ip (*have_ip), 0 for a blank or comment
 * line, -1 with the reason in err.
 */
int rina_rackmap_line(char *line, const char **host, unsigned int *rack,
		      struct in_addr *ip, bool *have_ip, char *err,
		      size_t errlen);

/*
 * SLURM_TASKS_PER_NODE ("2(x3),1" is 2 2 2 1) into ranks[0..n), one
 * count per host, each 1..RINA_HOST_PORTS: 0, or -1 with the reason in
 * err when s is malformed or does not give exactly n counts.
 */
int rina_tasks_per_node(const char *s, unsigned int *ranks, int n,
			char *err, size_t errlen);

#endif /* RINA_HOSTFILE_H */
