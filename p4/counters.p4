/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Counters and CountersOut (model: p4/model/counters.c). The other
 * controls raise event bits: meta.ev (per job, ingress), meta.tor_ev
 * (switch-wide) and meta.ev_out (per job, one egress replica); these
 * controls count them, so each counter has one place where it counts.
 *   job_ctr[job_idx * RINA_TC_MAX + RINA_TC_*]
 *   tor_ctr[RINA_PARSE_* | RINA_TS_*]
 *   job_out[job_idx * RINA_TO_MAX + RINA_TO_*]
 */
#ifndef _RINA_COUNTERS_P4_
#define _RINA_COUNTERS_P4_

control Counters(in metadata_t meta)
{
	counter(RINA_TOR_MAX_JOBS * RINA_TC_MAX, CounterType.packets) job_ctr;
	counter(RINA_TS_MAX, CounterType.packets) tor_ctr;

	apply {
		bit<32> base = (bit<32>)meta.j_job_idx * RINA_TC_MAX;

		if (meta.job_hit == 1) {
			if ((meta.ev & (1 << 0)) != 0)
				job_ctr.count(base + 0);
			if ((meta.ev & (1 << 1)) != 0)
				job_ctr.count(base + 1);
			if ((meta.ev & (1 << 2)) != 0)
				job_ctr.count(base + 2);
			if ((meta.ev & (1 << 3)) != 0)
				job_ctr.count(base + 3);
			if ((meta.ev & (1 << 4)) != 0)
				job_ctr.count(base + 4);
			if ((meta.ev & (1 << 5)) != 0)
				job_ctr.count(base + 5);
			if ((meta.ev & (1 << 6)) != 0)
				job_ctr.count(base + 6);
			if ((meta.ev & (1 << 7)) != 0)
				job_ctr.count(base + 7);
			if ((meta.ev & (1 << 8)) != 0)
				job_ctr.count(base + 8);
			if ((meta.ev & (1 << 9)) != 0)
				job_ctr.count(base + 9);
			if ((meta.ev & (1 << 10)) != 0)
				job_ctr.count(base + 10);
			if ((meta.ev & (1 << 11)) != 0)
				job_ctr.count(base + 11);
			if ((meta.ev & (1 << 12)) != 0)
				job_ctr.count(base + 12);
			if ((meta.ev & (1 << 13)) != 0)
				job_ctr.count(base + 13);
			if ((meta.ev & (1 << 14)) != 0)
				job_ctr.count(base + 14);
			if ((meta.ev & (1 << 15)) != 0)
				job_ctr.count(base + 15);
			if ((meta.ev & (1 << 16)) != 0)
				job_ctr.count(base + 16);
			if ((meta.ev & (1 << 17)) != 0)
				job_ctr.count(base + 17);
		}
		if ((meta.tor_ev & (1 << 0)) != 0)
			tor_ctr.count(0);
		if ((meta.tor_ev & (1 << 1)) != 0)
			tor_ctr.count(1);
		if ((meta.tor_ev & (1 << 2)) != 0)
			tor_ctr.count(2);
		if ((meta.tor_ev & (1 << 3)) != 0)
			tor_ctr.count(3);
		if ((meta.tor_ev & (1 << 4)) != 0)
			tor_ctr.count(4);
		if ((meta.tor_ev & (1 << 5)) != 0)
			tor_ctr.count(5);
		if ((meta.tor_ev & (1 << 6)) != 0)
			tor_ctr.count(6);
		if ((meta.tor_ev & (1 << 7)) != 0)
			tor_ctr.count(7);
		if ((meta.tor_ev & (1 << 8)) != 0)
			tor_ctr.count(8);
		if ((meta.tor_ev & (1 << 9)) != 0)
			tor_ctr.count(9);
		if ((meta.tor_ev & (1 << 10)) != 0)
			tor_ctr.count(10);
		if ((meta.tor_ev & (1 << 11)) != 0)
			tor_ctr.count(11);
		if ((meta.tor_ev & (1 << 12)) != 0)
			tor_ctr.count(12);
	}
}

control CountersOut(in metadata_t meta)
{
	counter(RINA_TOR_MAX_JOBS * RINA_TO_MAX, CounterType.packets) job_out;

	apply {
		bit<32> base = (bit<32>)meta.j_job_idx * RINA_TO_MAX;

		if (meta.job_hit == 1) {
			if ((meta.ev_out & (1 << 0)) != 0)
				job_out.count(base + 0);
			if ((meta.ev_out & (1 << 1)) != 0)
				job_out.count(base + 1);
			if ((meta.ev_out & (1 << 2)) != 0)
				job_out.count(base + 2);
			if ((meta.ev_out & (1 << 3)) != 0)
				job_out.count(base + 3);
			if ((meta.ev_out & (1 << 4)) != 0)
				job_out.count(base + 4);
			if ((meta.ev_out & (1 << 5)) != 0)
				job_out.count(base + 5);
			if ((meta.ev_out & (1 << 6)) != 0)
				job_out.count(base + 6);
		}
	}
}

#endif
