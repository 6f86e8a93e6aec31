/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * DropSimulator (model: p4/model/drop_simulator.c), one instance in
 * ingress (packets of installed jobs as received) and one in egress
 * (replicas the switch emits). drop_sim: Rina ver_op -> drop_rate(rate):
 * a hit steps the instance's generator drop_rng[0] (x = x * 1664525 +
 * 1013904223, seeded with register_write) and sets meta.drop when
 * (x >> 16) < rate; 65536 drops everything, 0 nothing.
 */
#ifndef _RINA_DROP_SIMULATOR_P4_
#define _RINA_DROP_SIMULATOR_P4_

control DropSimulator(in headers_t hdr, inout metadata_t meta)
{
	register<bit<32>>(1) drop_rng;

	action drop_rate(bit<32> rate)
	{
		bit<32> x;

		drop_rng.read(x, 0);
		x = x * RINA_LCG_MUL + RINA_LCG_INC;
		drop_rng.write(0, x);
		meta.drop = ((x >> 16) < rate) ? (bit<1>)1 : (bit<1>)0;
	}

	table drop_sim {
		key = { hdr.rina.ver_op : exact; }
		actions = { drop_rate; NoAction; }
		size = RINA_TOR_DROP_SIZE;
		default_action = NoAction();
	}

	apply {
		meta.drop = 0;
		if (hdr.rina.isValid())
			drop_sim.apply();
	}
}

#endif
