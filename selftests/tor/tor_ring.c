// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Whole Rina allreduces through the INA ToR model: racks of hosts, one
 * model instance per INA rack configured by the rina-p4cfg generator, a
 * spine that routes by IPv4 destination, and small reference hosts:
 *   - INA-rack workers stream SR_CONTRIB for every ordinal, windowed by W
 *     (an ordinal completes on the downstream ACK fan-out, or on the AG
 *     multicast for the own chunk), and NACK missing allgather data;
 *   - the agent (lowest rank of an INA rack, on the agent port) takes
 *     allgather data from its own copy (the ToR's agent replica), ACKs it
 *     upstream, retransmits the own chunk and forwarded chunks downstream
 *     until ACKed, and serves NACKs from that copy; the agent's rank is an
 *     ordinary worker besides, which gets its allgather data only from
 *     the agent (rina-p4cfg's rw_host replica: the ToR sends that host
 *     each result once, to the agent port), relayed over the host;
 *   - autonomous members run plain ring reduce-scatter/allgather.
 * Loss, duplication and reordering are injected on every link; a stall
 * ("timeout") makes every host retransmit. Every rank must end with the
 * exact int32 sum, and the ToR counters must match the schedule.
 * Prints KTAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "rina_tor_model.h"
#include "plan.h"
#include "schedule.h"
#include "p4cfg.h"
#include "../ktap.h"

#define MAX_HOSTS	16
#define MAX_TORS	4
#define FRAME_CAP	(RINA_TOR_RINA_OFF + RINA_HDR_LEN + 4 * RINA_TOR_ELEMS)
#define QCAP		(1 << 16)
#define MAX_TICKS	2000

enum { O_NONE, O_WAIT, O_READY, O_SENT, O_ACKED };

struct frame {
	int	to_tor, tor, port, host;
	__u16	len;
	__u8	data[FRAME_CAP];
};

struct host {
	int	rank, rack, idx, member, ina, agent, tor;
	__u32	ip;			/* host order */
	__u8	mac[6];
	__s32	*in, *out;
	__u8	*sr_have, *ag_have;	/* by seq */
	__u8	*ost;			/* stream state by receiver ordinal */
	__s32	*odata;			/* partial payload by ordinal */
	__u16	*onc;
	__u8	*agst, *aghop;		/* AG sent downstream, by seq */
	__u64	got;			/* result elements held */
	/* the agent's own allgather copy (agent replica), by seq */
	__u8	*aga_have;
	__s32	*aga_out;
	__u64	aga_got;
};

struct world {
	struct rina_job_desc job;
	struct rina_ring ring;
	struct rina_sched s;
	int	n_hosts, n_tors;
	struct host h[MAX_HOSTS];
	struct rina_tor *tor[MAX_TORS];
	int	tor_rack[MAX_TORS];
	struct frame *q;	/* circular */
	unsigned int qh, qn;
	__u64	rng;
	int	loss_pct, dup_pct, reorder;
	__u32	nord;
	__s64	*ref;
	int	rounds;
	int	errors;
	unsigned long frames;
	unsigned long agent_copies;	/* AG_DATA at an agent port */
	unsigned long host_relays;	/* AG_DATA relayed to the agent's rank */
	char	why[256];
};

static struct rina_tor_out tor_out;
static __u16 g_round;		/* allreduce call number */
static __u32 g_slot_base;	/* slots keep counting across calls */

static __u32 rnd(struct world *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (__u32)w->rng;
}

static void error(struct world *w, const char *msg)
{
	if (!w->errors++)
		snprintf(w->why, sizeof(w->why), "%s", msg);
}

/* ---- frames ---------------------------------------------------------- */

static void push(struct world *w, const struct frame *f)
{
	int copies = 1;

	if (w->loss_pct && (int)(rnd(w) % 100) < w->loss_pct)
		return;
	if (w->dup_pct && (int)(rnd(w) % 100) < w->dup_pct)
		copies = 2;
	while (copies--) {
		if (w->qn == QCAP) {
			error(w, "queue overflow");
			return;
		}
		w->q[(w->qh + w->qn++) % QCAP] = *f;
	}
}

static struct host *host_by_ip(struct world *w, __u32 ip)
{
	int i;

	for (i = 0; i < w->n_hosts; i++)
		if (w->h[i].ip == ip)
			return &w->h[i];
	return NULL;
}

/* The spine: to the ToR of an INA rack, else straight to the host. */
static void route(struct world *w, struct frame *f)
{
	__u32 dip = (__u32)f->data[30] << 24 | f->data[31] << 16 |
		    f->data[32] << 8 | f->data[33];
	struct host *h = host_by_ip(w, dip);

	if (!h) {
		error(w, "frame to an unknown address");
		return;
	}
	f->to_tor = h->ina;
	f->tor = h->tor;
	f->port = 0;
	f->host = h->rank;
	push(w, f);
}

/* A host transmits: into its ToR (INA rack) or onto the spine. */
static void host_send(struct world *w, struct host *h, struct frame *f)
{
	if (h->ina) {
		f->to_tor = 1;
		f->tor = h->tor;
		f->port = 1 + h->idx;
		push(w, f);
	} else {
		route(w, f);
	}
}

/*
 * Between the agent and its own rank's worker (one address): the kernel
 * delivers locally; a switch would not send a frame back out of the port
 * it came in on.
 */
static void host_local(struct world *w, struct host *h, struct frame *f)
{
	f->to_tor = 0;
	f->host = h->rank;
	push(w, f);
}

static void put16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 get32(const __u8 *p)
{
	return (__u32)get16(p) << 16 | get16(p + 2);
}

struct addr {
	__u32	ip;
	__u16	port;
	const __u8 *mac;
};

struct rhdr {
	__u8	op, flags, step, hop;
	__u16	src, chunk, slot, n, nc;
	__u32	seq;
};

static void build(struct frame *f, const struct addr *src,
		  const struct addr *dst, const struct rhdr *r,
		  const __u32 *words)
{
	__u8 *d = f->data, *x;
	unsigned int ulen = 8 + RINA_HDR_LEN + 4u * r->n, i, sum = 0;

	memcpy(d, dst->mac, 6);
	memcpy(d + 6, src->mac, 6);
	put16(d + 12, 0x0800);
	x = d + 14;
	x[0] = 0x45;
	x[1] = 0;
	put16(x + 2, 20 + ulen);
	put16(x + 4, 0);
	put16(x + 6, 0x4000);
	x[8] = 64;
	x[9] = 17;
	put16(x + 10, 0);
	put32(x + 12, src->ip);
	put32(x + 16, dst->ip);
	for (i = 0; i < 20; i += 2)
		sum += get16(x + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(x + 10, ~sum & 0xffff);
	x = d + 34;
	put16(x, src->port);
	put16(x + 2, dst->port);
	put16(x + 4, ulen);
	put16(x + 6, 0);
	x = d + 42;
	x[0] = RINA_VERSION << 4 | r->op;
	x[1] = r->flags;
	put16(x + 2, 7);
	put16(x + 4, g_round);
	x[6] = r->step;
	x[7] = r->hop;
	put16(x + 8, r->src);
	put16(x + 10, r->chunk);
	put32(x + 12, r->seq);
	put16(x + 16, r->slot);
	put16(x + 18, r->n);
	put16(x + 20, 0);	/* p_chunk, set below */
	put16(x + 22, r->nc);
	x[24] = 0x80;
	x[25] = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
	put16(x + 26, 0);
	for (i = 0; i < r->n; i++)
		put32(x + 28 + 4 * i, words[i]);
	f->len = (__u16)(34 + ulen);
}

/* ---- the schedule ------------------------------------------------------ */

/*
 * Every (block, chunk, packet) is sent, so that every ordinal exists for
 * every contributor (the slot-reuse argument needs it): a packet whose
 * element range is empty carries one zero word, and receivers ignore it.
 */
static __u32 wire_n(struct world *w, __u64 b, __u32 c, __u32 p)
{
	__u32 n = rina_pkt_len(&w->s, b, c, p);

	return n ? n : 1;
}

static void ord_decode(struct world *w, __u32 member, __u32 o, __u64 *b,
		       __u32 *c, __u32 *p, __u32 *t)
{
	__u32 L = w->s.L, P = w->s.P;

	*b = o / (L * P);
	*t = (o / P) % L;
	*p = o % P;
	*c = rina_sr_chunk(member, *t, L);
}

static struct addr member_addr(struct world *w, unsigned int k)
{
	const struct rina_member *m = &w->ring.m[k];
	struct host *h = &w->h[m->agent];
	struct addr a = { h->ip, m->ina ? RINA_UDP_PORT_AGENT :
				      RINA_UDP_PORT_WORKER, h->mac };

	return a;
}

static struct addr host_addr(struct host *h)
{
	struct addr a = { h->ip, RINA_UDP_PORT_WORKER, h->mac };

	return a;
}

static struct addr agent_addr(struct world *w, struct host *h)
{
	return member_addr(w, h->member);
}

/* The receiver of a host's SR stream: its own member (INA) or the next. */
static __u32 stream_member(struct world *w, struct host *h)
{
	return h->ina ? (__u32)h->member :
			 rina_ring_next(&w->ring, (unsigned int)h->member);
}

static void stream_send(struct world *w, struct host *h, __u32 o, int retx)
{
	__u32 rm = stream_member(w, h), c, p, t, n, i;
	__u64 b, off;
	struct rhdr r = { 0 };
	struct frame f;
	struct addr src = host_addr(h), dst;
	__u32 words[RINA_TOR_ELEMS];

	ord_decode(w, rm, o, &b, &c, &p, &t);
	n = rina_pkt_len(&w->s, b, c, p);
	off = rina_pkt_off(&w->s, b, c, p);
	words[0] = 0;
	r.op = h->ina ? RINA_OP_SR_CONTRIB : RINA_OP_SR_PARTIAL;
	r.flags = retx ? RINA_F_RETX : 0;
	r.step = (__u8)t;
	r.src = (__u16)h->rank;
	r.chunk = (__u16)c;
	r.slot = (__u16)(g_slot_base + o);
	r.n = (__u16)wire_n(w, b, c, p);
	r.seq = rina_seq(&w->s, b, c, p, 0);
	if (h->ina) {
		r.nc = 1;
		for (i = 0; i < n; i++)
			words[i] = (__u32)h->in[off + i];
		dst = agent_addr(w, h);
	} else {
		r.nc = h->onc[o];
		for (i = 0; i < n; i++)
			words[i] = (__u32)h->odata[(__u64)o * w->s.E + i];
		dst = member_addr(w, rm);
	}
	build(&f, &src, &dst, &r, words);
	put16(f.data + 42 + 20, w->s.P);
	host_send(w, h, &f);
}

static void pump(struct world *w, struct host *h)
{
	__u32 o, lo;

	for (lo = 0; lo < w->nord; lo++)
		if (h->ost[lo] != O_NONE && h->ost[lo] != O_ACKED)
			break;
	for (o = lo; o < w->nord && o < lo + w->job.window; o++) {
		if (h->ost[o] == O_READY) {
			h->ost[o] = O_SENT;
			stream_send(w, h, o, 0);
		}
	}
}

static void ag_send(struct world *w, struct host *h, __u32 seq, int retx)
{
	struct rina_pkt_id id;
	struct rhdr r = { 0 };
	struct frame f;
	struct addr src, dst;
	__u32 words[RINA_TOR_ELEMS], i;
	__u64 off;

	rina_seq_decode(&w->s, seq, &id);
	r.op = RINA_OP_AG_DATA;
	r.flags = RINA_F_AG_PHASE | (retx ? RINA_F_RETX : 0);
	r.hop = h->aghop[seq];
	r.src = (__u16)h->rank;
	r.chunk = (__u16)id.chunk;
	r.seq = seq;
	r.n = (__u16)wire_n(w, id.block, id.chunk, id.pkt);
	r.nc = (__u16)w->job.n_ranks;
	off = rina_pkt_off(&w->s, id.block, id.chunk, id.pkt);
	words[0] = 0;
	/* an INA rack's sender of record is its agent: from its own copy */
	for (i = 0; i < rina_pkt_len(&w->s, id.block, id.chunk, id.pkt); i++)
		words[i] = (__u32)(h->ina ? h->aga_out : h->out)[off + i];
	src = h->ina ? agent_addr(w, h) : host_addr(h);
	dst = member_addr(w, rina_ring_next(&w->ring, h->member));
	build(&f, &src, &dst, &r, words);
	put16(f.data + 42 + 20, w->s.P);
	host_send(w, h, &f);
}

static void ack_send(struct world *w, struct host *h, const __u8 *in_frame,
		     __u32 seq, int ag, int from_agent)
{
	struct rhdr r = { 0 };
	struct frame f;
	struct addr src = from_agent ? agent_addr(w, h) : host_addr(h);
	struct addr dst = { get32(in_frame + 26), get16(in_frame + 34),
			    in_frame + 6 };
	__u32 word = seq;

	r.op = RINA_OP_ACK;
	r.flags = ag ? RINA_F_AG_PHASE : 0;
	r.src = (__u16)h->rank;
	r.seq = seq;
	r.n = 1;
	build(&f, &src, &dst, &r, &word);
	host_send(w, h, &f);
}

/* Store AG data in a copy (have, out, got); returns 1 if it was new. */
static int ag_store_in(struct world *w, __u8 *have, __s32 *out, __u64 *got,
		       __u32 seq, const __u8 *payload, unsigned int n)
{
	struct rina_pkt_id id;
	__u64 off;
	unsigned int i;

	if (seq >= w->s.seqs || have[seq])
		return 0;
	rina_seq_decode(&w->s, seq, &id);
	if (!id.ag || n != wire_n(w, id.block, id.chunk, id.pkt)) {
		error(w, "bad AG_DATA");
		return 0;
	}
	n = rina_pkt_len(&w->s, id.block, id.chunk, id.pkt);
	off = rina_pkt_off(&w->s, id.block, id.chunk, id.pkt);
	for (i = 0; i < n; i++)
		out[off + i] = (__s32)get32(payload + 4 * i);
	have[seq] = 1;
	*got += n;
	return 1;
}

/* A worker's copy. */
static int ag_store(struct world *w, struct host *h, __u32 seq,
		    const __u8 *payload, unsigned int n)
{
	return ag_store_in(w, h->ag_have, h->out, &h->got, seq, payload, n);
}

/* ---- hosts ---------------------------------------------------------------- */

static void mark_ordinal(struct world *w, struct host *h, __u32 seq)
{
	struct rina_pkt_id id;
	__u64 o;

	if (seq >= w->s.seqs)
		return;
	rina_seq_decode(&w->s, seq, &id);
	o = rina_ordinal(&w->s, stream_member(w, h), id.block, id.chunk,
			 id.pkt);
	if (o < w->nord && h->ost[o] == O_SENT) {
		if (getenv("TOR_RING_TRACE") && h->ina &&
		    id.chunk == rina_own_chunk((__u32)h->member, w->s.L))
			printf("# trace: host %d own ordinal %llu acked by ACK "
			       "seq %u, data %s\n", h->rank,
			       (unsigned long long)o, seq,
			       h->ag_have[rina_seq(&w->s, id.block, id.chunk,
						   id.pkt, 1)] ? "yes" : "NO");
		h->ost[o] = O_ACKED;
	}
}

static void autonomous_rx(struct world *w, struct host *h, const __u8 *d,
			  unsigned int op, __u32 seq, unsigned int hop,
			  unsigned int n, __u16 nc, const __u8 *pl)
{
	struct rina_pkt_id id;
	__u64 off, o;
	unsigned int i, L = w->s.L, next = rina_ring_next(&w->ring,
							      h->member);

	if (op == RINA_OP_ACK) {
		for (i = 0; i < n; i++) {
			__u32 s = get32(pl + 4 * i);

			if (d[43] & RINA_F_AG_PHASE) {
				if (s < w->s.seqs && h->agst[s] == 1)
					h->agst[s] = 2;
			} else {
				mark_ordinal(w, h, s);
			}
		}
		pump(w, h);
		return;
	}
	if (seq >= w->s.seqs)
		return error(w, "seq out of range");
	rina_seq_decode(&w->s, seq, &id);
	if (op == RINA_OP_SR_PARTIAL) {
		if (n != wire_n(w, id.block, id.chunk, id.pkt))
			return error(w, "partial of the wrong length");
		n = rina_pkt_len(&w->s, id.block, id.chunk, id.pkt);
		if (!h->sr_have[seq]) {
			h->sr_have[seq] = 1;
			off = rina_pkt_off(&w->s, id.block, id.chunk, id.pkt);
			if (id.chunk == rina_own_chunk(h->member, L)) {
				for (i = 0; i < n; i++)
					h->out[off + i] = (__s32)((__u32)
						get32(pl + 4 * i) +
						(__u32)h->in[off + i]);
				h->got += n;
				if (nc + 1 != w->job.n_ranks)
					error(w, "num_contrib != N");
				if (L > 1) {
					__u32 ags = rina_seq(&w->s, id.block,
							     id.chunk, id.pkt, 1);

					h->agst[ags] = 1;
					h->aghop[ags] = 1;
					ag_send(w, h, ags, 0);
				}
			} else {
				o = rina_ordinal(&w->s, next, id.block,
						 id.chunk, id.pkt);
				for (i = 0; i < n; i++)
					h->odata[o * w->s.E + i] = (__s32)((__u32)
						get32(pl + 4 * i) +
						(__u32)h->in[off + i]);
				h->onc[o] = (__u16)(nc + 1);
				if (h->ost[o] == O_WAIT)
					h->ost[o] = O_READY;
			}
		}
		ack_send(w, h, d, seq, 0, 0);
		pump(w, h);
		return;
	}
	if (op == RINA_OP_AG_DATA) {
		if (ag_store(w, h, seq, pl, n) && hop + 1 < L) {
			h->agst[seq] = 1;
			h->aghop[seq] = (__u8)(hop + 1);
			ag_send(w, h, seq, 0);
		}
		ack_send(w, h, d, seq, 1, 0);
		return;
	}
	error(w, "unexpected opcode at an autonomous member");
}

/*
 * The agent port. Allgather data comes as the ToR's agent replica: the
 * agent keeps its own copy (its rank's worker has another), ACKs data of
 * other chunks upstream, and is the sender of record downstream of what
 * the ToR forwarded (received hop h, h + 1 < L) and of the own chunk
 * (hop 0 at DONE).
 */
static void agent_rx(struct world *w, struct host *h, const __u8 *d,
		     unsigned int op, __u32 seq, unsigned int hop,
		     unsigned int n, const __u8 *pl)
{
	unsigned int i, L = w->s.L;

	if (d[43] & RINA_F_SW_BYPASS) {
		error(w, "a packet was bypassed to the agent");
		return;
	}
	if (op == RINA_OP_AG_DATA) {
		struct rina_pkt_id id;
		struct frame rf;
		int is_new;

		if (!(d[43] & RINA_F_FROM_SWITCH) || seq >= w->s.seqs ||
		    70 + 4 * n > FRAME_CAP)
			return error(w, "AG_DATA at the agent port not from "
				     "the ToR");
		w->agent_copies++;
		/* every copy to this host's worker, as core/agent_cache.c */
		rf.len = (__u16)(70 + 4 * n);
		memcpy(rf.data, d, rf.len);
		put16(rf.data + 36, RINA_UDP_PORT_WORKER);
		host_local(w, h, &rf);
		w->host_relays++;
		rina_seq_decode(&w->s, seq, &id);
		is_new = ag_store_in(w, h->aga_have, h->aga_out, &h->aga_got,
				     seq, pl, n);
		if (id.chunk != rina_own_chunk(h->member, L)) {
			struct addr up = member_addr(w, rina_ring_prev(
						&w->ring, h->member));
			struct rhdr r = { 0 };
			struct frame f;
			struct addr src = agent_addr(w, h);
			__u32 word = seq;

			r.op = RINA_OP_ACK;
			r.flags = RINA_F_AG_PHASE;
			r.src = (__u16)h->rank;
			r.seq = seq;
			r.n = 1;
			build(&f, &src, &up, &r, &word);
			host_send(w, h, &f);
		}
		/* agst 2: the downstream ACK came first, nothing owed */
		if (is_new && hop + 1 < L && !h->agst[seq]) {
			h->agst[seq] = 1;
			h->aghop[seq] = (__u8)(hop + 1);
		}
		return;
	}
	if (op == RINA_OP_ACK && (d[43] & RINA_F_AG_PHASE)) {
		for (i = 0; i < n; i++) {
			__u32 s = get32(pl + 4 * i);

			if (s < w->s.seqs)
				h->agst[s] = 2;
		}
		return;
	}
	if (op == RINA_OP_NACK) {
		/* repair to the worker that asked, from the agent's copy */
		struct host *req = host_by_ip(w, get32(d + 26));

		for (i = 0; req && i < n; i++) {
			__u32 s = get32(pl + 4 * i);
			struct rina_pkt_id id;
			struct rhdr r = { 0 };
			struct frame f;
			struct addr src = agent_addr(w, h), dst;
			__u32 words[RINA_TOR_ELEMS], k;
			__u64 off;

			if (s >= w->s.seqs || !h->aga_have[s])
				continue;
			rina_seq_decode(&w->s, s, &id);
			r.op = RINA_OP_AG_DATA;
			r.flags = RINA_F_AG_PHASE | RINA_F_RETX;
			r.src = (__u16)h->rank;
			r.chunk = (__u16)id.chunk;
			r.seq = s;
			r.hop = (__u8)(w->s.L - 1);
			r.n = (__u16)wire_n(w, id.block, id.chunk, id.pkt);
			r.nc = (__u16)w->job.n_ranks;
			off = rina_pkt_off(&w->s, id.block, id.chunk, id.pkt);
			words[0] = 0;
			for (k = 0; k < rina_pkt_len(&w->s, id.block, id.chunk,
						     id.pkt); k++)
				words[k] = (__u32)h->aga_out[off + k];
			dst = host_addr(req);
			build(&f, &src, &dst, &r, words);
			put16(f.data + 42 + 20, w->s.P);
			if (req == h)
				host_local(w, h, &f);
			else
				host_send(w, h, &f);
		}
		return;
	}
	error(w, "unexpected packet at the agent port");
}

/* A worker of an INA rack (the agent's rank too): its own copy only. */
static void ina_worker_rx(struct world *w, struct host *h, unsigned int op,
			  __u32 seq, unsigned int n, const __u8 *pl)
{
	struct rina_pkt_id id;
	unsigned int i, L = w->s.L;

	if (op == RINA_OP_ACK) {
		for (i = 0; i < n; i++)
			mark_ordinal(w, h, get32(pl + 4 * i));
		pump(w, h);
		return;
	}
	if (op != RINA_OP_AG_DATA || seq >= w->s.seqs)
		return error(w, "unexpected packet at an INA worker");
	rina_seq_decode(&w->s, seq, &id);
	ag_store(w, h, seq, pl, n);
	if (id.chunk == rina_own_chunk(h->member, L)) {
		__u64 o = rina_ordinal(&w->s, h->member, id.block, id.chunk,
				       id.pkt);

		if (h->ost[o] == O_SENT)
			h->ost[o] = O_ACKED;
		pump(w, h);
	}
}

static void host_rx(struct world *w, struct host *h, const __u8 *d,
		    unsigned int len)
{
	unsigned int op, n, hop;
	__u32 seq;

	if (memcmp(d, h->mac, 6))
		return;		/* not ours: an L2 flood copy */
	if (len >= 70 && get16(d + 46) != g_round)
		return;		/* a late frame of an earlier call */
	if (len < 70 || rina_hdr_check((const struct rina_hdr *)(d + 42),
				       len - 42)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "host %d got a malformed packet: "
			 "len %u op %u n %u err %d", h->rank, len, d[42],
			 get16(d + 60), len < 70 ? -1 : (int)rina_hdr_check(
			 (const struct rina_hdr *)(d + 42), len - 42));
		error(w, msg);
		return;
	}
	op = d[42] & 0xf;
	hop = d[49];
	seq = get32(d + 54);
	n = get16(d + 60);
	if (get16(d + 36) == RINA_UDP_PORT_AGENT) {
		if (!h->agent)
			return error(w, "agent-port packet at a non-agent");
		agent_rx(w, h, d, op, seq, hop, n, d + 70);
	} else if (h->ina) {
		ina_worker_rx(w, h, op, seq, n, d + 70);
	} else {
		autonomous_rx(w, h, d, op, seq, hop, n, get16(d + 64),
			      d + 70);
	}
}

static void tick(struct world *w)
{
	int i;
	__u32 o, s, k;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		for (o = 0; o < w->nord; o++)
			if (h->ost[o] == O_SENT)
				stream_send(w, h, o, 1);
		for (s = 0; s < w->s.seqs; s++)
			if (h->agst[s] == 1)
				ag_send(w, h, s, 1);
		if (h->ina) {
			/* NACK up to 64 missing allgather seqs */
			__u32 miss[64];
			struct rhdr r = { 0 };
			struct frame f;
			struct addr src = host_addr(h), dst = agent_addr(w, h);
			struct rina_pkt_id id;

			for (s = 0, k = 0; s < w->s.seqs && k < 64; s++) {
				rina_seq_decode(&w->s, s, &id);
				if (!id.ag || h->ag_have[s] ||
				    !rina_pkt_len(&w->s, id.block, id.chunk,
						  id.pkt) ||
				    id.chunk == rina_own_chunk(h->member,
							       w->s.L))
					continue;
				miss[k++] = s;
			}
			if (!k)
				continue;
			r.op = RINA_OP_NACK;
			r.flags = RINA_F_AG_PHASE;
			r.src = (__u16)h->rank;
			r.n = (__u16)k;
			r.seq = miss[0];
			build(&f, &src, &dst, &r, miss);
			if (h->agent)
				host_local(w, h, &f);
			else
				host_send(w, h, &f);
		}
	}
}

/* ---- the world ------------------------------------------------------------ */

struct topo {
	const char *name;
	int	n_racks;
	int	ina[MAX_TORS + 4];
	int	hosts[MAX_TORS + 4];
	__u32	count;
	int	loss, dup, reorder;
	__u16	elems, window;
	int	seeds;		/* runs with different seeds (faults) */
	int	rounds;		/* allreduce calls, switch state kept */
};

static int setup(struct world *w, const struct topo *t)
{
	struct rina_job_desc *job = &w->job;
	int r, k, rank = 0;

	memset(job, 0, sizeof(*job));
	job->job_id = 7;
	job->elems = t->elems;
	job->window = t->window;
	job->timeout_ms = 1000;
	job->rto_us = 1000;
	job->n_racks = (__u16)t->n_racks;
	w->n_tors = 0;
	for (k = 0; k < t->n_racks; k++) {
		job->racks[k].id = (__u16)k;
		job->racks[k].ina = (__u8)t->ina[k];
		for (r = 0; r < t->hosts[k]; r++, rank++) {
			struct host *h = &w->h[rank];

			memset(h, 0, sizeof(*h));
			h->rank = rank;
			h->rack = k;
			h->idx = r;
			h->ip = 198u << 24 | 18u << 16 | (__u32)k << 8 |
				(__u32)(10 + r);
			h->mac[0] = 2;
			h->mac[4] = (__u8)k;
			h->mac[5] = (__u8)(10 + r);
			job->ranks[rank].ip = htonl(h->ip);
			job->ranks[rank].port = htons(RINA_UDP_PORT_WORKER);
			job->ranks[rank].rack = (__u16)k;
			memcpy(job->ranks[rank].mac, h->mac, 6);
		}
		if (t->ina[k])
			w->tor_rack[w->n_tors++] = k;
	}
	w->n_hosts = rank;
	job->n_ranks = (__u16)rank;
	if (rina_job_validate(job).err != RINA_JOB_OK)
		return -1;
	rina_ring_build(job, 1, &w->ring);
	if (rina_sched_init(&w->s, t->count, w->ring.L, job->elems,
			    job->window) != RINA_SCHED_OK)
		return -1;
	w->nord = (__u32)(w->s.nblocks * w->s.L * w->s.P);
	return 0;
}

static int install(struct world *w)
{
	int i, k;
	char err[256], *buf = NULL, *line, *save;
	size_t sz = 0;

	for (i = 0; i < w->n_tors; i++) {
		struct rina_p4cfg o;
		FILE *f = open_memstream(&buf, &sz);
		int rack = w->tor_rack[i];

		rina_p4cfg_defaults(&o);
		o.rack = (unsigned int)rack;
		o.uplink = 0;
		o.l2 = 1;
		for (k = 0; k < w->n_hosts; k++)
			if (w->h[k].rack == rack)
				o.port_of[k] = 1 + w->h[k].idx;
		if (!f || rina_p4cfg_write(f, &w->job, &o, err, sizeof(err))) {
			printf("# install: %s\n", err);
			return -1;
		}
		fclose(f);
		rina_tor_init(w->tor[i]);
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (rina_tor_cli(w->tor[i], line, err, sizeof(err))) {
				printf("# cli '%s': %s\n", line, err);
				return -1;
			}
		}
		free(buf);
		buf = NULL;
		/* remote MACs to the uplink, flood group 1 */
		for (k = 0; k < w->n_hosts; k++) {
			char cmd[160];
			const __u8 *m = w->h[k].mac;

			if (w->h[k].rack == rack)
				continue;
			snprintf(cmd, sizeof(cmd),
				 "table_add RinaIngress.l2_fwd.l2_fwd "
				 "RinaIngress.l2_fwd.set_port "
				 "%02x:%02x:%02x:%02x:%02x:%02x => 0",
				 m[0], m[1], m[2], m[3], m[4], m[5]);
			if (rina_tor_cli(w->tor[i], cmd, err, sizeof(err)))
				return -1;
		}
	}
	return 0;
}

static __u64 jc(struct world *w, int tor, int id)
{
	return w->tor[tor]->job_ctr[id];
}

static __u64 jo(struct world *w, int tor, int id)
{
	return w->tor[tor]->job_out[id];
}

static void dump(struct world *w)
{
	int i, k;
	__u32 o;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		printf("# host %d member %d ina %d agent %d got %llu:", i,
		       h->member, h->ina, h->agent,
		       (unsigned long long)h->got);
		for (o = 0; o < w->nord && o < 64; o++)
			printf("%d", h->ost[o]);
		printf("\n");
		for (o = 0; o < w->s.seqs; o++) {
			struct rina_pkt_id id;

			rina_seq_decode(&w->s, o, &id);
			if (id.ag && !h->ag_have[o] &&
			    rina_pkt_len(&w->s, id.block, id.chunk, id.pkt))
				printf("#   missing AG seq %u (block %llu chunk "
				       "%u pkt %u)%s\n", o,
				       (unsigned long long)id.block, id.chunk,
				       id.pkt, id.chunk == rina_own_chunk(
				       (__u32)h->member, w->s.L) ? " own" : "");
		}
	}
	for (k = 0; k < w->n_tors; k++) {
		printf("# tor %d:", k);
		for (i = 0; i < __RINA_TC_MAX; i++)
			printf(" %llu", (unsigned long long)jc(w, k, i));
		printf(" |");
		for (i = 0; i < __RINA_TO_MAX; i++)
			printf(" %llu", (unsigned long long)jo(w, k, i));
		printf("\n");
		for (i = 0; i < 2 * w->job.window; i++) {
			unsigned int r = (i / w->job.window) *
				RINA_TOR_POOL_SIZE + i % w->job.window;
			struct rina_tor *t = w->tor[k];

			printf("#   slot set %u idx %u: id %u seq %u bitmap %x "
			       "state %u\n", i / w->job.window,
			       i % w->job.window, t->slot_id[r], t->slot_seq[r],
			       t->slot_bitmap[r], t->slot_state[r]);
		}
	}
}

/* One allreduce call; returns the number of timeouts it needed. */
static int call(struct world *w, const struct topo *t)
{
	int i, k, ticks = 0, done;
	__u64 e;

	memset(w->ref, 0, (t->count + 1) * sizeof(*w->ref));
	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		memset(h->out, 0, (t->count + 1) * 4);
		memset(h->sr_have, 0, w->s.seqs + 1);
		memset(h->ag_have, 0, w->s.seqs + 1);
		memset(h->aga_have, 0, w->s.seqs + 1);
		memset(h->aga_out, 0, (t->count + 1) * 4);
		h->aga_got = 0;
		memset(h->agst, 0, w->s.seqs + 1);
		memset(h->aghop, 0, w->s.seqs + 1);
		memset(h->ost, 0, w->nord + 1);
		memset(h->onc, 0, (w->nord + 1) * 2);
		h->got = 0;
		for (e = 0; e < t->count; e++) {
			h->in[e] = (__s32)(rnd(w) % 2000001) - 1000000;
			w->ref[e] += h->in[e];
		}
	}
	/* stream state: who sends which receiver ordinal */
	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];
		__u32 rm = stream_member(w, h), o, c, p, tt;
		__u64 b;

		for (o = 0; o < w->nord; o++) {
			ord_decode(w, rm, o, &b, &c, &p, &tt);
			if (h->ina) {
				h->ost[o] = O_READY;
			} else if (c == (__u32)h->member) {
				__u64 off = rina_pkt_off(&w->s, b, c, p);
				__u32 n = rina_pkt_len(&w->s, b, c, p), j;

				for (j = 0; j < n; j++)
					h->odata[(__u64)o * w->s.E + j] =
						h->in[off + j];
				h->onc[o] = 1;
				h->ost[o] = O_READY;
			} else if (c != rm) {
				h->ost[o] = O_WAIT;
			}
		}
	}
	for (i = 0; i < w->n_hosts; i++)
		pump(w, &w->h[i]);

	for (;;) {
		while (w->qn && !w->errors) {
			static struct frame f;
			unsigned int pick = w->qh;

			if (w->reorder)
				pick = (w->qh + rnd(w) %
					 (w->qn < 8 ? w->qn : 8)) % QCAP;
			f = w->q[pick];
			w->q[pick] = w->q[w->qh];
			w->qh = (w->qh + 1) % QCAP;
			w->qn--;
			w->frames++;
			if (!f.to_tor) {
				host_rx(w, &w->h[f.host], f.data, f.len);
				continue;
			}
			{
				__u64 st = w->tor[f.tor]->job_ctr[RINA_TC_STALE];
				__u16 sl = get16(f.data + 58);
				unsigned int ri = (sl & (2u * w->job.window) ?
					RINA_TOR_POOL_SIZE : 0) +
					(sl & (2u * w->job.window - 1));
				struct rina_tor *T = w->tor[f.tor];
				__u16 oid = T->slot_id[ri];
				__u32 oseq = T->slot_seq[ri];
				__u8 ost = T->slot_state[ri];
				__u32 obm = T->slot_bitmap[ri];

				rina_tor_process(w->tor[f.tor],
						 (unsigned int)f.port, f.data,
						 f.len, &tor_out);
				if (getenv("TOR_RING_TRACE") &&
				    T->job_ctr[RINA_TC_STALE] != st)
					printf("# trace: tor %d port %d stale op %u "
					       "src %u slot %u seq %u; occupant id %u "
					       "seq %u state %u bitmap %x\n", f.tor,
					       f.port, f.data[42] & 0xf,
					       get16(f.data + 50), sl,
					       get32(f.data + 54), oid, oseq, ost, obm);
			}
			for (k = 0; k < (int)tor_out.n; k++) {
				struct frame g;

				g.len = tor_out.pkt[k].len;
				memcpy(g.data, tor_out.pkt[k].data, g.len);
				if (tor_out.pkt[k].port == 0) {
					route(w, &g);
				} else {
					struct host *h = NULL;
					int j;

					for (j = 0; j < w->n_hosts; j++)
						if (w->h[j].rack ==
						    w->tor_rack[f.tor] &&
						    1 + w->h[j].idx ==
						    tor_out.pkt[k].port)
							h = &w->h[j];
					if (!h) {
						error(w, "frame to a dead port");
						continue;
					}
					g.to_tor = 0;
					g.host = h->rank;
					push(w, &g);
				}
			}
		}
		if (w->errors)
			break;
		/* done: every rank has the result and has drained its windows */
		done = 1;
		for (i = 0; i < w->n_hosts; i++) {
			struct host *h = &w->h[i];
			__u32 o, q;

			if (h->got != t->count)
				done = 0;
			for (o = 0; done && o < w->nord; o++)
				if (h->ost[o] != O_NONE && h->ost[o] != O_ACKED)
					done = 0;
			for (q = 0; done && q < w->s.seqs; q++)
				if (h->agst[q] == 1)
					done = 0;
		}
		if (done)
			break;
		if (++ticks > MAX_TICKS) {
			error(w, "no progress (watchdog)");
			if (getenv("TOR_RING_DEBUG"))
				dump(w);
			break;
		}
		tick(w);
	}
	for (i = 0; !w->errors && i < w->n_hosts; i++)
		for (e = 0; e < t->count; e++)
			if (w->h[i].out[e] != (__s32)w->ref[e]) {
				snprintf(w->why, sizeof(w->why),
					 "call %u rank %d element %llu: %d, "
					 "expected %d", g_round, i,
					 (unsigned long long)e, w->h[i].out[e],
					 (__s32)w->ref[e]);
				w->errors++;
				break;
			}
	return ticks;
}

static int run(const struct topo *t, struct world *w, char *diag,
	       size_t dlen, __u64 seed)
{
	int i, k, ticks = 0;

	if (setup(w, t)) {
		snprintf(diag, dlen, "bad topology");
		return -1;
	}
	w->loss_pct = t->loss;
	w->dup_pct = t->dup;
	w->reorder = t->reorder;
	w->rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0x2545f4914f6cdd1dULL);
	w->qn = 0;
	w->qh = 0;
	w->errors = 0;
	w->frames = 0;
	w->agent_copies = 0;
	w->host_relays = 0;
	w->ref = calloc(t->count + 1, sizeof(*w->ref));
	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		h->member = w->ring.member_of[i];
		h->ina = w->ring.m[h->member].ina;
		h->agent = h->ina && w->ring.m[h->member].agent == i;
		for (k = 0; k < w->n_tors; k++)
			if (w->tor_rack[k] == h->rack)
				h->tor = k;
		h->in = calloc(t->count + 1, 4);
		h->out = calloc(t->count + 1, 4);
		h->sr_have = calloc(w->s.seqs + 1, 1);
		h->ag_have = calloc(w->s.seqs + 1, 1);
		h->aga_have = calloc(w->s.seqs + 1, 1);
		h->aga_out = calloc(t->count + 1, 4);
		h->agst = calloc(w->s.seqs + 1, 1);
		h->aghop = calloc(w->s.seqs + 1, 1);
		h->ost = calloc(w->nord + 1, 1);
		h->odata = calloc((size_t)w->nord * w->s.E + 1, 4);
		h->onc = calloc(w->nord + 1, 2);
	}
	if (install(w)) {
		snprintf(diag, dlen, "install failed");
		return -1;
	}
	w->rounds = t->rounds;
	g_slot_base = 65536 - w->nord;	/* the 16-bit slot wraps */
	for (g_round = 1; g_round <= t->rounds && !w->errors; g_round++) {
		ticks += call(w, t);
		g_slot_base += w->nord;
	}
	snprintf(diag, dlen, "L %u P %u blocks %llu, %d calls, %lu frames, "
		 "%d timeouts, %lu agent copies, %lu relayed to their hosts",
		 w->s.L, w->s.P, (unsigned long long)w->s.nblocks, t->rounds,
		 w->frames, ticks, w->agent_copies, w->host_relays);
	return w->errors ? -1 : 0;
}

/*
 * Without faults, the counters follow from the schedule, and each agent
 * got every allgather packet (other chunks and its own) through its
 * replica alone.
 */
static int check_counters(struct world *w, char *diag, size_t dlen)
{
	__u64 copies = 0;
	int i;

	for (i = 0; i < w->n_hosts; i++) {
		if (w->h[i].agent && w->h[i].aga_got != w->h[i].got) {
			snprintf(diag, dlen, "agent %d holds %llu of %llu "
				 "elements", i,
				 (unsigned long long)w->h[i].aga_got,
				 (unsigned long long)w->h[i].got);
			return -1;
		}
	}
	if (w->host_relays != w->agent_copies) {
		snprintf(diag, dlen, "%lu of %lu agent copies relayed to the "
			 "agent's host", w->host_relays, w->agent_copies);
		return -1;
	}

	for (i = 0; i < w->n_tors; i++) {
		const struct rina_member *me = NULL;
		__u64 pk = 0, own = 0, first = 0, fwd = 0, b;
		__u32 c, p, k, L = w->s.L;

		for (k = 0; k < L; k++)
			if (w->ring.m[k].ina &&
			    w->ring.m[k].rack == w->tor_rack[i])
				me = &w->ring.m[k];
		k = (__u32)(me - w->ring.m);
		/* per call, times the calls made */
		for (b = 0; b < w->s.nblocks; b++)
			for (c = 0; c < L; c++)
				for (p = 0; p < w->s.P; p++) {
					pk++;
					if (c == rina_own_chunk(k, L))
						own++;
					if (c == k)
						first++;
					/* AG from the owner (c - 1) arrives
					 * with hop d and goes on if d + 1 < L */
					if (((k + L - (c + L - 1) % L) % L) + 1 < L &&
					    c != rina_own_chunk(k, L))
						fwd++;
				}
		pk *= (__u64)w->rounds;
		own *= (__u64)w->rounds;
		first *= (__u64)w->rounds;
		fwd *= (__u64)w->rounds;
		if (jc(w, i, RINA_TC_CONTRIB_IN) != me->n_local * pk ||
		    jc(w, i, RINA_TC_SLOT_DONE) != pk ||
		    jc(w, i, RINA_TC_PARTIAL_IN) != (L > 1 ? pk - first : 0) ||
		    jo(w, i, RINA_TO_PARTIAL_OUT) != pk - own ||
		    jo(w, i, RINA_TO_AG_OUT) != (L > 1 ? own + fwd : 0) ||
		    /* none to the agent's host (rw_host): it relays */
		    jo(w, i, RINA_TO_AG_MCAST) != (me->n_local - 1u) * pk ||
		    jo(w, i, RINA_TO_AG_AGENT) != pk ||
		    jo(w, i, RINA_TO_ACK_OUT) != (L > 1 ? pk - first : 0) ||
		    jc(w, i, RINA_TC_DUP) || jc(w, i, RINA_TC_STALE) ||
		    jc(w, i, RINA_TC_COLLISION) || jc(w, i, RINA_TC_BAD)) {
			snprintf(diag, dlen, "tor %d: contrib_in %llu (m x %llu) "
				 "done %llu partial_in %llu partial_out %llu "
				 "ag_out %llu ag_mcast %llu ag_agent %llu "
				 "ack_out %llu dup %llu stale %llu "
				 "collision %llu",
				 i, (unsigned long long)jc(w, i, RINA_TC_CONTRIB_IN),
				 (unsigned long long)pk,
				 (unsigned long long)jc(w, i, RINA_TC_SLOT_DONE),
				 (unsigned long long)jc(w, i, RINA_TC_PARTIAL_IN),
				 (unsigned long long)jo(w, i, RINA_TO_PARTIAL_OUT),
				 (unsigned long long)jo(w, i, RINA_TO_AG_OUT),
				 (unsigned long long)jo(w, i, RINA_TO_AG_MCAST),
				 (unsigned long long)jo(w, i, RINA_TO_AG_AGENT),
				 (unsigned long long)jo(w, i, RINA_TO_ACK_OUT),
				 (unsigned long long)jc(w, i, RINA_TC_DUP),
				 (unsigned long long)jc(w, i, RINA_TC_STALE),
				 (unsigned long long)jc(w, i, RINA_TC_COLLISION));
			return -1;
		}
		copies += jo(w, i, RINA_TO_AG_AGENT);
	}
	if (copies != w->agent_copies) {
		snprintf(diag, dlen, "agents took %lu copies, the ToRs sent "
			 "%llu", w->agent_copies, (unsigned long long)copies);
		return -1;
	}
	return 0;
}

static void free_world(struct world *w)
{
	int i;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		free(h->in);
		free(h->out);
		free(h->sr_have);
		free(h->ag_have);
		free(h->aga_have);
		free(h->aga_out);
		free(h->agst);
		free(h->aghop);
		free(h->ost);
		free(h->odata);
		free(h->onc);
	}
	free(w->ref);
}

static const struct topo topos[] = {
	{ "1x1+ina3+1x1 clean", 3, { 0, 1, 0 }, { 1, 3, 1 }, 3000, 0, 0, 0, 64, 8, 1, 3 },
	{ "ina2 alone (L=1)", 1, { 1 }, { 2 }, 500, 0, 0, 0, 64, 4, 1, 3 },
	{ "ina2+1x1 (L=2), count 777", 2, { 1, 0 }, { 2, 1 }, 777, 0, 0, 0, 32, 4, 1, 3 },
	{ "ina2+ina3+2x1 two ToRs (L=4)", 3, { 1, 1, 0 }, { 2, 3, 2 }, 5000, 0, 0, 0, 64, 8, 1, 3 },
	{ "count 2 < L", 3, { 0, 1, 0 }, { 1, 3, 1 }, 2, 0, 0, 0, 64, 8, 1, 3 },
	{ "W = P + 1 = 2", 3, { 0, 1, 0 }, { 1, 2, 1 }, 2000, 0, 0, 0, 16, 2, 1, 3 },
	{ "every rack INA, 2x2 (L=2)", 2, { 1, 1 }, { 2, 2 }, 4096, 0, 0, 0, 64, 16, 1, 3 },
	{ "5% loss 5% dup reordered x20", 3, { 0, 1, 0 }, { 1, 3, 1 }, 3000, 5, 5, 1, 64, 8, 20, 3 },
	{ "10% loss two ToRs x20", 3, { 1, 1, 0 }, { 2, 3, 2 }, 4000, 10, 0, 1, 64, 8, 20, 3 },
	{ "10% dup reordered L=5 x10", 4, { 1, 0, 1, 0 }, { 3, 2, 2, 1 }, 2500, 0, 10, 1, 16, 8, 10, 3 },
	{ "10% loss 10% dup W=2 x10", 3, { 0, 1, 0 }, { 1, 2, 1 }, 1000, 10, 10, 1, 16, 2, 10, 3 },
	{ "10% loss every rack INA x10", 3, { 1, 1, 1 }, { 2, 2, 3 }, 3000, 10, 5, 1, 64, 8, 10, 3 },
};

int main(void)
{
	unsigned int i, n = sizeof(topos) / sizeof(topos[0]);
	static struct world w;
	int k;

	w.q = malloc(sizeof(*w.q) * QCAP);
	for (k = 0; k < MAX_TORS; k++)
		w.tor[k] = malloc(sizeof(struct rina_tor));
	if (!w.q || !w.tor[MAX_TORS - 1])
		return 1;
	ktap_plan((int)n);
	for (i = 0; i < n; i++) {
		char diag[512] = "";
		int seed, bad = 0;
		unsigned long frames = 0;

		int seeds = topos[i].seeds;

		if (seeds > 1 && getenv("TOR_RING_SEEDS"))
			seeds = atoi(getenv("TOR_RING_SEEDS"));
		for (seed = 0; seed < seeds && !bad; seed++) {
			bad = run(&topos[i], &w, diag, sizeof(diag),
				  (__u64)seed + 1);
			frames += w.frames;
			if (!bad && !topos[i].loss && !topos[i].dup)
				bad = check_counters(&w, diag, sizeof(diag));
			if (bad)
				printf("# %s, seed %d: %s\n", topos[i].name,
				       seed + 1, w.errors ? w.why : "");
			free_world(&w);
		}
		printf("# %s%s\n", diag, seeds > 1 ? " (last seed)" : "");
		ktap_result(!bad, "%s # %lu frames", topos[i].name, frames);
	}
	return ktap_finish();
}
