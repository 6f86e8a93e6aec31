/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * DropSimulator on Tofino: ../drop_simulator.p4's table (drop_sim,
 * ver_op -> drop_rate(rate), rate in 1/65536) over the Random extern.
 * A stateful ALU has no multiplier, so v1model's seeded generator
 * (x * 1664525 + 1013904223) does not fit: drops here are not
 * repeatable run to run.
 */
#ifndef _RINA_TNA_DROP_SIMULATOR_P4_
#define _RINA_TNA_DROP_SIMULATOR_P4_

control DropSimulator(in headers_t hdr, out bit<1> drop)
{
	Random<bit<16>>() rng;
	bit<32> x;
	bit<32> under;		/* rate - x, saturated: x < rate */

	/* the comparison in the table's action: one stage less */
	action drop_rate(bit<32> r)
	{
		under = r |-| x;
	}

	table drop_sim {
		key = { hdr.rina.ver_op : exact; }
		actions = { drop_rate; NoAction; }
		size = RINA_TOR_DROP_SIZE;
		default_action = NoAction();
	}

	apply {
		under = 0;
		drop = 0;
		x = (bit<32>)rng.get();
		if (hdr.rina.isValid())
			drop_sim.apply();
		if (under != 0)
			drop = 1;
	}
}

#endif
