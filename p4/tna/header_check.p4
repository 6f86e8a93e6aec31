/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * HeaderCheck on Tofino: ../header_check.p4's tests (core/wire.h
 * rina_hdr_check()) in its order, on the UDP payload length, and the
 * agreement of the IPv4 and UDP lengths. Each test is a flag first (a
 * gateway compares one field with a constant), then one ternary table
 * picks the first failing one, as v1model's if-else chain does (a chain
 * of gateways would take a stage each). Not the frame length: Tofino 1
 * ingress has no packet length (Documentation/tofino.md).
 */
#ifndef _RINA_TNA_HEADER_CHECK_P4_
#define _RINA_TNA_HEADER_CHECK_P4_

/* the bit patterns of HeaderCheck's two bounds (apply, below) */
#if 8 + RINA_HDR_LEN != 36 || RINA_MAX_ELEMS != 1024
#error "HeaderCheck: f_short and f_over test 36 and 1024 by their bits"
#endif

control HeaderCheck(in headers_t hdr, inout metadata_t meta)
{
	bit<16> w4;		/* n_elem * 4 */
	bit<16> ip_udp;		/* IPv4 total length - UDP length */
	bit<16> rest;		/* UDP length - n_elem * 4 */
	/* one flag per test, each written once: a field written twice
	 * takes a stage per write */
	bit<1> f_inval;
	bit<1> f_short;
	bit<1> f_ver;
	bit<1> f_op_lo;
	bit<1> f_op_hi;
	bit<1> f_over;
	bit<1> f_tag;		/* rsvd RINA_X_TAG */
	bit<1> f_mac;		/* rsvd RINA_X_MAC */
	bit<1> f_rsvd;		/* rsvd != 0 */
	bit<1> f_len0;		/* length wrong without a trailer */
	bit<1> f_len8;		/* length wrong with one */
	bit<1> f_dtype_d;
	bit<1> f_dtype_o;
	bit<1> f_zero;
	bit<1> f_ctrl4;
	bit<1> f_ctrl8;
	bit<1> f_ip;

	COMPUTE(hc_pre,
		w4 = hdr.rina.n_elem << 2;
		ip_udp = hdr.ipv4.total_len - hdr.udp.length;)
	COMPUTE(hc_rest, rest = hdr.udp.length - w4;)

	action set_err(bit<8> err)
	{
		meta.parse_err = err;
	}

	/* the first failing test, in rina_hdr_check()'s order */
	table verdict {
		key = {
			f_inval : ternary;
			f_short : ternary;
			f_ver : ternary;
			f_op_lo : ternary;
			f_op_hi : ternary;
			f_over : ternary;
			f_tag : ternary;
			f_mac : ternary;
			f_rsvd : ternary;
			f_len0 : ternary;
			f_len8 : ternary;
			hdr.rina.ver_op[3:0] : ternary @name("op");
			f_dtype_d : ternary;
			f_dtype_o : ternary;
			f_zero : ternary;
			f_ctrl4 : ternary;
			f_ctrl8 : ternary;
			f_ip : ternary;
		}
		actions = { set_err; }
		size = 32;
		/* inval short ver oplo ophi over tag mac rsvd len0 len8 op
		 * dtd dto zero c4 c8 ip */
		const entries = {
			(1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_RUNT);
			(_, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_RUNT);
			(_, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_VERSION);
			(_, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_OPCODE);
			(_, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_OPCODE);
			(_, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_OVERSIZE);
			(_, _, _, _, _, _, 1, _, _, _, 1, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, _, 1, _, _, 1, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, 0, 0, _, 1, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, 0, 0, 1, _, _, _, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_FIELD);
			(_, _, _, _, _, _, _, _, 1, _, _, 6, _, _, _, _, _, _) :
				set_err(RINA_PARSE_BAD_FIELD);
#define HC_DATA(OP)							\
			(_, _, _, _, _, _, _, _, _, _, _, OP, 1, _, _, _, _, _) : \
				set_err(RINA_PARSE_BAD_DTYPE);		\
			(_, _, _, _, _, _, _, _, _, _, _, OP, _, 1, _, _, _, _) : \
				set_err(RINA_PARSE_BAD_DTYPE);		\
			(_, _, _, _, _, _, _, _, _, _, _, OP, _, _, 1, _, _, _) : \
				set_err(RINA_PARSE_BAD_LENGTH);
			HC_DATA(1) HC_DATA(2) HC_DATA(3)
			(_, _, _, _, _, _, _, _, _, _, _, 6, _, _, _, 1, 1, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, _, _, _, _, _, 4, _, _, 1, _, _, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, _, _, _, _, _, 5, _, _, 1, _, _, _) :
				set_err(RINA_PARSE_BAD_LENGTH);
			(_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1) :
				set_err(RINA_PARSE_BAD_LENGTH);
		}
		default_action = set_err(RINA_PARSE_OK);
	}

	apply {
		hc_pre.apply();
		hc_rest.apply();
		f_inval = 0; f_short = 0; f_ver = 0; f_op_lo = 0; f_op_hi = 0;
		f_over = 0; f_tag = 0; f_mac = 0; f_rsvd = 0; f_len0 = 0;
		f_len8 = 0; f_dtype_d = 0; f_dtype_o = 0; f_zero = 0;
		f_ctrl4 = 0; f_ctrl8 = 0; f_ip = 0;
		if (!hdr.rina.isValid())
			f_inval = 1;
		/* the two comparisons below by their bits: a gateway
		 * compares at most 12 bits of a field by range, and 16-bit
		 * bounds other than 2^k cost a stage more computed */
		if (hdr.udp.length[15:6] == 0 &&	/* < 8 + HDR_LEN */
		    (hdr.udp.length[5:5] == 0 || hdr.udp.length[4:2] == 0))
			f_short = 1;
		if (hdr.rina.ver_op[7:4] != RINA_VERSION)
			f_ver = 1;
		if (hdr.rina.ver_op[3:0] == 0)
			f_op_lo = 1;
		if (hdr.rina.ver_op[3:0] > RINA_OP_CTRL)
			f_op_hi = 1;
		if (hdr.rina.n_elem[15:11] != 0 ||	/* > MAX_ELEMS */
		    (hdr.rina.n_elem[10:10] == 1 && hdr.rina.n_elem[9:0] != 0))
			f_over = 1;
		if (hdr.rina.rsvd == RINA_X_TAG)
			f_tag = 1;
		if (hdr.rina.rsvd == RINA_X_MAC)
			f_mac = 1;
		if (hdr.rina.rsvd != 0)
			f_rsvd = 1;
		if (rest != 8 + RINA_HDR_LEN)
			f_len0 = 1;
		if (rest != 8 + RINA_HDR_LEN + RINA_TAG_LEN)
			f_len8 = 1;
		if (hdr.rina.dtype_op[7:4] > RINA_WIRE_INT32)
			f_dtype_d = 1;
		if (hdr.rina.dtype_op[3:0] > RINA_WIRE_MAX)
			f_dtype_o = 1;
		if (hdr.rina.n_elem == 0)
			f_zero = 1;
		if (hdr.rina.n_elem != RINA_CTRL_WORDS)
			f_ctrl4 = 1;
		if (hdr.rina.n_elem != RINA_CTRL_AUTH_WORDS)
			f_ctrl8 = 1;
		if (ip_udp != 20)
			f_ip = 1;
		verdict.apply();
	}
}

#endif
