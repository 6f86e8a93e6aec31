// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ring engine: one Ring-AllReduce call over any transport.
 *
 * Reduce-scatter and allgather are pipelined per packet: a partial that
 * arrives from upstream is added to this member's contribution and queued
 * for downstream at once. Every hop is windowed (W packets in flight) and
 * acknowledged; unacknowledged packets are retransmitted with exponential
 * back-off; receivers suppress duplicates by sequence number. The call
 * number (round) in every packet keeps a late packet of one call out of
 * the next. Documentation/protocol.md describes the rules.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"
#include "wire.h"
#include "schedule.h"
#include "bitmap.h"
#include "rack.h"

struct out_ent {
	uint32_t	seq;
	uint32_t	tries;
	uint64_t	t_sent;		/* last (re)transmission */
	uint64_t	rto;
	uint64_t	deadline;	/* timer */
	uint32_t	order;		/* towards an INA member: ord_rack[] */
};

struct call {
	struct rina_comm *c;
	struct rina_sched s;
	int32_t		*acc;
	uint8_t		dtype_op;
	bool		op_max;
	uint32_t	i;		/* member index */
	uint16_t	round;

	__u64		*rxmap;		/* seqs received from upstream */
	__u64		*ackmap;	/* seqs acknowledged by downstream */
	__u64		*ovfmap;	/* packets whose sum wrapped around */
	uint32_t	*outpos;	/* seq -> index + 1 into out[] */
	/*
	 * Seqs ready to forward, a FIFO per block: block b's at
	 * fwdq[b * 2LP], its head and tail in fwd_head[b], fwd_tail[b].
	 * No block below fwd_lo has any (next_send()).
	 */
	uint32_t	*fwdq;
	uint32_t	*fwd_head, *fwd_tail;
	uint32_t	nfwd;
	uint64_t	fwd_lo;
	/*
	 * Towards an INA member the receiver's slot ordinals bound what may
	 * be in flight: ordinal o leaves only once every ordinal up to
	 * o - W is acknowledged (its slot set is then free at the ToR).
	 * Reduce-scatter sends are then picked by ordinal, not FIFO.
	 */
	bool		ordwin;
	/*
	 * The previous member is an INA rack: our ACKs from the next member
	 * come in through the queue that the rack's output fills (rx_ack()).
	 */
	bool		after_ina;
	/*
	 * A plain member of a ring with INA members that no rack feeds:
	 * our own packets of a block go before what we forward of it
	 * (next_send()).
	 */
	bool		inject_first;
	struct rina_txq	txq;		/* our host's queue: txq_check() */
	__u64		*sr_ready;	/* by receiver ordinal */
	__u64		*sr_done;	/* sent (bit set) ... */
	__u64		*sr_acked;	/* ... and acknowledged */
	uint64_t	ord_base;	/* lowest unacknowledged ordinal */
	uint64_t	nord;
	uint64_t	inj_b;		/* next step-0 packet to inject */
	uint32_t	inj_p;
	struct out_ent	*out;
	uint32_t	nout, W;
	uint32_t	cwnd;		/* what may be in flight now: <= W */
	/*
	 * The INA member downstream asked again for partials (rx_ask()):
	 * its ToR went, and with it the ACKs of what it had added
	 */
	bool		asked;

	struct rina_rack rack;		/* downstream's ACKs (core/rack.h) */
	struct rina_rack *ord_rack;	/* towards an INA member: per order */
	uint64_t	expect_rx, got_rx;
	uint64_t	expect_ack, got_ack;
	uint64_t	last_progress;

	struct rina_msg	tx[RINA_BATCH];
	int		ntx;
	struct rina_ack_batch ack;
	int		result;		/* first error seen while processing */
};

/*
 * The last call's result of an INA member upstream (a mixed ring), kept
 * after we leave the call. If that member's ToR dies after it sent its
 * own chunk's result to us but before the rack's workers had it, the
 * ToR has acknowledged everything upstream sent it, so the rest of the
 * ring finishes the call and goes on; the rack's agent then asks us for
 * that result (core/agent.c, ask_again()), and only we still hold it.
 * Without it the rack could never finish the call and the job timed out
 * (net_tor_failover). Only that member's chunk is copied; the rest of
 * acc is never read.
 */
struct rina_kept {
	struct rina_sched s;
	uint16_t	round;
	uint8_t		dtype_op;
	uint32_t	chunk;		/* upstream's own chunk */
	int32_t		*acc;		/* s.count words */
	size_t		cap;
	__u64		*ovfmap;	/* all zero: such a call succeeded */
	size_t		ovf_words;
	bool		valid;
};

static void *zalloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

/* ---- sending ----------------------------------------------------- */

static int flush_tx(struct call *k)
{
	int ret;

	if (!k->ntx)
		return 0;
	ret = rina_xmit(k->c, k->tx, k->ntx);
	k->ntx = 0;
	if (ret == -EMSGSIZE)
		return rina_fail(RINA_ERR_TRANSPORT,
				 "send failed: %u-byte datagrams exceed the path MTU; lower \"elements\" in the job or raise the MTU",
				 k->c->max_msg);
	if (ret < 0)
		return rina_fail(RINA_ERR_TRANSPORT, "send failed: %s",
				 strerror(-ret));
	return 0;
}

/* Contributions summed into chunk c once member i has added its own. */
static uint32_t contrib_upto(const struct rina_comm *c, uint32_t chunk,
			     uint32_t i)
{
	/* members chunk, chunk+1, ..., i (cyclic) have added theirs */
	uint32_t a = c->contrib_before[chunk], b = c->contrib_before[i] +
		c->ring.m[i].n_local;

	return b > a ? b - a : b + c->N - a;
}

/* Build one data packet for seq from the accumulator. */
static int emit(struct call *k, uint32_t seq, bool retx)
{
	struct rina_comm *c = k->c;
	const struct rina_sched *s = &k->s;
	uint32_t L = s->L, nxt = rina_ring_next(&c->ring, k->i);
	struct rina_pkt_id id;
	struct rina_hdr *h;
	uint64_t off, pktno;
	uint32_t len;
	int ret;

	if (k->ntx == RINA_BATCH) {
		ret = flush_tx(k);
		if (ret)
			return ret;
	}
	rina_seq_decode(s, seq, &id);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	pktno = off / s->E;

	h = (struct rina_hdr *)(c->txbuf + (size_t)k->ntx * c->max_msg);
	rina_hdr_init(c, h, id.ag ? RINA_OP_AG_DATA : RINA_OP_SR_PARTIAL, k->round);
	h->chunk = htons((uint16_t)id.chunk);
	h->seq = htonl(seq);
	h->n_elem = htons((uint16_t)rina_wire_elems(len));
	h->p_chunk = htons((uint16_t)s->P);
	h->dtype_op = k->dtype_op;
	if (id.ag) {
		/* hops travelled when it arrives downstream */
		h->hop = (uint8_t)((nxt + L - (id.chunk + L - 1) % L) % L);
		h->step = h->hop;
		h->flags = RINA_F_AG_PHASE;
		h->num_contrib = htons((uint16_t)c->N);
	} else {
		h->step = (uint8_t)rina_chunk_step(nxt, id.chunk, L);
		h->slot = htons(rina_slot(c->slot_base,
					  rina_ordinal(s, nxt, id.block,
						       id.chunk, id.pkt)));
		h->num_contrib = htons((uint16_t)contrib_upto(c, id.chunk,
							      k->i));
		if (id.chunk == rina_own_chunk(nxt, L))
			h->flags |= RINA_F_OWN_FINAL;
	}
	if (id.pkt == s->P - 1 || off + len >= s->count)
		h->flags |= RINA_F_LAST;
	if (retx)
		h->flags |= RINA_F_RETX;
	if (rina_bit_test(k->ovfmap, (uint32_t)pktno))
		h->flags |= RINA_F_OVERFLOW;
	rina_reduce->store_be((__be32 *)(h + 1), k->acc + off, len);
	if (!len)	/* padding: one zero word */
		*(__be32 *)(h + 1) = 0;

	k->tx[k->ntx].buf = h;
	k->tx[k->ntx].len = RINA_HDR_LEN + rina_wire_elems(len) * 4;
	k->tx[k->ntx].addr = c->next;
	k->ntx++;
	c->st.tx_data++;
	if (retx)
		c->st.retransmits++;
	return 0;
}

/* Next step-0 packet (chunk i of each block), or UINT32_MAX. */
static uint32_t next_inject(struct call *k)
{
	const struct rina_sched *s = &k->s;

	while (k->inj_b < s->nblocks) {
		uint64_t b = k->inj_b;
		uint32_t p = k->inj_p;

		if (++k->inj_p == s->P) {
			k->inj_p = 0;
			k->inj_b++;
		}
		if (rina_pkt_sent(s, b, k->i, p))
			return rina_seq(s, b, k->i, p, 0);
	}
	return UINT32_MAX;
}

/* seq is ready to forward */
static void fwd_push(struct call *k, uint32_t seq)
{
	uint32_t per_block = rina_block_seqs(&k->s);
	uint64_t b = seq / per_block;

	k->fwdq[b * per_block + k->fwd_tail[b]++] = seq;
	k->nfwd++;
	if (b < k->fwd_lo)
		k->fwd_lo = b;
}

/*
 * What to send next, UINT32_MAX if nothing: the oldest block first, and
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
 * performance.md, "Step order towards an INA rack"). Not at a member
 * that forwards a rack's output (after_ina): the same order there made
 * 2x2 and 4x2 rings with one or three INA racks, whose only members
 * upstream of a rack are such, 5% and 13% slower.
 */
static uint32_t next_send(struct call *k)
{
	uint32_t per_block = rina_block_seqs(&k->s);
	uint64_t b;

	while (k->nfwd && k->fwd_head[k->fwd_lo] == k->fwd_tail[k->fwd_lo])
		k->fwd_lo++;
	if (k->nfwd && (k->ordwin || k->fwd_lo + k->inject_first <= k->inj_b)) {
		b = k->fwd_lo;
		k->nfwd--;
		return k->fwdq[b * per_block + k->fwd_head[b]++];
	}
	return k->ordwin ? UINT32_MAX : next_inject(k);
}

/* Receiver (next member) ordinal of reduce-scatter packet seq. */
static uint64_t recv_ordinal(const struct call *k, uint32_t seq)
{
	return rina_seq_ordinal(&k->s, rina_ring_next(&k->c->ring, k->i), seq);
}

/* Reduce-scatter seq of receiver ordinal o, or UINT32_MAX if none. */
static uint32_t ordinal_seq(const struct call *k, uint64_t o)
{
	const struct rina_sched *s = &k->s;
	uint32_t nxt = rina_ring_next(&k->c->ring, k->i), seq;
	struct rina_pkt_id id;

	seq = rina_ordinal_seq(s, nxt, o, &id);
	if (!rina_chunk_step(nxt, id.chunk, s->L) ||	/* its first step */
	    !rina_pkt_sent(s, id.block, id.chunk, id.pkt))
		return UINT32_MAX;	/* not sent by us */
	return seq;
}

static void ord_advance(struct call *k)
{
	while (k->ord_base < k->nord &&
	       (rina_bit_test(k->sr_acked, (uint32_t)k->ord_base) ||
		ordinal_seq(k, k->ord_base) == UINT32_MAX))
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
static uint32_t order_of(const struct call *k, uint32_t seq)
{
	struct rina_pkt_id id;

	rina_seq_decode(&k->s, seq, &id);
	return id.ag * k->s.L + id.chunk;
}

/* The RACK state that a packet's ACK updates and its loss is judged by. */
static struct rina_rack *rack_of(struct call *k, const struct out_ent *e)
{
	return k->ordwin ? &k->ord_rack[e->order] : &k->rack;
}

static int send_new(struct call *k, uint32_t seq, uint64_t now)
{
	struct out_ent *e;
	int ret;

	ret = emit(k, seq, false);
	if (ret)
		return ret;
	rina_txq_sent(&k->txq);
	e = &k->out[k->nout];
	e->seq = seq;
	e->order = k->ordwin ? order_of(k, seq) : 0;
	e->tries = 0;
	e->t_sent = now;
	e->rto = k->ordwin ? rina_path_rto_slot(k->c, &k->c->to_next) :
		 rina_path_rto(k->c, &k->c->to_next);
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
 * until the device takes what it queued (endpoint.h, struct rina_txq).
 */
static int txq_check(struct call *k)
{
	int ret;

	if (!rina_txq_due(&k->txq))
		return 0;
	ret = flush_tx(k);
	if (ret)
		return ret;
	rina_txq_look(k->c, &k->txq);
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
static int pump_ordinals(struct call *k, uint64_t now)
{
	uint64_t o, end = k->ord_base + k->cwnd;
	int ret;

	if (end > k->nord)
		end = k->nord;
	for (o = k->ord_base; o < end && k->nout < 2 * k->W; o++) {
		if (!rina_bit_test(k->sr_ready, (uint32_t)o) ||
		    rina_bit_test(k->sr_done, (uint32_t)o))
			continue;
		ret = txq_check(k);
		if (ret)
			return ret;
		if (k->txq.full)
			break;
		rina_bit_test_and_set(k->sr_done, (uint32_t)o);
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
static int pump(struct call *k)
{
	uint64_t now = rina_now_us();
	uint32_t seq;
	int ret;

	/* the congestion window, at most W (core/cc.h) */
	k->cwnd = rina_path_window(&k->c->to_next);
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
		if (seq == UINT32_MAX)
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
	return flush_tx(k);
}

static void out_remove(struct call *k, uint32_t seq)
{
	uint32_t pos = k->outpos[seq];

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
static int resend(struct call *k, struct out_ent *e, uint64_t now)
{
	uint64_t cap = k->ordwin ? RINA_RTO_MAX_US :
		       rina_path_rto_cap(k->c, &k->c->to_next);
	int ret = emit(k, e->seq, true);

	if (ret)
		return ret;
	e->tries++;
	e->t_sent = now;
	e->rto = e->rto * 2 > cap ? cap : e->rto * 2;
	e->deadline = now + e->rto;
	return 0;
}

/*
 * Losses found by RACK (rack_of()) are resent at once; of the packets
 * overdue on their timer the oldest, or all of them where the next
 * member asked for them (lost ACKs).
 */
static int retransmit(struct call *k, uint64_t *wait_us)
{
	uint64_t now = rina_now_us(), next = UINT64_MAX;
	struct rina_path *path = &k->c->to_next;
	uint64_t reo = rina_rack_reo(&path->rtt);
	struct out_ent *oldest = NULL;
	uint32_t j;
	int ret;

	for (j = 0; j < k->nout; j++) {
		struct out_ent *e = &k->out[j];

		if (rina_rack_lost(rack_of(k, e), e->t_sent, reo)) {
			k->c->st.fast_retransmits++;
			/*
			 * An INA member's slot that completes later than a
			 * younger one of its chunk lacks our partial, or a
			 * worker's contribution that the worker's own RACK
			 * resends: no congestion signal of our path alone,
			 * so no cut there. Resending ours costs a duplicate
			 * the ToR drops.
			 */
			if (!k->ordwin)
				rina_cc_on_loss(&path->cc, &path->rtt, now);
			ret = resend(k, e, now);
			if (ret)
				return ret;
		} else if (e->deadline <= now && k->asked) {
			/* lost ACKs, not a queue: every overdue one now */
			k->c->st.timeouts++;
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
		k->c->st.timeouts++;
		rina_cc_on_timeout(&path->cc, oldest->tries + 1, &path->rtt,
				   now);
		ret = resend(k, oldest, now);
		if (ret)
			return ret;
	}
	for (j = 0; j < k->nout; j++) {
		struct out_ent *e = &k->out[j];

		if (e->deadline <= now)
			e->deadline = now + e->rto;
		if (e->deadline < next)
			next = e->deadline;
	}
	*wait_us = next == UINT64_MAX ? UINT64_MAX : next - now;
	return flush_tx(k);
}

/* ---- receiving --------------------------------------------------- */

static int mismatch(struct call *k, const struct rina_hdr *h,
		    const char *what)
{
	return rina_fail(RINA_ERR_MISMATCH,
			 "rank %u called allreduce with a different %s than rank %d (call %llu)",
			 ntohs(h->src_id), what, k->c->rank,
			 (unsigned long long)k->c->st.calls);
}

/*
 * Whether allgather data of chunk goes on to the next member: not when
 * the next member owns the chunk ((i + 2) mod L): its allgather started
 * there and has come all the way round.
 */
static bool forwards_ag(const struct call *k, uint32_t chunk)
{
	return chunk != rina_own_chunk(rina_ring_next(&k->c->ring, k->i),
				       k->s.L);
}

static int rx_data(struct call *k, const struct rina_hdr *h,
		   const struct rina_addr *from, uint8_t ecn)
{
	struct rina_comm *c = k->c;
	const struct rina_sched *s = &k->s;
	uint32_t L = s->L, seq = ntohl(h->seq), len, own;
	bool ag = rina_hdr_opcode(h) == RINA_OP_AG_DATA;
	const __be32 *pl = (const __be32 *)(h + 1);
	struct rina_pkt_id id;
	uint64_t off, pktno;

	if (!rina_addr_eq(from, &c->prev) || rina_hdr_opcode(h) ==
	    RINA_OP_SR_CONTRIB) {
		c->st.rx_foreign++;
		return 0;
	}
	if (h->dtype_op != k->dtype_op)
		return mismatch(k, h, "data type or operation");
	if (seq >= s->seqs)
		return mismatch(k, h, "element count");
	rina_seq_decode(s, seq, &id);
	len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	if (id.ag != ag || ntohs(h->chunk) != id.chunk ||
	    ntohs(h->p_chunk) != s->P)
		return mismatch(k, h, "element count");
	if (ntohs(h->n_elem) != rina_wire_elems(len) ||
	    (!len && !s->pad))
		return mismatch(k, h, "element count");
	own = rina_own_chunk(k->i, L);
	if ((!ag && id.chunk == k->i) || (ag && id.chunk == own)) {
		c->st.rx_malformed++;	/* never sent to us by the schedule */
		return 0;
	}
	if (ag ? ntohs(h->num_contrib) != c->N :
	    ntohs(h->num_contrib) != contrib_upto(c, id.chunk,
						  rina_ring_prev(&c->ring,
								 k->i))) {
		c->st.rx_malformed++;
		return 0;
	}
	rina_ack_queue(k->c, &k->ack, from, h, ecn);
	if (rina_bit_test_and_set(k->rxmap, seq)) {
		c->st.duplicates++;
		return 0;
	}
	k->got_rx++;
	k->last_progress = rina_now_us();
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	pktno = off / s->E;
	if ((h->flags & RINA_F_OVERFLOW) && len)
		rina_bit_test_and_set(k->ovfmap, (uint32_t)pktno);
	if (ag) {
		rina_reduce->load_be(k->acc + off, pl, len);
		if (forwards_ag(k, id.chunk))
			fwd_push(k, seq);
		return 0;
	}
	if (k->op_max)
		rina_reduce->max_be(k->acc + off, pl, len);
	else if (rina_reduce->add_be(k->acc + off, pl, len))
		rina_bit_test_and_set(k->ovfmap, (uint32_t)pktno);
	if (id.chunk == own)	/* fully reduced: start its allgather */
		fwd_push(k, rina_seq(s, id.block, id.chunk, id.pkt, 1));
	else if (k->ordwin)
		rina_bit_test_and_set(k->sr_ready,
				      (uint32_t)recv_ordinal(k, seq));
	else
		fwd_push(k, seq);
	return 0;
}

/*
 * Whether an ACK of e, at now, moves RACK to e's send time. A packet sent
 * once, always. A resent one's ACK may be its first copy's, late:
 * - towards an INA member, where ACKs wait for the slots, never (Karn);
 * - after one, not sooner than the resend could have crossed the path:
 *   our next member's ACKs reach us behind the rack's output in our
 *   downlink's queue (rx_ack()), so a timer resends a packet whose first
 *   copy's ACK is on its way; taking the resend's time for it, a member
 *   after a rack resent some 200 packets a call, all of them duplicates
 *   at the next member (a shaped 4x2 ring with racks 0-2 INA, 10
 *   timeouts a call; performance.md, "A late ACK of a resent packet");
 * - elsewhere, always: a full window of resent packets has no other ACK
 *   to find a lost resend by (plain RAR at 1% loss: 59 ms a call with
 *   the rule above, 32 without).
 */
static bool rack_takes(const struct call *k, const struct out_ent *e,
		       uint64_t now)
{
	if (!e->tries)
		return true;
	if (k->ordwin)
		return false;
	return !k->after_ina ||
	       !rina_rack_first_copy(e->t_sent, now, &k->c->to_next.rtt);
}

static void rx_ack(struct call *k, const struct rina_hdr *h,
		   const struct rina_addr *from)
{
	struct rina_comm *c = k->c;
	struct rina_path *path = &c->to_next;
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem), acked = 0;
	uint64_t now = rina_now_us(), sample = 0;
	struct out_ent *e;

	c->st.rx_acks++;
	if (!rina_addr_eq(from, &c->next)) {
		c->st.rx_foreign++;
		return;
	}
	if (rina_round_cmp(ntohs(h->round), k->round)) {
		c->st.rx_stale++;
		return;
	}
	for (j = 0; j < n; j++) {
		uint32_t seq = ntohl(seqs[j]);

		if (seq >= k->s.seqs || !k->outpos[seq])
			continue;	/* late duplicate ACK */
		e = &k->out[k->outpos[seq] - 1];
		if (!e->tries) {	/* Karn: only clean samples */
			uint64_t rtt = now - e->t_sent;

			rina_path_rtt(path, rtt, now);
			/*
			 * The batch's youngest packet waited least for the
			 * ACK batching: its RTT is the queue's
			 */
			if (!sample || rtt < sample)
				sample = rtt;
		}
		if (rack_takes(k, e, now))
			rina_rack_acked(rack_of(k, e), e->t_sent);
		out_remove(k, seq);
		rina_bit_test_and_set(k->ackmap, seq);
		if (k->ordwin && !rina_seq_is_ag(&k->s, seq)) {
			rina_bit_test_and_set(k->sr_acked,
					      (uint32_t)recv_ordinal(k, seq));
			ord_advance(k);
		}
		k->got_ack++;
		acked++;
		k->last_progress = now;
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
	c->st.ce_acked += rina_ack_ce(h, acked);
	rina_cc_on_ack(&path->cc, acked, rina_ack_ce(h, acked),
		       k->ordwin || k->after_ina ? 0 : sample, &path->rtt,
		       now);
}


/*
 * What to send an INA member that asks for seq (rx_ask()), or UINT32_MAX.
 * acc holds a partial we sent until its chunk's result overwrites it,
 * and holds that result once it came. A partial still unacknowledged is
 * resent at once, its timer kept (not doubled: the asker said what it
 * lacks), unless it left less than RINA_PTO_MIN_US ago. A partial whose
 * result we hold is answered with the result, which we forward anyway
 * (pump() may hold it back behind partials that wait for the asker).
 */
static uint32_t answer_seq(struct call *k, uint32_t seq, bool ag, uint64_t now)
{
	uint32_t L = k->s.L, agseq;
	struct rina_pkt_id id;
	struct out_ent *e;

	rina_seq_decode(&k->s, seq, &id);
	if (ag)
		return id.ag && rina_bit_test(k->rxmap, seq) ? seq : UINT32_MAX;
	if (id.ag)
		return UINT32_MAX;
	agseq = rina_seq_ag_of(L, k->s.P, seq);
	if (rina_bit_test(k->rxmap, agseq))
		return forwards_ag(k, id.chunk) ? agseq : UINT32_MAX;
	if (!k->outpos[seq])
		return rina_bit_test(k->ackmap, seq) ? seq : UINT32_MAX;
	e = &k->out[k->outpos[seq] - 1];
	if (now - e->t_sent < RINA_PTO_MIN_US)
		return UINT32_MAX;
	e->tries++;
	e->t_sent = now;
	e->deadline = now + e->rto;
	return seq;
}

/*
 * Upstream's agent asks for its own chunk's result of the call we left
 * (struct rina_kept): answer from the copy. The packets are built as
 * that call built them (emit()), through a call of their own, since
 * emit() reads the call's schedule, data and round.
 */
static int rx_ask_kept(struct call *k, const struct rina_hdr *h,
		       const struct rina_addr *from)
{
	const struct rina_kept *kp = k->c->kept;
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem), seq;
	struct rina_pkt_id id;
	struct call *o;
	int ret;

	ret = flush_tx(k);	/* o's packets are built in the same txbuf */
	if (ret)
		return ret;
	o = zalloc(sizeof(*o));
	if (!o)
		return 0;	/* the agent asks again */
	o->c = k->c;
	o->s = kp->s;
	o->acc = kp->acc;
	o->ovfmap = kp->ovfmap;
	o->round = kp->round;
	o->dtype_op = kp->dtype_op;
	o->i = k->i;
	for (j = 0; j < n && !ret; j++) {
		seq = ntohl(seqs[j]);
		if (seq >= kp->s.seqs)
			continue;
		rina_seq_decode(&kp->s, seq, &id);
		if (!id.ag || id.chunk != kp->chunk ||
		    !rina_pkt_sent(&kp->s, id.block, id.chunk, id.pkt))
			continue;
		ret = emit(o, seq, true);
		if (ret)
			break;
		o->tx[o->ntx - 1].addr = *from;
		k->c->st.resent_asked++;
	}
	if (!ret)
		ret = flush_tx(o);
	free(o);
	return ret;
}

/*
 * An INA member whose ToR died in full flight of a call asks again for
 * what that ToR had taken, ACKed or emitted and lost (core/agent.c,
 * ask_again()): downstream, partials we sent it (a NACK of reduce-scatter
 * seqs, no AG_PHASE); upstream, its own chunk's result, which passed us
 * (an AG_PHASE NACK). Send what acc holds of them to whoever asked.
 * Once we left that call, only upstream's own-chunk result of the last
 * call can still be given (rx_ask_kept()).
 */
static int rx_ask(struct call *k, const struct rina_hdr *h,
		  const struct rina_addr *from)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	bool ag = h->flags & RINA_F_AG_PHASE;
	uint32_t j, n = ntohs(h->n_elem), seq;
	struct rina_comm *c = k->c;
	uint64_t now = rina_now_us();
	int ret;

	if (!rina_addr_eq(from, ag ? &c->prev : &c->next)) {
		c->st.rx_foreign++;
		return 0;
	}
	if (rina_round_cmp(ntohs(h->round), k->round)) {
		if (ag && c->kept && c->kept->valid &&
		    ntohs(h->round) == c->kept->round)
			return rx_ask_kept(k, h, from);
		c->st.rx_stale++;
		return 0;
	}
	if (!ag)
		k->asked = true;
	for (j = 0; j < n; j++) {
		seq = ntohl(seqs[j]);
		if (seq >= k->s.seqs)
			continue;
		seq = answer_seq(k, seq, ag, now);
		if (seq == UINT32_MAX)
			continue;
		ret = emit(k, seq, true);
		if (ret)
			return ret;
		k->tx[k->ntx - 1].addr = *from;
		c->st.resent_asked++;
	}
	return flush_tx(k);
}

/*
 * One received message. Returns a result code; messages for other
 * calls are stashed (next call) or acknowledged statelessly (earlier
 * call: the sender missed our ACK).
 */
/* A checked message of this job, not CTRL (rina_recv_batch). */
static int rx_one(struct call *k, const struct rina_msg *m, bool from_stash)
{
	struct rina_comm *c = k->c;
	const struct rina_hdr *h = m->buf;
	unsigned int op = rina_hdr_opcode(h);
	int rc;

	if (op == RINA_OP_ACK) {
		rx_ack(k, h, &m->addr);
		return 0;
	}
	if (op == RINA_OP_NACK)
		return rx_ask(k, h, &m->addr);
	if (op != RINA_OP_SR_PARTIAL && op != RINA_OP_AG_DATA) {
		c->st.rx_malformed++;
		return 0;
	}
	c->st.rx_data++;
	rc = rina_round_cmp(ntohs(h->round), k->round);
	if (rc < 0) {
		c->st.rx_stale++;
		if (rina_addr_eq(&m->addr, &c->prev))
			rina_ack_queue(c, &k->ack, &m->addr, h, m->ecn);
		return 0;
	}
	if (rc > 0) {
		if (rc == 1 && !from_stash)
			rina_stash(c, m);
		return 0;
	}
	return rx_data(k, h, &m->addr, m->ecn);
}

/* ---- the call ---------------------------------------------------- */

static void call_free(struct call *k)
{
	free(k->rxmap);
	free(k->ackmap);
	free(k->ovfmap);
	free(k->outpos);
	free(k->fwdq);
	free(k->fwd_head);
	free(k->fwd_tail);
	free(k->sr_ready);
	free(k->sr_done);
	free(k->sr_acked);
	free(k->ord_rack);
	free(k->out);
}

static void count_expected(struct call *k)
{
	const struct rina_sched *s = &k->s;
	uint32_t L = s->L, own = rina_own_chunk(k->i, L), c, p;
	uint64_t b;

	for (b = 0; b < s->nblocks; b++)
		for (c = 0; c < L; c++)
			for (p = 0; p < s->P; p++) {
				if (!rina_pkt_sent(s, b, c, p))
					continue;
				k->expect_rx += (c != k->i) + (c != own);
				k->expect_ack += (c != own) + forwards_ag(k, c);
			}
}

static int describe_stall(struct call *k)
{
	struct rina_comm *c = k->c;

	return rina_fail(RINA_ERR_TIMEOUT,
			 "rank %d: no progress for %u ms in call %llu: %llu of %llu packets from rank %d, %llu of %llu acks from rank %d",
			 c->rank, c->timeout_ms,
			 (unsigned long long)c->st.calls,
			 (unsigned long long)k->got_rx,
			 (unsigned long long)k->expect_rx, c->prev_rank,
			 (unsigned long long)k->got_ack,
			 (unsigned long long)k->expect_ack, c->next_rank);
}

static int rx_one_cb(void *k, const struct rina_msg *m, bool stashed)
{
	return rx_one(k, m, stashed);
}

static int call_loop(struct call *k)
{
	struct rina_comm *c = k->c;
	uint64_t wait_us;
	int ret;

	/* packets of this call that arrived during the last one */
	ret = rina_replay_stash(c, rx_one_cb, k);
	if (ret)
		return ret;
	rina_ack_flush(k->c, &k->ack);
	while (k->got_rx < k->expect_rx || k->got_ack < k->expect_ack) {
		ret = pump(k);
		if (ret)
			return ret;
		ret = retransmit(k, &wait_us);
		if (ret)
			return ret;
		if (k->txq.full && wait_us > RINA_TXQ_WAIT_US)
			wait_us = RINA_TXQ_WAIT_US;
		ret = rina_recv_batch(c, wait_us > 100000 ? 100000 : wait_us,
				      rx_one_cb, k);
		if (ret)
			return ret;
		rina_ack_flush(k->c, &k->ack);
		if (rina_now_us() - k->last_progress >
		    (uint64_t)c->timeout_ms * 1000)
			return describe_stall(k);
	}
	return RINA_OK;
}

/* Copy upstream's own chunk of the call that just ended (rina_kept). */
static void keep_result(struct call *k)
{
	struct rina_comm *c = k->c;
	struct rina_kept *kp = c->kept;
	const struct rina_sched *s = &k->s;
	size_t words = RINA_BITMAP_WORDS(s->count / c->job.elems + 1);
	uint32_t p;
	uint64_t b, off;

	if (!kp) {
		kp = zalloc(sizeof(*kp));
		if (!kp)
			return;
		c->kept = kp;
	}
	kp->valid = false;
	if (s->count > kp->cap) {
		int32_t *a = realloc(kp->acc, s->count * sizeof(*a));

		if (!a)
			return;
		kp->acc = a;
		kp->cap = s->count;
	}
	if (words > kp->ovf_words) {
		free(kp->ovfmap);
		kp->ovfmap = zalloc(words * 8);
		kp->ovf_words = kp->ovfmap ? words : 0;
		if (!kp->ovfmap)
			return;
	}
	kp->s = *s;
	kp->round = k->round;
	kp->dtype_op = k->dtype_op;
	kp->chunk = rina_own_chunk(rina_ring_prev(&c->ring, k->i), s->L);
	for (b = 0; b < s->nblocks; b++)
		for (p = 0; p < s->P; p++) {
			off = rina_pkt_off(s, b, kp->chunk, p);
			memcpy(kp->acc + off, k->acc + off,
			       rina_pkt_len(s, b, kp->chunk, p) *
			       sizeof(*kp->acc));
		}
	kp->valid = true;
}

void rina_ring_kept_free(struct rina_comm *c)
{
	if (!c->kept)
		return;
	free(c->kept->acc);
	free(c->kept->ovfmap);
	free(c->kept);
	c->kept = NULL;
}

int rina_ring_run(struct rina_comm *c, int32_t *acc, size_t count,
		  uint8_t dtype_op)
{
	struct call *k;
	uint32_t words;
	int ret;

	k = zalloc(sizeof(*k));
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->c = c;
	k->acc = acc;
	k->dtype_op = dtype_op;
	k->op_max = RINA_OP_OF(dtype_op) == RINA_WIRE_MAX;
	k->i = c->member;
	k->round = c->round++;
	k->W = c->job.window;
	if (rina_call_sched(c, &k->s, count)) {
		free(k);
		return RINA_ERR_INVALID;
	}
	words = RINA_BITMAP_WORDS(k->s.seqs);
	k->rxmap = zalloc(words * 8);
	k->ackmap = zalloc(words * 8);
	k->ovfmap = zalloc(RINA_BITMAP_WORDS(count / c->job.elems + 1) * 8);
	k->outpos = zalloc((size_t)k->s.seqs * 4);
	k->fwdq = zalloc((size_t)k->s.seqs * 4);
	k->fwd_head = zalloc(k->s.nblocks * 4);
	k->fwd_tail = zalloc(k->s.nblocks * 4);
	k->out = zalloc(2 * k->W * sizeof(*k->out));
	if (!k->rxmap || !k->ackmap || !k->ovfmap || !k->outpos ||
	    !k->fwdq || !k->fwd_head || !k->fwd_tail || !k->out) {
		ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
		goto out;
	}
	count_expected(k);
	k->after_ina = c->ring.m[rina_ring_prev(&c->ring, k->i)].ina;
	k->inject_first = c->pad && !k->after_ina;
	if (c->ring.m[rina_ring_next(&c->ring, k->i)].ina && c->L > 1) {
		uint64_t b;
		uint32_t p;

		k->ordwin = true;
		k->nord = k->s.nblocks * k->s.L * k->s.P;
		k->sr_ready = zalloc(RINA_BITMAP_WORDS(k->nord) * 8);
		k->sr_done = zalloc(RINA_BITMAP_WORDS(k->nord) * 8);
		k->sr_acked = zalloc(RINA_BITMAP_WORDS(k->nord) * 8);
		k->ord_rack = zalloc(2 * k->s.L * sizeof(*k->ord_rack));
		if (!k->sr_ready || !k->sr_done || !k->sr_acked ||
		    !k->ord_rack) {
			ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
			goto out;
		}
		/* our own step-0 data is ready from the start */
		for (b = 0; b < k->s.nblocks; b++)
			for (p = 0; p < k->s.P; p++)
				if (rina_pkt_sent(&k->s, b, k->i, p))
					rina_bit_test_and_set(k->sr_ready,
						(uint32_t)recv_ordinal(k,
						rina_seq(&k->s, b, k->i, p, 0)));
		ord_advance(k);
	}
	/* the members that take no delay signal (rx_ack()) */
	k->txq.limit = rina_txq_limit(c, k->after_ina || k->ordwin);
	k->last_progress = rina_now_us();
	ret = c->L > 1 ? call_loop(k) : RINA_OK;
	if (!ret) {
		uint32_t j;

		for (j = 0; j < RINA_BITMAP_WORDS(count / c->job.elems + 1);
		     j++)
			if (k->ovfmap[j])
				ret = rina_fail(RINA_ERR_OVERFLOW,
						"int32 sum wrapped around (call %llu)",
						(unsigned long long)c->st.calls);
	}
	c->slot_base += (uint32_t)(k->s.nblocks * k->s.L * k->s.P);
	if (!ret && k->after_ina && c->L > 1)
		keep_result(k);
out:
	call_free(k);
	free(k);
	return ret;
}

/* ---- job life cycle ---------------------------------------------- */

