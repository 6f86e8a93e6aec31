// SPDX-License-Identifier: GPL-2.0
/*
 * Rina host XDP program: steer Rina worker-port packets to the AF_XDP
 * socket of the receive queue, agent-port packets to the kernel stack,
 * drop and count malformed Rina packets, pass everything else untouched.
 * Header validation is core/wire.h's rina_hdr_check(), shared with every
 * other Rina parser. Documentation/xdp.md describes verdicts and knobs.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>

#define rina_ntohs(x)	bpf_ntohs(x)
#define rina_ntohl(x)	bpf_ntohl(x)
#include "wire.h"
#include "rina_xdp.h"

_Static_assert(__RINA_PARSE_MAX <= RINA_XDP_PARSE_SLOTS,
	       "rina_stats has no slot for every parse error");

/* Load-time configuration (set in .rodata before load). */
const volatile __u32 drop_ppm;		/* injected loss per million */
const volatile __u8 filter_jobs;	/* 1: worker packets need rina_jobs */

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, RINA_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RINA_XDP_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} rina_stats SEC(".maps");

/* Jobs this host takes part in: key job id (host order), value unused. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RINA_XDP_MAX_JOBS);
	__type(key, __u16);
	__type(value, __u8);
} rina_jobs SEC(".maps");

/* libxdp dispatcher: run early, chain on to later programs after PASS. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rina_xdp);

static __always_inline int count(__u32 idx, int verdict)
{
	__u64 *c = bpf_map_lookup_elem(&rina_stats, &idx);

	if (c)
		*c += 1;
	return verdict;
}

static __always_inline int drop_parse(enum rina_parse_err err)
{
	return count(RINA_XDP_DROP_PARSE + err, XDP_DROP);
}

SEC("xdp")
int rina_xdp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct rina_hdr *rh;
	enum rina_parse_err err;
	struct udphdr *udp;
	struct iphdr *ip;
	__u16 dport, job;
	__u32 ulen;

	/* ethhdr is packed: read h_proto as one aligned 16-bit load. */
	if ((void *)(eth + 1) > data_end ||
	    *(__be16 *)(data + 12) != bpf_htons(ETH_P_IP))
		return count(RINA_XDP_PASS_OTHER, XDP_PASS);
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->version != 4 || ip->ihl < 5 ||
	    ip->protocol != IPPROTO_UDP)
		return count(RINA_XDP_PASS_OTHER, XDP_PASS);
	/* A later fragment has no UDP header: not recognisable as Rina. */
	if (ip->frag_off & bpf_htons(0x1fff))
		return count(RINA_XDP_PASS_OTHER, XDP_PASS);
	udp = (void *)ip + ip->ihl * 4;
	if ((void *)(udp + 1) > data_end)
		return count(RINA_XDP_PASS_OTHER, XDP_PASS);
	dport = bpf_ntohs(udp->dest);
	if (!rina_port_match(dport))
		return count(RINA_XDP_PASS_OTHER, XDP_PASS);

	/* From here on the packet claims to be Rina: malformed is dropped. */
	if (ip->ihl != 5)
		return count(RINA_XDP_DROP_IP_OPTIONS, XDP_DROP);
	if (ip->frag_off & bpf_htons(0x2000))	/* more fragments */
		return count(RINA_XDP_DROP_FRAGMENT, XDP_DROP);
	rh = (void *)(udp + 1);
	if ((void *)(rh + 1) > data_end)
		return drop_parse(RINA_PARSE_RUNT);
	/*
	 * The 6.1 verifier does not bound a byte swap's result: mask it
	 * behind a barrier so that clang keeps the mask and the verifier
	 * accepts the pointer arithmetic below.
	 */
	ulen = bpf_ntohs(udp->len);
	asm volatile("" : "+r"(ulen));
	ulen &= 0xffff;
	if (ulen < sizeof(*udp) || (void *)udp + ulen > data_end ||
	    bpf_ntohs(ip->tot_len) != sizeof(*ip) + ulen)
		return count(RINA_XDP_DROP_UDP_LEN, XDP_DROP);
	err = rina_hdr_check(rh, ulen - sizeof(*udp));
	if (err != RINA_PARSE_OK)
		return drop_parse(err);

	if (drop_ppm && bpf_get_prandom_u32() % 1000000 < drop_ppm)
		return count(RINA_XDP_DROP_FAULT, XDP_DROP);
	/* every agent port: agents are kernel or UDP sockets */
	if (dport >= RINA_UDP_PORT_AGENT_MIN)
		return count(RINA_XDP_PASS_AGENT, XDP_PASS);
	if (filter_jobs) {
		job = bpf_ntohs(rh->job_id);
		if (!bpf_map_lookup_elem(&rina_jobs, &job))
			return drop_parse(RINA_PARSE_UNKNOWN_JOB);
	}
	if (bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS) ==
	    XDP_REDIRECT)
		return count(RINA_XDP_REDIRECT, XDP_REDIRECT);
	return count(RINA_XDP_PASS_NO_XSK, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
