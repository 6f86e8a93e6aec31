// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * AllGather (p4/allgather.p4): stateless replication of allgather data
 * and ACK fan-out.
 *   - AG_DATA from the upstream member: a copy to every local worker
 *     (the agent's rank included), one to the agent itself (its
 *     ip:0x524f; it ACKs allgather data and is its sender of record, so it
 *     needs its own copy) and, while hop < L - 1, a copy to the next
 *     member (its NEXT replica adds one to hop). The ToR does not ACK it:
 *     the agent does, once it holds its copy, so that a copy lost on the
 *     way to the agent is retransmitted by the upstream (the ToR keeps no
 *     allgather data; the agent serves the rack's repairs from its copy).
 *     Its copies keep the ECN field it came with.
 *   - ACK of reduce-scatter data from the downstream member: a copy to
 *     every local worker (their window advances on it, and takes its
 *     ECN_ECHO); none to the agent.
 *   - ACK with AG_PHASE: not handled here, it goes to the agent (the
 *     allgather sender of record).
 * A packet left with meta.emit == 0 is forwarded to the agent by L2.
 */
#include "rina_tor_model.h"

void tor_allgather(struct rina_tor *sw, struct tor_headers *hdr,
		   struct tor_meta *meta)
{
	struct tor_rina *r = &hdr->rina;

	(void)sw;
	switch (r->ver_op & 0xf) {
	case RINA_OP_AG_DATA:
		meta->ev |= 1u << RINA_TC_AG_IN;
		meta->emit = RINA_EMIT_LOCAL | RINA_EMIT_AGENT;
		if (r->hop + 1u < meta->job.ring_len)
			meta->emit |= RINA_EMIT_NEXT;
		r->flags |= RINA_F_FROM_SWITCH;
		meta->out_ecn = tor_in_ecn(hdr);	/* as it came */
		break;
	case RINA_OP_ACK:
		meta->ev |= 1u << RINA_TC_ACK_IN;
		if (r->flags & RINA_F_AG_PHASE)
			break;
		meta->emit = RINA_EMIT_LOCAL;
		r->flags |= RINA_F_FROM_SWITCH;
		break;
	}
}
