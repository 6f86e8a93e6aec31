// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ring member's sending side: building packets from the
 * accumulator, the order they leave in, the windows that hold them, and
 * what is resent when (RACK and the timer). ring_member.c receives.
 */
#include "ring_member_int.h"
#include "bitmap.h"
#include "hdr.h"

int rm_flush_tx(struct rm_call *k)
{
	struct rina_rm *m = k->m;
	int ret;

	if (!k->ntx)
		return 0;
	ret = m->ops->xmit(m->ctx, k->tx, k->ntx);
	k->ntx = 0;
	if (ret < 0) {
		m->err.xmit_errno = -ret;
		return RINA_RM_E_XMIT;
	}
	return 0;
}

/* Contributions summed into chunk once member i has added its own. */
__u32 rm_contrib_upto(const struct rina_rm *m, __u32 chunk, __u32 i)
{
	/* members chunk, chunk+1, ..., i (cyclic) have added theirs */
	const __u32 *before = m->cfg.contrib_before;
	__u32 a = before[chunk], b = before[i] + m->cfg.ring->m[i].n_local;

	return b > a ? b - a : b + m->cfg.n_ranks - a;
}

/*
 * Whether allgather data of chunk goes on to the next member: not when
 * its allgather started there (the chunk's owner, a broadcast's root)
 * and has come all the way round.
 */
int rm_forwards_ag(const struct rm_call *k, __u32 chunk)
{
	return rm_ag_origin(k, chunk) !=
	       rina_ring_next(k->m->cfg.ring, k->i);
}

/* Build one data packet for seq from the accumulator. */
int rm_emit(struct rm_call *k, __u32 seq, int retx)
{
	struct rina_rm *m = k->m;
	const struct rina_rm_cfg *cfg = &m->cfg;
	const struct rina_sched *s = &k->s;
	__u32 L = s->L, nxt = rina_ring_next(cfg->ring, k->i);
	struct rina_pkt_id id;
	struct rina_hdr *h;
	__u64 off, pktno;
	__u32 len;
	int ret;

	if (k->ntx == RINA_ENGINE_BATCH) {
		ret = rm_flush_tx(k);
		if (ret)
			return ret;
	}
	rina_seq_decode(s, seq, &id);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	pktno = off / s->E;

	h = (struct rina_hdr *)(cfg->txbuf + (__u64)k->ntx * cfg->max_msg);
	rina_hdr_fill(h, id.ag ? RINA_OP_AG_DATA : RINA_OP_SR_PARTIAL,
		      cfg->job_id, k->round, cfg->rank);
	h->chunk = rina_htons((__u16)id.chunk);
	h->seq = rina_htonl(seq);
	h->n_elem = rina_htons((__u16)rina_wire_elems(len));
	h->p_chunk = rina_htons((__u16)s->P);
	h->dtype_op = k->dtype_op;
	if (id.ag) {
		/* hops travelled when it arrives downstream */
		h->hop = (__u8)((nxt + L - rm_ag_origin(k, id.chunk)) % L);
		h->step = h->hop;
		h->flags = RINA_F_AG_PHASE;
		h->num_contrib = rina_htons((__u16)cfg->n_ranks);
	} else {
		h->step = (__u8)rina_chunk_step(nxt, id.chunk, L);
		h->slot = rina_htons(rina_slot(k->slot_base,
					       rina_ordinal(s, nxt, id.block,
							    id.chunk, id.pkt)));
		h->num_contrib = rina_htons((__u16)rm_contrib_upto(m,
								   id.chunk,
								   k->i));
		if (id.chunk == rina_own_chunk(nxt, L))
			h->flags |= RINA_F_OWN_FINAL;
	}
	if (id.pkt == s->P - 1 || off + len >= s->count)
		h->flags |= RINA_F_LAST;
	if (retx)
		h->flags |= RINA_F_RETX;
	if (rina_bit_test(k->ovfmap, (__u32)pktno))
		h->flags |= RINA_F_OVERFLOW;
	cfg->agg->store_be((__be32 *)(h + 1), k->acc + off, len);
	if (!len)	/* padding: one zero word */
		*(__be32 *)(h + 1) = 0;

	k->tx[k->ntx].buf = h;
	k->tx[k->ntx].len = RINA_HDR_LEN + rina_wire_elems(len) * 4;
	k->tx[k->ntx].to = RINA_PEER_NEXT;
	k->ntx++;
	m->st.tx_data++;
	if (retx)
		m->st.retransmits++;
	return 0;
}

/* Next step-0 packet (chunk i of each block), or 0xffffffff. */
static __u32 next_inject(struct rm_call *k)
{
	const struct rina_sched *s = &k->s;

	while (k->inj_b < s->nblocks) {
		__u64 b = k->inj_b;
		__u32 p = k->inj_p;

		if (++k->inj_p == s->P) {
			k->inj_p = 0;
			k->inj_b++;
		}
		if (rina_pkt_sent(s, b, k->i, p))
			return rina_seq(s, b, k->i, p, 0);
	}
	return 0xffffffffU;
}

/* seq is ready to forward */
void rm_fwd_push(struct rm_call *k, __u32 seq)
{
	__u32 per_block = rina_block_seqs(&k->s);
	__u64 b = seq / per_block;

	k->fwdq[b * per_block + k->fwd_tail[b]++] = seq;
	k->nfwd++;
	if (b < k->fwd_lo)
		k->fwd_lo = b;
}

/*
 * What to send next, 0xffffffff if nothing: the oldest block first, and
 * in a block what we forward (it unblocks members downstream) before our
 * own step-0 packets, in the order it came. Not what came first: members
 * upstream run blocks ahead whenever they have nothing older to send,
 * and in arrival order their younger blocks' packets went out before the
 * old ones that an INA rack downstream completes its slots in (in block
 * order, rina_ordinal()): a mixed 4x2 ring at 25 Mbit/s had the rack
 * wait 100-550 ms at a time, up to a third of each call, while the
 * member upstream of it received blocks 3-9 at line rate and held its
 * window open for block 0.
 *
 * In a ring with INA members the plain members that no rack feeds
 * (inject_first) send their own packets of a block before what they
 * forward of it: in step order, as the rack's slots take a block's
 * chunks (rina_ordinal()). The member upstream of the rack windows by a
 * span of the rack's ordinals, and the chunk the rack takes after that
 * member's own is the previous member's own, then the one before's:
 * forwarded first, each reached it after the block's later steps, and it
 * sent nothing for them meanwhile. On a mixed 4x2 ring at 25 Mbit/s
 * (rack 0 INA) it idled 30-50 ms a block with 150-300 partials ready,
 * and the call took 1632-1661 ms against 1420-1457 now (racks 0 and 1
 * INA: 1538-1564 against 1415-1430; 2x4: 1346-1376 against 1290-1360;
 * performance-notes.md, "Step order towards an INA rack"). Not at a member
 * that forwards a rack's output (after_ina): the same order there made
 * 2x2 and 4x2 rings with one or three INA racks, whose only members
 * upstream of a rack are such, 5% and 13% slower.
 */
static __u32 next_send(struct rm_call *k)
{
	__u32 per_block = rina_block_seqs(&k->s);
	__u64 b;

	while (k->nfwd && k->fwd_head[k->fwd_lo] == k->fwd_tail[k->fwd_lo])
		k->fwd_lo++;
	if (k->nfwd &&
	    (k->ordwin || k->fwd_lo + k->inject_first <= k->inj_b)) {
		b = k->fwd_lo;
		k->nfwd--;
		return k->fwdq[b * per_block + k->fwd_head[b]++];
	}
	return k->ordwin ? 0xffffffffU : next_inject(k);
}

/* Receiver (next member) ordinal of reduce-scatter packet seq. */
__u64 rm_recv_ordinal(const struct rm_call *k, __u32 seq)
{
	return rina_seq_ordinal(&k->s, rina_ring_next(k->m->cfg.ring, k->i),
				seq);
}

/* Reduce-scatter seq of receiver ordinal o, or 0xffffffff if none. */
static __u32 ordinal_seq(const struct rm_call *k, __u64 o)
{
	const struct rina_sched *s = &k->s;
	__u32 nxt = rina_ring_next(k->m->cfg.ring, k->i), seq;
	struct rina_pkt_id id;

	seq = rina_ordinal_seq(s, nxt, o, &id);
	if (!rina_chunk_step(nxt, id.chunk, s->L) ||	/* its first step */
	    !rina_pkt_sent(s, id.block, id.chunk, id.pkt))
		return 0xffffffffU;	/* not sent by us */
	return seq;
}

void rm_ord_advance(struct rm_call *k)
{
	while (k->ord_base < k->nord &&
	       (rina_bit_test(k->sr_acked, (__u32)k->ord_base) ||
		ordinal_seq(k, k->ord_base) == 0xffffffffU))
		k->ord_base++;
}

/*
 * Towards an INA member, the ACKs of one chunk's packets of one phase
 * come in the order they were sent: each completes a slot, and the
 * slots of a chunk complete in the order their last contribution or
 * partial arrives, which every sender sends in ordinal order. Across
 * chunks (steps) and phases they do not. One rina_rack per chunk and
 * phase (ord_rack[]), as the INA workers keep one per step
 * (ina_worker.c); a packet's is found once, when it is first sent.
 */
static __u32 order_of(const struct rm_call *k, __u32 seq)
{
	struct rina_pkt_id id;

	rina_seq_decode(&k->s, seq, &id);
	return id.ag * k->s.L + id.chunk;
}

/* The RACK state that a packet's ACK updates and its loss is judged by. */
struct rina_rack *rm_rack_of(struct rm_call *k, const struct rm_out *e)
{
	return k->ordwin ? &k->ord_rack[e->order] : &k->rack;
}

static int send_new(struct rm_call *k, __u32 seq, __u64 now)
{
	const struct rina_rm_cfg *cfg = &k->m->cfg;
	struct rm_out *e;
	int ret;

	ret = rm_emit(k, seq, 0);
	if (ret)
		return ret;
	rina_txq_sent(&k->txq);
	e = &k->out[k->nout];
	e->seq = seq;
	e->order = k->ordwin ? order_of(k, seq) : 0;
	e->tries = 0;
	e->t_first = now;
	e->t_sent = now;
	e->rto = k->ordwin ? rina_path_rto_slot(cfg->path, cfg->rto_us) :
		 rina_path_rto(cfg->path, cfg->rto_us);
	if (k->ordwin && e->rto * RINA_RTO_SLOT_FACTOR > RINA_RTO_SLOT_MIN_US)
		e->rto *= RINA_RTO_SLOT_FACTOR;
	else if (k->ordwin)
		e->rto = RINA_RTO_SLOT_MIN_US;
	e->deadline = now + e->rto;
	k->outpos[seq] = ++k->nout;
	return 0;
}

/*
 * A member that takes no delay signal (rx_ack()) is driven by loss: its
 * window may put a burst of partials into its host's queue, and its ACKs
 * to the member upstream wait behind them. Upstream of an INA rack a
 * burst leaves when the rack's slots complete, many at once: 26-57 of
 * them a time on a mixed 4x2 ring at 25 Mbit/s, which held the ACKs of
 * the member upstream 9-20 ms, and that member, driven by delay, cut its
 * window to one packet and fell 300-600 packets behind. So such a member
 * keeps at most txq_limit bytes queued on its host and holds the rest
 * until the device takes what it queued (core/txq.h).
 */
static int txq_check(struct rm_call *k)
{
	struct rina_rm *m = k->m;
	int ret;

	if (!rina_txq_due(&k->txq))
		return 0;
	ret = rm_flush_tx(k);
	if (ret)
		return ret;
	if (rina_txq_judge(&k->txq, m->ops->tx_queued(m->ctx)))
		m->st.txq_holds++;
	return 0;
}

/*
 * Towards an INA member: reduce-scatter by ordinal inside the window, a
 * span of cwnd ordinals from the oldest unacknowledged one, not a count
 * of packets in flight. Younger ordinals sent while the window was
 * larger wait for the rack's workers to get there, and the workers wait
 * on our oldest ones: a count would hold those back (protocol.md 6.1).
 * Spans put at most W partials in flight, the allgather forwards at
 * most cwnd more: out[] holds 2 W.
 */
static int pump_ordinals(struct rm_call *k, __u64 now)
{
	__u64 o, end = k->ord_base + k->cwnd;
	int ret;

	if (end > k->nord)
		end = k->nord;
	for (o = k->ord_base; o < end && k->nout < 2 * k->W; o++) {
		if (!rina_bit_test(k->sr_ready, (__u32)o) ||
		    rina_bit_test(k->sr_done, (__u32)o))
			continue;
		ret = txq_check(k);
		if (ret)
			return ret;
		if (k->txq.full)
			break;
		rina_bit_test_and_set(k->sr_done, (__u32)o);
		ret = send_new(k, ordinal_seq(k, o), now);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Fill the window (next_send()); towards an INA member, then its
 * reduce-scatter by the rack's ordinals.
 */
int rm_pump(struct rm_call *k)
{
	__u64 now = rm_now(k->m);
	__u32 seq;
	int ret;

	/* the congestion window, at most W (core/cc.h) */
	k->cwnd = rina_path_window(k->m->cfg.path);
	/*
	 * Towards an INA member, a chunk's P packets are one step of the
	 * racks' lock-step: a window below P + 1 can leave the rack waiting
	 * for a partial we may not send (seen in the simulator).
	 */
	if (k->ordwin && k->cwnd < k->s.P + 1)
		k->cwnd = k->s.P + 1 < k->W ? k->s.P + 1 : k->W;
	rina_txq_start(&k->txq);
	while (k->nout < k->cwnd) {
		ret = txq_check(k);
		if (ret)
			return ret;
		if (k->txq.full)
			break;
		seq = next_send(k);
		if (seq == 0xffffffffU)
			break;
		ret = send_new(k, seq, now);
		if (ret)
			return ret;
	}
	if (k->ordwin) {
		ret = pump_ordinals(k, now);
		if (ret)
			return ret;
	}
	return rm_flush_tx(k);
}

void rm_out_remove(struct rm_call *k, __u32 seq)
{
	__u32 pos = k->outpos[seq];

	if (!pos)
		return;
	k->outpos[seq] = 0;
	if (pos != k->nout) {
		k->out[pos - 1] = k->out[k->nout - 1];
		k->outpos[k->out[pos - 1].seq] = pos;
	}
	k->nout--;
}

/*
 * Resend what is lost; returns microseconds to the next timer expiry.
 * A packet is lost when one sent after it (in a later batch, plus a
 * reordering allowance) has been acknowledged: the paths are FIFO, so
 * this recovers in one round trip (RACK, RFC 8985). The timer only
 * catches the tail of a call, and so can afford to be conservative.
 */
static int resend(struct rm_call *k, struct rm_out *e, __u64 now)
{
	const struct rina_rm_cfg *cfg = &k->m->cfg;
	__u64 cap = k->ordwin ? RINA_RTO_MAX_US :
		    rina_path_rto_cap(cfg->path, cfg->rto_us);
	int ret = rm_emit(k, e->seq, 1);

	if (ret)
		return ret;
	e->tries++;
	e->t_sent = now;
	e->rto = e->rto * 2 > cap ? cap : e->rto * 2;
	e->deadline = now + e->rto;
	return 0;
}


/*
 * A tail loss probe (RFC 8985 7): nothing acknowledged for a PTO while
 * packets are out, so RACK has nothing sent after a loss to find it by.
 * Lost at the tail of a step, or lost twice, a packet waited for its
 * timer, 20 ms and more, where the call takes a few: at 10% loss a plain
 * 2x3 ring took 63x its lossless time in 560 timeouts a run, each one
 * cutting the window. The newest packet goes again: its ACK, a duplicate's
 * too, moves RACK past every older one still out, and those are resent
 * at once. Not a loss signal: the window stays. Towards an INA member
 * ACKs wait for its slots, not a round trip: there the timer does.
 */
static int probe(struct rm_call *k, __u64 now, __u64 *next)
{
	struct rm_out *newest = NULL;
	__u64 at, since;
	__u32 j;
	int ret;

	if (k->ordwin || !k->nout)
		return 0;
	for (j = 0; j < k->nout; j++)
		if (!newest || k->out[j].t_sent > newest->t_sent)
			newest = &k->out[j];
	since = k->last_ack > k->last_probe ? k->last_ack : k->last_probe;
	if (newest->t_sent > since)
		since = newest->t_sent;
	at = since + rina_path_pto(k->m->cfg.path, k->m->cfg.rto_us,
				   k->probes, newest->rto, now);
	if (now < at) {
		if (at < *next)
			*next = at;
		return 0;
	}
	ret = rm_emit(k, newest->seq, 1);
	if (ret)
		return ret;
	k->probes++;
	k->last_probe = now;
	k->m->st.timeouts++;
	k->m->st.probes++;
	/* its own timer stays as it was: the probe is no expiry of it */
	newest->tries++;
	newest->t_sent = now;
	newest->deadline = now + newest->rto;
	return 0;
}

/*
 * Losses found by RACK (rm_rack_of()) are resent at once; of the packets
 * overdue on their timer the oldest, or all of them where the next
 * member asked for them (lost ACKs); nothing acknowledged for a while, a
 * probe (probe()).
 */
int rm_retransmit(struct rm_call *k, __u64 *wait_us)
{
	struct rina_rm *m = k->m;
	__u64 now = rm_now(m), next = ~0ULL;
	struct rina_path *path = m->cfg.path;
	__u64 reo = rina_rack_reo(&path->rtt);
	struct rm_out *oldest = NULL;
	__u32 j;
	int ret;

	for (j = 0; j < k->nout; j++) {
		struct rm_out *e = &k->out[j];

		if (rina_rack_lost(rm_rack_of(k, e), e->t_sent, reo)) {
			m->st.fast_retransmits++;
			/*
			 * An INA member's slot that completes later than a
			 * younger one of its chunk lacks our partial, or a
			 * worker's contribution that the worker's own RACK
			 * resends: no congestion signal of our path alone,
			 * so no cut there. Resending ours costs a duplicate
			 * the ToR drops.
			 */
			if (!k->ordwin) {
				rina_cc_on_loss(&path->cc, &path->rtt, now);
				path->last_loss_us = now;
			}
			ret = resend(k, e, now);
			if (ret)
				return ret;
		} else if (e->deadline <= now && k->asked) {
			/* lost ACKs, not a queue: every overdue one now */
			m->st.timeouts++;
			ret = resend(k, e, now);
			if (ret)
				return ret;
		} else if (e->deadline <= now &&
			   (!oldest || e->t_sent < oldest->t_sent)) {
			oldest = e;
		}
	}
	/*
	 * The timer resends only the oldest overdue packet, as TCP's RTO
	 * does: on a loaded host a late ACK is likelier than a window of
	 * losses, and were the others lost too, RACK sees it as soon as
	 * this one is acknowledged. The rest wait one more timeout.
	 */
	if (oldest) {
		m->st.timeouts++;
		rina_cc_on_timeout(&path->cc, oldest->tries + 1, &path->rtt,
				   now);
		ret = resend(k, oldest, now);
		if (ret)
			return ret;
	}
	ret = probe(k, now, &next);
	if (ret)
		return ret;
	for (j = 0; j < k->nout; j++) {
		struct rm_out *e = &k->out[j];

		if (e->deadline <= now)
			e->deadline = now + e->rto;
		if (e->deadline < next)
			next = e->deadline;
	}
	*wait_us = next == ~0ULL ? ~0ULL : next - now;
	return rm_flush_tx(k);
}
