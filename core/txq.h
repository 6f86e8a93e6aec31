/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A sender's bound on what it queues on its own host (protocol.md 6.1),
 * as Linux's TCP small queues: a sender whose own signals let it fill
 * its host's queue keeps at most limit bytes of socket memory there,
 * looked at every RINA_TXQ_GROUP packets, and holds the rest until the
 * device takes what is queued. The host says how much is queued; the
 * rule is here. Per pass of a sender's pump:
 *	rina_txq_start(&q);
 *	for each packet: if (rina_txq_due(&q)) { flush what is built;
 *		rina_txq_judge(&q, bytes queued); } if (q.full) stop;
 *		send; rina_txq_sent(&q);
 * and while q.full wait at most RINA_TXQ_WAIT_US: the device drains the
 * queue without telling the sender.
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_TXQ_H
#define RINA_CORE_TXQ_H

#include "compat.h"
#include "plan.h"

#define RINA_TXQ_GROUP		4
#define RINA_TXQ_WAIT_US	1000

struct rina_txq {
	__u32	limit;		/* bytes; 0: no bound */
	__u32	unchecked;	/* packets sent since we last looked */
	__u8	full;		/* the queue held limit bytes then */
};

/* The job's bound (txq_limit) for a sender that needs one, or 0. */
static inline __u32 rina_txq_limit(__u32 job_limit, int bounded)
{
	if (!bounded || job_limit == RINA_TXQ_LIMIT_OFF)
		return 0;
	return job_limit ? job_limit : RINA_TXQ_LIMIT_DEFAULT;
}

static inline void rina_txq_start(struct rina_txq *q)
{
	q->full = 0;
	q->unchecked = RINA_TXQ_GROUP;	/* look before the first */
}

static inline int rina_txq_due(const struct rina_txq *q)
{
	return q->limit && !q->full && q->unchecked >= RINA_TXQ_GROUP;
}

static inline void rina_txq_sent(struct rina_txq *q)
{
	q->unchecked++;
}

/*
 * What the host's queue holds now: queued bytes, or -1 where the host
 * cannot tell (AF_XDP, in-process). Returns 1 when the sender must hold
 * what it has not sent (a txq hold, counted by the caller).
 */
static inline int rina_txq_judge(struct rina_txq *q, int queued)
{
	q->unchecked = 0;
	if (queued >= 0 && (__u32)queued >= q->limit) {
		q->full = 1;
		return 1;
	}
	return 0;
}

#endif /* RINA_CORE_TXQ_H */
