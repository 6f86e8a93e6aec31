// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Software aggregation of an INA rack: the agent adds what reaches it
 * with the ToR's slot rules (slot.h), one slot per (round, seq), emits
 * each result, asks again for the parts a slot lacks, and names the
 * local workers that its slots wait for in vain.
 */
#include "agent_int.h"
#include "agg.h"
#include "schedule.h"

int rina_agent_local_index(const struct rina_agent_core *a,
			   const struct rina_agent_addr *f)
{
	__u32 k;

	for (k = 0; k < a->cfg.n_local; k++)
		if (addr_eq(&a->cfg.local[k], f))
			return (int)k;
	return -1;
}

static void store_be(const struct rina_agent_core *a, __be32 *out,
		     const __s32 *acc, __u32 n)
{
	if (a->ops->store_be)
		a->ops->store_be(out, acc, n);
	else
		rina_agg_store_be(out, acc, n);
}

/* Emit a completed slot's result (also used to re-emit it). */
static void emit_result(struct rina_agent_core *a, struct rina_agent_agg *sl,
			const struct rina_agent_addr *from, int retx)
{
	struct rina_hdr *h = (struct rina_hdr *)a->scratch;
	__u32 len = RINA_HDR_LEN + 4u * sl->n_elem, L = a->cfg.L;
	int own = sl->chunk == rina_own_chunk(a->cfg.member, L);
	struct rina_agent_ag *e;

	rina_agent_hdr_init(a, h, own ? RINA_OP_AG_DATA : RINA_OP_SR_PARTIAL,
			    sl->s.round);
	h->chunk = rina_htons(sl->chunk);
	h->p_chunk = rina_htons(sl->p_chunk);
	h->n_elem = rina_htons(sl->n_elem);
	h->num_contrib = rina_htons(sl->s.ncontrib);
	h->dtype_op = sl->dtype_op;
	h->flags = sl->flags & RINA_F_LAST;
	if (sl->s.state & RINA_SLOT_ST_OVF)
		h->flags |= RINA_F_OVERFLOW;
	if (retx)
		h->flags |= RINA_F_RETX;
	store_be(a, (__be32 *)(h + 1), sl->vals, sl->n_elem);
	if (!own) {
		h->seq = rina_htonl(sl->s.seq);
		h->slot = rina_htons((__u16)(sl->s.id + sl->p_chunk));
		h->step = (__u8)(sl->step + 1);
		rina_agent_xmit(a, &a->cfg.next, h, len);
		a->st.partial_out++;
		return;
	}
	h->seq = rina_htonl(rina_seq_ag_of(L, sl->p_chunk, sl->s.seq));
	h->flags |= RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	if (retx && from) {	/* one worker lost its copy */
		rina_agent_xmit(a, from, h, len);
		return;
	}
	rina_agent_to_workers(a, h, len);
	if (L > 1) {
		e = rina_keymap_get(&a->ag, sl->s.round, rina_ntohl(h->seq));
		if (!e)
			e = rina_agent_ag_store(a, h, len, 1, 1);
		if (e)
			rina_agent_ag_send_down(a, e, 0);
	} else {
		rina_agent_ag_store(a, h, len, 0, 0);
	}
}

/*
 * A lost ToR may have completed a slot, ACKed the upstream partial at DONE
 * and died before the rack heard of the result: the downstream ACK it
 * would have fanned out, the partial itself or, for the own chunk, the
 * result it would have sent the workers and us went with it. Upstream
 * never sends that partial again, so the slot the workers' retries now
 * build here would wait for it forever. When a local worker retries a
 * slot that waits for upstream's part, ask again, once per RTO per slot:
 * upstream for its partial (a NACK of the reduce-scatter seq, no
 * AG_PHASE; its agent re-emits it, or has its workers retry so that their
 * ToR re-emits what it holds done: rina_agent_ask_from_downstream());
 * and, for the own chunk, downstream for the result, which it may hold
 * when upstream is done with the call (a NACK of the allgather seq to its
 * agent: rina_agent_ask_from_upstream(), answered into
 * own_from_downstream() in agent_cache.c). Other chunks' results reach
 * the workers as allgather data, which completes their contributions too
 * (user/lib/ina_worker.c). The other way round, the ToR may have died
 * before its ACK of upstream's partial went up: upstream's retry is ACKed
 * when we hold the chunk's result (rina_agent_aggregate()), else the
 * workers are asked again; so is any retried slot that lacks a local
 * worker (the ToR may have told it its part was delivered). A plain
 * member answers too (user/lib/ring.c, rx_ask()).
 */
static void ask_again(struct rina_agent_core *a, struct rina_agent_agg *sl,
		      int k, const struct rina_hdr *h, __u32 exp_mask)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;
	int own = sl->chunk == rina_own_chunk(a->cfg.member, a->cfg.L);
	__u32 missing = exp_mask & ~sl->s.bitmap;
	__u64 now;

	if (!(h->flags & RINA_F_RETX) ||
	    a->tor_state != RINA_AGENT_TOR_LOST || !missing)
		return;
	now = a->ops->now_us(a->ctx);
	if (sl->t_asked && now - sl->t_asked < rina_agent_rto(a))
		return;
	sl->t_asked = now;
	rina_agent_hdr_init(a, &p.h, RINA_OP_NACK, sl->s.round);
	p.h.chunk = rina_htons(sl->chunk);
	p.h.seq = rina_htonl(sl->s.seq);
	p.h.n_elem = rina_htons(1);
	p.seq = p.h.seq;
	/*
	 * A local worker is missing: the ToR may have told it its
	 * contribution was delivered (a fanned-out ACK the retrying sender
	 * missed, or the ACK to upstream went with the ToR), so it sends no
	 * more. It sends again what its chunk's result has not yet
	 * overwritten (user/lib/ina_worker.c, wrx_resend()).
	 */
	if (missing & a->local_mask) {
		rina_agent_to_workers(a, &p, sizeof(p));
		a->st.asks_out++;
	}
	if (missing & a->up_bit) {
		rina_agent_xmit(a, &a->cfg.prev, &p, sizeof(p));
		a->st.asks_out++;
	}
	/*
	 * The own chunk's slot may also lack a local worker that the ToR's
	 * result already completed (it missed nothing, and sends no more)
	 */
	if (!own || k < 0 || a->cfg.L < 2)
		return;
	p.h.flags = RINA_F_AG_PHASE;
	p.h.seq = rina_htonl(rina_seq_ag_of(a->cfg.L, sl->p_chunk, sl->s.seq));
	p.seq = p.h.seq;
	rina_agent_xmit(a, &a->cfg.next, &p, sizeof(p));
	a->st.asks_out++;
}

/*
 * While the agent adds the rack itself (no ToR, or one lost), it sees
 * each local worker's contributions arrive, and a worker sends them in
 * ordinal order (the wire slot's order, core/schedule.h). Worker k's
 * contribution to ordinal o says its parts of ordinals before it left
 * first: a slot of such an ordinal that still lacks k's part, once o is
 * RINA_AGENT_GAP_DUPTHRESH ordinals on (TCP's duplicate threshold,
 * against reordering), lost it. Ask k for it (a NACK of that seq,
 * without AG_PHASE, as ask_again() does) instead of waiting for k to
 * find out: its RACK needs younger contributions delivered, which waits
 * for the whole slot and downstream, and its timer longer still. At 10%
 * loss on 2x3 the agents' workers spent 32-67 ms of each 1 MiB call
 * waiting for their last deliveries (performance-notes.md). seq and P are
 * the arriving contribution's (P: its p_chunk).
 */
static void gap_nack(struct rina_agent_core *a, int k, __u16 round,
		     __u32 seq, __u32 P)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;
	struct rina_sched s = { .L = a->cfg.L, .P = P };	/* as the worker's */
	__u32 i = a->cfg.member, d;
	struct rina_pkt_id id;
	__u64 o, now;

	if (!P || rina_seq_is_ag(&s, seq))
		return;
	o = rina_seq_ordinal(&s, i, seq);
	now = a->ops->now_us(a->ctx);
	for (d = RINA_AGENT_GAP_DUPTHRESH;
	     d < RINA_AGENT_GAP_DUPTHRESH + RINA_AGENT_GAP_SPAN && d <= o;
	     d++) {
		__u32 sq = rina_ordinal_seq(&s, i, o - d, &id);
		struct rina_agent_agg *sl = rina_keymap_get(&a->agg, round, sq);

		if (!sl || (sl->s.state & RINA_SLOT_ST_DONE) ||
		    (sl->s.bitmap & (1u << k)) ||
		    ((sl->gap_asked & (1u << k)) &&
		     now - sl->t_gap < RINA_AGENT_GAP_REASK_US))
			continue;
		sl->gap_asked |= 1u << k;
		sl->t_gap = now;
		rina_agent_hdr_init(a, &p.h, RINA_OP_NACK, round);
		p.h.chunk = rina_htons((__u16)id.chunk);
		p.h.seq = rina_htonl(sq);
		p.h.n_elem = rina_htons(1);
		p.seq = p.h.seq;
		rina_agent_xmit(a, &a->cfg.local[k], &p, sizeof(p));
		a->st.gap_nacks++;
	}
}

void rina_agent_aggregate(struct rina_agent_core *a, const struct rina_hdr *h,
			  const struct rina_agent_addr *from)
{
	__u32 slot = rina_ntohs(h->slot), n = rina_ntohs(h->n_elem);
	__u32 chunk = rina_ntohs(h->chunk), bit, exp_mask, agseq;
	const __be32 *in = (const __be32 *)(h + 1);
	struct rina_agent_agg *sl;
	struct rina_agent_ag *e;
	struct rina_slot_key key;
	int k = -1, ovf = 0;

	if (rina_hdr_opcode(h) == RINA_OP_SR_PARTIAL) {
		if (!addr_eq(from, &a->cfg.prev)) {
			a->st.bad++;
			return;
		}
		bit = a->up_bit;
		a->st.partial_in++;
	} else {
		k = rina_agent_local_index(a, from);
		if (k < 0) {
			a->st.bad++;
			return;
		}
		bit = 1u << k;
		a->data_from |= bit;
		a->active = 1;
		a->st.contrib_in++;
	}
	exp_mask = rina_slot_exp_mask(a->local_mask, a->up_bit, chunk,
				      a->cfg.member);
	if (chunk >= a->cfg.L || !(exp_mask & bit) || !rina_ntohs(h->p_chunk) ||
	    rina_ntohs(h->p_chunk) >= a->cfg.window || n > a->cfg.elems) {
		a->st.bad++;
		return;
	}
	key.epoch = 0;
	key.round = rina_ntohs(h->round);
	key.seq = rina_ntohl(h->seq);
	key.id = (__u16)slot;
	if (rina_agent_round_admit(a, key.round))
		return;
	if (k >= 0)	/* a local worker's, in the window */
		a->heard[k] = a->ops->now_us(a->ctx);
	if (k >= 0 && a->tor_state != RINA_AGENT_TOR_ON &&
	    !(h->flags & RINA_F_RETX))
		gap_nack(a, k, key.round, key.seq, rina_ntohs(h->p_chunk));
	if (rina_round_cmp(key.round, a->max_round) < -1) {
		a->st.stale++;	/* its sender has long had the answer */
		return;
	}
	sl = rina_keymap_get(&a->agg, key.round, key.seq);
	agseq = rina_seq_ag_of(a->cfg.L, rina_ntohs(h->p_chunk), key.seq);
	if ((!sl || !(sl->s.bitmap & a->up_bit)) && k >= 0 &&
	    chunk == rina_own_chunk(a->cfg.member, a->cfg.L) &&
	    rina_keymap_get(&a->ag, key.round, agseq)) {
		/*
		 * A result the ToR completed and we hold (or downstream gave
		 * us: own_from_downstream()), retried by a worker that missed
		 * our word on it (ackq_flush()) before the ToR went: only
		 * that word completes it, a slot of ours never would (the
		 * other workers, or upstream, are done with it).
		 */
		rina_agent_ackq_push(a, &a->held, key.round, agseq, 1);
		a->st.reemit++;
		return;
	}
	if ((h->flags & RINA_F_RETX) && a->tor_state == RINA_AGENT_TOR_LOST &&
	    (!sl || !(sl->s.state & RINA_SLOT_ST_DONE)) &&
	    (e = rina_keymap_get(&a->ag, key.round, agseq))) {
		/*
		 * A retry of a slot whose result we hold: the lost ToR added
		 * it, and its word on it (the ACK upstream, the ACK fanned
		 * out to this worker) went with it. The result completes a
		 * worker's part too (user/lib/ina_worker.c, wrx_ag()).
		 */
		if (k < 0)
			rina_agent_send_ack(a, &a->cfg.prev, key.round, key.seq,
					    0);
		else
			rina_agent_repair_one(a, e, from);
		a->st.reemit++;
		return;
	}
	if (!sl) {
		sl = zalloc(a, (__u32)sizeof(*sl) + 4u * a->cfg.elems);
		if (!sl)
			return;	/* no memory: the sender will retry */
		if (rina_keymap_put(&a->agg, key.round, key.seq, sl)) {
			a->st.nomem++;
			afree(a, sl);
			return;
		}
	}
	switch (rina_slot_classify(&sl->s, &key, bit)) {
	case RINA_SLOT_FRESH:
		rina_slot_claim(&sl->s, &key);
		sl->t_claim = a->ops->now_us(a->ctx);
		sl->chunk = (__u16)chunk;
		sl->p_chunk = rina_ntohs(h->p_chunk);
		sl->n_elem = (__u16)n;
		sl->step = h->step;
		sl->dtype_op = h->dtype_op;
		sl->flags = 0;
		if (a->ops->load_be)
			a->ops->load_be(sl->vals, in, n);
		else
			rina_agg_load_be(sl->vals, in, n);
		break;
	case RINA_SLOT_ADD:
		if (n != sl->n_elem || h->dtype_op != sl->dtype_op) {
			a->st.bad++;
			return;
		}
		if (RINA_OP_OF(h->dtype_op) == RINA_WIRE_MAX) {
			if (a->ops->max_be)
				a->ops->max_be(sl->vals, in, n);
			else
				rina_agg_max_be(sl->vals, in, n);
		} else {
			ovf = a->ops->add_be ? a->ops->add_be(sl->vals, in, n) :
			      rina_agg_add_be(sl->vals, in, n);
		}
		break;
	case RINA_SLOT_DUP:
		a->st.dup++;
		ask_again(a, sl, k, h, exp_mask);
		return;
	case RINA_SLOT_DUP_DONE:
		a->st.reemit++;
		if (bit == a->up_bit)	/* our ACK was lost */
			rina_agent_send_ack(a, &a->cfg.prev, sl->s.round,
					    sl->s.seq, 0);
		else
			emit_result(a, sl, from, 1);
		return;
	case RINA_SLOT_STALE:
		a->st.stale++;
		return;
	default:
		a->st.collision++;	/* window violated: sender retries */
		return;
	}
	sl->flags |= h->flags & RINA_F_LAST;
	if (h->flags & RINA_F_OVERFLOW)
		ovf = 1;
	if (!rina_slot_join(&sl->s, bit, h->exp, rina_ntohs(h->num_contrib),
			    ovf, exp_mask)) {
		ask_again(a, sl, k, h, exp_mask);
		return;
	}
	a->st.slots_done++;
	if (exp_mask & a->up_bit)	/* ACK at completion */
		rina_agent_send_ack(a, &a->cfg.prev, sl->s.round, sl->s.seq, 0);
	emit_result(a, sl, NULL, 0);
}

/*
 * Downstream asks again for partials of ours (ask_again()): re-emit
 * those we completed here; for the others, which our ToR completed (or
 * nobody yet), have the rack's workers send their contributions again,
 * so that a slot the ToR still holds done is re-emitted from there
 * (protocol-ina.md 4) and one it lacks gets them. A worker resends only
 * what it sent, at most once per 2 ms (user/lib/ina_worker.c).
 */
void rina_agent_ask_from_downstream(struct rina_agent_core *a,
				    const struct rina_hdr *h, __u32 len)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), own, relay = 0;

	own = rina_own_chunk(a->cfg.member, a->cfg.L);
	a->st.asks_in++;
	for (j = 0; j < n; j++) {
		struct rina_agent_agg *sl;

		sl = rina_keymap_get(&a->agg, rina_ntohs(h->round),
				     rina_ntohl(seqs[j]));
		if (sl && (sl->s.state & RINA_SLOT_ST_DONE) &&
		    sl->chunk != own) {
			emit_result(a, sl, NULL, 1);
			a->st.reemit++;
		} else {
			relay = 1;
		}
	}
	if (relay)
		rina_agent_to_workers(a, h, len);
}

/*
 * With the ToR holding the slots the agent sees no contributions, so
 * the stalled workers' reports tell who is there: once the rack has been
 * stalled for two thirds of the silence limit (by then its workers made
 * no progress for about the limit), a local worker that sent nothing
 * since before the stall began is the silent one.
 */
static __u32 stall_silent(const struct rina_agent_core *a, __u64 quiet_us,
			  __u64 now)
{
	__u32 k, quiet = 0;

	if (!a->stall_last || now - a->stall_last > quiet_us / 2 ||
	    now - a->stall_first < quiet_us * 2 / 3)
		return 0;
	for (k = 0; k < a->cfg.n_local; k++)
		if (a->heard[k] < a->stall_first)
			quiet |= 1u << k;
	return quiet;
}

__u32 rina_agent_core_silent(const struct rina_agent_core *a, __u64 quiet_us)
{
	__u64 now = a->ops->now_us(a->ctx);
	__u32 j, missing = 0, quiet = 0, k;

	if (a->tor_state == RINA_AGENT_TOR_ON || a->tor_state ==
	    RINA_AGENT_TOR_WAIT)
		return stall_silent(a, quiet_us, now);
	for (k = 0; k < a->cfg.n_local; k++)
		if (now - a->heard[k] >= quiet_us)
			quiet |= 1u << k;
	if (!quiet)
		return 0;
	for (j = 0; j < a->agg.cap; j++) {
		const struct rina_agent_agg *sl = a->agg.tab[j].val;
		__u32 exp;

		/* a slot that waits, and not only on upstream */
		if (!sl || (sl->s.state & RINA_SLOT_ST_DONE) ||
		    !(sl->s.bitmap & a->local_mask) ||
		    now - sl->t_claim < quiet_us ||
		    rina_round_cmp(sl->s.round, a->max_round) < -1)
			continue;
		exp = rina_slot_exp_mask(a->local_mask, a->up_bit, sl->chunk,
					 a->cfg.member);
		missing |= exp & a->local_mask & ~sl->s.bitmap;
	}
	return missing & quiet;
}
