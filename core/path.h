/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One peer as a sender sees it: its RTT estimate, its congestion window
 * and when a loss was last found on it, with the retransmission timers
 * every Rina sender derives from them. Shared by the ring member and
 * INA worker engines and their hosts (librina, rina-sim).
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_PATH_H
#define RINA_CORE_PATH_H

#include "compat.h"
#include "cc.h"
#include "rtt.h"

/*
 * Retransmission timer cap while the path's RTT is short: a timer only
 * catches tail losses (RACK the rest), so it backs off no further than
 * this. A longer path (a queue at a slow link) raises it with the RTO.
 */
#define RINA_RTO_MAX_US		50000
/* What no RTO exceeds, however slow the path. */
#define RINA_RTO_CEIL_US	2000000
/*
 * Where an INA aggregator acknowledges at slot completion, the answer
 * waits for the ring's pipeline, not just a round trip: the timer only
 * catches tail losses there (RACK-style detection does the rest).
 */
#define RINA_RTO_SLOT_MIN_US	10000
#define RINA_RTO_SLOT_FACTOR	2
/*
 * Back-off cap of a contribution's timer: many retries of a contribution
 * are of one already added whose slot waits for the ring, but a lost
 * partial or ACK is repaired only by such a retry (the aggregator keeps
 * no timers), so the cap bounds every repair. 2x3 all-INA, 5% loss, two
 * calls of 20000 float32: about 25 s with min 50 ms, factor 4, cap 1 s;
 * about 5 s with 10 ms, 2, 100 ms; lossless runs retransmit nothing
 * either way.
 */
#define RINA_RTO_SLOT_MAX_US	100000
/* An INA worker's probe timeout: 2 x SRTT, at least this */
#define RINA_PTO_MIN_US		2000

struct rina_path {
	struct rina_rtt	rtt;
	struct rina_cc	cc;
	__u64		last_loss_us;
};

static inline void rina_path_init(struct rina_path *p,
				  const struct rina_cc_params *cc)
{
	rina_memset(p, 0, sizeof(*p));
	rina_cc_init(&p->cc, cc);
}

/*
 * A first transmission's round trip (Karn's rule). The estimate is kept
 * across calls: on a loaded 2-core host the scheduler, not the wire,
 * sets the RTT, and a fixed timer would retransmit what is merely late.
 */
static inline void rina_path_rtt(struct rina_path *p, __u64 rtt_us,
				 __u64 now_us)
{
	rina_rtt_update(&p->rtt, rtt_us, now_us);
}

/* How far a packet's timer backs off on this path (floor: the job's). */
static inline __u64 rina_path_rto_cap(const struct rina_path *p,
				      __u64 floor_us)
{
	__u64 cap = 4 * rina_rtt_rto(&p->rtt, floor_us, RINA_RTO_CEIL_US);

	if (cap < RINA_RTO_MAX_US)
		cap = RINA_RTO_MAX_US;
	return cap > RINA_RTO_CEIL_US ? RINA_RTO_CEIL_US : cap;
}

/* RFC 6298's timeout, at least the job's timer. */
static inline __u64 rina_path_rto(const struct rina_path *p, __u64 floor_us)
{
	return rina_rtt_rto(&p->rtt, floor_us, rina_path_rto_cap(p, floor_us));
}

/*
 * The same where an ACK comes when an aggregator's slot completes (an
 * INA worker's contributions, a member's partials to an INA member):
 * those round trips wait for the ring and for every repair of it, so
 * they would raise the timer without bound as losses slow the ring;
 * capped at RINA_RTO_MAX_US, as before congestion control.
 */
static inline __u64 rina_path_rto_slot(const struct rina_path *p,
				       __u64 floor_us)
{
	return rina_rtt_rto(&p->rtt, floor_us, RINA_RTO_MAX_US);
}

/* Packets this sender may have in flight on the path now. */
/*
 * RACK found a loss on the path in the last 8 SRTT: its timers hurry
 * (kept on the path, not the call, so the next call's probes do too).
 */
static inline int rina_path_lossy(const struct rina_path *p, __u64 now)
{
	return p->last_loss_us && now - p->last_loss_us < 8 * p->rtt.srtt_us;
}

/*
 * A timer of t, at least RINA_PTO_MIN_US (a descheduled process),
 * doubled for each of n tries that brought nothing (up to 2^8), at most
 * cap: the probes' and NACKs' back-off.
 */
static inline __u64 rina_backoff_us(__u64 t, __u32 n, __u64 cap)
{
	if (t < RINA_PTO_MIN_US)
		t = RINA_PTO_MIN_US;
	t <<= n < 8 ? n : 8;
	return t > cap ? cap : t;
}

/*
 * The probe timeout of a tail loss probe (RFC 8985 7.2): twice the
 * smoothed round trip and four times its variation; twice the base one
 * while the path loses (the SRTT then grows with the very stalls the
 * probe ends); none_us before any sample; backed off for each of n
 * probes that brought nothing. The variation term: a ring member's ACKs
 * come back through its downstream member's own link, behind that
 * member's data, so the round trip swings with the ring's steps, and
 * twice the SRTT fell inside the swing. A probe fired on a late ACK
 * resends the newest packet, and RACK, moved by the first copy's ACK
 * to the probe's time, then resends what is still on its way: plain 2x4
 * at 25 Mbit/s, 256 KiB calls, 198 -> 180 ms a call (147 at the link
 * rate; performance-notes.md, "A plain member's probe timeout").
 */
static inline __u64 rina_path_pto(const struct rina_path *p, __u64 none_us,
				  __u32 n, __u64 cap, __u64 now)
{
	__u64 t = 2 * p->rtt.srtt_us + 4 * p->rtt.rttvar_us;

	if (!p->rtt.srtt_us)
		t = none_us;
	else if (rina_path_lossy(p, now))
		t = 2 * p->rtt.base_us;
	return rina_backoff_us(t, n, cap);
}

/*
 * The lowest round trip the path gave of late: the least sample of this
 * round trip or the last (rina_cc_rtt_sample()), not below the base RTT;
 * the base RTT without such samples.
 */
static inline __u64 rina_path_rtt_low(const struct rina_path *p)
{
	__u64 q = p->cc.qmin_us;

	if (p->cc.qmin_last_us && (!q || p->cc.qmin_last_us < q))
		q = p->cc.qmin_last_us;
	return q > p->rtt.base_us ? q : p->rtt.base_us;
}

/*
 * rina_path_pto() for a sender whose round trips also wait for others
 * (an INA worker's contributions, which complete when the next rack's
 * slot does): while the path loses, twice the lowest round trip of late
 * (rina_path_rtt_low()) instead of twice the base RTT, and never more
 * than twice the SRTT. A random loss leaves the lowest sample near the
 * base, and the probe hurries about as before; losses of a queue that
 * overflows come with every sample of late above the base, and a probe
 * in each gap between deliveries only adds to that queue: on a 4x2 ring
 * of INA racks without ToRs at 25 Mbit/s, where each agent host's link
 * carries its rack's contributions and the ring, the workers probed most
 * of their contributions again, the agents re-emitted the completed
 * slots' partials downstream for each, and the ring ran at 0.44x plain
 * RAR (performance-notes.md, "Software agents' probes in a ring of INA
 * racks"). Not a yes/no test of a queue (the delay target, as
 * rina_cc_on_loss() judges a loss): at 10% random loss whole round trips
 * wait for repairs and their lowest sample passes the target, and
 * probing at twice the SRTT there made calls 1.2-1.3x as long.
 */
static inline __u64 rina_path_pto_low(const struct rina_path *p,
				      __u64 none_us, __u32 n, __u64 cap,
				      __u64 now)
{
	__u64 t = 2 * p->rtt.srtt_us, low;

	if (!t) {
		t = none_us;
	} else if (rina_path_lossy(p, now)) {
		low = 2 * rina_path_rtt_low(p);
		if (low < t)
			t = low;
	}
	return rina_backoff_us(t, n, cap);
}

static inline __u32 rina_path_window(const struct rina_path *p)
{
	return rina_cc_window(&p->cc);
}

#endif /* RINA_CORE_PATH_H */
