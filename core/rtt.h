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
 * The base RTT is forgotten after this long, so that a path that got
 * longer (a route change, a busier host) is not judged as congested
 * forever; a queue that never drains for 10 s is rare.
 */
#define RINA_RTT_BASE_WINDOW_US	10000000ULL

struct rina_rtt {
	__u64	srtt_us;	/* 0: no sample yet */
	__u64	rttvar_us;
	__u64	base_us;	/* lowest sample of the current window */
	__u64	base_at_us;	/* when base_us was taken */
	__u64	latest_us;	/* the last sample */
};

/* One sample of a first transmission's round trip (Karn's rule). */
static inline void rina_rtt_update(struct rina_rtt *r, __u64 sample,
				   __u64 now_us)
{
	__u64 dev;

	if (!sample)
		sample = 1;
	r->latest_us = sample;
	if (!r->base_us || sample <= r->base_us ||
	    now_us - r->base_at_us > RINA_RTT_BASE_WINDOW_US) {
		r->base_us = sample;
		r->base_at_us = now_us;
	}
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
