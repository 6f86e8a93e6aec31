/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The C model of the Rina INA ToR (p4/rina_tor.p4), control by control:
 * parsed headers and metadata as in p4/headers.p4, the registers, tables
 * and counters with the P4 names, and the packet entry point. The model
 * is configured through the same runtime CLI commands as the behavioural
 * model (rina_tor_cli()), so one command file drives both.
 */
#ifndef RINA_TOR_MODEL_H
#define RINA_TOR_MODEL_H

#include "compat.h"
#include "wire.h"
#include "slot.h"
#include "configuration.h"

/* ---- headers.p4 ---------------------------------------------------- */

struct tor_ethernet {
	__u8	dst[6];
	__u8	src[6];
	__u16	type;
};

struct tor_ipv4 {
	__u8	ver_ihl, diffserv;
	__u16	total_len, identification, flags_frag;
	__u8	ttl, protocol;
	__u16	csum;
	__u32	src, dst;
};

struct tor_udp {
	__u16	sport, dport, length, csum;
};

struct tor_rina {	/* host-order copy of struct rina_hdr */
	__u8	ver_op, flags;
	__u16	job_id, round;
	__u8	step, hop;
	__u16	src_id, chunk;
	__u32	seq;
	__u16	slot, n_elem, p_chunk, num_contrib;
	__s8	exp;
	__u8	dtype_op;
	__u16	rsvd;
};

struct tor_headers {
	int	eth_valid, ipv4_valid, udp_valid, rina_valid;
	struct tor_ethernet eth;
	struct tor_ipv4 ipv4;
	struct tor_udp udp;
	struct tor_rina rina;
	__u32	n_elems;			/* valid entries of elems[] */
	__u32	elems[RINA_TOR_ELEMS];		/* host order */
	int	tag_valid;			/* rina_tag_t, after elems */
	__u64	tag;				/* its 8 bytes, big-endian */
	const __u8 *rest;			/* unparsed payload */
	__u32	rest_len;
	const __u8 *rina_raw;			/* the Rina header bytes */
	int	csum_update;			/* recompute the IPv4 checksum */
};

/* Job parameters written by the rina_job table (action set_job). */
struct tor_job_params {
	__u16	job_idx, epoch;
	__u16	pool_base, win;		/* W, power of two */
	__u16	member, ring_len;	/* i, L */
	__u16	own_chunk;		/* (i + 1) mod L */
	__u16	up_bit_idx;		/* m: upstream contributor bit */
	__u32	local_mask;
	__u16	mgrp, src_id;		/* group; RINA_SRC_SWITCH | rack */
	__u8	agent_mac[6];
	__u32	agent_ip;		/* source of what the switch emits */
	__u16	agent_port;
	__u8	tagged;			/* the job's packets carry tag */
	__u64	tag;			/* rina_job_tag(), big-endian */
};

struct tor_meta {
	__u16	ingress_port;
	__u16	egress_spec;		/* unicast port, or DROP */
	__u16	mcast_grp;		/* 0: unicast */
	__u8	parse_err;		/* enum rina_parse_err */
	__u8	is_rina;
	__u8	job_hit, worker_hit;
	__u8	bad_tag;		/* TagCheck: not the job's */
	struct tor_job_params job;
	__u32	bit;			/* contributor bit (one-hot) */
	__u32	exp_mask;
	__u8	own, verdict, done_now, overflow;
	__u32	reg_idx;		/* slot register index */
	struct rina_slot slot;		/* the slot registers, read */
	__u8	emit;			/* RINA_EMIT_* */
	__u8	one_bit;		/* worker bit index for RINA_EMIT_ONE */
	__u32	ack_seq;		/* ACK replica: seq, slot, flags */
	__u16	ack_slot;
	__u8	ack_flags, ack_step;
	__u8	out_ecn;		/* ECN field of kept replicas */
	__u32	agent_ip;
	__u16	agent_port;
	__u32	ev;			/* job_ctr events (bit per id) */
	__u32	ev_out;			/* job_out events of a replica */
	__u16	egress_rid;		/* standard_metadata.egress_rid */
	__u16	egress_port;
};

/* The arriving packet's IPv4 ECN field (RINA_ECN_*, core/slot.h). */
static inline __u8 tor_in_ecn(const struct tor_headers *hdr)
{
	return hdr->ipv4.diffserv & 3;
}

/* ---- tables --------------------------------------------------------- */

struct tor_job_entry {
	int	used;
	__u32	dst_ip;
	__u16	dport, job_id;
	struct tor_job_params p;
};

struct tor_worker_entry {
	int	used;
	__u16	job_idx, src_id;
	__u32	src_ip;			/* the worker's address and port */
	__u16	sport;
	__u8	bit;
};

struct tor_l2_entry {
	int	used;
	__u8	mac[6];
	__u16	port;
};

struct tor_rid_entry {
	int	used;
	__u16	rid;
	__u8	cls;			/* RINA_RW_* */
	__u8	bit;			/* local worker bit (RW_LOCAL) */
	__u8	mac[6];
	__u32	ip;
	__u16	port;
};

struct tor_drop_entry {
	int	used;
	__u8	ver_op;
	__u32	rate;			/* drop if (rng >> 16) < rate */
};

struct tor_mc_node {
	int	used;
	__u16	rid;
	__u64	ports;			/* bitmap of RINA_TOR_MAX_PORTS */
	int	grp;			/* associated group, -1: none */
};

/* ---- the switch ----------------------------------------------------- */

struct rina_tor {
	/* RinaIngress.job_classify */
	struct tor_job_entry	rina_job[RINA_TOR_MAX_JOBS];
	struct tor_worker_entry	rina_worker[RINA_TOR_WORKER_SIZE];
	/* RinaIngress.l2_fwd */
	struct tor_l2_entry	l2_fwd[RINA_TOR_L2_SIZE];
	/* RinaIngress.drop_sim / RinaEgress.drop_sim */
	struct tor_drop_entry	drop_in[RINA_TOR_DROP_SIZE];
	struct tor_drop_entry	drop_out[RINA_TOR_DROP_SIZE];
	__u32	drop_rng_in, drop_rng_out;
	/* RinaEgress.rewrite */
	struct tor_rid_entry	replica[RINA_TOR_RID_SIZE];
	/* packet replication engine */
	int	mgrp_used[RINA_TOR_MAX_GROUPS];
	struct tor_mc_node	mc_node[RINA_TOR_MAX_NODES];
	int	n_nodes;	/* above the highest node handle in use */
	/* RinaIngress.slot_tag registers, index = set * POOL + idx */
	__u16	slot_epoch[2 * RINA_TOR_POOL_SIZE];
	__u16	slot_round[2 * RINA_TOR_POOL_SIZE];
	__u32	slot_seq[2 * RINA_TOR_POOL_SIZE];
	__u16	slot_id[2 * RINA_TOR_POOL_SIZE];
	__u32	slot_bitmap[2 * RINA_TOR_POOL_SIZE];
	__u8	slot_state[2 * RINA_TOR_POOL_SIZE];
	__u8	slot_exp[2 * RINA_TOR_POOL_SIZE];
	__u16	slot_ncontrib[2 * RINA_TOR_POOL_SIZE];
	/* RinaIngress.adders registers: slot_val[reg_idx * E + j] */
	__u32	slot_val[2 * RINA_TOR_POOL_SIZE * RINA_TOR_ELEMS];
	__u8	slot_ovf[2 * RINA_TOR_POOL_SIZE];
	/* counters */
	__u64	job_ctr[RINA_TOR_MAX_JOBS * __RINA_TC_MAX];
	__u64	job_out[RINA_TOR_MAX_JOBS * __RINA_TO_MAX];
	__u64	tor_ctr[__RINA_TS_MAX];
};

/* One packet the switch sends. */
struct rina_tor_pkt {
	__u16	port;
	__u16	len;
	__u8	data[RINA_TOR_FRAME_MAX];
};

#define RINA_TOR_MAX_OUT	(RINA_TOR_MAX_PORTS + RINA_TOR_MAX_WORKERS + 3)

struct rina_tor_out {
	unsigned int	n;
	struct rina_tor_pkt pkt[RINA_TOR_MAX_OUT];
};

/* rina_tor.c: the pipeline */
void rina_tor_init(struct rina_tor *sw);
/* Process one frame received on in_port; out->n packets result. */
void rina_tor_process(struct rina_tor *sw, unsigned int in_port,
		      const __u8 *frame, unsigned int len,
		      struct rina_tor_out *out);

/*
 * A contribution between the TNA program's two ingress passes (p4/tna/,
 * Documentation/tofino.md "Pass structure"): the frame as the first pass
 * leaves it and what the first pass found. The TNA program carries the
 * same in its recirculation header (recirc_t): the port it came in on,
 * the contributor bit (cbit), the expected mask (in rem), own, the input
 * OVERFLOW flag (st_in), one_bit and the job's fields its second pass
 * reads (epoch, pool, mgrp, src_id, job_idx, tagged); its egress looks
 * the job's source address up again (job_src), the model carries the
 * job's parameters whole.
 */
struct rina_tor_recirc {
	__u16	ingress_port;
	struct tor_job_params job;
	__u32	agent_ip;
	__u16	agent_port;
	__u32	bit, exp_mask;
	__u8	one_bit, own, overflow;
	struct rina_tor_pkt pkt;	/* the frame, pass 1's deparser's */
};

/*
 * The same pipeline in the TNA program's two passes. rina_tor_pass1()
 * is rina_tor_process() but for a contribution that passed its checks:
 * counted as come in (CONTRIB_IN, PARTIAL_IN), not aggregated, returned
 * in *rc for the recirculation (return 1, out->n 0); 0 otherwise.
 * rina_tor_pass2() runs the slot, the adders, NextStep and egress for
 * it. Called at once one after the other, they are rina_tor_process().
 */
int rina_tor_pass1(struct rina_tor *sw, unsigned int in_port,
		   const __u8 *frame, unsigned int len,
		   struct rina_tor_out *out, struct rina_tor_recirc *rc);
void rina_tor_pass2(struct rina_tor *sw, const struct rina_tor_recirc *rc,
		    struct rina_tor_out *out);

/* cli.c: one runtime CLI command (simple_switch_CLI syntax); 0 or -1. */
int rina_tor_cli(struct rina_tor *sw, const char *line, char *err,
		 unsigned int errlen);
/*
 * The same, and *handle (if not NULL) the handle a table_add or
 * mc_node_create gave, what simple_switch_CLI prints (0 for others):
 * table_delete and mc_node_* take it.
 */
int rina_tor_cli_handle(struct rina_tor *sw, const char *line,
			unsigned int *handle, char *err, unsigned int errlen);
/* Read a counter by its P4 name; -1 if unknown. */
int rina_tor_counter(const struct rina_tor *sw, const char *name,
		     unsigned int index, __u64 *val);
/*
 * parser.c: the checksum of the 20-byte IPv4 header at p (no options),
 * its own checksum field skipped, host order (RinaComputeChecksum's).
 */
__u16 rina_tor_ipv4_csum(const __u8 *p);

/* ---- controls (one file each, named as the P4 controls) ------------- */

int tor_parser(const __u8 *frame, unsigned int len, struct tor_headers *hdr,
	       struct tor_meta *meta);
void tor_deparser(const struct tor_headers *hdr, struct rina_tor_pkt *pkt);
void tor_header_check(struct rina_tor *sw, struct tor_headers *hdr,
		      struct tor_meta *meta, unsigned int frame_len);
void tor_job_classify(struct rina_tor *sw, struct tor_headers *hdr,
		      struct tor_meta *meta);
void tor_tag_check(struct tor_headers *hdr, struct tor_meta *meta);
void tor_worker_classify(struct rina_tor *sw, struct tor_headers *hdr,
			 struct tor_meta *meta);
int tor_drop_sim(struct tor_drop_entry *tbl, __u32 *rng,
		 const struct tor_headers *hdr);
void tor_slot_tag(struct rina_tor *sw, struct tor_headers *hdr,
		  struct tor_meta *meta);
void tor_adders(struct rina_tor *sw, struct tor_headers *hdr,
		struct tor_meta *meta);
void tor_next_step(struct rina_tor *sw, struct tor_headers *hdr,
		   struct tor_meta *meta);
void tor_allgather(struct rina_tor *sw, struct tor_headers *hdr,
		   struct tor_meta *meta);
void tor_l2_forward(struct rina_tor *sw, struct tor_headers *hdr,
		    struct tor_meta *meta);
void tor_counters(struct rina_tor *sw, struct tor_meta *meta);
void tor_counters_out(struct rina_tor *sw, struct tor_meta *meta);
int tor_egress_rewrite(struct rina_tor *sw, struct tor_headers *hdr,
		       struct tor_meta *meta);

#endif /* RINA_TOR_MODEL_H */
