// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * RinaParser and RinaDeparser (p4/parser.p4): Ethernet, IPv4 without
 * options, UDP, and on a Rina destination port the Rina header, up to
 * RINA_TOR_ELEMS payload words of a data packet, ACK or NACK, and after
 * them the data tag (rsvd RINA_X_TAG). Anything else is parsed
 * only as far as it goes and is forwarded as plain L2 traffic.
 */
#include "rina_tor_model.h"

static __u16 rd16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 rd32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static void wr16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void wr32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/* data, ACK and NACK: n_elem words (values or seqs) follow */
static int has_elems(__u8 ver_op)
{
	return ver_op >= (RINA_VERSION << 4 | RINA_OP_SR_CONTRIB) &&
	       ver_op <= (RINA_VERSION << 4 | RINA_OP_NACK);
}

static __u64 rd64(const __u8 *p)
{
	return (__u64)rd32(p) << 32 | rd32(p + 4);
}

/* Returns -1 for a frame shorter than Ethernet (dropped by the caller). */
int tor_parser(const __u8 *f, unsigned int len, struct tor_headers *hdr,
	       struct tor_meta *meta)
{
	unsigned int off, i;
	const __u8 *r;

	rina_memset(hdr, 0, sizeof(*hdr));
	if (len < RINA_TOR_L3_OFF)
		return -1;
	rina_memcpy(hdr->eth.dst, f, 6);
	rina_memcpy(hdr->eth.src, f + 6, 6);
	hdr->eth.type = rd16(f + 12);
	hdr->eth_valid = 1;
	off = RINA_TOR_L3_OFF;
	if (hdr->eth.type != 0x0800 || len < RINA_TOR_L4_OFF)
		goto accept;
	hdr->ipv4.ver_ihl = f[14];
	hdr->ipv4.diffserv = f[15];
	hdr->ipv4.total_len = rd16(f + 16);
	hdr->ipv4.identification = rd16(f + 18);
	hdr->ipv4.flags_frag = rd16(f + 20);
	hdr->ipv4.ttl = f[22];
	hdr->ipv4.protocol = f[23];
	hdr->ipv4.csum = rd16(f + 24);
	hdr->ipv4.src = rd32(f + 26);
	hdr->ipv4.dst = rd32(f + 30);
	hdr->ipv4_valid = 1;
	off = RINA_TOR_L4_OFF;
	if (hdr->ipv4.ver_ihl != 0x45 || hdr->ipv4.protocol != 17 ||
	    (hdr->ipv4.flags_frag & 0x3fff) || len < RINA_TOR_RINA_OFF)
		goto accept;
	hdr->udp.sport = rd16(f + 34);
	hdr->udp.dport = rd16(f + 36);
	hdr->udp.length = rd16(f + 38);
	hdr->udp.csum = rd16(f + 40);
	hdr->udp_valid = 1;
	off = RINA_TOR_RINA_OFF;
	if (!rina_port_match(hdr->udp.dport))
		goto accept;
	meta->is_rina = 1;
	if (len < RINA_TOR_RINA_OFF + RINA_HDR_LEN)
		goto accept;
	r = f + RINA_TOR_RINA_OFF;
	hdr->rina_raw = r;
	hdr->rina.ver_op = r[0];
	hdr->rina.flags = r[1];
	hdr->rina.job_id = rd16(r + 2);
	hdr->rina.round = rd16(r + 4);
	hdr->rina.step = r[6];
	hdr->rina.hop = r[7];
	hdr->rina.src_id = rd16(r + 8);
	hdr->rina.chunk = rd16(r + 10);
	hdr->rina.seq = rd32(r + 12);
	hdr->rina.slot = rd16(r + 16);
	hdr->rina.n_elem = rd16(r + 18);
	hdr->rina.p_chunk = rd16(r + 20);
	hdr->rina.num_contrib = rd16(r + 22);
	hdr->rina.exp = (__s8)r[24];
	hdr->rina.dtype_op = r[25];
	hdr->rina.rsvd = rd16(r + 26);
	hdr->rina_valid = 1;
	off = RINA_TOR_RINA_OFF + RINA_HDR_LEN;
	/* parse_elems: a data packet (ACK, NACK) that fits one pass */
	if (!has_elems(hdr->rina.ver_op) || hdr->rina.n_elem < 1 ||
	    hdr->rina.n_elem > RINA_TOR_ELEMS ||
	    len - off < hdr->rina.n_elem * 4u)
		goto accept;
	for (i = 0; i < hdr->rina.n_elem; i++)
		hdr->elems[i] = rd32(f + off + 4 * i);
	hdr->n_elems = hdr->rina.n_elem;
	off += 4 * hdr->n_elems;
	/* parse_tag */
	if (hdr->rina.rsvd != RINA_X_TAG || len - off < RINA_TAG_LEN)
		goto accept;
	hdr->tag = rd64(f + off);
	hdr->tag_valid = 1;
	off += RINA_TAG_LEN;
accept:
	hdr->rest = f + off;
	hdr->rest_len = len - off;
	return 0;
}

__u16 rina_tor_ipv4_csum(const __u8 *p)
{
	__u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		if (i != 10)
			sum += rd16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* RinaComputeChecksum + RinaDeparser: emit the valid headers in order. */
void tor_deparser(const struct tor_headers *hdr, struct rina_tor_pkt *pkt)
{
	__u8 *d = pkt->data;
	unsigned int n = 0, i;

	if (hdr->eth_valid) {
		rina_memcpy(d, hdr->eth.dst, 6);
		rina_memcpy(d + 6, hdr->eth.src, 6);
		wr16(d + 12, hdr->eth.type);
		n = 14;
	}
	if (hdr->ipv4_valid) {
		__u8 *p = d + n;

		p[0] = hdr->ipv4.ver_ihl;
		p[1] = hdr->ipv4.diffserv;
		wr16(p + 2, hdr->ipv4.total_len);
		wr16(p + 4, hdr->ipv4.identification);
		wr16(p + 6, hdr->ipv4.flags_frag);
		p[8] = hdr->ipv4.ttl;
		p[9] = hdr->ipv4.protocol;
		wr16(p + 10, hdr->ipv4.csum);
		wr32(p + 12, hdr->ipv4.src);
		wr32(p + 16, hdr->ipv4.dst);
		if (hdr->csum_update)
			wr16(p + 10, rina_tor_ipv4_csum(p));
		n += 20;
	}
	if (hdr->udp_valid) {
		wr16(d + n, hdr->udp.sport);
		wr16(d + n + 2, hdr->udp.dport);
		wr16(d + n + 4, hdr->udp.length);
		wr16(d + n + 6, hdr->udp.csum);
		n += 8;
	}
	if (hdr->rina_valid) {
		__u8 *r = d + n;

		r[0] = hdr->rina.ver_op;
		r[1] = hdr->rina.flags;
		wr16(r + 2, hdr->rina.job_id);
		wr16(r + 4, hdr->rina.round);
		r[6] = hdr->rina.step;
		r[7] = hdr->rina.hop;
		wr16(r + 8, hdr->rina.src_id);
		wr16(r + 10, hdr->rina.chunk);
		wr32(r + 12, hdr->rina.seq);
		wr16(r + 16, hdr->rina.slot);
		wr16(r + 18, hdr->rina.n_elem);
		wr16(r + 20, hdr->rina.p_chunk);
		wr16(r + 22, hdr->rina.num_contrib);
		r[24] = (__u8)hdr->rina.exp;
		r[25] = hdr->rina.dtype_op;
		wr16(r + 26, hdr->rina.rsvd);
		n += RINA_HDR_LEN;
	}
	for (i = 0; i < hdr->n_elems; i++, n += 4)
		wr32(d + n, hdr->elems[i]);
	if (hdr->tag_valid) {
		wr32(d + n, (__u32)(hdr->tag >> 32));
		wr32(d + n + 4, (__u32)hdr->tag);
		n += RINA_TAG_LEN;
	}
	if (hdr->rest_len && n + hdr->rest_len <= sizeof(pkt->data)) {
		rina_memcpy(d + n, hdr->rest, hdr->rest_len);
		n += hdr->rest_len;
	}
	pkt->len = (__u16)n;
}
