/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * L2Forward (model: p4/model/l2_forward.c): what the switch does not
 * consume is switched by destination MAC; a miss (broadcast included)
 * floods through group RINA_TOR_FLOOD_GRP, whose egress prunes the
 * ingress port.
 */
#ifndef _RINA_L2_FORWARD_P4_
#define _RINA_L2_FORWARD_P4_

control L2Forward(in headers_t hdr, inout metadata_t meta,
		  inout standard_metadata_t sm)
{
	action set_port(bit<9> port)
	{
		sm.egress_spec = port;
	}

	action flood()
	{
		sm.mcast_grp = RINA_TOR_FLOOD_GRP;
		meta.tor_ev = meta.tor_ev | (1 << RINA_TS_L2_FLOOD);
	}

	table l2_fwd {
		key = { hdr.ethernet.dst_addr : exact; }
		actions = { set_port; flood; }
		size = RINA_TOR_L2_SIZE;
		default_action = flood();
	}

	apply {
		l2_fwd.apply();
	}
}

#endif
