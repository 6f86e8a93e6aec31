/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Adders (model: p4/model/adders.c; arithmetic: core/agg.c).
 * RINA_TOR_ELEMS int32 adders over slot_val[reg_idx * E + j], one per
 * payload word present in the packet:
 *   FRESH     store the word (and zero the words the packet lacks);
 *   ADD       SUM: add, wrap-around detected as in core/agg.c (operands
 *             of one sign, a sum of the other) and kept in slot_ovf;
 *             MAX: signed maximum;
 *   DUP_DONE  read only: the stored result, for re-emission.
 * The running value is written back into the packet word, so the packet
 * carries the result when the slot completes. meta.overflow leaves with
 * the occupant's overflow bit (or the input's OVERFLOW flag).
 */
#ifndef _RINA_ADDERS_P4_
#define _RINA_ADDERS_P4_

/*
 * One word, without a branch: a branch per word is a table per word on
 * bmv2, and 256 of them a packet cost more than the rest of the pipeline.
 * Word J is present when J < n_elem (what the parser extracted); pm is
 * all ones then. An absent word adds 0 (SUM), is INT32_MIN to MAX and
 * stores 0 when the slot is fresh: exactly what the words the packet
 * lacks do in the model. Masks pick one result: m_fresh the word, m_dup
 * the stored value, m_sum the sum (wrap-around kept in ovf_acc's top
 * bit), m_max the signed maximum.
 */
#define ADD_ELEM(J)							\
	slot_val.read(v, base + J);					\
	pm = (bit<32>)0 - (((bit<32>)J - n) >> 31);			\
	x = hdr.elems[J].v & pm;					\
	xm = x | (32w0x80000000 & ~pm);					\
	mx = (int<32>)xm > (int<32>)v ? xm : v;				\
	r = (x & m_fresh) | (v & m_dup) | ((v + x) & m_sum) |		\
	    (mx & m_max);						\
	ovf_acc = ovf_acc | ((v ^ r) & (x ^ r) & m_sum);		\
	slot_val.write(base + J, r);					\
	hdr.elems[J].v = r;

/* one adder per word of the header stack: REPEAT_256 covers it */
#if RINA_TOR_ELEMS != 256
#error "Adders: add_words() adds 256 words; RINA_TOR_ELEMS differs"
#endif

control Adders(inout headers_t hdr, inout metadata_t meta)
{
	register<bit<32>>(RINA_TOR_VALUES) slot_val;
	register<bit<1>>(RINA_TOR_SLOTS) slot_ovf;

	bit<32> base;
	bit<32> n;
	bit<32> m_fresh;
	bit<32> m_dup;
	bit<32> m_sum;
	bit<32> m_max;
	bit<32> ovf_acc;
	bit<32> pm;
	bit<32> v;
	bit<32> x;
	bit<32> xm;
	bit<32> mx;
	bit<32> r;

	/* every word of the packet in one action: one table on bmv2 */
	action add_words()
	{
		REPEAT_256(ADD_ELEM, 0)
	}

	apply {
		bit<1> is_max = (hdr.rina.dtype_op & 0x0f) == RINA_WIRE_MAX ?
				(bit<1>)1 : (bit<1>)0;
		bit<1> ovf = meta.overflow;	/* the input's OVERFLOW flag */
		bit<1> stored;

		base = meta.reg_idx * RINA_TOR_ELEMS;
		n = (bit<32>)hdr.rina.n_elem;
		m_fresh = 0;
		m_dup = 0;
		m_sum = 0;
		m_max = 0;
		if (meta.verdict == RINA_SLOT_FRESH)
			m_fresh = 0xffffffff;
		else if (meta.verdict == RINA_SLOT_DUP_DONE)
			m_dup = 0xffffffff;
		else if (is_max == 1)
			m_max = 0xffffffff;
		else
			m_sum = 0xffffffff;
		ovf_acc = 0;
		slot_ovf.read(stored, meta.reg_idx);
		if (meta.verdict == RINA_SLOT_ADD)
			ovf = ovf | stored;
		else if (meta.verdict == RINA_SLOT_DUP_DONE)
			ovf = stored;
		add_words();
		if ((ovf_acc >> 31) != 0)
			ovf = 1;
		if (meta.verdict == RINA_SLOT_FRESH ||
		    meta.verdict == RINA_SLOT_ADD)
			slot_ovf.write(meta.reg_idx, ovf);
		meta.overflow = ovf;
	}
}

#endif
