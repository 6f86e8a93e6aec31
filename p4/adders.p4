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

#define ADD_ELEM(J)							\
	if (hdr.elems[J].isValid()) {					\
		slot_val.read(v, base + J);				\
		x = hdr.elems[J].v;					\
		if (meta.verdict == RINA_SLOT_FRESH) {			\
			r = x;						\
		} else if (meta.verdict == RINA_SLOT_DUP_DONE) {	\
			r = v;						\
		} else if (is_max == 1) {				\
			r = ((int<32>)x > (int<32>)v) ? x : v;		\
		} else {						\
			r = v + x;					\
			if ((((v ^ r) & (x ^ r)) >> 31) != 0)		\
				ovf = 1;				\
		}							\
		if (meta.verdict != RINA_SLOT_DUP_DONE)			\
			slot_val.write(base + J, r);			\
		hdr.elems[J].v = r;					\
	} else if (meta.verdict == RINA_SLOT_FRESH) {			\
		slot_val.write(base + J, 0);				\
	}

control Adders(inout headers_t hdr, inout metadata_t meta)
{
	register<bit<32>>(RINA_TOR_VALUES) slot_val;
	register<bit<1>>(RINA_TOR_SLOTS) slot_ovf;

	apply {
		bit<32> base = meta.reg_idx * RINA_TOR_ELEMS;
		bit<1> is_max = (hdr.rina.dtype_op & 0x0f) == RINA_WIRE_MAX ?
				(bit<1>)1 : (bit<1>)0;
		bit<1> ovf = meta.overflow;	/* the input's OVERFLOW flag */
		bit<1> stored;
		bit<32> v;
		bit<32> x;
		bit<32> r;

		slot_ovf.read(stored, meta.reg_idx);
		if (meta.verdict == RINA_SLOT_ADD)
			ovf = ovf | stored;
		else if (meta.verdict == RINA_SLOT_DUP_DONE)
			ovf = stored;
		ADD_ELEM(0)
		ADD_ELEM(1)
		ADD_ELEM(2)
		ADD_ELEM(3)
		ADD_ELEM(4)
		ADD_ELEM(5)
		ADD_ELEM(6)
		ADD_ELEM(7)
		ADD_ELEM(8)
		ADD_ELEM(9)
		ADD_ELEM(10)
		ADD_ELEM(11)
		ADD_ELEM(12)
		ADD_ELEM(13)
		ADD_ELEM(14)
		ADD_ELEM(15)
		ADD_ELEM(16)
		ADD_ELEM(17)
		ADD_ELEM(18)
		ADD_ELEM(19)
		ADD_ELEM(20)
		ADD_ELEM(21)
		ADD_ELEM(22)
		ADD_ELEM(23)
		ADD_ELEM(24)
		ADD_ELEM(25)
		ADD_ELEM(26)
		ADD_ELEM(27)
		ADD_ELEM(28)
		ADD_ELEM(29)
		ADD_ELEM(30)
		ADD_ELEM(31)
		ADD_ELEM(32)
		ADD_ELEM(33)
		ADD_ELEM(34)
		ADD_ELEM(35)
		ADD_ELEM(36)
		ADD_ELEM(37)
		ADD_ELEM(38)
		ADD_ELEM(39)
		ADD_ELEM(40)
		ADD_ELEM(41)
		ADD_ELEM(42)
		ADD_ELEM(43)
		ADD_ELEM(44)
		ADD_ELEM(45)
		ADD_ELEM(46)
		ADD_ELEM(47)
		ADD_ELEM(48)
		ADD_ELEM(49)
		ADD_ELEM(50)
		ADD_ELEM(51)
		ADD_ELEM(52)
		ADD_ELEM(53)
		ADD_ELEM(54)
		ADD_ELEM(55)
		ADD_ELEM(56)
		ADD_ELEM(57)
		ADD_ELEM(58)
		ADD_ELEM(59)
		ADD_ELEM(60)
		ADD_ELEM(61)
		ADD_ELEM(62)
		ADD_ELEM(63)
		if (meta.verdict == RINA_SLOT_FRESH ||
		    meta.verdict == RINA_SLOT_ADD)
			slot_ovf.write(meta.reg_idx, ovf);
		meta.overflow = ovf;
	}
}

#endif
