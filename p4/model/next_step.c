// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * NextStep (p4/next_step.p4): completion and next-step selection for a
 * reduce-scatter contribution. When the slot just completed:
 *   - not the member's own chunk: SR_PARTIAL to the next member (slot +
 *     p_chunk, step + 1), the slot's sum as payload;
 *   - own chunk ((i + 1) mod L): AG_DATA (seq + L * p_chunk, hop 0, the
 *     NEXT replica adds one) to every local worker, to the agent (the own
 *     chunk's sender of record) and, when L > 1, to the next member;
 *   - in both cases, if the slot waited for the upstream partial, a
 *     header-only ACK of that partial to the upstream member (ACK at DONE).
 * The result leaves CE-marked if a worker's contribution came marked, else
 * ECT(0) when the packet that made it is ECN-capable; the ACK of a
 * CE-marked upstream partial says so (ECN_ECHO): core/slot.h.
 * A duplicate of a done slot re-emits: the upstream partial gets its ACK
 * again, a local worker's own-chunk contribution gets AG_DATA back to that
 * worker and to the agent (whose copy at DONE may have been lost: the
 * workers wait for the agent to hold it), any other contribution re-sends
 * the partial (flag RETX).
 * A stale upstream partial (its slot was reclaimed, so its ordinal
 * completed long ago, Documentation/protocol-ina.md) gets the ACK the
 * upstream lost; a stale local contribution is a late duplicate: dropped.
 * Output goes through the job's multicast group; meta.emit selects which
 * replicas survive egress (RinaEgress.rewrite).
 */
#include "rina_tor_model.h"

static void ev(struct tor_meta *meta, unsigned int id)
{
	meta->ev |= 1u << id;
}

static void result_header(struct tor_headers *hdr, struct tor_meta *meta,
			  __u8 extra_flags)
{
	struct tor_rina *r = &hdr->rina;
	__u8 keep = r->flags & RINA_F_LAST;

	r->flags = RINA_F_FROM_SWITCH | keep | extra_flags;
	meta->out_ecn = rina_slot_result_ecn(&meta->slot, tor_in_ecn(hdr));
	if (meta->overflow)
		r->flags |= RINA_F_OVERFLOW;
	r->src_id = meta->job.src_id;
	r->num_contrib = meta->slot.ncontrib;
	r->exp = meta->slot.exp;
	if (meta->own) {
		r->ver_op = RINA_VERSION << 4 | RINA_OP_AG_DATA;
		r->flags |= RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
		r->seq = r->seq + (__u32)meta->job.ring_len * r->p_chunk;
		r->slot = 0;
		r->hop = 0;
	} else {
		r->ver_op = RINA_VERSION << 4 | RINA_OP_SR_PARTIAL;
		r->slot = (__u16)(r->slot + r->p_chunk);
		r->step = (__u8)(r->step + 1);
	}
}

void tor_next_step(struct rina_tor *sw, struct tor_headers *hdr,
		   struct tor_meta *meta)
{
	struct tor_rina *r = &hdr->rina;
	__u32 up_bit = 1u << meta->job.up_bit_idx;
	int is_partial = (r->ver_op & 0xf) == RINA_OP_SR_PARTIAL;

	(void)sw;
	meta->ack_seq = r->seq;
	meta->ack_slot = (__u16)(r->slot - r->p_chunk);
	meta->ack_flags = RINA_F_FROM_SWITCH;
	meta->ack_step = r->step;
	if ((meta->done_now || meta->verdict == RINA_SLOT_DUP_DONE) &&
	    (meta->slot.state & RINA_SLOT_ST_UP_CE))
		meta->ack_flags |= RINA_F_ECN_ECHO;
	if (meta->done_now) {
		ev(meta, RINA_TC_SLOT_DONE);
		if (meta->overflow)
			ev(meta, RINA_TC_OVERFLOW);
		meta->emit = (meta->exp_mask & up_bit) ? RINA_EMIT_UP : 0;
		if (meta->own)
			meta->emit |= RINA_EMIT_LOCAL | RINA_EMIT_AGENT |
				(meta->job.ring_len > 1 ? RINA_EMIT_NEXT : 0);
		else
			meta->emit |= RINA_EMIT_NEXT;
		result_header(hdr, meta, 0);
		return;
	}
	if (meta->verdict == RINA_SLOT_STALE) {
		if (is_partial)
			meta->emit = RINA_EMIT_UP;
		return;
	}
	if (meta->verdict != RINA_SLOT_DUP_DONE)
		return;
	ev(meta, RINA_TC_DUP);
	ev(meta, RINA_TC_REEMIT);
	if (is_partial) {
		meta->emit = RINA_EMIT_UP;
		return;
	}
	meta->emit = meta->own ? RINA_EMIT_ONE | RINA_EMIT_AGENT :
				 RINA_EMIT_NEXT;
	result_header(hdr, meta, RINA_F_RETX);
}
