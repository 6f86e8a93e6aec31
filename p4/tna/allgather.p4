/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * AllGather on Tofino: ../allgather.p4's stateless replication (AG_DATA
 * to the rack, the agent and, while hop < L - 1, the next member; an ACK
 * without AG_PHASE to every local worker), with hop + 1 < L as
 * (L |-| hop) > 1: a gateway compares a field with a constant.
 */
#ifndef _RINA_TNA_ALLGATHER_P4_
#define _RINA_TNA_ALLGATHER_P4_

control AllGather(inout headers_t hdr, inout metadata_t meta,
		  in bit<16> hops_left)
{
	apply {
		/* emit and fwd written once each: a stage per write */
		if (hdr.rina.ver_op[3:0] == RINA_OP_AG_DATA) {
			if (hops_left > 1)
				meta.emit = RINA_EMIT_LOCAL | RINA_EMIT_AGENT |
					    RINA_EMIT_NEXT;
			else
				meta.emit = RINA_EMIT_LOCAL | RINA_EMIT_AGENT;
			hdr.rina.flags[6:6] = 1;	/* FROM_SWITCH */
			meta.out_ecn = (bit<8>)hdr.ipv4.diffserv[1:0];
		} else if (hdr.rina.flags[7:7] == 0) {	/* no AG_PHASE */
			meta.emit = RINA_EMIT_LOCAL;
			hdr.rina.flags[6:6] = 1;
		} else {
			meta.fwd = 1;		/* nothing to replicate */
		}
	}
}

#endif
