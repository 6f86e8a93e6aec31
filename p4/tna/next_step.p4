/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NextStep on Tofino: ../next_step.p4's completion and next-step rules
 * unchanged (partial to the next member, own chunk as AG_DATA to the
 * rack, the agent and the next member, ACK at DONE; re-emission of a
 * done slot; the ACK again for a stale upstream partial). L * p_chunk
 * comes from JobClassify's ag_seq table (meta.ag_off).
 */
#ifndef _RINA_TNA_NEXT_STEP_P4_
#define _RINA_TNA_NEXT_STEP_P4_

control NextStep(inout headers_t hdr, inout metadata_t meta)
{
	/* flags: FROM_SWITCH (bit 6), RETX (bit 0) or not, LAST (bit 1)
	 * kept; by slices, as one stage cannot mask and set a field */
	action result_header()
	{
		hdr.rina.flags[7:2] = RINA_F_FROM_SWITCH >> 2;
		hdr.rina.flags[0:0] = 0;
		hdr.rina.src_id = meta.j_src_id;
		hdr.rina.num_contrib = meta.s_ncontrib;
		hdr.rina.exp = meta.s_exp;
	}

	action result_header_retx()
	{
		hdr.rina.flags[7:2] = RINA_F_FROM_SWITCH >> 2;
		hdr.rina.flags[0:0] = 1;
		hdr.rina.src_id = meta.j_src_id;
		hdr.rina.num_contrib = meta.s_ncontrib;
		hdr.rina.exp = meta.s_exp;
	}

	action as_allgather()
	{
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_AG_DATA;
		hdr.rina.seq = hdr.rina.seq + meta.ag_off;
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
		bit<1> result = 0;

		meta.ack_seq = hdr.rina.seq;
		meta.ack_slot = hdr.rina.slot - hdr.rina.p_chunk;
		meta.ack_flags = RINA_F_FROM_SWITCH;
		meta.ack_step = hdr.rina.step;
		if ((meta.done_now == 1 ||
		     meta.verdict == RINA_SLOT_DUP_DONE) &&
		    meta.s_state[3:3] == 1)	/* RINA_SLOT_ST_UP_CE */
			meta.ack_flags = RINA_F_FROM_SWITCH | RINA_F_ECN_ECHO;
		if (meta.s_state[1:1] == 1)	/* ST_OVF */
			meta.overflow = 1;
		if (meta.done_now == 1) {
			meta.ev[RINA_TC_SLOT_DONE:RINA_TC_SLOT_DONE] = 1;
			if (meta.overflow == 1)
				meta.ev[RINA_TC_OVERFLOW:RINA_TC_OVERFLOW] = 1;
			meta.emit = 0;
			if (meta.own_first == 0)
				meta.emit = RINA_EMIT_UP;
			if (meta.own == 1) {
				meta.emit = meta.emit | RINA_EMIT_LOCAL |
					    RINA_EMIT_AGENT;
				if (meta.j_ring_len > 1)
					meta.emit = meta.emit | RINA_EMIT_NEXT;
			} else {
				meta.emit = meta.emit | RINA_EMIT_NEXT;
			}
			result_header();
			result = 1;
		} else if (meta.verdict == RINA_SLOT_STALE) {
			if (meta.is_partial == 1)
				meta.emit = RINA_EMIT_UP;
		} else if (meta.verdict == RINA_SLOT_DUP_DONE) {
			meta.ev[RINA_TC_DUP:RINA_TC_DUP] = 1;
			meta.ev[RINA_TC_REEMIT:RINA_TC_REEMIT] = 1;
			if (meta.is_partial == 1) {
				meta.emit = RINA_EMIT_UP;
			} else {
				result_header_retx();
				result = 1;
				if (meta.own == 1)
					meta.emit = RINA_EMIT_ONE |
						    RINA_EMIT_AGENT;
				else
					meta.emit = RINA_EMIT_NEXT;
			}
		}
		if (result == 1) {
			if (meta.overflow == 1)
				hdr.rina.flags[4:4] = 1;	/* OVERFLOW */
			/* rina_slot_result_ecn() */
			if (meta.s_state[2:2] == 1)	/* RINA_SLOT_ST_CE */
				meta.out_ecn = RINA_ECN_CE;
			else if (hdr.ipv4.diffserv[1:0] != RINA_ECN_NOT_ECT)
				meta.out_ecn = RINA_ECN_ECT0;
			else
				meta.out_ecn = RINA_ECN_NOT_ECT;
			if (meta.own == 1) {
				as_allgather();
				hdr.rina.flags[7:7] = 1;	/* AG_PHASE */
				hdr.rina.flags[2:2] = 1;	/* OWN_FINAL */
			} else {
				as_partial();
			}
		}
	}
}

#endif
