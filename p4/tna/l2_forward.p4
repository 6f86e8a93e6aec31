/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * L2Forward on Tofino (../l2_forward.p4): switched by destination MAC,
 * a miss floods through group RINA_TOR_FLOOD_GRP; EgressRewrite prunes
 * the ingress port.
 */
#ifndef _RINA_TNA_L2_FORWARD_P4_
#define _RINA_TNA_L2_FORWARD_P4_

control L2Forward(in headers_t hdr, inout metadata_t meta,
		  inout ingress_intrinsic_metadata_for_tm_t tm)
{
	action set_port(PortId_t port)
	{
		tm.ucast_egress_port = port;
	}

	action flood()
	{
		tm.mcast_grp_a = RINA_TOR_FLOOD_GRP;
		meta.tor_ev[RINA_TS_L2_FLOOD:RINA_TS_L2_FLOOD] = 1;
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
