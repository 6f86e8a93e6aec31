// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's ring member: hosts the ring member engine (core/ring_member.c)
 * for a plain member of the ring. The engine holds every protocol rule;
 * this file feeds it what the endpoint layer receives, sends what it
 * builds through the endpoint layer, waits as long as it says, and words
 * its errors. Documentation/protocol.md describes the rules.
 */
#include <errno.h>
#include <string.h>

#include "rina_int.h"
#include "engine_cfg.h"
#include "ring_member.h"

static struct rina_rm *engine(struct rina_comm *c)
{
	struct rina_rm_cfg cfg;

	if (c->rm)
		return c->rm;
	/* the job's rules as rina-sim derives them (core/engine_cfg.h) */
	rina_rm_cfg_job(&cfg, &c->job, &c->ring, (__u16)c->rank,
			c->contrib_before);
	cfg.path = &c->to_next;
	cfg.txbuf = c->txbuf;
	cfg.max_msg = c->max_msg;
	cfg.agg = rina_engine_agg(c);
	c->rm = rina_rm_create(&cfg, &rina_engine_host_ops, c);
	return c->rm;
}

static void take_stats(struct rina_comm *c)
{
	struct rina_engine_stats s;

	rina_rm_take_stats(c->rm, &s);
	rina_engine_add_stats(c, &s);
}

/* An engine result as the thread's error. */
static int fail(struct rina_comm *c, int rc, size_t count)
{
	const struct rina_rm_error *e = rina_rm_error(c->rm);

	switch (rc) {
	case RINA_RM_E_XMIT:
		if (e->xmit_errno == EMSGSIZE)
			return rina_fail(RINA_ERR_TRANSPORT,
					 "send failed: %u-byte datagrams exceed the path MTU; lower \"elements\" in the job or raise the MTU",
					 c->max_msg);
		return rina_fail(RINA_ERR_TRANSPORT, "send failed: %s",
				 strerror(e->xmit_errno));
	case RINA_RM_E_MISMATCH:
		return rina_fail(RINA_ERR_MISMATCH,
				 "rank %u called allreduce with a different %s than rank %d (call %llu)",
				 e->src, e->what, c->rank,
				 (unsigned long long)c->st.calls);
	case RINA_RM_E_OVERFLOW:
		return rina_fail(RINA_ERR_OVERFLOW,
				 "int32 sum wrapped around (call %llu)",
				 (unsigned long long)c->st.calls);
	case RINA_RM_E_TOO_LARGE:
		return rina_fail(RINA_ERR_INVALID,
				 "count %zu needs more than 2^32 packets",
				 count);
	default:
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	}
}

static int describe_stall(struct rina_comm *c)
{
	struct rina_rm_progress p;

	rina_rm_progress(c->rm, &p);
	return rina_fail(RINA_ERR_TIMEOUT,
			 "rank %d: no progress for %u ms in call %llu: %llu of %llu packets from rank %d, %llu of %llu acks from rank %d",
			 c->rank, c->timeout_ms,
			 (unsigned long long)c->st.calls,
			 (unsigned long long)p.got_rx,
			 (unsigned long long)p.expect_rx, c->prev_rank,
			 (unsigned long long)p.got_ack,
			 (unsigned long long)p.expect_ack, c->next_rank);
}

/* A checked message of this job, not CTRL (rina_recv_batch). */
static int rx_one(void *ctx, const struct rina_msg *m, bool stashed)
{
	struct rina_comm *c = ctx;
	int ret;

	ret = rina_rm_rx(c->rm, m->buf, rina_peer_of(c, &m->addr), m->ecn,
			 stashed);
	if (ret == RINA_RM_STASH) {
		rina_stash(c, m);
		return RINA_OK;
	}
	return ret ? fail(c, ret, 0) : RINA_OK;
}

/* Returns an engine result (< 0) or a librina one (> 0). */
static int call_loop(struct rina_comm *c)
{
	struct rina_rm_progress p;
	__u64 wait_us;
	int ret;

	/* packets of this call that arrived during the last one */
	ret = rina_replay_stash(c, rx_one, c);
	if (ret)
		return ret;
	rina_rm_flush(c->rm);
	while (!rina_rm_done(c->rm)) {
		ret = rina_rm_pump(c->rm, &wait_us);
		if (ret)
			return ret;
		ret = rina_recv_batch(c, wait_us > 100000 ? 100000 : wait_us,
				      rx_one, c);
		if (ret)
			return ret;
		rina_rm_flush(c->rm);
		rina_rm_progress(c->rm, &p);
		if (rina_now_us() - p.last_us > (uint64_t)c->timeout_ms * 1000)
			return describe_stall(c);
	}
	return RINA_OK;
}

void rina_ring_free(struct rina_comm *c)
{
	rina_rm_destroy(c->rm);
	c->rm = NULL;
}

int rina_ring_run(struct rina_comm *c, int32_t *acc, size_t count,
		  uint8_t dtype_op)
{
	struct rina_rm *m = engine(c);
	uint32_t slots;
	int ret, rc;

	if (!m)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	ret = rina_rm_start(m, acc, count, dtype_op, c->round++,
			    c->slot_base);
	if (ret) {
		rina_rm_finish(m, 1);
		take_stats(c);
		return fail(c, ret, count);
	}
	slots = rina_sched_slots(rina_rm_sched(m));
	ret = call_loop(c);
	if (ret < 0)
		ret = fail(c, ret, count);
	rc = rina_rm_finish(m, ret != RINA_OK);
	if (!ret && rc)
		ret = fail(c, rc, count);
	c->slot_base += slots;
	take_stats(c);
	return ret;
}
