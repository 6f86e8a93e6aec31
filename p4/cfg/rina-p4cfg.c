// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-p4cfg: write the runtime configuration that installs one Rina job
 * on one INA rack's ToR running p4/rina_tor.p4, as simple_switch_CLI
 * commands (table_add, mc_mgrp_create, mc_node_create, mc_node_associate,
 * register_write). The same file configures the C model (rina_tor_cli()).
 * What each command writes: Documentation/p4-control-plane.md.
 *
 *   rina-p4cfg -f JOBFILE -r RACK -u UPLINK_PORT -p RANK:PORT [-p ...]
 *              [-i JOB_IDX] [-e EPOCH] [-b POOL_BASE] [-g GROUP]
 *              [-R RID_BASE] [-n NODE_BASE] [-l]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "plan.h"
#include "schedule.h"
#include "jobfile.h"
#include "configuration.h"

#define AGENT_PORT	0x524f	/* RINA_UDP_PORT_AGENT */
#define SRC_SWITCH	0xf000	/* RINA_SRC_SWITCH */

static struct rina_job_desc job;
static struct rina_ring ring;

static void usage(void)
{
	fprintf(stderr,
		"usage: rina-p4cfg -f JOBFILE -r RACK -u UPLINK_PORT -p RANK:PORT...\n"
		"                  [-i JOB_IDX] [-e EPOCH] [-b POOL_BASE] [-g GROUP]\n"
		"                  [-R RID_BASE] [-n NODE_BASE] [-l]\n"
		"  -p  switch port of each local rank (every rank of the rack)\n"
		"  -u  switch port towards the previous and next ring members\n"
		"  -l  also write l2_fwd entries for the local ranks' MACs\n");
	exit(2);
}

static long num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "rina-p4cfg: %s '%s' out of range %ld..%ld\n",
			what, s, min, max);
		exit(2);
	}
	return v;
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

static int mac_zero(const __u8 *m)
{
	static const __u8 z[6];

	return !memcmp(m, z, 6);
}

/* A ring member's address: agent ip + agent port for an INA rack. */
static void member_addr(unsigned int k, __be32 *ip, unsigned int *port,
			const __u8 **mac)
{
	const struct rina_member *m = &ring.m[k];
	const struct rina_rank_desc *r = &job.ranks[m->agent];

	*ip = r->ip;
	*port = m->ina ? AGENT_PORT : ntohs(r->port);
	*mac = r->mac;
}

int main(int argc, char **argv)
{
	long rack = -1, uplink = -1, job_idx = 0, epoch = 1, pool_base = 0;
	long mgrp = 2, rid_base = 1, node_base = 0;
	long port_of[RINA_MAX_RANKS];
	const char *file = NULL;
	struct rina_job_verdict v;
	const struct rina_member *me;
	unsigned int i, k, member = 0, m, found = 0;
	int l2 = 0, c;
	char err[256], b1[INET_ADDRSTRLEN], b2[32];
	__be32 ip;
	unsigned int port;
	const __u8 *mac;
	long handle;

	for (i = 0; i < RINA_MAX_RANKS; i++)
		port_of[i] = -1;
	while ((c = getopt(argc, argv, "f:r:u:p:i:e:b:g:R:n:lh")) != -1) {
		char *colon;

		switch (c) {
		case 'f': file = optarg; break;
		case 'r': rack = num(optarg, 0, 65535, "rack"); break;
		case 'u': uplink = num(optarg, 0, RINA_TOR_MAX_PORTS - 1,
				       "uplink port"); break;
		case 'p':
			colon = strchr(optarg, ':');
			if (!colon)
				usage();
			*colon = 0;
			i = (unsigned int)num(optarg, 0, RINA_MAX_RANKS - 1,
					      "rank");
			port_of[i] = num(colon + 1, 0, RINA_TOR_MAX_PORTS - 1,
					 "port");
			break;
		case 'i': job_idx = num(optarg, 0, RINA_TOR_MAX_JOBS - 1,
					"job index"); break;
		case 'e': epoch = num(optarg, 0, 65535, "epoch"); break;
		case 'b': pool_base = num(optarg, 0, RINA_TOR_POOL_SIZE - 1,
					  "pool base"); break;
		case 'g': mgrp = num(optarg, 2, RINA_TOR_MAX_GROUPS - 1,
				     "group"); break;
		case 'R': rid_base = num(optarg, 1, 65000, "rid base"); break;
		case 'n': node_base = num(optarg, 0, RINA_TOR_MAX_NODES - 1,
					  "node base"); break;
		case 'l': l2 = 1; break;
		default: usage();
		}
	}
	if (!file || rack < 0 || uplink < 0 || optind != argc)
		usage();
	if (rina_jobfile_parse(file, &job, err, sizeof(err))) {
		fprintf(stderr, "rina-p4cfg: %s\n", err);
		return 1;
	}
	v = rina_job_validate(&job);
	if (v.err != RINA_JOB_OK) {
		fprintf(stderr, "rina-p4cfg: %s (%d)\n",
			rina_job_err_names[v.err], v.what);
		return 1;
	}
	rina_ring_build(&job, 1, &ring);
	for (k = 0; k < ring.L; k++) {
		if (ring.m[k].rack == rack && ring.m[k].ina) {
			member = k;
			found = 1;
		}
	}
	if (!found) {
		fprintf(stderr, "rina-p4cfg: rack %ld is not an INA rack of job %u\n",
			rack, job.job_id);
		return 1;
	}
	me = &ring.m[member];
	m = me->n_local;
	if (m > RINA_TOR_MAX_WORKERS) {
		fprintf(stderr, "rina-p4cfg: %u local ranks, the ToR takes %d\n",
			m, RINA_TOR_MAX_WORKERS);
		return 1;
	}
	if (job.elems > RINA_TOR_ELEMS) {
		fprintf(stderr, "rina-p4cfg: elements %u above the ToR's %d per pass\n",
			job.elems, RINA_TOR_ELEMS);
		return 1;
	}
	if (pool_base + job.window > RINA_TOR_POOL_SIZE) {
		fprintf(stderr, "rina-p4cfg: pool %ld..%ld beyond the ToR's %d slots\n",
			pool_base, pool_base + job.window - 1, RINA_TOR_POOL_SIZE);
		return 1;
	}
	for (i = 0; i < m; i++) {
		if (port_of[ring.order[me->first + i]] < 0) {
			fprintf(stderr, "rina-p4cfg: no -p for local rank %u\n",
				ring.order[me->first + i]);
			return 1;
		}
	}

	printf("# Rina job %u on the ToR of rack %ld: ring member %u of %u, "
	       "%u local ranks, W %u, pool %ld..%ld, epoch %ld\n",
	       job.job_id, rack, member, ring.L, m, job.window, pool_base,
	       pool_base + job.window - 1, epoch);
	if (l2) {
		for (i = 0; i < m; i++) {
			const struct rina_rank_desc *r =
				&job.ranks[ring.order[me->first + i]];

			if (mac_zero(r->mac) || (i && !memcmp(r->mac,
				job.ranks[ring.order[me->first]].mac, 6)))
				continue;
			printf("table_add RinaIngress.l2_fwd.l2_fwd "
			       "RinaIngress.l2_fwd.set_port %s => %ld\n",
			       macstr(r->mac, b2),
			       port_of[ring.order[me->first + i]]);
		}
	}
	member_addr(member, &ip, &port, &mac);
	printf("table_add RinaIngress.job_classify.rina_job "
	       "RinaIngress.job_classify.set_job %s %u %u => "
	       "%ld %ld %ld %u %u %u %u %u %u %ld %u %s\n",
	       ipstr(ip, b1), port, job.job_id, job_idx, epoch, pool_base,
	       job.window, member, ring.L, rina_own_chunk(member, ring.L), m,
	       (1u << m) - 1, mgrp, SRC_SWITCH | (unsigned int)rack,
	       macstr(mac, b2));
	for (i = 0; i < m; i++)
		printf("table_add RinaIngress.job_classify.rina_worker "
		       "RinaIngress.job_classify.set_worker %ld %u => %u\n",
		       job_idx, ring.order[me->first + i], i);
	printf("mc_mgrp_create %ld\n", mgrp);
	for (i = 0; i < m; i++) {
		const struct rina_rank_desc *r =
			&job.ranks[ring.order[me->first + i]];

		printf("table_add RinaEgress.rewrite.replica "
		       "RinaEgress.rewrite.rw_local %ld => %u %s %s %u\n",
		       rid_base + i, i, macstr(r->mac, b2), ipstr(r->ip, b1),
		       ntohs(r->port));
	}
	member_addr(rina_ring_next(&ring, member), &ip, &port, &mac);
	printf("table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_next "
	       "%ld => %s %s %u\n", rid_base + m, macstr(mac, b2),
	       ipstr(ip, b1), port);
	member_addr(rina_ring_prev(&ring, member), &ip, &port, &mac);
	printf("table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_up "
	       "%ld => %s %s %u\n", rid_base + m + 1, macstr(mac, b2),
	       ipstr(ip, b1), port);
	handle = node_base;
	for (i = 0; i < m + 2; i++) {
		long p = i < m ? port_of[ring.order[me->first + i]] : uplink;

		printf("mc_node_create %ld %ld\n", rid_base + i, p);
		printf("mc_node_associate %ld %ld\n", mgrp, handle++);
	}
	return 0;
}
