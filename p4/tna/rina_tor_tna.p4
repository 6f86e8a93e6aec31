/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Rina INA ToR for the Tofino Native Architecture (Tofino 1; T2NA with
 * -DRINA_T2NA, untested). The same wire protocol and switch behaviour as
 * the v1model program (../rina_tor.p4), control by control, in two
 * ingress passes for a contribution: the first checks, classifies and
 * hands what it found to the second in a recirculation header; the
 * second, on pipe 0 through its recirculation port, holds every slot
 * register: the slot rules over three two-condition stateful ALUs,
 * RINA_TNA_ELEMS int32 adders (one stateful ALU each), the next step.
 * Raw int32 SUM (whose wrap-around a stateful ALU cannot detect) goes to
 * the agent. What differs and why, the pass structure, its cost and the
 * resource report: Documentation/tofino.md.
 *
 * Built by make tofino (p4/build.mk) into build/p4/tna/:
 *   p4c --target tofino --arch tna -g -o build/p4/tna p4/tna/rina_tor_tna.p4
 */
#include <core.p4>
#ifdef RINA_T2NA
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#include "config.p4"
#include "types.p4"
#include "words.p4"
#include "parser.p4"
#include "header_check.p4"
#include "job_classify.p4"
#include "tag_check.p4"
#include "drop_simulator.p4"
#include "l2_forward.p4"
#include "slot_tag.p4"
#include "adders.p4"
#include "next_step.p4"
#include "allgather.p4"
#include "egress_rewrite.p4"
#include "counters.p4"

control RinaIngress(inout headers_t hdr, inout metadata_t meta,
		    in ingress_intrinsic_metadata_t ig_md,
		    in ingress_intrinsic_metadata_from_parser_t prs,
		    inout ingress_intrinsic_metadata_for_deparser_t dp,
		    inout ingress_intrinsic_metadata_for_tm_t tm)
{
	HeaderCheck() header_check;
	JobClassify() job_classify;
	TagCheck() tag_check;
	DropSimulator() drop_sim;
	L2Forward() l2_fwd;
	SlotTag() slot_tag;
	SlotMeta() slot_meta;
	Adders() adders;
	NextStep() next_step;
	AllGather() allgather;
	Counters() counters;

	/*
	 * Both shadow sets of the job's pool: 2 * win entries from
	 * 2 * pool_base (v1model: pool_base + (slot & (win - 1)), plus
	 * RINA_TOR_POOL_SIZE for the other set; the same slots, laid out
	 * so that one mask and one add find them, with set_job's pool_mask
	 * = 2 * win - 1 and pool_base2 = 2 * pool_base). In tables of their
	 * own: a register index must be a field, not an expression; and
	 * the copy into the recirculation header is one more (the add's
	 * two sources and the pad beside the index would be three).
	 */
	action set_index()
	{
		meta.reg_idx = hdr.rina.slot[12:0] & meta.win_mask[12:0];
	}

	table slot_index {
		actions = { set_index; }
		default_action = set_index();
		size = 1;
	}

	action add_base()
	{
		meta.reg_idx = meta.reg_idx + meta.base2[12:0];
	}

	table slot_base {
		actions = { add_base; }
		default_action = add_base();
		size = 1;
	}

	COMPUTE(recirc_idx, hdr.recirc.reg_idx = meta.reg_idx;)

	/* the contribution's checks as fields a table matches 0 against */
	bit<16> d_ring;		/* L - chunk, saturated: 0 when chunk >= L */
	bit<16> d_win;		/* W_t - p_chunk, saturated */
	bit<16> x_member;	/* chunk ^ member: 0 for the member's chunk */
	bit<16> x_own;		/* chunk ^ own_chunk */
	bit<1> job_ok;
	bit<1> go;
	bit<1> ag;
	bit<32> claim_up;	/* cbit | up_bit */

	COMPUTE(contrib_pre,
		d_ring = meta.j_ring_len |-| hdr.rina.chunk;
		d_win = meta.j_win |-| hdr.rina.p_chunk;
		x_member = hdr.rina.chunk ^ meta.j_member;
		x_own = hdr.rina.chunk ^ meta.j_own_chunk;
		meta.full = meta.j_local_mask | meta.up_bit;
		claim_up = meta.cbit | meta.up_bit;
		/* the key's low half is 0 from the first pass's start:
		 * a constant beside a moved field is one source too many */
		hdr.recirc.key[31:16] = hdr.rina.slot;)
	bit<16> hop16;
	bit<16> hops_left;	/* L - hop, saturated (AllGather) */

	COMPUTE(ag_hop, hop16 = (bit<16>)hdr.rina.hop;)
	COMPUTE(ag_left, hops_left = meta.j_ring_len |-| hop16;)
	/* in an action of its own: the pad beside the port (written at
	 * the pass's start) is its container's second source already */
	COMPUTE(recirc_port, hdr.recirc.ingress_port = ig_md.ingress_port;)

	/*
	 * The slot registers' operands. rem: full ^ up_bit for a partial,
	 * full ^ (cbit | up_bit) for the member's own first chunk (no
	 * upstream partial), full ^ cbit for any other contribution; cbit,
	 * the contributor's own bit: the worker's, up_bit for a partial
	 * (v1model's meta.bit; slot_bits tells a duplicate by it). Keyed on
	 * the opcode, not job_verdict's outcome, so that it does not wait
	 * for it; only a contribution that passed recirculates.
	 */
	action ops_contrib()
	{
		hdr.recirc.rem = meta.full ^ meta.cbit;
		hdr.recirc.cbit = meta.cbit;
	}

	action ops_first()
	{
		hdr.recirc.rem = meta.full ^ claim_up;
		hdr.recirc.cbit = meta.cbit;
	}

	action ops_partial()
	{
		hdr.recirc.rem = meta.full ^ meta.up_bit;
		hdr.recirc.cbit = meta.up_bit;
	}

	table operands {
		key = {
			hdr.rina.ver_op[3:0] : ternary @name("op");
			x_member : ternary;
		}
		actions = { ops_contrib; ops_first; ops_partial; }
		size = 4;
		const entries = {
			(RINA_OP_SR_PARTIAL, _) : ops_partial();
			(_, 0) : ops_first();
		}
		default_action = ops_contrib();
	}

	/*
	 * A contribution's second pass (Documentation/tofino.md, "Pass
	 * structure"): the recirculation header carries what the checks
	 * found, the frame goes to the recirculation port of pipe 0, whose
	 * ingress holds every slot register (one pipe's registers, whatever
	 * port the contribution came in on). st_in: the input OVERFLOW
	 * flag and a CE mark (ST_UP_CE for a partial, ST_CE for a
	 * contribution). Constants and action data only: one source.
	 */
	action to_pass2(bit<8> st_in)
	{
		hdr.recirc.st_in = st_in;
		tm.ucast_egress_port = RINA_TNA_RECIRC_PORT;
		meta.recirc = 1;
	}

	action to_pass2_partial(bit<8> st_in)
	{
		to_pass2(st_in);
		hdr.recirc.is_partial = 1;
	}

#define ST_IN(OVF, CE)	((OVF) * 0x02 | (CE))
	table pass2 {
		key = {
			meta.is_partial : exact;
			hdr.rina.flags[4:4] : exact @name("overflow");
			hdr.ipv4.diffserv[1:0] : ternary @name("ecn");
		}
		actions = { to_pass2; to_pass2_partial; }
		size = 8;
		const entries = {
			(1, 0, RINA_ECN_CE) :
				to_pass2_partial(ST_IN(0, RINA_SLOT_ST_UP_CE));
			(1, 1, RINA_ECN_CE) :
				to_pass2_partial(ST_IN(1, RINA_SLOT_ST_UP_CE));
			(1, 0, _) : to_pass2_partial(ST_IN(0, 0));
			(1, 1, _) : to_pass2_partial(ST_IN(1, 0));
			(0, 0, RINA_ECN_CE) :
				to_pass2(ST_IN(0, RINA_SLOT_ST_CE));
			(0, 1, RINA_ECN_CE) :
				to_pass2(ST_IN(1, RINA_SLOT_ST_CE));
			(0, 0, _) : to_pass2(ST_IN(0, 0));
			(0, 1, _) : to_pass2(ST_IN(1, 0));
		}
		default_action = to_pass2(0);
	}

	/* which packet this is for the switch (tor_ctr) */
	action tor_class(bit<8> id, bit<1> f, bit<1> ok)
	{
		meta.tor_id = id;
		meta.fwd = f;
		job_ok = ok;
	}

	action tor_parse_err()
	{
		meta.tor_id = meta.parse_err;
		meta.fwd = 0;
		job_ok = 0;
	}

	table tor_verdict {
		key = {
			meta.is_rina : ternary;
			meta.parse_err : ternary;
			meta.job_hit : ternary;
		}
		actions = { tor_class; tor_parse_err; }
		size = 4;
		const entries = {
			(0, _, _) : tor_class(RINA_TS_NON_RINA, 1, 0);
			(1, RINA_PARSE_OK, 0) :
				tor_class(RINA_PARSE_UNKNOWN_JOB, 1, 0);
			(1, RINA_PARSE_OK, 1) : tor_class(RINA_PARSE_OK, 0, 1);
		}
		default_action = tor_parse_err();
	}

	/* what the job's packet is, in rina_tor.p4's order of tests */
	action job_ev(bit<32> ev, bit<1> f)
	{
		meta.ev = ev;
		meta.fwd = f;
	}

	action job_bypass(bit<32> ev)
	{
		meta.ev = ev;
		meta.fwd = 1;
		hdr.rina.flags[3:3] = 1;	/* SW_BYPASS */
		hdr.udp.checksum = 0;
	}

	action job_contrib()
	{
		meta.ev = 1 << RINA_TC_CONTRIB_IN;
		go = 1;
	}

	action job_partial()
	{
		meta.ev = 1 << RINA_TC_PARTIAL_IN;
		go = 1;
		meta.is_partial = 1;
		meta.one_bit = meta.j_up_bit_idx;
		hdr.recirc.one_bit = meta.j_up_bit_idx;
	}

	action job_ag(bit<32> ev)
	{
		meta.ev = ev;
		ag = 1;
	}

#define C_IN	(32w1 << RINA_TC_CONTRIB_IN)
#define P_IN	(32w1 << RINA_TC_PARTIAL_IN)
#define BAD	(32w1 << RINA_TC_BAD)
#define TOO_LONG	(32w1 << RINA_TC_TOO_LONG)
#define I32	(32w1 << RINA_TNA_TC_INT32_SUM)
#define DATA_CHECKS(OP, IN, GO)						\
	(1, 0, 0, 0, OP, _, RINA_TNA_ELEMS + 1 .. 0xffff, _, _, _, _, _) : \
		job_bypass(IN | TOO_LONG);				\
	(1, 0, 0, 0, OP, _, _, RINA_WIRE_INT32 << 4, _, _, _, _) :	\
		job_bypass(IN | I32);					\
	(1, 0, 0, 0, OP, _, _, _, 0, _, _, _) : job_ev(IN | BAD, 0);	\
	(1, 0, 0, 0, OP, _, _, _, _, 0, _, _) : job_ev(IN | BAD, 0);	\
	(1, 0, 0, 0, OP, _, _, _, _, _, 0, _) : job_ev(IN | BAD, 0);

	table job_verdict {
		key = {
			job_ok : ternary;
			meta.bad_tag : ternary;
			meta.drop : ternary;
			hdr.rina.flags[3:3] : ternary @name("sw_bypass");
			hdr.rina.ver_op[3:0] : ternary @name("op");
			meta.worker_hit : ternary;
			hdr.rina.n_elem : range;
			hdr.rina.dtype_op : ternary;
			d_ring : ternary;
			hdr.rina.p_chunk : ternary;
			d_win : ternary;
			x_member : ternary;
		}
		actions = { job_ev; job_bypass; job_contrib; job_partial;
			    job_ag; NoAction; }
		size = 32;
		const entries = {
			(1, 1, _, _, _, _, _, _, _, _, _, _) :
				job_ev(32w1 << RINA_TC_BAD_TAG, 0);
			(1, 0, 1, _, _, _, _, _, _, _, _, _) :
				job_ev(32w1 << RINA_TC_DROP_SIM, 0);
			(1, 0, 0, 1, _, _, _, _, _, _, _, _) :
				job_ev(32w1 << RINA_TC_BYPASS_IN, 1);
			(1, 0, 0, 0, RINA_OP_SR_CONTRIB, 0, _, _, _, _, _, _) :
				job_ev(C_IN | (32w1 << RINA_TC_NO_WORKER), 1);
			DATA_CHECKS(RINA_OP_SR_CONTRIB, C_IN, job_contrib)
			(1, 0, 0, 0, RINA_OP_SR_CONTRIB, _, _, _, _, _, _, _) :
				job_contrib();
			DATA_CHECKS(RINA_OP_SR_PARTIAL, P_IN, job_partial)
			/* rina_slot_exp_mask(): no partial for chunk i */
			(1, 0, 0, 0, RINA_OP_SR_PARTIAL, _, _, _, _, _, _, 0) :
				job_ev(P_IN | BAD, 0);
			(1, 0, 0, 0, RINA_OP_SR_PARTIAL, _, _, _, _, _, _, _) :
				job_partial();
			(1, 0, 0, 0, RINA_OP_AG_DATA, _, _, _, _, _, _, _) :
				job_ag(32w1 << RINA_TC_AG_IN);
			(1, 0, 0, 0, RINA_OP_ACK, _, _, _, _, _, _, _) :
				job_ag(32w1 << RINA_TC_ACK_IN);
			(1, 0, 0, 0, RINA_OP_NACK, _, _, _, _, _, _, _) :
				job_ev(32w1 << RINA_TC_NACK_IN, 1);
			(1, 0, 0, 0, _, _, _, _, _, _, _, _) :
				job_ev(32w1 << RINA_TC_CTRL_IN, 1);
		}
		default_action = NoAction();
	}

	apply {
		meta.tor_ev = 0;
		meta.ev = 0;
		meta.emit = 0;
		meta.out_ecn = 0;
		meta.fwd = 0;
		meta.recirc = 0;
		go = 0;
		ag = 0;
		job_ok = 0;

		if (!hdr.recirc.isValid()) {
			/* first pass: checks, lookups, AG/ACK, the rest
			 * forwarded; a contribution recirculates. The
			 * recirculation header is filled as the pass goes
			 * (types.p4): its constants first, here. */
			hdr.recirc.setValid();
			hdr.recirc.key[15:0] = 0;
			hdr.recirc.ag_off = 0;
			hdr.recirc.pad_own = 0;
			hdr.recirc.own = 0;
			hdr.recirc.pad_first = 0;
			hdr.recirc.own_first = 0;
			hdr.recirc.pad_partial = 0;
			hdr.recirc.is_partial = 0;
			hdr.recirc.pad_max = 0;
			hdr.recirc.is_max = 0;
			hdr.recirc.pad_tagged = 0;
			hdr.recirc.pad_ring = 0;
			hdr.recirc.ring_gt1 = 0;
			hdr.recirc.pad_port = 0;
			hdr.recirc.pad_idx = 0;
			meta.is_partial = 0;
			meta.in_port = ig_md.ingress_port;
			header_check.apply(hdr, meta);
			job_classify.apply(hdr, meta);
			tag_check.apply(hdr, meta);
			drop_sim.apply(hdr, meta.drop);
			contrib_pre.apply();
			operands.apply();
			ag_hop.apply();
			ag_left.apply();
			recirc_port.apply();
			slot_index.apply();
			tor_verdict.apply();
			job_verdict.apply();
			slot_base.apply();
			recirc_idx.apply();
			if (x_own == 0)
				hdr.recirc.own = 1;
			if (x_member == 0)
				hdr.recirc.own_first = 1;
			if (hdr.rina.dtype_op[3:0] == RINA_WIRE_MAX)
				hdr.recirc.is_max = 1;
			if (meta.j_ring_len > 1)
				hdr.recirc.ring_gt1 = 1;
			if (ag == 1) {
				allgather.apply(hdr, meta, hops_left);
			} else if (go == 1) {
				pass2.apply();
			}
		} else {
			/* second pass, on pipe 0: the slot and its result;
			 * the parser copied the job's fields into meta */
			meta.tor_id = 0xff;
			slot_tag.apply(hdr.recirc, meta);
			slot_meta.apply(hdr, hdr.recirc, meta);
			adders.apply(hdr, hdr.recirc, meta);
			next_step.apply(hdr, hdr.recirc, meta);
		}
		/* only a first pass going to the second keeps it */
		if (meta.recirc == 0)
			hdr.recirc.setInvalid();

		hdr.bridge.setValid();
		hdr.bridge.md.emit = meta.emit;
		hdr.bridge.md.ingress_port = meta.in_port;
		if (meta.emit != 0) {
			tm.mcast_grp_a = meta.j_mgrp;
			hdr.bridge.md.one_bit = meta.one_bit;
			hdr.bridge.md.out_ecn = meta.out_ecn;
			hdr.bridge.md.ack_flags = meta.ack_flags;
			hdr.bridge.md.ack_step = meta.ack_step;
			hdr.bridge.md.ack_slot = meta.ack_slot;
			hdr.bridge.md.ack_seq = meta.ack_seq;
			hdr.bridge.md.job_idx = meta.j_job_idx[7:0];
			hdr.bridge.md.tagged = meta.j_tagged;
			hdr.bridge.md.words = 0;
			if (meta.emit[3:3] == 1 && hdr.elems[0].isValid())
				hdr.bridge.md.words = 1; /* UP: cut an ACK */
		} else if (meta.fwd == 1) {
			l2_fwd.apply(hdr, meta, tm);
		} else if (meta.recirc == 0) {
			dp.drop_ctl = 1;
		}
		counters.apply(meta);
	}
}

control RinaEgress(inout headers_t hdr, inout egress_metadata_t em,
		   in egress_intrinsic_metadata_t eg_md,
		   in egress_intrinsic_metadata_from_parser_t prs,
		   inout egress_intrinsic_metadata_for_deparser_t dp,
		   inout egress_intrinsic_metadata_for_output_port_t op)
{
	EgressRewrite() rewrite;
	DropSimulator() drop_sim;
	CountersOut() counters;

	apply {
		bit<1> drop = 0;

		rewrite.apply(hdr, em, eg_md, dp);
		if (em.keep == 1) {
			drop_sim.apply(hdr, drop);
			if (drop == 1) {
				em.ev_out = RINA_TO_DROP_SIM;
				dp.drop_ctl = 1;
			}
		}
		counters.apply(hdr, em);
	}
}

Pipeline(RinaIngressParser(), RinaIngress(), RinaIngressDeparser(),
	 RinaEgressParser(), RinaEgress(), RinaEgressDeparser()) pipe;

Switch(pipe) main;
