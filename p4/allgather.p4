/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * AllGather (model: p4/model/allgather.c): stateless replication.
 *   - AG_DATA from the upstream member: a copy to every local worker (but
 *     the one on the agent's host: EgressRewrite's rw_host, the agent
 *     relays its copy), one to the agent itself (its ip:0x524f:
 *     the agent ACKs allgather data and is its sender of record, so it
 *     needs its own copy) and, while hop < L - 1, a copy to the next
 *     member (whose replica adds one to hop). No ACK: the agent ACKs once
 *     it holds its copy, so a copy lost before the agent is retransmitted
 *     by the upstream (the ToR keeps no allgather data).
 *   - ACK of reduce-scatter data from the downstream member: a copy to
 *     every local worker (their windows advance on it); none to the agent.
 *   - ACK with AG_PHASE is left alone: L2 takes it to the agent, the
 *     allgather sender of record.
 */
#ifndef _RINA_ALLGATHER_P4_
#define _RINA_ALLGATHER_P4_

control AllGather(inout headers_t hdr, inout metadata_t meta)
{
	apply {
		bit<8> op = hdr.rina.ver_op & 0x0f;

		if (op == RINA_OP_AG_DATA) {
			meta.ev = meta.ev | (1 << RINA_TC_AG_IN);
			meta.emit = RINA_EMIT_LOCAL | RINA_EMIT_AGENT;
			if ((bit<16>)hdr.rina.hop + 1 < meta.j_ring_len)
				meta.emit = meta.emit | RINA_EMIT_NEXT;
			hdr.rina.flags = hdr.rina.flags | RINA_F_FROM_SWITCH;
			meta.out_ecn = hdr.ipv4.diffserv & 3;
		} else if (op == RINA_OP_ACK) {
			meta.ev = meta.ev | (1 << RINA_TC_ACK_IN);
			if ((hdr.rina.flags & RINA_F_AG_PHASE) == 0) {
				meta.emit = RINA_EMIT_LOCAL;
				hdr.rina.flags = hdr.rina.flags |
						 RINA_F_FROM_SWITCH;
			}
		}
	}
}

#endif
