// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * AllGather (p4/allgather.p4): stateless replication of allgather data
 * and ACK fan-out.
 *   - AG_DATA from the upstream member: header-only ACK (AG_PHASE) back
 *     to it, a copy to every local worker, and, while hop < L - 1, a copy
 *     to the next member (its NEXT replica adds one to hop).
 *   - ACK of reduce-scatter data from the downstream member: a copy to
 *     every local worker (their window advances on it).
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
		meta->ack_seq = r->seq;
		meta->ack_slot = r->slot;
		meta->ack_flags = RINA_F_FROM_SWITCH | RINA_F_AG_PHASE;
		meta->ack_step = r->step;
		meta->emit = RINA_EMIT_UP | RINA_EMIT_LOCAL;
		if (r->hop + 1u < meta->job.ring_len)
			meta->emit |= RINA_EMIT_NEXT;
		r->flags |= RINA_F_FROM_SWITCH;
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
