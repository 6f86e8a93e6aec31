/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Sizes and constants of the INA ToR, in one place. Mirrors
 * p4/configuration.p4 name for name: change both or neither.
 */
#ifndef RINA_TOR_CONFIGURATION_H
#define RINA_TOR_CONFIGURATION_H

#include "compat.h"
#include "wire.h"

/*
 * The simulator models a larger switch (more elements per pass, a pool
 * sized for one job) by defining these two on its command line; every
 * other build uses the values of p4/configuration.p4.
 */
#ifndef RINA_TOR_ELEMS
#define RINA_TOR_ELEMS		256	/* int32 elements added per pass (E) */
#endif
#ifndef RINA_TOR_POOL_SIZE
#define RINA_TOR_POOL_SIZE	4096	/* slots per shadow set, all jobs */
#endif
#define RINA_TOR_MAX_JOBS	16	/* rina_job table size */
#define RINA_TOR_MAX_WORKERS	31	/* local bits 0..30, bit m <= 31 */
#define RINA_TOR_MAX_PORTS	64	/* ports 0..63 */
#define RINA_TOR_L2_SIZE	1024	/* l2_fwd table size */
/* rina_worker table size: every job's local bits and its upstream bit */
#define RINA_TOR_WORKER_SIZE	(RINA_TOR_MAX_JOBS * (RINA_TOR_MAX_WORKERS + 1))
#define RINA_TOR_MAX_GROUPS	64	/* multicast groups */
#define RINA_TOR_MAX_NODES	1024	/* multicast nodes */
#define RINA_TOR_RID_SIZE	1024	/* replica table size */
#define RINA_TOR_DROP_SIZE	16	/* drop_sim table size */
#define RINA_TOR_FLOOD_GRP	1	/* multicast group of L2 floods */
#define RINA_TOR_DROP_PORT	511	/* v1model drop port */

/* Ethernet | IPv4 (no options) | UDP in front of the Rina header. */
#define RINA_TOR_L3_OFF		14
#define RINA_TOR_L4_OFF		34
#define RINA_TOR_RINA_OFF	42
#define RINA_TOR_FRAME_MAX	9216	/* largest frame switched */

/* meta.emit: which replica classes of the job's group survive egress. */
#define RINA_EMIT_LOCAL		0x01	/* every local worker */
#define RINA_EMIT_ONE		0x02	/* the local worker meta.one_bit */
#define RINA_EMIT_NEXT		0x04	/* the next ring member */
#define RINA_EMIT_UP		0x08	/* header-only ACK to the upstream */
#define RINA_EMIT_AGENT		0x10	/* the agent (ip:0x524f) */

/* Replica classes of the egress "replica" table (action chosen). */
#define RINA_RW_LOCAL		1
#define RINA_RW_NEXT		2
#define RINA_RW_UP		3
#define RINA_RW_AGENT		4
/* the local worker on the agent's host: no AG_DATA, the agent relays */
#define RINA_RW_HOST		5

/* Per-job ingress counters: RinaIngress.counters.job_ctr[job * N + id]. */
enum rina_tor_job_ctr {
	RINA_TC_CONTRIB_IN,	/* SR_CONTRIB from a local worker */
	RINA_TC_PARTIAL_IN,	/* SR_PARTIAL from the upstream member */
	RINA_TC_AG_IN,		/* AG_DATA from the upstream member */
	RINA_TC_ACK_IN,		/* ACK from the downstream member */
	RINA_TC_NACK_IN,	/* NACK, passed to the agent */
	RINA_TC_CTRL_IN,	/* CTRL, passed to the agent */
	RINA_TC_BYPASS_IN,	/* SW_BYPASS set by the sender: passed */
	RINA_TC_SLOT_DONE,	/* slots completed (one partial/AG each) */
	RINA_TC_DUP,		/* contributor already counted */
	RINA_TC_REEMIT,		/* stored result sent again */
	RINA_TC_STALE,		/* older than the slot occupant: dropped */
	RINA_TC_COLLISION,	/* window violated: bypassed to the agent */
	RINA_TC_OVERFLOW,	/* int32 add wrapped in a slot */
	RINA_TC_BAD,		/* chunk/p_chunk/bit inconsistent: dropped */
	RINA_TC_TOO_LONG,	/* n_elem above RINA_TOR_ELEMS: bypassed */
	RINA_TC_NO_WORKER,	/* SR_CONTRIB from no local worker: passed */
	RINA_TC_DROP_SIM,	/* dropped by the ingress drop simulator */
	RINA_TC_BAD_TAG,	/* not the job's data tag: dropped */
	__RINA_TC_MAX,
};

/* Per-job egress counters: RinaEgress.counters.job_out[job * N + id]. */
enum rina_tor_out_ctr {
	RINA_TO_PARTIAL_OUT,	/* SR_PARTIAL to the next member */
	RINA_TO_AG_OUT,		/* AG_DATA to the next member */
	RINA_TO_AG_MCAST,	/* AG_DATA copies to local workers */
	RINA_TO_ACK_OUT,	/* ACKs to the upstream member */
	RINA_TO_ACK_MCAST,	/* ACK copies to local workers */
	RINA_TO_DROP_SIM,	/* replicas dropped by the egress simulator */
	RINA_TO_AG_AGENT,	/* AG_DATA copies to the agent */
	__RINA_TO_MAX,
};

/*
 * Switch-wide counters: RinaIngress.counters.tor_ctr[id]. Indexes
 * 0..__RINA_PARSE_MAX-1 count parse verdicts by enum rina_parse_err
 * (RINA_PARSE_OK counts well-formed Rina packets, UNKNOWN_JOB those that
 * match no installed job and are forwarded untouched).
 */
enum rina_tor_sw_ctr {
	RINA_TS_NON_RINA = __RINA_PARSE_MAX,	/* plain L2 forwarding */
	RINA_TS_L2_FLOOD,			/* l2_fwd miss: flooded */
	RINA_TS_L2_RUNT,			/* shorter than Ethernet: dropped */
	RINA_TS_GIANT,				/* above RINA_TOR_FRAME_MAX */
	__RINA_TS_MAX,
};

#define RINA_TOR_JOB_CTR_NAMES {				\
	"contrib_in", "partial_in", "ag_in", "ack_in", "nack_in",	\
	"ctrl_in", "bypass_in", "slot_done", "dup", "reemit",	\
	"stale", "collision", "overflow", "bad", "too_long",	\
	"no_worker", "drop_sim", "bad_tag" }
#define RINA_TOR_OUT_CTR_NAMES {				\
	"partial_out", "ag_out", "ag_mcast", "ack_out", "ack_mcast",	\
	"drop_sim_out", "ag_agent" }

#endif /* RINA_TOR_CONFIGURATION_H */
