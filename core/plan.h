/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Job description and ring plan: who is in the ring, in which order, and
 * which rank speaks for an INA rack. Shared by librina, the kernel module
 * and the software ToR so that every party derives the same ring.
 */
#ifndef RINA_CORE_PLAN_H
#define RINA_CORE_PLAN_H

#include "compat.h"
#include <linux/rina.h>

/* The simulator builds its own copy with more ranks (-DRINA_MAX_RANKS). */
#ifndef RINA_MAX_RANKS
#define RINA_MAX_RANKS		256
#endif
#define RINA_MAX_RACKS		64
#define RINA_MIN_WINDOW		2
#define RINA_MAX_WINDOW		32768	/* power of two; slot field is 16 bits */
/* rina_job_desc.txq_limit: bytes of socket memory (job-file.md) */
#define RINA_TXQ_LIMIT_DEFAULT	16384
#define RINA_TXQ_LIMIT_MIN	1024
#define RINA_TXQ_LIMIT_MAX	(16u << 20)
#define RINA_TXQ_LIMIT_OFF	0xffffffffu

struct rina_rank_desc {
	__be32	ip;		/* IPv4, network order */
	__be16	port;		/* UDP port, network order */
	__u16	rack;		/* rack id */
	__u8	mac[6];		/* all zero: unknown */
	__u8	pad[2];
};

struct rina_rack_desc {
	__u16	id;
	__u8	ina;		/* the ToR can aggregate */
	__u8	pad;
	__be32	tor_ip;		/* ToR control address, 0: none */
	__be16	tor_port;	/* network order */
	/*
	 * The agent's UDP port, network order, RINA_UDP_PORT_AGENT_MIN..
	 * RINA_UDP_PORT_AGENT; 0: RINA_UDP_PORT_AGENT (rina_rack_agent_port()).
	 * Two jobs whose agents share a host each need their own.
	 */
	__be16	agent_port;
};

struct rina_job_desc {
	__u16	job_id;
	__u16	n_ranks;
	__u16	n_racks;
	__u16	elems;		/* E: int32 elements per packet */
	__u16	window;		/* W: packets in flight per hop, power of 2 */
	__u16	cc;		/* RINA_JOB_CC_*: congestion signals used */
	__u32	timeout_ms;	/* no progress for this long: error */
	__u32	rto_us;		/* initial retransmission timeout */
	/* congestion control knobs (cc.h); 0: the default */
	__u32	cc_target_us;	/* queueing delay target */
	__u16	cc_init;	/* initial window, packets */
	__u16	cc_ai;		/* additive increase, 1/1024 packet per RTT */
	__u16	cc_beta;	/* loss decrease, 1/1024 */
	/*
	 * Bytes a bounded sender may keep queued on its own host
	 * (user/lib/endpoint.h, struct rina_txq); 0: RINA_TXQ_LIMIT_DEFAULT,
	 * RINA_TXQ_LIMIT_OFF: no limit. A sender's own policy, not part of
	 * the job hash.
	 */
	__u32	txq_limit;
	/*
	 * The job secret (protocol.md 6.2): control messages are signed
	 * with it when has_secret. Never printed, logged or hashed.
	 */
	__u16	has_secret;
	__u8	secret[RINA_SECRET_LEN];
	/*
	 * RINA_JOB_AUTH_*: how data packets prove they are the job's
	 * (protocol.md 6.3, 6.4); hashed when not the default, since every
	 * rank and agent must agree.
	 */
	__u16	auth;
	/*
	 * enum rina_fallback: an INA rack's agent whose ToR refuses, does
	 * not answer or goes silent (protocol-ina.md section 8). The
	 * agent's own policy, not part of the job hash.
	 */
	__u16	fallback;
	struct rina_rank_desc ranks[RINA_MAX_RANKS];	/* index = rank */
	struct rina_rack_desc racks[RINA_MAX_RACKS];
};

/*
 * rina_job_desc.cc: 0 is the default (every signal); otherwise the
 * signals of core/cc.h (RINA_CC_F_*), or RINA_JOB_CC_OFF for a fixed
 * window of W packets. Per sender: ranks may differ, so it is not part
 * of the job hash.
 */
#define RINA_JOB_CC_OFF		0x8000

/*
 * rina_job_desc.auth, with a secret: the job's tag, or a MAC per packet
 * (enum rina_job_auth, the UAPI's RINA_JOB_AUTH_TAG / RINA_JOB_AUTH_MAC)
 */

enum rina_job_err {
	RINA_JOB_OK = 0,
	RINA_JOB_NO_RANKS,
	RINA_JOB_TOO_MANY_RANKS,
	RINA_JOB_TOO_MANY_RACKS,
	RINA_JOB_BAD_ELEMS,
	RINA_JOB_BAD_WINDOW,
	RINA_JOB_BAD_TIMEOUT,
	RINA_JOB_BAD_RTO,
	RINA_JOB_BAD_ADDR,
	RINA_JOB_BAD_PORT,
	RINA_JOB_DUP_ADDR,
	RINA_JOB_UNKNOWN_RACK,
	RINA_JOB_DUP_RACK,
	RINA_JOB_BAD_AGENT_PORT,
	RINA_JOB_MAC_WITH_TOR,
	RINA_JOB_BAD_TOR_PORT,
	RINA_JOB_MIXED_LOOPBACK,
	__RINA_JOB_MAX,
};

/* Why a job was rejected; "what" names the rank or rack index at fault. */
struct rina_job_verdict {
	enum rina_job_err err;
	int what;
};

extern const char *const rina_job_err_names[__RINA_JOB_MAX];

/* The verdict's "what" is a rack index (else a rank's). */
static inline int rina_job_err_is_rack(enum rina_job_err err)
{
	return err == RINA_JOB_DUP_RACK || err == RINA_JOB_BAD_AGENT_PORT ||
	       err == RINA_JOB_MAC_WITH_TOR || err == RINA_JOB_BAD_TOR_PORT;
}

struct rina_job_verdict rina_job_validate(const struct rina_job_desc *job);
const struct rina_rack_desc *rina_job_rack(const struct rina_job_desc *job,
					   unsigned int rack_id);

/* The UDP port (network order) rack rack_id's agent listens on. */
__be16 rina_rack_agent_port(const struct rina_job_desc *job,
			    unsigned int rack_id);

/* One ring member: an autonomous rank or an INA rack spoken for by its agent. */
struct rina_member {
	__u16	rack;
	__u16	agent;		/* rank whose address is the member's address */
	__u16	first;		/* index into rina_ring.order of its first rank */
	__u16	n_local;	/* ranks it stands for (1 if autonomous) */
	__u8	ina;		/* an abstracted member (INA rack) */
	__u8	pad[3];
};

struct rina_ring {
	__u16	L;				/* ring length */
	__u16	n_ranks;
	__u16	order[RINA_MAX_RANKS];		/* ranks, rack-contiguous */
	__u16	member_of[RINA_MAX_RANKS];	/* rank -> member index */
	struct rina_member m[RINA_MAX_RANKS];
};

/*
 * Build the ring of a validated job. Racks in ascending id, ranks in
 * ascending order inside a rack. With use_ina, every INA rack becomes one
 * member whose agent is its lowest rank: L = x + m(k - x).
 */
void rina_ring_build(const struct rina_job_desc *job, int use_ina,
		     struct rina_ring *ring);

static inline unsigned int rina_ring_next(const struct rina_ring *r,
					  unsigned int member)
{
	return member + 1 == r->L ? 0 : member + 1;
}

static inline unsigned int rina_ring_prev(const struct rina_ring *r,
					  unsigned int member)
{
	return member ? member - 1 : r->L - 1u;
}

/* Every member of the ring an INA rack (no plain member). */
static inline int rina_ring_only_ina(const struct rina_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->L; i++)
		if (!r->m[i].ina)
			return 0;
	return r->L > 0;
}

/* 64-bit FNV-1a over the fields every rank must agree on. */
__u64 rina_job_hash(const struct rina_job_desc *job);

#endif /* RINA_CORE_PLAN_H */
