/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Counters and CountersOut on Tofino (../counters.p4). v1model counts
 * every event bit of a packet in one array; a Tofino counter is updated
 * once per packet, so the job's events are split into three arrays whose
 * ids never come together (index job_idx * 32 + RINA_TC_* id):
 *   job_ctr      what came in: CONTRIB_IN .. BYPASS_IN, DROP_SIM, BAD_TAG
 *   job_verdict  what became of it: SLOT_DONE, DUP, STALE, COLLISION,
 *                BAD, TOO_LONG, NO_WORKER, INT32_SUM (Tofino only)
 *   job_extra    REEMIT, OVERFLOW
 * and the switch's: tor_ctr (RINA_PARSE_* | RINA_TS_*, one a packet,
 * meta.tor_id) and tor_flood. job_out as on v1model (one event per replica).
 */
#ifndef _RINA_TNA_COUNTERS_P4_
#define _RINA_TNA_COUNTERS_P4_

#define EV(ID)	(32w1 << ID) &&& (32w1 << ID)

control Counters(inout metadata_t meta)
{
	Counter<bit<32>, bit<16>>(RINA_TOR_MAX_JOBS * RINA_TNA_CTR_STRIDE,
				  CounterType_t.PACKETS) job_ctr;
	Counter<bit<32>, bit<16>>(RINA_TOR_MAX_JOBS * RINA_TNA_CTR_STRIDE,
				  CounterType_t.PACKETS) job_verdict;
	Counter<bit<32>, bit<16>>(RINA_TOR_MAX_JOBS * RINA_TNA_CTR_STRIDE,
				  CounterType_t.PACKETS) job_extra;
	Counter<bit<32>, bit<8>>(RINA_TS_MAX, CounterType_t.PACKETS) tor_ctr;
	Counter<bit<32>, bit<1>>(1, CounterType_t.PACKETS) tor_flood;

	action set_a(bit<16> id)
	{
		meta.ctr_a = meta.ctr_base | id;
		meta.cnt_a = 1;
	}

	action no_a()
	{
		meta.cnt_a = 0;
	}

	action set_b(bit<16> id)
	{
		meta.ctr_b = meta.ctr_base | id;
		meta.cnt_b = 1;
	}

	action no_b()
	{
		meta.cnt_b = 0;
	}

	action set_c(bit<16> id)
	{
		meta.ctr_c = meta.ctr_base | id;
		meta.cnt_c = 1;
	}

	action no_c()
	{
		meta.cnt_c = 0;
	}

	table ev_in {
		key = { meta.ev : ternary; }
		actions = { set_a; no_a; }
		size = 16;
		const entries = {
			EV(RINA_TC_CONTRIB_IN) : set_a(RINA_TC_CONTRIB_IN);
			EV(RINA_TC_PARTIAL_IN) : set_a(RINA_TC_PARTIAL_IN);
			EV(RINA_TC_AG_IN) : set_a(RINA_TC_AG_IN);
			EV(RINA_TC_ACK_IN) : set_a(RINA_TC_ACK_IN);
			EV(RINA_TC_NACK_IN) : set_a(RINA_TC_NACK_IN);
			EV(RINA_TC_CTRL_IN) : set_a(RINA_TC_CTRL_IN);
			EV(RINA_TC_BYPASS_IN) : set_a(RINA_TC_BYPASS_IN);
			EV(RINA_TC_DROP_SIM) : set_a(RINA_TC_DROP_SIM);
			EV(RINA_TC_BAD_TAG) : set_a(RINA_TC_BAD_TAG);
		}
		default_action = no_a();
	}

	table ev_verdict {
		key = { meta.ev : ternary; }
		actions = { set_b; no_b; }
		size = 16;
		const entries = {
			EV(RINA_TC_SLOT_DONE) : set_b(RINA_TC_SLOT_DONE);
			EV(RINA_TC_DUP) : set_b(RINA_TC_DUP);
			EV(RINA_TC_STALE) : set_b(RINA_TC_STALE);
			EV(RINA_TC_COLLISION) : set_b(RINA_TC_COLLISION);
			EV(RINA_TC_BAD) : set_b(RINA_TC_BAD);
			EV(RINA_TC_TOO_LONG) : set_b(RINA_TC_TOO_LONG);
			EV(RINA_TC_NO_WORKER) : set_b(RINA_TC_NO_WORKER);
			EV(RINA_TNA_TC_INT32_SUM) :
				set_b(RINA_TNA_TC_INT32_SUM);
		}
		default_action = no_b();
	}

	table ev_extra {
		key = { meta.ev : ternary; }
		actions = { set_c; no_c; }
		size = 4;
		const entries = {
			EV(RINA_TC_REEMIT) : set_c(RINA_TC_REEMIT);
			EV(RINA_TC_OVERFLOW) : set_c(RINA_TC_OVERFLOW);
		}
		default_action = no_c();
	}

	apply {
		/* counted on flags, not on the tables' hits: with a count
		 * behind each hit (and all under ev != 0) the placer put the
		 * three tables and counts one after another, the last in
		 * stage 12 of 0-12; on flags they share stages (0-11) */
		meta.ctr_base = meta.j_job_idx << RINA_TNA_CTR_SHIFT;
		ev_in.apply();
		ev_verdict.apply();
		ev_extra.apply();
		if (meta.cnt_a == 1)
			job_ctr.count(meta.ctr_a);
		if (meta.cnt_b == 1)
			job_verdict.count(meta.ctr_b);
		if (meta.cnt_c == 1)
			job_extra.count(meta.ctr_c);
		if (meta.tor_id != 0xff)
			tor_ctr.count(meta.tor_id);
		if (meta.tor_ev[RINA_TS_L2_FLOOD:RINA_TS_L2_FLOOD] == 1)
			tor_flood.count(0);
	}
}

control CountersOut(in headers_t hdr, inout egress_metadata_t em)
{
	Counter<bit<32>, bit<16>>(RINA_TOR_MAX_JOBS * RINA_TNA_CTR_STRIDE,
				  CounterType_t.PACKETS) job_out;

	apply {
		if (em.ev_out != 0xff) {
			/* job_idx * 32 + id, by slices */
			em.ctr[15:5] = (bit<11>)hdr.bridge.md.job_idx;
			em.ctr[4:0] = em.ev_out[4:0];
			job_out.count(em.ctr);
		}
	}
}

#endif
