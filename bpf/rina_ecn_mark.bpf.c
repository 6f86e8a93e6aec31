// SPDX-License-Identifier: GPL-2.0
/*
 * ECN marking for emulated bottlenecks: a tc egress program that keeps a
 * phantom queue (HULL, NSDI'12) of the link it sits on and sets CE on
 * ECN-capable IPv4 packets that arrive while that queue holds more than
 * mark_bytes, as a DCTCP switch marks at its threshold K.
 *
 * Why a phantom queue: the host kernel has tbf and htb but no marking
 * qdisc (no red, codel, fq_codel), and clsact egress runs before the root
 * qdisc, so the program cannot read the tbf's backlog. The phantom queue
 * drains at the tbf's rate and takes what the tbf would take (nothing
 * beyond limit_bytes, which the tbf drops), so it tracks the real queue
 * up to the tbf's bucket. rina-run --ecn attaches it (rina-ecn-mark).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "rina_ecn_mark.h"

/* Load-time configuration (set in .rodata before load). */
const volatile __u64 rate_bytes_per_s;	/* the link's rate */
const volatile __u32 mark_bytes;	/* K: mark above this backlog */
const volatile __u32 limit_bytes;	/* the real queue's limit */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rina_ecn_pq);
} pq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RINA_ECN_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} ecn_stats SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *v = bpf_map_lookup_elem(&ecn_stats, &what);

	if (v)
		*v += 1;
}

/* The phantom backlog after a packet of len bytes arrives now. */
static __always_inline __u64 pq_enqueue(struct rina_ecn_pq *q, __u32 len)
{
	__u64 now = bpf_ktime_get_ns(), dt, drained, b;

	bpf_spin_lock(&q->lock);
	dt = now > q->t_ns ? now - q->t_ns : 0;
	/* a second idle empties any queue; keeps dt * rate within 64 bits */
	if (dt > 1000000000ULL)
		dt = 1000000000ULL;
	drained = dt * rate_bytes_per_s / 1000000000ULL;
	b = q->backlog > drained ? q->backlog - drained : 0;
	if (b + len <= limit_bytes)
		b += len;	/* else the real queue drops it */
	q->backlog = b;
	q->t_ns = now;
	bpf_spin_unlock(&q->lock);
	return b;
}

SEC("tc")
int rina_ecn_mark(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u32 key = 0, off = sizeof(*eth) + offsetof(struct iphdr, check);
	struct rina_ecn_pq *q = bpf_map_lookup_elem(&pq, &key);
	__be16 old_word, new_word;
	__u64 backlog;

	count(RINA_ECN_SEEN);
	if (!q)
		return TC_ACT_OK;
	backlog = pq_enqueue(q, skb->len);
	if (backlog <= mark_bytes)
		return TC_ACT_OK;
	if ((void *)(ip + 1) > data_end ||
	    eth->h_proto != bpf_htons(ETH_P_IP)) {
		count(RINA_ECN_OVER_NOT_IP);
		return TC_ACT_OK;
	}
	if (!(ip->tos & 3)) {
		count(RINA_ECN_OVER_NOT_ECT);	/* a real AQM would drop */
		return TC_ACT_OK;
	}
	if ((ip->tos & 3) == 3) {
		count(RINA_ECN_ALREADY_CE);
		return TC_ACT_OK;
	}
	/* tos shares a 16-bit checksum word with version and ihl */
	old_word = *(__be16 *)ip;
	new_word = bpf_htons((bpf_ntohs(old_word) & ~3) | 3);
	if (bpf_l3_csum_replace(skb, off, old_word, new_word, 2) ||
	    bpf_skb_store_bytes(skb, sizeof(*eth), &new_word, 2, 0)) {
		count(RINA_ECN_ERROR);
		return TC_ACT_OK;
	}
	count(RINA_ECN_MARKED);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
