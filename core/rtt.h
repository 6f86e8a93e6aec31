/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Round-trip time estimation shared by every Rina sender (librina's ring
 * members and INA workers, the agent in librina and rina.ko, the
 * simulator): RFC 6298's smoothed RTT and variance with microsecond
 * samples, plus the path's base RTT (the lowest recent sample), which
 * the congestion controller (cc.h) measures queueing delay against.
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_RTT_H
#define RINA_CORE_RTT_H

#include "compat.h"

/*
 * The base RTT is the lowest sample of the last 10 s, so that a path
 * that got longer (a route change, a busier host) is not judged as
 * congested forever.
 */
#define RINA_RTT_BASE_WINDOW_US	10000000ULL

/* One sample the base RTT's windowed minimum keeps (rina_rtt_base()). */
struct rina_rtt_min {
	__u64	at_us;
	__u64	rtt_us;
};

struct rina_rtt {
	__u64	srtt_us;	/* 0: no sample yet */
	__u64	rttvar_us;
	__u64	base_us;	/* lowest sample of the last window */
	struct rina_rtt_min best[3];	/* see rina_rtt_base() */
	__u64	latest_us;	/* the last sample */
};

/*
 * The base RTT as a windowed minimum (Kathleen Nichols' algorithm, as
 * Linux's lib/win_minmax.c keeps BBR's min_rtt): the lowest sample of
 * the window, and the lowest of its later quarter and half, so that when
 * the lowest ages out the next best of the window takes its place. Not
 * the sample of that moment: a delay-based sender keeps a queue of up to
 * the target standing, and a base taken from it doubles into the
 * target (cc.c): one rank of a shaped 2x4 ring went from 33 us to 37 ms
 * that way, a 74 ms target, no delay signal until a lower sample came.
 */
static inline void rina_rtt_base(struct rina_rtt *r, __u64 sample,
				 __u64 now_us)
{
	const __u64 win = RINA_RTT_BASE_WINDOW_US;
	struct rina_rtt_min s = { now_us, sample }, *b = r->best;

	if (!b[0].rtt_us || sample <= b[0].rtt_us ||
	    now_us - b[2].at_us > win) {	/* a new low, or all aged */
		b[0] = s;
		b[1] = s;
		b[2] = s;
	} else {
		if (sample <= b[1].rtt_us) {
			b[1] = s;
			b[2] = s;
		} else if (sample <= b[2].rtt_us) {
			b[2] = s;
		}
		if (now_us - b[0].at_us > win) {	/* the lowest aged */
			b[0] = b[1];
			b[1] = b[2];
			b[2] = s;
			if (now_us - b[0].at_us > win) {
				b[0] = b[1];
				b[1] = b[2];
			}
		} else if (b[1].at_us == b[0].at_us &&
			   now_us - b[0].at_us > win / 4) {
			b[1] = s;	/* a second choice, from a later quarter */
			b[2] = s;
		} else if (b[2].at_us == b[1].at_us &&
			   now_us - b[0].at_us > win / 2) {
			b[2] = s;	/* a third, from the later half */
		}
	}
	r->base_us = b[0].rtt_us;
}

/* One sample of a first transmission's round trip (Karn's rule). */
static inline void rina_rtt_update(struct rina_rtt *r, __u64 sample,
				   __u64 now_us)
{
	__u64 dev;

	if (!sample)
		sample = 1;
	r->latest_us = sample;
	rina_rtt_base(r, sample, now_us);
	if (!r->srtt_us) {
		r->srtt_us = sample;
		r->rttvar_us = sample / 2;
		return;
	}
	dev = sample > r->srtt_us ? sample - r->srtt_us : r->srtt_us - sample;
	r->rttvar_us = (3 * r->rttvar_us + dev) / 4;
	r->srtt_us = (7 * r->srtt_us + sample) / 8;
}

/*
 * The retransmission timeout: SRTT + 4 RTTVAR (RFC 6298 2.3), at least
 * floor_us (the job's timer), at most cap_us; floor_us before any
 * sample. It follows the RTT up, so a growing queue does not make
 * timers fire on packets that are merely queued.
 */
static inline __u64 rina_rtt_rto(const struct rina_rtt *r, __u64 floor_us,
				 __u64 cap_us)
{
	__u64 rto;

	if (!r->srtt_us)
		return floor_us < cap_us ? floor_us : cap_us;
	rto = r->srtt_us + 4 * r->rttvar_us;
	if (rto < floor_us)
		rto = floor_us;
	return rto > cap_us ? cap_us : rto;
}

/*
 * When a timer armed at deadline (send time + rto_us) fires if it is
 * restarted by every acknowledgement of new data (RFC 6298 5.3), the
 * last at last_ack_us: while ACKs keep coming, nothing is overdue; a
 * packet lost among them is RACK's to find (core/rack.h).
 */
static inline __u64 rina_rto_due(__u64 deadline_us, __u64 last_ack_us,
				 __u64 rto_us)
{
	__u64 restart = last_ack_us + rto_us;

	return deadline_us > restart ? deadline_us : restart;
}

#endif /* RINA_CORE_RTT_H */
