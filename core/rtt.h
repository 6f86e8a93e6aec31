/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Round-trip estimate and retransmission timer (RFC 6298 with microsecond
 * samples; Karn's rule is the caller's: only samples of packets sent
 * once). Shared by librina's ring engine, the INA worker and the agent.
 */
#ifndef RINA_CORE_RTT_H
#define RINA_CORE_RTT_H

#include "compat.h"

struct rina_rtt {
	__u64	srtt_us;	/* 0: no sample yet */
	__u64	rttvar_us;
};

static inline void rina_rtt_update(struct rina_rtt *r, __u64 sample_us)
{
	if (!r->srtt_us) {
		r->srtt_us = sample_us;
		r->rttvar_us = sample_us / 2;
		return;
	}
	r->rttvar_us = (3 * r->rttvar_us +
			(sample_us > r->srtt_us ? sample_us - r->srtt_us :
			 r->srtt_us - sample_us)) / 4;
	r->srtt_us = (7 * r->srtt_us + sample_us) / 8;
}

/* srtt + 4 rttvar, never below floor_us (also the value before samples). */
static inline __u64 rina_rtt_rto(const struct rina_rtt *r, __u64 floor_us,
				 __u64 max_us)
{
	__u64 rto;

	if (!r->srtt_us)
		return floor_us;
	rto = r->srtt_us + 4 * r->rttvar_us;
	if (rto < floor_us)
		rto = floor_us;
	return rto > max_us ? max_us : rto;
}

#endif /* RINA_CORE_RTT_H */
