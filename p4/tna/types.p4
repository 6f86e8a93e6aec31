/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Headers, metadata and the bridged header of the TNA Rina ToR. The wire
 * headers are ../headers.p4's (shared with v1model); the payload stack is
 * RINA_TNA_PARSE_WORDS long instead of RINA_TOR_ELEMS.
 */
#ifndef _RINA_TNA_TYPES_P4_
#define _RINA_TNA_TYPES_P4_

#define RINA_TNA
#include "../headers.p4"

/*
 * What ingress hands to egress ahead of the frame (not on the wire).
 * Small: Tofino 1's egress parser reads at most 160 bytes, and the
 * replica that becomes the ACK to upstream parses the payload words
 * after it. The job's source address comes from egress's job_src table.
 * @flexible: the compiler orders and pads the fields, so that each one
 * sits where the one action copying it into the header can reach it
 * with the two sources a container allows (Tofino's action constraints).
 */
@flexible
struct bridge_md_t {
	bit<8>	emit;		/* RINA_EMIT_*: 0 for plain traffic */
	bit<8>	one_bit;
	bit<8>	out_ecn;
	bit<8>	ack_flags;
	bit<8>	ack_step;
	bit<8>	job_idx;
	bit<1>	words;		/* payload words parsed again in egress */
	bit<1>	tagged;
	bit<9>	ingress_port;
	bit<16>	ack_slot;
	bit<32>	ack_seq;
}

header bridge_t {
	bridge_md_t	md;
}

/*
 * What the first ingress pass hands to the second (Documentation/
 * tofino.md, "Pass structure"): ahead of the frame on the recirculation
 * port only, never on the wire. The job's fields the second pass needs
 * (it does not look the job up again) and the contribution's operands of
 * the slot registers. The first pass writes each field where it is
 * computed, not by one copy at the end: an action may give a container
 * two sources at most (or one and a constant, not shifted), and one copy
 * of 20 fields packed in this header needed far more. So the fields
 * start on a byte, except the flags, the index and the port beside
 * their pads; the pass's first action writes every constant (pads,
 * flags, the key's low half), so that a later action finds at most the
 * field it writes and one pad in a container. The second pass reads the
 * fields in place, the job's through its parser (no action).
 */
header recirc_t {
	bit<32>	key;		/* wire slot << 16 */
	bit<32>	epoch32;
	bit<32>	rem;		/* full & ~claim */
	bit<32>	cbit;
	bit<32>	ag_off;
	bit<16>	mgrp;
	bit<16>	src_id;
	bit<16>	job_idx;
	bit<3>	pad_idx;
	slot_idx_t reg_idx;
	bit<8>	one_bit;
	bit<8>	st_in;
	bit<7>	pad_own;
	bit<1>	own;
	bit<7>	pad_first;
	bit<1>	own_first;
	bit<7>	pad_partial;
	bit<1>	is_partial;
	bit<7>	pad_max;
	bit<1>	is_max;
	bit<7>	pad_tagged;
	bit<1>	tagged;
	bit<7>	pad_ring;
	bit<1>	ring_gt1;	/* ring_len > 1 */
	bit<7>	pad_port;
	bit<9>	ingress_port;	/* where the frame came in */
}

struct headers_t {
	bridge_t	bridge;
	recirc_t	recirc;
	ethernet_t	ethernet;
	ipv4_t		ipv4;
	udp_t		udp;
	rina_t		rina;
	rina_elem_t[RINA_TNA_PARSE_WORDS] elems;
	rina_tag_t	tag;
}

/* the names of ../headers.p4's metadata_t where the meaning is the same */
struct metadata_t {
	bit<1>	is_rina;
	bit<8>	parse_err;
	bit<1>	job_hit;
	bit<1>	worker_hit;
	bit<1>	bad_tag;
	bit<1>	drop;
	/* set_job */
	bit<16>	j_job_idx;
	bit<16>	j_pool_base;
	bit<16>	j_win;
	bit<16>	j_member;
	bit<16>	j_ring_len;
	bit<16>	j_own_chunk;
	bit<8>	j_up_bit_idx;
	bit<32>	j_local_mask;
	bit<16>	j_mgrp;
	bit<48>	j_agent_mac;
	bit<32>	agent_ip;
	bit<16>	agent_port;
	bit<1>	j_tagged;
	bit<64>	j_tag;
	/* derived in the pipeline (v1model computes them inline) */
	bit<16>	win_mask;	/* 2 * win - 1: both shadow sets */
	bit<16>	base2;		/* 2 * pool_base */
	bit<32>	up_bit;
	bit<32>	full;		/* local_mask | up_bit */
	bit<16>	ctr_base;	/* job_idx * RINA_TNA_CTR_STRIDE */
	/* contribution */
	bit<32>	cbit;
	bit<8>	one_bit;
	bit<1>	is_partial;
	slot_idx_t reg_idx;
	bit<4>	p_age;		/* SlotTag's stateful predicates */
	bit<4>	p_tag;
	bit<32>	old_bitmap;	/* missing before this packet */
	bit<32>	seen;		/* old_bitmap & cbit: 0 for a duplicate */
	bit<32>	now_left;	/* old_bitmap & rem: 0 when this completes */
	bit<8>	emit_done;	/* what a completing packet emits */
	bit<8>	emit_dd;	/* what a DUP_DONE contribution emits */
	bit<1>	fwd;		/* plain forwarding (l2_fwd) */
	bit<1>	recirc;		/* to the second pass */
	bit<9>	in_port;	/* where the frame came in (first pass) */
	bit<8>	verdict;
	bit<1>	done_now;
	bit<1>	overflow;
	bit<8>	s_state;
	bit<8>	s_exp;
	bit<16>	s_ncontrib;
	/* emission */
	bit<8>	emit;
	bit<32>	ack_seq;
	bit<16>	ack_slot;
	bit<8>	ack_flags;
	bit<8>	ack_step;
	bit<8>	out_ecn;
	/* counter events */
	bit<32>	ev;
	bit<16>	tor_ev;
	bit<16>	ctr_a;
	bit<16>	ctr_b;
	bit<16>	ctr_c;
	bit<1>	cnt_a;		/* ctr_a holds an event to count */
	bit<1>	cnt_b;
	bit<1>	cnt_c;
	bit<8>	tor_id;
}

struct egress_metadata_t {
	bit<8>	rw_cls;
	bit<8>	rw_bit;
	bit<48>	rw_mac;
	bit<32>	rw_ip;
	bit<16>	rw_port;
	bit<1>	keep;
	bit<1>	csum;
	bit<8>	ev_out;		/* one RINA_TO_* id, 0xff for none */
	bit<48>	agent_mac;	/* job_src */
	bit<32>	agent_ip;
	bit<16>	agent_port;
	bit<16>	src_id;
	bit<16>	ctr;
}

#endif
