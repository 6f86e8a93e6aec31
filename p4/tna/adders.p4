/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Adders on Tofino (../adders.p4; arithmetic core/agg.c): one 32-bit
 * register and stateful ALU per payload word, RINA_TNA_ELEMS of them,
 * each word's running value written back into the packet:
 *   FRESH     store the word;
 *   ADD       SUM: add (FIXED32 only: ../adders.p4's wrap-around test
 *             needs the old value, the word and the sum at once, more
 *             than one stateful ALU gives back, so raw int32 SUM goes to
 *             the agent, RINA_TNA_TC_INT32_SUM); MAX: signed maximum;
 *   DUP_DONE  read only: the stored result, for re-emission.
 * A word the packet lacks is left alone: every Rina sender gives all
 * packets of one slot the same n_elem (Documentation/tofino.md).
 */
#ifndef _RINA_TNA_ADDERS_P4_
#define _RINA_TNA_ADDERS_P4_

#define ADD_NONE	0
#define ADD_STORE	1
#define ADD_SUM		2
#define ADD_MAX		3
#define ADD_READ	4

control Adder(inout bit<32> word, in bool valid, in bit<8> mode,
	      in slot_idx_t idx)
{
	Register<bit<32>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_val;

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vstore = {
		void apply(inout bit<32> v, out bit<32> r)
		{
			v = word;
			r = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vsum = {
		void apply(inout bit<32> v, out bit<32> r)
		{
			v = v + word;
			r = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vmax = {
		void apply(inout bit<32> v, out bit<32> r)
		{
			if ((int<32>)word > (int<32>)v)
				v = word;
			r = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vread = {
		void apply(inout bit<32> v, out bit<32> r)
		{
			r = v;
		}
	};

	apply {
		if (valid) {
			if (mode == ADD_STORE)
				word = vstore.execute(idx);
			else if (mode == ADD_SUM)
				word = vsum.execute(idx);
			else if (mode == ADD_MAX)
				word = vmax.execute(idx);
			else if (mode == ADD_READ)
				word = vread.execute(idx);
		}
	}
}

#define ADDER_DECL(J)	Adder() add_##J;
#define ADDER_APPLY(J)	add_##J.apply(hdr.elems[J].v,			\
				      hdr.elems[J].isValid(), mode,	\
				      meta.reg_idx);

control Adders(inout headers_t hdr, in metadata_t meta)
{
	bit<8> mode;

	RINA_TNA_REPEAT(ADDER_DECL)

	apply {
		mode = ADD_NONE;
		if (meta.verdict == RINA_SLOT_FRESH)
			mode = ADD_STORE;
		else if (meta.verdict == RINA_SLOT_ADD && meta.is_max == 1)
			mode = ADD_MAX;
		else if (meta.verdict == RINA_SLOT_ADD)
			mode = ADD_SUM;
		else if (meta.verdict == RINA_SLOT_DUP_DONE)
			mode = ADD_READ;
		RINA_TNA_REPEAT(ADDER_APPLY)
	}
}

#endif
