// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The INA worker's sending side: its contributions, the windows that
 * hold them, their repair (RACK per step, the probe, the timers), the
 * NACKs for missing results and the stall reports to the agent.
 * ina_worker.c receives.
 */
#include "ina_worker_int.h"
#include "bitmap.h"
#include "hdr.h"

int iw_flush(struct iw_call *k)
{
	struct rina_iw *w = k->w;
	int ret;

	if (!k->ntx)
		return 0;
	ret = w->ops->xmit(w->ctx, k->tx, k->ntx);
	k->ntx = 0;
	if (ret < 0) {
		w->xmit_errno = -ret;
		return RINA_IW_E_XMIT;
	}
	return 0;
}

/* A contribution's timer at its first transmission */
__u64 iw_first_rto(const struct rina_iw *w)
{
	__u64 rto = rina_path_rto_slot(w->cfg.path, w->cfg.rto_us) *
		    RINA_RTO_SLOT_FACTOR;

	return rto < RINA_RTO_SLOT_MIN_US ? RINA_RTO_SLOT_MIN_US : rto;
}

int iw_send_contrib(struct iw_call *k, struct iw_contrib *x, int retx)
{
	struct rina_iw *w = k->w;
	const struct rina_iw_cfg *cfg = &w->cfg;
	const struct rina_sched *s = &k->s;
	struct rina_pkt_id id;
	struct rina_hdr *h;
	__u64 off;
	__u32 len;
	int ret;

	if (k->ntx == RINA_ENGINE_BATCH) {
		ret = iw_flush(k);
		if (ret)
			return ret;
	}
	rina_seq_decode(s, x->seq, &id);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	h = (struct rina_hdr *)(cfg->txbuf + (__u64)k->ntx * cfg->max_msg);
	rina_hdr_fill(h, RINA_OP_SR_CONTRIB, cfg->job_id, k->round, cfg->rank);
	h->chunk = rina_htons((__u16)id.chunk);
	h->seq = rina_htonl(x->seq);
	h->step = (__u8)rina_chunk_step(k->i, id.chunk, s->L);
	h->slot = rina_htons(rina_slot(k->slot_base, x->ordinal));
	h->n_elem = rina_htons((__u16)rina_wire_elems(len));
	h->p_chunk = rina_htons((__u16)s->P);
	h->num_contrib = rina_htons(1);
	h->dtype_op = k->dtype_op;
	if (id.chunk == rina_own_chunk(k->i, s->L))
		h->flags |= RINA_F_OWN_FINAL;
	if (id.pkt == s->P - 1 || off + len >= s->count)
		h->flags |= RINA_F_LAST;
	if (retx)
		h->flags |= RINA_F_RETX;
	cfg->agg->store_be((__be32 *)(h + 1), x->kept ? x->kept : k->acc + off,
			   len);
	if (!len)	/* padding: one zero word */
		*(__be32 *)(h + 1) = 0;
	k->tx[k->ntx].buf = h;
	k->tx[k->ntx].len = RINA_HDR_LEN + rina_wire_elems(len) * 4;
	k->tx[k->ntx].to = RINA_PEER_AGG;	/* the agent's or ToR's */
	k->ntx++;
	w->st.tx_data++;
	if (retx)
		w->st.retransmits++;
	x->t_sent = iw_now(w);
	x->orphaned = 0;
	if (!x->sent)
		k->inflight++;
	x->sent = 1;
	if (retx) {
		x->tries++;
		x->rto = x->rto * 2 > RINA_RTO_SLOT_MAX_US ?
			 RINA_RTO_SLOT_MAX_US : x->rto * 2;
	} else {
		x->rto = iw_first_rto(w);
	}
	x->deadline = x->t_sent + x->rto;
	return 0;
}

/* ce: what delivered it came CE-marked, or said it did (ECN_ECHO) */
void iw_contrib_done(struct iw_call *k, __u32 idx, int ce)
{
	struct iw_contrib *x = &k->ct[idx];
	struct rina_path *path = k->w->cfg.path;

	if (x->done)
		return;
	x->done = 1;
	rina_engine_free(k->w->ops, k->w->ctx, x->kept);
	x->kept = NULL;
	k->got_done++;
	k->last_progress = iw_now(k->w);
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
		 * loss alone drives the window (as the ring member towards
		 * an INA member). ECN marks are a signal of the path: the
		 * ToR marks a result when a contribution came marked, and
		 * the downstream member's echo comes back in the ACK it
		 * fans out (core/slot.h).
		 */
		k->w->st.ce_acked += ce;
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
int iw_pump(struct iw_call *k)
{
	struct rina_iw *w = k->w;
	const struct rina_cc *cc = &w->cfg.path->cc;
	__u32 cwnd = !k->windowed ? w->cfg.window :
		     k->only_ina ? rina_cc_ina_window_only(cc, k->s.P) :
		     rina_cc_ina_window(cc, k->s.P);
	__u64 limit;
	int ret;

	limit = k->first_open < k->nct ? k->ct[k->first_open].ordinal +
		w->cfg.window : ~0ULL;
	rina_txq_start(&k->txq);
	while (k->next_send < k->nct && k->ct[k->next_send].ordinal < limit &&
	       k->inflight < cwnd) {
		if (rina_txq_due(&k->txq)) {
			ret = iw_flush(k);
			if (ret)
				return ret;
			if (rina_txq_judge(&k->txq,
					   w->ops->tx_queued(w->ctx)))
				w->st.txq_holds++;
		}
		if (k->txq.full)
			break;
		ret = iw_send_contrib(k, &k->ct[k->next_send], 0);
		if (ret)
			return ret;
		rina_txq_sent(&k->txq);
		k->next_send++;
	}
	return iw_flush(k);
}

/*
 * The probe timeout. Normally twice the smoothed round trip (RFC 8985):
 * a contribution's delivery waits for the ring (queues, plain members),
 * and a mixed ring at 25 Mbit/s went 17 ms between deliveries with
 * nothing lost; 2 x the base RTT there made 862 needless probes in 4
 * calls. But while RACK finds losses (one in the last 8 SRTT) twice the
 * lowest round trip of late (rina_path_pto_low()): the SRTT then grows
 * with the very stalls the probe is there to end (10 ms at 10% loss, and
 * the call took 3x as long as with 2 ms), while the lowest sample stays
 * near the base. Not the base itself: losses of a queue that overflows
 * are no such stalls, the lowest sample then stands above the base, and
 * probes only add to that queue. Not after timer expiries: on a shaped
 * 4x2 ring they are mostly waits, and eager probes there resent 5x as
 * much. Before the first sample the job's timer (at 2 ms,
 * a first 4 KB call through a plain member was probed 6 times). At least
 * RINA_PTO_MIN_US (a descheduled process), doubled on every probe pass
 * that brought no delivery, within the contribution timer's cap.
 */
static __u64 pto(const struct iw_call *k, __u64 now)
{
	/* no sample yet: the job's timer (RFC 8985: 1 s) */
	return rina_path_pto_low(k->w->cfg.path, k->w->cfg.rto_us, k->probes,
				 RINA_RTO_SLOT_MAX_US, now);
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
 * after it. Not while RACK finds losses (rina_path_lossy()): there the
 * timer is what ends a stall (at 10% loss the restart cost 13%).
 */
static __u64 due(const struct iw_call *k, const struct iw_contrib *x,
		 __u64 now)
{
	return rina_path_lossy(k->w->cfg.path, now) ? x->deadline :
	       rina_rto_due(x->deadline, k->last_done, x->rto);
}

/* Retransmissions of one pass at most: the rest wait for the next. */
#define RETX_MAX	64

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
static int probe(struct iw_call *k, __u64 now, __u32 credit, __u32 *n,
		 __u64 *next)
{
	__u64 t = pto(k, now), since = k->last_done > k->last_probe ?
				       k->last_done : k->last_probe;
	__u32 j;
	int ret;

	if (!k->inflight)
		return 0;
	if (now < since + t) {
		if (since + t < *next)
			*next = since + t;
		return 0;
	}
	k->probes++;
	k->probe_gen++;
	k->last_probe = now;
	for (j = k->first_open; j < k->next_send && *n < credit; j++) {
		struct iw_contrib *x = &k->ct[j];

		if (x->done || k->probed[x->step] == k->probe_gen)
			continue;
		k->probed[x->step] = k->probe_gen;
		if (now - x->t_sent < t)	/* just sent or resent */
			continue;
		k->w->st.timeouts++;
		k->w->st.probes++;
		ret = iw_send_contrib(k, x, 1);
		if (ret)
			return ret;
		(*n)++;
	}
	if (now + pto(k, now) < *next)
		*next = now + pto(k, now);
	return 0;
}

int iw_retransmit(struct iw_call *k, __u64 *wait_us)
{
	struct rina_iw *w = k->w;
	struct rina_path *path = w->cfg.path;
	__u64 now = iw_now(w), next = ~0ULL;
	__u32 i, j, n = 0, span = k->next_send - k->first_open, credit;
	__u32 probes, orphans = 0;
	int held = 0, lost;
	int ret;

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
	if (!k->windowed || credit > RETX_MAX)
		credit = RETX_MAX;

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
	ret = probe(k, now, credit, &n, &next);
	if (ret)
		return ret;
	probes = n;
	if (!k->windowed || k->retx_pos < k->first_open ||
	    k->retx_pos >= k->next_send)
		k->retx_pos = k->first_open;	/* unwindowed: oldest first */
	for (i = 0; i < span; i++) {
		struct iw_contrib *x;

		j = k->retx_pos + i;
		if (j >= k->next_send)
			j -= span;
		x = &k->ct[j];
		if (x->done)
			continue;
		lost = x->orphaned ||
		       rina_rack_lost(&k->rack[x->step], x->t_sent, 0);
		if (lost || due(k, x, now) <= now) {
			if (n >= credit) {
				held = 1;
				continue;
			}
			if (x->orphaned) {
				orphans++;
				w->st.resent_orphaned++;
			} else if (lost) {
				w->st.fast_retransmits++;
				path->last_loss_us = now;
			} else {
				w->st.timeouts++;
			}
			ret = iw_send_contrib(k, x, 1);
			if (ret)
				return ret;
			n++;
			k->retx_pos = j + 1;
		}
		if (due(k, x, now) < next)
			next = due(k, x, now);
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
	*wait_us = next == ~0ULL ? ~0ULL : next > now ? next - now : 0;
	return iw_flush(k);
}

/* Ask the agent for allgather data that is overdue. */
static void nack(struct iw_call *k)
{
	struct rina_iw *w = k->w;
	const struct rina_sched *s = &k->s;
	struct rina_hdr *h = (struct rina_hdr *)w->nackbuf;
	__be32 *seqs = (__be32 *)(h + 1);
	__u32 n = 0, max = w->cfg.elems, seq, ch, p;
	struct rina_engine_msg m;
	__u64 b;

	for (b = 0; b < s->nblocks && n < max; b++)
		for (ch = 0; ch < s->L && n < max; ch++)
			for (p = 0; p < s->P && n < max; p++) {
				if (!rina_pkt_sent(s, b, ch, p))
					continue;
				seq = rina_seq(s, b, ch, p, 1);
				if (!rina_bit_test(k->agmap, seq))
					seqs[n++] = rina_htonl(seq);
			}
	if (!n)
		return;
	/* the seqs are in place: a header around them */
	rina_hdr_fill(h, RINA_OP_NACK, w->cfg.job_id, k->round, w->cfg.rank);
	h->flags = RINA_F_AG_PHASE;
	h->seq = seqs[0];
	h->n_elem = rina_htons((__u16)n);
	m.buf = h;
	m.len = RINA_HDR_LEN + n * 4;
	m.to = RINA_PEER_NEXT;
	w->ops->xmit(w->ctx, &m, 1);	/* lost: asked again */
	w->st.nacks++;
}

/*
 * When to ask the agent for allgather data (nack()). Once every
 * contribution is delivered, what is missing is a result that was lost
 * on its way to us, or one that the ring still completes: asked for
 * after twice the base round trip without any data (at least
 * RINA_PTO_MIN_US), doubled on every NACK that brought nothing, up to
 * the slot timer. The base, not the smoothed round trip: the smoothed
 * one holds the waits for the rack and the ring, over once our part is
 * delivered (at 10% loss, 2x3: 136 ms a call against 236, 8 runs each).
 * The agent rank's worker is where that matters: the ToR sends it no
 * results, its agent relays each copy over the host's loopback
 * (core/agent_cache.c, relay_to_host()), and at the job's 20 ms timer, at 10%
 * loss a 2x3 rack's agent rank finished each call 50-160 ms after the
 * rack's other workers, which then waited for it in the next. Before
 * that, only a stall of RINA_NACK_STALL slot timers asks: a
 * contribution whose ACK we missed may complete only with its chunk's
 * result, which the agent may hold after a ToR went.
 */
static __u64 nack_at(const struct iw_call *k)
{
	const struct rina_iw_cfg *cfg = &k->w->cfg;
	__u64 slot = rina_path_rto_slot(cfg->path, cfg->rto_us), wait, at;

	if (k->got_done < k->nct) {
		at = k->last_progress + RINA_NACK_STALL * slot;
		wait = slot;
	} else {
		wait = rina_backoff_us(2 * cfg->path->rtt.base_us, k->nacks,
				       slot);
		at = k->last_progress + wait;
	}
	return at > k->last_nack + wait ? at : k->last_nack + wait;
}

/*
 * No progress for a quarter of the timeout: tell the agent, every eighth
 * while it lasts (RINA_CTRL_STALL). With the ToR adding the rack the
 * agent sees no contributions; the workers that report are there, and
 * one that does not is the silent one it names (core/agent_agg.c).
 */
static void stall(struct iw_call *k, __u64 now)
{
	struct rina_iw *w = k->w;
	__u64 quarter = (__u64)w->cfg.timeout_ms * 1000 / 4;

	if (now - k->last_progress < quarter ||
	    now - k->last_stall < quarter / 2)
		return;
	w->ops->stalled(w->ctx);
	k->last_stall = now;
}

/* NACKs and stall reports that are due; *wait_us: until the next. */
void iw_nack_and_stall(struct iw_call *k, __u64 *wait_us)
{
	__u64 now = iw_now(k->w), at;

	if (k->got_ag < k->expect_ag) {
		at = nack_at(k);
		if (at <= now) {
			nack(k);
			k->last_nack = now;
			k->nacks++;
			at = nack_at(k);
		}
		if (at - now < *wait_us)
			*wait_us = at - now;
	}
	stall(k, now);
	if (k->txq.full && *wait_us > RINA_TXQ_WAIT_US)
		*wait_us = RINA_TXQ_WAIT_US;
}
