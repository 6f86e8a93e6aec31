/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RACK loss detection (RFC 8985) shared by every Rina sender: a packet
 * is lost once one sent after it, by more than a reordering allowance,
 * has been acknowledged. Rina's paths are FIFO, so this finds a loss in
 * one round trip where a timer would wait out the RTO. Senders whose
 * packets are acknowledged in different orders (an INA worker's steps,
 * core/schedule.h) keep one rina_rack per order.
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_RACK_H
#define RINA_CORE_RACK_H

#include "compat.h"
#include "rtt.h"

struct rina_rack {
	__u64	ts;	/* send time of the latest packet acknowledged */
};

/* A packet sent at t_sent was acknowledged. */
static inline void rina_rack_acked(struct rina_rack *r, __u64 t_sent)
{
	if (t_sent > r->ts)
		r->ts = t_sent;
}

/* The reordering allowance: a quarter of the smoothed RTT (RFC 8985). */
static inline __u64 rina_rack_reo(const struct rina_rtt *rtt)
{
	return rtt->srtt_us / 4;
}

/* Was the packet sent at t_sent lost? */
static inline int rina_rack_lost(const struct rina_rack *r, __u64 t_sent,
				 __u64 reo)
{
	return t_sent + reo < r->ts;
}

#endif /* RINA_CORE_RACK_H */
