// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Generator of the INA ToR's job install (see p4cfg.h).
 */
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <arpa/inet.h>
#include "p4cfg.h"
#include "schedule.h"
#include "configuration.h"

/* the ToR's own port (RINA_UDP_PORT_AGENT), whatever the agent's is */
#define TOR_DATA_PORT	0x524f
#define SRC_SWITCH	0xf000	/* RINA_SRC_SWITCH */

void rina_p4cfg_defaults(struct rina_p4cfg *o)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	o->epoch = 1;
	o->mgrp = 2;
	o->rid_base = 1;
	for (i = 0; i < RINA_MAX_RANKS; i++)
		o->port_of[i] = -1;
}

_Static_assert(RINA_TOR_MAX_WORKERS + 3 <= RINA_P4CFG_RID_STRIDE,
	       "a job's replica ids stay below the next job's");

int rina_p4cfg_layout(struct rina_p4cfg *o, unsigned int k,
		      const unsigned int *window)
{
	unsigned int i, pool = 0;

	if (k >= RINA_TOR_MAX_JOBS || 2 + k >= RINA_TOR_MAX_GROUPS)
		return -1;
	for (i = 0; i < k; i++)
		pool += 2u * window[i];
	if (pool + 2u * window[k] > RINA_TOR_POOL_SIZE)
		return -1;
	o->job_idx = k;
	o->pool_base = pool;
	o->mgrp = 2 + k;
	o->rid_base = 1 + RINA_P4CFG_RID_STRIDE * k;
	return 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *ipstr(__be32 ip, char *buf)
{
	struct in_addr a = { .s_addr = ip };

	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static const char *macstr(const __u8 *m, char *buf)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		m[4], m[5]);
	return buf;
}

/* A ring member's address: the agent's ip and its rack's agent port if INA. */
static void member_addr(const struct rina_job_desc *job,
			const struct rina_ring *ring, unsigned int k,
			__be32 *ip, unsigned int *port, const __u8 **mac)
{
	const struct rina_member *m = &ring->m[k];
	const struct rina_rank_desc *r = &job->ranks[m->agent];

	*ip = r->ip;
	*port = ntohs(m->ina ? rina_rack_agent_port(job, m->rack) : r->port);
	*mac = r->mac;
}

int rina_p4cfg_write(FILE *f, const struct rina_job_desc *job,
		     const struct rina_p4cfg *o, char *err, size_t errlen)
{
	static struct rina_ring ring;
	const struct rina_member *me = NULL;
	const struct rina_rack_desc *rk;
	struct rina_job_verdict v;
	unsigned int i, k, member = 0, m, port, handle, rank;
	char b1[INET_ADDRSTRLEN], b2[32];
	const __u8 *mac;
	__be32 ip;

	v = rina_job_validate(job);
	if (v.err != RINA_JOB_OK)
		return fail(err, errlen, "%s (%d)", rina_job_err_names[v.err],
			    v.what);
	rina_ring_build(job, 1, &ring);
	for (k = 0; k < ring.L; k++) {
		if (ring.m[k].rack == o->rack && ring.m[k].ina) {
			member = k;
			me = &ring.m[k];
		}
	}
	if (!me)
		return fail(err, errlen, "rack %u is not an INA rack of job %u",
			    o->rack, job->job_id);
	m = me->n_local;
	if (m > RINA_TOR_MAX_WORKERS)
		return fail(err, errlen, "%u local ranks, the ToR takes %d", m,
			    RINA_TOR_MAX_WORKERS);
	if (job->elems > RINA_TOR_ELEMS)
		return fail(err, errlen, "elements %u above the ToR's %d per pass",
			    job->elems, RINA_TOR_ELEMS);
	if (o->pool_base + 2u * job->window > RINA_TOR_POOL_SIZE)
		return fail(err, errlen, "pool %u..%u beyond the ToR's %d slots",
			    o->pool_base, o->pool_base + 2 * job->window - 1,
			    RINA_TOR_POOL_SIZE);
	if (o->job_idx >= RINA_TOR_MAX_JOBS || o->mgrp < 2 ||
	    o->mgrp >= RINA_TOR_MAX_GROUPS || !o->rid_base ||
	    o->uplink >= RINA_TOR_MAX_PORTS)
		return fail(err, errlen, "job index, group, rid or uplink out of range");
	for (i = 0; i < m; i++) {
		rank = ring.order[me->first + i];
		if (o->port_of[rank] < 0 ||
		    o->port_of[rank] >= RINA_TOR_MAX_PORTS)
			return fail(err, errlen, "no switch port for local rank %u",
				    rank);
	}

	fprintf(f, "# Rina job %u on the ToR of rack %u: ring member %u of %u, "
		"%u local ranks, host window %u, ToR window %u, pool %u..%u, "
		"epoch %u\n", job->job_id, o->rack, member, ring.L, m,
		job->window, 2 * job->window, o->pool_base,
		o->pool_base + 2 * job->window - 1, o->epoch);
	if (o->l2) {
		for (i = 0; i < m; i++) {
			const struct rina_rank_desc *r =
				&job->ranks[ring.order[me->first + i]];
			static const __u8 zero[6];
			unsigned int j, seen = 0;

			for (j = 0; j < i; j++)
				if (!memcmp(job->ranks[ring.order[me->first + j]].mac,
					    r->mac, 6))
					seen = 1;
			if (seen || !memcmp(r->mac, zero, 6))
				continue;
			fprintf(f, "table_add RinaIngress.l2_fwd.l2_fwd "
				"RinaIngress.l2_fwd.set_port %s => %d\n",
				macstr(r->mac, b2),
				o->port_of[ring.order[me->first + i]]);
		}
	}
	member_addr(job, &ring, member, &ip, &port, &mac);
	rk = rina_job_rack(job, o->rack);
	for (k = 0; k < 2; k++) {
		/*
		 * k = 1: the ToR's own address and port, where the workers
		 * and the agent send their contributions
		 */
		__be32 key = k ? rk->tor_ip : ip;
		unsigned int key_port = k ? TOR_DATA_PORT : port;

		if (k && (!rk->tor_ip || rk->tor_ip == ip))
			break;
		fprintf(f, "table_add RinaIngress.job_classify.rina_job "
			"RinaIngress.job_classify.set_job %s %u %u => "
			"%u %u %u %u %u %u %u %u %u %u %u %s ",
			ipstr(key, b1), key_port, job->job_id, o->job_idx,
			o->epoch, o->pool_base, 2 * job->window, member, ring.L,
			rina_own_chunk(member, ring.L), m, (1u << m) - 1,
			o->mgrp, SRC_SWITCH | o->rack, macstr(mac, b2));
		fprintf(f, "%s %u ", ipstr(ip, b1), port);
		if (!job->has_secret)
			fprintf(f, "0 0\n");
		else if (!o->tag)
			fprintf(f, "1 %s\n", RINA_P4CFG_TAG);
		else
			fprintf(f, "1 0x%016llx\n",
				(unsigned long long)rina_get_be64(o->tag));
	}
	/* a worker's bit only for its own address and port */
	for (i = 0; i < m; i++) {
		const struct rina_rank_desc *r =
			&job->ranks[ring.order[me->first + i]];

		fprintf(f, "table_add RinaIngress.job_classify.rina_worker "
			"RinaIngress.job_classify.set_worker %u %u %s %u => %u\n",
			o->job_idx, ring.order[me->first + i],
			ipstr(r->ip, b1), ntohs(r->port), i);
	}
	fprintf(f, "mc_mgrp_create %u\n", o->mgrp);
	/*
	 * A worker on the agent's host (its address) gets its allgather
	 * data from the agent, which relays its own copy (core/agent_cache.c):
	 * one copy per result on that host's link, not two.
	 */
	for (i = 0; i < m; i++) {
		const struct rina_rank_desc *r =
			&job->ranks[ring.order[me->first + i]];
		int host = r->ip == job->ranks[me->agent].ip;

		fprintf(f, "table_add RinaEgress.rewrite.replica "
			"RinaEgress.rewrite.%s %u => %u %s %s %u\n",
			host ? "rw_host" : "rw_local",
			o->rid_base + i, i, macstr(r->mac, b2),
			ipstr(r->ip, b1), ntohs(r->port));
	}
	member_addr(job, &ring, rina_ring_next(&ring, member), &ip, &port,
		    &mac);
	fprintf(f, "table_add RinaEgress.rewrite.replica "
		"RinaEgress.rewrite.rw_next %u => %s %s %u\n",
		o->rid_base + m, macstr(mac, b2), ipstr(ip, b1), port);
	member_addr(job, &ring, rina_ring_prev(&ring, member), &ip, &port,
		    &mac);
	fprintf(f, "table_add RinaEgress.rewrite.replica "
		"RinaEgress.rewrite.rw_up %u => %s %s %u\n",
		o->rid_base + m + 1, macstr(mac, b2), ipstr(ip, b1), port);
	/* the agent's own copy of allgather data, on the agent's port */
	member_addr(job, &ring, member, &ip, &port, &mac);
	fprintf(f, "table_add RinaEgress.rewrite.replica "
		"RinaEgress.rewrite.rw_agent %u => %s %s %u\n",
		o->rid_base + m + 2, macstr(mac, b2), ipstr(ip, b1), port);
	handle = o->node_base;
	for (i = 0; i < m + 3; i++) {
		int p = i < m ? o->port_of[ring.order[me->first + i]] :
			i == m + 2 ? o->port_of[me->agent] : (int)o->uplink;

		fprintf(f, "mc_node_create %u %d\n", o->rid_base + i, p);
		fprintf(f, "mc_node_associate %u %u\n", o->mgrp, handle++);
	}
	return 0;
}
