/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Adders on Tofino, in the second ingress pass (../adders.p4; arithmetic
 * core/agg.c): one 32-bit register and stateful ALU per payload word,
 * RINA_TNA_ELEMS of them, the RegisterAction chosen by a table keyed on
 * the slot verdict, each word's running value written into the packet:
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

control Adder(inout bit<32> word, in bool valid, in bit<8> verdict,
	      in bit<1> is_max, in slot_idx_t idx)
{
	Register<bit<32>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_val;

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vstore = {
		void apply(inout bit<32> v, out bit<32> o)
		{
			v = word;
			o = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vsum = {
		void apply(inout bit<32> v, out bit<32> o)
		{
			v = v + word;
			o = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vmax = {
		void apply(inout bit<32> v, out bit<32> o)
		{
			if ((int<32>)word > (int<32>)v)
				v = word;
			o = v;
		}
	};
	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_val) vread = {
		void apply(inout bit<32> v, out bit<32> o)
		{
			o = v;
		}
	};

	action a_store()
	{
		word = vstore.execute(idx);
	}
	action a_sum()
	{
		word = vsum.execute(idx);
	}
	action a_max()
	{
		word = vmax.execute(idx);
	}
	action a_read()
	{
		word = vread.execute(idx);
	}

	/* the RegisterAction by the verdict, as SwitchML's tables do */
	table op {
		key = {
			verdict : exact;
			is_max : exact;
		}
		actions = { a_store; a_sum; a_max; a_read; NoAction; }
		size = 8;
		const entries = {
			(RINA_SLOT_FRESH, 0) : a_store();
			(RINA_SLOT_FRESH, 1) : a_store();
			(RINA_SLOT_ADD, 0) : a_sum();
			(RINA_SLOT_ADD, 1) : a_max();
			(RINA_SLOT_DUP_DONE, 0) : a_read();
			(RINA_SLOT_DUP_DONE, 1) : a_read();
		}
		default_action = NoAction();
	}

	apply {
		if (valid)
			op.apply();
	}
}

#define ADDER_DECL(J)	Adder() add_##J;
#define ADDER_APPLY(J)	add_##J.apply(hdr.elems[J].v,			\
				      hdr.elems[J].isValid(),		\
				      meta.verdict, r.is_max, r.reg_idx);

control Adders(inout headers_t hdr, in recirc_t r, in metadata_t meta)
{
	RINA_TNA_REPEAT(ADDER_DECL)

	apply {
		RINA_TNA_REPEAT(ADDER_APPLY)
	}
}

#endif
