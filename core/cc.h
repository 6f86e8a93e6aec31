/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control for every Rina sender: a window of packets in
 * flight towards one peer, adapted to the path it crosses. One
 * controller, written once, for ring members, INA workers and agents in
 * librina and rina.ko and for the simulator. Documentation/protocol.md
 * ("Congestion control") explains the choice:
 *
 * - slow start from cc_init packets up to the first congestion signal,
 *   then additive increase (cc_ai packets per round trip);
 * - queueing delay (Swift): an RTT sample above base RTT + cc_target_us
 *   (or + base RTT, if longer) cuts the window by
 *   cc_beta_delay x (rtt - target) / rtt, at most cc_max_mdf, once per
 *   round trip. A sender that reports its RTT samples with
 *   rina_cc_rtt_sample() (an INA worker) takes the delay signal from the
 *   lowest sample of each round trip instead, once it stood over target
 *   for RINA_CC_QUEUE_RTTS round trips in a row: see there; none when
 *   even that sample waits for others (qmin_lag_only);
 * - ECN (DCTCP): alpha, the EWMA of the marked fraction per round trip,
 *   cuts the window by alpha / 2 in a round with marks;
 * - loss (RFC 5681): a loss cuts the window by cc_beta_loss, once per
 *   round trip; a retransmission timeout that fires again on the same
 *   packet restarts from one packet. A sender that reports its RTT
 *   samples with rina_cc_rtt_sample() does not cut for a loss that found
 *   no standing queue: see there.
 * - competing (Copa's competitive mode, in its simplest form): when the
 *   path's queue never drains below the delay target for
 *   RINA_CC_COMPETE_EPOCHS epochs of RINA_CC_EPOCH_RTTS round trips, it
 *   is held by a sender that does not react to delay (a TCP flow), and a
 *   delay-based sender would only starve: the delay signal is ignored,
 *   loss and ECN rule, until an epoch sees the queue drain again.
 * The window never goes below one packet nor above the job's window W.
 *
 * Fixed point (no floating point in the kernel): windows in 1/1024 of a
 * packet, factors in 1/1024.
 */
#ifndef RINA_CORE_CC_H
#define RINA_CORE_CC_H

#include "compat.h"
#include "rtt.h"

#define RINA_CC_ONE		1024U	/* one packet, factor 1.0 */

/* Which signals the controller reacts to (rina_cc_params.flags). */
#define RINA_CC_F_LOSS		0x1
#define RINA_CC_F_DELAY		0x2
#define RINA_CC_F_ECN		0x4
#define RINA_CC_F_ALL		0x7

/* Defaults of the knobs (job file: cc_*; Documentation/job-file.md). */
#define RINA_CC_DEF_INIT	16	/* packets */
#define RINA_CC_DEF_AI		1024	/* 1 packet per round trip */
#define RINA_CC_DEF_BETA_LOSS	512	/* halve */
#define RINA_CC_DEF_BETA_DELAY	819	/* 0.8, Swift's beta */
#define RINA_CC_DEF_MAX_MDF	512	/* at most halve per round trip */
#define RINA_CC_DEF_TARGET_US	3000
#define RINA_CC_DEF_ECN_G	4	/* DCTCP g = 1/16 */
#define RINA_CC_EPOCH_RTTS	4	/* an epoch: this many round trips */
#define RINA_CC_COMPETE_EPOCHS	4	/* undrained epochs before competing */
/* rina_cc_rtt_sample()'s samples are stale this many round trips on */
#define RINA_CC_SAMPLES_STALE_RTTS	8
/*
 * rina_cc_rtt_sample(): round trips in a row, without a loss, whose
 * lowest sample is over the delay target before the delay signal cuts
 */
#define RINA_CC_QUEUE_RTTS		4
/*
 * The retransmission credit's period backs off (doubles) while its
 * retransmissions bring nothing new, up to this long (RFC 6298's lower
 * bound of an RTO; rina_cc_retx_credit_floor()).
 */
#define RINA_CC_RETX_PERIOD_MAX_US	1000000
#define RINA_CC_RETX_BACKOFF_MAX	10
/*
 * ... and is at least this long, a descheduled host thread's round trip:
 * a round trip, not the job's timer (20 ms by default), which held 10%
 * loss to a window of repairs per 20 ms (performance-notes.md, "The credit's
 * period" and "The agents' repairs at a round trip's pace")
 */
#define RINA_CC_RETX_PERIOD_MIN_US	2000

struct rina_cc_params {
	__u32	flags;		/* RINA_CC_F_*; 0: fixed window w_max */
	__u32	w_max;		/* packets: the job's window */
	__u32	w_init;		/* packets */
	__u32	ai;		/* 1/1024 packet per round trip */
	__u32	beta_loss;	/* 1/1024 */
	__u32	beta_delay;	/* 1/1024 */
	__u32	max_mdf;	/* 1/1024 */
	__u32	target_us;	/* queueing delay allowed over the base RTT */
	__u32	ecn_g_shift;	/* DCTCP gain 1/2^shift */
};

struct rina_cc_stats {
	__u64	cuts_loss, cuts_delay, cuts_ecn, timeouts;
	__u64	losses_unqueued;	/* no cut: no queue stood (rtt_sample) */
	__u64	competes;	/* times competing mode was entered */
	__u32	cwnd_min;	/* 1/1024 packet, lowest reached */
};

struct rina_cc {
	struct rina_cc_params p;
	__u32	cwnd;		/* 1/1024 packet */
	__u32	ssthresh;	/* 1/1024 packet */
	__u64	hold_until_us;	/* no further cut before: one per RTT */
	__u32	acked_since_cut; /* no further loss cut before an ACK */
	__u64	ecn_round_end_us;
	__u32	ecn_acked, ecn_marked;
	__u32	alpha;		/* 1/1024 */
	/* competing mode: the lowest RTT sample of the current epoch */
	__u64	epoch_end_us, epoch_min_us;
	__u32	undrained;	/* epochs in a row above the delay target */
	__u32	competing;	/* delay signal ignored */
	/* the lowest sample of this and the last round trip (rtt_sample) */
	__u64	qmin_us, qmin_last_us, qmin_end_us;
	__u32	qmin_rounds_over;	/* in a row over the delay target */
	__u8	qmin_lossy;	/* a loss or timeout in this round trip */
	/*
	 * Set by the sender: even its lowest sample of a round trip waits
	 * for others beyond any queue it could drain (rina_cc_rtt_sample()
	 * of an INA worker in a ring of INA racks only), so the delay
	 * signal does not cut; the samples still tell a loss without a
	 * queue (RINA_CC_F_LOSS) and a competing flow
	 */
	__u8	qmin_lag_only;
	/* retransmissions allowed until retx_refill_us (rina_cc_retx_*) */
	__u32	retx_credit;
	__u64	retx_refill_us;
	__u64	retx_start_us, retx_rt_us;	/* the period's, unshifted */
	__u8	retx_sent;	/* any in the current period */
	__u8	retx_backoff;	/* the period doubled this many times */
	__u8	retx_fresh;	/* rina_cc_retx_restart() in the period */
	struct rina_cc_stats st;
};

/* The defaults for a job window of w_max packets, every signal on. */
void rina_cc_params_default(struct rina_cc_params *p, __u32 w_max);
struct rina_job_desc;
/*
 * A job's senders' knobs: its cc_* directives over the defaults, with the
 * signals cc (a rina_job_desc.cc value: the job's, or a rank's override).
 */
void rina_job_cc_params(const struct rina_job_desc *job, __u16 cc,
			struct rina_cc_params *p);
void rina_cc_init(struct rina_cc *cc, const struct rina_cc_params *p);
/*
 * acked packets newly acknowledged, ce of them carried an ECN mark;
 * rtt_us is a sample of a first transmission among them (0: none);
 * rtt is the path's estimator, already updated with that sample.
 */
void rina_cc_on_ack(struct rina_cc *cc, __u32 acked, __u32 ce,
		    __u64 rtt_us, const struct rina_rtt *rtt, __u64 now_us);
/*
 * An RTT sample of a first transmission from a sender whose samples do
 * not drive the delay signal: an INA worker's, whose delivery waits for
 * the rack and the ring too. They tell rina_cc_on_loss() whether the
 * path held a standing queue when a loss came: a worker sees every
 * loss of its rack (any sender's contribution, upstream's partial, a
 * result) as its own stalled slot, m + 1 times the path's loss rate in
 * a rack of m, and halving for each kept a 2x3 rack at 1% random loss
 * (librina's drop knob) at 2.5-2.8 times its lossless call time. A loss
 * while the lowest sample of the last two round trips is within the
 * delay target (base RTT + max(cc_target_us, base)) came from no queue
 * of this path and cuts nothing (st.losses_unqueued); congestion on a
 * shaped link fills the queue first, and its losses cut as before. As
 * TCP Veno (Fu and Liew, JSAC 2003) tells random loss from congestion
 * loss by the backlog its RTT shows.
 * The lowest sample of a round trip is also the delay signal of such a
 * sender (Swift's cut, by that sample, and competing mode): the sample
 * of the contribution that waited least for the others measures its
 * path's queue, and a worker that runs ahead of its ring only waits
 * longer. It cuts once that lowest sample stood over the delay target
 * in RINA_CC_QUEUE_RTTS round trips in a row without a loss: a round
 * trip whose every slot waited for a repair elsewhere in the ring is
 * not a queue (2x3 all-INA at 10% random loss: 2.5-3.5 times slower
 * when a single round trip cut), a standing queue stays. Shaped
 * all-INA rings then keep their workers' queues short instead of
 * filling them until they drop (2x4 at 25 Mbit/s: 724 retransmissions
 * a run to 36; 4x2: 2372 to 824; performance-notes.md).
 */
void rina_cc_rtt_sample(struct rina_cc *cc, __u64 rtt_us,
			const struct rina_rtt *rtt, __u64 now_us);
/* A packet found lost (RACK, a NACK, a gap): not yet resent. */
void rina_cc_on_loss(struct rina_cc *cc, const struct rina_rtt *rtt,
		     __u64 now_us);
/* A retransmission timer fired; tries: timeouts of that packet so far. */
void rina_cc_on_timeout(struct rina_cc *cc, __u32 tries,
			const struct rina_rtt *rtt, __u64 now_us);

/*
 * Retransmissions a sender without an ACK clock may send now (INA
 * workers, whose contributions are acknowledged only when a slot
 * completes; the agent's allgather repairs): cwnd per round trip (srtt
 * within min_us .. max_us: a worker's RTT includes the wait for the ring,
 * seconds on a slow one), so that a timer finding many packets overdue does
 * not burst them into the queue that just dropped them, where its tail
 * (the youngest, often the ones the ring waits for) would drop again.
 * Unlimited without congestion control (flags 0).
 *
 * The period backs off: a refill that finds the last period's
 * retransmissions unanswered (nothing acknowledged, rina_cc_on_ack(), nor
 * rina_cc_retx_restart() since) doubles the next one, up to
 * RINA_CC_RETX_PERIOD_MAX_US, as TCP backs off its timer (RFC 6298,
 * 5.5). Each INA worker's contributions have timers of their own;
 * without it, an aggregator slower than their sum (bmv2 on a busy host,
 * 300-600 frames/s) got every overdue one again each 100 ms from every
 * worker, its queue grew to seconds, and the call never completed.
 */
__u32 rina_cc_retx_credit(struct rina_cc *cc, const struct rina_rtt *rtt,
			  __u64 min_us, __u64 max_us, __u64 now_us);
/*
 * The same for a sender whose window never drops below floor
 * (rina_cc_window_floor(): an INA worker, P + 1): it may resend as many
 * per round trip as it may have in flight. With cwnd alone, a worker
 * whose window collapsed in a stall (a ToR gone, its agent taking over)
 * resent one contribution per round trip while P + 1 were overdue:
 * 2x2 all-INA, 1 MiB, about a second to recover.
 */
__u32 rina_cc_retx_credit_floor(struct rina_cc *cc, const struct rina_rtt *rtt,
				__u64 min_us, __u64 max_us, __u64 now_us,
				__u32 floor);
/* n of the credit were sent. */
void rina_cc_retx_spend(struct rina_cc *cc, __u32 n);
/*
 * The path delivers again (rina_cc_on_ack() calls it), or the sender now
 * sends elsewhere: the period stops backing off, and a backed-off one
 * ends one round trip after it began, as if it had not.
 */
void rina_cc_retx_restart(struct rina_cc *cc);
/* When the credit is refilled next (microseconds, same clock). */
static inline __u64 rina_cc_retx_refill_at(const struct rina_cc *cc)
{
	return cc->retx_refill_us;
}

/* Packets that may be in flight now: 1 .. w_max. */
static inline __u32 rina_cc_window(const struct rina_cc *cc)
{
	__u32 w = cc->cwnd / RINA_CC_ONE;

	if (!cc->p.flags)
		return cc->p.w_max;
	if (w < 1)
		w = 1;
	return w > cc->p.w_max ? cc->p.w_max : w;
}

/*
 * Packets that may be in flight for a sender whose packets are
 * acknowledged only when the slot they join completes (INA workers,
 * protocol.md 6.1): the window, but never below floor, the packets the
 * sender must be able to have outstanding for the slots it waits on to
 * complete (an INA worker: P + 1, one chunk step and its oldest packet);
 * at most w_max.
 */
static inline __u32 rina_cc_window_floor(const struct rina_cc *cc,
					 __u32 floor)
{
	__u32 w = rina_cc_window(cc);

	if (w < floor)
		w = floor;
	return w > cc->p.w_max ? cc->p.w_max : w;
}

/*
 * An INA worker's contributions in flight (protocol.md 6.1): the window,
 * never below P + 1 for chunks of P packets. A contribution to step t of
 * a chunk is delivered when the downstream member's slot of step t + 1
 * completes, P ordinals later in that member's order: with P + 1 in
 * flight the oldest undelivered contribution of the whole ring always
 * has the one it waits for sendable; with P the racks wait on each other.
 */
static inline __u32 rina_cc_ina_window(const struct rina_cc *cc, __u32 P)
{
	return rina_cc_window_floor(cc, P + 1);
}

/*
 * The same in a ring of INA members only, never below 2 (P + 1). There a
 * worker's ACK is the downstream rack's (its ToR fans it out when the
 * downstream slot completes), so every RTT sample holds how far that
 * rack lags; past the delay target a random loss counts as one behind a
 * queue and cuts, and at P + 1 the racks then wait on each other's next
 * ordinal in lock-step: at 10% loss a third of the calls took 2-3 times
 * as long (performance-notes.md, "The agents' repairs at a round trip's
 * pace"). A chunk step more leaves each rack one step of slack. Not in
 * mixed rings: there contributions wait for the plain members, and with
 * twice as many out the workers' timers fired on 2-7 times as many.
 */
static inline __u32 rina_cc_ina_window_only(const struct rina_cc *cc,
					    __u32 P)
{
	return rina_cc_window_floor(cc, 2 * (P + 1));
}

#endif /* RINA_CORE_CC_H */
