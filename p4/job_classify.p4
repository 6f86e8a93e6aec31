/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * JobClassify (model: p4/model/job_classify.c).
 * rina_job: (IPv4 dst, UDP dst port, job_id) -> set_job: the packet is
 *   addressed to the agent of a job this ToR aggregates, or to the ToR's
 *   own address (the agent's own contributions: a host cannot send to
 *   itself through the wire); loads the job, its data tag included
 *   (tagged 1: every packet of the job but CTRL carries tag; TagCheck).
 * rina_worker: (job_idx, src_id, IPv4 source, UDP source port) ->
 *   set_worker: a local worker's contributor bit, only for its own
 *   address and port (a contribution naming a worker from elsewhere is
 *   no worker's: switched on, counted no_worker).
 */
#ifndef _RINA_JOB_CLASSIFY_P4_
#define _RINA_JOB_CLASSIFY_P4_

control JobClassify(in headers_t hdr, inout metadata_t meta)
{
	action set_job(bit<16> job_idx, bit<16> epoch, bit<16> pool_base,
		       bit<16> win, bit<16> member, bit<16> ring_len,
		       bit<16> own_chunk, bit<8> up_bit_idx,
		       bit<32> local_mask, bit<16> mgrp, bit<16> src_id,
		       bit<48> agent_mac, bit<32> agent_ip, bit<16> agent_port,
		       bit<1> tagged, bit<64> tag)
	{
		meta.job_hit = 1;
		meta.j_job_idx = job_idx;
		meta.j_epoch = epoch;
		meta.j_pool_base = pool_base;
		meta.j_win = win;
		meta.j_member = member;
		meta.j_ring_len = ring_len;
		meta.j_own_chunk = own_chunk;
		meta.j_up_bit_idx = up_bit_idx;
		meta.j_local_mask = local_mask;
		meta.j_mgrp = mgrp;
		meta.j_src_id = src_id;
		meta.j_agent_mac = agent_mac;
		meta.agent_ip = agent_ip;
		meta.agent_port = agent_port;
		meta.j_tagged = tagged;
		meta.j_tag = tag;
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

	action set_worker(bit<8> bit_idx)
	{
		meta.worker_hit = 1;
		meta.cbit = (bit<32>)1 << bit_idx;
		meta.one_bit = bit_idx;
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

	apply {
		rina_job.apply();
		/* no side effect: the ingress reads worker_hit for SR_CONTRIB */
		if (meta.job_hit == 1 &&
		    (hdr.rina.ver_op & 0x0f) == RINA_OP_SR_CONTRIB)
			rina_worker.apply();
	}
}

#endif
