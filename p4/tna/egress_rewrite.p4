/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * EgressRewrite on Tofino: ../egress_rewrite.p4's replica table and
 * rules, per replica of the job's group. Tofino 1 cannot truncate a
 * frame in egress, so the UP replica's header-only ACK is cut by
 * invalidating the payload words egress parsed (bridge.words); the data
 * tag, which came with the packet and was checked in ingress, stays.
 * The job's source address (agent MAC, IPv4, port, src_id) is job_src's,
 * keyed by the job index: the bridged header has no room for it.
 */
#ifndef _RINA_TNA_EGRESS_REWRITE_P4_
#define _RINA_TNA_EGRESS_REWRITE_P4_

control EgressRewrite(inout headers_t hdr, inout egress_metadata_t em,
		      in egress_intrinsic_metadata_t eg_md,
		      inout egress_intrinsic_metadata_for_deparser_t dp)
{
	action rw_local(bit<8> bit_idx, bit<48> mac, bit<32> ip, bit<16> port)
	{
		em.rw_cls = RINA_RW_LOCAL;
		em.rw_bit = bit_idx;
		em.rw_mac = mac;
		em.rw_ip = ip;
		em.rw_port = port;
	}

	action rw_host(bit<8> bit_idx, bit<48> mac, bit<32> ip, bit<16> port)
	{
		em.rw_cls = RINA_RW_HOST;
		em.rw_bit = bit_idx;
		em.rw_mac = mac;
		em.rw_ip = ip;
		em.rw_port = port;
	}

	action rw_next(bit<48> mac, bit<32> ip, bit<16> port)
	{
		em.rw_cls = RINA_RW_NEXT;
		em.rw_mac = mac;
		em.rw_ip = ip;
		em.rw_port = port;
	}

	action rw_up(bit<48> mac, bit<32> ip, bit<16> port)
	{
		em.rw_cls = RINA_RW_UP;
		em.rw_mac = mac;
		em.rw_ip = ip;
		em.rw_port = port;
	}

	action rw_agent(bit<48> mac, bit<32> ip, bit<16> port)
	{
		em.rw_cls = RINA_RW_AGENT;
		em.rw_mac = mac;
		em.rw_ip = ip;
		em.rw_port = port;
	}

	table replica {
		key = { eg_md.egress_rid : exact; }
		actions = { rw_local; rw_host; rw_next; rw_up; rw_agent;
			    NoAction; }
		size = RINA_TOR_RID_SIZE;
		default_action = NoAction();
	}

	/* the job's source address (v1model: set_job's parameters) */
	action set_src(bit<48> agent_mac, bit<32> agent_ip,
		       bit<16> agent_port, bit<16> src_id)
	{
		em.agent_mac = agent_mac;
		em.agent_ip = agent_ip;
		em.agent_port = agent_port;
		em.src_id = src_id;
	}

	table job_src {
		key = { hdr.bridge.md.job_idx : exact; }
		actions = { set_src; NoAction; }
		size = RINA_TOR_MAX_JOBS;
		default_action = NoAction();
	}

#define DROP_WORD(J)	hdr.elems[J].setInvalid();
	/* an ACK keeps word 0 (the seq): the other words go */
	action to_ack()
	{
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_ACK;
		hdr.rina.flags = hdr.bridge.md.ack_flags;
		hdr.rina.step = hdr.bridge.md.ack_step;
		hdr.rina.seq = hdr.bridge.md.ack_seq;
		hdr.rina.src_id = em.src_id;
		hdr.rina.slot = hdr.bridge.md.ack_slot;
		hdr.rina.n_elem = 1;
		hdr.rina.num_contrib = 0;
		hdr.rina.exp = RINA_EXP_NONE;
		hdr.elems[0].setValid();
		hdr.elems[0].v = hdr.bridge.md.ack_seq;
		RINA_TNA_REPEAT(DROP_WORD)
	}

	/* the only replica whose length changes: every other one keeps
	 * the n_elem, and the tag, it came with */
	action ack_len(bit<16> udp_len)
	{
		hdr.udp.length = udp_len;
		hdr.ipv4.total_len = udp_len + 20;
	}

	apply {

		em.rw_cls = 0;
		em.keep = 0;
		em.csum = 0;
		em.ev_out = 0xff;
		if (hdr.bridge.md.emit == 0) {
			if (eg_md.egress_port == hdr.bridge.md.ingress_port)
				dp.drop_ctl = 1;
		} else {
			replica.apply();
			job_src.apply();
			if (em.rw_cls == RINA_RW_LOCAL ||
			    (em.rw_cls == RINA_RW_HOST &&
			     hdr.rina.ver_op[3:0] != RINA_OP_AG_DATA)) {
				if (hdr.bridge.md.emit[0:0] == 1) /* LOCAL */
					em.keep = 1;
				if (hdr.bridge.md.emit[1:1] == 1 && /* ONE */
				    em.rw_bit == hdr.bridge.md.one_bit)
					em.keep = 1;
				if (em.keep == 1) {
					if (hdr.rina.ver_op[3:0] == RINA_OP_ACK)
						em.ev_out = RINA_TO_ACK_MCAST;
					else
						em.ev_out = RINA_TO_AG_MCAST;
				}
			} else if (em.rw_cls == RINA_RW_NEXT) {
				if (hdr.bridge.md.emit[2:2] == 1) { /* NEXT */
					em.keep = 1;
					if (hdr.rina.ver_op[3:0] ==
					    RINA_OP_AG_DATA) {
						hdr.rina.hop = hdr.rina.hop + 1;
						em.ev_out = RINA_TO_AG_OUT;
					} else {
						em.ev_out = RINA_TO_PARTIAL_OUT;
					}
				}
			} else if (em.rw_cls == RINA_RW_UP) {
				if (hdr.bridge.md.emit[3:3] == 1) { /* UP */
					em.keep = 1;
					to_ack();
					if (hdr.bridge.md.tagged == 1)
						ack_len(8 + RINA_HDR_LEN + 4 +
							RINA_TAG_LEN);
					else
						ack_len(8 + RINA_HDR_LEN + 4);
					em.ev_out = RINA_TO_ACK_OUT;
				}
			} else if (em.rw_cls == RINA_RW_AGENT) {
				if (hdr.bridge.md.emit[4:4] == 1) { /* AGENT */
					em.keep = 1;
					em.ev_out = RINA_TO_AG_AGENT;
				}
			}
			if (em.keep == 0) {
				dp.drop_ctl = 1;
			} else {
				hdr.ethernet.dst_addr = em.rw_mac;
				hdr.ethernet.src_addr = em.agent_mac;
				hdr.ipv4.diffserv = hdr.bridge.md.out_ecn;
				if (hdr.rina.ver_op[3:0] == RINA_OP_ACK)
					hdr.ipv4.diffserv = 0;
				hdr.ipv4.identification = 0;
				hdr.ipv4.flags_frag = 0x4000;
				hdr.ipv4.ttl = 64;
				hdr.ipv4.src_addr = em.agent_ip;
				hdr.ipv4.dst_addr = em.rw_ip;
				hdr.udp.src_port = em.agent_port;
				hdr.udp.dst_port = em.rw_port;
				hdr.udp.checksum = 0;
				em.csum = 1;
			}
		}
	}
}

#endif
