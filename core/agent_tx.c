// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the agent sends: headers, the session's data tag or MAC on each
 * datagram, control messages, ACKs, and the ACKs of the ToR's allgather
 * copies gathered before they go (the ACK queue).
 */
#include "agent_int.h"

void rina_agent_hdr_init(const struct rina_agent_core *a, struct rina_hdr *h,
			 __u8 op, __u16 round)
{
	rina_memset(h, 0, sizeof(*h));
	h->ver_op = (__u8)(RINA_VERSION << 4 | op);
	h->job_id = rina_htons(a->cfg.job_id);
	h->round = rina_htons(round);
	h->src_id = rina_htons(a->cfg.rank);
	h->exp = RINA_EXP_NONE;
}

void rina_agent_xmit(struct rina_agent_core *a,
		     const struct rina_agent_addr *to, const void *buf,
		     __u32 len)
{
	if ((a->cfg.tagged || a->cfg.auth_mac) &&
	    len + RINA_TAG_LEN <= TAGGED_TX_LEN) {
		rina_memcpy(a->tagged_tx, buf, len);
		len = rina_data_seal(a->tagged_tx, len,
				     a->cfg.tagged ? a->tag : NULL,
				     a->cfg.auth_mac ? a->mac_key : NULL,
				     a->ops->mac);
		buf = a->tagged_tx;
	}
	a->ops->send(a->ctx, to, buf, len);
}

void rina_agent_send_ctrl_arg(struct rina_agent_core *a,
			      const struct rina_agent_addr *to, __u32 type,
			      __u32 arg)
{
	const __u8 *key = a->cfg.has_secret ? a->cfg.secret : NULL;
	struct rina_ctrl_msg r;
	__u32 len;

	rina_agent_hdr_init(a, &r.h, RINA_OP_CTRL, 0);
	rina_ctrl_set_session(&r.h, a->session);
	r.c.type = rina_htonl(type);
	r.c.arg = rina_htonl(arg);
	rina_put_be64(&r.c.hash, a->cfg.job_hash);
	len = rina_ctrl_seal(&r, key, a->ops->mac,
			     key ? a->ops->ctrl_stamp(a->ctx) : 0, to->ip,
			     to->port);
	rina_agent_xmit(a, to, &r, len);
}

void rina_agent_send_ctrl(struct rina_agent_core *a,
			  const struct rina_agent_addr *to, __u32 type)
{
	rina_agent_send_ctrl_arg(a, to, type, 0);
}

void rina_agent_send_ack(struct rina_agent_core *a,
			 const struct rina_agent_addr *to, __u16 round,
			 __u32 seq, __u8 flags)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	rina_agent_hdr_init(a, &p.h, RINA_OP_ACK, round);
	p.h.flags = flags;
	p.h.seq = rina_htonl(seq);
	p.h.n_elem = rina_htons(1);
	p.seq = rina_htonl(seq);
	rina_agent_xmit(a, to, &p, sizeof(p));
	a->st.acks_out++;
}

void rina_agent_to_workers(struct rina_agent_core *a, const void *pkt,
			   __u32 len)
{
	__u32 k;

	for (k = 0; k < a->cfg.n_local; k++)
		rina_agent_xmit(a, &a->cfg.local[k], pkt, len);
	a->st.mcast_out += a->cfg.n_local;
}

static __u32 ackq_max(const struct rina_agent_core *a)
{
	__u32 max = (a->max_msg - RINA_HDR_LEN) / 4;

	return max > RINA_AGENT_HELD_MAX ? RINA_AGENT_HELD_MAX : max;
}

static int ackq_has(const struct rina_agent_ackq *q, __u32 seq)
{
	__u32 j;

	for (j = 0; j < q->n; j++)
		if (q->seq[j] == seq)
			return 1;
	return 0;
}

/*
 * The ACKs of the ToR's allgather copies, gathered (RINA_AGENT_ACK_BATCH):
 * - to the rack's workers, which own-chunk results we hold: AG_PHASE |
 *   OWN_FINAL listing their allgather seqs (a->held). A worker's own-chunk
 *   contribution completes only on it (not on its own copy of the data),
 *   so the ToR's slot, which can re-emit the result, is not reused before
 *   the agent, the sender of record downstream, has it;
 * - to the upstream member, the copies of its chunks we keep: AG_PHASE
 *   (a->ag_up), as for allgather data it sent us itself.
 * After its own seqs an ACK lists the last one's again (same round, as
 * far as they fit), as TCP's SACK repeats its latest blocks (RFC 2018):
 * one lost ACK then loses nothing, where each lost one cost a
 * retransmission by every sender it acknowledged, a re-emission by the
 * ToR, and a halved window (rina-tor at 10% loss: 850 -> 709 ms a call).
 */
static void ackq_flush(struct rina_agent_core *a, struct rina_agent_ackq *q)
{
	struct {
		struct rina_hdr h;
		__be32 seqs[RINA_AGENT_HELD_MAX];
	} __attribute__((packed)) p;
	__u32 j, n, len, max = ackq_max(a);

	if (!q->n)
		return;
	rina_agent_hdr_init(a, &p.h, RINA_OP_ACK, q->round);
	p.h.flags = q->flags;
	p.h.seq = rina_htonl(q->seq[0]);
	for (j = 0; j < q->n; j++)
		p.seqs[j] = rina_htonl(q->seq[j]);
	n = q->n;
	for (j = 0; q->prev_round == q->round && j < q->nprev && n < max; j++)
		if (!ackq_has(q, q->prev[j]))
			p.seqs[n++] = rina_htonl(q->prev[j]);
	p.h.n_elem = rina_htons((__u16)n);
	len = RINA_HDR_LEN + 4 * n;
	rina_memcpy(q->prev, q->seq, q->n * sizeof(q->seq[0]));
	q->nprev = q->n;
	q->prev_round = q->round;
	if (q->to_workers)
		rina_agent_to_workers(a, &p, len);
	else
		rina_agent_xmit(a, &a->cfg.prev, &p, len);
	a->st.acks_out++;
	q->n = 0;
}

/*
 * at_once: send it with what is gathered: a retry (its sender lost
 * our ACK, or waits for it), or the last packet of its chunk, so that no
 * chunk's tail waits for the delay (a worker probes after 2 ms of
 * silence).
 */
void rina_agent_ackq_push(struct rina_agent_core *a, struct rina_agent_ackq *q,
			  __u16 round, __u32 seq, int at_once)
{
	if (q->n && (q->n >= ackq_max(a) || q->round != round))
		ackq_flush(a, q);
	if (!q->n)
		q->t0 = a->ops->now_us(a->ctx);
	q->round = round;
	q->seq[q->n++] = seq;
	if (at_once)
		ackq_flush(a, q);
}

/*
 * Send a gathered ACK that is full enough or waited long enough; else
 * say when it will have (RINA_AGENT_NO_WAIT: nothing gathered).
 */
__u64 rina_agent_ackq_due(struct rina_agent_core *a, struct rina_agent_ackq *q,
			  __u64 now)
{
	__u64 delay = a->rtt.srtt_us / 4;

	if (!q->n)
		return RINA_AGENT_NO_WAIT;
	if (delay > RINA_AGENT_ACK_DELAY_MAX_US)
		delay = RINA_AGENT_ACK_DELAY_MAX_US;
	if (q->n >= RINA_AGENT_ACK_BATCH || now - q->t0 >= delay) {
		ackq_flush(a, q);
		return RINA_AGENT_NO_WAIT;
	}
	return q->t0 + delay - now;
}
