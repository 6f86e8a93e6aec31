// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A local worker of an INA rack for one allreduce call. The rack is one
 * ring member; its ToR (or, without one, the agent) adds the rack's
 * contributions. The worker pushes its contribution to every chunk of
 * every block to the agent's address, in the member's processing order,
 * windowed by slot ordinal, and collects the fully reduced chunks that the
 * ToR multicasts: it sends S bytes and receives S bytes.
 *
 * A contribution counts as delivered when the downstream member's ACK is
 * fanned out to the rack (chunks that leave the rack) or the chunk's final
 * result arrives, or, for the member's own chunk, when its allgather data
 * arrives from the agent, or when the agent says it holds what the ToR
 * sent (wrx_ack()). Lost contributions are
 * retransmitted (the ToR re-emits a completed slot's result); missing
 * allgather data is asked for from the agent with a NACK.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"
#include "wire.h"
#include "schedule.h"
#include "bitmap.h"
#include "rack.h"

struct contrib {
	uint32_t	seq;		/* reduce-scatter seq */
	uint64_t	ordinal;
	uint64_t	t_sent;
	uint64_t	rto;
	uint64_t	deadline;
	uint32_t	tries;
	uint32_t	step;		/* of the member's schedule */
	bool		sent, done;
	bool		orphaned;	/* its ToR went away: resend (wrestart()) */
};

struct wcall {
	struct rina_comm *c;
	struct rina_sched s;
	int32_t		*acc;
	uint8_t		dtype_op;
	uint32_t	i;		/* member index */
	uint16_t	round;

	struct contrib	*ct;		/* in ordinal order */
	uint32_t	nct, first_open, next_send;
	uint32_t	inflight;	/* sent, not yet delivered */
	uint32_t	retx_pos;	/* where the last resend pass stopped */
	struct rina_rack *rack;		/* per step: see wretransmit() */
	uint32_t	*probed;	/* per step: last probe pass that sent */
	uint32_t	probes;		/* probe passes since a delivery */
	uint32_t	probe_gen;	/* probe passes in all */
	uint64_t	last_done, last_probe;
	bool		windowed;	/* congestion window: rina_ina_cc() */
	/*
	 * A ring of INA members only: the window's floor is 2 (P + 1)
	 * (rina_cc_ina_window_only()), and what that puts on our host's
	 * queue is bounded (endpoint.h, struct rina_txq)
	 */
	bool		only_ina;
	struct rina_txq	txq;
	uint32_t	*ct_of_seq;	/* SR seq -> index + 1 */
	__u64		*agmap;		/* allgather seqs received */
	__u64		*ovfmap;
	uint64_t	expect_ag, got_ag, got_done;
	uint32_t	nacks;		/* sent since allgather data last came */
	uint64_t	last_progress, last_nack, last_stall;

	struct rina_msg	tx[RINA_BATCH];
	int		ntx;
};

static int wflush(struct wcall *k)
{
	int ret;

	if (!k->ntx)
		return 0;
	ret = rina_xmit(k->c, k->tx, k->ntx);
	k->ntx = 0;
	if (ret < 0)
		return rina_fail(RINA_ERR_TRANSPORT, "send failed: %s",
				 strerror(-ret));
	return 0;
}

/* A contribution's timer at its first transmission */
static uint64_t first_rto(const struct rina_comm *c)
{
	uint64_t rto = rina_path_rto_slot(&c->to_agg, c->rto_us) * RINA_RTO_SLOT_FACTOR;

	return rto < RINA_RTO_SLOT_MIN_US ? RINA_RTO_SLOT_MIN_US : rto;
}

static int send_contrib(struct wcall *k, struct contrib *x, bool retx)
{
	struct rina_comm *c = k->c;
	const struct rina_sched *s = &k->s;
	struct rina_pkt_id id;
	struct rina_hdr *h;
	uint64_t off;
	uint32_t len;
	int ret;

	if (k->ntx == RINA_BATCH) {
		ret = wflush(k);
		if (ret)
			return ret;
	}
	rina_seq_decode(s, x->seq, &id);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	h = (struct rina_hdr *)(c->txbuf + (size_t)k->ntx * c->max_msg);
	rina_hdr_init(c, h, RINA_OP_SR_CONTRIB, k->round);
	h->chunk = htons((uint16_t)id.chunk);
	h->seq = htonl(x->seq);
	h->step = (uint8_t)rina_chunk_step(k->i, id.chunk, s->L);
	h->slot = htons(rina_slot(c->slot_base, x->ordinal));
	h->n_elem = htons((uint16_t)rina_wire_elems(len));
	h->p_chunk = htons((uint16_t)s->P);
	h->num_contrib = htons(1);
	h->dtype_op = k->dtype_op;
	if (id.chunk == rina_own_chunk(k->i, s->L))
		h->flags |= RINA_F_OWN_FINAL;
	if (id.pkt == s->P - 1 || off + len >= s->count)
		h->flags |= RINA_F_LAST;
	if (retx)
		h->flags |= RINA_F_RETX;
	rina_reduce->store_be((__be32 *)(h + 1), k->acc + off, len);
	if (!len)	/* padding: one zero word */
		*(__be32 *)(h + 1) = 0;
	k->tx[k->ntx].buf = h;
	k->tx[k->ntx].len = RINA_HDR_LEN + rina_wire_elems(len) * 4;
	k->tx[k->ntx].addr = c->contrib_to;	/* the agent's or ToR's */
	k->ntx++;
	c->st.tx_data++;
	if (retx)
		c->st.retransmits++;
	x->t_sent = rina_now_us();
	x->orphaned = false;
	if (!x->sent)
		k->inflight++;
	x->sent = true;
	if (retx) {
		x->tries++;
		x->rto = x->rto * 2 > RINA_RTO_SLOT_MAX_US ?
			 RINA_RTO_SLOT_MAX_US : x->rto * 2;
	} else {
		x->rto = first_rto(c);
	}
	x->deadline = x->t_sent + x->rto;
	return 0;
}

/* ce: what delivered it came CE-marked, or said it did (ECN_ECHO) */
static void contrib_done(struct wcall *k, uint32_t idx, bool ce)
{
	struct contrib *x = &k->ct[idx];
	struct rina_path *path = &k->c->to_agg;

	if (x->done)
		return;
	x->done = true;
	k->got_done++;
	k->last_progress = rina_now_us();
	k->last_done = k->last_progress;
	k->probes = 0;
	if (!x->tries && x->sent) {
		rina_path_rtt(path, k->last_progress - x->t_sent,
			      k->last_progress);
		rina_cc_rtt_sample(&path->cc, k->last_progress - x->t_sent,
				   &path->rtt, k->last_progress);
		rina_rack_acked(&k->rack[x->step], x->t_sent);
	}
	if (x->sent) {
		k->inflight--;
		/*
		 * Delivery waits for the slot, i.e. the rack and the ring,
		 * not only a queue: no RTT sample for the delay signal,
		 * loss alone drives the window (as ring.c towards an INA
		 * member). ECN marks are a signal of the path: the ToR
		 * marks a result when a contribution came marked, and the
		 * downstream member's echo comes back in the ACK it fans
		 * out (core/slot.h).
		 */
		k->c->st.ce_acked += ce;
		rina_cc_on_ack(&path->cc, 1, ce, 0, &path->rtt,
			       k->last_progress);
	}
	while (k->first_open < k->nct && k->ct[k->first_open].done)
		k->first_open++;
}

/*
 * Send what the windows allow. The slot window: ordinal o may go once
 * every ordinal up to o - W is delivered, so a slot set is never claimed
 * while its previous occupant may still need re-emission. The congestion
 * window (core/cc.h, loss only): at most cwnd contributions in flight,
 * but never fewer than P + 1, so that the slots every other sender waits
 * on can always be completed (protocol.md 6.1 argues why this cannot
 * deadlock).
 */
/*
 * The agent rank's contributions go to the ToR's address only while it
 * aggregates the rack (it may go away and come back: agent.c); looked
 * up once per pass of sends, not per packet.
 */
static void contrib_dest(struct rina_comm *c)
{
	struct rina_addr to;

	if (!c->agent || !c->tor_to.ip)
		return;
	to = rina_agent_tor_on(c->agent) ? c->tor_to : c->next;
	/* another aggregator: what backed off towards the last one ends */
	if (!rina_addr_eq(&to, &c->contrib_to))
		rina_cc_retx_restart(&c->to_agg.cc);
	c->contrib_to = to;
}

static int wpump(struct wcall *k)
{
	const struct rina_cc *cc = &k->c->to_agg.cc;
	uint32_t cwnd = !k->windowed ? k->c->job.window :
			k->only_ina ? rina_cc_ina_window_only(cc, k->s.P) :
			rina_cc_ina_window(cc, k->s.P);
	uint64_t limit;
	int ret;

	contrib_dest(k->c);
	limit = k->first_open < k->nct ? k->ct[k->first_open].ordinal +
		k->c->job.window : UINT64_MAX;
	rina_txq_start(&k->txq);
	while (k->next_send < k->nct && k->ct[k->next_send].ordinal < limit &&
	       k->inflight < cwnd) {
		if (rina_txq_due(&k->txq)) {
			ret = wflush(k);
			if (ret)
				return ret;
			rina_txq_look(k->c, &k->txq);
		}
		if (k->txq.full)
			break;
		ret = send_contrib(k, &k->ct[k->next_send], false);
		if (ret)
			return ret;
		rina_txq_sent(&k->txq);
		k->next_send++;
	}
	return wflush(k);
}

/*
 * The probe timeout. Normally twice the smoothed round trip (RFC 8985):
 * a contribution's delivery waits for the ring (queues, plain members),
 * and a mixed ring at 25 Mbit/s went 17 ms between deliveries with
 * nothing lost; 2 x the base RTT there made 862 needless probes in 4
 * calls. But while RACK finds losses (one in the last 8 SRTT) twice the
 * base round trip: the SRTT then grows with the very stalls the probe is
 * there to end (10 ms at 10% loss, and the call took 3x as long as with
 * 2 ms). Not after timer expiries: on a shaped 4x2 ring they are mostly
 * waits, and eager probes there resent 5x as much. Before the first
 * sample the job's timer (at 2 ms, a first 4 KB call through a plain
 * member was probed 6 times). At least RINA_PTO_MIN_US (a descheduled
 * process), doubled on every probe pass that brought no delivery, within
 * the contribution timer's cap.
 */
/*
 * RACK found a loss in the last 8 SRTT: the path loses, timers hurry.
 * Kept on the path, not the call: the next call's first probe comes as
 * early (after a 1 MiB float32 call at 10% loss, 2x3, the exponents'
 * call of 4 contributions took 36-40 ms a rank against 20-26, and the
 * pair 125 ms against 103, medians of 15 runs).
 */
static bool wlossy(const struct wcall *k, uint64_t now)
{
	const struct rina_path *p = &k->c->to_agg;

	return p->last_loss_us && now - p->last_loss_us < 8 * p->rtt.srtt_us;
}

/*
 * A timer of t, at least RINA_PTO_MIN_US, doubled for each of n tries
 * that brought nothing (up to 2^8), at most cap: the probe's and the
 * last NACKs' back-off.
 */
static uint64_t wbackoff(uint64_t t, uint32_t n, uint64_t cap)
{
	if (t < RINA_PTO_MIN_US)
		t = RINA_PTO_MIN_US;
	t <<= n < 8 ? n : 8;
	return t > cap ? cap : t;
}

static uint64_t wpto(const struct wcall *k, uint64_t now)
{
	const struct rina_rtt *rtt = &k->c->to_agg.rtt;
	uint64_t pto = 2 * rtt->srtt_us;

	if (!pto)	/* no sample yet: the job's timer (RFC 8985: 1 s) */
		pto = k->c->rto_us;
	else if (wlossy(k, now))
		pto = 2 * rtt->base_us;
	return wbackoff(pto, k->probes, RINA_RTO_SLOT_MAX_US);
}

/*
 * When a contribution's timer expires: its own deadline, restarted by
 * every delivery (RFC 6298 5.3, core/rtt.h). A delivery waits for
 * upstream and the next member, so a worker running ahead of the ring
 * sees its oldest contributions wait far longer than any round trip it
 * sampled while deliveries keep coming: timed from the send alone, the
 * workers of a mixed 2x4 ring at 25 Mbit/s resent one contribution in
 * eight, nearly all held by the ToR already, and halved their windows
 * for it. A loss among them is RACK's to find, from the deliveries
 * after it. Not while RACK finds losses (wlossy()): there the timer is
 * what ends a stall (at 10% loss the restart cost 13%).
 */
static uint64_t wdue(const struct wcall *k, const struct contrib *x,
		     uint64_t now)
{
	return wlossy(k, now) ? x->deadline :
	       rina_rto_due(x->deadline, k->last_done, x->rto);
}

/* Retransmissions of one pass at most: the rest wait for the next. */
#define WRETX_MAX	64

/*
 * A probe, as RFC 8985's tail loss probe: nothing was delivered for a PTO
 * while contributions are out, and RACK cannot tell what is lost, since
 * nothing sent after it completed. That is how racks at the window's
 * floor stall (protocol.md 6.1: they advance in lock-step, each waiting
 * on the other's next ordinal), and where the one slot everything waits
 * on is lost, only a timer, 40 ms and more, would find it. The slot is
 * the oldest undelivered one of some step, of this rack or of the next
 * member that acknowledges it: resend the oldest undelivered contribution
 * of each step (every worker of the rack probes; the ToR drops the copies
 * it holds and re-emits a completed slot's result). Not a loss signal:
 * the window stays.
 */
static int wprobe(struct wcall *k, uint64_t now, uint32_t credit,
		  uint32_t *n, uint64_t *next)
{
	uint64_t pto = wpto(k, now), since = k->last_done > k->last_probe ?
					k->last_done : k->last_probe;
	uint32_t j;
	int ret;

	if (!k->inflight)
		return 0;
	if (now < since + pto) {
		if (since + pto < *next)
			*next = since + pto;
		return 0;
	}
	k->probes++;
	k->probe_gen++;
	k->last_probe = now;
	for (j = k->first_open; j < k->next_send && *n < credit; j++) {
		struct contrib *x = &k->ct[j];

		if (x->done || k->probed[x->step] == k->probe_gen)
			continue;
		k->probed[x->step] = k->probe_gen;
		if (now - x->t_sent < pto)	/* just sent or resent */
			continue;
		k->c->st.timeouts++;
		ret = send_contrib(k, x, true);
		if (ret)
			return ret;
		(*n)++;
	}
	if (now + wpto(k, now) < *next)
		*next = now + wpto(k, now);
	return 0;
}

static int wretransmit(struct wcall *k, uint64_t *wait_us)
{
	struct rina_path *path = &k->c->to_agg;
	uint64_t now = rina_now_us(), next = UINT64_MAX;
	uint32_t i, j, n = 0, span = k->next_send - k->first_open, credit;
	uint32_t probes, orphans = 0;
	bool held = false, lost;
	int ret;

	contrib_dest(k->c);
	/*
	 * The credit's period: the smoothed round trip, at least
	 * RINA_CC_RETX_PERIOD_MIN_US (a descheduled process, as the
	 * agents' repairs), not the job's timer: at
	 * 10% loss each worker resends some 450 contributions a call, and
	 * a window of them per 20 ms held a 2x3 rack at 16x its lossless
	 * call (12x with 2 ms). Before a worker's loss needed a queue to
	 * cut (core/cc.h, rina_cc_rtt_sample()), 2 ms cost 10% at 1%.
	 */
	credit = rina_cc_retx_credit_floor(&path->cc, &path->rtt,
					   RINA_CC_RETX_PERIOD_MIN_US,
					   RINA_RTO_SLOT_MAX_US, now,
					   k->s.P + 1);
	if (!k->windowed || credit > WRETX_MAX)
		credit = WRETX_MAX;

	/*
	 * A contribution is lost (ours, another worker's, upstream's partial
	 * or an ACK: the slot did not complete) once one of the same step
	 * sent after it was delivered (RACK, core/rack.h). Within a step
	 * the slots complete in send order: every sender of the rack and
	 * upstream sends them in that order, and each completes when its
	 * last contribution arrives. Across steps they do not (a first-step
	 * slot completes at once, a later step's waits for the ring), hence
	 * one rina_rack per step. No reordering allowance: a window is sent
	 * in one burst, and a slot of that burst completing before an older
	 * one is the whole evidence there is (with RFC 8985's srtt / 4 the
	 * stalled slot waited for its timer, measured). Every worker of the
	 * rack sees the stalled slot and resends; the ToR drops the copies
	 * it has (protocol-ina.md section 4) or re-emits a completed slot's
	 * result.
	 *
	 * Behind it, each contribution has its own timer, well above the
	 * pipeline delay and backed off on every retry, for the tail of a
	 * step. Every overdue one goes again, not only the oldest: the one a
	 * stalled slot lacks may be a young one (the downstream rack's
	 * window can wait on it while our oldest waits on that rack), and
	 * resending the oldest ones first would reach it only after hundreds
	 * of timer periods. They go within the congestion window's
	 * retransmission credit (cwnd per round trip), each pass starting
	 * where the last one stopped, so that every overdue one gets its
	 * turn however small the credit.
	 */
	ret = wprobe(k, now, credit, &n, &next);
	if (ret)
		return ret;
	probes = n;
	if (!k->windowed || k->retx_pos < k->first_open ||
	    k->retx_pos >= k->next_send)
		k->retx_pos = k->first_open;	/* unwindowed: oldest first */
	for (i = 0; i < span; i++) {
		struct contrib *x;

		j = k->retx_pos + i;
		if (j >= k->next_send)
			j -= span;
		x = &k->ct[j];
		if (x->done)
			continue;
		lost = x->orphaned ||
		       rina_rack_lost(&k->rack[x->step], x->t_sent, 0);
		if (lost || wdue(k, x, now) <= now) {
			if (n >= credit) {
				held = true;
				continue;
			}
			if (x->orphaned) {
				orphans++;
				k->c->st.resent_orphaned++;
			} else if (lost) {
				k->c->st.fast_retransmits++;
				k->c->to_agg.last_loss_us = now;
			} else {
				k->c->st.timeouts++;
			}
			ret = send_contrib(k, x, true);
			if (ret)
				return ret;
			n++;
			k->retx_pos = j + 1;
		}
		if (wdue(k, x, now) < next)
			next = wdue(k, x, now);
	}
	rina_cc_retx_spend(&path->cc, n);
	/*
	 * Overdue ones left: unwindowed, at the next pass; windowed, when
	 * the credit refills.
	 */
	if (held && !k->windowed)
		next = now;
	else if (held && rina_cc_retx_refill_at(&path->cc) < next)
		next = rina_cc_retx_refill_at(&path->cc);
	/*
	 * Overdue contributions are a loss (the queue towards the ToR, or a
	 * result from it, dropped): the window halves, at most once per
	 * round trip however many timed out. Not a timeout's restart from
	 * one packet: a contribution also waits for the rack and upstream,
	 * so a second timeout is no proof of a path that lost everything.
	 * What died with a ToR was no congestion.
	 */
	if (n > probes + orphans && k->windowed)
		rina_cc_on_loss(&path->cc, &path->rtt, now);
	*wait_us = next == UINT64_MAX ? UINT64_MAX :
		   next > now ? next - now : 0;
	return wflush(k);
}

/* Ask the agent for allgather data that is overdue. */
static void wnack(struct wcall *k)
{
	struct rina_comm *c = k->c;
	const struct rina_sched *s = &k->s;
	uint8_t buf[RINA_HDR_LEN + 4 * RINA_MAX_ELEMS + RINA_TAG_LEN];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	__be32 *seqs = (__be32 *)(h + 1);
	uint32_t n = 0, max = c->job.elems, seq;
	uint64_t b;
	uint32_t ch, p;
	struct rina_msg m;

	for (b = 0; b < s->nblocks && n < max; b++)
		for (ch = 0; ch < s->L && n < max; ch++)
			for (p = 0; p < s->P && n < max; p++) {
				if (!rina_pkt_sent(s, b, ch, p))
					continue;
				seq = rina_seq(s, b, ch, p, 1);
				if (!rina_bit_test(k->agmap, seq))
					seqs[n++] = htonl(seq);
			}
	if (!n)
		return;
	rina_hdr_init(c, h, RINA_OP_NACK, k->round);
	h->flags = RINA_F_AG_PHASE;
	h->seq = seqs[0];
	h->n_elem = htons((uint16_t)n);
	m.buf = buf;
	m.len = RINA_HDR_LEN + n * 4;
	m.addr = c->next;
	rina_xmit(c, &m, 1);
	c->st.nacks++;
}

/* Our contribution to allgather packet "id" is delivered. */
static void ag_done(struct wcall *k, const struct rina_sched *s,
		    const struct rina_pkt_id *id, bool ce)
{
	uint32_t sr = rina_seq(s, id->block, id->chunk, id->pkt, 0);

	if (k->ct_of_seq[sr])
		contrib_done(k, k->ct_of_seq[sr] - 1, ce);
}

static int wrx_ag(struct wcall *k, const struct rina_hdr *h, uint8_t ecn)
{
	struct rina_comm *c = k->c;
	const struct rina_sched *s = &k->s;
	uint32_t seq = ntohl(h->seq), len, own = rina_own_chunk(k->i, s->L);
	struct rina_pkt_id id;
	bool ce = ecn == IPTOS_ECN_CE;
	uint64_t off;

	if (h->dtype_op != k->dtype_op || seq >= s->seqs)
		return rina_fail(RINA_ERR_MISMATCH,
				 "allgather data of call %llu does not fit this rank's call (count or dtype differs)",
				 (unsigned long long)k->c->st.calls);
	rina_seq_decode(s, seq, &id);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	if (!id.ag || ntohs(h->n_elem) != rina_wire_elems(len) ||
	    (!len && !s->pad) ||
	    ntohs(h->num_contrib) != c->N) {
		c->st.rx_malformed++;
		return 0;
	}
	if (rina_bit_test_and_set(k->agmap, seq)) {
		c->st.duplicates++;
		/*
		 * The ToR's copy came first, then it went: the agent's own
		 * emission of the result is what completes the contribution.
		 */
		if (id.chunk != own || !(h->flags & RINA_F_FROM_SWITCH))
			ag_done(k, s, &id, ce);
		return 0;
	}
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	rina_reduce->load_be(k->acc + off, (const __be32 *)(h + 1), len);
	if ((h->flags & RINA_F_OVERFLOW) && len)
		rina_bit_test_and_set(k->ovfmap, (uint32_t)(off / s->E));
	k->got_ag++;
	k->nacks = 0;
	k->last_progress = rina_now_us();
	c->st.rx_ce += ce;
	/*
	 * A final result holds every rank's contribution, ours included:
	 * whatever ACK of it we missed, nobody needs it re-emitted (after a
	 * ToR went, the downstream member that could re-ACK it may be done
	 * with the call). The rack's own chunk from the ToR completes the
	 * contribution only once the agent says it holds the result too
	 * (wrx_ack()): until then a retransmission is what makes the ToR
	 * send it again.
	 */
	if (id.chunk != own || !(h->flags & RINA_F_FROM_SWITCH))
		ag_done(k, s, &id, ce);
	return 0;
}

/*
 * ACKs the agent sends the rack: the downstream member's ACKs of the
 * partials (reduce-scatter seqs), and, with AG_PHASE | OWN_FINAL, the
 * own-chunk results it holds (allgather seqs).
 */
static void wrx_ack(struct wcall *k, const struct rina_hdr *h)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem), own = rina_own_chunk(k->i, k->s.L);
	bool held = h->flags & RINA_F_AG_PHASE;
	bool ce = h->flags & RINA_F_ECN_ECHO;
	struct rina_pkt_id id;

	k->c->st.rx_acks++;
	if (held && !(h->flags & RINA_F_OWN_FINAL))
		return;
	for (j = 0; j < n; j++) {
		uint32_t seq = ntohl(seqs[j]);

		if (seq >= k->s.seqs)
			continue;
		if (held) {
			rina_seq_decode(&k->s, seq, &id);
			if (!id.ag || id.chunk != own)
				continue;
			seq = rina_seq(&k->s, id.block, id.chunk, id.pkt, 0);
		}
		if (k->ct_of_seq[seq])
			contrib_done(k, k->ct_of_seq[seq] - 1, ce);
	}
}

/*
 * The agent found the ToR lost (RINA_CTRL_TOR_LOST) and aggregates the
 * rack itself. Every contribution sent and not delivered may have been
 * in a slot that died with the ToR, and the agent's slot waits for it:
 * all of them are lost, as TCP takes everything outstanding for lost at
 * a timeout (RFC 6675, 5.1), and go again, oldest first, within the
 * retransmission credit. Their timers alone would not send them: the
 * first deliveries through the agent restart them (rina_rto_due()), and
 * RACK finds nothing lost where nothing younger of the same step got
 * through; in a trace one worker's oldest waited 1.3 s while deliveries
 * trickled in every 50 ms. What the silence backed off starts over too,
 * as TCP's timer does when the path answers again (RFC 6298, 5.7): the
 * credit's period, the probe timeout, each contribution's timer. Once,
 * on that word: not on every request of the agent, which comes for
 * every retried slot; restarted by each, the timers never backed off,
 * and one run resent 8500 contributions in a 5.6 s call.
 */
static void wrestart(struct wcall *k)
{
	uint64_t rto = first_rto(k->c);
	uint32_t j;

	rina_cc_retx_restart(&k->c->to_agg.cc);
	k->probes = 0;
	k->retx_pos = k->first_open;
	for (j = k->first_open; j < k->next_send; j++) {
		struct contrib *x = &k->ct[j];

		if (x->done || !x->sent)
			continue;
		x->orphaned = true;	/* resent whatever its deadline */
		if (x->rto > rto)
			x->rto = rto;
	}
}

/*
 * The agent asks the rack again for reduce-scatter seqs (a NACK without
 * AG_PHASE): after a ToR went, the member downstream of ours may lack a
 * result our ToR completed, or upstream its ACK (core/agent.c,
 * ask_again()); and while it adds the rack itself, a slot lacks our part
 * although our later ones came (gap_nack()). Resend what we sent of them,
 * delivered or not: a part sent once at once, for the agent saw a later
 * one of ours arrive first, which on one path means this one was lost
 * (a loss found, as RACK would, for the window and wlossy()); one sent
 * again at most once per RINA_PTO_MIN_US. Our ToR re-emits a slot it
 * holds done, and takes what it lacks; the agent adds it into a slot it
 * builds anew. acc holds the contribution until the chunk's final result
 * overwrites it: never after that, which would add the result as a
 * contribution.
 */
static int wrx_resend(struct wcall *k, const struct rina_hdr *h)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem), seq;
	uint64_t now = rina_now_us();
	struct rina_pkt_id id;
	struct contrib *x;
	int ret;

	for (j = 0; j < n; j++) {
		seq = ntohl(seqs[j]);
		if (seq >= k->s.seqs || !k->ct_of_seq[seq])
			continue;
		rina_seq_decode(&k->s, seq, &id);
		if (id.ag || rina_bit_test(k->agmap,
					   rina_seq_ag_of(k->s.L, k->s.P, seq)))
			continue;
		x = &k->ct[k->ct_of_seq[seq] - 1];
		if (!x->sent || (x->tries && now - x->t_sent < RINA_PTO_MIN_US))
			continue;
		if (!x->tries && !x->done && k->windowed) {
			k->c->to_agg.last_loss_us = now;
			rina_cc_on_loss(&k->c->to_agg.cc, &k->c->to_agg.rtt,
					now);
		}
		ret = send_contrib(k, x, true);
		if (ret)
			return ret;
		k->c->st.resent_asked++;
	}
	return wflush(k);
}

/* A checked message of this job, not CTRL (rina_recv_batch). */
static int wrx_one(struct wcall *k, const struct rina_msg *m, bool stashed)
{
	struct rina_comm *c = k->c;
	const struct rina_hdr *h = m->buf;
	unsigned int op = rina_hdr_opcode(h);
	int rc;

	if (!rina_addr_eq(&m->addr, &c->next)) {
		c->st.rx_foreign++;	/* only the agent's address talks */
		return 0;
	}
	rc = rina_round_cmp(ntohs(h->round), k->round);
	if (rc < 0) {
		c->st.rx_stale++;
		return 0;
	}
	if (rc > 0) {
		if (rc == 1 && !stashed)
			rina_stash(c, m);
		return 0;
	}
	if (op == RINA_OP_ACK) {
		wrx_ack(k, h);
		return 0;
	}
	if (op == RINA_OP_AG_DATA) {
		c->st.rx_data++;
		return wrx_ag(k, h, m->ecn);
	}
	if (op == RINA_OP_NACK && !(h->flags & RINA_F_AG_PHASE))
		return wrx_resend(k, h);
	c->st.rx_malformed++;
	return 0;
}

static int wsetup(struct wcall *k, size_t count)
{
	const struct rina_sched *s = &k->s;
	uint32_t L = s->L, t, p, c;
	uint64_t b;

	k->ct = calloc((size_t)s->nblocks * L * s->P + 1, sizeof(*k->ct));
	k->ct_of_seq = calloc((size_t)s->seqs + 1, sizeof(uint32_t));
	k->agmap = calloc(RINA_BITMAP_WORDS(s->seqs) + 1, 8);
	k->ovfmap = calloc(RINA_BITMAP_WORDS(count / s->E + 1), 8);
	k->rack = calloc(L, sizeof(*k->rack));
	k->probed = calloc(L, sizeof(*k->probed));
	if (!k->ct || !k->ct_of_seq || !k->agmap || !k->ovfmap || !k->rack ||
	    !k->probed)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	for (b = 0; b < s->nblocks; b++)
		for (t = 0; t < L; t++) {
			c = rina_sr_chunk(k->i, t, L);
			for (p = 0; p < s->P; p++) {
				struct contrib *x = &k->ct[k->nct];

				if (!rina_pkt_sent(s, b, c, p))
					continue;
				x->seq = rina_seq(s, b, c, p, 0);
				x->ordinal = rina_ordinal(s, k->i, b, c, p);
				x->step = t;
				k->ct_of_seq[x->seq] = ++k->nct;
				k->expect_ag++;
			}
		}
	return 0;
}

static int wrx_cb(void *k, const struct rina_msg *m, bool stashed)
{
	return wrx_one(k, m, stashed);
}

/*
 * No progress for a quarter of the timeout: tell the agent, every eighth
 * while it lasts (RINA_CTRL_STALL). With the ToR adding the rack the
 * agent sees no contributions; the workers that report are there, and
 * one that does not is the silent one it names (core/agent.c).
 */
static void wstall(struct wcall *k, uint64_t now)
{
	struct rina_comm *c = k->c;
	uint64_t quarter = (uint64_t)c->timeout_ms * 1000 / 4;

	if (now - k->last_progress < quarter ||
	    now - k->last_stall < quarter / 2)
		return;
	rina_send_ctrl(c, &c->next, RINA_CTRL_STALL, c->timeout_ms);
	k->last_stall = now;
}

/*
 * When to ask the agent for allgather data (wnack()). Once every
 * contribution is delivered, what is missing is a result that was lost
 * on its way to us, or one that the ring still completes: asked for
 * after twice the base round trip without any data (at least
 * RINA_PTO_MIN_US), doubled on every NACK that brought nothing, up to
 * the slot timer. The base, not the smoothed round trip: the smoothed
 * one holds the waits for the rack and the ring, over once our part is
 * delivered (at 10% loss, 2x3: 136 ms a call against 236, 8 runs each).
 * The agent rank's worker is where that matters: the ToR sends it no
 * results, its agent relays each copy over the host's loopback
 * (core/agent.c, relay_to_host()), and at the job's 20 ms timer, at 10%
 * loss a 2x3 rack's agent rank finished each call 50-160 ms after the
 * rack's other workers, which then waited for it in the next. Before
 * that, only a stall of RINA_NACK_STALL slot timers asks: a
 * contribution whose ACK we missed may complete only with its chunk's
 * result, which the agent may hold after a ToR went.
 */
static uint64_t wnack_at(const struct wcall *k)
{
	const struct rina_comm *c = k->c;
	uint64_t slot = rina_path_rto_slot(&c->to_agg, c->rto_us), wait, at;

	if (k->got_done < k->nct) {
		at = k->last_progress + RINA_NACK_STALL * slot;
		wait = slot;
	} else {
		wait = wbackoff(2 * c->to_agg.rtt.base_us, k->nacks, slot);
		at = k->last_progress + wait;
	}
	return at > k->last_nack + wait ? at : k->last_nack + wait;
}

static int wloop(struct wcall *k)
{
	struct rina_comm *c = k->c;
	uint64_t wait_us, now, nack_at;
	int ret;

	ret = rina_replay_stash(c, wrx_cb, k);
	if (ret)
		return ret;
	while (k->got_ag < k->expect_ag || k->got_done < k->nct) {
		ret = wpump(k);
		if (!ret)
			ret = wretransmit(k, &wait_us);
		if (ret)
			return ret;
		now = rina_now_us();
		if (k->got_ag < k->expect_ag) {
			nack_at = wnack_at(k);
			if (nack_at <= now) {
				wnack(k);
				k->last_nack = now;
				k->nacks++;
				nack_at = wnack_at(k);
			}
			if (nack_at - now < wait_us)
				wait_us = nack_at - now;
		}
		wstall(k, now);
		if (k->txq.full && wait_us > RINA_TXQ_WAIT_US)
			wait_us = RINA_TXQ_WAIT_US;
		ret = rina_recv_batch(c, wait_us > 20000 ? 20000 : wait_us,
				      wrx_cb, k);
		if (ret)
			return ret;
		if (c->tor_lost_told) {
			c->tor_lost_told = false;
			wrestart(k);
		}
		if (rina_now_us() - k->last_progress >
		    (uint64_t)c->timeout_ms * 1000)
			return rina_fail(RINA_ERR_TIMEOUT,
					 "rank %d: no progress for %u ms in call %llu: %llu of %llu allgather packets, %llu of %u contributions delivered, via agent rank %d",
					 c->rank, c->timeout_ms,
			 (unsigned long long)c->st.calls,
					 (unsigned long long)k->got_ag,
					 (unsigned long long)k->expect_ag,
					 (unsigned long long)k->got_done, k->nct,
					 c->next_rank);
	}
	return RINA_OK;
}

int rina_ina_worker_run(struct rina_comm *c, int32_t *acc, size_t count,
			uint8_t dtype_op)
{
	struct wcall *k;
	uint32_t j;
	int ret;

	k = calloc(1, sizeof(*k));
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->c = c;
	k->acc = acc;
	k->dtype_op = dtype_op;
	k->i = c->member;
	k->round = c->round++;
	k->windowed = rina_ina_cc(c);
	k->only_ina = k->windowed && rina_ring_only_ina(&c->ring);
	/*
	 * 2 (P + 1) packets of 1102 bytes are 70 KB: more than a 20 ms
	 * queue at 25 Mbit/s, which dropped 1000-1500 of a worker's
	 * contributions in 4 calls of a shaped 4x2 ring
	 */
	k->txq.limit = rina_txq_limit(c->job.txq_limit, k->only_ina);
	c->tor_lost_told = false;	/* a call's timers start afresh anyway */
	if (rina_call_sched(c, &k->s, count)) {
		free(k);
		return RINA_ERR_INVALID;
	}
	if (c->agent)
		rina_agent_rank_busy(c->agent, true);
	ret = wsetup(k, count);
	if (!ret) {
		k->last_progress = rina_now_us();
		k->last_done = k->last_progress;
		ret = wloop(k);
	}
	if (!ret)
		for (j = 0; j < RINA_BITMAP_WORDS(count / k->s.E + 1); j++)
			if (k->ovfmap[j])
				ret = rina_fail(RINA_ERR_OVERFLOW,
						"int32 sum wrapped around (call %llu)",
						(unsigned long long)c->st.calls);
	c->slot_base += (uint32_t)(k->s.nblocks * k->s.L * k->s.P);
	if (c->agent)
		rina_agent_rank_busy(c->agent, false);
	free(k->ct);
	free(k->ct_of_seq);
	free(k->agmap);
	free(k->ovfmap);
	free(k->rack);
	free(k->probed);
	free(k);
	return ret;
}
