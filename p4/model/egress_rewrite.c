// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * EgressRewrite (p4/egress_rewrite.p4): one replica of a switch-emitted
 * packet. Table replica, exact on egress_rid, gives its class and
 * destination: rw_local(bit, mac, ip, port) a local worker, rw_host(bit,
 * mac, ip, port) the one on the agent's host (no AG_DATA: the agent
 * relays its copy), rw_next(mac, ip, port) the next ring member,
 * rw_up(mac, ip, port) the upstream member, rw_agent(mac, ip, port) the
 * rack's agent (ip:0x524f; a copy of allgather data, otherwise identical
 * to a local worker's). A replica
 * whose class meta.emit does not select is dropped; the
 * NEXT copy of AG_DATA counts one more hop; the UP copy becomes a
 * header-only ACK of the received packet (its seq, slot and step;
 * n_elem 1, payload = the seq). Every kept
 * replica leaves from the agent's address (agent MAC, IP and port) to its
 * destination, IPv4 DF, TTL 64, UDP checksum 0, DSCP 0, ECN as the
 * ingress set it (meta.out_ecn; ACKs not ECN-capable); a tagged job's with
 * rsvd RINA_X_TAG and the job's tag after the payload.
 * Plain replicas (L2 flood) are only pruned on the ingress port.
 * Returns 0 to send the replica, -1 to drop it.
 */
#include "rina_tor_model.h"

static const struct tor_rid_entry *replica_lookup(const struct rina_tor *sw,
						  __u16 rid)
{
	unsigned int i;

	for (i = 0; i < RINA_TOR_RID_SIZE; i++)
		if (sw->replica[i].used && sw->replica[i].rid == rid)
			return &sw->replica[i];
	return (void *)0;
}

static void to_ack(struct tor_headers *hdr, const struct tor_meta *meta)
{
	struct tor_rina *r = &hdr->rina;

	r->ver_op = RINA_VERSION << 4 | RINA_OP_ACK;
	r->flags = meta->ack_flags;
	r->step = meta->ack_step;
	r->seq = meta->ack_seq;
	r->src_id = meta->job.src_id;
	r->slot = meta->ack_slot;
	r->n_elem = 1;
	r->num_contrib = 0;
	r->exp = RINA_EXP_NONE;
	hdr->elems[0] = meta->ack_seq;
	hdr->n_elems = 1;
	hdr->rest_len = 0;
}

int tor_egress_rewrite(struct rina_tor *sw, struct tor_headers *hdr,
		       struct tor_meta *meta)
{
	const struct tor_rid_entry *e;
	unsigned int op;

	if (!meta->emit)
		return meta->egress_port == meta->ingress_port ? -1 : 0;
	e = replica_lookup(sw, meta->egress_rid);
	if (!e)
		return -1;
	op = hdr->rina.ver_op & 0xf;
	switch (e->cls) {
	case RINA_RW_HOST:
		if (op == RINA_OP_AG_DATA)
			return -1;	/* the agent relays its copy */
		/* fall through */
	case RINA_RW_LOCAL:
		if (!(meta->emit & RINA_EMIT_LOCAL) &&
		    !((meta->emit & RINA_EMIT_ONE) && e->bit == meta->one_bit))
			return -1;
		meta->ev_out |= 1u << (op == RINA_OP_ACK ? RINA_TO_ACK_MCAST :
						       RINA_TO_AG_MCAST);
		break;
	case RINA_RW_NEXT:
		if (!(meta->emit & RINA_EMIT_NEXT))
			return -1;
		if (op == RINA_OP_AG_DATA) {
			hdr->rina.hop++;
			meta->ev_out |= 1u << RINA_TO_AG_OUT;
		} else {
			meta->ev_out |= 1u << RINA_TO_PARTIAL_OUT;
		}
		break;
	case RINA_RW_UP:
		if (!(meta->emit & RINA_EMIT_UP))
			return -1;
		to_ack(hdr, meta);
		meta->ev_out |= 1u << RINA_TO_ACK_OUT;
		break;
	case RINA_RW_AGENT:
		if (!(meta->emit & RINA_EMIT_AGENT))
			return -1;
		meta->ev_out |= 1u << RINA_TO_AG_AGENT;
		break;
	default:
		return -1;
	}
	rina_memcpy(hdr->eth.dst, e->mac, 6);
	rina_memcpy(hdr->eth.src, meta->job.agent_mac, 6);
	/*
	 * ACKs (the UP replica became one) are not ECN-capable, RFC 3168
	 * 6.1.4; results leave as the ingress made them
	 */
	hdr->ipv4.diffserv = (hdr->rina.ver_op & 0xf) == RINA_OP_ACK ? 0 :
			     meta->out_ecn;
	hdr->ipv4.identification = 0;
	hdr->ipv4.flags_frag = 0x4000;
	hdr->ipv4.ttl = 64;
	hdr->ipv4.src = meta->agent_ip;
	hdr->ipv4.dst = e->ip;
	hdr->udp.sport = meta->agent_port;
	hdr->udp.dport = e->port;
	/* a tagged job's: its tag, whatever the replica was built from */
	if (meta->job.tagged) {
		hdr->rina.rsvd = RINA_X_TAG;
		hdr->tag_valid = 1;
		hdr->tag = meta->job.tag;
	}
	hdr->udp.length = (__u16)(8 + RINA_HDR_LEN + 4u * hdr->rina.n_elem +
				  (meta->job.tagged ? RINA_TAG_LEN : 0));
	hdr->udp.csum = 0;
	hdr->ipv4.total_len = (__u16)(20 + hdr->udp.length);
	hdr->csum_update = 1;
	return 0;
}
