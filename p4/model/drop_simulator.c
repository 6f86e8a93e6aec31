// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * DropSimulator (p4/drop_simulator.p4), instantiated in ingress (packets
 * received) and egress (packets the switch emits). Table drop_sim, exact
 * on the Rina ver_op byte, action drop_rate(rate): a hit steps the
 * instance's linear congruential generator (register drop_rng, seeded by
 * register_write) and drops when (rng >> 16) < rate; rate 65536 drops
 * every packet, 0 none. Deterministic, so loss tests are repeatable.
 */
#include "rina_tor_model.h"

#define DROP_LCG_MUL	1664525u
#define DROP_LCG_INC	1013904223u

int tor_drop_sim(struct tor_drop_entry *tbl, __u32 *rng,
		 const struct tor_headers *hdr)
{
	unsigned int i;

	if (!hdr->rina_valid)
		return 0;
	for (i = 0; i < RINA_TOR_DROP_SIZE; i++) {
		if (!tbl[i].used || tbl[i].ver_op != hdr->rina.ver_op)
			continue;
		*rng = *rng * DROP_LCG_MUL + DROP_LCG_INC;
		return (*rng >> 16) < tbl[i].rate;
	}
	return 0;
}
