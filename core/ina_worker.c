// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The INA worker engine's life and receiving side: a call's start and
 * end, the results, ACKs and requests the agent's address sends it, and
 * what a lost ToR changes. ina_worker_tx.c sends. core/ina_worker.h
 * explains the engine.
 */
#include "ina_worker_int.h"
#include "ackq.h"
#include "bitmap.h"

static void *iw_zalloc(const struct rina_iw *w, __u64 size)
{
	return rina_engine_zalloc(w->ops, w->ctx, size);
}

static void iw_free(const struct rina_iw *w, void *p)
{
	rina_engine_free(w->ops, w->ctx, p);
}

struct rina_iw *rina_iw_create(const struct rina_iw_cfg *cfg,
			       const struct rina_engine_ops *ops, void *ctx)
{
	struct rina_iw *w = ops->zalloc(ctx, sizeof(*w));

	if (!w)
		return NULL;
	w->cfg = *cfg;
	w->ops = ops;
	w->ctx = ctx;
	return w;
}

static void call_free(struct rina_iw *w, struct iw_call *k)
{
	__u32 j;

	for (j = 0; k->ct && j < k->nct; j++)
		iw_free(w, k->ct[j].kept);
	iw_free(w, k->ct);
	iw_free(w, k->ct_of_seq);
	iw_free(w, k->agmap);
	iw_free(w, k->ovfmap);
	iw_free(w, k->rack);
	iw_free(w, k->probed);
	iw_free(w, k);
}

void rina_iw_destroy(struct rina_iw *w)
{
	if (!w)
		return;
	if (w->k)
		call_free(w, w->k);
	iw_free(w, w);
}

/* ---- receiving --------------------------------------------------- */

/* Our contribution to allgather packet "id" is delivered. */
static void ag_done(struct iw_call *k, const struct rina_pkt_id *id, int ce)
{
	__u32 sr = rina_seq(&k->s, id->block, id->chunk, id->pkt, 0);

	if (k->ct_of_seq[sr])
		iw_contrib_done(k, k->ct_of_seq[sr] - 1, ce);
}

/*
 * Our own chunk's result from the ToR does not complete our contribution
 * (rx_ag()): it may go again, and acc, which the result overwrites, held
 * it. Keep a copy for that. Resent with the result in its place, it was
 * added as a contribution into a slot built anew: the agent's, after the
 * ToR went (rina_iw_tor_lost() resends everything not delivered), whose
 * result a rank that lacked the ToR's then took (issue 49's soak: one
 * rank, 15 packets of an int32 call wrong). 0, or -1 without memory.
 */
static int keep_contrib(struct iw_call *k, const struct rina_pkt_id *id,
			__u64 off, __u32 len)
{
	__u32 sr = rina_seq(&k->s, id->block, id->chunk, id->pkt, 0);
	struct iw_contrib *x;

	if (!k->ct_of_seq[sr])
		return 0;
	x = &k->ct[k->ct_of_seq[sr] - 1];
	if (x->done || x->kept)
		return 0;
	x->kept = iw_zalloc(k->w, (__u64)len * 4);
	if (!x->kept)
		return -1;
	rina_memcpy(x->kept, k->acc + off, (__u64)len * 4);
	return 0;
}

static int rx_ag(struct iw_call *k, const struct rina_hdr *h, __u8 ecn)
{
	struct rina_iw *w = k->w;
	const struct rina_sched *s = &k->s;
	__u32 seq = rina_ntohl(h->seq), len, own = rina_own_chunk(k->i, s->L);
	int ce = ecn == RINA_ECN_CE;
	struct rina_pkt_id id;
	__u64 off;

	if (h->dtype_op != k->dtype_op || seq >= s->seqs)
		return RINA_IW_E_MISMATCH;
	rina_seq_decode(s, seq, &id);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	if (!id.ag || rina_ntohs(h->n_elem) != rina_wire_elems(len) ||
	    (!len && !s->pad) ||
	    rina_ntohs(h->num_contrib) != w->cfg.n_ranks) {
		w->st.rx_malformed++;
		return 0;
	}
	if (rina_bit_test_and_set(k->agmap, seq)) {
		w->st.duplicates++;
		/*
		 * The ToR's copy came first, then it went: the agent's own
		 * emission of the result is what completes the contribution.
		 */
		if (id.chunk != own || !(h->flags & RINA_F_FROM_SWITCH))
			ag_done(k, &id, ce);
		return 0;
	}
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	if (id.chunk == own && (h->flags & RINA_F_FROM_SWITCH) &&
	    keep_contrib(k, &id, off, len))
		return RINA_IW_E_NOMEM;
	w->cfg.agg->load_be(k->acc + off, (const __be32 *)(h + 1), len);
	if ((h->flags & RINA_F_OVERFLOW) && len)
		rina_bit_test_and_set(k->ovfmap, (__u32)(off / s->E));
	k->got_ag++;
	k->nacks = 0;
	k->last_progress = iw_now(w);
	w->st.rx_ce += ce;
	/*
	 * A final result holds every rank's contribution, ours included:
	 * whatever ACK of it we missed, nobody needs it re-emitted (after a
	 * ToR went, the downstream member that could re-ACK it may be done
	 * with the call). The rack's own chunk from the ToR completes the
	 * contribution only once the agent says it holds the result too
	 * (rx_ack()): until then a retransmission is what makes the ToR
	 * send it again.
	 */
	if (id.chunk != own || !(h->flags & RINA_F_FROM_SWITCH))
		ag_done(k, &id, ce);
	return 0;
}

/*
 * ACKs the agent sends the rack: the downstream member's ACKs of the
 * partials (reduce-scatter seqs), and, with AG_PHASE | OWN_FINAL, the
 * own-chunk results it holds (allgather seqs).
 */
static void rx_ack(struct iw_call *k, const struct rina_hdr *h)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), own = rina_own_chunk(k->i, k->s.L);
	int held = h->flags & RINA_F_AG_PHASE;
	int ce = !!(h->flags & RINA_F_ECN_ECHO);
	struct rina_pkt_id id;

	k->w->st.rx_acks++;
	if (held && !(h->flags & RINA_F_OWN_FINAL))
		return;
	for (j = 0; j < n; j++) {
		__u32 seq = rina_ntohl(seqs[j]);

		if (seq >= k->s.seqs)
			continue;
		if (held) {
			rina_seq_decode(&k->s, seq, &id);
			if (!id.ag || id.chunk != own)
				continue;
			seq = rina_seq(&k->s, id.block, id.chunk, id.pkt, 0);
		}
		if (k->ct_of_seq[seq])
			iw_contrib_done(k, k->ct_of_seq[seq] - 1, ce);
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
void rina_iw_tor_lost(struct rina_iw *w)
{
	struct iw_call *k = w->k;
	__u64 rto = iw_first_rto(w);
	__u32 j;

	rina_cc_retx_restart(&w->cfg.path->cc);
	if (!k)
		return;
	k->probes = 0;
	/*
	 * the probe timeout too: due from the silence, a probe pass went
	 * first and took the credit, one contribution a step, out of order
	 * (6 probes beside 13 orphans, core_ina_worker)
	 */
	k->last_probe = iw_now(w);
	k->retx_pos = k->first_open;
	for (j = k->first_open; j < k->next_send; j++) {
		struct iw_contrib *x = &k->ct[j];

		if (x->done || !x->sent)
			continue;
		x->orphaned = 1;	/* resent whatever its deadline */
		if (x->rto > rto)
			x->rto = rto;
	}
}

void rina_iw_agg_changed(struct rina_iw *w)
{
	rina_cc_retx_restart(&w->cfg.path->cc);
}

/*
 * The agent asks the rack again for reduce-scatter seqs (a NACK without
 * AG_PHASE): after a ToR went, the member downstream of ours may lack a
 * result our ToR completed, or upstream its ACK (core/agent_agg.c,
 * ask_again()); and while it adds the rack itself, a slot lacks our part
 * although our later ones came (gap_nack()). Resend what we sent of them,
 * delivered or not: a part sent once at once, for the agent saw a later
 * one of ours arrive first, which on one path means this one was lost
 * (a loss found, as RACK would, for the window and lossy()); one sent
 * again at most once per RINA_PTO_MIN_US. Our ToR re-emits a slot it
 * holds done, and takes what it lacks; the agent adds it into a slot it
 * builds anew. acc holds the contribution until the chunk's final result
 * overwrites it: never after that, which would add the result as a
 * contribution (the own chunk's, which the ToR's result does not
 * complete, resends from the copy keep_contrib() made).
 */
static int rx_resend(struct iw_call *k, const struct rina_hdr *h)
{
	struct rina_iw *w = k->w;
	struct rina_path *path = w->cfg.path;
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), seq;
	__u64 now = iw_now(w);
	struct rina_pkt_id id;
	struct iw_contrib *x;
	int ret;

	for (j = 0; j < n; j++) {
		seq = rina_ntohl(seqs[j]);
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
			path->last_loss_us = now;
			rina_cc_on_loss(&path->cc, &path->rtt, now);
		}
		ret = iw_send_contrib(k, x, 1);
		if (ret)
			return ret;
		w->st.resent_asked++;
	}
	return iw_flush(k);
}

int rina_iw_rx(struct rina_iw *w, const struct rina_hdr *h, __u8 from,
	       __u8 ecn, int stashed)
{
	struct iw_call *k = w->k;
	unsigned int op = rina_hdr_opcode(h);
	int rc;

	if (!(from & RINA_PEER_NEXT)) {
		w->st.rx_foreign++;	/* only the agent's address talks */
		return 0;
	}
	rc = rina_round_cmp(rina_ntohs(h->round), k->round);
	if (rc < 0) {
		w->st.rx_stale++;
		return 0;
	}
	if (rc > 0)
		return rc == 1 && !stashed ? RINA_IW_STASH : 0;
	if (op == RINA_OP_ACK) {
		rx_ack(k, h);
		return 0;
	}
	if (op == RINA_OP_AG_DATA) {
		w->st.rx_data++;
		return rx_ag(k, h, ecn);
	}
	if (op == RINA_OP_NACK && !(h->flags & RINA_F_AG_PHASE))
		return rx_resend(k, h);
	w->st.rx_malformed++;
	return 0;
}

/* ---- the call ---------------------------------------------------- */

static int setup(struct iw_call *k, __u64 count)
{
	struct rina_iw *w = k->w;
	const struct rina_sched *s = &k->s;
	__u32 L = s->L, t, p, c;
	__u64 b;

	k->ovf_words = RINA_BITMAP_WORDS(count / s->E + 1);
	k->ct = iw_zalloc(w, (s->nblocks * L * s->P + 1) * sizeof(*k->ct));
	k->ct_of_seq = iw_zalloc(w, ((__u64)s->seqs + 1) * sizeof(__u32));
	k->agmap = iw_zalloc(w, (RINA_BITMAP_WORDS(s->seqs) + 1) * 8);
	k->ovfmap = iw_zalloc(w, (__u64)k->ovf_words * 8);
	k->rack = iw_zalloc(w, L * sizeof(*k->rack));
	k->probed = iw_zalloc(w, L * sizeof(*k->probed));
	if (!k->ct || !k->ct_of_seq || !k->agmap || !k->ovfmap || !k->rack ||
	    !k->probed)
		return RINA_IW_E_NOMEM;
	for (b = 0; b < s->nblocks; b++)
		for (t = 0; t < L; t++) {
			c = rina_sr_chunk(k->i, t, L);
			for (p = 0; p < s->P; p++) {
				struct iw_contrib *x = &k->ct[k->nct];

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

int rina_iw_start(struct rina_iw *w, __s32 *acc, __u64 count,
		  __u8 dtype_op, __u16 round, __u32 slot_base)
{
	const struct rina_iw_cfg *cfg = &w->cfg;
	struct iw_call *k;
	int ret;

	k = iw_zalloc(w, sizeof(*k));
	if (!k)
		return RINA_IW_E_NOMEM;
	w->k = k;
	k->w = w;
	k->acc = acc;
	k->dtype_op = dtype_op;
	k->i = cfg->member;
	k->round = round;
	k->slot_base = slot_base;
	k->windowed = cfg->windowed;
	k->only_ina = k->windowed && rina_ring_only_ina(cfg->ring);
	/*
	 * In a ring of INA racks only, a slot completes when the next rack
	 * is done with it too: even the lowest delivery time of a round
	 * trip holds that rack's lag, a part of the ring's pipeline and no
	 * queue of ours, and over the delay target it cut the window 50
	 * times a run (4x2, 25 Mbit/s: the links at 0.79, 1.43x plain RAR;
	 * 1.53-1.64x without those cuts, performance-notes.md, "The
	 * workers' delay cuts in a ring of INA racks"). What the delay
	 * signal was there for, this worker's own host queue, the txq
	 * bound below keeps short. Loss and ECN still cut.
	 */
	w->cfg.path->cc.qmin_lag_only = k->only_ina;
	/*
	 * 2 (P + 1) packets of 1102 bytes are 70 KB: more than a 20 ms
	 * queue at 25 Mbit/s, which dropped 1000-1500 of a worker's
	 * contributions in 4 calls of a shaped 4x2 ring
	 */
	k->txq.limit = rina_txq_limit(cfg->txq_limit, k->only_ina);
	if (rina_sched_call(&k->s, count, cfg->ring->L, cfg->elems,
			    cfg->window, 1))
		return RINA_IW_E_TOO_LARGE;
	ret = setup(k, count);
	if (ret)
		return ret;
	k->last_progress = iw_now(w);
	k->last_done = k->last_progress;
	return 0;
}

int rina_iw_pump(struct rina_iw *w, __u64 *wait_us)
{
	struct iw_call *k = w->k;
	int ret;

	ret = iw_pump(k);
	if (!ret)
		ret = iw_retransmit(k, wait_us);
	if (ret)
		return ret;
	iw_nack_and_stall(k, wait_us);
	return 0;
}

int rina_iw_done(const struct rina_iw *w)
{
	const struct iw_call *k = w->k;

	return k->got_ag >= k->expect_ag && k->got_done >= k->nct;
}

int rina_iw_finish(struct rina_iw *w, int failed)
{
	struct iw_call *k = w->k;
	int ret = 0;
	__u32 j;

	if (!k)
		return 0;
	if (!failed && k->ovfmap)
		for (j = 0; j < k->ovf_words; j++)
			if (k->ovfmap[j])
				ret = RINA_IW_E_OVERFLOW;
	w->k = NULL;
	call_free(w, k);
	return ret;
}

const struct rina_sched *rina_iw_sched(const struct rina_iw *w)
{
	return &w->k->s;
}

void rina_iw_progress(const struct rina_iw *w, struct rina_iw_progress *p)
{
	const struct iw_call *k = w->k;

	p->got_ag = k->got_ag;
	p->expect_ag = k->expect_ag;
	p->got_done = k->got_done;
	p->nct = k->nct;
	p->last_us = k->last_progress;
}

int rina_iw_xmit_errno(const struct rina_iw *w)
{
	return w->xmit_errno;
}

void rina_iw_take_stats(struct rina_iw *w, struct rina_engine_stats *st)
{
	*st = w->st;
	rina_memset(&w->st, 0, sizeof(w->st));
}
