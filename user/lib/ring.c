// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's ring member: hosts the ring member engine (core/ring_member.c)
 * for a plain member of the ring. The engine holds every protocol rule;
 * this file feeds it what the endpoint layer receives, sends what it
 * builds through the endpoint layer, waits as long as it says, and words
 * its errors. Documentation/protocol.md describes the rules.
 */
#include <arpa/inet.h>
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

/*
 * The next member, when the stall is its: packets of ours out to it and
 * not one acknowledged for the whole timeout. Alive, it acknowledges
 * every copy it gets however stalled the ring is (ring_member.c,
 * rx_ack()), so it died, was stopped, or is cut off. Upstream of a
 * stall nothing says which member it was: such a rank waits
 * (call_loop()) for the ABORT of the one that knows.
 */
static int dead_next(const struct rina_comm *c,
		     const struct rina_rm_progress *p, uint64_t now)
{
	/* an INA member acknowledges when its slots complete: not here */
	if (!p->in_flight || c->next_rank == c->rank ||
	    c->ring.m[rina_ring_next(&c->ring, c->member)].ina ||
	    now - p->last_ack_us < (uint64_t)c->timeout_ms * 1000)
		return -1;
	return c->next_rank;
}

static int describe_stall(struct rina_comm *c)
{
	struct rina_rm_progress p;
	uint64_t now = rina_now_us();
	char ip[INET_ADDRSTRLEN];

	rina_rm_progress(c->rm, &p);
	c->dead_peer = dead_next(c, &p, now);
	if (c->dead_peer >= 0) {
		inet_ntop(AF_INET, &c->next.ip, ip, sizeof(ip));
		return rina_fail(RINA_ERR_TIMEOUT,
				 "rank %d: no progress for %u ms in call %llu: rank %d (%s:%u) acknowledged nothing for %llu ms, %u packets out to it: it died, was stopped or is cut off",
				 c->rank, c->timeout_ms,
				 (unsigned long long)c->st.calls, c->dead_peer,
				 ip, ntohs(c->next.port),
				 (unsigned long long)
				 ((now - p.last_ack_us) / 1000), p.in_flight);
	}
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
	uint64_t limit = (uint64_t)c->timeout_ms * 1000, now;
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
		now = rina_now_us();
		if (now - p.last_us <= limit)
			continue;
		/*
		 * Ours is no dead neighbour's stall: the rank that has one
		 * times out about now and its ABORT names it (describe_
		 * stall()), a grace of a quarter timeout, at most 1 s. The
		 * same when the next member acknowledged nothing of this
		 * call: it may be alive and a call behind, stalled by its
		 * own dead next member, keeping ours for its next call
		 * unacknowledged (rina_stash()). In a 2x2 ring with rank 2
		 * stopped, rank 0, a call ahead, timed out a few ms before
		 * rank 1 and named rank 1.
		 */
		if ((dead_next(c, &p, now) < 0 || !p.got_ack) &&
		    now - p.last_us <= limit + (limit / 4 < 1000000 ?
						limit / 4 : 1000000))
			continue;
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
	c->dead_peer = -1;
	if (c->phases & RINA_RM_BC)
		rina_rm_broadcast(m, c->bc_root);
	else
		rina_rm_phases(m, c->phases);
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
