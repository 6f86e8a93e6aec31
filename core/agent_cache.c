// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent's allgather cache: the window of rounds it keeps, the
 * allgather packets it holds for repair and, as the rack's sender of
 * record, retransmits downstream until acknowledged; the ToR's copies,
 * upstream's data, downstream's ACKs and the NACKs it answers from it.
 */
#include "agent_int.h"
#include "schedule.h"

__u64 rina_agent_rto(const struct rina_agent_core *a)
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

void rina_agent_drop_val(void *val, void *arg)
{
	afree(arg, val);
}

static void purge(struct rina_agent_core *a)
{
	rina_keymap_filter(&a->ag, ag_keep, rina_agent_drop_val, a);
	rina_keymap_filter(&a->agg, agg_keep, rina_agent_drop_val, a);
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
int rina_agent_round_admit(struct rina_agent_core *a, __u16 round)
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
struct rina_agent_ag *rina_agent_ag_store(struct rina_agent_core *a,
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
	e->t_first = e->t_sent;
	e->no_sent = e->no_first = ++a->tx_no;
	e->rto = rina_agent_rto(a);
	if (rina_keymap_put(&a->ag, e->round, e->seq, e)) {
		a->st.nomem++;
		afree(a, e);
		return NULL;
	}
	if (fwd)
		fifo_push(a, e);
	return e;
}

void rina_agent_ag_send_down(struct rina_agent_core *a, struct rina_agent_ag *e,
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
	rina_agent_xmit(a, &a->cfg.next, h, e->len);
	a->st.ag_out++;
}

/*
 * When the oldest unacknowledged copy e is due on the timer: as TCP's,
 * the timer restarts whenever an ACK brings news (RFC 6298 5.3: an RTO
 * after the later of e's sending and that ACK), and when it fires, then
 * with its value doubled until news comes (5.5, 5.6). Restarted by news
 * alone, it stayed expired once it fired, and each later pass of the
 * host thread resent the next copy: on a shaped 4x2 all-INA ring 93% of
 * the agents' timer resends came so, in stretches of 20-90 ms without an
 * ACK (the downstream agent's ACKs cross three host queues), every one a
 * duplicate downstream (performance-notes.md, "The agents' timer: a
 * probe of the newest copy").
 */
static __u64 timer_due(const struct rina_agent_core *a,
		       const struct rina_agent_ag *e)
{
	__u64 since = e->t_sent, rto = e->rto << a->backoff;

	if (a->last_news > since)
		since = a->last_news;
	if (a->timer_fired > since)
		since = a->timer_fired;
	/* e->rto is at most the cap already: backed off, no further */
	if (rto > RINA_AGENT_RTO_MAX_US)
		rto = e->rto > RINA_AGENT_RTO_MAX_US ? e->rto :
		      RINA_AGENT_RTO_MAX_US;
	return since + rto;
}

/*
 * What the timer sends when it fires: the unacknowledged copy first sent
 * last, moved to the FIFO's tail (the FIFO stays in send order). A tail
 * loss probe (RFC 8985 7.3), and the timer's way to tell a late ACK path
 * from a lost tail: its ACK, whichever of its copies that acknowledges,
 * comes after the ACKs of everything sent before its first copy (the
 * path is FIFO and the downstream agent ACKs allgather data as it comes),
 * so whatever is still unacknowledged a reordering allowance after it is
 * lost (rina_agent_ag_retransmit()), and it all goes again at once. If
 * the ACKs were only late, they come first and the stall cost this one
 * copy. Resending the oldest instead (the previous
 * rule, and RFC 6298 5.4's) repaired a lost tail one copy per timer
 * period: rina-sim's shallow-queue case 2.71 s -> 6.41 s of simulated
 * time.
 */
static struct rina_agent_ag *probe_pick(struct rina_agent_core *a)
{
	__u32 mask = a->fifo_cap - 1, j, at = a->fifo_head;
	struct rina_agent_ag *p = NULL, *e;

	for (j = a->fifo_head; j != a->fifo_tail; j = (j + 1) & mask) {
		e = a->fifo[j];
		if (!e->acked && (!p || e->t_first >= p->t_first)) {
			p = e;
			at = j;
		}
	}
	if (!p)
		return NULL;
	for (j = at; ((j + 1) & mask) != a->fifo_tail; j = (j + 1) & mask)
		a->fifo[j] = a->fifo[(j + 1) & mask];
	a->fifo[j] = p;
	return p;
}

/*
 * Retransmit downstream what is lost (RACK: sent before the first
 * sending of something that was acknowledged), and a probe when the one
 * retransmission timer fires (timer_due(), probe_pick()), so packets
 * that merely wait behind others never fire it. Timed from each
 * packet's sending instead, it fired on ACKs that waited in two full
 * host queues (the downstream agent's host uplink, ours downlink): on a
 * shaped 4x2 all-INA ring each agent resent some 1700 allgather packets
 * in 7 calls, every one a duplicate downstream, and each reached every
 * later rack's workers again (performance-notes.md, "The agents' timer
 * and RACK"). Both within the congestion window's
 * retransmission credit (cwnd per round trip, core/cc.h): the first
 * copies downstream go as slots complete (the ToR's, or ours without
 * one), and a burst of repairs on top of them overflows the downstream
 * host's queue that dropped the first ones. A loss halves the window,
 * once per round trip.
 */
__u64 rina_agent_ag_retransmit(struct rina_agent_core *a)
{
	__u64 now = a->ops->now_us(a->ctx), reo = rina_rack_reo(&a->rtt);
	__u32 credit = rina_cc_retx_credit(&a->cc, &a->rtt,
					   RINA_CC_RETX_PERIOD_MIN_US,
					   RINA_AGENT_RTO_MAX_US, now);
	struct rina_agent_ag *e;
	__u64 due;
	int lost, order;

	while (a->fifo_head != a->fifo_tail) {
		e = a->fifo[a->fifo_head];
		if (e->acked) {
			fifo_pop(a);
			continue;
		}
		/*
		 * Sent before the first sending of a timer's probe that was
		 * acknowledged, and not acknowledged a reordering allowance
		 * after it: lost (RFC 8985 6.2's timer, ordered by the count
		 * of sendings, which tells apart copies sent within one
		 * clock tick). The times alone (rina_rack_lost()) never
		 * judge a copy sent less than the allowance before, and
		 * there is nothing after a lost tail. Not after any ACK:
		 * rina-sim's 2x4 all-INA shallow-queue case took 2.00 s
		 * instead of 1.44 s so, and mixed 2x2 2.46 instead of 1.72.
		 */
		order = e->no_sent < a->probe_no;
		lost = rina_rack_lost(&a->rack, e->t_sent, reo) ||
		       (order && now >= a->probe_at + reo);
		due = timer_due(a, e);
		if (!lost && due > now) {
			if (order && a->probe_at + reo < due)
				due = a->probe_at + reo;
			return due - now;
		}
		if (!credit) {
			__u64 at = rina_cc_retx_refill_at(&a->cc);

			return at > now ? at - now : 1;
		}
		credit--;
		rina_cc_retx_spend(&a->cc, 1);
		rina_cc_on_loss(&a->cc, &a->rtt, now);
		if (!lost) {	/* the timer fired: it restarts */
			a->timer_fired = now;
			if (a->backoff < RINA_AGENT_BACKOFF_MAX)
				a->backoff++;
			e = probe_pick(a);
			rina_agent_ag_send_down(a, e, 1);
			e->probe = 1;
			e->tries++;
			e->t_sent = now;
			e->no_sent = ++a->tx_no;
			continue;
		}
		fifo_pop(a);
		rina_agent_ag_send_down(a, e, 1);
		e->tries++;
		e->t_sent = now;
		e->no_sent = ++a->tx_no;
		e->rto = e->rto * 2 > RINA_AGENT_RTO_MAX_US ?
			 RINA_AGENT_RTO_MAX_US : e->rto * 2;
		fifo_push(a, e);
	}
	return RINA_AGENT_NO_WAIT;
}

/* Send "to" again an allgather packet of the cache. */
void rina_agent_repair_one(struct rina_agent_core *a,
			   const struct rina_agent_ag *e,
			   const struct rina_agent_addr *to)
{
	struct rina_hdr *r = (struct rina_hdr *)a->scratch;

	rina_memcpy(r, e->pkt, e->len);
	r->flags |= RINA_F_RETX;
	rina_agent_xmit(a, to, r, e->len);
	a->st.repairs++;
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
		rina_agent_xmit(a, &a->cfg.local[k], h, len);
		a->st.host_relays++;
	}
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
	if (rina_agent_round_admit(a, round))
		return;
	rina_agent_tor_heard(a);
	a->st.tor_copies++;
	relay_to_host(a, h, len);
	if (rina_keymap_get(&a->ag, round, seq)) {
		a->st.dup++;	/* our ACK was lost */
		rina_agent_ackq_push(a, q, round, seq, 1);
		return;
	}
	/*
	 * A result the rack did not have: every local worker's part is in
	 * it (a chunk's final result sums every rank's), and the workers
	 * that waited for it go on. So the stall their reports described
	 * is over (worker_stalled(), stall_silent()). Inferred from the
	 * reports alone, a stall lasted until half the silence limit after
	 * the last one, and a worker late to a barrier, which never
	 * stalls, was named silent 3.4 s after the barrier ended (DDP over
	 * 2x4 all-INA, bench_ddp: "rank 3 silent"). A copy we hold already
	 * (a worker resent its part) says nothing of the rack.
	 */
	a->stall_first = a->stall_last = 0;
	if (!rina_agent_ag_store(a, h, len, hop < L, hop))
		return;	/* no copy, no ACK: the sender tries again */
	if (!own)
		a->st.ag_in++;
	rina_agent_ackq_push(a, q, round, seq, h->flags & RINA_F_LAST);
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
	if (rina_agent_round_admit(a, round))
		return;
	if (rina_keymap_get(&a->ag, round, seq)) {
		a->st.dup++;
		rina_agent_ackq_push(a, &a->held, round, seq, 1);
		return;
	}
	if (!rina_agent_ag_store(a, h, len, 0, 1))
		return;
	a->st.ag_in++;
	r = (struct rina_hdr *)a->scratch;
	rina_memcpy(r, h, len);
	r->flags &= (__u8)~RINA_F_FROM_SWITCH;	/* the agent's, not the ToR's */
	rina_agent_to_workers(a, r, len);
	rina_agent_ackq_push(a, &a->held, round, seq, 1);
}

void rina_agent_ag_from_upstream(struct rina_agent_core *a,
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
	if (rina_agent_round_admit(a, round))
		return;
	a->st.ag_in++;
	if (rina_keymap_get(&a->ag, round, seq)) {
		rina_agent_send_ack(a, from, round, seq, RINA_F_AG_PHASE);
		a->st.dup++;	/* our ACK was lost; the rest went out */
		return;
	}
	e = rina_agent_ag_store(a, h, len, fwd, (__u8)(h->hop + 1));
	if (!e)
		return;	/* no copy, no ACK: upstream sends it again */
	rina_agent_send_ack(a, from, round, seq, RINA_F_AG_PHASE);
	rina_agent_to_workers(a, h, len);
	if (fwd)
		rina_agent_ag_send_down(a, e, 0);
}

void rina_agent_ack_from_downstream(struct rina_agent_core *a,
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
		rina_agent_to_workers(a, h, len);
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
			a->last_news = now;	/* restarts the timer */
			a->backoff = 0;
			/*
			 * RACK by the first sending, whichever copy this ACK
			 * is for: a resent packet's ACK may be its first
			 * copy's, late, and taking the resend's time for it
			 * RACK judged lost everything stored between the two
			 * (as the ring member's rack_takes() explains). So a
			 * timer's probe tells a lost tail (probe_pick()).
			 */
			rina_rack_acked(&a->rack, e->t_first);
			if (e->probe && e->no_first > a->probe_no) {
				a->probe_no = e->no_first;
				a->probe_at = now;
			}
			if (!e->tries)	/* Karn */
				rina_rtt_update(&a->rtt, now - e->t_sent, now);
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
			rina_agent_repair_one(a, e, from);
	}
}

void rina_agent_nack_from_worker(struct rina_agent_core *a,
				 const struct rina_hdr *h,
				 const struct rina_agent_addr *from)
{
	int k = rina_agent_local_index(a, from);

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
 * Upstream's agent lost its ToR with its own chunk's result and asks for
 * it (ask_again()): we hold every allgather packet that passed us, for
 * the rounds in the cache. A NACK from upstream is checked as one from a
 * local worker is (rina_agent_nack_from_worker()), and answered the same way.
 */
void rina_agent_ask_from_upstream(struct rina_agent_core *a,
				  const struct rina_hdr *h,
				  const struct rina_agent_addr *from)
{
	a->st.asks_in++;
	if (!repair_round(a, h))
		repair_from_cache(a, h, from);
}

/* Everything sent downstream as sender of record has been acknowledged. */
int rina_agent_ag_drained(const struct rina_agent_core *a)
{
	__u32 j;

	for (j = a->fifo_head; j != a->fifo_tail;
	     j = (j + 1) & (a->fifo_cap - 1))
		if (!a->fifo[j]->acked)
			return 0;
	return 1;
}
