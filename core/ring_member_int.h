/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ring member engine's state, shared by its two files only:
 * ring_member.c (the call's life, what it receives) and
 * ring_member_tx.c (what it sends, when, and again).
 */
#ifndef RINA_CORE_RING_MEMBER_INT_H
#define RINA_CORE_RING_MEMBER_INT_H

#include "ring_member.h"
#include "ackq.h"
#include "rack.h"
#include "txq.h"

struct rm_out {
	__u32	seq;
	__u32	tries;
	__u64	t_first;	/* first transmission */
	__u64	t_sent;		/* last (re)transmission */
	__u64	rto;
	__u64	deadline;	/* timer */
	__u32	order;		/* towards an INA member: ord_rack[] */
};

struct rm_call {
	struct rina_rm	*m;
	struct rina_sched s;
	__s32		*acc;
	__u8		dtype_op;
	int		op_max;
	__u32		i;		/* member index */
	__u16		round;
	__u32		slot_base;

	__u64		*rxmap;		/* seqs received from upstream */
	__u64		*ackmap;	/* seqs acknowledged by downstream */
	__u64		*ovfmap;	/* packets whose sum wrapped around */
	__u32		ovf_words;
	__u32		*outpos;	/* seq -> index + 1 into out[] */
	/*
	 * Seqs ready to forward, a FIFO per block: block b's at
	 * fwdq[b * 2LP], its head and tail in fwd_head[b], fwd_tail[b].
	 * No block below fwd_lo has any (rm_next_send()).
	 */
	__u32		*fwdq;
	__u32		*fwd_head, *fwd_tail;
	__u32		nfwd;
	__u64		fwd_lo;
	/*
	 * Towards an INA member the receiver's slot ordinals bound what may
	 * be in flight: ordinal o leaves only once every ordinal up to
	 * o - W is acknowledged (its slot set is then free at the ToR).
	 * Reduce-scatter sends are then picked by ordinal, not FIFO.
	 */
	int		ordwin;
	/*
	 * The previous member is an INA rack: our ACKs from the next member
	 * come in through the queue that the rack's output fills (rx_ack()).
	 */
	int		after_ina;
	/*
	 * A plain member of a ring with INA members that no rack feeds:
	 * our own packets of a block go before what we forward of it
	 * (rm_next_send()).
	 */
	int		inject_first;
	int		rs, ag;		/* the phases this call runs */
	int		bc;		/* ag a broadcast from member root */
	__u32		root;
	struct rina_txq	txq;		/* our host's queue: rm_txq_check() */
	__u64		*sr_ready;	/* by receiver ordinal */
	__u64		*sr_done;	/* sent (bit set) ... */
	__u64		*sr_acked;	/* ... and acknowledged */
	__u64		ord_base;	/* lowest unacknowledged ordinal */
	__u64		nord;
	__u64		inj_b;		/* next step-0 packet to inject */
	__u32		inj_p;
	struct rm_out	*out;
	__u32		nout, W;
	__u32		cwnd;		/* what may be in flight now: <= W */
	/*
	 * The INA member downstream asked again for partials (rx_ask()):
	 * its ToR went, and with it the ACKs of what it had added
	 */
	int		asked;

	struct rina_rack rack;		/* downstream's ACKs (core/rack.h) */
	struct rina_rack *ord_rack;	/* towards an INA member: per order */
	__u64		expect_rx, got_rx;
	__u64		expect_ack, got_ack;
	__u64		last_progress;
	__u64		last_ack;	/* downstream's last new ACK */
	/* the tail loss probe (rm_retransmit()): the last, how many since */
	__u64		last_probe;
	__u32		probes;

	struct rina_engine_msg tx[RINA_ENGINE_BATCH];
	int		ntx;
};

/*
 * The last call's result of an INA member upstream (a mixed ring), kept
 * after we leave the call. If that member's ToR dies after it sent its
 * own chunk's result to us but before the rack's workers had it, the
 * ToR has acknowledged everything upstream sent it, so the rest of the
 * ring finishes the call and goes on; the rack's agent then asks us for
 * that result (core/agent_agg.c, ask_again()), and only we still hold it.
 * Without it the rack could never finish the call and the job timed out
 * (net_tor_failover). Only that member's chunk is copied; the rest of
 * acc is never read.
 */
struct rm_kept {
	struct rina_sched s;
	__u16		round;
	__u8		dtype_op;
	__u32		chunk;		/* upstream's own chunk */
	__s32		*acc;		/* s.count words */
	__u64		cap;
	__u64		*ovfmap;	/* all zero: such a call succeeded */
	__u32		ovf_words;
	int		valid;
};

struct rina_rm {
	struct rina_rm_cfg	cfg;
	const struct rina_engine_ops *ops;
	void			*ctx;
	struct rina_engine_stats	st;
	struct rina_rm_error	err;
	struct rm_call		*k;		/* the call, or NULL */
	struct rm_kept		kept;
	struct rina_ackq	ack;		/* to upstream */
	__u8			ackbuf[RINA_HDR_LEN + RINA_MAX_PAYLOAD +
				       RINA_TAG_LEN];
};

static inline __u64 rm_now(const struct rina_rm *m)
{
	return m->ops->now_us(m->ctx);
}

static inline void *rm_zalloc(const struct rina_rm *m, __u64 size)
{
	return rina_engine_zalloc(m->ops, m->ctx, size);
}

static inline void rm_free(const struct rina_rm *m, void *p)
{
	rina_engine_free(m->ops, m->ctx, p);
}

/* ring_member_tx.c */
int rm_flush_tx(struct rm_call *k);
int rm_emit(struct rm_call *k, __u32 seq, int retx);
void rm_fwd_push(struct rm_call *k, __u32 seq);
__u64 rm_recv_ordinal(const struct rm_call *k, __u32 seq);
void rm_ord_advance(struct rm_call *k);
struct rina_rack *rm_rack_of(struct rm_call *k, const struct rm_out *e);
void rm_out_remove(struct rm_call *k, __u32 seq);
int rm_pump(struct rm_call *k);
int rm_retransmit(struct rm_call *k, __u64 *wait_us);
__u32 rm_contrib_upto(const struct rina_rm *m, __u32 chunk, __u32 i);
int rm_forwards_ag(const struct rm_call *k, __u32 chunk);

/*
 * The member whose allgather data of chunk starts there: its owner
 * (rina_own_chunk()), or in a broadcast the root for every chunk.
 */
static inline __u32 rm_ag_origin(const struct rm_call *k, __u32 chunk)
{
	return k->bc ? k->root : (chunk + k->s.L - 1) % k->s.L;
}

#endif /* RINA_CORE_RING_MEMBER_INT_H */
