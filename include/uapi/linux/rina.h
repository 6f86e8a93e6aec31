/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Rina: in-network aggregation for Ring-AllReduce.
 *
 * The one header shared by the kernel module, the XDP program, librina,
 * the software ToR and the tools: the wire header, its codes, the UDP
 * port range, and (below the wire section) the generic netlink family,
 * the /dev/rina ioctls and the sysctl names.
 *
 * The wire format is specified field by field in Documentation/protocol.md.
 */
#ifndef _UAPI_LINUX_RINA_H
#define _UAPI_LINUX_RINA_H

#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* Wire format                                                         */
/* ------------------------------------------------------------------ */

#define RINA_VERSION		1

/*
 * UDP destination ports 0x5240..0x524f are Rina: ranks use
 * 0x5240..0x5247, INA agents 0x5248..0x524f (a rack's agent_port), by
 * default the last one, which is also the ToR's control port. Agent
 * ports go up the stack (XDP passes them).
 */
#define RINA_UDP_PORT_MIN	0x5240
#define RINA_UDP_PORT_MAX	0x524f
#define RINA_UDP_PORT_MASK	0xfff0
#define RINA_UDP_PORT_WORKER	0x5240	/* default worker port */
#define RINA_UDP_PORT_AGENT_MIN	0x5248	/* first agent port */
#define RINA_UDP_PORT_AGENT	0x524f	/* default agent / ToR control */

enum rina_opcode {
	RINA_OP_SR_CONTRIB	= 1,	/* local worker -> own ToR / agent */
	RINA_OP_SR_PARTIAL	= 2,	/* ring member -> next member */
	RINA_OP_AG_DATA		= 3,	/* fully reduced data, allgather */
	RINA_OP_ACK		= 4,	/* payload: n_elem acked __be32 seqs */
	RINA_OP_NACK		= 5,	/* payload: n_elem missing __be32 seqs */
	RINA_OP_CTRL		= 6,	/* payload: struct rina_ctrl */
	__RINA_OP_MAX,
};
#define RINA_OP_MAX		(__RINA_OP_MAX - 1)

enum rina_hdr_flags {
	RINA_F_RETX		= 0x01,	/* retransmission */
	RINA_F_LAST		= 0x02,	/* last packet of its chunk */
	RINA_F_OWN_FINAL	= 0x04,	/* owner's fully reduced chunk */
	RINA_F_SW_BYPASS	= 0x08,	/* switch must not aggregate */
	RINA_F_OVERFLOW		= 0x10,	/* int32 wrap-around seen upstream */
	RINA_F_ECN_ECHO		= 0x20,
	RINA_F_FROM_SWITCH	= 0x40,	/* emitted by an INA ToR */
	RINA_F_AG_PHASE		= 0x80,	/* allgather data, or ACK/NACK of it */
};

/* dtype_op: high nibble data type, low nibble reduction */
enum rina_wire_dtype {
	RINA_WIRE_FIXED32	= 0,	/* int32 fixed point (quantised float) */
	RINA_WIRE_INT32		= 1,	/* raw int32 */
};

enum rina_wire_op {
	RINA_WIRE_SUM		= 0,
	RINA_WIRE_MAX		= 1,
};

#define RINA_DTYPE_OP(dt, op)	((__u8)(((dt) << 4) | ((op) & 0xf)))
#define RINA_DTYPE_OF(x)	((x) >> 4)
#define RINA_OP_OF(x)		((x) & 0xf)

#define RINA_EXP_NONE		((__s8)-128)	/* exp field unused */
#define RINA_SRC_SWITCH		0xf000	/* src_id | rack for ToR packets */

/*
 * The Rina header, after Ethernet | IPv4 | UDP. Network byte order.
 * Payload: n_elem x __be32 (data, or seqs for ACK/NACK, or a control msg).
 */
struct rina_hdr {
	__u8	ver_op;		/* version << 4 | opcode */
	__u8	flags;		/* enum rina_hdr_flags */
	__be16	job_id;
	__be16	round;		/* allreduce call number within the job */
	__u8	step;		/* ring step at the receiver (tracing) */
	__u8	hop;		/* allgather hops travelled */
	__be16	src_id;		/* sender rank, or RINA_SRC_SWITCH | rack */
	__be16	chunk;		/* ring chunk 0..L-1 */
	__be32	seq;		/* packet identity within the round */
	__be16	slot;		/* receiver-side ordinal mod 65536 */
	__be16	n_elem;		/* payload words */
	__be16	p_chunk;	/* packets per chunk (P) */
	__be16	num_contrib;	/* contributions summed into payload */
	__s8	exp;		/* block exponent, or RINA_EXP_NONE */
	__u8	dtype_op;	/* RINA_DTYPE_OP() */
	__be16	rsvd;		/* RINA_X_TAG, RINA_X_MAC or zero */
} __attribute__((packed));

/*
 * rsvd = RINA_X_TAG: the job's RINA_TAG_LEN-byte data tag follows the
 * payload, outside n_elem (protocol.md 6.3). Not on CTRL, which signs.
 */
#define RINA_X_TAG		0x8000
#define RINA_TAG_LEN		8
/*
 * rsvd = RINA_X_MAC: in a job with `auth mac`, a RINA_TAG_LEN-byte MAC of
 * the header and payload follows instead (protocol.md 6.4).
 */
#define RINA_X_MAC		0x4000

#define RINA_HDR_LEN		28
#define RINA_MAX_ELEMS		1024	/* largest E a packet may carry */
#define RINA_MAX_PAYLOAD	(RINA_MAX_ELEMS * 4)

#ifdef __cplusplus
static_assert(sizeof(struct rina_hdr) == RINA_HDR_LEN, "rina_hdr size");
#else
_Static_assert(sizeof(struct rina_hdr) == RINA_HDR_LEN, "rina_hdr size");
#endif

/* Control messages (RINA_OP_CTRL payload, n_elem = 4, or 8 signed). */
enum rina_ctrl_type {
	RINA_CTRL_HELLO		= 1,	/* arg: 0; hash: job description hash */
	RINA_CTRL_HELLO_ACK	= 2,	/* reply, same fields */
	RINA_CTRL_ABORT		= 3,	/* arg: enum rina_result of the aborter */
	RINA_CTRL_BYE		= 4,	/* to next: all my sends are acked */
	RINA_CTRL_BYE_ACK	= 5,
	RINA_CTRL_STALL		= 6,	/* INA worker -> its agent: no progress
					 * for a quarter of the timeout; arg:
					 * the timeout, ms (protocol-ina.md) */
	RINA_CTRL_TOR_LOST	= 7,	/* INA agent -> its workers: the ToR
					 * went silent, the agent aggregates;
					 * timers start over; arg: 0 */
	RINA_CTRL_TOR_ON	= 8,	/* INA agent -> a worker on its own
					 * host: the ToR aggregates, send
					 * contributions to its address; arg: 0
					 */
	RINA_CTRL_TOR_INSTALL	= 16,	/* agent -> ToR, see protocol.md */
	RINA_CTRL_TOR_REMOVE	= 17,
	RINA_CTRL_TOR_REPLY	= 18,
};

struct rina_ctrl {
	__be32	type;		/* enum rina_ctrl_type */
	__be32	arg;
	__be64	hash;
} __attribute__((packed));

#define RINA_CTRL_WORDS		4

/*
 * The session: a 64-bit number the ring's first member draws for every
 * new session and HELLO carries around the ring (a member greets
 * downstream once it knows it); HELLO_ACK of an INA agent gives it to
 * the rack's workers, and TOR_INSTALL to the ToR. The job's data tag and
 * `auth mac` key are derived from it (protocol.md 6.3), so that nothing
 * recorded in one session of a job passes in another. In a CTRL's
 * header: the high 32 bits in `seq`, the low ones in `chunk` (high 16)
 * and `slot`; signed with the rest of it. 0: not known yet.
 */

/*
 * The arg of a RINA_CTRL_TOR_REPLY: the ToR's answer to a TOR_INSTALL or
 * TOR_REMOVE (protocol-ina.md, "The ToR control protocol"). A request
 * that does not prove it comes from a job the ToR holds is answered
 * RINA_TOR_ST_UNKNOWN_JOB, whatever else is wrong with it. A TOR_INSTALL
 * that finds the job's session held is answered OK; one that installs it
 * (a fresh epoch, empty slots) RINA_TOR_ST_INSTALLED, also a success: an
 * agent whose probe gets it knows the ToR forgot what it held.
 */
enum rina_tor_status {
	RINA_TOR_ST_OK		= 0,
	RINA_TOR_ST_UNKNOWN_JOB	= 1,
	RINA_TOR_ST_NO_SLOTS	= 2,	/* no room in the ToR's pool or tables */
	RINA_TOR_ST_BAD_PARAMS	= 3,	/* e.g. elements above the ToR's */
	RINA_TOR_ST_INSTALLED	= 4,	/* ok, installed by this request */
};

/*
 * In a job with a secret every control message is followed by this
 * (n_elem = RINA_CTRL_AUTH_WORDS, protocol.md 6.2): the sender's wall
 * clock for freshness, and a SipHash-2-4 MAC under the job secret of the
 * header, the struct rina_ctrl, the stamp and the destination.
 */
struct rina_ctrl_auth {
	__be64	stamp;		/* sender's CLOCK_REALTIME, microseconds */
	__u8	mac[8];		/* SipHash-2-4 output bytes */
} __attribute__((packed));

#define RINA_CTRL_AUTH_WORDS	8
#define RINA_SECRET_LEN		16	/* a SipHash key */

/* ------------------------------------------------------------------ */
/* Generic netlink family "rina" (Documentation/netlink/rina.yaml)     */
/* ------------------------------------------------------------------ */

#define RINA_GENL_NAME		"rina"
#define RINA_GENL_VERSION	1
#define RINA_GENL_MCGRP_EVENTS	"events"

/*
 * Limits and ranges follow the shared job description (core/plan.h and
 * Documentation/job-file.md): up to 256 ranks and 64 racks per job.
 */

enum rina_genl_cmd {
	RINA_CMD_UNSPEC,
	RINA_CMD_JOB_ADD,	/* admin: add a job (rank and rack tables) */
	RINA_CMD_JOB_DEL,	/* admin: delete a job by id */
	RINA_CMD_JOB_GET,	/* one job by id, or dump all jobs */
	RINA_CMD_STATS_GET,	/* netns totals, or dump one row per CPU */
	RINA_CMD_JOB_EVENT,	/* notification on the "events" group */
	__RINA_CMD_MAX,
};
#define RINA_CMD_MAX		(__RINA_CMD_MAX - 1)

/* attribute-set "job": top level of every message */
enum rina_job_attr {
	RINA_A_JOB_UNSPEC,
	RINA_A_JOB_ID,		/* u16, 1..65535 */
	RINA_A_JOB_ELEMS,	/* u16, E: elements per packet, 1..1024 */
	RINA_A_JOB_WINDOW,	/* u16, W: power of two, 2..32768 */
	RINA_A_JOB_TIMEOUT_MS,	/* u32, no-progress timeout, 10..3600000 */
	RINA_A_JOB_RTO_US,	/* u32, initial retransmission timeout,
				 * 50..10000000 and below the timeout */
	RINA_A_JOB_RANKS,	/* nest of RINA_A_JOB_RANK */
	RINA_A_JOB_RACKS,	/* nest of RINA_A_JOB_RACK */
	RINA_A_JOB_STATE,	/* u8, enum rina_job_state (output) */
	RINA_A_JOB_N_ATTACHED,	/* u32, ranks attached via /dev/rina (output) */
	RINA_A_JOB_RING_LEN,	/* u32, L: ring members (output) */
	RINA_A_JOB_AGENTS,	/* u32, INA racks with an agent (output) */
	RINA_A_JOB_EVENT,	/* u8, enum rina_event_type (notification) */
	RINA_A_JOB_EVENT_RANK,	/* u16, rank concerned (notification) */
	RINA_A_JOB_RANK,	/* nest, attribute-set "rank" (in RANKS) */
	RINA_A_JOB_RACK,	/* nest, attribute-set "rack" (in RACKS) */
	RINA_A_JOB_LOCAL_AGENTS, /* u32, agent workers on this host (output) */
	RINA_A_JOB_SECRET,	/* binary, RINA_SECRET_LEN bytes: the job
				 * secret (JOB_ADD only; never sent back) */
	RINA_A_JOB_SIGNED,	/* u8, 1: the job has a secret (output) */
	RINA_A_JOB_AUTH,	/* u8, enum rina_job_auth (acts with a secret) */
	RINA_A_JOB_FALLBACK,	/* u8, enum rina_fallback of its local agents
				 * (absent in JOB_ADD: net.rina.fallback) */
	RINA_A_JOB_PAD,
	RINA_A_JOB_LOCAL_AGENT,	/* nest, attribute-set "agent", one per local
				 * agent worker (output, repeated) */
	__RINA_A_JOB_MAX,
};
#define RINA_A_JOB_MAX		(__RINA_A_JOB_MAX - 1)

/* How a signed job's data packets prove they are its (protocol.md 6.3, 6.4) */
enum rina_job_auth {
	RINA_JOB_AUTH_TAG	= 0,	/* the session's tag after payload */
	RINA_JOB_AUTH_MAC	= 1,	/* a SipHash MAC per packet */
};

/* The rack's ToR as its agent sees it (protocol-ina.md section 9). */
enum rina_agent_tor_state {
	RINA_AGENT_TOR_ST_NONE	= 0,	/* no ToR address: software only */
	RINA_AGENT_TOR_ST_WAIT	= 1,	/* TOR_INSTALL sent, no reply yet */
	RINA_AGENT_TOR_ST_ON	= 2,	/* the ToR aggregates the rack */
	RINA_AGENT_TOR_ST_OFF	= 3,	/* refused or silent: software */
	RINA_AGENT_TOR_ST_LOST	= 4,	/* went silent while it aggregated */
};

/* attribute-set "agent": a local agent worker and its counters (u64) */
enum rina_agent_attr {
	RINA_A_AGENT_UNSPEC,
	RINA_A_AGENT_PAD,
	RINA_A_AGENT_RANK,		/* u16, the agent rank */
	RINA_A_AGENT_RACK,		/* u16 */
	RINA_A_AGENT_TOR,		/* u8, enum rina_agent_tor_state */
	RINA_A_AGENT_TOR_STATUS,	/* u32, last TOR_REPLY status, or
					 * 0xffffffff: no reply came */
	RINA_A_AGENT_CONTRIB_IN,	/* workers' contributions added */
	RINA_A_AGENT_PARTIAL_IN,	/* upstream partials added */
	RINA_A_AGENT_SLOTS_DONE,	/* slots completed in software */
	RINA_A_AGENT_AG_OUT,		/* allgather data sent downstream */
	RINA_A_AGENT_AG_RETRANSMITS,
	RINA_A_AGENT_NACKS_IN,
	RINA_A_AGENT_REPAIRS,
	RINA_A_AGENT_TOR_COPIES,	/* allgather copies the ToR sent */
	RINA_A_AGENT_TOR_RELAYS,	/* own-rank contributions to the ToR */
	RINA_A_AGENT_TOR_HELD,		/* data dropped while asking it */
	RINA_A_AGENT_TOR_PROBES,	/* TOR_INSTALLs to a quiet ToR */
	RINA_A_AGENT_TOR_LOST,		/* times it went silent while on */
	RINA_A_AGENT_TOR_RETURNS,	/* times it took the job again */
	RINA_A_AGENT_SESSIONS,
	RINA_A_AGENT_ABORTS,
	RINA_A_AGENT_MALFORMED,
	RINA_A_AGENT_BAD_TAG,
	RINA_A_AGENT_SEND_ERRORS,
	RINA_A_AGENT_ASKS_OUT,		/* partials asked of upstream again */
	RINA_A_AGENT_ASKS_IN,		/* asked of us by downstream */
	RINA_A_AGENT_GAP_NACKS,		/* local workers asked for a gap */
	__RINA_A_AGENT_MAX,
};
#define RINA_A_AGENT_MAX	(__RINA_A_AGENT_MAX - 1)

/* attribute-set "rank": one row of the rank table */
enum rina_rank_attr {
	RINA_A_RANK_UNSPEC,
	RINA_A_RANK_ID,		/* u16, 0..255; ranks are 0..N-1, each once */
	RINA_A_RANK_IPV4,	/* u32, network byte order, not 0 */
	RINA_A_RANK_MAC,	/* binary, 6 bytes (optional) */
	RINA_A_RANK_PORT,	/* u16, RINA_UDP_PORT_MIN..RINA_UDP_PORT_AGENT_MIN-1
				 * (default RINA_UDP_PORT_WORKER) */
	RINA_A_RANK_RACK,	/* u16, a rack id of the rack table */
	__RINA_A_RANK_MAX,
};
#define RINA_A_RANK_MAX		(__RINA_A_RANK_MAX - 1)

/* attribute-set "rack": one row of the rack table */
enum rina_rack_attr {
	RINA_A_RACK_UNSPEC,
	RINA_A_RACK_ID,		/* u16 */
	RINA_A_RACK_INA,	/* flag: the ToR aggregates */
	RINA_A_RACK_TOR_IPV4,	/* u32, ToR control address, network order */
	RINA_A_RACK_TOR_PORT,	/* u16, ToR control port (default agent port) */
	RINA_A_RACK_AGENT_PORT,	/* u16, agent port 0x5248..0x524f (absent: 0x524f) */
	__RINA_A_RACK_MAX,
};
#define RINA_A_RACK_MAX		(__RINA_A_RACK_MAX - 1)

/* attribute-set "stats": RINA_CMD_STATS_GET replies */
enum rina_stats_attr {
	RINA_A_STATS_UNSPEC,
	RINA_A_STATS_PAD,
	RINA_A_STATS_CPU,		/* u32, present in per-CPU dump rows */
	RINA_A_STATS_JOBS,		/* u32, jobs now (totals only) */
	RINA_A_STATS_JOBS_ADDED,	/* u64 */
	RINA_A_STATS_JOBS_DELETED,	/* u64 */
	RINA_A_STATS_JOB_REJECTS,	/* u64, invalid JOB_ADD/DEL requests */
	RINA_A_STATS_ATTACHES,		/* u64 */
	RINA_A_STATS_DETACHES,		/* u64, explicit and on close */
	RINA_A_STATS_IOCTL_REJECTS,	/* u64, invalid /dev/rina requests */
	RINA_A_STATS_MEMBERS_LOST,	/* u64, attached fd closed unannounced */
	RINA_A_STATS_JOBS_ABORTED,	/* u64 */
	RINA_A_STATS_AGENT_RX,		/* u64, well-formed, to the agent port */
	/* u64 each: agent-port packets dropped, by enum rina_parse_err */
	RINA_A_STATS_AGENT_DROP_RUNT,
	RINA_A_STATS_AGENT_DROP_BAD_VERSION,
	RINA_A_STATS_AGENT_DROP_BAD_OPCODE,
	RINA_A_STATS_AGENT_DROP_BAD_LENGTH,
	RINA_A_STATS_AGENT_DROP_OVERSIZE,
	RINA_A_STATS_AGENT_DROP_BAD_DTYPE,
	RINA_A_STATS_AGENT_DROP_BAD_FIELD,
	RINA_A_STATS_AGENT_DROP_UNKNOWN_JOB,
	__RINA_A_STATS_MAX,
};
#define RINA_A_STATS_MAX	(__RINA_A_STATS_MAX - 1)

enum rina_job_state {
	RINA_JOB_READY		= 1,	/* configured, waiting for ranks */
	RINA_JOB_ACTIVE		= 2,	/* at least one rank attached */
	RINA_JOB_ABORTED	= 3,	/* a member was lost */
};

enum rina_event_type {
	RINA_EVENT_JOB_ADDED	= 1,
	RINA_EVENT_JOB_DELETED	= 2,
	RINA_EVENT_MEMBER_LOST	= 3,	/* EVENT_RANK: fd closed while attached */
	RINA_EVENT_JOB_ABORTED	= 4,
};

/* ------------------------------------------------------------------ */
/* /dev/rina ioctls                                                    */
/* ------------------------------------------------------------------ */

/*
 * Every ioctl struct starts with its size in bytes, set by the caller to
 * sizeof() of the struct it was compiled with. The kernel accepts any
 * size from the first published one (_SIZE_VER0) up to a page: a larger
 * struct from a newer caller is accepted when the bytes the kernel does
 * not know are zero (E2BIG otherwise), as for clone3()/openat2().
 * Unknown flags and non-zero reserved fields are rejected with EINVAL.
 */
#define RINA_DEV_NAME		"rina"
#define RINA_IOC_MAGIC		0xb7

struct rina_attach {
	__u32	size;		/* sizeof(struct rina_attach) */
	__u32	flags;		/* none defined yet: must be 0 */
	__u16	job_id;
	__u16	rank;
	__u32	rsvd;		/* must be 0 */
};
#define RINA_ATTACH_SIZE_VER0	16

/* One member of the ring, in ring order. */
struct rina_ring_member {
	__u16	rank;		/* the rank, or the agent rank of an INA rack */
	__u16	rack;
	__u8	ina;		/* 1: abstracted member (INA rack) */
	__u8	rsvd0;
	__u16	port;		/* UDP port, host order */
	__be32	ipv4;
	__u8	mac[6];
	__u16	rsvd1;
};

struct rina_plan {
	__u32	size;		/* sizeof(struct rina_plan) */
	__u32	flags;		/* in: must be 0; out: RINA_PLAN_F_* */
	__u64	ring;		/* in: user pointer to ring_cap members */
	__u32	ring_cap;	/* in: entries at ring (0: count only) */
	__u32	ring_len;	/* out: L */
	__u16	job_id;		/* out */
	__u16	rank;		/* out: the attached rank */
	__u16	member;		/* out: this rank's ring member index */
	__u16	agent;		/* out: agent rank of this rank's rack, or
				 * RINA_NO_AGENT if the rack is not INA */
	__u16	elems;		/* out: E */
	__u16	window;		/* out: W */
	__u32	timeout_ms;	/* out */
	__u32	rto_us;		/* out */
	__u32	rsvd0;		/* out: 0 (was net.rina.retries, which
				 * nothing used: removed) */
	__u16	n_ranks;	/* out */
	__u16	is_agent;	/* out: 1 if this rank is its rack's agent */
	struct rina_ring_member prev;	/* out: upstream member */
	struct rina_ring_member next;	/* out: downstream member */
	__u32	rsvd;		/* must be 0 */
};
#define RINA_PLAN_SIZE_VER0	96
#define RINA_PLAN_F_SIGNED	0x1	/* the job has a secret (signed, tagged) */
#define RINA_PLAN_F_KERNEL_AGENT 0x2	/* rina.ko runs this rank's rack's
					 * agent here (it owns the agent port) */
#define RINA_NO_AGENT		0xffff

#define RINA_IOC_ATTACH		_IOW(RINA_IOC_MAGIC, 1, struct rina_attach)
#define RINA_IOC_DETACH		_IO(RINA_IOC_MAGIC, 2)
#define RINA_IOC_GET_PLAN	_IOWR(RINA_IOC_MAGIC, 3, struct rina_plan)

/*
 * read() on an attached /dev/rina fd returns whole events of the job it is
 * attached to (member lost, job aborted, job deleted); poll() reports
 * EPOLLIN when one is queued. Up to RINA_DEV_EVENT_QUEUE are kept per fd;
 * more are dropped and counted in the next event's "dropped".
 */
struct rina_dev_event {
	__u32	type;		/* enum rina_event_type */
	__u16	job_id;
	__u16	rank;		/* rank concerned, or RINA_NO_RANK */
	__u32	state;		/* enum rina_job_state after the event */
	__u32	dropped;	/* events lost before this one */
};
#define RINA_NO_RANK		0xffff
#define RINA_DEV_EVENT_QUEUE	16

/* ------------------------------------------------------------------ */
/* sysctls: /proc/sys/net/rina/<name>, one set per network namespace   */
/* ------------------------------------------------------------------ */

#define RINA_SYSCTL_TIMEOUT_MS		"timeout_ms"	  /* 10..3600000 */
#define RINA_SYSCTL_RTO_US		"rto_us"	  /* 50..10000000 */
#define RINA_SYSCTL_DEFAULT_WINDOW	"default_window"  /* 2..32768, 2^n */
#define RINA_SYSCTL_DEFAULT_ELEMS	"default_elems"	  /* 1..1024 */
#define RINA_SYSCTL_FALLBACK		"fallback"	  /* rina_fallback */
#define RINA_SYSCTL_DEBUG		"debug"		  /* 0..3, log level */

enum rina_fallback {
	RINA_FALLBACK_ABORT	= 0,	/* ToR cannot aggregate: abort the job */
	RINA_FALLBACK_SOFTWARE	= 1,	/* the agent aggregates in software */
	RINA_FALLBACK_RING	= 2,	/* the rack's workers join the plain ring */
};

#endif /* _UAPI_LINUX_RINA_H */
