/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Crafted test frames for the XDP selftests: Ethernet | IPv4 | UDP | Rina
 * header | payload, with valid lengths and checksum, for tests to break.
 */
#ifndef RINA_SELFTEST_PKT_H
#define RINA_SELFTEST_PKT_H

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <stdint.h>
#include <string.h>

#include <linux/rina.h>

#define PKT_MAX		(42 + RINA_HDR_LEN + RINA_MAX_PAYLOAD + 64)
#define PKT_ETH_OFF	0
#define PKT_IP_OFF	14
#define PKT_UDP_OFF	34
#define PKT_RINA_OFF	42

struct pkt {
	uint8_t		buf[PKT_MAX];
	uint32_t	len;
};

static inline struct ethhdr *pkt_eth(struct pkt *p)
{
	return (struct ethhdr *)(p->buf + PKT_ETH_OFF);
}

static inline struct iphdr *pkt_ip(struct pkt *p)
{
	return (struct iphdr *)(p->buf + PKT_IP_OFF);
}

static inline struct udphdr *pkt_udp(struct pkt *p)
{
	return (struct udphdr *)(p->buf + PKT_UDP_OFF);
}

static inline struct rina_hdr *pkt_rina(struct pkt *p)
{
	return (struct rina_hdr *)(p->buf + PKT_RINA_OFF);
}

static inline uint16_t pkt_ip_csum(const void *hdr, unsigned int len)
{
	const uint16_t *w = hdr;
	uint32_t sum = 0;

	while (len > 1) {
		sum += *w++;
		len -= 2;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Recompute the IPv4 header checksum after a test changed the header. */
static inline void pkt_fix_csum(struct pkt *p)
{
	struct iphdr *ip = pkt_ip(p);

	ip->check = 0;
	ip->check = pkt_ip_csum(ip, ip->ihl * 4);
}

/* A valid Rina frame: opcode op, n words of payload, to UDP port dport. */
static inline void pkt_build(struct pkt *p, uint16_t dport, unsigned int op,
			     unsigned int n, uint16_t job)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct ethhdr *eth = pkt_eth(p);
	struct iphdr *ip = pkt_ip(p);
	struct udphdr *udp = pkt_udp(p);
	struct rina_hdr *rh = pkt_rina(p);
	unsigned int i, plen = RINA_HDR_LEN + n * 4;

	memset(p, 0, sizeof(*p));
	memcpy(eth->h_dest, dst, 6);
	memcpy(eth->h_source, src, 6);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(20 + 8 + plen);
	ip->frag_off = htons(0x4000);	/* DF */
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = htonl(0xc6120001);	/* 198.18.0.1 */
	ip->daddr = htonl(0xc6120002);	/* 198.18.0.2 */
	udp->source = htons(RINA_UDP_PORT_WORKER);
	udp->dest = htons(dport);
	udp->len = htons(8 + plen);
	rh->ver_op = (RINA_VERSION << 4) | op;
	rh->job_id = htons(job);
	rh->seq = htonl(1);
	rh->n_elem = htons(n);
	rh->p_chunk = htons(1);
	rh->exp = RINA_EXP_NONE;
	rh->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
	for (i = 0; i < n * 4; i++)
		p->buf[PKT_RINA_OFF + RINA_HDR_LEN + i] = (uint8_t)i;
	p->len = PKT_RINA_OFF + plen;
	pkt_fix_csum(p);
}

#endif /* RINA_SELFTEST_PKT_H */
