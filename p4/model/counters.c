// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * JobCounters (p4/counters.p4): the controls above raise event bits in
 * meta.ev (ingress) and meta.ev_out (one egress replica); these count
 * them per job in job_ctr[job_idx * __RINA_TC_MAX + id] and
 * job_out[job_idx * __RINA_TO_MAX + id].
 */
#include "rina_tor_model.h"

void tor_counters(struct rina_tor *sw, struct tor_meta *meta)
{
	unsigned int id;

	if (!meta->job_hit)
		return;
	for (id = 0; id < __RINA_TC_MAX; id++)
		if (meta->ev & (1u << id))
			sw->job_ctr[meta->job.job_idx * __RINA_TC_MAX + id]++;
}

void tor_counters_out(struct rina_tor *sw, struct tor_meta *meta)
{
	unsigned int id;

	if (!meta->job_hit)
		return;
	for (id = 0; id < __RINA_TO_MAX; id++)
		if (meta->ev_out & (1u << id))
			sw->job_out[meta->job.job_idx * __RINA_TO_MAX + id]++;
}
