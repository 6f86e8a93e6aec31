// SPDX-License-Identifier: GPL-2.0
/*
 * tc ingress program of rina-tor on every bridge port of an INA ToR: a
 * Rina frame (IPv4 without options, not a fragment, UDP destination port
 * 0x5240..0x524f: what the switch model parses as Rina) is dropped here,
 * after rina-tor's AF_PACKET socket has seen it and before the bridge
 * would forward it; everything else goes on to the bridge.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

__u64 steered = 0;	/* frames taken away from the bridge */

SEC("tc")
int rina_tor_steer(struct __sk_buff *skb)
{
	void *data, *end;
	struct ethhdr *eth;
	struct iphdr *ip;
	struct udphdr *udp;

	bpf_skb_pull_data(skb, sizeof(*eth) + sizeof(*ip) + sizeof(*udp));
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	eth = data;
	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || *(__u8 *)ip != 0x45 ||
	    ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x3fff)))
		return TC_ACT_OK;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end ||
	    (bpf_ntohs(udp->dest) & 0xfff0) != 0x5240)
		return TC_ACT_OK;
	__sync_fetch_and_add(&steered, 1);
	return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";
