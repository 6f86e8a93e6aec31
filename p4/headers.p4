/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Headers and metadata of the Rina INA ToR (p4/model/rina_tor_model.h
 * holds the same fields for the C model). The header types are shared
 * with the TNA program (p4/tna/), which defines RINA_TNA and brings its
 * own headers_t and metadata_t (p4/tna/types.p4).
 */
#ifndef _RINA_HEADERS_P4_
#define _RINA_HEADERS_P4_

header ethernet_t {
	bit<48>	dst_addr;
	bit<48>	src_addr;
	bit<16>	ether_type;
}

header ipv4_t {
	bit<8>	ver_ihl;
	bit<8>	diffserv;
	bit<16>	total_len;
	bit<16>	identification;
	bit<16>	flags_frag;
	bit<8>	ttl;
	bit<8>	protocol;
	bit<16>	hdr_checksum;
	bit<32>	src_addr;
	bit<32>	dst_addr;
}

header udp_t {
	bit<16>	src_port;
	bit<16>	dst_port;
	bit<16>	length;
	bit<16>	checksum;
}

/* struct rina_hdr, 28 bytes */
header rina_t {
	bit<8>	ver_op;		/* version << 4 | opcode */
	bit<8>	flags;
	bit<16>	job_id;
	bit<16>	round;
	bit<8>	step;
	bit<8>	hop;
	bit<16>	src_id;
	bit<16>	chunk;
	bit<32>	seq;
	bit<16>	slot;
	bit<16>	n_elem;
	bit<16>	p_chunk;
	bit<16>	num_contrib;
	bit<8>	exp;		/* int8 */
	bit<8>	dtype_op;
	bit<16>	rsvd;
}

header rina_elem_t {
	bit<32>	v;
}

/* the job's data tag after the payload (rsvd RINA_X_TAG) */
header rina_tag_t {
	bit<64>	tag;
}

#ifndef RINA_TNA
struct headers_t {
	ethernet_t	ethernet;
	ipv4_t		ipv4;
	udp_t		udp;
	rina_t		rina;
	rina_elem_t[RINA_TOR_ELEMS] elems;
	rina_tag_t	tag;
}

/* User metadata; v1model copies it to every egress replica. */
struct metadata_t {
	bit<1>	is_rina;
	bit<8>	parse_err;
	bit<16>	elems_left;	/* parser loop counter */
	bit<1>	job_hit;
	bit<1>	worker_hit;
	/* set_job parameters */
	bit<16>	j_job_idx;
	bit<16>	j_epoch;
	bit<16>	j_pool_base;
	bit<16>	j_win;
	bit<16>	j_member;
	bit<16>	j_ring_len;
	bit<16>	j_own_chunk;
	bit<8>	j_up_bit_idx;
	bit<32>	j_local_mask;
	bit<16>	j_mgrp;
	bit<16>	j_src_id;
	bit<48>	j_agent_mac;
	bit<32>	agent_ip;
	bit<16>	agent_port;
	bit<1>	j_tagged;	/* the job's packets carry j_tag */
	bit<64>	j_tag;
	bit<1>	bad_tag;	/* TagCheck: not the job's */
	/* contribution */
	bit<32>	cbit;		/* contributor bit, one-hot */
	bit<8>	one_bit;	/* its index */
	bit<32>	exp_mask;
	bit<1>	own;
	bit<32>	reg_idx;
	bit<8>	verdict;
	bit<1>	done_now;
	bit<1>	overflow;
	/* the slot registers as read (and as written) */
	bit<16>	s_epoch;
	bit<16>	s_round;
	bit<32>	s_seq;
	bit<16>	s_id;
	bit<32>	s_bitmap;
	bit<8>	s_state;
	bit<8>	s_exp;
	bit<16>	s_ncontrib;
	/* emission */
	bit<8>	emit;
	bit<32>	ack_seq;
	bit<16>	ack_slot;
	bit<8>	ack_flags;
	bit<8>	ack_step;
	bit<8>	out_ecn;	/* ECN field of kept replicas */
	bit<1>	csum_update;
	bit<1>	drop;
	/* counter events */
	bit<32>	ev;
	bit<32>	ev_out;
	bit<16>	tor_ev;
	/* egress replica */
	bit<8>	rw_cls;
	bit<8>	rw_bit;
	bit<48>	rw_mac;
	bit<32>	rw_ip;
	bit<16>	rw_port;
}
#endif /* RINA_TNA */

#endif
