/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NextStep (model: p4/model/next_step.c): completion and next-step
 * selection of a reduce-scatter contribution.
 * The slot just completed (done_now):
 *   - not the own chunk: SR_PARTIAL to the next member (slot + p_chunk,
 *     step + 1) carrying the sum;
 *   - own chunk ((i + 1) mod L): AG_DATA (seq + L * p_chunk, slot 0,
 *     hop 0; the NEXT replica adds the hop) to every local worker, to the
 *     agent (the sender of record of the own chunk) and, when L > 1, to
 *     the next member;
 *   - when the slot waited for the upstream partial: a header-only ACK of
 *     it to the upstream member (ACK at DONE makes slot reuse safe).
 * A duplicate of a done slot (DUP_DONE): the upstream partial is ACKed
 * again; a local own-chunk contribution gets AG_DATA back to that worker
 * and to the agent (its copy at DONE may have been lost, and the workers
 * wait until the agent holds it); any other local contribution re-sends
 * the partial; all with RETX.
 * A STALE upstream partial (its slot was reclaimed, so its ordinal
 * completed long ago) gets the ACK the upstream lost; a stale local
 * contribution is a late duplicate and is dropped.
 * The packet then leaves through the job's multicast group; meta.emit
 * selects the replicas that survive EgressRewrite.
 */
#ifndef _RINA_NEXT_STEP_P4_
#define _RINA_NEXT_STEP_P4_

control NextStep(inout headers_t hdr, inout metadata_t meta)
{
	action result_header(bit<8> extra_flags)
	{
		hdr.rina.flags = RINA_F_FROM_SWITCH |
				 (hdr.rina.flags & RINA_F_LAST) | extra_flags |
				 (meta.overflow == 1 ? (bit<8>)RINA_F_OVERFLOW :
						       (bit<8>)0);
		hdr.rina.src_id = meta.j_src_id;
		hdr.rina.num_contrib = meta.s_ncontrib;
		hdr.rina.exp = meta.s_exp;
		/* rina_slot_result_ecn() */
		if ((meta.s_state & RINA_SLOT_ST_CE) != 0)
			meta.out_ecn = RINA_ECN_CE;
		else if ((hdr.ipv4.diffserv & 3) != RINA_ECN_NOT_ECT)
			meta.out_ecn = RINA_ECN_ECT0;
		else
			meta.out_ecn = RINA_ECN_NOT_ECT;
	}

	action as_allgather()
	{
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_AG_DATA;
		hdr.rina.flags = hdr.rina.flags | RINA_F_AG_PHASE |
				 RINA_F_OWN_FINAL;
		hdr.rina.seq = hdr.rina.seq +
			(bit<32>)meta.j_ring_len * (bit<32>)hdr.rina.p_chunk;
		hdr.rina.slot = 0;
		hdr.rina.hop = 0;
	}

	action as_partial()
	{
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_SR_PARTIAL;
		hdr.rina.slot = hdr.rina.slot + hdr.rina.p_chunk;
		hdr.rina.step = hdr.rina.step + 1;
	}

	apply {
		bit<32> up_bit = (bit<32>)1 << meta.j_up_bit_idx;
		bit<1> is_partial = (hdr.rina.ver_op & 0x0f) ==
				    RINA_OP_SR_PARTIAL ? (bit<1>)1 : (bit<1>)0;

		meta.ack_seq = hdr.rina.seq;
		meta.ack_slot = hdr.rina.slot - hdr.rina.p_chunk;
		meta.ack_flags = RINA_F_FROM_SWITCH;
		meta.ack_step = hdr.rina.step;
		if ((meta.done_now == 1 ||
		     meta.verdict == RINA_SLOT_DUP_DONE) &&
		    (meta.s_state & RINA_SLOT_ST_UP_CE) != 0)
			meta.ack_flags = meta.ack_flags | RINA_F_ECN_ECHO;
		if (meta.done_now == 1) {
			meta.ev = meta.ev | (1 << RINA_TC_SLOT_DONE);
			if (meta.overflow == 1)
				meta.ev = meta.ev | (1 << RINA_TC_OVERFLOW);
			meta.emit = 0;
			if ((meta.exp_mask & up_bit) != 0)
				meta.emit = RINA_EMIT_UP;
			if (meta.own == 1) {
				meta.emit = meta.emit | RINA_EMIT_LOCAL |
					    RINA_EMIT_AGENT;
				if (meta.j_ring_len > 1)
					meta.emit = meta.emit | RINA_EMIT_NEXT;
			} else {
				meta.emit = meta.emit | RINA_EMIT_NEXT;
			}
			result_header(0);
			if (meta.own == 1)
				as_allgather();
			else
				as_partial();
		} else if (meta.verdict == RINA_SLOT_STALE) {
			if (is_partial == 1)
				meta.emit = RINA_EMIT_UP;
		} else if (meta.verdict == RINA_SLOT_DUP_DONE) {
			meta.ev = meta.ev | (1 << RINA_TC_DUP) |
				  (1 << RINA_TC_REEMIT);
			if (is_partial == 1) {
				meta.emit = RINA_EMIT_UP;
			} else {
				result_header(RINA_F_RETX);
				if (meta.own == 1) {
					meta.emit = RINA_EMIT_ONE |
						    RINA_EMIT_AGENT;
					as_allgather();
				} else {
					meta.emit = RINA_EMIT_NEXT;
					as_partial();
				}
			}
		}
	}
}

#endif
