// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The switch (p4/rina_tor.p4): RinaIngress, the packet replication
 * engine of v1model, and RinaEgress, in the order the P4 program applies
 * its controls. rina_tor_process() is the model's packet entry point.
 * rina_tor_pass1() and rina_tor_pass2() are the same pipeline split as
 * the TNA program (p4/tna/) splits it: a contribution that passed its
 * checks leaves the first ingress pass for a recirculation, and its
 * slot, adders and NextStep run in the second (Documentation/tofino.md,
 * "Pass structure"). Both modes call the same controls.
 */
#include "rina_tor_model.h"

static void ev(struct tor_meta *meta, unsigned int id)
{
	meta->ev |= 1u << id;
}

static void bypass(struct tor_headers *hdr)
{
	hdr->rina.flags |= RINA_F_SW_BYPASS;
	hdr->udp.csum = 0;
}

/*
 * A contribution's checks, which the TNA program makes in its first
 * pass: 1 when the contribution goes on to its slot (contribution_slot(),
 * the second pass there), 0 when it was dealt with here.
 */
static int contribution_checks(struct rina_tor *sw, struct tor_headers *hdr,
			       struct tor_meta *meta)
{
	struct tor_rina *r = &hdr->rina;
	__u32 up_bit = 1u << meta->job.up_bit_idx;

	if ((r->ver_op & 0xf) == RINA_OP_SR_CONTRIB) {
		ev(meta, RINA_TC_CONTRIB_IN);
		tor_worker_classify(sw, hdr, meta);
		if (!meta->worker_hit) {
			ev(meta, RINA_TC_NO_WORKER);
			tor_l2_forward(sw, hdr, meta);
			return 0;
		}
	} else {
		ev(meta, RINA_TC_PARTIAL_IN);
		meta->bit = up_bit;
		meta->one_bit = (__u8)meta->job.up_bit_idx;
	}
	if (r->n_elem > RINA_TOR_ELEMS) {
		ev(meta, RINA_TC_TOO_LONG);
		bypass(hdr);
		tor_l2_forward(sw, hdr, meta);
		return 0;
	}
	meta->exp_mask = rina_slot_exp_mask(meta->job.local_mask, up_bit,
					    r->chunk, meta->job.member);
	if (r->chunk >= meta->job.ring_len || !r->p_chunk ||
	    r->p_chunk >= meta->job.win || !(meta->bit & meta->exp_mask)) {
		ev(meta, RINA_TC_BAD);
		return 0;
	}
	meta->own = r->chunk == meta->job.own_chunk;
	meta->overflow = !!(r->flags & RINA_F_OVERFLOW);
	return 1;
}

/* The slot, the adders and NextStep: the TNA program's second pass. */
static void contribution_slot(struct rina_tor *sw, struct tor_headers *hdr,
			      struct tor_meta *meta)
{
	tor_slot_tag(sw, hdr, meta);
	switch (meta->verdict) {
	case RINA_SLOT_STALE:
		ev(meta, RINA_TC_STALE);
		tor_next_step(sw, hdr, meta);
		return;
	case RINA_SLOT_COLLISION:
		ev(meta, RINA_TC_COLLISION);
		bypass(hdr);
		tor_l2_forward(sw, hdr, meta);
		return;
	case RINA_SLOT_DUP:
		ev(meta, RINA_TC_DUP);
		return;
	}
	tor_adders(sw, hdr, meta);
	tor_next_step(sw, hdr, meta);
}

/*
 * RinaIngress's last step: what the switch emits goes to the job's
 * group (the paths that jump here emit nothing); the job's counters.
 */
static void ingress_end(struct rina_tor *sw, struct tor_meta *meta)
{
	if (meta->emit)
		meta->mcast_grp = meta->job.mgrp;
	tor_counters(sw, meta);
}

/*
 * RinaIngress. split: stop a contribution that passed its checks before
 * its slot, as the TNA program's first pass does; returns 1 then (the
 * caller recirculates it), else 0.
 */
static int ingress(struct rina_tor *sw, struct tor_headers *hdr,
		   struct tor_meta *meta, unsigned int len, int split)
{
	int recirc = 0;

	if (!meta->is_rina) {
		sw->tor_ctr[RINA_TS_NON_RINA]++;
		tor_l2_forward(sw, hdr, meta);
		return 0;
	}
	tor_header_check(sw, hdr, meta, len);
	if (meta->parse_err != RINA_PARSE_OK) {
		sw->tor_ctr[meta->parse_err]++;
		return 0;
	}
	tor_job_classify(sw, hdr, meta);
	if (!meta->job_hit) {
		sw->tor_ctr[RINA_PARSE_UNKNOWN_JOB]++;
		tor_l2_forward(sw, hdr, meta);
		return 0;
	}
	sw->tor_ctr[RINA_PARSE_OK]++;
	tor_tag_check(hdr, meta);
	if (meta->bad_tag) {
		/* not the job's: neither added nor passed on */
		ev(meta, RINA_TC_BAD_TAG);
		goto count;
	}
	if (tor_drop_sim(sw->drop_in, &sw->drop_rng_in, hdr)) {
		ev(meta, RINA_TC_DROP_SIM);
		goto count;
	}
	if (hdr->rina.flags & RINA_F_SW_BYPASS) {
		ev(meta, RINA_TC_BYPASS_IN);
		tor_l2_forward(sw, hdr, meta);
		goto count;
	}
	switch (hdr->rina.ver_op & 0xf) {
	case RINA_OP_SR_CONTRIB:
	case RINA_OP_SR_PARTIAL:
		if (!contribution_checks(sw, hdr, meta))
			break;
		if (split) {
			recirc = 1;	/* counted here: what came in */
			goto count;
		}
		contribution_slot(sw, hdr, meta);
		break;
	case RINA_OP_AG_DATA:
	case RINA_OP_ACK:
		tor_allgather(sw, hdr, meta);
		if (!meta->emit)
			tor_l2_forward(sw, hdr, meta);
		break;
	case RINA_OP_NACK:
		ev(meta, RINA_TC_NACK_IN);
		tor_l2_forward(sw, hdr, meta);
		break;
	default:
		ev(meta, RINA_TC_CTRL_IN);
		tor_l2_forward(sw, hdr, meta);
		break;
	}
count:
	ingress_end(sw, meta);
	return recirc;
}

/* RinaEgress for one replica; appends the packet to out when kept. */
static void egress(struct rina_tor *sw, const struct tor_headers *in_hdr,
		   const struct tor_meta *in_meta, __u16 rid, __u16 port,
		   struct rina_tor_out *out)
{
	struct tor_headers hdr = *in_hdr;
	struct tor_meta meta = *in_meta;

	if (out->n >= RINA_TOR_MAX_OUT || port >= RINA_TOR_MAX_PORTS)
		return;
	meta.egress_rid = rid;
	meta.egress_port = port;
	meta.ev_out = 0;
	if (tor_egress_rewrite(sw, &hdr, &meta))
		return;
	if (meta.emit && tor_drop_sim(sw->drop_out, &sw->drop_rng_out, &hdr)) {
		meta.ev_out = 1u << RINA_TO_DROP_SIM;
		tor_counters_out(sw, &meta);
		return;
	}
	tor_counters_out(sw, &meta);
	out->pkt[out->n].port = port;
	tor_deparser(&hdr, &out->pkt[out->n]);
	out->n++;
}

void rina_tor_init(struct rina_tor *sw)
{
	rina_memset(sw, 0, sizeof(*sw));
}

/* The packet replication engine and RinaEgress for what ingress decided. */
static void replicate(struct rina_tor *sw, const struct tor_headers *hdr,
		      const struct tor_meta *meta, struct rina_tor_out *out)
{
	int i;

	if (!meta->mcast_grp) {
		if (meta->egress_spec != RINA_TOR_DROP_PORT)
			egress(sw, hdr, meta, 0, meta->egress_spec, out);
		return;
	}
	/*
	 * replication: nodes of the group in handle order, ports ascending.
	 * bmv2 goes in association order: the same for every group that is
	 * built in one go, its nodes created and associated in turn, as
	 * the lowest free handle only grows while none is destroyed.
	 */
	for (i = 0; i < sw->n_nodes; i++) {
		const struct tor_mc_node *n = &sw->mc_node[i];
		unsigned int p;

		if (!n->used || n->grp != meta->mcast_grp)
			continue;
		for (p = 0; p < RINA_TOR_MAX_PORTS; p++)
			if (n->ports & (1ULL << p))
				egress(sw, hdr, meta, n->rid, (__u16)p, out);
	}
}

/* Parser, RinaIngress (split or not) and what follows; 1: recirculate. */
static int process(struct rina_tor *sw, unsigned int in_port,
		   const __u8 *frame, unsigned int len,
		   struct rina_tor_out *out, struct rina_tor_recirc *rc)
{
	struct tor_headers hdr;
	struct tor_meta meta;

	out->n = 0;
	if (len > RINA_TOR_FRAME_MAX) {
		sw->tor_ctr[RINA_TS_GIANT]++;
		return 0;
	}
	rina_memset(&meta, 0, sizeof(meta));
	meta.ingress_port = (__u16)in_port;
	meta.egress_spec = RINA_TOR_DROP_PORT;
	if (tor_parser(frame, len, &hdr, &meta) < 0) {
		sw->tor_ctr[RINA_TS_L2_RUNT]++;
		return 0;
	}
	if (!ingress(sw, &hdr, &meta, len, rc != (void *)0)) {
		replicate(sw, &hdr, &meta, out);
		return 0;
	}
	/* the frame as the first pass's deparser emits it (unchanged) */
	rc->ingress_port = meta.ingress_port;
	rc->job = meta.job;
	rc->agent_ip = meta.agent_ip;
	rc->agent_port = meta.agent_port;
	rc->bit = meta.bit;
	rc->exp_mask = meta.exp_mask;
	rc->one_bit = meta.one_bit;
	rc->own = meta.own;
	rc->overflow = meta.overflow;
	tor_deparser(&hdr, &rc->pkt);
	rc->pkt.port = 0;	/* the recirculation's: the model has none */
	return 1;
}

void rina_tor_process(struct rina_tor *sw, unsigned int in_port,
		      const __u8 *frame, unsigned int len,
		      struct rina_tor_out *out)
{
	process(sw, in_port, frame, len, out, (void *)0);
}

int rina_tor_pass1(struct rina_tor *sw, unsigned int in_port,
		   const __u8 *frame, unsigned int len,
		   struct rina_tor_out *out, struct rina_tor_recirc *rc)
{
	return process(sw, in_port, frame, len, out, rc);
}

/*
 * The second pass: the frame parsed again (the TNA program's parser
 * knows it by the recirculation port and reads recirc_t first), the
 * first pass's findings in the metadata, the slot and what follows.
 * HeaderCheck, JobClassify, TagCheck and DropSimulator do not run again.
 */
void rina_tor_pass2(struct rina_tor *sw, const struct rina_tor_recirc *rc,
		    struct rina_tor_out *out)
{
	struct tor_headers hdr;
	struct tor_meta meta;

	out->n = 0;
	rina_memset(&meta, 0, sizeof(meta));
	meta.ingress_port = rc->ingress_port;
	meta.egress_spec = RINA_TOR_DROP_PORT;
	if (tor_parser(rc->pkt.data, rc->pkt.len, &hdr, &meta) < 0)
		return;		/* not a frame pass 1 sends */
	meta.job_hit = 1;
	meta.job = rc->job;
	meta.agent_ip = rc->agent_ip;
	meta.agent_port = rc->agent_port;
	meta.bit = rc->bit;
	meta.exp_mask = rc->exp_mask;
	meta.one_bit = rc->one_bit;
	meta.own = rc->own;
	meta.overflow = rc->overflow;
	contribution_slot(sw, &hdr, &meta);
	ingress_end(sw, &meta);
	replicate(sw, &hdr, &meta, out);
}
