/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the data-path engines (core/ring_member.h, core/ina_worker.h) ask
 * of their host, in one shape for both: memory, the clock, sending what
 * they built to a peer they name, how full the host's queue is, and a
 * word to the rack's agent. librina, rina-sim and the tests implement it
 * once each.
 */
#ifndef RINA_CORE_ENGINE_H
#define RINA_CORE_ENGINE_H

#include "compat.h"

/* Messages an engine builds before it hands them to ops->xmit. */
#define RINA_ENGINE_BATCH	64

/*
 * The peers an engine talks to, named by their place: the host knows
 * their addresses. A ring member's are upstream and downstream; an INA
 * worker's are its rack's agent (the member's address, downstream of the
 * worker as the ring sees it) and the aggregator its contributions go to
 * (the ToR, or the agent while there is none). A received message's
 * source is given as the set of these its address is (both on a ring of
 * two), 0 when none.
 */
#define RINA_PEER_PREV		0x1
#define RINA_PEER_NEXT		0x2
#define RINA_PEER_AGG		0x4

struct rina_engine_msg {
	void	*buf;
	__u32	len;
	__u8	to;		/* one RINA_PEER_* */
};

struct rina_engine_ops {
	void	*(*zalloc)(void *ctx, __u64 size);
	void	(*free)(void *ctx, void *p);
	__u64	(*now_us)(void *ctx);
	/*
	 * Send n messages, in order. Each buffer has room for RINA_TAG_LEN
	 * bytes after len (the host's data tag or MAC); the host sets len
	 * to what it sent. Returns < 0 (an errno value) when it could not
	 * send at all.
	 */
	int	(*xmit)(void *ctx, struct rina_engine_msg *m, int n);
	/* Bytes this host still queues of what we sent, or -1: unknown. */
	int	(*tx_queued)(void *ctx);
	/* An INA worker makes no progress: tell its agent (CTRL STALL). */
	void	(*stalled)(void *ctx);
};

/* What an engine counted; the host adds it up (rina_*_take_stats()). */
struct rina_engine_stats {
	__u64	tx_data, retransmits, fast_retransmits, timeouts;
	__u64	resent_orphaned, resent_asked, nacks, txq_holds;
	__u64	rx_data, rx_acks, rx_foreign, rx_stale, rx_malformed;
	__u64	rx_ce, duplicates, ce_acked, tx_acks, ack_tx_bytes;
	/* of timeouts, an INA worker's probe resends (rina-sim reports them) */
	__u64	probes;
};

/* Zeroed memory from the host, never NULL for a size of 0. */
static inline void *rina_engine_zalloc(const struct rina_engine_ops *ops,
				       void *ctx, __u64 size)
{
	return ops->zalloc(ctx, size ? size : 1);
}

static inline void rina_engine_free(const struct rina_engine_ops *ops,
				    void *ctx, void *p)
{
	if (p)
		ops->free(ctx, p);
}

#endif /* RINA_CORE_ENGINE_H */
