// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * L2Forward (p4/l2_forward.p4): everything the switch does not consume
 * is switched by destination MAC. Table l2_fwd, exact on the Ethernet
 * destination, action set_port; a miss (and broadcast) floods through
 * multicast group RINA_TOR_FLOOD_GRP, whose egress prunes the ingress port.
 */
#include "rina_tor_model.h"

void tor_l2_forward(struct rina_tor *sw, struct tor_headers *hdr,
		    struct tor_meta *meta)
{
	unsigned int i;

	for (i = 0; i < RINA_TOR_L2_SIZE; i++) {
		const struct tor_l2_entry *e = &sw->l2_fwd[i];

		if (e->used && !__builtin_memcmp(e->mac, hdr->eth.dst, 6)) {
			meta->egress_spec = e->port;
			return;
		}
	}
	meta->mcast_grp = RINA_TOR_FLOOD_GRP;
	sw->tor_ctr[RINA_TS_L2_FLOOD]++;
}
