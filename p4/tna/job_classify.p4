/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * JobClassify on Tofino: ../job_classify.p4's tables with the same keys
 * and action parameters, set_job with two more (pool_mask = 2 * win - 1,
 * pool_base2 = 2 * pool_base) and set_worker with one (cbit = 1 <<
 * bit_idx): one pass has no stage to spare for them,
 * and what Tofino cannot
 * compute inline: shifts by a packet-dependent amount and the product
 * L * p_chunk come from small tables (bit_of, ag_seq).
 */
#ifndef _RINA_TNA_JOB_CLASSIFY_P4_
#define _RINA_TNA_JOB_CLASSIFY_P4_

control JobClassify(inout headers_t hdr, inout metadata_t meta)
{
	action set_job(bit<16> job_idx, bit<16> epoch, bit<16> pool_base,
		       bit<16> win, bit<16> member, bit<16> ring_len,
		       bit<16> own_chunk, bit<8> up_bit_idx,
		       bit<32> local_mask, bit<16> mgrp, bit<16> src_id,
		       bit<48> agent_mac, bit<32> agent_ip, bit<16> agent_port,
		       bit<1> tagged, bit<64> tag, bit<16> pool_mask,
		       bit<16> pool_base2)
	{
		meta.job_hit = 1;
		meta.j_job_idx = job_idx;
		meta.j_pool_base = pool_base;
		meta.j_win = win;
		meta.j_member = member;
		meta.j_ring_len = ring_len;
		meta.j_own_chunk = own_chunk;
		meta.j_up_bit_idx = up_bit_idx;
		meta.j_local_mask = local_mask;
		meta.j_mgrp = mgrp;
		meta.j_agent_mac = agent_mac;
		meta.agent_ip = agent_ip;
		meta.agent_port = agent_port;
		meta.j_tagged = tagged;
		meta.j_tag = tag;
		meta.win_mask = pool_mask;
		meta.base2 = pool_base2;
		/* the second pass's copies, where they are known */
		hdr.recirc.epoch32 = (bit<32>)epoch;
		hdr.recirc.mgrp = mgrp;
		hdr.recirc.src_id = src_id;
		hdr.recirc.job_idx = job_idx;
		hdr.recirc.tagged = tagged;
	}

	table rina_job {
		key = {
			hdr.ipv4.dst_addr : exact;
			hdr.udp.dst_port : exact;
			hdr.rina.job_id : exact;
		}
		actions = { set_job; NoAction; }
		size = RINA_TOR_MAX_JOBS;
		default_action = NoAction();
	}

	/* Tofino: the bit as a mask too (1 << bit_idx), a stage sooner */
	action set_worker(bit<8> bit_idx, bit<32> cbit)
	{
		meta.worker_hit = 1;
		meta.one_bit = bit_idx;
		meta.cbit = cbit;
		hdr.recirc.one_bit = bit_idx;
	}

	table rina_worker {
		key = {
			meta.j_job_idx : exact;
			hdr.rina.src_id : exact;
			hdr.ipv4.src_addr : exact;
			hdr.udp.src_port : exact;
		}
		actions = { set_worker; NoAction; }
		size = RINA_TOR_WORKER_SIZE;
		default_action = NoAction();
	}

	/* 1 << up_bit_idx (v1model shifts by it; Tofino looks it up) */
	action set_up_bit(bit<32> b)
	{
		meta.up_bit = b;
	}

	table up_bit_of {
		key = { meta.j_up_bit_idx : exact; }
		actions = { set_up_bit; NoAction; }
		size = 32;
		const entries = {
#define UP_BIT(J)	J : set_up_bit(1 << J);
			REPEAT_16(UP_BIT, 0) REPEAT_16(UP_BIT, 16)
		}
		default_action = NoAction();
	}

	/* the AG seq offset of the own chunk's result, ring_len * p_chunk:
	 * one entry per (job, P) the job uses (Documentation/tofino.md) */
	action set_ag_off(bit<32> off)
	{
		hdr.recirc.ag_off = off;
	}

	table ag_seq {
		key = {
			meta.j_job_idx : exact;
			hdr.rina.p_chunk : exact;
		}
		actions = { set_ag_off; NoAction; }
		size = RINA_TNA_AG_SEQ_SIZE;
		default_action = NoAction();
	}

	apply {
		meta.job_hit = 0;
		meta.worker_hit = 0;
		meta.up_bit = 0;
		meta.cbit = 0;
		meta.one_bit = 0;
		rina_job.apply();
		/* the worker's entry names its job: no gate needed */
		rina_worker.apply();
		up_bit_of.apply();
		ag_seq.apply();
	}
}

#endif
