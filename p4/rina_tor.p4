/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Rina INA ToR for the v1model architecture (simple_switch).
 *
 * Racks whose ToR runs this program are one member of the Rina ring: the
 * ToR adds the m local workers' contributions and the upstream member's
 * partial slot by slot, sends the sum to the next ring member, multicasts
 * the rack's own chunk to its workers and its agent, and ACKs at
 * completion; allgather data from upstream goes to the workers, the agent
 * and on to the next member. Everything else is plain L2 switching. One
 * control per file, sizes in configuration.p4; p4/model/ is the C model
 * of this program, control by control, and selftests/tor/vectors/ the
 * packet vectors both must pass.
 * Control plane: Documentation/p4-control-plane.md.
 *
 * Built by make (p4/build.mk) into build/p4/rina_tor.json and its P4Info:
 *   p4c-bm2-ss --std p4-16 --arch v1model -o rina_tor.json \
 *       --p4runtime-files rina_tor.p4info.txtpb p4/rina_tor.p4
 * and run on simple_switch by the tests (p4/README.md).
 */
#include <core.p4>
#include <v1model.p4>

#include "configuration.p4"
#include "headers.p4"
#include "repeat.p4"
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
		    inout standard_metadata_t sm)
{
	HeaderCheck() header_check;
	JobClassify() job_classify;
	TagCheck() tag_check;
	DropSimulator() drop_sim;
	L2Forward() l2_fwd;
	SlotTag() slot_tag;
	Adders() adders;
	NextStep() next_step;
	AllGather() allgather;
	Counters() counters;

	/* window violated, or more than one pass: the agent aggregates */
	action bypass()
	{
		hdr.rina.flags = hdr.rina.flags | RINA_F_SW_BYPASS;
		hdr.udp.checksum = 0;
	}

	apply {
		bit<1> fwd = 0;
		bit<1> go = 1;
		bit<8> op = hdr.rina.ver_op & 0x0f;

		mark_to_drop(sm);
		meta.tor_ev = 0;
		meta.ev = 0;
		meta.emit = 0;
		meta.csum_update = 0;
		meta.drop = 0;
		if (!hdr.ethernet.isValid()) {
			meta.tor_ev = 1 << RINA_TS_L2_RUNT;
		} else if (sm.packet_length > RINA_TOR_FRAME_MAX) {
			meta.tor_ev = 1 << RINA_TS_GIANT;
		} else if (meta.is_rina == 0) {
			meta.tor_ev = 1 << RINA_TS_NON_RINA;
			fwd = 1;
		} else {
			header_check.apply(hdr, meta, sm);
			if (meta.parse_err != RINA_PARSE_OK) {
				meta.tor_ev = (bit<16>)1 << meta.parse_err;
			} else {
				job_classify.apply(hdr, meta);
				if (meta.job_hit == 0) {
					meta.tor_ev = 1 << RINA_PARSE_UNKNOWN_JOB;
					fwd = 1;
				} else {
					meta.tor_ev = 1 << RINA_PARSE_OK;
					tag_check.apply(hdr, meta);
					if (meta.bad_tag == 0)
						drop_sim.apply(hdr, meta);
				}
			}
		}

		if (meta.job_hit == 1 && meta.bad_tag == 1) {
			/* not the job's: neither added nor passed on */
			meta.ev = meta.ev | (1 << RINA_TC_BAD_TAG);
		} else if (meta.job_hit == 1 && meta.drop == 1) {
			meta.ev = meta.ev | (1 << RINA_TC_DROP_SIM);
		} else if (meta.job_hit == 1 &&
			   (hdr.rina.flags & RINA_F_SW_BYPASS) != 0) {
			meta.ev = meta.ev | (1 << RINA_TC_BYPASS_IN);
			fwd = 1;
		} else if (meta.job_hit == 1 &&
			   (op == RINA_OP_SR_CONTRIB ||
			    op == RINA_OP_SR_PARTIAL)) {
			if (op == RINA_OP_SR_CONTRIB) {
				meta.ev = meta.ev | (1 << RINA_TC_CONTRIB_IN);
				if (meta.worker_hit == 0) {
					meta.ev = meta.ev |
						  (1 << RINA_TC_NO_WORKER);
					fwd = 1;
					go = 0;
				}
			} else {
				meta.ev = meta.ev | (1 << RINA_TC_PARTIAL_IN);
				meta.cbit = (bit<32>)1 << meta.j_up_bit_idx;
				meta.one_bit = meta.j_up_bit_idx;
			}
			if (go == 1 && hdr.rina.n_elem > RINA_TOR_ELEMS) {
				meta.ev = meta.ev | (1 << RINA_TC_TOO_LONG);
				bypass();
				fwd = 1;
				go = 0;
			}
			if (go == 1) {
				/* rina_slot_exp_mask() */
				meta.exp_mask = meta.j_local_mask;
				if (hdr.rina.chunk != meta.j_member)
					meta.exp_mask = meta.exp_mask |
						((bit<32>)1 << meta.j_up_bit_idx);
				if (hdr.rina.chunk >= meta.j_ring_len ||
				    hdr.rina.p_chunk == 0 ||
				    hdr.rina.p_chunk >= meta.j_win ||
				    (meta.cbit & meta.exp_mask) == 0) {
					meta.ev = meta.ev | (1 << RINA_TC_BAD);
					go = 0;
				}
			}
			if (go == 1) {
				meta.own = hdr.rina.chunk == meta.j_own_chunk ?
					   (bit<1>)1 : (bit<1>)0;
				meta.overflow = (hdr.rina.flags &
						 RINA_F_OVERFLOW) != 0 ?
						(bit<1>)1 : (bit<1>)0;
				slot_tag.apply(hdr, meta);
				if (meta.verdict == RINA_SLOT_STALE) {
					meta.ev = meta.ev | (1 << RINA_TC_STALE);
					next_step.apply(hdr, meta);
				} else if (meta.verdict == RINA_SLOT_COLLISION) {
					meta.ev = meta.ev |
						  (1 << RINA_TC_COLLISION);
					bypass();
					fwd = 1;
				} else if (meta.verdict == RINA_SLOT_DUP) {
					meta.ev = meta.ev | (1 << RINA_TC_DUP);
				} else {
					adders.apply(hdr, meta);
					next_step.apply(hdr, meta);
				}
			}
		} else if (meta.job_hit == 1 &&
			   (op == RINA_OP_AG_DATA || op == RINA_OP_ACK)) {
			allgather.apply(hdr, meta);
			if (meta.emit == 0)
				fwd = 1;
		} else if (meta.job_hit == 1 && op == RINA_OP_NACK) {
			meta.ev = meta.ev | (1 << RINA_TC_NACK_IN);
			fwd = 1;
		} else if (meta.job_hit == 1) {
			meta.ev = meta.ev | (1 << RINA_TC_CTRL_IN);
			fwd = 1;
		}

		if (meta.emit != 0)
			sm.mcast_grp = meta.j_mgrp;
		else if (fwd == 1)
			l2_fwd.apply(hdr, meta, sm);
		counters.apply(meta);
	}
}

control RinaEgress(inout headers_t hdr, inout metadata_t meta,
		   inout standard_metadata_t sm)
{
	EgressRewrite() rewrite;
	DropSimulator() drop_sim;
	CountersOut() counters;

	apply {
		meta.ev_out = 0;
		meta.csum_update = 0;
		rewrite.apply(hdr, meta, sm);
		if (meta.emit != 0 && meta.drop == 0) {
			drop_sim.apply(hdr, meta);
			if (meta.drop == 1) {
				meta.ev_out = 1 << RINA_TO_DROP_SIM;
				mark_to_drop(sm);
			}
		}
		counters.apply(meta);
	}
}

V1Switch(RinaParser(), RinaVerifyChecksum(), RinaIngress(), RinaEgress(),
	 RinaComputeChecksum(), RinaDeparser()) main;
