// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engines' configuration from a job, one derivation for librina and
 * rina-sim (engine_cfg.h says why).
 */
#include "engine_cfg.h"

int rina_ring_has_ina(const struct rina_ring *ring)
{
	unsigned int j;

	for (j = 0; j < ring->L; j++)
		if (ring->m[j].ina)
			return 1;
	return 0;
}

void rina_ring_contrib_before(const struct rina_ring *ring, __u32 *before)
{
	unsigned int j;
	__u32 sum = 0;

	for (j = 0; j < ring->L; j++) {
		before[j] = sum;
		sum += ring->m[j].n_local;
	}
}

void rina_rm_cfg_job(struct rina_rm_cfg *cfg,
		     const struct rina_job_desc *job,
		     const struct rina_ring *ring, __u16 rank,
		     const __u32 *contrib_before)
{
	rina_memset(cfg, 0, sizeof(*cfg));
	cfg->ring = ring;
	cfg->contrib_before = contrib_before;
	cfg->member = ring->member_of[rank];
	cfg->n_ranks = job->n_ranks;
	cfg->job_id = job->job_id;
	cfg->rank = rank;
	cfg->elems = job->elems;
	cfg->window = job->window;
	cfg->txq_limit = job->txq_limit;
	cfg->rto_us = job->rto_us;
	cfg->pad = rina_ring_has_ina(ring);
}

void rina_iw_cfg_job(struct rina_iw_cfg *cfg,
		     const struct rina_job_desc *job,
		     const struct rina_ring *ring, __u16 rank,
		     const struct rina_cc_params *cc)
{
	rina_memset(cfg, 0, sizeof(*cfg));
	cfg->ring = ring;
	cfg->member = ring->member_of[rank];
	cfg->n_ranks = job->n_ranks;
	cfg->job_id = job->job_id;
	cfg->rank = rank;
	cfg->elems = job->elems;
	cfg->window = job->window;
	cfg->txq_limit = job->txq_limit;
	cfg->rto_us = job->rto_us;
	cfg->timeout_ms = job->timeout_ms;
	cfg->windowed = cc->flags != 0;
}

void rina_agent_cfg_job(struct rina_agent_cfg *cfg,
			const struct rina_job_desc *job,
			const struct rina_ring *ring, __u16 rank,
			const struct rina_cc_params *cc)
{
	__u32 member = ring->member_of[rank];

	rina_memset(cfg, 0, sizeof(*cfg));
	cfg->job_id = job->job_id;
	cfg->rank = rank;
	cfg->elems = job->elems;
	cfg->n_local = ring->m[member].n_local;
	cfg->window = job->window;
	cfg->L = ring->L;
	cfg->member = member;
	cfg->rto_us = job->rto_us;
	if (cc->flags)
		cfg->cc = *cc;
	cfg->job_hash = rina_job_hash(job);
}
