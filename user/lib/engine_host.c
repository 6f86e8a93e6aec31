// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What librina gives the core's data-path engines (core/engine.h): heap
 * memory, the monotonic clock, sending through the endpoint layer (fault
 * knobs, data tag, transport) to the peers they name, the socket queue's
 * fill, the STALL report to the rack's agent, and their counters into
 * the communicator's. One set for the ring member (ring.c) and the INA
 * worker (ina_worker.c); ctx is the communicator.
 */
#include <stdlib.h>

#include "rina_int.h"

static void *host_zalloc(void *ctx, __u64 size)
{
	(void)ctx;
	return calloc(1, size);
}

static void host_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static __u64 host_now(void *ctx)
{
	(void)ctx;
	return rina_now_us();
}

static struct rina_addr peer_addr(const struct rina_comm *c, __u8 peer)
{
	if (peer == RINA_PEER_PREV)
		return c->prev;
	if (peer == RINA_PEER_AGG)	/* the ToR's or the agent's */
		return c->contrib_to;
	return c->next;
}

static int host_xmit(void *ctx, struct rina_engine_msg *m, int n)
{
	struct rina_comm *c = ctx;
	struct rina_msg out[RINA_ENGINE_BATCH];
	int i, ret;

	for (i = 0; i < n; i++) {
		out[i].buf = m[i].buf;
		out[i].len = m[i].len;
		out[i].addr = peer_addr(c, m[i].to);
		out[i].ecn = 0;
	}
	ret = rina_xmit(c, out, n);
	for (i = 0; i < n; i++)	/* with the data tag or MAC, as sent */
		m[i].len = out[i].len;
	return ret;
}

static int host_tx_queued(void *ctx)
{
	return rina_tx_queued(ctx);
}

static void host_stalled(void *ctx)
{
	struct rina_comm *c = ctx;

	rina_send_ctrl(c, &c->next, RINA_CTRL_STALL, c->timeout_ms);
}

const struct rina_engine_ops rina_engine_host_ops = {
	.zalloc		= host_zalloc,
	.free		= host_free,
	.now_us		= host_now,
	.xmit		= host_xmit,
	.tx_queued	= host_tx_queued,
	.stalled	= host_stalled,
};

__u8 rina_peer_of(const struct rina_comm *c, const struct rina_addr *a)
{
	__u8 from = 0;

	if (rina_addr_eq(a, &c->prev))
		from |= RINA_PEER_PREV;
	if (rina_addr_eq(a, &c->next))
		from |= RINA_PEER_NEXT;
	return from;
}

void rina_engine_add_stats(struct rina_comm *c,
			   const struct rina_engine_stats *s)
{
	c->st.tx_data += s->tx_data;
	c->st.retransmits += s->retransmits;
	c->st.fast_retransmits += s->fast_retransmits;
	c->st.timeouts += s->timeouts;
	c->st.resent_orphaned += s->resent_orphaned;
	c->st.resent_asked += s->resent_asked;
	c->st.nacks += s->nacks;
	c->st.txq_holds += s->txq_holds;
	c->st.rx_data += s->rx_data;
	c->st.rx_acks += s->rx_acks;
	c->st.rx_foreign += s->rx_foreign;
	c->st.rx_stale += s->rx_stale;
	c->st.rx_malformed += s->rx_malformed;
	c->st.rx_ce += s->rx_ce;
	c->st.duplicates += s->duplicates;
	c->st.ce_acked += s->ce_acked;
	c->st.tx_acks += s->tx_acks;
	c->st.ack_tx_bytes += s->ack_tx_bytes;
}
