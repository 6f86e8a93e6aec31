// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The INA worker engine (core/ina_worker.c) alone, its agent and ToR
 * played by this test on a virtual clock: what it sends for its rack's
 * own chunk after the ToR's result of it came. That result overwrites
 * the contribution in the caller's buffer, and does not complete it (the
 * agent's ACK does), so the contribution may go again: after the ToR is
 * lost, into a slot the agent builds anew, and on a timer. Each resend
 * must carry the contribution, never the result: the result added as a
 * contribution made a wrong sum, which a rank that lacked the ToR's copy
 * took (issue 49's soak). And after a ToR loss the orphans go at once,
 * before the probe the silence had made due. And while the path loses,
 * the probe hurries to twice the lowest round trip of late, not to twice
 * the base.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "cc.h"
#include "engine_cfg.h"
#include "hdr.h"
#include "ina_worker.h"
#include "jobfile.h"
#include "../ktap.h"

#define DTYPE		RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM)
#define ELEMS		64
#define MAX_MSG		(RINA_HDR_LEN + ELEMS * 4 + RINA_TAG_LEN)
#define COUNT		(3 * 4 * ELEMS)
#define MAX_SENT	4096
#define ROUND		1
#define CONTRIB(j)	(1000 + (__s32)(j))
#define RESULT(j)	(-7000 - (__s32)(j))

/* 2x2, rack 0 INA: the rack, then ranks 2 and 3 (L = 3); we are rank 1 */
static const char job_text[] =
	"job 9\n"
	"elements 64\n"
	"window 16\n"
	"rack 0 ina tor 198.18.0.254\n"
	"rack 1 plain\n"
	"rank 0 198.18.0.1 rack 0\n"
	"rank 1 198.18.0.2 rack 0\n"
	"rank 2 198.18.1.1 rack 1\n"
	"rank 3 198.18.1.2 rack 1\n";

static const struct rina_agg_ops agg_ops = {
	.add_be		= rina_agg_add_be,
	.max_be		= rina_agg_max_be,
	.store_be	= rina_agg_store_be,
	.load_be	= rina_agg_load_be,
};

struct sent {
	__u32	len;
	__u8	buf[MAX_MSG];
};

static struct {
	__u64		now;
	struct sent	*sent;
	__u32		nsent;
	struct rina_job_desc job;
	struct rina_ring ring;
	struct rina_path path;
	__u8		txbuf[RINA_ENGINE_BATCH * MAX_MSG];
	__s32		acc[COUNT];
} t;

static void *t_zalloc(void *ctx, __u64 size)
{
	(void)ctx;
	return calloc(1, size);
}

static void t_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static __u64 t_now(void *ctx)
{
	(void)ctx;
	return t.now;
}

static int t_xmit(void *ctx, struct rina_engine_msg *m, int n)
{
	int j;

	(void)ctx;
	for (j = 0; j < n && t.nsent < MAX_SENT; j++) {
		memcpy(t.sent[t.nsent].buf, m[j].buf, m[j].len);
		t.sent[t.nsent++].len = m[j].len;
	}
	return n;
}

static int t_tx_queued(void *ctx)
{
	(void)ctx;
	return 0;
}

static void t_stalled(void *ctx)
{
	(void)ctx;
}

static const struct rina_engine_ops ops = {
	.zalloc		= t_zalloc,
	.free		= t_free,
	.now_us		= t_now,
	.xmit		= t_xmit,
	.tx_queued	= t_tx_queued,
	.stalled	= t_stalled,
};

/* the same ring with rack 1 INA too: a ring of INA racks only */
static const char job_all_ina[] =
	"job 9\n"
	"elements 64\n"
	"window 16\n"
	"rack 0 ina tor 198.18.0.254\n"
	"rack 1 ina tor 198.18.1.254\n"
	"rank 0 198.18.0.1 rack 0\n"
	"rank 1 198.18.0.2 rack 0\n"
	"rank 2 198.18.1.1 rack 1\n"
	"rank 3 198.18.1.2 rack 1\n";

static struct rina_iw *worker_of(const char *text)
{
	struct rina_cc_params cc;
	struct rina_iw_cfg cfg;
	char err[256];

	if (rina_jobfile_parse_text(text, "job", &t.job, err,
				    sizeof(err))) {
		ktap_diag("%s", err);
		return NULL;
	}
	rina_ring_build(&t.job, 1, &t.ring);
	rina_job_cc_params(&t.job, t.job.cc, &cc);
	rina_iw_cfg_job(&cfg, &t.job, &t.ring, 1, &cc);
	rina_path_init(&t.path, &cc);
	cfg.path = &t.path;
	cfg.txbuf = t.txbuf;
	cfg.max_msg = MAX_MSG;
	cfg.agg = &agg_ops;
	return rina_iw_create(&cfg, &ops, NULL);
}

static struct rina_iw *worker(void)
{
	return worker_of(job_text);
}

/*
 * A worker of a ring of INA racks only waits, for every slot, on the
 * next rack too: its delay signal takes no cut (qmin_lag_only, core/cc.h);
 * in a mixed ring it keeps it. Set at each call's start, on the path.
 */
static void test_lag_only(struct rina_iw *mixed)
{
	struct rina_iw *w;
	int ok;

	ok = !t.path.cc.qmin_lag_only;
	rina_iw_finish(mixed, 1);
	rina_iw_destroy(mixed);
	ktap_result(ok, "mixed_ring_worker_keeps_its_delay_signal");
	w = worker_of(job_all_ina);
	t.path.cc.qmin_lag_only = 0;
	ok = w && !rina_iw_start(w, t.acc, COUNT, DTYPE, ROUND + 1, 0) &&
	     t.path.cc.qmin_lag_only;
	ktap_result(ok, "ina_only_ring_worker_takes_no_delay_cut");
	if (w) {
		rina_iw_finish(w, 1);
		rina_iw_destroy(w);
	}
}

static __s32 word(const struct sent *s, __u32 j)
{
	const __be32 *p = (const __be32 *)(s->buf + RINA_HDR_LEN);

	return (__s32)rina_ntohl(p[j]);
}

/* The first contribution sent to the own chunk, at or after index from. */
static const struct sent *own_contrib(__u32 from, __u32 seq)
{
	__u32 j;

	for (j = from; j < t.nsent; j++) {
		const struct rina_hdr *h = (const void *)t.sent[j].buf;

		if (rina_hdr_opcode(h) == RINA_OP_SR_CONTRIB &&
		    (h->flags & RINA_F_OWN_FINAL) &&
		    (seq == ~0u || rina_ntohl(h->seq) == seq))
			return &t.sent[j];
	}
	return NULL;
}

/* Do the n words of s carry the contribution of elements off..? */
static int carries(const struct sent *s, __u64 off, __u32 n, int result)
{
	__u32 j;

	for (j = 0; j < n; j++)
		if (word(s, j) != (result ? RESULT(off + j) : CONTRIB(off + j)))
			return 0;
	return 1;
}

/* The ToR's result of contribution seq, as its agent replica sends it. */
static int tor_result(struct rina_iw *w, __u32 sr_seq, __u64 *off,
		      __u32 *len)
{
	const struct rina_sched *s = rina_iw_sched(w);
	__u8 buf[MAX_MSG];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	__be32 *p = (__be32 *)(h + 1);
	struct rina_pkt_id id;
	__u32 ag = rina_seq_ag_of(s->L, s->P, sr_seq), j;

	rina_seq_decode(s, sr_seq, &id);
	*off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	*len = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	rina_hdr_fill(h, RINA_OP_AG_DATA, t.job.job_id, ROUND, 0);
	h->seq = rina_htonl(ag);
	h->chunk = rina_htons((__u16)id.chunk);
	h->n_elem = rina_htons((__u16)rina_wire_elems(*len));
	h->num_contrib = rina_htons((__u16)t.job.n_ranks);
	h->dtype_op = DTYPE;
	h->flags = RINA_F_FROM_SWITCH;
	for (j = 0; j < *len; j++)
		p[j] = rina_htonl((__u32)RESULT(*off + j));
	return rina_iw_rx(w, h, RINA_PEER_NEXT, 0, 0);
}

/* The agent's ACK that it holds the own chunk's result ag_seq. */
static int agent_holds(struct rina_iw *w, __u32 ag_seq)
{
	__u8 buf[RINA_HDR_LEN + 4];
	struct rina_hdr *h = (struct rina_hdr *)buf;

	rina_hdr_fill(h, RINA_OP_ACK, t.job.job_id, ROUND, 0);
	h->flags = RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	h->n_elem = rina_htons(1);
	*(__be32 *)(h + 1) = rina_htonl(ag_seq);
	return rina_iw_rx(w, h, RINA_PEER_NEXT, 0, 0);
}

/* Pump the engine for ms milliseconds of virtual time (0: once). */
static int run_for(struct rina_iw *w, __u64 ms)
{
	__u64 end = t.now + ms * 1000, wait;
	int ret;

	if (!ms)
		return rina_iw_pump(w, &wait);
	while (t.now < end) {
		ret = rina_iw_pump(w, &wait);
		if (ret)
			return ret;
		t.now += wait < 1000 ? 1000 : wait;
	}
	return 0;
}

/*
 * Run the engine for ms and report whether it resent contribution seq
 * with the contribution of elements off.. in it (not the result).
 */
static void resent_is_contrib(struct rina_iw *w, __u64 ms, __u32 seq,
			      __u64 off, __u32 len, const char *name)
{
	__u32 mark = t.nsent;
	const struct sent *again;
	int ok = !run_for(w, ms);

	again = own_contrib(mark, seq);
	ktap_result(ok && again && carries(again, off, len, 0), "%s # %s",
		    name, !again ? "not resent" :
		    carries(again, off, len, 1) ? "the result" : "checked");
}

/*
 * The path's history before a call of a ring of INA racks: a base round
 * trip of 1 ms from long ago, and of late deliveries of low_us at the
 * least and 50 ms on average; RACK found a loss just now.
 */
static void path_lossy_with_low(__u64 low_us)
{
	__u32 j;

	rina_path_rtt(&t.path, 1000, t.now - 5000000);
	for (j = 0; j < 64; j++) {
		__u64 at = t.now - 200000 + j * 3000;
		__u64 rtt = j % 2 ? 2 * 50000 - low_us : low_us;

		rina_path_rtt(&t.path, rtt, at);
		rina_cc_rtt_sample(&t.path.cc, rtt, &t.path.rtt, at);
	}
	t.path.last_loss_us = t.now;
}

/*
 * A call's probes in its first 30 ms, nothing delivered, on a path
 * whose lowest round trip of late was low_us (path_lossy_with_low()).
 */
static __u64 probes_in_30ms(__u64 low_us)
{
	struct rina_engine_stats st;
	struct rina_iw *w;
	__u64 probes = ~0ULL;

	w = worker_of(job_all_ina);
	if (!w)
		return probes;
	path_lossy_with_low(low_us);
	if (!rina_iw_start(w, t.acc, COUNT, DTYPE, ROUND + 2, 0) &&
	    !run_for(w, 30)) {
		rina_iw_take_stats(w, &st);
		probes = st.probes;
	}
	rina_iw_finish(w, 1);
	rina_iw_destroy(w);
	return probes;
}

/*
 * While RACK finds losses, the probe hurries to twice the lowest round
 * trip of late: at random loss that stays at the base, and a probe goes
 * within a few ms. Where every delivery of late waited 40 ms and more (a
 * queue that overflows, the next rack's lag), twice the base fired in
 * every gap between deliveries: 4x2 every rack INA without a ToR, 25
 * Mbit/s, probed most contributions again, 0.44x plain RAR.
 */
static void test_probe_waits_for_the_lag(void)
{
	__u64 quick = probes_in_30ms(1000), lag = probes_in_30ms(40000);

	ktap_result(quick && quick != ~0ULL,
		    "lossy_path_at_its_base_probes_soon # %llu probes",
		    (unsigned long long)quick);
	ktap_result(!lag,
		    "lossy_path_with_a_queue_probes_no_sooner_than_it # %llu probes",
		    (unsigned long long)lag);
}

int main(void)
{
	struct rina_engine_stats st;
	const struct rina_sched *s;
	const struct sent *first;
	struct rina_iw *w;
	__u32 seq, len, mark, j;
	__u64 off;
	int ok;

	ktap_plan(10);
	t.sent = calloc(MAX_SENT, sizeof(*t.sent));
	w = t.sent ? worker() : NULL;
	for (j = 0; j < COUNT; j++)
		t.acc[j] = CONTRIB(j);
	t.now = 1000000;
	if (!w || rina_iw_start(w, t.acc, COUNT, DTYPE, ROUND, 0) ||
	    run_for(w, 1)) {
		ktap_result(0, "worker_starts_a_call");
		return ktap_finish();
	}
	s = rina_iw_sched(w);
	first = own_contrib(0, ~0u);
	ktap_result(first != NULL, "worker_sends_its_own_chunk_contribution");
	if (!first)
		return ktap_finish();
	seq = rina_ntohl(((const struct rina_hdr *)first->buf)->seq);

	/* the ToR's result comes: the caller's buffer holds it */
	ok = !tor_result(w, seq, &off, &len);
	for (j = 0; ok && j < len; j++)
		ok = t.acc[off + j] == RESULT(off + j);
	ktap_result(ok && len, "tor_result_lands_in_the_buffer # seq %u, %u elements at %llu",
		    seq, len, (unsigned long long)off);

	/* its timer: the contribution again, not the result */
	resent_is_contrib(w, 5000, seq, off, len,
			  "timer_resend_carries_the_contribution_not_the_result");

	/* the ToR is lost: everything undelivered goes to the agent's slot */
	rina_iw_take_stats(w, &st);
	rina_iw_tor_lost(w);
	/*
	 * at once, as orphans, not one a step by the probe that the silence
	 * had made due (its timeout starts over with the news)
	 */
	ok = !run_for(w, 0);
	rina_iw_take_stats(w, &st);
	ktap_result(ok && st.resent_orphaned >= 1 && !st.probes,
		    "after_tor_lost_orphans_go_before_any_probe # %llu orphans, %llu probes",
		    (unsigned long long)st.resent_orphaned,
		    (unsigned long long)st.probes);
	resent_is_contrib(w, 100, seq, off, len,
			  "after_tor_lost_resend_carries_the_contribution");

	/* the agent holds it: never again, and the buffer keeps the result */
	ok = !agent_holds(w, rina_seq_ag_of(s->L, s->P, seq));
	rina_iw_tor_lost(w);
	mark = t.nsent;
	ok &= !run_for(w, 5000);
	for (j = 0; ok && j < len; j++)
		ok = t.acc[off + j] == RESULT(off + j);
	ktap_result(ok && !own_contrib(mark, seq),
		    "held_by_the_agent_not_resent_result_kept");

	test_lag_only(w);
	test_probe_waits_for_the_lag();
	free(t.sent);
	return ktap_finish();
}
