/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * EgressRewrite (model: p4/model/egress_rewrite.c): one replica.
 * replica: egress_rid -> rw_local(bit, mac, ip, port) a local worker,
 * rw_host(bit, mac, ip, port) the local worker on the agent's host (as
 * rw_local, but no AG_DATA: the agent relays its own copy over the host's
 * loopback, so the host's link carries each result once, not twice),
 * rw_next(mac, ip, port) the next ring member, rw_up(mac, ip, port) the
 * upstream member, rw_agent(mac, ip, port) the rack's agent (its
 * ip:0x524f: allgather data only). A replica of a switch-emitted packet
 * survives only if meta.emit selects its class (RINA_EMIT_ONE: only the
 * local worker whose bit is meta.one_bit; RINA_EMIT_AGENT: the agent's
 * copy, otherwise identical to a local worker's); the NEXT copy of
 * AG_DATA counts one more hop; the
 * UP copy becomes a header-only ACK of the received packet (its seq, slot
 * and step; n_elem 1, payload = the seq). Every kept replica leaves from
 * the agent's address to its destination: IPv4 DF, TTL 64, id 0, UDP
 * checksum 0, lengths and IPv4 checksum recomputed; for a tagged job
 * with rsvd RINA_X_TAG and the job's tag after the payload.
 * Plain traffic (meta.emit == 0) is only pruned on its ingress port.
 */
#ifndef _RINA_EGRESS_REWRITE_P4_
#define _RINA_EGRESS_REWRITE_P4_

control EgressRewrite(inout headers_t hdr, inout metadata_t meta,
		      inout standard_metadata_t sm)
{
	action rw_local(bit<8> bit_idx, bit<48> mac, bit<32> ip, bit<16> port)
	{
		meta.rw_cls = RINA_RW_LOCAL;
		meta.rw_bit = bit_idx;
		meta.rw_mac = mac;
		meta.rw_ip = ip;
		meta.rw_port = port;
	}

	action rw_host(bit<8> bit_idx, bit<48> mac, bit<32> ip, bit<16> port)
	{
		meta.rw_cls = RINA_RW_HOST;
		meta.rw_bit = bit_idx;
		meta.rw_mac = mac;
		meta.rw_ip = ip;
		meta.rw_port = port;
	}

	action rw_next(bit<48> mac, bit<32> ip, bit<16> port)
	{
		meta.rw_cls = RINA_RW_NEXT;
		meta.rw_mac = mac;
		meta.rw_ip = ip;
		meta.rw_port = port;
	}

	action rw_up(bit<48> mac, bit<32> ip, bit<16> port)
	{
		meta.rw_cls = RINA_RW_UP;
		meta.rw_mac = mac;
		meta.rw_ip = ip;
		meta.rw_port = port;
	}

	action rw_agent(bit<48> mac, bit<32> ip, bit<16> port)
	{
		meta.rw_cls = RINA_RW_AGENT;
		meta.rw_mac = mac;
		meta.rw_ip = ip;
		meta.rw_port = port;
	}

	table replica {
		key = { sm.egress_rid : exact; }
		actions = { rw_local; rw_host; rw_next; rw_up; rw_agent;
			    NoAction; }
		size = RINA_TOR_RID_SIZE;
		default_action = NoAction();
	}

	/* an ACK keeps word 0 (the seq): every other word of the stack goes */
#if RINA_TOR_ELEMS != 256
#error "EgressRewrite: DROP_WORDS_FROM_1 drops words 1..255"
#endif
#define DROP_WORD(J)	hdr.elems[J].setInvalid();
#define DROP_WORDS_FROM_1						\
	DROP_WORD(1) DROP_WORD(2) DROP_WORD(3) REPEAT_4(DROP_WORD, 4)	\
	REPEAT_4(DROP_WORD, 8) REPEAT_4(DROP_WORD, 12)			\
	REPEAT_16(DROP_WORD, 16) REPEAT_16(DROP_WORD, 32)		\
	REPEAT_16(DROP_WORD, 48) REPEAT_64(DROP_WORD, 64)		\
	REPEAT_64(DROP_WORD, 128) REPEAT_64(DROP_WORD, 192)

	action to_ack()
	{
		hdr.rina.ver_op = (RINA_VERSION << 4) | RINA_OP_ACK;
		hdr.rina.flags = meta.ack_flags;
		hdr.rina.step = meta.ack_step;
		hdr.rina.seq = meta.ack_seq;
		hdr.rina.src_id = meta.j_src_id;
		hdr.rina.slot = meta.ack_slot;
		hdr.rina.n_elem = 1;
		hdr.rina.num_contrib = 0;
		hdr.rina.exp = RINA_EXP_NONE;
		hdr.elems[0].setValid();
		hdr.elems[0].v = meta.ack_seq;
		DROP_WORDS_FROM_1
		/* and the data tag the rewrite adds after it */
		truncate((bit<32>)(42 + RINA_HDR_LEN + 4) +
			 ((bit<32>)meta.j_tagged << 3));
	}

	apply {
		bit<1> keep = 0;
		bit<16> trailer = 0;
		bit<8> op = hdr.rina.ver_op & 0x0f;

		meta.rw_cls = 0;
		meta.drop = 0;
		if (meta.emit == 0) {
			if (sm.egress_port == sm.ingress_port) {
				meta.drop = 1;
				mark_to_drop(sm);
			}
		} else {
			replica.apply();
			if (meta.rw_cls == RINA_RW_LOCAL ||
			    (meta.rw_cls == RINA_RW_HOST &&
			     op != RINA_OP_AG_DATA)) {
				if ((meta.emit & RINA_EMIT_LOCAL) != 0 ||
				    ((meta.emit & RINA_EMIT_ONE) != 0 &&
				     meta.rw_bit == meta.one_bit)) {
					keep = 1;
					if (op == RINA_OP_ACK) {
						meta.ev_out = meta.ev_out |
							(1 << RINA_TO_ACK_MCAST);
					} else {
						meta.ev_out = meta.ev_out |
							(1 << RINA_TO_AG_MCAST);
					}
				}
			} else if (meta.rw_cls == RINA_RW_NEXT) {
				if ((meta.emit & RINA_EMIT_NEXT) != 0) {
					keep = 1;
					if (op == RINA_OP_AG_DATA) {
						hdr.rina.hop = hdr.rina.hop + 1;
						meta.ev_out = meta.ev_out |
							(1 << RINA_TO_AG_OUT);
					} else {
						meta.ev_out = meta.ev_out |
							(1 << RINA_TO_PARTIAL_OUT);
					}
				}
			} else if (meta.rw_cls == RINA_RW_UP) {
				if ((meta.emit & RINA_EMIT_UP) != 0) {
					keep = 1;
					to_ack();
					meta.ev_out = meta.ev_out |
						(1 << RINA_TO_ACK_OUT);
				}
			} else if (meta.rw_cls == RINA_RW_AGENT) {
				if ((meta.emit & RINA_EMIT_AGENT) != 0) {
					keep = 1;
					meta.ev_out = meta.ev_out |
						(1 << RINA_TO_AG_AGENT);
				}
			}
			if (keep == 0) {
				meta.drop = 1;
				mark_to_drop(sm);
			} else {
				hdr.ethernet.dst_addr = meta.rw_mac;
				hdr.ethernet.src_addr = meta.j_agent_mac;
				/* ACKs not ECN-capable, results as made */
				hdr.ipv4.diffserv = meta.out_ecn;
				if ((hdr.rina.ver_op & 0x0f) == RINA_OP_ACK)
					hdr.ipv4.diffserv = 0;
				hdr.ipv4.identification = 0;
				hdr.ipv4.flags_frag = 0x4000;
				hdr.ipv4.ttl = 64;
				hdr.ipv4.src_addr = meta.agent_ip;
				hdr.ipv4.dst_addr = meta.rw_ip;
				hdr.udp.src_port = meta.agent_port;
				hdr.udp.dst_port = meta.rw_port;
				/* a tagged job's: its tag, whatever the
				 * replica was built from */
				if (meta.j_tagged == 1) {
					hdr.rina.rsvd = RINA_X_TAG;
					hdr.tag.setValid();
					hdr.tag.tag = meta.j_tag;
					trailer = RINA_TAG_LEN;
				}
				hdr.udp.length = 8 + RINA_HDR_LEN +
						 (hdr.rina.n_elem << 2) +
						 trailer;
				hdr.udp.checksum = 0;
				hdr.ipv4.total_len = 20 + hdr.udp.length;
				meta.csum_update = 1;
			}
		}
	}
}

#endif
