// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent protocol of an INA rack on the shared core; see agent.h and
 * Documentation/protocol-ina.md.
 */
#include "agent.h"
#include "agg.h"
#include "wire.h"
#include "schedule.h"
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
	__u32	in_fifo;	/* references from the FIFO */
	__u32	tries;
	__u64	t_sent, rto;
	__u8	pkt[];		/* as sent to the local workers */
};

/* ---- small helpers ----------------------------------------------- */

static int addr_eq(const struct rina_agent_addr *x,
		   const struct rina_agent_addr *y)
{
	return x->ip == y->ip && x->port == y->port;
}

static void ev(struct rina_agent_core *a, enum rina_agent_event e, __u32 arg)
{
	if (a->ops->event)
		a->ops->event(a->ctx, e, arg);
}

static void *zalloc(struct rina_agent_core *a, __u32 n)
{
	void *p = a->ops->zalloc(a->ctx, n);

	if (!p)
		a->st.nomem++;
	return p;
}

static void afree(struct rina_agent_core *a, void *p)
{
	if (p)
		a->ops->free(a->ctx, p);
}

/*
 * A ToR that never answered TOR_INSTALL, with cfg.tor_retry: asked again
 * as a lost one is (tor_release()), since it may only have started
 * after the agent (rina-tor started late, a switch rebooting).
 */
int rina_agent_core_tor_unheard(const struct rina_agent_core *a)
{
	return a->cfg.tor_retry && a->tor_state == RINA_AGENT_TOR_OFF &&
	       a->tor_status == RINA_AGENT_TOR_SILENT;
}

/* The ToR spoke: it is there (tor_watch()). */
static void tor_heard(struct rina_agent_core *a)
{
	a->tor_heard = a->ops->now_us(a->ctx);
	a->tor_tries = 0;
}

/*
 * The ring's session is s (0: not known yet): the data tag and key are
 * its. Until it is known, rx refuses all data of a tagged job.
 */
static void session_set(struct rina_agent_core *a, __u64 s)
{
	a->session = s;
	if (a->cfg.tagged)
		rina_session_tag(a->cfg.secret, a->ops->mac, a->cfg.job_id, s,
				 a->tag);
	if (a->cfg.auth_mac)
		rina_data_key(a->cfg.secret, a->ops->mac, a->cfg.job_id, s,
			      a->mac_key);
}

static int ring_head(const struct rina_agent_core *a)
{
	return a->cfg.member == 0;
}

/*
 * A new session's number: the ring's first member draws it (never 0,
 * "not known"), the others wait for upstream's HELLO to tell it.
 */
static void session_start(struct rina_agent_core *a)
{
	__u64 s = 0;

	while (ring_head(a) && !s)
		s = a->ops->random_u64(a->ctx);
	session_set(a, s);
}

static void send_ctrl(struct rina_agent_core *a,
		      const struct rina_agent_addr *to, __u32 type);

/*
 * TOR_INSTALL, resent by tor_tick(): it carries the session, from which
 * the ToR derives the tag it checks and writes, so it waits for it
 * (tor_tries 0; session_learnt() sends it).
 */
static void tor_ask_install(struct rina_agent_core *a)
{
	a->tor_tries = 0;
	if (!a->session)
		return;
	a->tor_tries = 1;
	a->tor_last = a->ops->now_us(a->ctx);
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_INSTALL);
}

/* Upstream's HELLO told the session: a ToR may be asked now. */
static void session_learnt(struct rina_agent_core *a, __u64 s)
{
	session_set(a, s);
	if (a->tor_state == RINA_AGENT_TOR_WAIT && !a->tor_reinstall &&
	    !a->tor_tries)
		tor_ask_install(a);
}

static void hdr_init(const struct rina_agent_core *a, struct rina_hdr *h,
		     __u8 op, __u16 round)
{
	rina_memset(h, 0, sizeof(*h));
	h->ver_op = (__u8)(RINA_VERSION << 4 | op);
	h->job_id = rina_htons(a->cfg.job_id);
	h->round = rina_htons(round);
	h->src_id = rina_htons(a->cfg.rank);
	h->exp = RINA_EXP_NONE;
}

/* Largest datagram the core sends: an ACK fan-out of RINA_MAX_ELEMS seqs. */
#define TAGGED_TX_LEN	(RINA_HDR_LEN + RINA_MAX_PAYLOAD + RINA_TAG_LEN)

static void xmit(struct rina_agent_core *a, const struct rina_agent_addr *to,
		 const void *buf, __u32 len)
{
	if ((a->cfg.tagged || a->cfg.auth_mac) &&
	    len + RINA_TAG_LEN <= TAGGED_TX_LEN) {
		rina_memcpy(a->tagged_tx, buf, len);
		len = rina_data_seal(a->tagged_tx, len,
				     a->cfg.tagged ? a->tag : NULL,
				     a->cfg.auth_mac ? a->mac_key : NULL,
				     a->ops->mac);
		buf = a->tagged_tx;
	}
	a->ops->send(a->ctx, to, buf, len);
}

static void send_ctrl_arg(struct rina_agent_core *a,
			  const struct rina_agent_addr *to, __u32 type,
			  __u32 arg)
{
	const __u8 *key = a->cfg.has_secret ? a->cfg.secret : NULL;
	struct rina_ctrl_msg r;
	__u32 len;

	hdr_init(a, &r.h, RINA_OP_CTRL, 0);
	rina_ctrl_set_session(&r.h, a->session);
	r.c.type = rina_htonl(type);
	r.c.arg = rina_htonl(arg);
	rina_put_be64(&r.c.hash, a->cfg.job_hash);
	len = rina_ctrl_seal(&r, key, a->ops->mac,
			     key ? a->ops->ctrl_stamp(a->ctx) : 0, to->ip,
			     to->port);
	xmit(a, to, &r, len);
}

static void send_ctrl(struct rina_agent_core *a,
		      const struct rina_agent_addr *to, __u32 type)
{
	send_ctrl_arg(a, to, type, 0);
}

static void send_ack(struct rina_agent_core *a,
		     const struct rina_agent_addr *to, __u16 round, __u32 seq,
		     __u8 flags)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	hdr_init(a, &p.h, RINA_OP_ACK, round);
	p.h.flags = flags;
	p.h.seq = rina_htonl(seq);
	p.h.n_elem = rina_htons(1);
	p.seq = rina_htonl(seq);
	xmit(a, to, &p, sizeof(p));
	a->st.acks_out++;
}

static void to_workers(struct rina_agent_core *a, const void *pkt, __u32 len)
{
	__u32 k;

	for (k = 0; k < a->cfg.n_local; k++)
		xmit(a, &a->cfg.local[k], pkt, len);
	a->st.mcast_out += a->cfg.n_local;
}

static __u64 rto(const struct rina_agent_core *a)
{
	__u64 r = rina_rtt_rto(&a->rtt, a->cfg.rto_us, RINA_AGENT_RTO_MAX_US);

	/*
	 * The downstream agent ACKs from a busy host thread: its delay has a
	 * long tail that rttvar (first transmissions only) does not see.
	 */
	if (r < 3 * a->rtt.srtt_us)
		r = 3 * a->rtt.srtt_us;
	return r > RINA_AGENT_RTO_MAX_US ? RINA_AGENT_RTO_MAX_US : r;
}

/* ---- the allgather cache ----------------------------------------- */

static void fifo_push(struct rina_agent_core *a, struct rina_agent_ag *e)
{
	__u32 next = (a->fifo_tail + 1) & (a->fifo_cap - 1);

	if (next == a->fifo_head) {
		struct rina_agent_ag **f;
		__u32 j, n = 0;

		f = zalloc(a, a->fifo_cap * 2 * (__u32)sizeof(*f));
		if (!f)
			return;	/* not retransmitted: upstream's timer */
		for (j = a->fifo_head; j != a->fifo_tail;
		     j = (j + 1) & (a->fifo_cap - 1))
			f[n++] = a->fifo[j];
		afree(a, a->fifo);
		a->fifo = f;
		a->fifo_cap *= 2;
		a->fifo_head = 0;
		a->fifo_tail = n;
		next = n + 1;
	}
	a->fifo[a->fifo_tail] = e;
	a->fifo_tail = next;
	e->in_fifo++;
}

static struct rina_agent_ag *fifo_pop(struct rina_agent_core *a)
{
	struct rina_agent_ag *e = a->fifo[a->fifo_head];

	a->fifo_head = (a->fifo_head + 1) & (a->fifo_cap - 1);
	e->in_fifo--;
	return e;
}

/* Keep rounds r-1 and r; never what the FIFO still points at. */
static int ag_keep(void *val, void *arg)
{
	const struct rina_agent_ag *e = val;
	const struct rina_agent_core *a = arg;

	return e->in_fifo || (e->fwd && !e->acked) ||
	       rina_round_cmp(e->round, a->max_round) >= -1;
}

static int agg_keep(void *val, void *arg)
{
	const struct rina_agent_agg *e = val;
	const struct rina_agent_core *a = arg;

	return rina_round_cmp(e->s.round, a->max_round) >= -1;
}

static void drop_val(void *val, void *arg)
{
	afree(arg, val);
}

static void purge(struct rina_agent_core *a)
{
	rina_keymap_filter(&a->ag, ag_keep, drop_val, a);
	rina_keymap_filter(&a->agg, agg_keep, drop_val, a);
}

/*
 * The agent's window of rounds: max_round - 1 (the previous call's late
 * packets) up to RINA_AGENT_ROUNDS_AHEAD rounds ahead. A call with data
 * needs the agent's part (the slots it adds, or the own-chunk results it
 * holds for the workers), so data is at most a few rounds past what the
 * agent saw, plus one round for each empty call (count 0: no packets) in
 * between; hence a quarter of the 16-bit round space. Only data that
 * passed its source checks moves the window, and by at most that much:
 * a packet of a far round (a forgery, or a sender of another life) would
 * otherwise purge every round in progress and make later traffic stale.
 * NACKs and ACKs never move it. Returns 0 when "round" is in the window
 * now, -1 (counted in far_round) when it is ahead of it.
 */
static int round_admit(struct rina_agent_core *a, __u16 round)
{
	int d = rina_round_cmp(round, a->max_round);

	if (d > RINA_AGENT_ROUNDS_AHEAD) {
		a->st.far_round++;
		return -1;
	}
	if (d > 0) {
		a->max_round = round;
		purge(a);
	}
	return 0;
}

/*
 * Keep an allgather packet (header + payload as the local workers get
 * it). fwd: it also goes downstream with hop "hop".
 */
static struct rina_agent_ag *ag_store(struct rina_agent_core *a,
				      const struct rina_hdr *h, __u32 len,
				      int fwd, __u8 hop)
{
	struct rina_agent_ag *e = zalloc(a, (__u32)sizeof(*e) + len);

	if (!e)
		return NULL;
	rina_memcpy(e->pkt, h, len);
	e->round = rina_ntohs(h->round);
	e->seq = rina_ntohl(h->seq);
	e->len = len;
	e->fwd = !!fwd;
	e->hop = hop;
	e->t_sent = a->ops->now_us(a->ctx);
	e->rto = rto(a);
	if (rina_keymap_put(&a->ag, e->round, e->seq, e)) {
		a->st.nomem++;
		afree(a, e);
		return NULL;
	}
	if (fwd)
		fifo_push(a, e);
	return e;
}

static void ag_send_down(struct rina_agent_core *a, struct rina_agent_ag *e,
			 int retx)
{
	struct rina_hdr *h = (struct rina_hdr *)a->scratch;

	rina_memcpy(h, e->pkt, e->len);
	h->hop = e->hop;
	h->step = e->hop;
	if (retx) {
		h->flags |= RINA_F_RETX;
		a->st.ag_retransmits++;
	}
	xmit(a, &a->cfg.next, h, e->len);
	a->st.ag_out++;
}

/*
 * Retransmit downstream what is lost (RACK: sent before something that
 * was acknowledged), or the oldest packet when the one retransmission
 * timer fires. As TCP's, the timer restarts whenever an ACK brings news,
 * so packets that merely wait behind others never fire it; it backs off
 * while nothing comes back. Both within the congestion window's
 * retransmission credit (cwnd per round trip, core/cc.h): the first
 * copies downstream go as slots complete (the ToR's, or ours without
 * one), and a burst of repairs on top of them overflows the downstream
 * host's queue that dropped the first ones. A loss halves the window,
 * once per round trip.
 */
static __u64 ag_retransmit(struct rina_agent_core *a)
{
	__u64 now = a->ops->now_us(a->ctx), reo = rina_rack_reo(&a->rtt);
	__u32 credit = rina_cc_retx_credit(&a->cc, &a->rtt,
					   RINA_CC_RETX_PERIOD_MIN_US,
					   RINA_AGENT_RTO_MAX_US, now);
	int timer_used = 0, lost;

	while (a->fifo_head != a->fifo_tail) {
		struct rina_agent_ag *e = a->fifo[a->fifo_head];

		if (e->acked) {
			fifo_pop(a);
			continue;
		}
		lost = rina_rack_lost(&a->rack, e->t_sent, reo);
		if (!lost && e->t_sent + e->rto > now)
			return e->t_sent + e->rto - now;
		if (!lost) {
			/* timer: one per pass, as ring.c explains */
			if (timer_used)
				return 0;
			timer_used = 1;
		}
		if (!credit) {
			__u64 at = rina_cc_retx_refill_at(&a->cc);

			return at > now ? at - now : 1;
		}
		credit--;
		rina_cc_retx_spend(&a->cc, 1);
		rina_cc_on_loss(&a->cc, &a->rtt, now);
		fifo_pop(a);
		ag_send_down(a, e, 1);
		e->tries++;
		e->t_sent = now;
		e->rto = e->rto * 2 > RINA_AGENT_RTO_MAX_US ?
			 RINA_AGENT_RTO_MAX_US : e->rto * 2;
		fifo_push(a, e);
	}
	return RINA_AGENT_NO_WAIT;
}

/* ---- aggregation -------------------------------------------------- */

static int local_index(const struct rina_agent_core *a,
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

	hdr_init(a, h, own ? RINA_OP_AG_DATA : RINA_OP_SR_PARTIAL,
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
		xmit(a, &a->cfg.next, h, len);
		a->st.partial_out++;
		return;
	}
	h->seq = rina_htonl(rina_seq_ag_of(L, sl->p_chunk, sl->s.seq));
	h->flags |= RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	if (retx && from) {	/* one worker lost its copy */
		xmit(a, from, h, len);
		return;
	}
	to_workers(a, h, len);
	if (L > 1) {
		e = rina_keymap_get(&a->ag, sl->s.round, rina_ntohl(h->seq));
		if (!e)
			e = ag_store(a, h, len, 1, 1);
		if (e)
			ag_send_down(a, e, 0);
	} else {
		ag_store(a, h, len, 0, 0);
	}
}

static void ackq_push(struct rina_agent_core *a, struct rina_agent_ackq *q,
		      __u16 round, __u32 seq, int at_once);

/* Send "to" again an allgather packet of the cache. */
static void repair_one(struct rina_agent_core *a,
		       const struct rina_agent_ag *e,
		       const struct rina_agent_addr *to)
{
	struct rina_hdr *r = (struct rina_hdr *)a->scratch;

	rina_memcpy(r, e->pkt, e->len);
	r->flags |= RINA_F_RETX;
	xmit(a, to, r, e->len);
	a->st.repairs++;
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
 * ToR re-emits what it holds done: ask_from_downstream()); and, for the
 * own chunk, downstream for the result, which it may hold when upstream
 * is done with the call (a NACK of the allgather seq to its agent:
 * ask_from_upstream(), answered into own_from_downstream()). Other
 * chunks' results reach the workers as allgather data, which completes
 * their contributions too (user/lib/ina_worker.c). The other way round,
 * the ToR may have died before its ACK of upstream's partial went up:
 * upstream's retry is ACKed when we hold the chunk's result (aggregate()),
 * else the workers are asked again; so is any retried slot that lacks a
 * local worker (the ToR may have told it its part was delivered). A
 * plain member answers too (user/lib/ring.c, rx_ask()).
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
	if (sl->t_asked && now - sl->t_asked < rto(a))
		return;
	sl->t_asked = now;
	hdr_init(a, &p.h, RINA_OP_NACK, sl->s.round);
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
		to_workers(a, &p, sizeof(p));
		a->st.asks_out++;
	}
	if (missing & a->up_bit) {
		xmit(a, &a->cfg.prev, &p, sizeof(p));
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
	xmit(a, &a->cfg.next, &p, sizeof(p));
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
 * waiting for their last deliveries (performance.md). seq and P are
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
		hdr_init(a, &p.h, RINA_OP_NACK, round);
		p.h.chunk = rina_htons((__u16)id.chunk);
		p.h.seq = rina_htonl(sq);
		p.h.n_elem = rina_htons(1);
		p.seq = p.h.seq;
		xmit(a, &a->cfg.local[k], &p, sizeof(p));
		a->st.gap_nacks++;
	}
}

static void aggregate(struct rina_agent_core *a, const struct rina_hdr *h,
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
		k = local_index(a, from);
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
	if (round_admit(a, key.round))
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
		ackq_push(a, &a->held, key.round, agseq, 1);
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
			send_ack(a, &a->cfg.prev, key.round, key.seq, 0);
		else
			repair_one(a, e, from);
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
			send_ack(a, &a->cfg.prev, sl->s.round, sl->s.seq, 0);
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
		send_ack(a, &a->cfg.prev, sl->s.round, sl->s.seq, 0);
	emit_result(a, sl, NULL, 0);
}

/* ---- other packets ----------------------------------------------- */

static __u32 ackq_max(const struct rina_agent_core *a)
{
	__u32 max = (a->max_msg - RINA_HDR_LEN) / 4;

	return max > RINA_AGENT_HELD_MAX ? RINA_AGENT_HELD_MAX : max;
}

static int ackq_has(const struct rina_agent_ackq *q, __u32 seq)
{
	__u32 j;

	for (j = 0; j < q->n; j++)
		if (q->seq[j] == seq)
			return 1;
	return 0;
}

/*
 * The ACKs of the ToR's allgather copies, gathered (RINA_AGENT_ACK_BATCH):
 * - to the rack's workers, which own-chunk results we hold: AG_PHASE |
 *   OWN_FINAL listing their allgather seqs (a->held). A worker's own-chunk
 *   contribution completes only on it (not on its own copy of the data),
 *   so the ToR's slot, which can re-emit the result, is not reused before
 *   the agent, the sender of record downstream, has it;
 * - to the upstream member, the copies of its chunks we keep: AG_PHASE
 *   (a->ag_up), as for allgather data it sent us itself.
 * After its own seqs an ACK lists the last one's again (same round, as
 * far as they fit), as TCP's SACK repeats its latest blocks (RFC 2018):
 * one lost ACK then loses nothing, where each lost one cost a
 * retransmission by every sender it acknowledged, a re-emission by the
 * ToR, and a halved window (rina-tor at 10% loss: 850 -> 709 ms a call).
 */
static void ackq_flush(struct rina_agent_core *a, struct rina_agent_ackq *q)
{
	struct {
		struct rina_hdr h;
		__be32 seqs[RINA_AGENT_HELD_MAX];
	} __attribute__((packed)) p;
	__u32 j, n, len, max = ackq_max(a);

	if (!q->n)
		return;
	hdr_init(a, &p.h, RINA_OP_ACK, q->round);
	p.h.flags = q->flags;
	p.h.seq = rina_htonl(q->seq[0]);
	for (j = 0; j < q->n; j++)
		p.seqs[j] = rina_htonl(q->seq[j]);
	n = q->n;
	for (j = 0; q->prev_round == q->round && j < q->nprev && n < max; j++)
		if (!ackq_has(q, q->prev[j]))
			p.seqs[n++] = rina_htonl(q->prev[j]);
	p.h.n_elem = rina_htons((__u16)n);
	len = RINA_HDR_LEN + 4 * n;
	rina_memcpy(q->prev, q->seq, q->n * sizeof(q->seq[0]));
	q->nprev = q->n;
	q->prev_round = q->round;
	if (q->to_workers)
		to_workers(a, &p, len);
	else
		xmit(a, &a->cfg.prev, &p, len);
	a->st.acks_out++;
	q->n = 0;
}

/*
 * at_once: send it with what is gathered: a retry (its sender lost
 * our ACK, or waits for it), or the last packet of its chunk, so that no
 * chunk's tail waits for the delay (a worker probes after 2 ms of
 * silence).
 */
static void ackq_push(struct rina_agent_core *a, struct rina_agent_ackq *q,
		      __u16 round, __u32 seq, int at_once)
{
	if (q->n && (q->n >= ackq_max(a) || q->round != round))
		ackq_flush(a, q);
	if (!q->n)
		q->t0 = a->ops->now_us(a->ctx);
	q->round = round;
	q->seq[q->n++] = seq;
	if (at_once)
		ackq_flush(a, q);
}

/*
 * Send a gathered ACK that is full enough or waited long enough; else
 * say when it will have (RINA_AGENT_NO_WAIT: nothing gathered).
 */
static __u64 ackq_due(struct rina_agent_core *a, struct rina_agent_ackq *q,
		      __u64 now)
{
	__u64 delay = a->rtt.srtt_us / 4;

	if (!q->n)
		return RINA_AGENT_NO_WAIT;
	if (delay > RINA_AGENT_ACK_DELAY_MAX_US)
		delay = RINA_AGENT_ACK_DELAY_MAX_US;
	if (q->n >= RINA_AGENT_ACK_BATCH || now - q->t0 >= delay) {
		ackq_flush(a, q);
		return RINA_AGENT_NO_WAIT;
	}
	return q->t0 + delay - now;
}

/*
 * The ToR sends no allgather data to a worker on the agent's own host
 * (rina-p4cfg's rw_host replica): that host's link would carry every
 * result twice, once to each port, and be the rack's bottleneck. The
 * agent relays each copy it gets instead, unchanged, over the host's
 * loopback; a relay lost there the worker asks for again (NACK), as it
 * would a copy the ToR lost.
 */
static void relay_to_host(struct rina_agent_core *a, const struct rina_hdr *h,
			  __u32 len)
{
	__u32 k;

	for (k = 0; k < a->cfg.n_local; k++) {
		if (a->cfg.local[k].ip != a->cfg.self.ip)
			continue;
		xmit(a, &a->cfg.local[k], h, len);
		a->st.host_relays++;
	}
}

/*
 * rina.ko's agent (cfg.relay_own): its rank's worker sends contributions
 * to the agent port like every local worker, since a datagram to the
 * host's own address would loop back instead of reaching the ToR
 * (librina's worker sends them to the ToR's address itself). Pass them
 * on, unchanged and as checked, while the ToR aggregates; once it is
 * lost they are added here with the rest of the rack. Data the workers
 * flag for software (SW_BYPASS) stays here.
 */
static int relay_to_tor(struct rina_agent_core *a, const struct rina_hdr *h,
			__u32 wire_len, const struct rina_agent_addr *from)
{
	struct rina_agent_addr to = {
		.ip = a->cfg.tor.ip,
		.port = rina_htons(RINA_UDP_PORT_AGENT),
	};

	if (!a->cfg.relay_own || !a->ops->relay ||
	    a->tor_state != RINA_AGENT_TOR_ON ||
	    from->ip != a->cfg.self.ip ||
	    rina_ntohs(h->src_id) != a->cfg.rank ||
	    (h->flags & RINA_F_SW_BYPASS))
		return 0;
	a->ops->relay(a->ctx, &to, from, h, wire_len);
	a->st.tor_relays++;
	return 1;
}

/*
 * The ToR's copy of allgather data (its agent replica): the ToR already
 * sent it to the local workers and downstream, so keep it for repairs and
 * as sender of record, and ACK upstream data to the upstream member. The
 * own chunk's result (the ToR completed the rack's chunk) is ACKed to the
 * rack's workers instead (ackq_flush()): the copy the ToR sends us at
 * DONE can be lost together with the one to downstream, and then only a
 * re-emission, which a worker's retransmission triggers, brings it back.
 */
static void ag_from_tor(struct rina_agent_core *a, const struct rina_hdr *h,
			__u32 len)
{
	__u16 round = rina_ntohs(h->round);
	__u32 seq = rina_ntohl(h->seq), L = a->cfg.L;
	int own = rina_ntohs(h->chunk) == rina_own_chunk(a->cfg.member, L);
	__u8 hop = own ? 1 : (__u8)(h->hop + 1);
	struct rina_agent_ackq *q = own ? &a->held : &a->ag_up;

	if (len > a->max_msg || (!own && L < 2)) {
		a->st.bad++;
		return;
	}
	if (round_admit(a, round))
		return;
	tor_heard(a);
	a->st.tor_copies++;
	relay_to_host(a, h, len);
	if (rina_keymap_get(&a->ag, round, seq)) {
		a->st.dup++;	/* our ACK was lost */
		ackq_push(a, q, round, seq, 1);
		return;
	}
	if (!ag_store(a, h, len, hop < L, hop))
		return;	/* no copy, no ACK: the sender tries again */
	if (!own)
		a->st.ag_in++;
	ackq_push(a, q, round, seq, h->flags & RINA_F_LAST);
}

/*
 * Our own chunk's result from downstream, which we asked for after the
 * ToR went (ask_again()): keep it as the ToR's copy would have been kept
 * (downstream has it: nothing to send there), give it to the workers
 * that may lack it and tell them we hold it.
 */
static void own_from_downstream(struct rina_agent_core *a,
				const struct rina_hdr *h, __u32 len)
{
	__u16 round = rina_ntohs(h->round);
	__u32 seq = rina_ntohl(h->seq);
	struct rina_hdr *r;

	if (len > a->max_msg) {
		a->st.bad++;
		return;
	}
	if (round_admit(a, round))
		return;
	if (rina_keymap_get(&a->ag, round, seq)) {
		a->st.dup++;
		ackq_push(a, &a->held, round, seq, 1);
		return;
	}
	if (!ag_store(a, h, len, 0, 1))
		return;
	a->st.ag_in++;
	r = (struct rina_hdr *)a->scratch;
	rina_memcpy(r, h, len);
	r->flags &= (__u8)~RINA_F_FROM_SWITCH;	/* the agent's, not the ToR's */
	to_workers(a, r, len);
	ackq_push(a, &a->held, round, seq, 1);
}

static void ag_from_upstream(struct rina_agent_core *a,
			     const struct rina_hdr *h, __u32 len,
			     const struct rina_agent_addr *from)
{
	__u16 round = rina_ntohs(h->round);
	__u32 seq = rina_ntohl(h->seq);
	int fwd = h->hop + 1u < a->cfg.L;
	struct rina_agent_ag *e;

	if ((h->flags & RINA_F_FROM_SWITCH) && addr_eq(from, &a->cfg.self) &&
	    a->tor_state == RINA_AGENT_TOR_ON) {
		ag_from_tor(a, h, len);
		return;
	}
	if (a->tor_state == RINA_AGENT_TOR_LOST && addr_eq(from, &a->cfg.next) &&
	    rina_ntohs(h->chunk) == rina_own_chunk(a->cfg.member, a->cfg.L) &&
	    a->cfg.L > 1) {
		own_from_downstream(a, h, len);
		return;
	}
	if (!addr_eq(from, &a->cfg.prev) || len > a->max_msg) {
		a->st.bad++;
		return;
	}
	if (round_admit(a, round))
		return;
	a->st.ag_in++;
	if (rina_keymap_get(&a->ag, round, seq)) {
		send_ack(a, from, round, seq, RINA_F_AG_PHASE);
		a->st.dup++;	/* our ACK was lost; the rest went out */
		return;
	}
	e = ag_store(a, h, len, fwd, (__u8)(h->hop + 1));
	if (!e)
		return;	/* no copy, no ACK: upstream sends it again */
	send_ack(a, from, round, seq, RINA_F_AG_PHASE);
	to_workers(a, h, len);
	if (fwd)
		ag_send_down(a, e, 0);
}

static void ack_from_downstream(struct rina_agent_core *a,
				const struct rina_hdr *h, __u32 len,
				const struct rina_agent_addr *from)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), acked = 0;
	__u64 now;

	if (!addr_eq(from, &a->cfg.next)) {
		a->st.bad++;
		return;
	}
	if (!(h->flags & RINA_F_AG_PHASE)) {
			/* advances the local workers' windows */
		to_workers(a, h, len);
		return;
	}
	a->st.ag_acks_in++;
	now = a->ops->now_us(a->ctx);
	for (j = 0; j < n; j++) {
		struct rina_agent_ag *e;

		e = rina_keymap_get(&a->ag, rina_ntohs(h->round),
				    rina_ntohl(seqs[j]));
		if (e && !e->acked) {
			e->acked = 1;
			acked++;
			a->timer = 0;	/* news: restart the timer */
			if (!e->tries)
				rina_rtt_update(&a->rtt, now - e->t_sent, now);
			rina_rack_acked(&a->rack, e->t_sent);
		}
	}
	/*
	 * No delay signal: with a ToR the first copies are the ToR's, sent
	 * as slots complete, and the sample times the ToR, not our sends.
	 * The receiver's echo of CE marks counts every seq an ACK lists.
	 */
	rina_cc_on_ack(&a->cc, acked, rina_ack_ce(h, acked), 0, &a->rtt, now);
}

/*
 * Repairs come from the allgather cache: rounds max_round - 1 and
 * max_round. 0 when the NACK's round is there, else -1 (far_round).
 */
static int repair_round(struct rina_agent_core *a, const struct rina_hdr *h)
{
	int d = rina_round_cmp(rina_ntohs(h->round), a->max_round);

	if (d > 0 || d < -1) {
		a->st.far_round++;
		return -1;
	}
	return 0;
}

/* Send "from" again every allgather packet of the NACK that we hold. */
static void repair_from_cache(struct rina_agent_core *a,
			      const struct rina_hdr *h,
			      const struct rina_agent_addr *from)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem);

	for (j = 0; j < n; j++) {
		struct rina_agent_ag *e;

		e = rina_keymap_get(&a->ag, rina_ntohs(h->round),
				    rina_ntohl(seqs[j]));
		if (e)
			repair_one(a, e, from);
	}
}

static void nack_from_worker(struct rina_agent_core *a,
			     const struct rina_hdr *h,
			     const struct rina_agent_addr *from)
{
	int k = local_index(a, from);

	if (k < 0) {
		a->st.bad++;
		return;
	}
	if (repair_round(a, h))
		return;
	a->heard[k] = a->ops->now_us(a->ctx);
	a->st.nacks_in++;
	repair_from_cache(a, h, from);
}

/*
 * Downstream asks again for partials of ours (ask_again()): re-emit
 * those we completed here; for the others, which our ToR completed (or
 * nobody yet), have the rack's workers send their contributions again,
 * so that a slot the ToR still holds done is re-emitted from there
 * (protocol-ina.md 4) and one it lacks gets them. A worker resends only
 * what it sent, at most once per 2 ms (user/lib/ina_worker.c).
 */
static void ask_from_downstream(struct rina_agent_core *a,
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
		to_workers(a, h, len);
}

/*
 * Upstream's agent lost its ToR with its own chunk's result and asks for
 * it (ask_again()): we hold every allgather packet that passed us, for
 * the rounds in the cache. A NACK from upstream is checked as one from a
 * local worker is (nack_from_worker()), and answered the same way.
 */
static void ask_from_upstream(struct rina_agent_core *a,
			      const struct rina_hdr *h,
			      const struct rina_agent_addr *from)
{
	a->st.asks_in++;
	if (!repair_round(a, h))
		repair_from_cache(a, h, from);
}

/*
 * The rack's workers may send data (see ctrl()) once the ring is up on
 * both sides of the rack: downstream answered our HELLO and upstream
 * greeted us. A plain member's data is acknowledged by its downstream
 * alone, so it may start before its upstream; a worker's contribution
 * only when its slot completes, which takes upstream's partial: started
 * before upstream's process, the workers' first timers fired for nothing
 * (net_tor_udp's first 4 KB call: 6 to 18 spurious retransmissions in 5
 * runs of 8, the call 35-86 ms instead of 13).
 */
static int workers_may_start(const struct rina_agent_core *a)
{
	return (a->cfg.L < 2 || (a->hello_next && a->hello_prev)) &&
	       a->tor_state != RINA_AGENT_TOR_WAIT;
}

/* HELLO_ACK to the workers that said HELLO while they had to wait. */
static void answer_workers(struct rina_agent_core *a)
{
	__u32 j;

	if (!workers_may_start(a))
		return;
	for (j = 0; j < a->cfg.n_local; j++)
		if (a->hello_from & 1u << j)
			send_ctrl_arg(a, &a->cfg.local[j], RINA_CTRL_HELLO_ACK,
				      a->worker_inc[j]);
}

/*
 * A local worker says it made no progress for a quarter of the timeout
 * (RINA_CTRL_STALL, every eighth while it lasts; timeout_ms its arg):
 * it is there and waiting. Reports less than half the timeout apart are
 * one stall of the rack (stall_silent()).
 */
static void worker_stalled(struct rina_agent_core *a, int k,
			   __u32 timeout_ms)
{
	__u64 now = a->ops->now_us(a->ctx);

	a->heard[k] = now;
	if (!a->stall_last ||
	    now - a->stall_last > (__u64)timeout_ms * 1000 / 2)
		a->stall_first = now;
	a->stall_last = now;
	a->st.stalls_in++;
}

/*
 * Whether a control message may act: it comes from a party the agent
 * talks to (its workers, its ring neighbours, its ToR), and in a job
 * with a secret it is signed, fresh and new (ctrl_auth.h).
 */
static int ctrl_trusted(struct rina_agent_core *a, const struct rina_hdr *h,
			const struct rina_agent_addr *from, int k)
{
	const __u8 *key = a->cfg.has_secret ? a->cfg.secret : NULL;
	enum rina_ctrl_verdict v;

	if (k < 0 && !addr_eq(from, &a->cfg.prev) &&
	    !addr_eq(from, &a->cfg.next) &&
	    !(a->cfg.tor.ip && addr_eq(from, &a->cfg.tor))) {
		a->st.ctrl_forged++;
		return 0;
	}
	v = rina_ctrl_check(a->ctrl_guard, h, key, a->ops->mac,
			    key ? a->ops->wall_us(a->ctx) : 0, a->cfg.self.ip,
			    a->cfg.self.port);
	if (v == RINA_CTRL_OK)
		return 1;
	if (v == RINA_CTRL_STALE || v == RINA_CTRL_REPLAY)
		a->st.ctrl_replayed++;
	else
		a->st.ctrl_forged++;
	return 0;
}

static void ctrl(struct rina_agent_core *a, const struct rina_hdr *h,
		 const struct rina_agent_addr *from)
{
	const struct rina_ctrl *m = (const struct rina_ctrl *)(h + 1);
	__u32 type = rina_ntohl(m->type);
	int k = local_index(a, from);

	if (!ctrl_trusted(a, h, from, k))
		return;

	if (type == RINA_CTRL_ABORT) {
		ev(a, RINA_AGENT_EV_ABORT, rina_ntohl(m->arg));
		return;
	}
	if (type == RINA_CTRL_TOR_REPLY) {
		if (!a->cfg.tor.ip || from->ip != a->cfg.tor.ip ||
		    rina_get_be64(&m->hash) != a->cfg.job_hash) {
			a->st.bad++;
			return;
		}
		/*
		 * The ToR echoes the request's session: an answer to the
		 * last session's TOR_REMOVE (librina's agent of the last
		 * communicator, on the same port) is not ours. Taken as the
		 * answer to our install, its "unknown job" had the rack
		 * aggregate in software while the ToR installed the job:
		 * split slots, the call stalled (net_lifecycle with ToRs).
		 */
		if (rina_ctrl_session(h) != a->session) {
			a->st.stale++;
			return;
		}
		if (a->tor_state == RINA_AGENT_TOR_ON) {
			tor_heard(a);	/* a probe answered */
			return;
		}
		if (a->tor_state == RINA_AGENT_TOR_LOST) {
			/*
			 * "Not installed" ends the TOR_REMOVEs and says the
			 * ToR is there; an OK may be a late probe's, or the
			 * removal: ask once more.
			 */
			if (rina_ntohl(m->arg) == RINA_TOR_ST_UNKNOWN_JOB)
				a->tor_back = 1;
			return;
		}
		if (rina_agent_core_tor_unheard(a) &&
		    rina_ntohl(m->arg) == RINA_TOR_ST_UNKNOWN_JOB) {
			/* there now, holding nothing: as a lost one back */
			a->tor_back = 1;
			return;
		}
		if (a->tor_state == RINA_AGENT_TOR_OFF &&
		    a->tor_status == RINA_AGENT_TOR_SILENT &&
		    rina_ntohl(m->arg) == RINA_TOR_ST_OK) {
			/*
			 * Installed after we gave up on it: the ToR would
			 * take contributions the agent now adds itself.
			 */
			send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
			return;
		}
		if (a->tor_state != RINA_AGENT_TOR_WAIT)
			return;	/* a late copy */
		if (a->tor_reinstall) {
			/* the last session's slots are gone: install anew */
			a->tor_reinstall = 0;
			tor_ask_install(a);
			return;
		}
		a->tor_status = rina_ntohl(m->arg);
		a->tor_state = a->tor_status == RINA_TOR_ST_OK ?
			       RINA_AGENT_TOR_ON : RINA_AGENT_TOR_OFF;
		if (a->tor_returning && a->tor_state == RINA_AGENT_TOR_ON)
			a->st.tor_returns++;
		tor_heard(a);
		/* the listener may read tor_returning */
		ev(a, RINA_AGENT_EV_TOR, a->tor_status);
		a->tor_returning = 0;
		answer_workers(a);
		return;
	}
	if ((type == RINA_CTRL_HELLO || type == RINA_CTRL_HELLO_ACK) &&
	    rina_get_be64(&m->hash) != a->cfg.job_hash) {
		a->st.bad++;
		ev(a, RINA_AGENT_EV_MISMATCH, rina_ntohs(h->src_id));
		return;
	}
	if (k >= 0 && type == RINA_CTRL_STALL) {
		worker_stalled(a, k, rina_ntohl(m->arg));
		return;
	}
	if (k >= 0 && (type == RINA_CTRL_HELLO || type == RINA_CTRL_BYE)) {
		/* the rack's own workers */
		__u32 bit = 1u << k, inc = rina_ntohl(m->arg);

		if (type == RINA_CTRL_HELLO) {
			int again = (a->hello_from & bit) &&
				    a->worker_inc[k] != inc;

			/* the worker's next communicator: not ours to serve */
			if (a->leaving || (a->cfg.single_session &&
					   (again || (a->data_from & bit)))) {
				a->st.stale++;
				return;
			}
			/* a worker that sent data says HELLO: new session */
			if ((a->data_from & bit) || again)
				rina_agent_core_reset(a);
			a->worker_inc[k] = inc;
			if (!a->active)
				ev(a, RINA_AGENT_EV_SESSION_START, k);
			a->active = 1;
			a->hello_from |= bit;
			a->bye_from &= ~bit;	/* a late BYE of before */
			/*
			 * Not before downstream answered ours (the rack's
			 * first partials would find no one listening there)
			 * nor while the ToR is asked (who adds the rack is
			 * not known); answer_workers() answers later.
			 */
			if (workers_may_start(a))
				send_ctrl_arg(a, from, RINA_CTRL_HELLO_ACK,
					      inc);
			return;
		}
		send_ctrl(a, from, RINA_CTRL_BYE_ACK);
		a->active = 1;	/* a ring of one has no HELLO */
		if (!(a->bye_from & bit)) {
			a->bye_from |= bit;
			ev(a, RINA_AGENT_EV_WORKER_BYE, k);
			if (a->bye_from == a->local_mask)
				ev(a, RINA_AGENT_EV_WORKERS_LEFT, 0);
		}
		return;
	}
	switch (type) {
	case RINA_CTRL_HELLO:
		if (!addr_eq(from, &a->cfg.prev) || a->leaving)
			return;
		/* upstream's next incarnation: for our successor */
		if (a->cfg.single_session && a->hello_prev &&
		    a->prev_inc != rina_ntohl(m->arg)) {
			a->st.stale++;
			return;
		}
		/* upstream greets once it knows the session */
		if (!rina_ctrl_session(h)) {
			a->st.bad++;
			return;
		}
		if (!ring_head(a) && (!a->hello_prev || !a->session ||
				      a->prev_inc != rina_ntohl(m->arg)))
			session_learnt(a, rina_ctrl_session(h));
		a->prev_inc = rina_ntohl(m->arg);
		send_ctrl_arg(a, from, RINA_CTRL_HELLO_ACK, a->prev_inc);
		if (!a->hello_prev) {
			a->hello_prev = 1;
			answer_workers(a);
		}
		return;
	case RINA_CTRL_HELLO_ACK:
		/* an answer to an earlier incarnation's HELLO is not ours */
		if (rina_ntohl(m->arg) != a->cfg.incarnation) {
			a->st.stale++;
			return;
		}
		if (addr_eq(from, &a->cfg.next) && !a->hello_next) {
			a->hello_next = 1;
			ev(a, RINA_AGENT_EV_NEXT_UP, 0);
			answer_workers(a);
		}
		return;
	case RINA_CTRL_BYE:
		if (addr_eq(from, &a->cfg.prev)) {
			send_ctrl(a, from, RINA_CTRL_BYE_ACK);
			/*
			 * Before upstream's HELLO, a BYE is its previous
			 * incarnation's, whose BYE_ACK was lost.
			 */
			if (a->hello_prev)
				a->prev_said_bye = 1;
		}
		return;
	case RINA_CTRL_BYE_ACK:
		if (addr_eq(from, &a->cfg.next))
			a->bye_next = 1;
		return;
	default:
		a->st.malformed++;
		return;
	}
}

void rina_agent_core_rx(struct rina_agent_core *a, const void *buf,
			__u32 len, const struct rina_agent_addr *from)
{
	const struct rina_hdr *h = buf;
	__u32 wire_len = len;	/* the tag included */
	unsigned int op;

	if (rina_hdr_check(h, len)) {
		a->st.malformed++;
		return;
	}
	if (rina_ntohs(h->job_id) != a->cfg.job_id) {
		a->st.foreign++;
		return;
	}
	/* before the session is known no data is the session's */
	if (!a->session && (a->cfg.tagged || a->cfg.auth_mac) &&
	    rina_hdr_opcode(h) != RINA_OP_CTRL)
		len = 0;
	else
		len = rina_data_open(h, len, a->cfg.tagged ? a->tag : NULL,
				     a->cfg.auth_mac ? a->mac_key : NULL,
				     a->ops->mac);
	if (!len) {
		a->st.bad_tag++;
		return;
	}
	op = rina_hdr_opcode(h);
	if (op == RINA_OP_SR_CONTRIB || op == RINA_OP_SR_PARTIAL ||
	    op == RINA_OP_AG_DATA)
		a->last_data = a->ops->now_us(a->ctx);
	/* data moves the window of rounds, once checked: round_admit() */
	switch (op) {
	case RINA_OP_SR_CONTRIB:
	case RINA_OP_SR_PARTIAL:
		if (op == RINA_OP_SR_CONTRIB &&
		    relay_to_tor(a, h, wire_len, from))
			break;
		/*
		 * Who adds the rack is not decided yet: adding here what
		 * the ToR may add too would split slots between the two.
		 * The senders retry.
		 */
		if (a->tor_state == RINA_AGENT_TOR_WAIT) {
			a->st.tor_held++;
			break;
		}
		/* the ToR takes the rack's data unless told to pass it */
		if (a->tor_state == RINA_AGENT_TOR_ON &&
		    !(h->flags & RINA_F_SW_BYPASS))
			a->tor_passed = a->ops->now_us(a->ctx);
		aggregate(a, h, from);
		break;
	case RINA_OP_AG_DATA:
		/*
		 * Upstream's allgather data is the ToR's to take too (it
		 * replicates all of it, p4/allgather.p4; our copy comes from
		 * our own address): from upstream itself, it came past the
		 * ToR. In a mixed ring it may be all that comes: a rack whose
		 * contributions the ToR had all taken waits for allgather
		 * data and sends none, and its agent took 5-7 s to find the
		 * ToR gone, until a retry of upstream's came (tor_watch()).
		 */
		if (a->tor_state == RINA_AGENT_TOR_ON &&
		    !(h->flags & RINA_F_SW_BYPASS) &&
		    addr_eq(from, &a->cfg.prev))
			a->tor_passed = a->ops->now_us(a->ctx);
		ag_from_upstream(a, h, len, from);
		break;
	case RINA_OP_ACK:
		ack_from_downstream(a, h, len, from);
		break;
	case RINA_OP_NACK:
		if (!(h->flags & RINA_F_AG_PHASE) &&
		    addr_eq(from, &a->cfg.next))
			ask_from_downstream(a, h, len);
		else if (addr_eq(from, &a->cfg.prev))
			ask_from_upstream(a, h, from);
		else
			nack_from_worker(a, h, from);
		break;
	case RINA_OP_CTRL:
		ctrl(a, h, from);
		break;
	}
}

/* ---- timers and the session --------------------------------------- */

/* Everything sent downstream as sender of record has been acknowledged. */
static int ag_drained(const struct rina_agent_core *a)
{
	__u32 j;

	for (j = a->fifo_head; j != a->fifo_tail;
	     j = (j + 1) & (a->fifo_cap - 1))
		if (!a->fifo[j]->acked)
			return 0;
	return 1;
}

void rina_agent_core_leave(struct rina_agent_core *a)
{
	a->leaving = 1;
}

int rina_agent_core_session_done(const struct rina_agent_core *a)
{
	return a->bye_from == a->local_mask && ag_drained(a) &&
	       (a->cfg.L < 2 || (a->prev_said_bye && a->bye_next));
}

void rina_agent_core_set_session(struct rina_agent_core *a, __u64 session)
{
	session_learnt(a, session);
}

void rina_agent_core_tor_install(struct rina_agent_core *a)
{
	if (!a->cfg.tor.ip)
		return;
	a->tor_returning = a->tor_state == RINA_AGENT_TOR_LOST ||
			   rina_agent_core_tor_unheard(a);
	a->tor_reinstall = 0;
	a->tor_state = RINA_AGENT_TOR_WAIT;
	a->tor_back = 0;
	tor_ask_install(a);
}

int rina_agent_core_tor_may_return(const struct rina_agent_core *a,
				   __u64 quiet_us)
{
	__u64 now = a->ops->now_us(a->ctx);
	__u32 j;

	if ((a->tor_state != RINA_AGENT_TOR_LOST &&
	     !rina_agent_core_tor_unheard(a)) ||
	    !a->tor_back ||
	    now - a->last_data < quiet_us || !ag_drained(a) || a->held.n)
		return 0;
	for (j = 0; j < a->agg.cap; j++) {
		const struct rina_agent_agg *sl = a->agg.tab[j].val;

		if (sl && !(sl->s.state & RINA_SLOT_ST_DONE))
			return 0;
	}
	return 1;
}

void rina_agent_core_tor_remove(struct rina_agent_core *a)
{
	if (a->tor_state != RINA_AGENT_TOR_ON)
		return;
	/* two copies: nothing waits for the reply */
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	a->tor_state = RINA_AGENT_TOR_OFF;
	a->tor_status = RINA_TOR_ST_OK;
}

/*
 * Upstream resends what the ToR took and never acknowledged one packet
 * per timeout: towards an INA member its RACK goes by first
 * transmissions only (user/lib/ring.c, rx_ack()), so the ACK of a
 * retransmission finds no other loss. Ask it, once per round in the
 * window, with a request of one seq: a request from its INA member says
 * that ACKs were lost, not a queue, and it sends every overdue packet
 * of that round at once (rx_ask(), "asked"). Without it a mixed ring's
 * upstream member, a call behind the rack, took 3-5 s to finish after
 * a ToR was killed in full flight.
 */
static void ask_upstream(struct rina_agent_core *a, __u16 round)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	hdr_init(a, &p.h, RINA_OP_NACK, round);
	p.h.n_elem = rina_htons(1);
	p.seq = 0;
	xmit(a, &a->cfg.prev, &p, sizeof(p));
	a->st.asks_out++;
}

/*
 * The ToR that aggregated the rack is gone (killed, stopped, its program
 * reloaded): what it held is lost, and what the rack sends reaches the
 * agent again only where the switch forwards it as a plain bridge would
 * (rina-tor does once its lease ran out; protocol-ina.md section 9). Go
 * on in software: the workers' and upstream's retransmissions bring the
 * rack's slots here. The ToR is told to let go (TOR_REMOVE until it
 * says it holds nothing): one that was only slow to answer would
 * otherwise go on taking contributions the agent now adds itself.
 */
static void tor_lost(struct rina_agent_core *a, __u64 now)
{
	__u32 k;

	if (a->cfg.L > 1) {
		ask_upstream(a, (__u16)(a->max_round - 1));
		ask_upstream(a, a->max_round);
	}
	/*
	 * Every rank of the rack, ours too: what a worker sent and has not
	 * seen delivered may have died with the ToR, and its timers, backed
	 * off in the silence and restarted by each delivery that now comes
	 * through us, would resend it seconds later. Told, it takes all of
	 * that for lost and resends it (user/lib/ina_worker.c, wrestart()).
	 */
	for (k = 0; k < a->cfg.n_local; k++)
		send_ctrl(a, &a->cfg.local[k], RINA_CTRL_TOR_LOST);
	a->tor_state = RINA_AGENT_TOR_LOST;
	a->tor_status = RINA_AGENT_TOR_SILENT;
	a->st.tor_lost++;
	a->tor_tries = 1;
	a->tor_last = now;
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	ev(a, RINA_AGENT_EV_TOR_LOST, (__u32)((now - a->tor_heard) / 1000));
}

/*
 * While the ToR aggregates, it sends the agent a copy of every
 * allgather packet; when nothing came for RINA_AGENT_TOR_PROBE_US (a
 * lull between calls, or a dead ToR), ask it (TOR_INSTALL of an
 * installed job changes nothing), every RINA_AGENT_TOR_RETRY_US. Lost
 * after RINA_AGENT_TOR_TRIES unanswered probes (counted in probes, not
 * in time, so that an agent thread that was not scheduled for a while
 * reads the replies waiting for it before it decides) once the rack's
 * data reaches the agent past the ToR.
 */
static __u64 tor_watch(struct rina_agent_core *a, __u64 now)
{
	if (now - a->tor_heard < RINA_AGENT_TOR_PROBE_US)
		return a->tor_heard + RINA_AGENT_TOR_PROBE_US - now;
	if (a->tor_tries && now - a->tor_last < RINA_AGENT_TOR_RETRY_US)
		return a->tor_last + RINA_AGENT_TOR_RETRY_US - now;
	/*
	 * Silence alone is not enough: a slow switch (bmv2) may answer
	 * late while it still takes the rack's data, and adding that data
	 * here too would split slots. Lost once the rack's data comes to
	 * the agent past it (a switch forwarding as a plain bridge would).
	 */
	if (a->tor_tries >= RINA_AGENT_TOR_TRIES &&
	    a->tor_passed > a->tor_heard) {
		tor_lost(a, now);
		return RINA_AGENT_TOR_RETRY_US;
	}
	a->tor_tries++;
	a->tor_last = now;
	a->st.tor_probes++;
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_INSTALL);
	return RINA_AGENT_TOR_RETRY_US;
}

/*
 * TOR_REMOVE to a lost ToR until it says "not installed", or give up;
 * then once a second (RINA_AGENT_TOR_BACK_US), a question that changes
 * nothing there, until it answers: it is back (tor_back). An unheard
 * one (rina_agent_core_tor_unheard()) is asked once a second from the
 * start.
 */
static __u64 tor_release(struct rina_agent_core *a, __u64 now)
{
	__u64 period = a->tor_tries < RINA_AGENT_TOR_TRIES ?
		       RINA_AGENT_TOR_RETRY_US : RINA_AGENT_TOR_BACK_US;

	if (a->tor_back)
		return RINA_AGENT_NO_WAIT;
	if (now - a->tor_last < period)
		return a->tor_last + period - now;
	if (a->tor_tries < RINA_AGENT_TOR_TRIES)
		a->tor_tries++;
	a->tor_last = now;
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	return period;
}

/* TOR_INSTALL again until the ToR answers or we give up on it. */
static __u64 tor_tick(struct rina_agent_core *a, __u64 now)
{
	if (a->tor_state == RINA_AGENT_TOR_ON)
		return tor_watch(a, now);
	if (a->tor_state == RINA_AGENT_TOR_LOST ||
	    rina_agent_core_tor_unheard(a))
		return tor_release(a, now);
	if (a->tor_state != RINA_AGENT_TOR_WAIT ||
	    (!a->tor_reinstall && !a->tor_tries))	/* no session yet */
		return RINA_AGENT_NO_WAIT;
	if (now - a->tor_last >= RINA_AGENT_TOR_RETRY_US) {
		if (a->tor_tries >= RINA_AGENT_TOR_TRIES) {
			a->tor_state = RINA_AGENT_TOR_OFF;
			a->tor_status = RINA_AGENT_TOR_SILENT;
			a->tor_reinstall = 0;
			/* tor_retry: the next question a second from now */
			a->tor_last = now;
			ev(a, RINA_AGENT_EV_TOR, RINA_AGENT_TOR_SILENT);
			answer_workers(a);
			return a->cfg.tor_retry ? RINA_AGENT_TOR_BACK_US :
			       RINA_AGENT_NO_WAIT;
		}
		a->tor_tries++;
		a->tor_last = now;
		send_ctrl(a, &a->cfg.tor, a->tor_reinstall ?
			  RINA_CTRL_TOR_REMOVE : RINA_CTRL_TOR_INSTALL);
	}
	return a->tor_last + RINA_AGENT_TOR_RETRY_US - now;
}

__u64 rina_agent_core_tick(struct rina_agent_core *a)
{
	__u64 now = a->ops->now_us(a->ctx), wait, w2;

	wait = ackq_due(a, &a->held, now);
	w2 = ackq_due(a, &a->ag_up, now);
	if (w2 < wait)
		wait = w2;
	w2 = ag_retransmit(a);
	if (w2 < wait)
		wait = w2;
	w2 = tor_tick(a, now);
	if (w2 < wait)
		wait = w2;
	if (!a->active || a->cfg.L < 2)
		return wait;
	if (!a->hello_next && a->session) {
		if (now - a->last_hello >= RINA_AGENT_HELLO_US) {
			send_ctrl_arg(a, &a->cfg.next, RINA_CTRL_HELLO,
				      a->cfg.incarnation);
			a->last_hello = now;
		}
		w2 = a->last_hello + RINA_AGENT_HELLO_US - now;
		if (w2 < wait)
			wait = w2;
	}
	/*
	 * The rack is done with the ring: tell downstream, once downstream
	 * has everything we owe it (BYE means "all my sends are acked").
	 */
	if (a->bye_from == a->local_mask && !a->bye_next && ag_drained(a)) {
		if (now - a->last_bye >= RINA_AGENT_BYE_US) {
			send_ctrl(a, &a->cfg.next, RINA_CTRL_BYE);
			a->last_bye = now;
		}
		w2 = a->last_bye + RINA_AGENT_BYE_US - now;
		if (w2 < wait)
			wait = w2;
	}
	return wait;
}

/*
 * An agent of many sessions (rina.ko's): the ToR still holds the ended
 * session's slots, which the next one's first rounds would meet as done.
 * Remove the job and, once the ToR answered, install it again
 * (tor_reinstall, see ctrl()); the workers wait for their HELLO_ACK
 * meanwhile (workers_may_start()). A lost ToR comes back by the host's
 * rina_agent_core_tor_may_return() as before.
 */
static void tor_session_reset(struct rina_agent_core *a)
{
	if (a->cfg.single_session || a->tor_state != RINA_AGENT_TOR_ON)
		return;
	a->tor_state = RINA_AGENT_TOR_WAIT;
	a->tor_reinstall = 1;
	a->tor_tries = 1;
	a->tor_last = a->ops->now_us(a->ctx);
	send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
}

void rina_agent_core_reset(struct rina_agent_core *a)
{
	rina_keymap_filter(&a->ag, NULL, drop_val, a);
	rina_keymap_filter(&a->agg, NULL, drop_val, a);
	a->fifo_head = a->fifo_tail = 0;
	a->held.n = 0;
	a->ag_up.n = 0;
	a->rack.ts = 0;
	a->timer = 0;
	a->max_round = 0;
	if (a->active)
		a->st.sessions++;
	a->active = 0;
	a->hello_next = a->bye_next = a->prev_said_bye = a->hello_prev = 0;
	a->hello_from = a->data_from = a->bye_from = 0;
	a->last_hello = a->last_bye = 0;
	a->stall_first = a->stall_last = 0;
	session_start(a);
	tor_session_reset(a);
	ev(a, RINA_AGENT_EV_SESSION_END, 0);
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

void rina_agent_core_say_aborted(struct rina_agent_core *a, __u32 result,
				 const struct rina_agent_addr *to, __u32 n)
{
	__u32 copy, j;

	for (copy = 0; copy < 3; copy++) {
		for (j = 0; j < n; j++)
			send_ctrl_arg(a, &to[j], RINA_CTRL_ABORT, result);
		if (a->cfg.L > 1) {
			send_ctrl_arg(a, &a->cfg.next, RINA_CTRL_ABORT, result);
			send_ctrl_arg(a, &a->cfg.prev, RINA_CTRL_ABORT, result);
		}
	}
}

void rina_agent_core_abort(struct rina_agent_core *a, __u32 result,
			   const struct rina_agent_addr *to, __u32 n)
{
	rina_agent_core_say_aborted(a, result, to, n);
	a->st.aborts++;
	rina_agent_core_reset(a);
}

static void *mem_zalloc(void *ctx, __u32 size)
{
	struct rina_agent_core *a = ctx;

	return a->ops->zalloc(a->ctx, size);
}

static void mem_free(void *ctx, void *p)
{
	struct rina_agent_core *a = ctx;

	a->ops->free(a->ctx, p);
}

int rina_agent_core_init(struct rina_agent_core *a,
			 const struct rina_agent_cfg *cfg,
			 const struct rina_agent_ops *ops, void *ctx)
{
	rina_memset(a, 0, sizeof(*a));
	if (!cfg->n_local || cfg->n_local > RINA_AGENT_MAX_LOCAL ||
	    !cfg->L || !cfg->window || cfg->elems > RINA_MAX_ELEMS ||
	    (cfg->has_secret &&
	     (!ops->mac || !ops->wall_us || !ops->ctrl_stamp)) ||
	    ((cfg->auth_mac || cfg->tagged) && !cfg->has_secret) ||
	    (cfg->member == 0 && !ops->random_u64))
		return -1;
	a->cfg = *cfg;
	a->ops = ops;
	a->ctx = ctx;
	rina_cc_init(&a->cc, &cfg->cc);
	a->mem.zalloc = mem_zalloc;
	a->mem.free = mem_free;
	a->mem.ctx = a;
	a->local_mask = (1u << cfg->n_local) - 1;
	a->up_bit = 1u << cfg->n_local;
	a->held.flags = RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	a->held.to_workers = 1;
	a->ag_up.flags = RINA_F_AG_PHASE;
	a->max_msg = RINA_HDR_LEN + 4u * (cfg->elems > RINA_CTRL_AUTH_WORDS ?
					  cfg->elems : RINA_CTRL_AUTH_WORDS);
	a->fifo_cap = 4096;
	a->fifo = zalloc(a, a->fifo_cap * (__u32)sizeof(*a->fifo));
	a->scratch = zalloc(a, a->max_msg);
	if (cfg->has_secret)
		a->ctrl_guard = zalloc(a, sizeof(*a->ctrl_guard));
	if (a->ctrl_guard)	/* nothing signed before we started */
		rina_ctrl_guard_init(a->ctrl_guard, ops->wall_us(ctx));
	if (cfg->tagged || cfg->auth_mac)
		a->tagged_tx = zalloc(a, TAGGED_TX_LEN);
	session_start(a);
	if (!a->fifo || !a->scratch ||
	    (cfg->has_secret && !a->ctrl_guard) ||
	    ((cfg->tagged || cfg->auth_mac) && !a->tagged_tx) ||
	    rina_keymap_init(&a->ag, 4096, &a->mem) ||
	    rina_keymap_init(&a->agg, 4096, &a->mem)) {
		rina_agent_core_fini(a);
		return -1;
	}
	return 0;
}

void rina_agent_core_fini(struct rina_agent_core *a)
{
	rina_keymap_free(&a->ag, drop_val, a);
	rina_keymap_free(&a->agg, drop_val, a);
	afree(a, a->fifo);
	afree(a, a->scratch);
	afree(a, a->ctrl_guard);
	afree(a, a->tagged_tx);
	a->fifo = NULL;
	a->scratch = NULL;
	a->ctrl_guard = NULL;
	a->tagged_tx = NULL;
	rina_memzero_explicit(a->cfg.secret, sizeof(a->cfg.secret));
	rina_memzero_explicit(a->mac_key, sizeof(a->mac_key));
	rina_memzero_explicit(a->tag, sizeof(a->tag));
}
