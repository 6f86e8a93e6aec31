// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The congestion controller of every Rina sender (see cc.h for the
 * rules and Documentation/protocol.md for why these).
 */
#include "cc.h"
#include "plan.h"

void rina_cc_params_default(struct rina_cc_params *p, __u32 w_max)
{
	rina_memset(p, 0, sizeof(*p));
	p->flags = RINA_CC_F_ALL;
	p->w_max = w_max ? w_max : 1;
	p->w_init = RINA_CC_DEF_INIT;
	p->ai = RINA_CC_DEF_AI;
	p->beta_loss = RINA_CC_DEF_BETA_LOSS;
	p->beta_delay = RINA_CC_DEF_BETA_DELAY;
	p->max_mdf = RINA_CC_DEF_MAX_MDF;
	p->target_us = RINA_CC_DEF_TARGET_US;
	p->ecn_g_shift = RINA_CC_DEF_ECN_G;
}

void rina_job_cc_params(const struct rina_job_desc *job, __u16 cc,
			struct rina_cc_params *p)
{
	rina_cc_params_default(p, job->window);
	if (cc & RINA_JOB_CC_OFF)
		p->flags = 0;
	else if (cc)
		p->flags = cc & RINA_CC_F_ALL;
	if (job->cc_target_us)
		p->target_us = job->cc_target_us;
	if (job->cc_init)
		p->w_init = job->cc_init;
	if (job->cc_ai)
		p->ai = job->cc_ai;
	if (job->cc_beta)
		p->beta_loss = job->cc_beta;
}

void rina_cc_init(struct rina_cc *cc, const struct rina_cc_params *p)
{
	rina_memset(cc, 0, sizeof(*cc));
	cc->p = *p;
	if (!cc->p.w_max)
		cc->p.w_max = 1;
	if (cc->p.w_init < 1)
		cc->p.w_init = 1;
	if (cc->p.w_init > cc->p.w_max)
		cc->p.w_init = cc->p.w_max;
	if (cc->p.beta_loss > RINA_CC_ONE)
		cc->p.beta_loss = RINA_CC_ONE;
	if (cc->p.max_mdf > RINA_CC_ONE)
		cc->p.max_mdf = RINA_CC_ONE;
	if (cc->p.ecn_g_shift > 10)
		cc->p.ecn_g_shift = 10;
	cc->acked_since_cut = 1;	/* a first loss cuts */
	/*
	 * DCTCP's alpha starts at 1, as Linux's (dctcp_alpha_on_init): the
	 * first marks, which come in slow start, halve the window; from 0,
	 * alpha would take rounds to grow while the queue overflows
	 */
	cc->alpha = RINA_CC_ONE;
	cc->cwnd = cc->p.w_init * RINA_CC_ONE;
	cc->ssthresh = cc->p.w_max * RINA_CC_ONE;
	cc->st.cwnd_min = cc->cwnd;
}

static __u64 round_trip(const struct rina_rtt *rtt)
{
	return rtt && rtt->srtt_us ? rtt->srtt_us : 0;
}

/*
 * Multiply the window by keep/1024 and leave slow start; the next cut
 * waits hold_us, a round trip, so that one congestion event (a burst of
 * losses, the samples of one queue) cuts once.
 */
static void cut(struct rina_cc *cc, __u32 keep, __u64 hold_us, __u64 now_us)
{
	__u64 w = (__u64)cc->cwnd * keep / RINA_CC_ONE;

	if (w < RINA_CC_ONE)
		w = RINA_CC_ONE;
	cc->cwnd = (__u32)w;
	cc->ssthresh = (__u32)w;
	cc->hold_until_us = now_us + hold_us;
	cc->acked_since_cut = 0;
	if (cc->cwnd < cc->st.cwnd_min)
		cc->st.cwnd_min = cc->cwnd;
}

static int may_cut(const struct rina_cc *cc, __u64 now_us)
{
	return now_us >= cc->hold_until_us;
}

/* DCTCP: once per round trip, alpha += g (F - alpha); cut by alpha/2. */
static void ecn_round(struct rina_cc *cc, __u32 acked, __u32 ce,
		      const struct rina_rtt *rtt, __u64 now_us)
{
	__u32 g = cc->p.ecn_g_shift, frac;

	cc->ecn_acked += acked;
	cc->ecn_marked += ce < acked ? ce : acked;
	if (now_us < cc->ecn_round_end_us)
		return;
	frac = (__u32)((__u64)cc->ecn_marked * RINA_CC_ONE / cc->ecn_acked);
	cc->alpha = cc->alpha - (cc->alpha >> g) + (frac >> g);
	if (cc->ecn_marked && may_cut(cc, now_us)) {
		cut(cc, RINA_CC_ONE - cc->alpha / 2, round_trip(rtt), now_us);
		cc->st.cuts_ecn++;
	}
	cc->ecn_acked = 0;
	cc->ecn_marked = 0;
	cc->ecn_round_end_us = now_us + round_trip(rtt);
}

/*
 * The RTT over which a queue counts as standing. A queue of one base RTT
 * keeps a slow link busy while an ACK comes back (its packets'
 * serialisation is in the base RTT), so the target never asks for less.
 */
static __u64 delay_target(const struct rina_cc *cc, const struct rina_rtt *rtt)
{
	return rtt->base_us + (cc->p.target_us > rtt->base_us ?
			       cc->p.target_us : rtt->base_us);
}

/*
 * Competing mode: at each epoch's end, did the queue drain below the
 * target at least once (the lowest sample)? A delay-based sender alone
 * on the path drains it within a few round trips; one that never sees
 * it drained shares the queue with a sender that keeps it full.
 */
static void epoch_sample(struct rina_cc *cc, __u64 rtt_us,
			 const struct rina_rtt *rtt, __u64 now_us)
{
	if (!rtt_us || !rtt || !rtt->base_us)
		return;
	if (!cc->epoch_min_us || rtt_us < cc->epoch_min_us)
		cc->epoch_min_us = rtt_us;
	if (now_us < cc->epoch_end_us)
		return;
	if (cc->epoch_end_us) {
		if (cc->epoch_min_us <= delay_target(cc, rtt)) {
			cc->undrained = 0;
			cc->competing = 0;
		} else if (++cc->undrained >= RINA_CC_COMPETE_EPOCHS &&
			   !cc->competing) {
			cc->competing = 1;
			cc->st.competes++;
		}
	}
	cc->epoch_min_us = 0;
	cc->epoch_end_us = now_us + RINA_CC_EPOCH_RTTS * round_trip(rtt);
}

/* Swift: true when the sample is over target (no increase then). */
static int delay_over(struct rina_cc *cc, __u64 rtt_us,
		       const struct rina_rtt *rtt, __u64 now_us)
{
	__u64 target, dec;

	if (!rtt_us || !rtt || !rtt->base_us || cc->competing)
		return 0;
	target = delay_target(cc, rtt);
	if (rtt_us <= target)
		return 0;
	if (may_cut(cc, now_us)) {
		dec = (__u64)cc->p.beta_delay * (rtt_us - target) / rtt_us;
		if (dec > cc->p.max_mdf)
			dec = cc->p.max_mdf;
		cut(cc, RINA_CC_ONE - (__u32)dec, rtt_us, now_us);
		cc->st.cuts_delay++;
	}
	return 1;
}

void rina_cc_on_ack(struct rina_cc *cc, __u32 acked, __u32 ce,
		    __u64 rtt_us, const struct rina_rtt *rtt, __u64 now_us)
{
	__u64 w, max = (__u64)cc->p.w_max * RINA_CC_ONE;

	if (!acked || !cc->p.flags)
		return;
	rina_cc_retx_restart(cc);
	cc->acked_since_cut = 1;
	if (cc->p.flags & RINA_CC_F_ECN)
		ecn_round(cc, acked, ce, rtt, now_us);
	if (cc->p.flags & RINA_CC_F_DELAY) {
		epoch_sample(cc, rtt_us, rtt, now_us);
		if (delay_over(cc, rtt_us, rtt, now_us))
			return;
	}
	w = cc->cwnd;
	if (w < cc->ssthresh)
		w += (__u64)acked * RINA_CC_ONE;
	else
		w += (__u64)cc->p.ai * acked * RINA_CC_ONE / w;
	cc->cwnd = (__u32)(w > max ? max : w);
}

/*
 * A round trip of rina_cc_rtt_sample() ended, with cc->qmin_us its lowest
 * sample: the delay signal of a sender whose samples also wait for
 * others (cc.h).
 */
static void qmin_round_end(struct rina_cc *cc, const struct rina_rtt *rtt,
			   __u64 now_us)
{
	if (!(cc->p.flags & RINA_CC_F_DELAY) || !cc->qmin_us)
		return;
	epoch_sample(cc, cc->qmin_us, rtt, now_us);
	if (cc->qmin_lossy || cc->qmin_lag_only || !rtt || !rtt->base_us ||
	    cc->qmin_us <= delay_target(cc, rtt)) {
		cc->qmin_rounds_over = 0;
		return;
	}
	if (++cc->qmin_rounds_over >= RINA_CC_QUEUE_RTTS)
		delay_over(cc, cc->qmin_us, rtt, now_us);
}

void rina_cc_rtt_sample(struct rina_cc *cc, __u64 rtt_us,
			const struct rina_rtt *rtt, __u64 now_us)
{
	if (!rtt_us)
		return;
	if (now_us >= cc->qmin_end_us) {
		qmin_round_end(cc, rtt, now_us);
		cc->qmin_lossy = 0;
		cc->qmin_last_us = cc->qmin_us;
		cc->qmin_us = 0;
		cc->qmin_end_us = now_us + (round_trip(rtt) ?
					    round_trip(rtt) : rtt_us);
	}
	if (!cc->qmin_us || rtt_us < cc->qmin_us)
		cc->qmin_us = rtt_us;
}

/*
 * rina_cc_rtt_sample() saw no standing queue of late: see cc.h. Samples
 * that stopped coming several round trips ago say nothing of the path
 * now. Not one: a worker waits out a repair of its rack (a probe, two
 * base round trips and more) without a delivery, and at 1% random loss
 * the losses found after such waits then cut again (2x3 all-INA: 1.92
 * [1.64..2.37] times the lossless call, 7 repetitions, against 1.77
 * [1.59..2.02] of 5 with no such limit).
 */
static int unqueued(const struct rina_cc *cc, const struct rina_rtt *rtt,
		    __u64 now_us)
{
	__u64 q = cc->qmin_us;

	if (!rtt || !rtt->base_us ||
	    now_us > cc->qmin_end_us + RINA_CC_SAMPLES_STALE_RTTS *
		     round_trip(rtt))
		return 0;
	if (cc->qmin_last_us && (!q || cc->qmin_last_us < q))
		q = cc->qmin_last_us;
	return q && q <= delay_target(cc, rtt);
}

void rina_cc_on_loss(struct rina_cc *cc, const struct rina_rtt *rtt,
		     __u64 now_us)
{
	/*
	 * Nothing acknowledged since the last cut: the same congestion
	 * event, or a stall (a peer or switch gone quiet), in which every
	 * packet's timer fires in turn; cutting again once per round trip
	 * would leave nothing of the window by the time the path is back.
	 */
	cc->qmin_lossy = 1;
	if (!(cc->p.flags & RINA_CC_F_LOSS) || !may_cut(cc, now_us) ||
	    !cc->acked_since_cut)
		return;
	if (unqueued(cc, rtt, now_us)) {
		cc->st.losses_unqueued++;
		return;
	}
	cut(cc, RINA_CC_ONE - cc->p.beta_loss, round_trip(rtt), now_us);
	cc->st.cuts_loss++;
}

void rina_cc_on_timeout(struct rina_cc *cc, __u32 tries,
			const struct rina_rtt *rtt, __u64 now_us)
{
	__u32 half = cc->cwnd / 2;

	cc->qmin_lossy = 1;
	if (!(cc->p.flags & RINA_CC_F_LOSS))
		return;
	cc->st.timeouts++;
	if (tries < 2) {
		rina_cc_on_loss(cc, rtt, now_us);
		return;
	}
	/*
	 * The path lost the same packet twice: start over from one. Once
	 * there, ssthresh is held (RFC 5681, 3.1): in a stall every packet
	 * in flight times out again in turn, and halving one packet each
	 * time left ssthresh at two, so that the window crept back one
	 * packet per round trip once the path was back (a ToR that went
	 * away: about 2 s for 1 MiB instead of a few round trips).
	 */
	if (cc->cwnd <= RINA_CC_ONE)
		half = cc->ssthresh;
	cut(cc, 0, round_trip(rtt), now_us);
	cc->ssthresh = half > 2 * RINA_CC_ONE ? half : 2 * RINA_CC_ONE;
}

__u32 rina_cc_retx_credit(struct rina_cc *cc, const struct rina_rtt *rtt,
			  __u64 min_us, __u64 max_us, __u64 now_us)
{
	return rina_cc_retx_credit_floor(cc, rtt, min_us, max_us, now_us, 0);
}

__u32 rina_cc_retx_credit_floor(struct rina_cc *cc, const struct rina_rtt *rtt,
				__u64 min_us, __u64 max_us, __u64 now_us,
				__u32 floor)
{
	__u64 rt = round_trip(rtt);

	if (rt < min_us)
		rt = min_us;
	if (rt > max_us)
		rt = max_us;

	if (!cc->p.flags)
		return ~0U;
	if (now_us >= cc->retx_refill_us) {
		if (cc->retx_fresh)
			cc->retx_backoff = 0;
		else if (cc->retx_sent &&
			 cc->retx_backoff < RINA_CC_RETX_BACKOFF_MAX)
			cc->retx_backoff++;
		cc->retx_start_us = now_us;
		cc->retx_rt_us = rt;
		rt <<= cc->retx_backoff;
		if (rt > RINA_CC_RETX_PERIOD_MAX_US)
			rt = max_us > RINA_CC_RETX_PERIOD_MAX_US ? max_us :
			     RINA_CC_RETX_PERIOD_MAX_US;
		cc->retx_sent = 0;
		cc->retx_fresh = 0;
		cc->retx_credit = rina_cc_window_floor(cc, floor);
		cc->retx_refill_us = now_us + rt;
	}
	return cc->retx_credit;
}

void rina_cc_retx_spend(struct rina_cc *cc, __u32 n)
{
	cc->retx_credit = n < cc->retx_credit ? cc->retx_credit - n : 0;
	if (n)
		cc->retx_sent = 1;
}

void rina_cc_retx_restart(struct rina_cc *cc)
{
	cc->retx_fresh = 1;
	if (cc->retx_backoff) {
		cc->retx_backoff = 0;
		cc->retx_refill_us = cc->retx_start_us + cc->retx_rt_us;
	}
}
