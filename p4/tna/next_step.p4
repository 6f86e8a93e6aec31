/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NextStep on Tofino, in the second ingress pass: ../next_step.p4's
 * completion and next-step rules unchanged (partial to the next member,
 * own chunk as AG_DATA to the rack, the agent and the next member, ACK
 * at DONE; re-emission of a done slot; the ACK again for a stale
 * upstream partial; a collision bypassed to the agent), as three tables
 * rather than v1model's if-else chain, which on Tofino takes a stage per
 * conditional write (7 stages where these take 2):
 *   plan    (before the slot registers answer) the emission of a
 *           completing and of a DUP_DONE packet, and the ACK's fields;
 *   ecn     rina_slot_result_ecn();
 *   result  by done_now, verdict, partial or not, own or not and the
 *           slot state's OVERFLOW and UP_CE bits: what is emitted, the
 *           result header, the counter events.
 * L * p_chunk comes from JobClassify's ag_seq table (recirc.ag_off).
 */
#ifndef _RINA_TNA_NEXT_STEP_P4_
#define _RINA_TNA_NEXT_STEP_P4_

/* flags[7:2] of a result: FROM_SWITCH, OVERFLOW, own: AG_PHASE, OWN_FINAL
 * (RETX is bit 0, LAST, bit 1, is kept) */
#define NS_HI(OWN, OVF)	((RINA_F_FROM_SWITCH | (OVF) * RINA_F_OVERFLOW | \
	(OWN) * (RINA_F_AG_PHASE | RINA_F_OWN_FINAL)) >> 2)
#define NS_ACKF(UPCE)	(RINA_F_FROM_SWITCH | (UPCE) * RINA_F_ECN_ECHO)
#define NS_EV(ID)	(32w1 << RINA_TC_##ID)

control NextStep(inout headers_t hdr, in recirc_t r, inout metadata_t meta)
{
	/* the emissions of ../next_step.p4, before the slot is known */
	action set_plan(bit<8> done, bit<8> dd)
	{
		meta.emit_done = done;
		meta.emit_dd = dd;
		meta.ack_seq = hdr.rina.seq;
		meta.ack_slot = hdr.rina.slot - hdr.rina.p_chunk;
		meta.ack_step = hdr.rina.step;
	}

#define UP	RINA_EMIT_UP
#define OWN_OUT	(RINA_EMIT_LOCAL | RINA_EMIT_AGENT)
	table plan {
		key = {
			r.own : exact;
			r.own_first : exact;
			r.ring_gt1 : exact;
		}
		actions = { set_plan; }
		size = 8;
		const entries = {
			(0, 0, 0) : set_plan(UP | RINA_EMIT_NEXT, RINA_EMIT_NEXT);
			(0, 0, 1) : set_plan(UP | RINA_EMIT_NEXT, RINA_EMIT_NEXT);
			(0, 1, 0) : set_plan(RINA_EMIT_NEXT, RINA_EMIT_NEXT);
			(0, 1, 1) : set_plan(RINA_EMIT_NEXT, RINA_EMIT_NEXT);
			(1, 0, 0) : set_plan(UP | OWN_OUT,
					     RINA_EMIT_ONE | RINA_EMIT_AGENT);
			(1, 0, 1) : set_plan(UP | OWN_OUT | RINA_EMIT_NEXT,
					     RINA_EMIT_ONE | RINA_EMIT_AGENT);
			(1, 1, 0) : set_plan(OWN_OUT,
					     RINA_EMIT_ONE | RINA_EMIT_AGENT);
			(1, 1, 1) : set_plan(OWN_OUT | RINA_EMIT_NEXT,
					     RINA_EMIT_ONE | RINA_EMIT_AGENT);
		}
		default_action = set_plan(0, 0);
	}
#undef UP
#undef OWN_OUT

	action set_ecn(bit<8> ecn)
	{
		meta.out_ecn = ecn;
	}

	/* rina_slot_result_ecn(): only a result's replicas carry it */
	table ecn {
		key = {
			meta.s_state[2:2] : ternary @name("st_ce");
			hdr.ipv4.diffserv[1:0] : ternary @name("ecn");
		}
		actions = { set_ecn; }
		size = 4;
		const entries = {
			(1, _) : set_ecn(RINA_ECN_CE);
			(0, RINA_ECN_NOT_ECT) : set_ecn(RINA_ECN_NOT_ECT);
		}
		default_action = set_ecn(RINA_ECN_ECT0);
	}

	/* a result: the header, then AG_DATA (own chunk) or a partial */
	action result_of(bit<6> hi, bit<1> retx, bit<8> ackf, bit<32> ev)
	{
		hdr.rina.flags[7:2] = hi;
		hdr.rina.flags[0:0] = retx;
		hdr.rina.src_id = r.src_id;
		hdr.rina.num_contrib = meta.s_ncontrib;
		hdr.rina.exp = meta.s_exp;
		meta.ack_flags = ackf;
		meta.ev = ev;
	}

	action done_own(bit<6> hi, bit<8> ackf, bit<32> ev)
	{
		result_of(hi, 0, ackf, ev);
		meta.emit = meta.emit_done;
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_AG_DATA;
		hdr.rina.seq = hdr.rina.seq + r.ag_off;
		hdr.rina.slot = 0;
		hdr.rina.hop = 0;
	}

	action done_next(bit<6> hi, bit<8> ackf, bit<32> ev)
	{
		result_of(hi, 0, ackf, ev);
		meta.emit = meta.emit_done;
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_SR_PARTIAL;
		hdr.rina.slot = hdr.rina.slot + hdr.rina.p_chunk;
		hdr.rina.step = hdr.rina.step + 1;
	}

	action dd_own(bit<6> hi, bit<8> ackf, bit<32> ev)
	{
		result_of(hi, 1, ackf, ev);
		meta.emit = meta.emit_dd;
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_AG_DATA;
		hdr.rina.seq = hdr.rina.seq + r.ag_off;
		hdr.rina.slot = 0;
		hdr.rina.hop = 0;
	}

	action dd_next(bit<6> hi, bit<8> ackf, bit<32> ev)
	{
		result_of(hi, 1, ackf, ev);
		meta.emit = meta.emit_dd;
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_SR_PARTIAL;
		hdr.rina.slot = hdr.rina.slot + hdr.rina.p_chunk;
		hdr.rina.step = hdr.rina.step + 1;
	}

	/* the ACK again to the upstream member (a partial already done) */
	action ack_up(bit<8> ackf, bit<32> ev)
	{
		meta.emit = RINA_EMIT_UP;
		meta.ack_flags = ackf;
		meta.ev = ev;
	}

	action count_only(bit<32> ev)
	{
		meta.emit = 0;
		meta.ev = ev;
	}

	/* window violated: to the agent, SW_BYPASS */
	action collide()
	{
		meta.emit = 0;
		meta.ev = NS_EV(COLLISION);
		meta.fwd = 1;
		hdr.rina.flags[3:3] = 1;
		hdr.udp.checksum = 0;
	}

	action nothing()
	{
		meta.emit = 0;
		meta.ev = 0;
	}

#define NS_DONE(OWN, OVF, UPCE, ACT)					\
	(1, _, _, OWN, OVF, UPCE) : ACT(NS_HI(OWN, OVF), NS_ACKF(UPCE),	\
		NS_EV(SLOT_DONE) | (OVF) * NS_EV(OVERFLOW));
#define NS_DD(OWN, OVF, UPCE, ACT)					\
	(0, RINA_SLOT_DUP_DONE, 0, OWN, OVF, UPCE) :			\
		ACT(NS_HI(OWN, OVF), NS_ACKF(UPCE),			\
		    NS_EV(DUP) | NS_EV(REEMIT));
#define NS_OVF_UPCE(M, OWN, ACT)					\
	M(OWN, 0, 0, ACT) M(OWN, 0, 1, ACT) M(OWN, 1, 0, ACT)		\
	M(OWN, 1, 1, ACT)

	table result {
		key = {
			meta.done_now : ternary;
			meta.verdict : ternary;
			r.is_partial : ternary;
			r.own : ternary;
			meta.s_state[1:1] : ternary @name("st_ovf");
			meta.s_state[3:3] : ternary @name("st_up_ce");
		}
		actions = { done_own; done_next; dd_own; dd_next; ack_up;
			    count_only; collide; nothing; }
		size = 32;
		const entries = {
			NS_OVF_UPCE(NS_DONE, 1, done_own)
			NS_OVF_UPCE(NS_DONE, 0, done_next)
			(0, RINA_SLOT_DUP_DONE, 1, _, _, 0) :
				ack_up(NS_ACKF(0), NS_EV(DUP) | NS_EV(REEMIT));
			(0, RINA_SLOT_DUP_DONE, 1, _, _, 1) :
				ack_up(NS_ACKF(1), NS_EV(DUP) | NS_EV(REEMIT));
			NS_OVF_UPCE(NS_DD, 1, dd_own)
			NS_OVF_UPCE(NS_DD, 0, dd_next)
			(0, RINA_SLOT_STALE, 1, _, _, _) :
				ack_up(NS_ACKF(0), NS_EV(STALE));
			(0, RINA_SLOT_STALE, _, _, _, _) :
				count_only(NS_EV(STALE));
			(0, RINA_SLOT_DUP, _, _, _, _) :
				count_only(NS_EV(DUP));
			(0, RINA_SLOT_COLLISION, _, _, _, _) : collide();
		}
		default_action = nothing();
	}

	apply {
		plan.apply();
		ecn.apply();
		result.apply();
	}
}

#endif
