// SPDX-License-Identifier: GPL-2.0
/*
 * The two BPF programs of rina-tor on every bridge port of an INA ToR,
 * both built on one test, rina_frame(): a Rina frame is IPv4 without
 * options, not a fragment, UDP, destination port 0x5240..0x524f, at
 * least up to the UDP header (what the switch model parses as Rina).
 *
 * - rina_tor_select, a socket filter on the port's AF_PACKET socket:
 *   rina-tor receives the Rina frames and nothing else;
 * - rina_tor_steer, at tc ingress (after the socket has seen the frame,
 *   before the bridge): drops the Rina frames, so that the bridge
 *   forwards everything else and only that.
 *
 * Every frame thus goes one way: to rina-tor (Rina) or to the bridge
 * (all other traffic, as it would cross a plain bridge). The test is
 * written once for both: when rina-tor had its own copy (a classic BPF
 * filter whose jumps were one short and accepted every frame), it
 * re-sent every ARP, ICMP and TCP frame the bridge forwarded too.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

__u64 steered;		/* frames taken away from the bridge */
__u64 selected;		/* frames given to rina-tor's sockets */
/*
 * rina-tor's lease (bpf_ktime_get_ns(), CLOCK_MONOTONIC), renewed by its
 * main loop: once it runs out (rina-tor killed, stopped, stuck), the
 * programs take no frame and the bridge forwards Rina frames as any
 * other, so that the racks' agents can take their jobs over (fail
 * open; protocol-ina.md section 9). The programs stay attached after a
 * SIGKILL, this value with them.
 */
__u64 lease_until_ns;
__u64 unleased;		/* Rina frames left to the bridge without it */

/*
 * Each program reads the clock once per frame: at the lease's end a
 * frame may go both ways (a duplicate, which receivers discard) or
 * neither (a loss, which their senders repair).
 */
static __always_inline int leased(void)
{
	return bpf_ktime_get_ns() < lease_until_ns;
}

/*
 * Ethernet, IPv4 and UDP headers of a frame; both program types may call
 * bpf_skb_load_bytes(), from the Ethernet header (tc ingress and a raw
 * packet socket's filter both see skb->data there).
 */
#define RINA_L4_END	(ETH_HLEN + 20 + 8)

static __always_inline int rina_frame(struct __sk_buff *skb)
{
	__u8 h[RINA_L4_END];

	if (bpf_skb_load_bytes(skb, 0, h, sizeof(h)))
		return 0;		/* shorter than a UDP header */
	return h[12] == (ETH_P_IP >> 8) && h[13] == (ETH_P_IP & 0xff) &&
	       h[14] == 0x45 && h[23] == IPPROTO_UDP &&
	       !(h[20] & 0x3f) && !h[21] &&	/* no MF, offset 0 */
	       h[36] == 0x52 && (h[37] & 0xf0) == 0x40;
}

SEC("socket")
int rina_tor_select(struct __sk_buff *skb)
{
	if (!rina_frame(skb) || !leased())
		return 0;
	__sync_fetch_and_add(&selected, 1);
	return (int)skb->len;		/* the whole frame */
}

SEC("tc")
int rina_tor_steer(struct __sk_buff *skb)
{
	if (!rina_frame(skb))
		return TC_ACT_OK;
	if (!leased()) {
		__sync_fetch_and_add(&unleased, 1);
		return TC_ACT_OK;
	}
	__sync_fetch_and_add(&steered, 1);
	return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";
