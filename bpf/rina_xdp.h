/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared between the host XDP program (rina_xdp.bpf.c) and the userspace
 * that loads it or reads its counters (rinactl xdp, librina's AF_XDP
 * transport, selftests): counter indices, map names and limits.
 */
#ifndef RINA_XDP_H
#define RINA_XDP_H

#include <linux/types.h>

/* Map and program names, as userspace finds them on an attached program. */
#define RINA_XDP_PROG_NAME	"rina_xdp"
#define RINA_XDP_XSKS_MAP	"xsks_map"
#define RINA_XDP_STATS_MAP	"rina_stats"
#define RINA_XDP_JOBS_MAP	"rina_jobs"

#define RINA_XDP_MAX_QUEUES	64	/* xsks_map entries */
#define RINA_XDP_MAX_JOBS	256	/* rina_jobs entries */

/*
 * Index into the per-CPU counter array rina_stats. Drops found by the
 * shared header validator are counted at RINA_XDP_DROP_PARSE + enum
 * rina_parse_err (core/wire.h); RINA_XDP_PARSE_SLOTS reserves room.
 */
enum rina_xdp_counter {
	RINA_XDP_PASS_OTHER = 0,	/* not Rina: passed untouched */
	RINA_XDP_REDIRECT,		/* worker port -> AF_XDP socket */
	RINA_XDP_PASS_NO_XSK,		/* worker port, no XSK on queue */
	RINA_XDP_PASS_AGENT,		/* agent port -> kernel stack */
	RINA_XDP_DROP_FAULT,		/* injected loss (drop_ppm) */
	RINA_XDP_DROP_IP_OPTIONS,	/* Rina port, IPv4 options */
	RINA_XDP_DROP_FRAGMENT,		/* Rina port, first fragment */
	RINA_XDP_DROP_UDP_LEN,		/* UDP/IP lengths or frame bad */
	RINA_XDP_DROP_PARSE,		/* + enum rina_parse_err */
	RINA_XDP_PARSE_SLOTS = 16,
	RINA_XDP_NR_COUNTERS = RINA_XDP_DROP_PARSE + RINA_XDP_PARSE_SLOTS,
};

#define RINA_XDP_COUNTER_NAMES {				\
	[RINA_XDP_PASS_OTHER]		= "pass_other",		\
	[RINA_XDP_REDIRECT]		= "redirect_xsk",	\
	[RINA_XDP_PASS_NO_XSK]		= "pass_no_xsk",	\
	[RINA_XDP_PASS_AGENT]		= "pass_agent",		\
	[RINA_XDP_DROP_FAULT]		= "drop_fault",		\
	[RINA_XDP_DROP_IP_OPTIONS]	= "drop_ip_options",	\
	[RINA_XDP_DROP_FRAGMENT]	= "drop_fragment",	\
	[RINA_XDP_DROP_UDP_LEN]		= "drop_udp_len",	\
}

#endif /* RINA_XDP_H */
