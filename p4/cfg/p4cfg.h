/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The job install of the INA ToR as runtime CLI commands
 * (Documentation/p4-control-plane.md), for rina-p4cfg and the tests.
 */
#ifndef RINA_P4CFG_H
#define RINA_P4CFG_H

#include <stdio.h>
#include "plan.h"

struct rina_p4cfg {
	unsigned int	rack;		/* the INA rack whose ToR is configured */
	unsigned int	uplink;		/* port to the other ring members */
	unsigned int	job_idx, epoch, pool_base, mgrp, rid_base, node_base;
	int		l2;		/* also l2_fwd entries of local ranks */
	int		port_of[RINA_MAX_RANKS];	/* rank -> port, -1 */
	/*
	 * A job with a secret is tagged: set_job's last two parameters
	 * are "1 TAG". TAG is written only when the installer gives it
	 * here (rina_job_tag(), 8 bytes); otherwise the word RINA_P4CFG_TAG
	 * stands in for it, for the installer to fill in, so that what
	 * rina-p4cfg prints never shows the tag. An untagged job: "0 0".
	 */
	const __u8	*tag;
};

#define RINA_P4CFG_TAG	"tag_set"

void rina_p4cfg_defaults(struct rina_p4cfg *o);

/*
 * Where job k of a ToR's jobs goes, the one layout of rina-tor and of
 * rina-tor-bmv2 (through rina-p4cfg -k): job index k, the pool after the
 * jobs before it (2W slots each), multicast group 2 + k (group 1 is the
 * L2 flood), replica ids from rid_base = 1 + RINA_P4CFG_RID_STRIDE * k
 * (rid_base + b local worker b, + m the next member, + m + 1 the
 * upstream, + m + 2 the agent; m is at most RINA_TOR_MAX_WORKERS, so a
 * job's ids stay below the next job's). window[i] is the window of job i,
 * 0 <= i <= k. Sets job_idx, pool_base, mgrp and rid_base of o. Node
 * handles are the switch's to give (the lowest free one, bmv2's rule):
 * mc_node_associate's handles count from node_base in the order of the
 * mc_node_create lines, for the installer to map to the handles the
 * switch reports (rina-tor and rina-tor-bmv2 do). Returns 0, or -1 when
 * job k does not fit: no job index or group left, or its pool beyond
 * the ToR's slots.
 */
#define RINA_P4CFG_RID_STRIDE	64
int rina_p4cfg_layout(struct rina_p4cfg *o, unsigned int k,
		      const unsigned int *window);
/* Validate the job, build its ring, write the commands to f; 0 or -1. */
int rina_p4cfg_write(FILE *f, const struct rina_job_desc *job,
		     const struct rina_p4cfg *o, char *err, size_t errlen);

#endif
