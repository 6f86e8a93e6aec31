// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * JobClassify (p4/job_classify.p4). Table rina_job, exact on (IPv4
 * destination, UDP destination port, job_id): a hit means the packet is
 * addressed to the agent of a job this ToR aggregates (or to the ToR's own
 * address, for the agent's own contributions, which a host cannot send to
 * itself through the wire) and loads the job's parameters (set_job).
 * Table rina_worker, exact on (job_idx, src_id, IPv4 source, UDP source
 * port): the contributor bit of a local worker (set_worker), only from
 * that worker's own address and port.
 */
#include "rina_tor_model.h"

void tor_job_classify(struct rina_tor *sw, struct tor_headers *hdr,
		      struct tor_meta *meta)
{
	unsigned int i;

	for (i = 0; i < RINA_TOR_MAX_JOBS; i++) {
		const struct tor_job_entry *e = &sw->rina_job[i];

		if (e->used && e->dst_ip == hdr->ipv4.dst &&
		    e->dport == hdr->udp.dport &&
		    e->job_id == hdr->rina.job_id) {
			meta->job_hit = 1;
			meta->job = e->p;
			meta->agent_ip = e->p.agent_ip;
			meta->agent_port = e->p.agent_port;
			return;
		}
	}
}

void tor_worker_classify(struct rina_tor *sw, struct tor_headers *hdr,
			 struct tor_meta *meta)
{
	unsigned int i;

	for (i = 0; i < sizeof(sw->rina_worker) / sizeof(sw->rina_worker[0]);
	     i++) {
		const struct tor_worker_entry *e = &sw->rina_worker[i];

		if (e->used && e->job_idx == meta->job.job_idx &&
		    e->src_id == hdr->rina.src_id &&
		    e->src_ip == hdr->ipv4.src && e->sport == hdr->udp.sport) {
			meta->worker_hit = 1;
			meta->bit = 1u << e->bit;
			meta->one_bit = e->bit;
			return;
		}
	}
}
