// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The endpoint layer (endpoint.h): sending with fault injection,
 * receiving checked batches, the early-packet stash, batched ACKs, and
 * per-peer paths (RTT, congestion window). Every role's engine sits on
 * it; it sits on the transports.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"
#include "wire.h"
#include "secret.h"

/* ---- sending ----------------------------------------------------- */

static uint64_t rng_next(struct rina_comm *c)
{
	uint64_t x = c->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	return x;
}

/* Data (a contribution, partial or result) sent again. */
static bool is_data_retx(const void *buf)
{
	const struct rina_hdr *h = buf;

	return rina_hdr_opcode(h) <= RINA_OP_AG_DATA &&
	       (h->flags & RINA_F_RETX);
}

/*
 * Every packet librina sends passes here, so the fault knobs cover data,
 * ACKs and control alike.
 */
int rina_xmit(struct rina_comm *c, struct rina_msg *msgs, int n)
{
	struct rina_msg out[RINA_BATCH * 2];
	int i, k = 0, sent = 0, ret;

	for (i = 0; i < n; i++) {
		/* every builder leaves RINA_TAG_LEN bytes for either */
		msgs[i].len = rina_data_seal(msgs[i].buf, msgs[i].len,
					     c->tagged ? c->tag : NULL,
					     c->auth_mac ? c->mac_key : NULL,
					     rina_siphash24);
		/*
		 * what goes on the wire again: not to this host (the agent
		 * and its host's worker talk over loopback, and the agent
		 * relays what it is sent to the ToR, which counts it there)
		 */
		if (msgs[i].addr.ip != c->self.ip &&
		    is_data_retx(msgs[i].buf))
			c->st.retx_tx_bytes += msgs[i].len +
					       RINA_FRAME_OVERHEAD;
		if (c->drop_ppm && rng_next(c) % 1000000 < c->drop_ppm) {
			c->st.fault_dropped++;
			continue;
		}
		out[k++] = msgs[i];
		if (c->dup_ppm && rng_next(c) % 1000000 < c->dup_ppm) {
			c->st.fault_duplicated++;
			out[k++] = msgs[i];
		}
		if (k >= RINA_BATCH || i == n - 1) {
			ret = c->tp->ops->send(c->tp, out, k);
			if (ret < 0)
				return ret;
			sent += ret;
			k = 0;
		}
	}
	if (k) {
		ret = c->tp->ops->send(c->tp, out, k);
		if (ret < 0)
			return ret;
		sent += ret;
	}
	return sent;
}

int rina_tx_queued(struct rina_comm *c)
{
	int bytes;

	if (!c->tp->ops->tx_queued)
		return -1;
	bytes = c->tp->ops->tx_queued(c->tp);
	return bytes < 0 ? -1 : bytes;
}

void rina_txq_look(struct rina_comm *c, struct rina_txq *q)
{
	if (rina_txq_judge(q, rina_tx_queued(c)))
		c->st.txq_holds++;
}

void rina_hdr_init(struct rina_comm *c, struct rina_hdr *h, uint8_t op,
		   uint16_t round)
{
	rina_hdr_fill(h, op, c->job.job_id, round, (uint16_t)c->rank);
}

bool rina_addr_eq(const struct rina_addr *a, const struct rina_addr *b)
{
	return a->ip == b->ip && a->port == b->port;
}

void rina_send_ctrl(struct rina_comm *c, const struct rina_addr *to,
		    uint32_t type, uint32_t arg)
{
	const uint8_t *key = c->job.has_secret ? c->job.secret : NULL;
	struct rina_ctrl_msg r;
	struct rina_msg msg = { &r, 0, *to, IPTOS_ECN_NOT_ECT };

	rina_hdr_init(c, &r.h, RINA_OP_CTRL, 0);
	rina_ctrl_set_session(&r.h, c->session_id);
	r.c.type = htonl(type);
	r.c.arg = htonl(arg);
	r.c.hash = htobe64(c->job_hash);
	msg.len = rina_ctrl_seal(&r, key, rina_siphash24,
				 key ? rina_ctrl_stamp() : 0, to->ip, to->port);
	rina_xmit(c, &msg, 1);
}

void rina_ack_flush(struct rina_comm *c, struct rina_ack_batch *a)
{
	uint8_t buf[RINA_HDR_LEN + sizeof(a->q.seqs) + RINA_TAG_LEN];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct rina_msg m;

	if (!a->q.n)
		return;
	rina_hdr_init(c, h, RINA_OP_ACK, a->q.round);
	m.buf = buf;
	m.len = rina_ackq_build(&a->q, h);
	m.addr = a->addr;
	m.ecn = 0;
	if (rina_xmit(c, &m, 1) > 0) {
		c->st.tx_acks++;
		c->st.ack_tx_bytes += m.len + RINA_FRAME_OVERHEAD;
	}
}

void rina_ack_queue(struct rina_comm *c, struct rina_ack_batch *a,
		    const struct rina_addr *to, const struct rina_hdr *data,
		    uint8_t ecn)
{
	uint8_t flags = rina_ack_flags(data, ecn);
	uint16_t round = ntohs(data->round);

	if (flags & RINA_F_ECN_ECHO)
		c->st.rx_ce++;
	if (rina_ackq_breaks(&a->q, rina_addr_eq(&a->addr, to), round, flags,
			     c->job.elems))
		rina_ack_flush(c, a);
	a->addr = *to;
	rina_ackq_add(&a->q, round, flags, data->seq);
}

/* ---- receiving --------------------------------------------------- */

void rina_stash(struct rina_comm *c, const struct rina_msg *m)
{
	struct rina_stash_ent *e;

	if (c->nstash == RINA_STASH_MAX)
		return;		/* the sender will retransmit */
	e = &c->stash[c->nstash];
	if (!e->buf) {
		e->buf = malloc(c->max_msg);
		if (!e->buf)
			return;
	}
	memcpy(e->buf, m->buf, m->len);
	e->len = m->len;
	e->addr = m->addr;
	e->ecn = m->ecn;
	c->nstash++;
	c->st.rx_early++;
}


/*
 * Every role's call loop is "replay the stash, then: send, wait, receive a
 * batch, handle each message". These two helpers are that shared part.
 */
int rina_replay_stash(struct rina_comm *c, rina_rx_fn fn, void *k)
{
	unsigned int j, nst = c->nstash;
	int ret;

	c->nstash = 0;	/* handlers may stash the call after this one */
	for (j = 0; j < nst; j++) {
		struct rina_msg m = { c->stash[j].buf, c->stash[j].len,
				      c->stash[j].addr, c->stash[j].ecn };

		ret = fn(k, &m, true);
		if (ret)
			return ret;
	}
	return RINA_OK;
}

bool rina_rx_accept(struct rina_comm *c, struct rina_msg *m)
{
	struct rina_hdr *h = m->buf;
	uint32_t len;

	if (rina_hdr_check(h, m->len)) {
		c->st.rx_malformed++;
		return false;
	}
	if (ntohs(h->job_id) != c->job.job_id) {
		c->st.rx_foreign++;
		return false;
	}
	/* before the session is known no data is the session's */
	if (!c->session_id && (c->tagged || c->auth_mac) &&
	    rina_hdr_opcode(h) != RINA_OP_CTRL)
		len = 0;
	else
		len = rina_data_open(h, m->len, c->tagged ? c->tag : NULL,
				     c->auth_mac ? c->mac_key : NULL,
				     rina_siphash24);
	if (!len) {
		c->st.rx_bad_tag++;
		return false;
	}
	/* from here on it reads as sent without the tag */
	m->len = len;
	h->rsvd = 0;
	return true;
}

int rina_recv_batch(struct rina_comm *c, uint64_t wait_us, rina_rx_fn fn,
		    void *k)
{
	struct rina_msg msgs[RINA_BATCH];
	int n, j, ret;

	/* every role's call waits here: the place to hear from rina.ko */
	ret = c->events ? c->events(c) : RINA_OK;
	if (ret)
		return ret;
	n = c->tp->ops->recv(c->tp, msgs, RINA_BATCH,
			     (int)((wait_us + 999) / 1000));
	if (n < 0)
		return rina_fail(RINA_ERR_TRANSPORT, "receive failed: %s",
				 strerror(-n));
	for (j = 0; j < n; j++) {
		struct rina_msg *m = &msgs[j];
		const struct rina_hdr *h = m->buf;
		uint32_t wire_len = m->len;	/* the tag included */

		/* what every role does first; fn sees this job's data/ACKs */
		c->st.rx_packets++;
		c->st.rx_bytes += m->len + RINA_FRAME_OVERHEAD;
		if (c->rx_drop_ppm &&
		    rng_next(c) % 1000000 < c->rx_drop_ppm) {
			c->st.fault_rx_dropped++;
			continue;
		}
		if (!rina_rx_accept(c, m))
			continue;
		switch (rina_hdr_opcode(h)) {
		case RINA_OP_CTRL:
			ret = c->ctrl_rx ? c->ctrl_rx(c, h, &m->addr) : 0;
			break;
		case RINA_OP_ACK:
			/* as on the wire, like ack_tx_bytes: with the tag */
			c->st.ack_rx_bytes += wire_len + RINA_FRAME_OVERHEAD;
			/* fall through */
		default:
			ret = fn(k, m, false);
			break;
		}
		if (ret)
			return ret;
	}
	return RINA_OK;
}
