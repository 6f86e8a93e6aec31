// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Unit tests of the congestion controller (core/cc.c), the RTT
 * estimator (core/rtt.h) and RACK loss detection (core/rack.h) on
 * synthetic ACK, loss, delay and ECN sequences: the window shrinks on
 * each signal, at most once per round trip, grows back, never leaves
 * 1..W; the RTO follows the RTT; an ACK of a resent packet that came too
 * soon to be the resend's is told from one that did not.
 */
#include <stdbool.h>
#include <stdio.h>

#include "cc.h"
#include "plan.h"
#include "rack.h"
#include "../ktap.h"

#define W	64
#define BASE	1000	/* us: the path's RTT without a queue */

struct path {
	struct rina_cc cc;
	struct rina_rtt rtt;
	__u64 now;
};

static void path_init(struct path *p, __u32 flags)
{
	struct rina_cc_params cp;

	rina_cc_params_default(&cp, W);
	cp.flags = flags;
	rina_cc_init(&p->cc, &cp);
	p->rtt = (struct rina_rtt){ 0 };
	p->now = 1000000;
}

/* One round trip in which every packet of the window is acknowledged. */
static void round_acked(struct path *p, __u64 rtt_us, __u32 ce_per_pkt)
{
	__u32 i, n = rina_cc_window(&p->cc);

	for (i = 0; i < n; i++) {
		p->now += rtt_us / n + 1;
		rina_rtt_update(&p->rtt, rtt_us, p->now);
		rina_cc_on_ack(&p->cc, 1, ce_per_pkt, rtt_us, &p->rtt, p->now);
	}
}

static void test_slow_start_and_cap(void)
{
	struct path p;
	bool ok = true, mono = true;
	__u32 w, prev = 0;
	int r;

	path_init(&p, RINA_CC_F_ALL);
	ok &= rina_cc_window(&p.cc) == RINA_CC_DEF_INIT;
	for (r = 0; r < 20; r++) {
		round_acked(&p, BASE, 0);
		w = rina_cc_window(&p.cc);
		mono &= w >= prev && w <= W;
		prev = w;
	}
	ktap_result(ok && mono && prev == W,
		    "cc: slow start from %d grows to W=%d and stays there (%u)",
		    RINA_CC_DEF_INIT, W, prev);
}

static void test_loss(void)
{
	struct path p;
	__u32 before, after, after2;
	int r;

	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	before = rina_cc_window(&p.cc);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	after = rina_cc_window(&p.cc);
	/* a burst of losses in the same round trip cuts once */
	rina_cc_on_loss(&p.cc, &p.rtt, p.now + 10);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now + 20);
	after2 = rina_cc_window(&p.cc);
	ktap_result(before == W && after == W / 2 && after2 == after &&
		    p.cc.st.cuts_loss == 1,
		    "cc: a loss halves the window once per round trip (%u -> %u -> %u)",
		    before, after, after2);

	/* additive increase: about one packet per round trip */
	for (r = 0; r < 8; r++)
		round_acked(&p, BASE, 0);
	ktap_result(rina_cc_window(&p.cc) >= after + 7 &&
		    rina_cc_window(&p.cc) <= after + 9,
		    "cc: after a loss it grows back by one packet per round trip (%u after 8)",
		    rina_cc_window(&p.cc));

	/* a loss every round trip (with ACKs between): never below one */
	for (r = 0; r < 40; r++) {
		p.now += 2 * BASE;
		rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, p.now);
		rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	}
	ktap_result(rina_cc_window(&p.cc) == 1 && p.cc.cwnd >= RINA_CC_ONE,
		    "cc: repeated losses stop at one packet");
	for (r = 0; r < 200; r++)
		round_acked(&p, BASE, 0);
	ktap_result(rina_cc_window(&p.cc) == W,
		    "cc: and grow back to W once the losses stop");
}

/*
 * An INA worker's round trip: every packet delivered after rtt_us; the
 * sample reaches the estimator and rina_cc_rtt_sample(), never the
 * delay signal (on_ack without a sample).
 */
static void round_worker(struct path *p, __u64 rtt_us)
{
	__u32 i, n = rina_cc_window(&p->cc);

	for (i = 0; i < n; i++) {
		p->now += rtt_us / n + 1;
		rina_rtt_update(&p->rtt, rtt_us, p->now);
		rina_cc_rtt_sample(&p->cc, rtt_us, &p->rtt, p->now);
		rina_cc_on_ack(&p->cc, 1, 0, 0, &p->rtt, p->now);
	}
}

static void test_loss_unqueued(void)
{
	struct path p;
	__u32 before;
	int r;

	/* samples at the base RTT: a loss that found no queue cuts nothing */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	before = rina_cc_window(&p.cc);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	round_worker(&p, BASE);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	ktap_result(before == W && rina_cc_window(&p.cc) == W &&
		    p.cc.st.cuts_loss == 0 && p.cc.st.losses_unqueued == 2,
		    "cc: a worker's losses with its samples at the base RTT cut nothing (%u, %llu unqueued)",
		    rina_cc_window(&p.cc),
		    (unsigned long long)p.cc.st.losses_unqueued);

	/* samples that stopped coming say nothing: a loss then halves */
	p.now += 2 * RINA_CC_SAMPLES_STALE_RTTS * BASE;
	before = rina_cc_window(&p.cc);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	ktap_result(before == W && rina_cc_window(&p.cc) == W / 2 &&
		    p.cc.st.cuts_loss == 1,
		    "cc: a worker's loss after its samples stopped for 16 round trips halves (%u)",
		    rina_cc_window(&p.cc));
	for (r = 0; r < 200; r++)
		round_worker(&p, BASE);

	/* a queue of 10 ms (3 ms target) in every recent sample: halves */
	round_worker(&p, BASE + 10000);
	round_worker(&p, BASE + 10000);
	before = rina_cc_window(&p.cc);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	ktap_result(before == W && rina_cc_window(&p.cc) == W / 2 &&
		    p.cc.st.cuts_loss == 2,
		    "cc: a worker's loss behind a standing queue halves its window (%u -> %u)",
		    before, rina_cc_window(&p.cc));

	/* the sender that reports no samples (a ring member) cuts as ever */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	ktap_result(rina_cc_window(&p.cc) == W / 2 &&
		    !p.cc.st.losses_unqueued,
		    "cc: without rina_cc_rtt_sample() a loss at the base RTT halves as before");
}

/*
 * An INA worker's round trip in which one contribution (the one whose
 * slot the others had already filled) comes back after low_us and the
 * rest after high_us; lost: a loss found in it.
 */
static void round_worker_spread(struct path *p, __u64 low_us, __u64 high_us,
				bool lost)
{
	__u32 i, n = rina_cc_window(&p->cc);

	for (i = 0; i < n; i++) {
		__u64 s = i == n / 2 ? low_us : high_us;

		p->now += high_us / n + 1;
		rina_rtt_update(&p->rtt, s, p->now);
		rina_cc_rtt_sample(&p->cc, s, &p->rtt, p->now);
		rina_cc_on_ack(&p->cc, 1, 0, 0, &p->rtt, p->now);
		if (lost && i == 0)
			rina_cc_on_loss(&p->cc, &p->rtt, p->now);
	}
}

/* The round trips rina_cc_rtt_sample() closed so far. */
static __u32 qmin_rounds(const struct path *p, __u64 *end)
{
	if (p->cc.qmin_end_us == *end)
		return 0;
	*end = p->cc.qmin_end_us;
	return 1;
}

static void test_worker_delay(void)
{
	__u64 q = BASE + 4 * RINA_CC_DEF_TARGET_US, end;
	__u32 rounds = 0, at_cut = 0, before;
	struct path p;
	int r, i;

	/*
	 * A standing queue in every sample: no cut for RINA_CC_QUEUE_RTTS
	 * round trips over target, then a cut by delay, none by loss
	 */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	before = rina_cc_window(&p.cc);
	end = p.cc.qmin_end_us;
	for (i = 0; i < 64 * 20 && !p.cc.st.cuts_delay; i++) {
		p.now += q / 64 + 1;
		rina_rtt_update(&p.rtt, q, p.now);
		rina_cc_rtt_sample(&p.cc, q, &p.rtt, p.now);
		rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, p.now);
		rounds += qmin_rounds(&p, &end);
	}
	at_cut = rounds;
	ktap_result(before == W && p.cc.st.cuts_delay == 1 &&
		    rina_cc_window(&p.cc) < W && !p.cc.st.cuts_loss &&
		    at_cut == RINA_CC_QUEUE_RTTS + 1,
		    "cc: a worker's lowest sample over target for %d round trips in a row cuts by delay (%u round trips, %u -> %u)",
		    RINA_CC_QUEUE_RTTS, at_cut, before,
		    rina_cc_window(&p.cc));
	for (r = 0; r < 4; r++)
		round_worker(&p, q);
	ktap_result(p.cc.st.cuts_delay >= 3 && rina_cc_window(&p.cc) < W / 4,
		    "cc: and again each round trip the queue stands (%llu cuts, window %u)",
		    (unsigned long long)p.cc.st.cuts_delay,
		    rina_cc_window(&p.cc));

	/*
	 * The same lag in every sample of a worker that says its samples
	 * wait for others past any queue of its own (a ring of INA racks
	 * only): no cut, the window stays whole
	 */
	path_init(&p, RINA_CC_F_ALL);
	p.cc.qmin_lag_only = 1;
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	for (r = 0; r < 20; r++)
		round_worker(&p, q);
	ktap_result(!p.cc.st.cuts_delay && rina_cc_window(&p.cc) == W,
		    "cc: a worker whose lowest sample is a lag, not a queue (qmin_lag_only), is not cut by delay (window %u)",
		    rina_cc_window(&p.cc));

	/*
	 * Every slot but one waited for the ring: the one that did not
	 * shows no queue, and nothing is cut
	 */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	for (r = 0; r < 40; r++)
		round_worker_spread(&p, BASE, BASE + 20 * RINA_CC_DEF_TARGET_US,
				    false);
	ktap_result(!p.cc.st.cuts_delay && rina_cc_window(&p.cc) == W,
		    "cc: a worker whose slots wait for the ring, but not all, is not cut (window %u)",
		    rina_cc_window(&p.cc));

	/*
	 * every sample high, a loss in every round trip: repairs, not a
	 * queue (the loss signal off, so that its cuts hide nothing)
	 */
	path_init(&p, RINA_CC_F_DELAY | RINA_CC_F_ECN);
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	for (r = 0; r < 40; r++)
		round_worker_spread(&p, q, q, true);
	ktap_result(!p.cc.st.cuts_delay && rina_cc_window(&p.cc) == W,
		    "cc: round trips with losses do not count for the delay signal (window %u)",
		    rina_cc_window(&p.cc));

	/*
	 * A queue no epoch sees drain (a TCP flow keeps it): competing
	 * mode, the window grows back
	 */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_worker(&p, BASE);
	for (r = 0; r < (RINA_CC_COMPETE_EPOCHS + 2) * RINA_CC_EPOCH_RTTS +
			RINA_CC_QUEUE_RTTS; r++)
		round_worker(&p, BASE + 20 * RINA_CC_DEF_TARGET_US);
	before = rina_cc_window(&p.cc);
	i = (int)p.cc.st.cuts_delay;
	for (r = 0; r < 20; r++)
		round_worker(&p, BASE + 20 * RINA_CC_DEF_TARGET_US);
	ktap_result(p.cc.competing && i > 0 && p.cc.st.cuts_delay == (__u64)i &&
		    rina_cc_window(&p.cc) > before + 10,
		    "cc: a worker's queue that never drains is another sender's: competing (%d cuts, window %u -> %u)",
		    i, before, rina_cc_window(&p.cc));

	/* without the delay signal a worker is not cut by delay */
	path_init(&p, RINA_CC_F_LOSS | RINA_CC_F_ECN);
	for (r = 0; r < 20; r++)
		round_worker(&p, q);
	ktap_result(!p.cc.st.cuts_delay && rina_cc_window(&p.cc) == W,
		    "cc: a worker without the delay signal is not cut by delay");
}

static void test_delay(void)
{
	struct path p;
	__u32 before, w;
	int r;
	bool ok = true;

	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	before = rina_cc_window(&p.cc);
	/* under target: no cut */
	round_acked(&p, BASE + RINA_CC_DEF_TARGET_US - 10, 0);
	ok &= rina_cc_window(&p.cc) == before && !p.cc.st.cuts_delay;
	/* a standing queue of 4x the target: cut, by at most max_mdf */
	round_acked(&p, BASE + 4 * RINA_CC_DEF_TARGET_US, 0);
	w = rina_cc_window(&p.cc);
	ok &= w < before && w >= before / 2 && p.cc.st.cuts_delay == 1;
	ktap_result(ok, "cc: queueing delay over target cuts the window once per round trip (%u -> %u)",
		    before, w);

	/* the queue persists whatever the window: delay cuts, to one ... */
	for (r = 0; r < 2 * RINA_CC_EPOCH_RTTS; r++)
		round_acked(&p, BASE + 20 * RINA_CC_DEF_TARGET_US, 0);
	w = rina_cc_window(&p.cc);
	ok = w <= before / 4 && !p.cc.competing;
	/*
	 * ... but a queue that no epoch saw drain, however small the
	 * window, is another sender's (a TCP flow): delay stops cutting
	 */
	for (r = 0; r < (RINA_CC_COMPETE_EPOCHS + 1) * RINA_CC_EPOCH_RTTS; r++)
		round_acked(&p, BASE + 20 * RINA_CC_DEF_TARGET_US, 0);
	ok &= p.cc.competing && p.cc.st.competes == 1;
	r = p.cc.st.cuts_delay;
	for (int i = 0; i < 20; i++)
		round_acked(&p, BASE + 20 * RINA_CC_DEF_TARGET_US, 0);
	ok &= p.cc.st.cuts_delay == (__u64)r && rina_cc_window(&p.cc) > w + 10;
	ktap_result(ok, "cc: a queue no epoch sees drain is another sender's: after %d epochs the delay signal is ignored (window %u -> %u)",
		    RINA_CC_COMPETE_EPOCHS, w, rina_cc_window(&p.cc));
	/* the queue drained: delay counts again, grows back, no more cuts */
	r = p.cc.st.cuts_delay;
	for (int i = 0; i < 200; i++)
		round_acked(&p, BASE, 0);
	ktap_result(rina_cc_window(&p.cc) == W && !p.cc.competing &&
		    p.cc.st.cuts_delay == (__u64)r,
		    "cc: once the queue drains it grows back to W, reacting to delay again");
	round_acked(&p, BASE + 4 * RINA_CC_DEF_TARGET_US, 0);
	ktap_result(p.cc.st.cuts_delay == (__u64)r + 1,
		    "cc: after competing, a new standing queue cuts again");

	/* a slow link: one packet's serialisation is most of the base RTT */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, 10 * RINA_CC_DEF_TARGET_US, 0);
	for (r = 0; r < 5; r++)
		round_acked(&p, 19 * RINA_CC_DEF_TARGET_US, 0);
	ok = !p.cc.st.cuts_delay;
	round_acked(&p, 30 * RINA_CC_DEF_TARGET_US, 0);
	ktap_result(ok && p.cc.st.cuts_delay == 1,
		    "cc: the delay target is at least one base RTT (slow links)");

	path_init(&p, RINA_CC_F_LOSS);
	for (r = 0; r < 20; r++)
		round_acked(&p, BASE + 20 * RINA_CC_DEF_TARGET_US, 0);
	ktap_result(rina_cc_window(&p.cc) == W,
		    "cc: with the delay signal off, delay does not cut");
}

static void test_ecn(void)
{
	struct path p;
	__u32 before;
	int r;

	path_init(&p, RINA_CC_F_ALL);
	before = rina_cc_window(&p.cc);
	round_acked(&p, BASE, 1);
	ktap_result(p.cc.st.cuts_ecn == 1 &&
		    rina_cc_window(&p.cc) <= before / 2 + 1,
		    "cc: the first marked round halves the window (alpha starts at 1: %u -> %u)",
		    before, rina_cc_window(&p.cc));
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	before = rina_cc_window(&p.cc);
	for (r = 0; r < 3; r++)
		round_acked(&p, BASE, 1);
	ktap_result(rina_cc_window(&p.cc) < before && p.cc.st.cuts_ecn >= 1 &&
		    p.cc.alpha > 0,
		    "cc: ECN marks cut the window (DCTCP alpha %u/1024, %u -> %u)",
		    p.cc.alpha, before, rina_cc_window(&p.cc));
	for (r = 0; r < 300; r++)
		round_acked(&p, BASE, 0);
	ktap_result(rina_cc_window(&p.cc) == W && p.cc.alpha < 64,
		    "cc: without marks alpha decays and the window returns to W");
}

static void test_timeout_and_off(void)
{
	struct path p;
	int r;

	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	rina_cc_on_timeout(&p.cc, 1, &p.rtt, p.now);
	ktap_result(rina_cc_window(&p.cc) == W / 2,
		    "cc: a first timeout cuts like a loss");
	p.now += 10 * BASE;
	rina_cc_on_timeout(&p.cc, 2, &p.rtt, p.now);
	ktap_result(rina_cc_window(&p.cc) == 1 &&
		    p.cc.ssthresh == W / 4 * RINA_CC_ONE,
		    "cc: a timeout that fires again restarts from one packet, ssthresh half");

	/*
	 * A stall: nothing comes back for 50 round trips while every
	 * packet's timer fires, first and second tries. One cut and one
	 * restart, ssthresh held at half the window: back to W / 2 in
	 * slow start within a few round trips once ACKs come again.
	 */
	path_init(&p, RINA_CC_F_ALL);
	for (r = 0; r < 10; r++)
		round_acked(&p, BASE, 0);
	for (r = 0; r < 50; r++) {
		p.now += BASE;
		rina_cc_on_timeout(&p.cc, r < 25 ? 1 : 2, &p.rtt, p.now);
	}
	{
		bool stall_ok = rina_cc_window(&p.cc) == 1 &&
				p.cc.ssthresh == W / 4 * RINA_CC_ONE &&
				p.cc.st.cuts_loss == 1;

		for (r = 0; r < 8; r++)
			round_acked(&p, BASE, 0);
		ktap_result(stall_ok && rina_cc_window(&p.cc) >= W / 4,
			    "cc: a stall cuts once and restarts once (ssthresh %u), the window is back to %u in 8 round trips",
			    p.cc.ssthresh / RINA_CC_ONE,
			    rina_cc_window(&p.cc));
	}

	path_init(&p, 0);
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	rina_cc_on_timeout(&p.cc, 3, &p.rtt, p.now);
	round_acked(&p, 100 * BASE, 1);
	ktap_result(rina_cc_window(&p.cc) == W,
		    "cc: flags 0 keeps the fixed window W");
}

/*
 * When the lowest sample ages out, the base is the lowest of the rest of
 * the window, not the sample of that moment (a standing queue's).
 */
static void test_rtt_base_window(void)
{
	struct rina_rtt r = { 0 };
	__u64 t;

	rina_rtt_update(&r, 1000, 1000);
	for (t = 3000000; t <= 9000000; t += 100000)
		rina_rtt_update(&r, t == 6000000 ? 1500 : 2500, t);
	rina_rtt_update(&r, 20000, 10500000);
	ktap_result(r.base_us == 1500,
		    "rtt: an aged base gives way to the window's next lowest (%llu, not 20000)",
		    (unsigned long long)r.base_us);
	rina_rtt_update(&r, 20000, 16500000);
	ktap_result(r.base_us == 2500,
		    "rtt: and that one to the next (%llu)",
		    (unsigned long long)r.base_us);
	rina_rtt_update(&r, 30000, 16500000 + RINA_RTT_BASE_WINDOW_US + 1);
	ktap_result(r.base_us == 30000,
		    "rtt: a window with no sample left starts again (%llu)",
		    (unsigned long long)r.base_us);
}

static void test_rtt(void)
{
	struct rina_rtt r = { 0 };
	__u64 now = 1, rto_small, rto_big;
	int i;

	ktap_result(rina_rtt_rto(&r, 20000, 1000000) == 20000,
		    "rtt: the job's timer before any sample");
	for (i = 0; i < 50; i++)
		rina_rtt_update(&r, 1000, now += 1000);
	rto_small = rina_rtt_rto(&r, 2000, 1000000);
	for (i = 0; i < 50; i++)
		rina_rtt_update(&r, 60000, now += 60000);
	rto_big = rina_rtt_rto(&r, 2000, 1000000);
	ktap_result(rto_small == 2000 && rto_big > 60000 && rto_big < 120000 &&
		    r.base_us == 1000,
		    "rtt: the RTO follows a growing RTT (%llu -> %llu us), base stays 1000",
		    (unsigned long long)rto_small, (unsigned long long)rto_big);
	now += RINA_RTT_BASE_WINDOW_US + 1;
	rina_rtt_update(&r, 50000, now);
	ktap_result(r.base_us == 50000,
		    "rtt: the base RTT is forgotten after its window");
	ktap_result(rina_rtt_rto(&r, 2000, 30000) == 30000,
		    "rtt: the RTO is capped");
	test_rtt_base_window();
	/* sent at 1000 with a 10 ms RTO: due at 11000 ... */
	ktap_result(rina_rto_due(11000, 0, 10000) == 11000 &&
		    rina_rto_due(11000, 5000, 10000) == 15000 &&
		    rina_rto_due(11000, 30000, 10000) == 40000 &&
		    rina_rto_due(11000, 1000, 10000) == 11000,
		    "rtt: a timer restarted by every ACK of new data (RFC 6298 5.3)");
}

/*
 * A model of INA racks in a ring (protocol.md 5 and 6.1): L members of
 * M workers each push their contributions in ordinal order; the slot of
 * (member i, ordinal o) completes once its M workers sent o and, past
 * step 0, upstream's slot o - P completed; a contribution to step t < L-1
 * is delivered when downstream's slot o + P completes, the last step's
 * when its own slot does. Workers send while in flight < window and
 * o < oldest undelivered + W (the slot window). Nothing is lost: what is
 * tested is whether the windows alone can stall the ring. Returns the
 * contributions delivered (all of them: no deadlock).
 */
#define ML	3		/* members */
#define MM	2		/* workers per member */
#define MP	15		/* packets per chunk */
#define MB	3		/* blocks */
#define MW	64		/* slot window W */
#define MN	(MB * ML * MP)	/* contributions per worker */

static __u32 ring_model(__u32 (*window)(const struct rina_cc *, __u32))
{
	static bool sent[ML][MM][MN], done[ML][MM][MN], slot[ML][MN];
	__u32 i, w, o, next[ML][MM] = { { 0 } }, first[ML][MM] = { { 0 } };
	__u32 inflight[ML][MM] = { { 0 } }, delivered = 0, t;
	struct rina_cc cc[ML][MM];
	struct rina_cc_params cp;
	bool moved = true;

	rina_cc_params_default(&cp, MW);
	cp.flags = RINA_CC_F_LOSS;
	for (i = 0; i < ML; i++)
		for (w = 0; w < MM; w++) {
			rina_cc_init(&cc[i][w], &cp);
			/* losses drove every window down to one packet */
			for (t = 0; t < 8; t++)
				rina_cc_on_loss(&cc[i][w], NULL, t);
		}
	for (i = 0; i < ML; i++)
		for (o = 0; o < MN; o++) {
			slot[i][o] = false;
			for (w = 0; w < MM; w++)
				sent[i][w][o] = done[i][w][o] = false;
		}
	while (moved) {
		moved = false;
		for (i = 0; i < ML; i++)
			for (w = 0; w < MM; w++)
				while (next[i][w] < MN &&
				       inflight[i][w] < window(&cc[i][w], MP) &&
				       next[i][w] < first[i][w] + MW) {
					sent[i][w][next[i][w]++] = true;
					inflight[i][w]++;
					moved = true;
				}
		for (i = 0; i < ML; i++)
			for (o = 0; o < MN; o++) {
				bool all = !slot[i][o];

				for (w = 0; w < MM; w++)
					all &= sent[i][w][o];
				t = o / MP % ML;	/* the step */
				if (all && (t == 0 ||
					    slot[(i + ML - 1) % ML][o - MP])) {
					slot[i][o] = true;
					moved = true;
				}
			}
		for (i = 0; i < ML; i++)
			for (w = 0; w < MM; w++)
				for (o = first[i][w]; o < next[i][w]; o++) {
					t = o / MP % ML;
					if (done[i][w][o] ||
					    !(t == ML - 1 ? slot[i][o] :
					      slot[(i + 1) % ML][o + MP]))
						continue;
					done[i][w][o] = true;
					inflight[i][w]--;
					delivered++;
					rina_cc_on_ack(&cc[i][w], 1, 0, 0, NULL,
						       100);
					while (first[i][w] < MN &&
					       done[i][w][first[i][w]])
						first[i][w]++;
					moved = true;
				}
	}
	return delivered;
}

static __u32 floor_p(const struct rina_cc *cc, __u32 P)
{
	return rina_cc_window_floor(cc, P);
}

static void test_ina_window(void)
{
	struct path p;
	__u32 got, stalled;

	path_init(&p, RINA_CC_F_LOSS);
	for (p.now = 0; p.now < 8; p.now++) {
		rina_cc_on_ack(&p.cc, 1, 0, 0, NULL, p.now);
		rina_cc_on_loss(&p.cc, NULL, p.now);
	}
	ktap_result(rina_cc_window(&p.cc) == 1 &&
		    rina_cc_ina_window(&p.cc, 15) == 16 &&
		    rina_cc_ina_window(&p.cc, 2 * W) == W,
		    "cc: an INA worker's window is at least P + 1, at most W");
	ktap_result(rina_cc_ina_window_only(&p.cc, 15) == 32 &&
		    rina_cc_ina_window_only(&p.cc, W) == W,
		    "cc: in a ring of INA members only it is at least 2 (P + 1), at most W");
	/* ... and it may resend that many per round trip, not cwnd (1) */
	ktap_result(rina_cc_retx_credit_floor(&p.cc, NULL, BASE, 10 * BASE,
					      p.now + 1, 16) == 16 &&
		    rina_cc_retx_credit(&p.cc, NULL, BASE, 10 * BASE,
					p.now + 20 * BASE) == 1,
		    "cc: an INA worker's retransmission credit is its floored window (16), a plain sender's cwnd (1)");
	path_init(&p, RINA_CC_F_LOSS);
	round_acked(&p, BASE, 0);
	round_acked(&p, BASE, 0);
	ktap_result(rina_cc_ina_window(&p.cc, 3) == rina_cc_window(&p.cc) &&
		    rina_cc_window(&p.cc) > 4,
		    "cc: above the floor an INA worker's window is cwnd (%u)",
		    rina_cc_window(&p.cc));
	got = ring_model(rina_cc_ina_window);
	stalled = ring_model(floor_p);
	ktap_result(got == ML * MM * MN && stalled < got,
		    "cc: %d INA racks at one-packet windows deliver all %d contributions with the P + 1 floor (%u; a floor of P stalls at %u)",
		    ML, ML * MM * MN, got, stalled);
	got = ring_model(rina_cc_ina_window_only);
	ktap_result(got == ML * MM * MN,
		    "cc: ... and all of them with the 2 (P + 1) floor (%u)",
		    got);
}

static void test_retx_credit(void)
{
	struct path p;
	__u32 c1, c2, c3, w;
	__u64 t0;

	path_init(&p, RINA_CC_F_LOSS);
	round_acked(&p, BASE, 0);	/* srtt = BASE */
	rina_cc_on_loss(&p.cc, &p.rtt, p.now);
	w = rina_cc_window(&p.cc);
	t0 = p.now;
	c1 = rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, t0);
	rina_cc_retx_spend(&p.cc, c1);
	/* the path answers: no back-off */
	rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, t0 + 1);
	c2 = rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, t0 + BASE / 2);
	c3 = rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, t0 + BASE);
	ktap_result(c1 == w && c2 == 0 && c3 == w &&
		    rina_cc_retx_refill_at(&p.cc) == t0 + 2 * BASE,
		    "cc: retransmissions get cwnd (%u) per round trip, none more before it refills", w);
	/* an RTT of seconds (the ring's wait) refills at max_us */
	rina_rtt_update(&p.rtt, 50 * 1000000ULL, p.now);
	p.rtt.srtt_us = 4000000;
	rina_cc_retx_spend(&p.cc, ~0U);
	rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, t0 + BASE + 1);
	c1 = rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, t0 + 2 * BASE);
	ktap_result(c1 == w &&
		    rina_cc_retx_refill_at(&p.cc) == t0 + 2 * BASE + 100000,
		    "cc: the credit's round trip is capped (srtt 4 s, refill after 100 ms)");
	path_init(&p, 0);
	ktap_result(rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, 1) == ~0U,
		    "cc: flags 0 does not limit retransmissions");
}

/*
 * A sender whose retransmissions bring nothing back: each period of its
 * credit twice the last, up to RINA_CC_RETX_PERIOD_MAX_US; one answer
 * ends the back-off at once. Returns the period after n unanswered ones.
 */
static __u64 unanswered_periods(struct path *p, __u32 n, bool spend)
{
	__u64 at = p->now, prev = at;
	__u32 i;

	for (i = 0; i < n; i++) {
		at = rina_cc_retx_refill_at(&p->cc) > at ?
		     rina_cc_retx_refill_at(&p->cc) : at;
		rina_cc_retx_credit(&p->cc, &p->rtt, 100, 100000, at);
		if (spend)
			rina_cc_retx_spend(&p->cc, 1);
		prev = at;
	}
	p->now = rina_cc_retx_refill_at(&p->cc);
	return rina_cc_retx_refill_at(&p->cc) - prev;
}

static void test_retx_backoff(void)
{
	struct path p;
	__u64 d3, d20, idle;
	bool ok;
	__u32 c;

	path_init(&p, RINA_CC_F_LOSS);
	round_acked(&p, BASE, 0);	/* srtt = BASE */
	idle = unanswered_periods(&p, 5, false);
	d3 = unanswered_periods(&p, 3, true);
	ktap_result(idle == BASE && d3 == 4 * BASE,
		    "cc: retransmission periods that bring nothing double (3rd: %llu us), idle ones do not (%llu us)",
		    (unsigned long long)d3, (unsigned long long)idle);
	d20 = unanswered_periods(&p, 20, true);
	ktap_result(d20 == RINA_CC_RETX_PERIOD_MAX_US,
		    "cc: ... up to %d us (%llu after 23)",
		    RINA_CC_RETX_PERIOD_MAX_US, (unsigned long long)d20);
	/* an ACK refills at once, one round trip on */
	rina_cc_retx_spend(&p.cc, ~0U);
	rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, p.now);
	c = rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, p.now + 1);
	ok = c == rina_cc_window(&p.cc) &&
	     rina_cc_retx_refill_at(&p.cc) == p.now + 1 + BASE;
	/* ... as does a new destination, after it backed off again */
	unanswered_periods(&p, 4, true);
	rina_cc_retx_spend(&p.cc, ~0U);
	rina_cc_retx_restart(&p.cc);
	ok &= rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000, p.now + 1) &&
	      rina_cc_retx_refill_at(&p.cc) == p.now + 1 + BASE;
	ktap_result(ok, "cc: an ACK or a new destination ends the back-off at once (credit %u, next period %d us)",
		    c, BASE);
	/* but without a back-off an ACK brings no credit before the period */
	rina_cc_retx_spend(&p.cc, ~0U);
	rina_cc_on_ack(&p.cc, 1, 0, 0, &p.rtt, p.now + 2);
	ktap_result(!rina_cc_retx_credit(&p.cc, &p.rtt, 100, 100000,
					 p.now + 3),
		    "cc: ACKs do not refill the credit early: still one period of cwnd per round trip");
}

/* One reading of a job's cc directives for librina's and rina.ko's senders. */
static void test_job_params(void)
{
	struct rina_job_desc job = { .window = 64 };
	struct rina_cc_params p, d;
	bool ok;

	rina_cc_params_default(&d, 64);
	rina_job_cc_params(&job, 0, &p);
	ok = p.flags == RINA_CC_F_ALL && p.w_max == 64 &&
	     p.w_init == d.w_init && p.ai == d.ai &&
	     p.beta_loss == d.beta_loss && p.target_us == d.target_us;
	job.cc_target_us = 7000;
	job.cc_init = 4;
	job.cc_ai = 512;
	job.cc_beta = 256;
	rina_job_cc_params(&job, RINA_CC_F_LOSS, &p);
	ok &= p.flags == RINA_CC_F_LOSS && p.target_us == 7000 &&
	      p.w_init == 4 && p.ai == 512 && p.beta_loss == 256 &&
	      p.beta_delay == d.beta_delay;
	rina_job_cc_params(&job, RINA_JOB_CC_OFF, &p);
	ok &= p.flags == 0 && p.w_max == 64;
	ktap_result(ok, "job params: defaults, the job's knobs, a signal subset, off");
}

/* Packets 0..9 sent 1 ms apart from t = 0: a bit each of those lost. */
static __u32 rack_lost(const struct rina_rack *r)
{
	__u32 p, lost = 0;

	for (p = 0; p < 10; p++)
		lost |= (__u32)rina_rack_lost(r, p * 1000, 1000) << p;
	return lost;
}

/*
 * Reordering allowance 1 ms. An ACK taken for packet 0's resend at 20 ms
 * judges every packet sent before 19 ms lost. Packet 8, sent once, judges
 * 0..6 lost; an older one's ACK does not move that.
 */
static void test_rack(void)
{
	struct rina_rack r = { 0 };
	__u32 lost;

	rina_rack_acked(&r, 20000);
	lost = rack_lost(&r);
	ktap_result(lost == 0x3ff,
		    "rack: the resend's judges those sent before it lost (0x%x)",
		    lost);
	r.ts = 0;
	rina_rack_acked(&r, 8000);
	rina_rack_acked(&r, 5000);
	lost = rack_lost(&r);
	ktap_result(lost == 0x7f && r.ts == 8000,
		    "rack: a packet sent once, those sent over the allowance before it; an older ACK moves nothing (0x%x)",
		    lost);
}

int main(void)
{
	ktap_plan(53);
	test_slow_start_and_cap();
	test_loss();
	test_loss_unqueued();
	test_delay();
	test_worker_delay();
	test_ecn();
	test_timeout_and_off();
	test_rtt();
	test_ina_window();
	test_retx_credit();
	test_retx_backoff();
	test_job_params();
	test_rack();
	return ktap_finish();
}
