/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a job gives one rank's data-path engine (core/ring_member.h,
 * core/ina_worker.h) and an INA rack's agent (core/agent.h), derived
 * here once for librina (ring.c, ina_worker.c, agent_thread.c) and
 * rina-sim (ring_member_host.cc, ina_worker_host.cc, rina.cc; rina.ko
 * derives its agent's in kmod/). A rule derived twice drifts, and then
 * the simulator runs another protocol than the library. The hosts add only
 * what is theirs: the path to the peer, the build buffer and its size,
 * the aggregation ops, and their own overrides (librina's rina_config
 * timeout, rina-sim's H-AR phases).
 */
#ifndef RINA_CORE_ENGINE_CFG_H
#define RINA_CORE_ENGINE_CFG_H

#include "compat.h"
#include "agent.h"
#include "cc.h"
#include "ina_worker.h"
#include "plan.h"
#include "ring_member.h"

/* The ring has an INA member: every call's schedule pads (schedule.h). */
int rina_ring_has_ina(const struct rina_ring *ring);
/* before[j]: the contributions summed before member j's own. */
void rina_ring_contrib_before(const struct rina_ring *ring, __u32 *before);
/*
 * A plain member's configuration for rank in job, placed in ring;
 * contrib_before from rina_ring_contrib_before(), kept by the host.
 * The host's fields (path, txbuf, max_msg, agg, phases) are zero.
 */
void rina_rm_cfg_job(struct rina_rm_cfg *cfg,
		     const struct rina_job_desc *job,
		     const struct rina_ring *ring, __u16 rank,
		     const __u32 *contrib_before);
/*
 * An INA worker's configuration for rank in job, placed in ring, its
 * senders' congestion knobs cc (rina_job_cc_params()): the workers'
 * window follows congestion control when any signal is on. The host's
 * fields (path, txbuf, max_msg, agg) are zero.
 */
void rina_iw_cfg_job(struct rina_iw_cfg *cfg,
		     const struct rina_job_desc *job,
		     const struct rina_ring *ring, __u16 rank,
		     const struct rina_cc_params *cc);

/*
 * The agent of the INA rack whose agent rank is rank: its place, the
 * job's knobs and hash, and its retransmissions downstream under the
 * senders' congestion control cc when any signal is on (unlimited
 * otherwise). Addresses, session and secret are the host's, zero.
 */
void rina_agent_cfg_job(struct rina_agent_cfg *cfg,
			const struct rina_job_desc *job,
			const struct rina_ring *ring, __u16 rank,
			const struct rina_cc_params *cc);

#endif /* RINA_CORE_ENGINE_CFG_H */
