// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The agent of an INA rack, as a librina thread of the rack's lowest rank.
 * It owns the rack's ring address (agent IP, agent port) and does what
 * the ToR cannot or does not:
 *
 *  - software aggregation with the ToR's slot rules (core/slot.h) for
 *    everything that reaches it: the whole rack's traffic when no ToR
 *    aggregates, bypassed or colliding packets otherwise;
 *  - the allgather sender of record: it acknowledges allgather data to
 *    the upstream member once it holds a copy, and retransmits what the
 *    rack sent downstream until the downstream member acknowledges it;
 *  - allgather repair: NACKed data is sent again to the local worker;
 *  - the rack's handshakes with both ring neighbours and its workers.
 *
 * Documentation/protocol-ina.md gives the rules this follows.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"
#include "wire.h"
#include "schedule.h"
#include "slot.h"
#include "keymap.h"

/*
 * One aggregation in progress or done, keyed by (round, seq). Software
 * has memory to spare, so unlike the ToR's 2W registers there is one
 * entry per packet of the last two rounds: no collisions, ever, whatever
 * order the upstream member sends in.
 */
struct agg_ent {
	struct rina_slot s;
	uint16_t	chunk, p_chunk, n_elem, step;
	uint8_t		dtype_op, flags;
	int32_t		vals[];
};

/* A cached allgather packet: for repair and for retransmission. */
struct ag_ent {
	uint16_t	round;
	uint32_t	seq;
	uint32_t	len;		/* bytes in pkt */
	bool		fwd;		/* went downstream: needs its ACK */
	bool		acked;
	uint8_t		hop;		/* hop downstream */
	uint32_t	in_fifo;	/* references from the FIFO */
	uint32_t	tries;
	uint64_t	t_sent, rto;
	uint8_t		pkt[];		/* as sent to the local workers */
};

struct rina_agent {
	struct rina_comm c;		/* the agent's own endpoint and counters */
	pthread_t	thread;
	volatile int	stop, abort;
	uint32_t	W, L, i, m;
	uint32_t	local_mask, up_bit;
	struct rina_addr local[32];
	volatile bool	bye_from[32];

	struct keymap	agg;		/* (round, seq) -> struct agg_ent */
	struct keymap	ag;		/* (round, seq) -> struct ag_ent */
	struct ag_ent	**fifo;		/* awaiting ACK, in send order */
	uint32_t	fifo_head, fifo_tail, fifo_cap;
	uint64_t	rack_ts;
	uint16_t	max_round;
	struct rina_agent_stats st;

	struct rina_msg	tx[RINA_BATCH];
	uint8_t		*txbuf;
	int		ntx;
};

/* ---- sending ----------------------------------------------------- */

static void aflush(struct rina_agent *a)
{
	if (a->ntx)
		rina_xmit(&a->c, a->tx, a->ntx);
	a->ntx = 0;
}

/* Queue a copy of pkt (len bytes) to addr, with header tweaks applied. */
static struct rina_hdr *aqueue(struct rina_agent *a, const void *pkt,
			       uint32_t len, const struct rina_addr *to)
{
	uint8_t *buf;

	if (a->ntx == RINA_BATCH)
		aflush(a);
	buf = a->txbuf + (size_t)a->ntx * a->c.max_msg;
	memcpy(buf, pkt, len);
	a->tx[a->ntx].buf = buf;
	a->tx[a->ntx].len = len;
	a->tx[a->ntx].addr = *to;
	a->ntx++;
	return (struct rina_hdr *)buf;
}

static void send_ack(struct rina_agent *a, const struct rina_addr *to,
		     uint16_t round, uint32_t seq, uint8_t flags)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	rina_hdr_init(&a->c, &p.h, RINA_OP_ACK, round);
	p.h.flags = flags;
	p.h.seq = htonl(seq);
	p.h.n_elem = htons(1);
	p.seq = htonl(seq);
	aqueue(a, &p, sizeof(p), to);
	a->st.acks_out++;
}

static void to_workers(struct rina_agent *a, const void *pkt, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < a->m; k++)
		aqueue(a, pkt, len, &a->local[k]);
	a->st.mcast_out += a->m;
}

/* ---- the allgather cache ----------------------------------------- */

static void fifo_push(struct rina_agent *a, struct ag_ent *e)
{
	uint32_t next = (a->fifo_tail + 1) & (a->fifo_cap - 1);

	if (next == a->fifo_head) {
		struct ag_ent **f = calloc(a->fifo_cap * 2, sizeof(*f));
		uint32_t j, n = 0;

		if (!f)
			return;
		for (j = a->fifo_head; j != a->fifo_tail;
		     j = (j + 1) & (a->fifo_cap - 1))
			f[n++] = a->fifo[j];
		free(a->fifo);
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

static struct ag_ent *fifo_pop(struct rina_agent *a)
{
	struct ag_ent *e = a->fifo[a->fifo_head];

	a->fifo_head = (a->fifo_head + 1) & (a->fifo_cap - 1);
	e->in_fifo--;
	return e;
}

/* Keep rounds r-1 and r; never what the FIFO still points at. */
static bool ag_keep(void *val, void *arg)
{
	const struct ag_ent *e = val;
	const struct rina_agent *a = arg;

	return e->in_fifo || (e->fwd && !e->acked) ||
	       rina_round_cmp(e->round, a->max_round) >= -1;
}

static bool agg_keep(void *val, void *arg)
{
	const struct agg_ent *e = val;
	const struct rina_agent *a = arg;

	return rina_round_cmp(e->s.round, a->max_round) >= -1;
}

static void purge(struct rina_agent *a)
{
	keymap_filter(&a->ag, ag_keep, free, a);
	keymap_filter(&a->agg, agg_keep, free, a);
}

/*
 * Keep an allgather packet (header + payload as the local workers get
 * it). fwd: it also goes downstream with hop "hop".
 */
static struct ag_ent *ag_store(struct rina_agent *a, const struct rina_hdr *h,
			       uint32_t len, bool fwd, uint8_t hop)
{
	struct ag_ent *e = malloc(sizeof(*e) + len);

	if (!e)
		return NULL;
	memcpy(e->pkt, h, len);
	e->round = ntohs(h->round);
	e->seq = ntohl(h->seq);
	e->len = len;
	e->fwd = fwd;
	e->acked = false;
	e->hop = hop;
	e->in_fifo = 0;
	e->tries = 0;
	e->t_sent = rina_now_us();
	e->rto = rina_rto(&a->c);
	if (keymap_put(&a->ag, e->round, e->seq, e)) {
		free(e);
		return NULL;
	}
	if (fwd)
		fifo_push(a, e);
	return e;
}

static void ag_send_down(struct rina_agent *a, struct ag_ent *e, bool retx)
{
	struct rina_hdr *h = aqueue(a, e->pkt, e->len, &a->c.next);

	h->hop = e->hop;
	h->step = e->hop;
	if (retx) {
		h->flags |= RINA_F_RETX;
		a->st.ag_retransmits++;
	}
	a->st.ag_out++;
}

/* Retransmit downstream what is lost (RACK) or overdue (timer). */
static uint64_t ag_retransmit(struct rina_agent *a)
{
	uint64_t now = rina_now_us(), reo = a->c.srtt_us / 4;
	bool timer_used = false;

	while (a->fifo_head != a->fifo_tail) {
		struct ag_ent *e = a->fifo[a->fifo_head];

		if (e->acked) {
			fifo_pop(a);
			continue;
		}
		if (e->t_sent + reo >= a->rack_ts && e->t_sent + e->rto > now)
			return e->t_sent + e->rto - now;
		if (e->t_sent + reo >= a->rack_ts) {
			/* timer: one per pass, as ring.c explains */
			if (timer_used)
				return 0;
			timer_used = true;
		}
		fifo_pop(a);
		ag_send_down(a, e, true);
		e->tries++;
		e->t_sent = now;
		e->rto = e->rto * 2 > RINA_RTO_MAX_US ? RINA_RTO_MAX_US :
			 e->rto * 2;
		fifo_push(a, e);
	}
	return UINT64_MAX;
}

/* ---- aggregation -------------------------------------------------- */

static int local_index(const struct rina_agent *a, const struct rina_addr *f)
{
	uint32_t k;

	for (k = 0; k < a->m; k++)
		if (rina_addr_eq(&a->local[k], f))
			return (int)k;
	return -1;
}

/* Emit a completed slot's result (also used to re-emit it). */
static void emit_result(struct rina_agent *a, struct agg_ent *sl,
			const struct rina_hdr *in, const struct rina_addr *from,
			int retx)
{
	uint8_t buf[RINA_HDR_LEN + 4 * RINA_MAX_ELEMS];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	uint32_t len = RINA_HDR_LEN + 4u * sl->n_elem;
	bool own = sl->chunk == rina_own_chunk(a->i, a->L);

	rina_hdr_init(&a->c, h, own ? RINA_OP_AG_DATA : RINA_OP_SR_PARTIAL,
		      sl->s.round);
	h->chunk = htons(sl->chunk);
	h->p_chunk = htons(sl->p_chunk);
	h->n_elem = htons(sl->n_elem);
	h->num_contrib = htons(sl->s.ncontrib);
	h->dtype_op = sl->dtype_op;
	h->flags = sl->flags & RINA_F_LAST;
	if (sl->s.state & RINA_SLOT_ST_OVF)
		h->flags |= RINA_F_OVERFLOW;
	if (retx)
		h->flags |= RINA_F_RETX;
	rina_reduce->store_be((__be32 *)(h + 1), sl->vals, sl->n_elem);
	if (!own) {
		h->seq = htonl(sl->s.seq);
		h->slot = htons((uint16_t)(sl->s.id + sl->p_chunk));
		h->step = (uint8_t)(sl->step + 1);
		aqueue(a, buf, len, &a->c.next);
		a->st.partial_out++;
		return;
	}
	h->seq = htonl(sl->s.seq + a->L * sl->p_chunk);
	h->flags |= RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	if (retx && from) {	/* one worker lost its copy */
		aqueue(a, buf, len, from);
		return;
	}
	to_workers(a, buf, len);
	if (a->L > 1) {
		struct ag_ent *e = keymap_get(&a->ag, sl->s.round,
					      ntohl(h->seq));

		if (!e)
			e = ag_store(a, h, len, true, 1);
		if (e)
			ag_send_down(a, e, false);
	} else {
		ag_store(a, h, len, false, 0);
	}
	(void)in;
}

static void aggregate(struct rina_agent *a, const struct rina_hdr *h,
		      const struct rina_addr *from)
{
	uint32_t slot = ntohs(h->slot), n = ntohs(h->n_elem), bit, chunk;
	struct agg_ent *sl;
	struct rina_slot_key key;
	enum rina_slot_verdict v;
	uint32_t exp_mask;
	int k, ovf = 0;

	chunk = ntohs(h->chunk);
	if (rina_hdr_opcode(h) == RINA_OP_SR_PARTIAL) {
		if (!rina_addr_eq(from, &a->c.prev)) {
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
		a->st.contrib_in++;
	}
	exp_mask = rina_slot_exp_mask(a->local_mask, a->up_bit, chunk, a->i);
	if (chunk >= a->L || !(exp_mask & bit) || !ntohs(h->p_chunk) ||
	    ntohs(h->p_chunk) >= a->W || n > a->c.job.elems) {
		a->st.bad++;
		return;
	}
	key.epoch = 0;
	key.round = ntohs(h->round);
	key.seq = ntohl(h->seq);
	key.id = (uint16_t)slot;
	if (rina_round_cmp(key.round, a->max_round) < -1) {
		a->st.stale++;	/* its sender has long had the answer */
		return;
	}
	sl = keymap_get(&a->agg, key.round, key.seq);
	if (!sl) {
		sl = calloc(1, sizeof(*sl) + 4u * a->c.job.elems);
		if (!sl || keymap_put(&a->agg, key.round, key.seq, sl)) {
			free(sl);
			return;	/* no memory: the sender will retry */
		}
	}
	v = rina_slot_classify(&sl->s, &key, bit);
	switch (v) {
	case RINA_SLOT_FRESH:
		rina_slot_claim(&sl->s, &key);
		sl->chunk = (uint16_t)chunk;
		sl->p_chunk = ntohs(h->p_chunk);
		sl->n_elem = (uint16_t)n;
		sl->step = h->step;
		sl->dtype_op = h->dtype_op;
		sl->flags = 0;
		rina_reduce->load_be(sl->vals, (const __be32 *)(h + 1), n);
		break;
	case RINA_SLOT_ADD:
		if (n != sl->n_elem || h->dtype_op != sl->dtype_op) {
			a->st.bad++;
			return;
		}
		if (RINA_OP_OF(h->dtype_op) == RINA_WIRE_MAX)
			rina_reduce->max_be(sl->vals,
					    (const __be32 *)(h + 1), n);
		else
			ovf = rina_reduce->add_be(sl->vals,
						  (const __be32 *)(h + 1), n);
		break;
	case RINA_SLOT_DUP:
		a->st.dup++;
		return;
	case RINA_SLOT_DUP_DONE:
		a->st.reemit++;
		if (bit == a->up_bit)	/* our ACK was lost */
			send_ack(a, &a->c.prev, sl->s.round, sl->s.seq, 0);
		else
			emit_result(a, sl, h, from, 1);
		return;
	case RINA_SLOT_STALE:
		a->st.stale++;
		return;
	default:
		a->st.collision++;	/* window violated: the sender retries */
		return;
	}
	sl->flags |= h->flags & RINA_F_LAST;
	if (h->flags & RINA_F_OVERFLOW)
		ovf = 1;
	if (!rina_slot_join(&sl->s, bit, h->exp, ntohs(h->num_contrib), ovf,
			    exp_mask))
		return;
	a->st.slots_done++;
	if (exp_mask & a->up_bit)	/* ACK at completion */
		send_ack(a, &a->c.prev, sl->s.round, sl->s.seq, 0);
	emit_result(a, sl, h, NULL, 0);
}

/* ---- other packets ----------------------------------------------- */

static void ag_from_upstream(struct rina_agent *a, const struct rina_hdr *h,
			     uint32_t len, const struct rina_addr *from)
{
	uint16_t round = ntohs(h->round);
	uint32_t seq = ntohl(h->seq);
	bool fwd = h->hop + 1u < a->L;
	struct ag_ent *e;

	if (!rina_addr_eq(from, &a->c.prev)) {
		a->st.bad++;
		return;
	}
	a->st.ag_in++;
	send_ack(a, from, round, seq, RINA_F_AG_PHASE);
	if (keymap_get(&a->ag, round, seq)) {
		a->st.dup++;	/* our ACK was lost; the rest went out */
		return;
	}
	e = ag_store(a, h, len, fwd, (uint8_t)(h->hop + 1));
	if (!e)
		return;	/* no memory: no ACK either would be better */
	to_workers(a, h, len);
	if (fwd)
		ag_send_down(a, e, false);
}

static void ack_from_downstream(struct rina_agent *a, const struct rina_hdr *h,
				uint32_t len, const struct rina_addr *from)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem);

	if (!rina_addr_eq(from, &a->c.next)) {
		a->st.bad++;
		return;
	}
	if (!(h->flags & RINA_F_AG_PHASE)) {
		/* advances the local workers' windows */
		to_workers(a, h, len);
		return;
	}
	a->st.ag_acks_in++;
	for (j = 0; j < n; j++) {
		struct ag_ent *e = keymap_get(&a->ag, ntohs(h->round),
					      ntohl(seqs[j]));

		if (e && !e->acked) {
			e->acked = true;
			if (!e->tries)
				rina_rtt_sample(&a->c, rina_now_us() -
						e->t_sent);
			if (e->t_sent > a->rack_ts)
				a->rack_ts = e->t_sent;
		}
	}
}

static void nack_from_worker(struct rina_agent *a, const struct rina_hdr *h,
			     const struct rina_addr *from)
{
	const __be32 *seqs = (const __be32 *)(h + 1);
	uint32_t j, n = ntohs(h->n_elem);

	if (local_index(a, from) < 0) {
		a->st.bad++;
		return;
	}
	a->st.nacks_in++;
	for (j = 0; j < n; j++) {
		struct ag_ent *e = keymap_get(&a->ag, ntohs(h->round),
					      ntohl(seqs[j]));

		if (e) {
			struct rina_hdr *r = aqueue(a, e->pkt, e->len, from);

			r->flags |= RINA_F_RETX;
			a->st.repairs++;
		}
	}
}

static void actrl(struct rina_agent *a, const struct rina_hdr *h,
		  const struct rina_addr *from, struct rina_ctrl_seen *seen)
{
	const struct rina_ctrl *m = (const struct rina_ctrl *)(h + 1);
	uint32_t type = ntohl(m->type);
	int k = local_index(a, from);

	if (k >= 0 && (type == RINA_CTRL_HELLO || type == RINA_CTRL_BYE)) {
		/* the rack's own workers */
		if (be64toh(m->hash) != a->c.job_hash) {
			a->st.bad++;
			return;
		}
		rina_send_ctrl(&a->c, from, type == RINA_CTRL_HELLO ?
			       RINA_CTRL_HELLO_ACK : RINA_CTRL_BYE_ACK, 0);
		if (type == RINA_CTRL_BYE)
			a->bye_from[k] = true;
		return;
	}
	if (rina_rx_ctrl(&a->c, h, from, seen) == RINA_ERR_MISMATCH)
		a->st.bad++;
}

static void arx(struct rina_agent *a, const struct rina_msg *m,
		struct rina_ctrl_seen *seen)
{
	const struct rina_hdr *h = m->buf;
	unsigned int op;
	uint16_t round;

	if (rina_hdr_check(h, m->len)) {
		a->st.malformed++;
		return;
	}
	if (ntohs(h->job_id) != a->c.job.job_id) {
		a->st.foreign++;
		return;
	}
	op = rina_hdr_opcode(h);
	round = ntohs(h->round);
	if (op != RINA_OP_CTRL && rina_round_cmp(round, a->max_round) > 0) {
		a->max_round = round;
		purge(a);
	}
	switch (op) {
	case RINA_OP_SR_CONTRIB:
	case RINA_OP_SR_PARTIAL:
		aggregate(a, h, &m->addr);
		break;
	case RINA_OP_AG_DATA:
		ag_from_upstream(a, h, m->len, &m->addr);
		break;
	case RINA_OP_ACK:
		ack_from_downstream(a, h, m->len, &m->addr);
		break;
	case RINA_OP_NACK:
		nack_from_worker(a, h, &m->addr);
		break;
	case RINA_OP_CTRL:
		actrl(a, h, &m->addr, seen);
		break;
	}
}

/* ---- the thread --------------------------------------------------- */

static bool all_workers_left(const struct rina_agent *a)
{
	uint32_t k;

	for (k = 0; k < a->m; k++)
		if (!a->bye_from[k])
			return false;
	return true;
}

static void *agent_main(void *arg)
{
	struct rina_agent *a = arg;
	struct rina_msg msgs[RINA_BATCH];
	struct rina_ctrl_seen seen = { 0 };
	uint64_t last_hello = 0, last_bye = 0, stop_at = 0, now, wait;
	int n, j;

	for (;;) {
		now = rina_now_us();
		if (a->L > 1 && !seen.hello_next &&
		    now - last_hello > 10000) {
			rina_send_ctrl(&a->c, &a->c.next, RINA_CTRL_HELLO, 0);
			last_hello = now;
		}
		if (a->abort)
			break;
		if (a->stop) {
			/*
			 * Leave once the rack's workers and the upstream
			 * member are done with us and downstream heard BYE,
			 * or after the bound.
			 */
			if (!stop_at)
				stop_at = now;
			if (a->L > 1 && !seen.bye_next &&
			    all_workers_left(a) && now - last_bye > 5000) {
				rina_send_ctrl(&a->c, &a->c.next,
					       RINA_CTRL_BYE, 0);
				last_bye = now;
			}
			if ((all_workers_left(a) &&
			     (a->L < 2 || (a->c.prev_said_bye &&
					    seen.bye_next))) ||
			    now - stop_at > RINA_LINGER_MAX_MS * 1000ULL)
				break;
		}
		wait = ag_retransmit(a);
		aflush(a);
		if (wait > 5000)
			wait = 5000;
		n = a->c.tp->ops->recv(a->c.tp, msgs, RINA_BATCH,
				       (int)((wait + 999) / 1000));
		for (j = 0; j < n; j++) {
			a->c.st.rx_packets++;
			arx(a, &msgs[j], &seen);
		}
		aflush(a);
	}
	return NULL;
}

int rina_agent_start(struct rina_comm *c, struct rina_agent **out)
{
	const struct rina_member *mb = &c->ring.m[c->member];
	struct rina_transport_cfg tc = { 0 };
	struct rina_agent *a;
	uint32_t k;

	if (mb->n_local > 31)
		return rina_fail(RINA_ERR_INVALID,
				 "an INA rack may have at most 31 ranks (rack %u has %u)",
				 mb->rack, mb->n_local);
	a = calloc(1, sizeof(*a));
	if (!a)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	a->c = *c;	/* job, ring, neighbours; own endpoint and counters */
	memset(&a->c.st, 0, sizeof(a->c.st));
	memset(a->c.stash, 0, sizeof(a->c.stash));
	a->c.nstash = 0;
	a->c.work = NULL;
	a->c.rng ^= 0x5bd1e995;
	a->c.self.port = htons(RINA_UDP_PORT_AGENT);
	a->c.next = c->member_next;
	a->c.prev = c->member_prev;
	a->W = c->job.window;
	a->L = c->L;
	a->i = c->member;
	a->m = mb->n_local;
	a->local_mask = (1u << a->m) - 1;
	a->up_bit = 1u << a->m;
	for (k = 0; k < a->m; k++) {
		int r = c->ring.order[mb->first + k];

		a->local[k].ip = c->job.ranks[r].ip;
		a->local[k].port = c->job.ranks[r].port;
	}
	a->txbuf = malloc((size_t)RINA_BATCH * c->max_msg);
	a->fifo_cap = 4096;
	a->fifo = calloc(a->fifo_cap, sizeof(*a->fifo));
	if (!a->txbuf || !a->fifo || keymap_init(&a->ag, 4096) ||
	    keymap_init(&a->agg, 4096))
		goto err_mem;
	tc.local = a->c.self;
	tc.max_msg_len = c->max_msg;
	tc.window = a->W;
	tc.rcvbuf = 32 << 20;
	/*
	 * The agent port goes up the kernel stack (the XDP program passes
	 * it): AF_XDP is for worker ports, so "auto" and "xdp" mean UDP here.
	 */
	if (rina_transport_open(strcmp(c->tp->ops->name, "inproc") ? "udp" :
				"inproc", &tc, &a->c.tp)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", rina_last_error());
		rina_fail(RINA_ERR_TRANSPORT, "agent of rack %u: %s", mb->rack,
			  why);
		goto err_free;
	}
	if (pthread_create(&a->thread, NULL, agent_main, a)) {
		a->c.tp->ops->destroy(a->c.tp);
		rina_fail(RINA_ERR_SYSTEM, "agent thread: %s", strerror(errno));
		goto err_free;
	}
	*out = a;
	return RINA_OK;
err_mem:
	rina_fail(RINA_ERR_NOMEM, "out of memory");
err_free:
	keymap_free(&a->ag, free);
	keymap_free(&a->agg, free);
	free(a->txbuf);
	free(a->fifo);
	free(a);
	return RINA_ERR_NOMEM;
}

void rina_agent_stop(struct rina_agent *a, bool linger)
{
	uint32_t j;

	if (!a)
		return;
	if (!linger)
		a->abort = 1;
	a->stop = 1;
	pthread_join(a->thread, NULL);
	a->c.tp->ops->destroy(a->c.tp);
	for (j = 0; j < RINA_STASH_MAX; j++)
		free(a->c.stash[j].buf);
	keymap_free(&a->ag, free);
	keymap_free(&a->agg, free);
	free(a->fifo);
	free(a->txbuf);
	free(a);
}

void rina_agent_get_stats(const struct rina_agent *a,
			  struct rina_agent_stats *st)
{
	*st = a->st;
}
