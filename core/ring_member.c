// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ring member engine's life and receiving side: a call's start and
 * end, the data, ACKs and requests it receives, the ACKs it owes
 * upstream, and the result it keeps for an INA rack upstream.
 * ring_member_tx.c sends. core/ring_member.h explains the engine.
 */
#include "ring_member_int.h"
#include "bitmap.h"
#include "hdr.h"

struct rina_rm *rina_rm_create(const struct rina_rm_cfg *cfg,
			       const struct rina_engine_ops *ops, void *ctx)
{
	struct rina_rm *m = ops->zalloc(ctx, sizeof(*m));

	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->ops = ops;
	m->ctx = ctx;
	return m;
}

static void call_free(struct rina_rm *m, struct rm_call *k)
{
	rm_free(m, k->rxmap);
	rm_free(m, k->ackmap);
	rm_free(m, k->ovfmap);
	rm_free(m, k->outpos);
	rm_free(m, k->fwdq);
	rm_free(m, k->fwd_head);
	rm_free(m, k->fwd_tail);
	rm_free(m, k->sr_ready);
	rm_free(m, k->sr_done);
	rm_free(m, k->sr_acked);
	rm_free(m, k->ord_rack);
	rm_free(m, k->out);
	rm_free(m, k);
}

void rina_rm_destroy(struct rina_rm *m)
{
	if (!m)
		return;
	if (m->k)
		call_free(m, m->k);
	rm_free(m, m->kept.acc);
	rm_free(m, m->kept.ovfmap);
	rm_free(m, m);
}

/* ---- ACKs to upstream -------------------------------------------- */

int rina_rm_flush(struct rina_rm *m)
{
	struct rina_hdr *h = (struct rina_hdr *)m->ackbuf;
	struct rina_engine_msg msg = { .buf = h, .to = RINA_PEER_PREV };

	if (!m->ack.n)
		return 0;
	rina_hdr_fill(h, RINA_OP_ACK, m->cfg.job_id, m->ack.round,
		      m->cfg.rank);
	msg.len = rina_ackq_build(&m->ack, h);
	/* a lost ACK is repaired by the sender's resend: no error here */
	if (m->ops->xmit(m->ctx, &msg, 1) > 0) {
		m->st.tx_acks++;
		m->st.ack_tx_bytes += msg.len + RINA_FRAME_OVERHEAD;
	}
	return 0;
}

static void ack_queue(struct rina_rm *m, const struct rina_hdr *data,
		      __u8 ecn)
{
	__u16 round = rina_ntohs(data->round);
	/* which copy came: the sender's RACK (rack_time()) */
	__u8 flags = rina_ack_flags(data, ecn) | (data->flags & RINA_F_RETX);

	if (flags & RINA_F_ECN_ECHO)
		m->st.rx_ce++;
	if (rina_ackq_breaks(&m->ack, 1, round, flags, m->cfg.elems))
		rina_rm_flush(m);
	rina_ackq_add(&m->ack, round, flags, data->seq);
}

/* ---- receiving --------------------------------------------------- */

static int mismatch(struct rm_call *k, const struct rina_hdr *h,
		    const char *what)
{
	k->m->err.src = rina_ntohs(h->src_id);
	k->m->err.what = what;
	return RINA_RM_E_MISMATCH;
}

static int rx_data(struct rm_call *k, const struct rina_hdr *h, __u8 from,
		   __u8 ecn)
{
	struct rina_rm *m = k->m;
	const struct rina_agg_ops *agg = m->cfg.agg;
	const struct rina_sched *s = &k->s;
	__u32 L = s->L, seq = rina_ntohl(h->seq), len, own;
	int ag = rina_hdr_opcode(h) == RINA_OP_AG_DATA;
	const __be32 *pl = (const __be32 *)(h + 1);
	struct rina_pkt_id id;
	__u64 off, pktno;

	if (!(from & RINA_PEER_PREV) ||
	    rina_hdr_opcode(h) == RINA_OP_SR_CONTRIB ||
	    !(ag ? k->ag : k->rs)) {
		m->st.rx_foreign++;
		return 0;
	}
	if (h->dtype_op != k->dtype_op)
		return mismatch(k, h, "data type or operation");
	if (seq >= s->seqs)
		return mismatch(k, h, "element count");
	rina_seq_decode(s, seq, &id);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	if (id.ag != (__u32)ag || rina_ntohs(h->chunk) != id.chunk ||
	    rina_ntohs(h->p_chunk) != s->P)
		return mismatch(k, h, "element count");
	if (rina_ntohs(h->n_elem) != rina_wire_elems(len) ||
	    (!len && !s->pad))
		return mismatch(k, h, "element count");
	/* a sender with another root counts the hops from it */
	if (ag && k->bc &&
	    h->hop != (__u8)((k->i + L - k->root) % L))
		return mismatch(k, h, "broadcast root");
	own = rina_own_chunk(k->i, L);
	if ((!ag && id.chunk == k->i) ||
	    (ag && rm_ag_origin(k, id.chunk) == k->i)) {
		m->st.rx_malformed++;	/* never sent to us by the schedule */
		return 0;
	}
	if (ag ? rina_ntohs(h->num_contrib) != m->cfg.n_ranks :
	    rina_ntohs(h->num_contrib) !=
	    rm_contrib_upto(m, id.chunk, rina_ring_prev(m->cfg.ring, k->i))) {
		m->st.rx_malformed++;
		return 0;
	}
	ack_queue(m, h, ecn);
	if (rina_bit_test_and_set(k->rxmap, seq)) {
		m->st.duplicates++;
		return 0;
	}
	k->got_rx++;
	k->last_progress = rm_now(m);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	pktno = off / s->E;
	if ((h->flags & RINA_F_OVERFLOW) && len)
		rina_bit_test_and_set(k->ovfmap, (__u32)pktno);
	if (ag) {
		agg->load_be(k->acc + off, pl, len);
		if (rm_forwards_ag(k, id.chunk))
			rm_fwd_push(k, seq);
		return 0;
	}
	if (k->op_max)
		agg->max_be(k->acc + off, pl, len);
	else if (agg->add_be(k->acc + off, pl, len))
		rina_bit_test_and_set(k->ovfmap, (__u32)pktno);
	if (id.chunk == own) {	/* fully reduced: start its allgather */
		if (k->ag)
			rm_fwd_push(k, rina_seq(s, id.block, id.chunk,
						id.pkt, 1));
	} else if (k->ordwin) {
		rina_bit_test_and_set(k->sr_ready,
				      (__u32)rm_recv_ordinal(k, seq));
	} else {
		rm_fwd_push(k, seq);
	}
	return 0;
}

/*
 * The send time an ACK of e moves RACK to (0: none). A packet sent once:
 * its time. A resent one's ACK may be its first copy's, late, and taking
 * the resend's time for it judges lost every packet sent between the two
 * copies and still in flight. A ring member's ACK says which copy came
 * (RINA_F_RETX on an ACK: every seq it lists arrived resent), so between
 * plain members a first copy's ACK moves RACK to the first copy's time,
 * a resend's to the resend's, as RACK means (RFC 8985 and TCP's
 * timestamps tell the two apart the same way). Plain 2x4 at 25 Mbit/s,
 * where a probe fires on an ACK late behind the downstream member's own
 * data, a probe's first-copy ACK sent every packet still in flight again
 * (performance-notes.md, "A plain member's probe timeout"). Elsewhere:
 * - towards an INA member, where ACKs wait for the slots and the
 *   aggregator says nothing of copies, and right after one, never
 *   (Karn): there our next member's ACKs reach us behind the
 *   rack's output in our downlink's queue (rx_ack()), so a timer resends
 *   a packet whose first copy's ACK is on its way. Taking the resend's
 *   time for it, a member after a rack resent some 200 packets a call,
 *   all of them duplicates at the next member (a shaped 4x2 ring with
 *   racks 0-2 INA, 10 timeouts a call); taking it only from half an RTT
 *   after the resend (RFC 8985 6.2) still let 0-43 through a call on a
 *   mixed 4x2 ring (performance-notes.md, "A late ACK of a resent
 *   packet").
 * The resend's ACK must move RACK between plain members: a full window of
 * resent packets has no other ACK to find a lost resend by (plain RAR at
 * 1% loss: 240 ms a call with Karn's rule, 59 with the half-RTT one, 32
 * without).
 */
static __u64 rack_time(const struct rm_call *k, const struct rm_out *e,
		       int resend_came)
{
	if (!e->tries)
		return e->t_sent;
	if (k->ordwin || k->after_ina)
		return 0;
	return resend_came ? e->t_sent : e->t_first;
}

static void rx_ack(struct rm_call *k, const struct rina_hdr *h, __u8 from)
{
	struct rina_rm *m = k->m;
	struct rina_path *path = m->cfg.path;
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), acked = 0;
	__u64 now = rm_now(m), sample = 0, t;
	struct rm_out *e;

	m->st.rx_acks++;
	if (!(from & RINA_PEER_NEXT)) {
		m->st.rx_foreign++;
		return;
	}
	if (rina_round_cmp(rina_ntohs(h->round), k->round)) {
		m->st.rx_stale++;
		return;
	}
	for (j = 0; j < n; j++) {
		__u32 seq = rina_ntohl(seqs[j]);

		if (seq >= k->s.seqs || !k->outpos[seq])
			continue;	/* late duplicate ACK */
		e = &k->out[k->outpos[seq] - 1];
		/*
		 * Only clean samples: a packet sent once, or (Karn's
		 * ambiguity gone) the first copy's ACK between plain
		 * members, whose late round trip is the one a probe
		 * timeout must learn
		 */
		if (!e->tries || (!k->ordwin && !k->after_ina &&
				  !(h->flags & RINA_F_RETX))) {
			__u64 rtt = now - e->t_first;

			rina_path_rtt(path, rtt, now);
			/*
			 * The batch's youngest packet waited least for the
			 * ACK batching: its RTT is the queue's
			 */
			if (!sample || rtt < sample)
				sample = rtt;
		}
		t = rack_time(k, e, h->flags & RINA_F_RETX);
		if (t)
			rina_rack_acked(rm_rack_of(k, e), t);
		rm_out_remove(k, seq);
		rina_bit_test_and_set(k->ackmap, seq);
		if (k->ordwin && !rina_seq_is_ag(&k->s, seq)) {
			rina_bit_test_and_set(k->sr_acked,
					      (__u32)rm_recv_ordinal(k, seq));
			rm_ord_advance(k);
		}
		k->got_ack++;
		acked++;
		k->last_progress = now;
		k->last_ack = now;
		k->probes = 0;
	}
	/*
	 * Towards an INA member an ACK waits for the slot to complete, i.e.
	 * for the ring, not the queue: no delay signal there. Nor right
	 * after one: the next member's ACKs reach us through our host's
	 * downlink, behind the rack's results, and what feeds the rack
	 * (its workers, the member upstream of it) is driven by loss, so
	 * that queue stays full; the delay it adds is not our path's. With
	 * it the member downstream of the rack kept a window of 8-20
	 * packets and a backlog of 1000 (mixed 2x4, 25 Mbit/s).
	 */
	/*
	 * The batch's sample also tells the controller whether a queue
	 * stands on the path (rina_cc_rtt_sample()): a loss that found
	 * none is no congestion, and does not cut. Every loss cut before:
	 * at 10% random loss a plain 2x3 ring's windows sat at 3-7
	 * packets of 256, and the call took 7-27x its lossless time (INA
	 * workers, which sample so, 2.7x). Not where the delay is not the
	 * path's (above).
	 */
	if (sample && !k->ordwin && !k->after_ina)
		rina_cc_rtt_sample(&path->cc, sample, &path->rtt, now);
	m->st.ce_acked += rina_ack_ce(h, acked);
	rina_cc_on_ack(&path->cc, acked, rina_ack_ce(h, acked),
		       k->ordwin || k->after_ina ? 0 : sample, &path->rtt,
		       now);
}

/*
 * What to send an INA member that asks for seq (rx_ask()), or
 * 0xffffffff. acc holds a partial we sent until its chunk's result
 * overwrites it, and holds that result once it came. A partial still
 * unacknowledged is resent at once, its timer kept (not doubled: the
 * asker said what it lacks), unless it left less than RINA_PTO_MIN_US
 * ago. A partial whose result we hold is answered with the result, which
 * we forward anyway (rm_pump() may hold it back behind partials that
 * wait for the asker).
 */
static __u32 answer_seq(struct rm_call *k, __u32 seq, int ag, __u64 now)
{
	__u32 L = k->s.L, agseq;
	struct rina_pkt_id id;
	struct rm_out *e;

	rina_seq_decode(&k->s, seq, &id);
	if (ag)
		return id.ag && rina_bit_test(k->rxmap, seq) ? seq :
		       0xffffffffU;
	if (id.ag)
		return 0xffffffffU;
	agseq = rina_seq_ag_of(L, k->s.P, seq);
	if (rina_bit_test(k->rxmap, agseq))
		return rm_forwards_ag(k, id.chunk) ? agseq : 0xffffffffU;
	if (!k->outpos[seq])
		return rina_bit_test(k->ackmap, seq) ? seq : 0xffffffffU;
	e = &k->out[k->outpos[seq] - 1];
	if (now - e->t_sent < RINA_PTO_MIN_US)
		return 0xffffffffU;
	e->tries++;
	e->t_sent = now;
	e->deadline = now + e->rto;
	return seq;
}

/*
 * Upstream's agent asks for its own chunk's result of the call we left
 * (struct rm_kept): answer from the copy. The packets are built as that
 * call built them (rm_emit()), through a call of their own, since
 * rm_emit() reads the call's schedule, data and round.
 */
static int rx_ask_kept(struct rm_call *k, const struct rina_hdr *h)
{
	struct rina_rm *m = k->m;
	const struct rm_kept *kp = &m->kept;
	const __be32 *seqs = (const __be32 *)(h + 1);
	__u32 j, n = rina_ntohs(h->n_elem), seq;
	struct rina_pkt_id id;
	struct rm_call *o;
	int ret;

	ret = rm_flush_tx(k);	/* o's packets are built in the same txbuf */
	if (ret)
		return ret;
	o = rm_zalloc(m, sizeof(*o));
	if (!o)
		return 0;	/* the agent asks again */
	o->m = m;
	o->s = kp->s;
	o->acc = kp->acc;
	o->ovfmap = kp->ovfmap;
	o->round = kp->round;
	o->dtype_op = kp->dtype_op;
	o->i = k->i;
	for (j = 0; j < n && !ret; j++) {
		seq = rina_ntohl(seqs[j]);
		if (seq >= kp->s.seqs)
			continue;
		rina_seq_decode(&kp->s, seq, &id);
		if (!id.ag || id.chunk != kp->chunk ||
		    !rina_pkt_sent(&kp->s, id.block, id.chunk, id.pkt))
			continue;
		ret = rm_emit(o, seq, 1);
		if (ret)
			break;
		o->tx[o->ntx - 1].to = RINA_PEER_PREV;
		m->st.resent_asked++;
	}
	if (!ret)
		ret = rm_flush_tx(o);
	rm_free(m, o);
	return ret;
}

/*
 * An INA member whose ToR died in full flight of a call asks again for
 * what that ToR had taken, ACKed or emitted and lost (core/agent_agg.c,
 * ask_again()): downstream, partials we sent it (a NACK of reduce-scatter
 * seqs, no AG_PHASE); upstream, its own chunk's result, which passed us
 * (an AG_PHASE NACK). Send what acc holds of them to whoever asked.
 * Once we left that call, only upstream's own-chunk result of the last
 * call can still be given (rx_ask_kept()).
 */
static int rx_ask(struct rm_call *k, const struct rina_hdr *h, __u8 from)
{
	struct rina_rm *m = k->m;
	const __be32 *seqs = (const __be32 *)(h + 1);
	int ag = h->flags & RINA_F_AG_PHASE;
	__u32 j, n = rina_ntohs(h->n_elem), seq;
	__u8 asker = ag ? RINA_PEER_PREV : RINA_PEER_NEXT;
	__u64 now = rm_now(m);
	int ret;

	if (!(from & asker)) {
		m->st.rx_foreign++;
		return 0;
	}
	if (rina_round_cmp(rina_ntohs(h->round), k->round)) {
		if (ag && m->kept.valid &&
		    rina_ntohs(h->round) == m->kept.round)
			return rx_ask_kept(k, h);
		m->st.rx_stale++;
		return 0;
	}
	if (!ag)
		k->asked = 1;
	for (j = 0; j < n; j++) {
		seq = rina_ntohl(seqs[j]);
		if (seq >= k->s.seqs)
			continue;
		seq = answer_seq(k, seq, ag, now);
		if (seq == 0xffffffffU)
			continue;
		ret = rm_emit(k, seq, 1);
		if (ret)
			return ret;
		k->tx[k->ntx - 1].to = asker;
		m->st.resent_asked++;
	}
	return rm_flush_tx(k);
}

int rina_rm_rx(struct rina_rm *m, const struct rina_hdr *h, __u8 from,
	       __u8 ecn, int stashed)
{
	struct rm_call *k = m->k;
	unsigned int op = rina_hdr_opcode(h);
	int rc;

	if (op == RINA_OP_ACK) {
		rx_ack(k, h, from);
		return 0;
	}
	if (op == RINA_OP_NACK)
		return rx_ask(k, h, from);
	if (op != RINA_OP_SR_PARTIAL && op != RINA_OP_AG_DATA) {
		m->st.rx_malformed++;
		return 0;
	}
	m->st.rx_data++;
	rc = rina_round_cmp(rina_ntohs(h->round), k->round);
	if (rc < 0) {
		/* an earlier call's: the sender missed our ACK */
		m->st.rx_stale++;
		if (from & RINA_PEER_PREV)
			ack_queue(m, h, ecn);
		return 0;
	}
	if (rc > 0)
		return rc == 1 && !stashed ? RINA_RM_STASH : 0;
	return rx_data(k, h, from, ecn);
}

/* ---- the call ---------------------------------------------------- */

static void count_expected(struct rm_call *k)
{
	const struct rina_sched *s = &k->s;
	__u32 L = s->L, own = rina_own_chunk(k->i, L), c, p;
	__u64 b;

	for (b = 0; b < s->nblocks; b++)
		for (c = 0; c < L; c++)
			for (p = 0; p < s->P; p++) {
				if (!rina_pkt_sent(s, b, c, p))
					continue;
				k->expect_rx += k->rs * (c != k->i) +
						k->ag *
						(rm_ag_origin(k, c) != k->i);
				k->expect_ack += k->rs * (c != own) +
						 k->ag * rm_forwards_ag(k, c);
			}
}

/*
 * An allgather alone (RINA_RM_AG): acc holds our own chunk reduced, so
 * its packets are ready to forward, and there is no step 0 to inject.
 * A broadcast's root holds every chunk, the others none.
 */
static void start_ag_only(struct rm_call *k)
{
	const struct rina_sched *s = &k->s;
	__u32 c, p;
	__u64 b;

	k->inj_b = s->nblocks;
	if (s->L < 2)
		return;
	for (b = 0; b < s->nblocks; b++)
		for (c = 0; c < s->L; c++)
			for (p = 0; p < s->P; p++)
				if (rm_ag_origin(k, c) == k->i &&
				    rina_pkt_sent(s, b, c, p))
					rm_fwd_push(k, rina_seq(s, b, c, p,
								1));
}

/* Towards an INA member: windows by the rack's ordinals. */
static int start_ordinals(struct rm_call *k)
{
	struct rina_rm *m = k->m;
	__u64 b, words;
	__u32 p;

	k->ordwin = 1;
	k->nord = k->s.nblocks * k->s.L * k->s.P;
	words = RINA_BITMAP_WORDS(k->nord);
	k->sr_ready = rm_zalloc(m, words * 8);
	k->sr_done = rm_zalloc(m, words * 8);
	k->sr_acked = rm_zalloc(m, words * 8);
	k->ord_rack = rm_zalloc(m, 2 * k->s.L * sizeof(*k->ord_rack));
	if (!k->sr_ready || !k->sr_done || !k->sr_acked || !k->ord_rack)
		return RINA_RM_E_NOMEM;
	/* our own step-0 data is ready from the start */
	for (b = 0; b < k->s.nblocks; b++)
		for (p = 0; p < k->s.P; p++)
			if (rina_pkt_sent(&k->s, b, k->i, p))
				rina_bit_test_and_set(k->sr_ready,
					(__u32)rm_recv_ordinal(k,
					rina_seq(&k->s, b, k->i, p, 0)));
	rm_ord_advance(k);
	return 0;
}

int rina_rm_start(struct rina_rm *m, __s32 *acc, __u64 count,
		  __u8 dtype_op, __u16 round, __u32 slot_base)
{
	const struct rina_rm_cfg *cfg = &m->cfg;
	const struct rina_ring *ring = cfg->ring;
	struct rm_call *k;
	__u32 words;
	int ret;

	k = rm_zalloc(m, sizeof(*k));
	if (!k)
		return RINA_RM_E_NOMEM;
	m->k = k;
	k->m = m;
	k->acc = acc;
	k->dtype_op = dtype_op;
	k->op_max = RINA_OP_OF(dtype_op) == RINA_WIRE_MAX;
	k->i = cfg->member;
	k->round = round;
	k->slot_base = slot_base;
	k->W = cfg->window;
	m->ack.n = 0;
	if (rina_sched_call(&k->s, count, ring->L, cfg->elems, cfg->window,
			    cfg->pad))
		return RINA_RM_E_TOO_LARGE;
	words = RINA_BITMAP_WORDS(k->s.seqs);
	k->ovf_words = RINA_BITMAP_WORDS(count / cfg->elems + 1);
	k->rxmap = rm_zalloc(m, (__u64)words * 8);
	k->ackmap = rm_zalloc(m, (__u64)words * 8);
	k->ovfmap = rm_zalloc(m, (__u64)k->ovf_words * 8);
	k->outpos = rm_zalloc(m, (__u64)k->s.seqs * 4);
	k->fwdq = rm_zalloc(m, (__u64)k->s.seqs * 4);
	k->fwd_head = rm_zalloc(m, k->s.nblocks * 4);
	k->fwd_tail = rm_zalloc(m, k->s.nblocks * 4);
	k->out = rm_zalloc(m, 2 * k->W * sizeof(*k->out));
	if (!k->rxmap || !k->ackmap || !k->ovfmap || !k->outpos ||
	    !k->fwdq || !k->fwd_head || !k->fwd_tail || !k->out)
		return RINA_RM_E_NOMEM;
	k->bc = !!(cfg->phases & RINA_RM_BC);
	k->root = cfg->root;
	k->rs = !k->bc && (!cfg->phases || (cfg->phases & RINA_RM_RS));
	k->ag = k->bc || !cfg->phases || (cfg->phases & RINA_RM_AG);
	if (k->bc && k->root >= ring->L) {	/* the host's mistake */
		m->err.src = cfg->rank;
		m->err.what = "broadcast root (not a member)";
		return RINA_RM_E_MISMATCH;
	}
	count_expected(k);
	if (!k->rs)
		start_ag_only(k);
	k->after_ina = ring->m[rina_ring_prev(ring, k->i)].ina;
	k->inject_first = cfg->pad && !k->after_ina;
	if (ring->m[rina_ring_next(ring, k->i)].ina && ring->L > 1) {
		ret = start_ordinals(k);
		if (ret)
			return ret;
	}
	/* the members that take no delay signal (rx_ack()) */
	k->txq.limit = rina_txq_limit(cfg->txq_limit,
				      k->after_ina || k->ordwin);
	k->last_progress = rm_now(m);
	k->last_ack = k->last_progress;
	return 0;
}

void rina_rm_phases(struct rina_rm *m, __u8 phases)
{
	m->cfg.phases = phases;
}

void rina_rm_broadcast(struct rina_rm *m, __u32 root)
{
	m->cfg.phases = RINA_RM_BC;
	m->cfg.root = root;
}

int rina_rm_pump(struct rina_rm *m, __u64 *wait_us)
{
	struct rm_call *k = m->k;
	int ret;

	ret = rm_pump(k);
	if (ret)
		return ret;
	ret = rm_retransmit(k, wait_us);
	if (ret)
		return ret;
	if (k->txq.full && *wait_us > RINA_TXQ_WAIT_US)
		*wait_us = RINA_TXQ_WAIT_US;
	return 0;
}

int rina_rm_done(const struct rina_rm *m)
{
	const struct rm_call *k = m->k;

	return k->s.L <= 1 || (k->got_rx >= k->expect_rx &&
			       k->got_ack >= k->expect_ack);
}

/* Copy upstream's own chunk of the call that just ended (rm_kept). */
static void keep_result(struct rm_call *k)
{
	struct rina_rm *m = k->m;
	struct rm_kept *kp = &m->kept;
	const struct rina_sched *s = &k->s;
	__u32 p;
	__u64 b, off;

	kp->valid = 0;
	if (s->count > kp->cap) {
		rm_free(m, kp->acc);
		kp->acc = rm_zalloc(m, s->count * sizeof(*kp->acc));
		kp->cap = kp->acc ? s->count : 0;
		if (!kp->acc)
			return;
	}
	if (k->ovf_words > kp->ovf_words) {
		rm_free(m, kp->ovfmap);
		kp->ovfmap = rm_zalloc(m, (__u64)k->ovf_words * 8);
		kp->ovf_words = kp->ovfmap ? k->ovf_words : 0;
		if (!kp->ovfmap)
			return;
	}
	kp->s = *s;
	kp->round = k->round;
	kp->dtype_op = k->dtype_op;
	kp->chunk = rina_own_chunk(rina_ring_prev(m->cfg.ring, k->i), s->L);
	for (b = 0; b < s->nblocks; b++)
		for (p = 0; p < s->P; p++) {
			off = rina_pkt_off(s, b, kp->chunk, p);
			rina_memcpy(kp->acc + off, k->acc + off,
				    rina_pkt_len(s, b, kp->chunk, p) *
				    sizeof(*kp->acc));
		}
	kp->valid = 1;
}

/*
 * Whether a sum of the call's result wrapped around. A reduce-scatter
 * alone leaves us our own chunk only: the partials of the others we
 * passed on are no result of ours, and their owner learns of a wrap
 * from the packet's flag. Counting them made a member fail for a sum
 * that is another member's result (and wrapped back into range there).
 */
static int overflowed(const struct rm_call *k)
{
	const struct rina_sched *s = &k->s;
	__u32 own = rina_own_chunk(k->i, s->L), p, j;
	__u64 b, off;

	if (k->ag || s->L < 2) {
		for (j = 0; j < k->ovf_words; j++)
			if (k->ovfmap[j])
				return 1;
		return 0;
	}
	for (b = 0; b < s->nblocks; b++)
		for (p = 0; p < s->P; p++) {
			off = rina_pkt_off(s, b, own, p);
			if (rina_pkt_len(s, b, own, p) &&
			    rina_bit_test(k->ovfmap, (__u32)(off / s->E)))
				return 1;
		}
	return 0;
}

int rina_rm_finish(struct rina_rm *m, int failed)
{
	struct rm_call *k = m->k;
	int ret = 0;

	if (!k)
		return 0;
	if (!failed && k->ovfmap && overflowed(k))
		ret = RINA_RM_E_OVERFLOW;
	if (!failed && !ret && k->after_ina && k->s.L > 1)
		keep_result(k);
	m->k = NULL;
	call_free(m, k);
	return ret;
}

const struct rina_sched *rina_rm_sched(const struct rina_rm *m)
{
	return &m->k->s;
}

void rina_rm_progress(const struct rina_rm *m, struct rina_rm_progress *p)
{
	const struct rm_call *k = m->k;

	p->got_rx = k->got_rx;
	p->expect_rx = k->expect_rx;
	p->got_ack = k->got_ack;
	p->expect_ack = k->expect_ack;
	p->last_us = k->last_progress;
	p->last_ack_us = k->last_ack;
	p->in_flight = k->nout;
}

const struct rina_rm_error *rina_rm_error(const struct rina_rm *m)
{
	return &m->err;
}

void rina_rm_take_stats(struct rina_rm *m, struct rina_engine_stats *st)
{
	*st = m->st;
	rina_memset(&m->st, 0, sizeof(m->st));
}
