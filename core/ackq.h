/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A receiver's ACKs, batched per destination, round, phase and CE mark:
 * an ACK with RINA_F_ECN_ECHO says that every seq it lists arrived
 * CE-marked, so the sender counts marked packets exactly (DCTCP's
 * receiver sends an ACK at once when the CE state changes, for the
 * same reason). The destination is the caller's to compare: a batch
 * holds one. Shared by the ring member engine and librina's INA worker
 * and session layer.
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_ACKQ_H
#define RINA_CORE_ACKQ_H

#include "compat.h"
#include "wire.h"

/* The IP header's ECN field of a congestion-marked packet (RFC 3168). */
#define RINA_ECN_CE		0x3

struct rina_ackq {
	__u16	round;
	__u8	flags;		/* RINA_F_AG_PHASE, ECN_ECHO */
	__u32	n;
	__be32	seqs[RINA_MAX_ELEMS];
};

/* The flags of an ACK of data that arrived with IP ECN field ecn. */
static inline __u8 rina_ack_flags(const struct rina_hdr *data, __u8 ecn)
{
	__u8 flags = rina_hdr_opcode(data) == RINA_OP_AG_DATA ?
		     RINA_F_AG_PHASE : 0;

	return ecn == RINA_ECN_CE ? flags | RINA_F_ECN_ECHO : flags;
}

/*
 * Whether the batch must go before an ACK of round with flags joins it
 * (same_to: the batch's destination is this one's); max: seqs an ACK
 * may list (the job's elements a packet).
 */
static inline int rina_ackq_breaks(const struct rina_ackq *q, int same_to,
				   __u16 round, __u8 flags, __u32 max)
{
	return q->n && (!same_to || q->round != round || q->flags != flags ||
			q->n == max);
}

static inline void rina_ackq_add(struct rina_ackq *q, __u16 round,
				 __u8 flags, __be32 seq)
{
	q->round = round;
	q->flags = flags;
	q->seqs[q->n++] = seq;
}

/*
 * Write the batch as an ACK after a header the caller filled (opcode,
 * job, round: q->round) and empty it; returns the ACK's length.
 */
static inline __u32 rina_ackq_build(struct rina_ackq *q, struct rina_hdr *h)
{
	__u32 len = RINA_HDR_LEN + q->n * 4;

	h->flags = q->flags;
	h->seq = q->seqs[0];
	h->n_elem = rina_htons((__u16)q->n);
	rina_memcpy(h + 1, q->seqs, q->n * 4);
	q->n = 0;
	return len;
}

#endif /* RINA_CORE_ACKQ_H */
