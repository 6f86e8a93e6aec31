// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Job validation and ring construction (see plan.h).
 */
#include "plan.h"

const char *const rina_job_err_names[__RINA_JOB_MAX] = {
	[RINA_JOB_OK]		  = "ok",
	[RINA_JOB_NO_RANKS]	  = "the job has no ranks",
	[RINA_JOB_TOO_MANY_RANKS] = "more ranks than RINA_MAX_RANKS",
	[RINA_JOB_TOO_MANY_RACKS] = "more racks than RINA_MAX_RACKS",
	[RINA_JOB_BAD_ELEMS]	  = "elements per packet out of range",
	[RINA_JOB_BAD_WINDOW]	  = "window must be a power of two in range",
	[RINA_JOB_BAD_TIMEOUT]	  = "timeout out of range",
	[RINA_JOB_BAD_RTO]	  = "retransmission timeout out of range",
	[RINA_JOB_BAD_ADDR]	  = "rank has no IPv4 address",
	[RINA_JOB_BAD_PORT]	  = "rank port outside the Rina port range",
	[RINA_JOB_DUP_ADDR]	  = "two ranks share one address and port",
	[RINA_JOB_UNKNOWN_RACK]	  = "rank names a rack that is not declared",
	[RINA_JOB_DUP_RACK]	  = "rack declared twice",
	[RINA_JOB_BAD_AGENT_PORT] = "agent port outside 21064..21071",
	[RINA_JOB_MAC_WITH_TOR]	  = "auth mac in a rack with a ToR, which cannot check per-packet MACs (use auth tag)",
	[RINA_JOB_BAD_TOR_PORT]	  = "the ToR's control port is 21071: rina-tor and the P4 ToR answer there only",
	[RINA_JOB_MIXED_LOOPBACK] = "rank on a loopback address (127.0.0.0/8) beside ranks that are not, or the reverse: they cannot reach each other",
};

const struct rina_rack_desc *rina_job_rack(const struct rina_job_desc *job,
					   unsigned int rack_id)
{
	unsigned int i;

	for (i = 0; i < job->n_racks; i++)
		if (job->racks[i].id == rack_id)
			return &job->racks[i];
	return (void *)0;
}

__be16 rina_rack_agent_port(const struct rina_job_desc *job,
			    unsigned int rack_id)
{
	const struct rina_rack_desc *r = rina_job_rack(job, rack_id);

	return r && r->agent_port ? r->agent_port :
	       rina_htons(RINA_UDP_PORT_AGENT);
}

/* 127.0.0.0/8: reaches the own host only */
static int is_loopback(__be32 ip)
{
	return (rina_ntohl(ip) >> 24) == 127;
}

static struct rina_job_verdict verdict(enum rina_job_err err, int what)
{
	struct rina_job_verdict v = { err, what };

	return v;
}

struct rina_job_verdict rina_job_validate(const struct rina_job_desc *job)
{
	unsigned int i, j, port;

	if (!job->n_ranks)
		return verdict(RINA_JOB_NO_RANKS, -1);
	if (job->n_ranks > RINA_MAX_RANKS)
		return verdict(RINA_JOB_TOO_MANY_RANKS, -1);
	if (job->n_racks > RINA_MAX_RACKS)
		return verdict(RINA_JOB_TOO_MANY_RACKS, -1);
	if (job->elems < 1 || job->elems > RINA_MAX_ELEMS)
		return verdict(RINA_JOB_BAD_ELEMS, -1);
	if (job->window < RINA_MIN_WINDOW || job->window > RINA_MAX_WINDOW ||
	    (job->window & (job->window - 1)))
		return verdict(RINA_JOB_BAD_WINDOW, -1);
	if (job->timeout_ms < 10 || job->timeout_ms > 3600000)
		return verdict(RINA_JOB_BAD_TIMEOUT, -1);
	if (job->rto_us < 50 || job->rto_us > 10000000 ||
	    job->rto_us / 1000 >= job->timeout_ms)
		return verdict(RINA_JOB_BAD_RTO, -1);
	for (i = 0; i < job->n_racks; i++) {
		const struct rina_rack_desc *rk = &job->racks[i];

		for (j = 0; j < i; j++)
			if (rk->id == job->racks[j].id)
				return verdict(RINA_JOB_DUP_RACK, (int)i);
		port = rina_ntohs(rk->agent_port);
		if (port && (port < RINA_UDP_PORT_AGENT_MIN ||
			     port > RINA_UDP_PORT_AGENT))
			return verdict(RINA_JOB_BAD_AGENT_PORT, (int)i);
		/* a switch pipeline cannot compute a MAC per packet */
		if (job->auth == RINA_JOB_AUTH_MAC && rk->tor_ip)
			return verdict(RINA_JOB_MAC_WITH_TOR, (int)i);
		/*
		 * The agent sends TOR_INSTALL to tor_port and takes answers
		 * from there only; the ToR answers from RINA_UDP_PORT_AGENT
		 * (p4/tor/tor_control.c, the P4 parser's Rina ports).
		 */
		if (rk->tor_ip && rk->tor_port &&
		    rina_ntohs(rk->tor_port) != RINA_UDP_PORT_AGENT)
			return verdict(RINA_JOB_BAD_TOR_PORT, (int)i);
	}
	for (i = 0; i < job->n_ranks; i++) {
		const struct rina_rank_desc *r = &job->ranks[i];

		if (!r->ip)
			return verdict(RINA_JOB_BAD_ADDR, (int)i);
		port = rina_ntohs(r->port);
		if (port < RINA_UDP_PORT_MIN || port >= RINA_UDP_PORT_AGENT_MIN)
			return verdict(RINA_JOB_BAD_PORT, (int)i);
		if (!rina_job_rack(job, r->rack))
			return verdict(RINA_JOB_UNKNOWN_RACK, (int)i);
		for (j = 0; j < i; j++)
			if (job->ranks[j].ip == r->ip &&
			    job->ranks[j].port == r->port)
				return verdict(RINA_JOB_DUP_ADDR, (int)i);
		/* a socket on 127.x sends nowhere else, nor hears from it */
		if (is_loopback(r->ip) != is_loopback(job->ranks[0].ip))
			return verdict(RINA_JOB_MIXED_LOOPBACK, (int)i);
	}
	return verdict(RINA_JOB_OK, -1);
}

void rina_ring_build(const struct rina_job_desc *job, int use_ina,
		     struct rina_ring *ring)
{
	unsigned int done[RINA_MAX_RACKS] = { 0 };
	unsigned int n = 0, L = 0, k, i;

	rina_memset(ring, 0, sizeof(*ring));
	ring->n_ranks = job->n_ranks;
	/* racks by ascending id: a selection pass is fine for 64 racks */
	for (k = 0; k < job->n_racks; k++) {
		const struct rina_rack_desc *rk = (void *)0;
		unsigned int best = 0, first = n;

		for (i = 0; i < job->n_racks; i++) {
			if (done[i])
				continue;
			if (!rk || job->racks[i].id < rk->id) {
				rk = &job->racks[i];
				best = i;
			}
		}
		done[best] = 1;
		for (i = 0; i < job->n_ranks; i++)
			if (job->ranks[i].rack == rk->id)
				ring->order[n++] = (__u16)i;
		if (n == first)
			continue;
		if (use_ina && rk->ina) {
			struct rina_member *m = &ring->m[L];

			m->rack = rk->id;
			m->agent = ring->order[first];
			m->first = (__u16)first;
			m->n_local = (__u16)(n - first);
			m->ina = 1;
			for (i = first; i < n; i++)
				ring->member_of[ring->order[i]] = (__u16)L;
			L++;
			continue;
		}
		for (i = first; i < n; i++) {
			struct rina_member *m = &ring->m[L];

			m->rack = rk->id;
			m->agent = ring->order[i];
			m->first = (__u16)i;
			m->n_local = 1;
			ring->member_of[ring->order[i]] = (__u16)L;
			L++;
		}
	}
	ring->L = (__u16)L;
}

static __u64 fnv(__u64 h, const void *p, unsigned int len)
{
	const __u8 *b = p;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

__u64 rina_job_hash(const struct rina_job_desc *job)
{
	__u64 h = 0xcbf29ce484222325ULL;
	unsigned int i;

	h = fnv(h, &job->job_id, 2);
	h = fnv(h, &job->n_ranks, 2);
	h = fnv(h, &job->n_racks, 2);
	h = fnv(h, &job->elems, 2);
	h = fnv(h, &job->window, 2);
	h = fnv(h, &job->timeout_ms, 4);
	h = fnv(h, &job->rto_us, 4);
	/* only when set: the hash of every job without it stays as it was */
	if (job->auth != RINA_JOB_AUTH_TAG)
		h = fnv(h, &job->auth, 2);
	for (i = 0; i < job->n_ranks; i++) {
		h = fnv(h, &job->ranks[i].ip, 4);
		h = fnv(h, &job->ranks[i].port, 2);
		h = fnv(h, &job->ranks[i].rack, 2);
		h = fnv(h, job->ranks[i].mac, 6);
	}
	for (i = 0; i < job->n_racks; i++) {
		/* no ToR, no port: holders may default it differently */
		__be16 tor_port = job->racks[i].tor_ip ?
				  job->racks[i].tor_port : 0;

		h = fnv(h, &job->racks[i].id, 2);
		h = fnv(h, &job->racks[i].ina, 1);
		h = fnv(h, &job->racks[i].tor_ip, 4);
		h = fnv(h, &tor_port, 2);
		/* only when set: the hash of a job without it stays as it was */
		if (job->racks[i].agent_port)
			h = fnv(h, &job->racks[i].agent_port, 2);
	}
	return h;
}
