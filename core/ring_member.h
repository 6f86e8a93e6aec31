/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ring member: one Ring-AllReduce call at one autonomous member of
 * the ring, as a state machine that never touches a socket, a thread or
 * a clock (sans-I/O, as ngtcp2 is for QUIC). Its host feeds it the
 * packets it receives, lets it send (core/engine.h) and waits until
 * rina_rm_pump() says; librina (user/lib/ring.c) and the tests host it.
 *
 * Reduce-scatter and allgather are pipelined per packet: a partial that
 * arrives from upstream is added to this member's contribution and
 * queued for downstream at once. Every hop is windowed (core/cc.h) and
 * acknowledged; what is lost is found by RACK (core/rack.h) or a timer
 * and resent; receivers suppress duplicates by sequence number. The
 * call number (round) in every packet keeps a late packet of one call
 * out of the next. Next to an INA rack the member follows the mixed
 * ring's rules (Documentation/protocol.md 6). One engine per member and
 * communicator, its state all in the instance.
 *
 * No libc or kernel calls: memory comes from the host (ops->zalloc).
 */
#ifndef RINA_CORE_RING_MEMBER_H
#define RINA_CORE_RING_MEMBER_H

#include "compat.h"
#include "agg.h"
#include "engine.h"
#include "path.h"
#include "plan.h"
#include "schedule.h"
#include "wire.h"

/* The member's place in the job: fixed for its communicator's life. */
struct rina_rm_cfg {
	const struct rina_ring	*ring;
	/* contributions summed before member j's own: contrib_before[j] */
	const __u32		*contrib_before;
	__u32			member;		/* this member's index */
	__u32			n_ranks;	/* N */
	__u16			job_id;
	__u16			rank;		/* src_id of what we send */
	__u32			elems;		/* E */
	__u32			window;		/* W */
	__u32			txq_limit;	/* the job's (core/txq.h) */
	__u64			rto_us;		/* the job's timer floor */
	int			pad;		/* the ring has INA members */
	/* the downstream path, kept by the host across calls */
	struct rina_path	*path;
	/* where packets are built: RINA_ENGINE_BATCH x max_msg bytes */
	__u8			*txbuf;
	__u32			max_msg;
	const struct rina_agg_ops *agg;
	/*
	 * The phases a call runs: 0 (both) is Ring-AllReduce. One alone
	 * serves a host whose algorithm is built of ring phases (rina-sim's
	 * H-AR): RINA_RM_RS leaves each member its own chunk reduced,
	 * RINA_RM_AG starts from it. Not in a ring with INA members.
	 * rina_rm_phases() changes it between calls (librina's
	 * allgather and reduce-scatter, user/lib/collectives.c).
	 * RINA_RM_BC is a broadcast: the allgather phase alone with every
	 * chunk starting at member root, a pipelined chain that carries
	 * the buffer once over each link but the one into the root.
	 */
	__u8			phases;
	__u32			root;		/* RINA_RM_BC: < ring->L */
};

#define RINA_RM_RS		0x1
#define RINA_RM_AG		0x2
#define RINA_RM_BC		0x4

enum rina_rm_result {
	RINA_RM_STASH		= 1,	/* rx: the next call's; keep it */
	RINA_RM_OK		= 0,
	RINA_RM_E_NOMEM		= -1,
	RINA_RM_E_XMIT		= -2,	/* rina_rm_error(): the errno */
	RINA_RM_E_MISMATCH	= -3,	/* rina_rm_error(): who, what */
	RINA_RM_E_OVERFLOW	= -4,	/* an int32 sum wrapped around */
	RINA_RM_E_TOO_LARGE	= -5,	/* more packets than a seq names */
};

/* Why the last call failed: the host words it. */
struct rina_rm_error {
	int		xmit_errno;	/* RINA_RM_E_XMIT */
	__u16		src;		/* RINA_RM_E_MISMATCH: its rank */
	const char	*what;		/* ... and what differed */
};

/* Where a call stands, for the host's stall report. */
struct rina_rm_progress {
	__u64	got_rx, expect_rx;	/* data from upstream */
	__u64	got_ack, expect_ack;	/* ACKs from downstream */
	__u64	last_us;		/* when either last moved */
	/*
	 * When downstream last acknowledged a packet (the call's start if
	 * never), and how many of ours it has not: a next member that is
	 * alive acknowledges every copy it gets, however stalled the ring.
	 */
	__u64	last_ack_us;
	__u32	in_flight;
};

struct rina_rm;

struct rina_rm *rina_rm_create(const struct rina_rm_cfg *cfg,
			       const struct rina_engine_ops *ops, void *ctx);
void rina_rm_destroy(struct rina_rm *m);

/*
 * Start a call: count int32 words in acc, reduced in place, of wire
 * dtype and op dtype_op, call number round, slot ordinals from
 * slot_base. One call at a time.
 */
int rina_rm_start(struct rina_rm *m, __s32 *acc, __u64 count,
		  __u8 dtype_op, __u16 round, __u32 slot_base);
/*
 * The phases the next calls run (rina_rm_cfg.phases), for a host whose
 * calls differ: never during a call, every member the same per call.
 */
void rina_rm_phases(struct rina_rm *m, __u8 phases);
/* The same for a broadcast (RINA_RM_BC) from member root (< L). */
void rina_rm_broadcast(struct rina_rm *m, __u32 root);
/*
 * A received message of the job, its header checked (core/wire.h) and
 * not CTRL; from: RINA_PEER_PREV and/or RINA_PEER_NEXT as its source address
 * is either (both on a ring of two), 0 when neither; ecn: the IP ECN
 * field; stashed: replayed from the host's stash. RINA_RM_STASH: of the
 * next call, for the host to give again once it starts.
 */
int rina_rm_rx(struct rina_rm *m, const struct rina_hdr *h, __u8 from,
	       __u8 ecn, int stashed);
/*
 * Send what the windows allow and what is lost; *wait_us: how long the
 * host may wait for a packet before it calls again.
 */
int rina_rm_pump(struct rina_rm *m, __u64 *wait_us);
/* Send the ACKs gathered so far (after each batch received). */
int rina_rm_flush(struct rina_rm *m);
/* Every packet received and every ACK in: the call is over. */
int rina_rm_done(const struct rina_rm *m);
/*
 * End the call (done or not): checks the sums; on success, keeps what
 * upstream's INA rack may ask for later. Frees the call's state.
 */
int rina_rm_finish(struct rina_rm *m, int failed);

const struct rina_sched *rina_rm_sched(const struct rina_rm *m);
void rina_rm_progress(const struct rina_rm *m, struct rina_rm_progress *p);
const struct rina_rm_error *rina_rm_error(const struct rina_rm *m);
/* Hand the counters to the host and start them again from zero. */
void rina_rm_take_stats(struct rina_rm *m, struct rina_engine_stats *st);

#endif /* RINA_CORE_RING_MEMBER_H */
