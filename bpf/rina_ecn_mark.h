/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared between the ECN marker (rina_ecn_mark.bpf.c) and the userspace
 * that attaches it or reads its counters (rina-ecn-mark, selftests).
 */
#ifndef RINA_ECN_MARK_H
#define RINA_ECN_MARK_H

#include <linux/bpf.h>

/* ecn_stats indices: per-CPU packet counts */
enum rina_ecn_counter {
	RINA_ECN_SEEN,		/* every packet out of the device */
	RINA_ECN_MARKED,	/* CE set: above the threshold, ECN-capable */
	RINA_ECN_OVER_NOT_ECT,	/* above it, not ECN-capable: passed */
	RINA_ECN_OVER_NOT_IP,	/* above it, not IPv4 */
	RINA_ECN_ALREADY_CE,	/* above it, marked before */
	RINA_ECN_ERROR,		/* the rewrite failed */
	RINA_ECN_NR_COUNTERS,
};

#define RINA_ECN_COUNTER_NAMES {			\
	[RINA_ECN_SEEN]		= "seen",		\
	[RINA_ECN_MARKED]	= "marked",		\
	[RINA_ECN_OVER_NOT_ECT]	= "over_not_ect",	\
	[RINA_ECN_OVER_NOT_IP]	= "over_not_ip",	\
	[RINA_ECN_ALREADY_CE]	= "already_ce",		\
	[RINA_ECN_ERROR]	= "error",		\
}

/* The phantom queue: the value of the program's one-entry "pq" map. */
struct rina_ecn_pq {
	struct bpf_spin_lock lock;
	__u64 t_ns;		/* when backlog was last updated */
	__u64 backlog;		/* bytes the link's queue would hold */
};

/* The tc filter's priority and handle on egress, to find it again. */
#define RINA_ECN_TC_PRIO	0x5245
#define RINA_ECN_TC_HANDLE	0x5245

#endif /* RINA_ECN_MARK_H */
