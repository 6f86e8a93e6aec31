/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The INA worker: one allreduce call at a local worker of an INA rack,
 * as a state machine that never touches a socket, a thread or a clock
 * (sans-I/O, as core/ring_member.h). Its host feeds it the packets it
 * receives, lets it send (core/engine.h) and waits until
 * rina_iw_pump() says; librina (user/lib/ina_worker.c) and rina-sim
 * (sim/ina_worker_host.cc) host it.
 *
 * The rack is one ring member; its ToR (or, without one, the agent)
 * adds the rack's contributions. The worker pushes its contribution to
 * every chunk of every block to the aggregator, in the member's
 * processing order, windowed by slot ordinal, and collects the fully
 * reduced chunks that the ToR multicasts: it sends S bytes and receives
 * S bytes.
 *
 * A contribution counts as delivered when the downstream member's ACK is
 * fanned out to the rack (chunks that leave the rack) or the chunk's
 * final result arrives, or, for the member's own chunk, when its
 * allgather data arrives from the agent, or when the agent says it holds
 * what the ToR sent. Lost contributions are found by RACK, a probe or
 * their timer and resent (the ToR re-emits a completed slot's result);
 * missing allgather data is asked for from the agent with a NACK.
 *
 * No libc or kernel calls: memory comes from the host (ops->zalloc).
 */
#ifndef RINA_CORE_INA_WORKER_H
#define RINA_CORE_INA_WORKER_H

#include "compat.h"
#include "agg.h"
#include "engine.h"
#include "path.h"
#include "plan.h"
#include "schedule.h"
#include "wire.h"

/* An INA worker stalled this many slot RTOs asks for results (NACK). */
#define RINA_NACK_STALL		8

/* The worker's place in the job: fixed for its communicator's life. */
struct rina_iw_cfg {
	const struct rina_ring	*ring;
	__u32			member;		/* its rack's member index */
	__u32			n_ranks;	/* N */
	__u16			job_id;
	__u16			rank;
	__u32			elems;		/* E */
	__u32			window;		/* W */
	__u32			txq_limit;	/* the job's (core/txq.h) */
	__u64			rto_us;		/* the job's timer floor */
	__u32			timeout_ms;	/* the job's: stall reports */
	int			windowed;	/* congestion control is on */
	/* the path to the aggregator, kept by the host across calls */
	struct rina_path	*path;
	/* where packets are built: RINA_ENGINE_BATCH x max_msg bytes */
	__u8			*txbuf;
	__u32			max_msg;
	const struct rina_agg_ops *agg;
};

enum rina_iw_result {
	RINA_IW_STASH		= 1,	/* rx: the next call's; keep it */
	RINA_IW_OK		= 0,
	RINA_IW_E_NOMEM		= -1,
	RINA_IW_E_XMIT		= -2,	/* rina_iw_xmit_errno() */
	RINA_IW_E_MISMATCH	= -3,	/* allgather data of another call */
	RINA_IW_E_OVERFLOW	= -4,
	RINA_IW_E_TOO_LARGE	= -5,
};

/* Where a call stands, for the host's stall report. */
struct rina_iw_progress {
	__u64	got_ag, expect_ag;	/* allgather packets */
	__u64	got_done;		/* contributions delivered ... */
	__u32	nct;			/* ... of these */
	__u64	last_us;
};

struct rina_iw;

struct rina_iw *rina_iw_create(const struct rina_iw_cfg *cfg,
			       const struct rina_engine_ops *ops, void *ctx);
void rina_iw_destroy(struct rina_iw *w);

int rina_iw_start(struct rina_iw *w, __s32 *acc, __u64 count,
		  __u8 dtype_op, __u16 round, __u32 slot_base);
/*
 * A received message of the job, checked and not CTRL; from: the
 * RINA_PEER_* its source address is (only the agent, RINA_PEER_NEXT,
 * talks to a worker); ecn: the IP ECN field; stashed: replayed by the
 * host. RINA_IW_STASH: of the next call, for the host to give again.
 */
int rina_iw_rx(struct rina_iw *w, const struct rina_hdr *h, __u8 from,
	       __u8 ecn, int stashed);
/* Send what the windows allow, what is lost, NACKs and stall reports. */
int rina_iw_pump(struct rina_iw *w, __u64 *wait_us);
/*
 * The host sends contributions somewhere else now (the ToR came or
 * went): what backed off towards the last aggregator ends.
 */
void rina_iw_agg_changed(struct rina_iw *w);
/* The agent found the ToR lost: what it held goes again. */
void rina_iw_tor_lost(struct rina_iw *w);
int rina_iw_done(const struct rina_iw *w);
int rina_iw_finish(struct rina_iw *w, int failed);

const struct rina_sched *rina_iw_sched(const struct rina_iw *w);
void rina_iw_progress(const struct rina_iw *w, struct rina_iw_progress *p);
int rina_iw_xmit_errno(const struct rina_iw *w);
void rina_iw_take_stats(struct rina_iw *w, struct rina_engine_stats *st);

#endif /* RINA_CORE_INA_WORKER_H */
