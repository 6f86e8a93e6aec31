/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * SlotTag (model: p4/model/slot_tag.c; rules: core/slot.h).
 *
 * A contribution's slot: index = pool_base + (slot & (W - 1)) in shadow
 * set (slot & W) != 0, register index reg_idx = set * POOL + index.
 * The occupant of a slot is named by (epoch, round, seq) and aged by the
 * wire slot value it came with (serial arithmetic on 16 bits):
 *   - epoch differs (the job was installed again) or the slot is empty:
 *     FRESH, the packet claims it;
 *   - same (round, seq): ADD for a new contributor, DUP if its bit is
 *     already set, DUP_DONE if the slot is done (re-emission);
 *   - else older or equal wire slot: STALE (a late duplicate);
 *   - else newer: FRESH if the occupant is done, else COLLISION (the
 *     window was violated: the packet goes to the agent).
 * Unlike SwitchML's "clear my bit in the other set", a claim by tag
 * survives a first chunk with no upstream contributor.
 * FRESH and ADD then count the contributor in; the slot is done when the
 * bitmap equals meta.exp_mask, and meta.done_now is set exactly once; a
 * CE-marked packet sets ST_CE (a contribution) or ST_UP_CE (the
 * upstream partial) in the slot's state.
 */
#ifndef _RINA_SLOT_TAG_P4_
#define _RINA_SLOT_TAG_P4_

control SlotTag(in headers_t hdr, inout metadata_t meta)
{
	register<bit<16>>(RINA_TOR_SLOTS) slot_epoch;
	register<bit<16>>(RINA_TOR_SLOTS) slot_round;
	register<bit<32>>(RINA_TOR_SLOTS) slot_seq;
	register<bit<16>>(RINA_TOR_SLOTS) slot_id;
	register<bit<32>>(RINA_TOR_SLOTS) slot_bitmap;
	register<bit<8>>(RINA_TOR_SLOTS) slot_state;
	register<bit<8>>(RINA_TOR_SLOTS) slot_exp;
	register<bit<16>>(RINA_TOR_SLOTS) slot_ncontrib;

	apply {
		bit<32> W = (bit<32>)meta.j_win;
		bit<32> slot = (bit<32>)hdr.rina.slot;
		bit<1> done;

		meta.reg_idx = (bit<32>)meta.j_pool_base + (slot & (W - 1));
		if ((slot & W) != 0)
			meta.reg_idx = meta.reg_idx + RINA_TOR_POOL_SIZE;

		slot_epoch.read(meta.s_epoch, meta.reg_idx);
		slot_round.read(meta.s_round, meta.reg_idx);
		slot_seq.read(meta.s_seq, meta.reg_idx);
		slot_id.read(meta.s_id, meta.reg_idx);
		slot_bitmap.read(meta.s_bitmap, meta.reg_idx);
		slot_state.read(meta.s_state, meta.reg_idx);
		slot_exp.read(meta.s_exp, meta.reg_idx);
		slot_ncontrib.read(meta.s_ncontrib, meta.reg_idx);
		done = (meta.s_state & RINA_SLOT_ST_DONE) != 0 ?
			(bit<1>)1 : (bit<1>)0;

		/* rina_slot_classify() */
		if (meta.s_epoch != meta.j_epoch ||
		    (meta.s_bitmap == 0 && done == 0)) {
			meta.verdict = RINA_SLOT_FRESH;
		} else if (meta.s_round == hdr.rina.round &&
			   meta.s_seq == hdr.rina.seq) {
			if (done == 1)
				meta.verdict = RINA_SLOT_DUP_DONE;
			else if ((meta.s_bitmap & meta.cbit) == 0)
				meta.verdict = RINA_SLOT_ADD;
			else
				meta.verdict = RINA_SLOT_DUP;
		} else if (((hdr.rina.slot - meta.s_id) & 0x8000) != 0 ||
			   hdr.rina.slot == meta.s_id) {
			meta.verdict = RINA_SLOT_STALE;
		} else if (done == 1) {
			meta.verdict = RINA_SLOT_FRESH;
		} else {
			meta.verdict = RINA_SLOT_COLLISION;
		}

		/* rina_slot_claim() */
		if (meta.verdict == RINA_SLOT_FRESH) {
			meta.s_epoch = meta.j_epoch;
			meta.s_round = hdr.rina.round;
			meta.s_seq = hdr.rina.seq;
			meta.s_id = hdr.rina.slot;
			meta.s_bitmap = 0;
			meta.s_state = 0;
			meta.s_exp = RINA_EXP_NONE;
			meta.s_ncontrib = 0;
		}

		/* rina_slot_join() */
		meta.done_now = 0;
		if (meta.verdict == RINA_SLOT_FRESH ||
		    meta.verdict == RINA_SLOT_ADD) {
			meta.s_bitmap = meta.s_bitmap | meta.cbit;
			if ((int<8>)hdr.rina.exp > (int<8>)meta.s_exp)
				meta.s_exp = hdr.rina.exp;
			meta.s_ncontrib = meta.s_ncontrib +
					  hdr.rina.num_contrib;
			if ((meta.s_state & RINA_SLOT_ST_DONE) == 0 &&
			    meta.s_bitmap == meta.exp_mask) {
				meta.s_state = meta.s_state |
					       RINA_SLOT_ST_DONE;
				meta.done_now = 1;
			}
			/* rina_slot_mark() */
			if ((hdr.ipv4.diffserv & 3) == RINA_ECN_CE) {
				if ((hdr.rina.ver_op & 0x0f) ==
				    RINA_OP_SR_PARTIAL)
					meta.s_state = meta.s_state |
						       RINA_SLOT_ST_UP_CE;
				else
					meta.s_state = meta.s_state |
						       RINA_SLOT_ST_CE;
			}
			slot_epoch.write(meta.reg_idx, meta.s_epoch);
			slot_round.write(meta.reg_idx, meta.s_round);
			slot_seq.write(meta.reg_idx, meta.s_seq);
			slot_id.write(meta.reg_idx, meta.s_id);
			slot_bitmap.write(meta.reg_idx, meta.s_bitmap);
			slot_state.write(meta.reg_idx, meta.s_state);
			slot_exp.write(meta.reg_idx, meta.s_exp);
			slot_ncontrib.write(meta.reg_idx, meta.s_ncontrib);
		}
	}
}

#endif
