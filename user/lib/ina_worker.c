// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's INA worker: hosts the INA worker engine (core/ina_worker.c)
 * at a local worker of an INA rack. The engine holds every protocol
 * rule; this file feeds it what the endpoint layer receives from the
 * agent's address, sends what it builds to the aggregator (the ToR while
 * the agent says it aggregates, else the agent) or the agent, waits as
 * long as it says, passes on the agent's word that the ToR was lost, and
 * words its errors.
 */
#include <string.h>

#include "rina_int.h"
#include "engine_cfg.h"
#include "ina_worker.h"

static struct rina_iw *engine(struct rina_comm *c)
{
	struct rina_iw_cfg cfg;

	if (c->iw)
		return c->iw;
	/* the job's rules as rina-sim derives them (core/engine_cfg.h) */
	rina_iw_cfg_job(&cfg, &c->job, &c->ring, (__u16)c->rank,
			&c->cc_params);
	/* rina_config's timeout_ms, when given, over the job's */
	cfg.timeout_ms = c->timeout_ms;
	cfg.path = &c->to_agg;
	cfg.txbuf = c->txbuf;
	cfg.max_msg = c->max_msg;
	cfg.agg = rina_engine_agg(c);
	c->iw = rina_iw_create(&cfg, &rina_engine_host_ops, c);
	return c->iw;
}

static void take_stats(struct rina_comm *c)
{
	struct rina_engine_stats s;

	rina_iw_take_stats(c->iw, &s);
	rina_engine_add_stats(c, &s);
}

static int fail(struct rina_comm *c, int rc)
{
	switch (rc) {
	case RINA_IW_E_XMIT:
		return rina_fail(RINA_ERR_TRANSPORT, "send failed: %s",
				 strerror(rina_iw_xmit_errno(c->iw)));
	case RINA_IW_E_MISMATCH:
		return rina_fail(RINA_ERR_MISMATCH,
				 "allgather data of call %llu does not fit this rank's call (count or dtype differs)",
				 (unsigned long long)c->st.calls);
	case RINA_IW_E_OVERFLOW:
		return rina_fail(RINA_ERR_OVERFLOW,
				 "int32 sum wrapped around (call %llu)",
				 (unsigned long long)c->st.calls);
	default:
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	}
}

/*
 * The contributions of a worker on its agent's host (the agent's rank,
 * or another process there) go to the ToR's address only while it
 * aggregates the rack (it may go away and come back: agent_thread.c):
 * one to the host's own address would never reach the ToR. The agent's
 * rank reads the agent's state, another process what the agent told it
 * (TOR_ON, TOR_LOST); looked up once per pass of sends, not per packet.
 */
static void contrib_dest(struct rina_comm *c)
{
	struct rina_addr to;
	bool on;

	if (!c->tor_to.ip)
		return;
	on = c->agent ? rina_agent_tor_on(c->agent) : c->tor_on_told;
	to = on ? c->tor_to : c->next;
	if (!rina_addr_eq(&to, &c->contrib_to))
		rina_iw_agg_changed(c->iw);
	c->contrib_to = to;
}

/* A checked message of this job, not CTRL (rina_recv_batch). */
static int rx_one(void *ctx, const struct rina_msg *m, bool stashed)
{
	struct rina_comm *c = ctx;
	int ret;

	ret = rina_iw_rx(c->iw, m->buf, rina_peer_of(c, &m->addr), m->ecn,
			 stashed);
	if (ret == RINA_IW_STASH) {
		rina_stash(c, m);
		return RINA_OK;
	}
	return ret ? fail(c, ret) : RINA_OK;
}

static int describe_stall(struct rina_comm *c)
{
	struct rina_iw_progress p;

	rina_iw_progress(c->iw, &p);
	return rina_fail(RINA_ERR_TIMEOUT,
			 "rank %d: no progress for %u ms in call %llu: %llu of %llu allgather packets, %llu of %u contributions delivered, via agent rank %d",
			 c->rank, c->timeout_ms,
			 (unsigned long long)c->st.calls,
			 (unsigned long long)p.got_ag,
			 (unsigned long long)p.expect_ag,
			 (unsigned long long)p.got_done, p.nct, c->next_rank);
}

/* Returns an engine result (< 0) or a librina one (> 0). */
static int call_loop(struct rina_comm *c)
{
	struct rina_iw_progress p;
	__u64 wait_us;
	int ret;

	ret = rina_replay_stash(c, rx_one, c);
	if (ret)
		return ret;
	while (!rina_iw_done(c->iw)) {
		contrib_dest(c);
		ret = rina_iw_pump(c->iw, &wait_us);
		if (ret)
			return ret;
		ret = rina_recv_batch(c, wait_us > 20000 ? 20000 : wait_us,
				      rx_one, c);
		if (ret)
			return ret;
		if (c->tor_lost_told) {
			c->tor_lost_told = false;
			rina_iw_tor_lost(c->iw);
		}
		rina_iw_progress(c->iw, &p);
		if (rina_now_us() - p.last_us > (uint64_t)c->timeout_ms * 1000)
			return describe_stall(c);
	}
	return RINA_OK;
}

void rina_ina_worker_free(struct rina_comm *c)
{
	rina_iw_destroy(c->iw);
	c->iw = NULL;
}

int rina_ina_worker_run(struct rina_comm *c, int32_t *acc, size_t count,
			uint8_t dtype_op)
{
	struct rina_iw *w = engine(c);
	uint32_t slots;
	int ret, rc;

	if (!w)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	c->tor_lost_told = false;	/* a call's timers start afresh anyway */
	ret = rina_iw_start(w, acc, count, dtype_op, c->round++,
			    c->slot_base);
	if (ret == RINA_IW_E_TOO_LARGE || ret == RINA_IW_E_NOMEM) {
		rina_iw_finish(w, 1);
		if (ret == RINA_IW_E_NOMEM)
			return fail(c, ret);
		return rina_fail(RINA_ERR_INVALID,
				 "count %zu needs more than 2^32 packets",
				 count);
	}
	if (c->agent)
		rina_agent_rank_busy(c->agent, true);
	slots = rina_sched_slots(rina_iw_sched(w));
	ret = call_loop(c);
	if (ret < 0)
		ret = fail(c, ret);
	rc = rina_iw_finish(w, ret != RINA_OK);
	if (!ret && rc)
		ret = fail(c, rc);
	c->slot_base += slots;
	if (c->agent)
		rina_agent_rank_busy(c->agent, false);
	take_stats(c);
	return ret;
}
