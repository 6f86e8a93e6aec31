/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent core's internals, shared by its files and by no host (the
 * hosts' API is agent.h):
 *
 *   agent.c        datagram dispatch, the session, timers, life cycle
 *   agent_tx.c     what the agent sends: headers, the data tag or MAC,
 *                  control messages, ACKs and the gathered ACK queue
 *   agent_cache.c  the allgather cache: the window of rounds, the sender
 *                  of record downstream, repairs, the ToR's copies
 *   agent_agg.c    software aggregation of the rack (slot.h's rules)
 *   agent_ctrl.c   the control plane: HELLO, BYE, STALL, ABORT
 *   agent_tor.c    the rack's ToR: install, liveness, loss and return
 *
 * The functions declared here carry the rina_agent_ prefix only to stay
 * out of the way of a program linking librina.a; they are not API.
 */
#ifndef RINA_CORE_AGENT_INT_H
#define RINA_CORE_AGENT_INT_H

#include "agent.h"
#include "wire.h"
#include "slot.h"

/*
 * One aggregation in progress or done, keyed by (round, seq). Software
 * has memory to spare, so unlike the ToR's 2W registers there is one
 * entry per packet of the last two rounds: no collisions, ever, whatever
 * order the upstream member sends in.
 */
struct rina_agent_agg {
	struct rina_slot s;
	__u64	t_claim;	/* its first contribution came */
	__u64	t_asked;	/* neighbours last asked again: ask_again() */
	__u64	t_gap;		/* a local worker last asked: gap_nack() */
	__u32	gap_asked;	/* the local workers asked: gap_nack() */
	__u16	chunk, p_chunk, n_elem, step;
	__u8	dtype_op, flags;
	__s32	vals[];
};

/* A cached allgather packet: for repair and for retransmission. */
struct rina_agent_ag {
	__u16	round;
	__u32	seq;
	__u32	len;		/* bytes in pkt */
	__u8	fwd;		/* went downstream: needs its ACK */
	__u8	acked;
	__u8	hop;		/* hop downstream */
	__u8	probe;		/* went again as the timer's probe */
	__u32	in_fifo;	/* references from the FIFO */
	__u32	tries;
	/*
	 * t_sent: its last sending downstream; t_first: its first, what
	 * RACK times it by once acknowledged (the ACK from downstream);
	 * no_sent, no_first: the same as the agent's count of sendings
	 * downstream, which orders copies sent within one clock tick
	 */
	__u64	t_sent, t_first, rto;
	__u64	no_sent, no_first;
	__u8	pkt[];		/* as sent to the local workers */
};

/* Largest datagram the core sends: an ACK fan-out of RINA_MAX_ELEMS seqs. */
#define TAGGED_TX_LEN	(RINA_HDR_LEN + RINA_MAX_PAYLOAD + RINA_TAG_LEN)

/* ---- small helpers ----------------------------------------------- */

static inline int addr_eq(const struct rina_agent_addr *x,
			  const struct rina_agent_addr *y)
{
	return x->ip == y->ip && x->port == y->port;
}

static inline void ev(struct rina_agent_core *a, enum rina_agent_event e,
		      __u32 arg)
{
	if (a->ops->event)
		a->ops->event(a->ctx, e, arg);
}

static inline void *zalloc(struct rina_agent_core *a, __u32 n)
{
	void *p = a->ops->zalloc(a->ctx, n);

	if (!p)
		a->st.nomem++;
	return p;
}

static inline void afree(struct rina_agent_core *a, void *p)
{
	if (p)
		a->ops->free(a->ctx, p);
}

static inline int ring_head(const struct rina_agent_core *a)
{
	return a->cfg.member == 0;
}

/* ---- agent.c: the session ---------------------------------------- */

void rina_agent_session_learnt(struct rina_agent_core *a, __u64 s);

/* ---- agent_tx.c: what the agent sends ---------------------------- */

void rina_agent_hdr_init(const struct rina_agent_core *a, struct rina_hdr *h,
			 __u8 op, __u16 round);
void rina_agent_xmit(struct rina_agent_core *a,
		     const struct rina_agent_addr *to, const void *buf,
		     __u32 len);
void rina_agent_send_ctrl_arg(struct rina_agent_core *a,
			      const struct rina_agent_addr *to, __u32 type,
			      __u32 arg);
void rina_agent_send_ctrl(struct rina_agent_core *a,
			  const struct rina_agent_addr *to, __u32 type);
void rina_agent_send_ack(struct rina_agent_core *a,
			 const struct rina_agent_addr *to, __u16 round,
			 __u32 seq, __u8 flags);
void rina_agent_to_workers(struct rina_agent_core *a, const void *pkt,
			   __u32 len);
void rina_agent_ackq_push(struct rina_agent_core *a,
			  struct rina_agent_ackq *q, __u16 round, __u32 seq,
			  int at_once);
__u64 rina_agent_ackq_due(struct rina_agent_core *a,
			  struct rina_agent_ackq *q, __u64 now);

/* ---- agent_cache.c: the allgather cache -------------------------- */

__u64 rina_agent_rto(const struct rina_agent_core *a);
void rina_agent_drop_val(void *val, void *arg);
int rina_agent_round_admit(struct rina_agent_core *a, __u16 round);
struct rina_agent_ag *rina_agent_ag_store(struct rina_agent_core *a,
					  const struct rina_hdr *h, __u32 len,
					  int fwd, __u8 hop);
void rina_agent_ag_send_down(struct rina_agent_core *a,
			     struct rina_agent_ag *e, int retx);
__u64 rina_agent_ag_retransmit(struct rina_agent_core *a);
void rina_agent_repair_one(struct rina_agent_core *a,
			   const struct rina_agent_ag *e,
			   const struct rina_agent_addr *to);
void rina_agent_ag_from_upstream(struct rina_agent_core *a,
				 const struct rina_hdr *h, __u32 len,
				 const struct rina_agent_addr *from);
void rina_agent_ack_from_downstream(struct rina_agent_core *a,
				    const struct rina_hdr *h, __u32 len,
				    const struct rina_agent_addr *from);
void rina_agent_nack_from_worker(struct rina_agent_core *a,
				 const struct rina_hdr *h,
				 const struct rina_agent_addr *from);
void rina_agent_ask_from_upstream(struct rina_agent_core *a,
				  const struct rina_hdr *h,
				  const struct rina_agent_addr *from);
int rina_agent_ag_drained(const struct rina_agent_core *a);

/* ---- agent_agg.c: software aggregation --------------------------- */

int rina_agent_local_index(const struct rina_agent_core *a,
			   const struct rina_agent_addr *f);
void rina_agent_aggregate(struct rina_agent_core *a, const struct rina_hdr *h,
			  const struct rina_agent_addr *from);
void rina_agent_ask_from_downstream(struct rina_agent_core *a,
				    const struct rina_hdr *h, __u32 len);

/* ---- agent_ctrl.c: the control plane ----------------------------- */

void rina_agent_answer_workers(struct rina_agent_core *a);
void rina_agent_ctrl(struct rina_agent_core *a, const struct rina_hdr *h,
		     const struct rina_agent_addr *from);

/* ---- agent_tor.c: the rack's ToR --------------------------------- */

void rina_agent_tor_heard(struct rina_agent_core *a);
void rina_agent_tor_ask_install(struct rina_agent_core *a);
int rina_agent_relay_to_tor(struct rina_agent_core *a,
			    const struct rina_hdr *h, __u32 wire_len,
			    const struct rina_agent_addr *from);
int rina_agent_redirect_to_tor(struct rina_agent_core *a,
			       const struct rina_hdr *h,
			       const struct rina_agent_addr *from);
void rina_agent_tor_reply(struct rina_agent_core *a, const struct rina_hdr *h,
			  const struct rina_agent_addr *from);
__u64 rina_agent_tor_tick(struct rina_agent_core *a, __u64 now);
void rina_agent_tor_session_reset(struct rina_agent_core *a);

#endif /* RINA_CORE_AGENT_INT_H */
