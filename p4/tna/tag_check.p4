/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * TagCheck on Tofino: ../tag_check.p4's rule (core/ctrl_auth.c
 * rina_tag_open()), the 64-bit comparison as two 32-bit differences (a
 * gateway reads at most 4 bytes and compares with a constant).
 */
#ifndef _RINA_TNA_TAG_CHECK_P4_
#define _RINA_TNA_TAG_CHECK_P4_

control TagCheck(in headers_t hdr, inout metadata_t meta)
{
	bit<32> d_hi;
	bit<32> d_lo;

	COMPUTE(tag_diff,
		d_hi = hdr.tag.tag[63:32] ^ meta.j_tag[63:32];
		d_lo = hdr.tag.tag[31:0] ^ meta.j_tag[31:0];)

	bit<1> f_ctrl;
	bit<1> f_xtag;		/* rsvd RINA_X_TAG */
	bit<1> f_rsvd;		/* rsvd != 0 */
	bit<1> f_valid;
	bit<1> f_hi;
	bit<1> f_lo;

	action set_bad(bit<1> bad)
	{
		meta.bad_tag = bad;
	}

	/* a tagged job's packet (but CTRL) carries the tag, an untagged
	 * job's carries none */
	table tag_verdict {
		key = {
			meta.j_tagged : ternary;
			f_ctrl : ternary;
			f_xtag : ternary;
			f_rsvd : ternary;
			f_valid : ternary;
			f_hi : ternary;
			f_lo : ternary;
		}
		actions = { set_bad; }
		size = 8;
		const entries = {
			(_, 1, _, _, _, _, _) : set_bad(0);
			(1, 0, 1, _, 1, 0, 0) : set_bad(0);
			(1, 0, _, _, _, _, _) : set_bad(1);
			(0, 0, _, 1, _, _, _) : set_bad(1);
		}
		default_action = set_bad(0);
	}

	apply {
		tag_diff.apply();
		f_ctrl = 0; f_xtag = 0; f_rsvd = 0; f_valid = 0; f_hi = 0;
		f_lo = 0;
		if (hdr.rina.ver_op[3:0] == RINA_OP_CTRL)
			f_ctrl = 1;
		if (hdr.rina.rsvd == RINA_X_TAG)
			f_xtag = 1;
		if (hdr.rina.rsvd != 0)
			f_rsvd = 1;
		if (hdr.tag.isValid())
			f_valid = 1;
		if (d_hi != 0)
			f_hi = 1;
		if (d_lo != 0)
			f_lo = 1;
		tag_verdict.apply();
	}
}

#endif
