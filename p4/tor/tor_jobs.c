// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's jobs on the switch model: the L2 flood group, and a job's
 * install as the commands rina-p4cfg writes for the rack, in the ToR
 * layout rina_p4cfg_layout() gives (Documentation/p4-control-plane.md).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tor.h"
#include "p4cfg.h"
#include "ctrl_auth.h"
#include "secret.h"

struct rina_job_desc jobs[MAX_TOR_JOBS];
__u64 job_hash[MAX_TOR_JOBS];
int n_jobs;
struct rina_tor *sw;
unsigned int rack;

static int installed[MAX_TOR_JOBS];
static unsigned int next_epoch;

int tor_cli(const char *line)
{
	const char *params = strstr(line, " => ");
	char err[256];

	if (rina_tor_cli(sw, line, err, sizeof(err))) {
		/* the command up to its parameters: set_job's hold the tag */
		fprintf(stderr, "rina-tor: '%.*s': %s\n",
			(int)(params ? params - line : (long)strlen(line)),
			line, err);
		return -1;
	}
	return 0;
}

static void l2_add(const __u8 *m, int port)
{
	char cmd[160], err[128];

	snprintf(cmd, sizeof(cmd), "table_add RinaIngress.l2_fwd.l2_fwd "
		 "RinaIngress.l2_fwd.set_port %02x:%02x:%02x:%02x:%02x:%02x "
		 "=> %d", m[0], m[1], m[2], m[3], m[4], m[5], port);
	rina_tor_cli(sw, cmd, err, sizeof(err));	/* known MAC: fine */
}

/*
 * Host port of a local rank: the rack's distinct host addresses in
 * ascending order sit on h0, h1, ... (rina-run's layout), whatever job.
 */
static int host_port(const struct rina_job_desc *job, int rank)
{
	__u32 me = ntohl(job->ranks[rank].ip);
	int i, below = 0;
	__u32 seen[RINA_MAX_RANKS];
	int n_seen = 0, j, dup;

	for (i = 0; i < job->n_ranks; i++) {
		__u32 ip = ntohl(job->ranks[i].ip);

		if (job->ranks[i].rack != rack || ip >= me)
			continue;
		for (j = 0, dup = 0; j < n_seen; j++)
			dup |= seen[j] == ip;
		if (!dup) {
			seen[n_seen++] = ip;
			below++;
		}
	}
	return 1 + below;
}

int tor_install_flood(int n_ports)
{
	char cmd[256];
	int i;

	if (tor_cli("mc_mgrp_create 1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_create 0");
	for (i = 0; i < n_ports; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %d",
			 i);
	if (tor_cli(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_associate 1 %d", sw->n_nodes - 1);
	return tor_cli(cmd);
}

void tor_jobs_epoch(unsigned int epoch)
{
	next_epoch = epoch;
}

/*
 * The commands of job k, one by one into the model; a job the model
 * refuses half way is removed again. The commands hold the data tag:
 * wiped once applied.
 */
static int apply(int k, const struct rina_p4cfg *o)
{
	const struct rina_job_desc *job = &jobs[k];
	char err[256], *buf = NULL, *line, *save;
	size_t sz = 0;
	int ret = 0;
	FILE *f;

	f = open_memstream(&buf, &sz);
	if (!f)
		return RINA_TOR_ST_NO_SLOTS;
	if (rina_p4cfg_write(f, job, o, err, sizeof(err))) {
		fclose(f);
		explicit_bzero(buf, sz);
		free(buf);
		fprintf(stderr, "rina-tor: job %u: %s\n", job->job_id, err);
		return RINA_TOR_ST_BAD_PARAMS;
	}
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = tor_cli(line);
	explicit_bzero(buf, sz);
	free(buf);
	if (ret) {
		rina_tor_job_remove(sw, (unsigned int)k);
		return RINA_TOR_ST_NO_SLOTS;
	}
	return RINA_TOR_ST_OK;
}

/*
 * Install job k where rina_p4cfg_layout() puts it, with a fresh epoch,
 * and plain L2 entries for its ranks. Returns an enum rina_tor_status.
 */
int tor_job_install(int k, int n_ports)
{
	const struct rina_job_desc *job = &jobs[k];
	unsigned int window[MAX_TOR_JOBS];
	__u8 tag[RINA_TAG_LEN];
	struct rina_p4cfg o;
	int i, st;

	if (installed[k])
		return RINA_TOR_ST_OK;
	if (job->elems > RINA_TOR_ELEMS)
		return RINA_TOR_ST_BAD_PARAMS;
	rina_p4cfg_defaults(&o);
	for (i = 0; i <= k; i++)
		window[i] = jobs[i].window;
	if (rina_p4cfg_layout(&o, (unsigned int)k, window))
		return RINA_TOR_ST_NO_SLOTS;
	o.rack = rack;
	o.uplink = 0;
	o.epoch = next_epoch++ & 0xffff;
	o.node_base = (unsigned int)sw->n_nodes;
	for (i = 0; i < job->n_ranks; i++) {
		if (job->ranks[i].rack != rack) {
			l2_add(job->ranks[i].mac, 0);
			continue;
		}
		o.port_of[i] = host_port(job, i);
		if (o.port_of[i] >= n_ports) {
			fprintf(stderr, "rina-tor: job %u: more local hosts "
				"than ports h0..h%d\n", job->job_id,
				n_ports - 2);
			return RINA_TOR_ST_BAD_PARAMS;
		}
		l2_add(job->ranks[i].mac, o.port_of[i]);
	}
	/* the data tag goes from here to the model's table, never out */
	if (job->has_secret) {
		rina_job_tag(job->secret, rina_siphash24, job->job_id, tag);
		o.tag = tag;
	}
	st = apply(k, &o);
	explicit_bzero(tag, sizeof(tag));
	if (st != RINA_TOR_ST_OK)
		return st;
	installed[k] = 1;
	fprintf(stderr, "rina-tor: job %u installed (job_idx %d, pool %u..%u, "
		"epoch %u)\n", job->job_id, k, o.pool_base,
		o.pool_base + 2 * job->window - 1, o.epoch);
	return RINA_TOR_ST_OK;
}

/* Remove job k: RINA_TOR_ST_OK, or RINA_TOR_ST_UNKNOWN_JOB if not held. */
int tor_job_remove(int k)
{
	if (!installed[k])
		return RINA_TOR_ST_UNKNOWN_JOB;
	rina_tor_job_remove(sw, (unsigned int)k);
	installed[k] = 0;
	fprintf(stderr, "rina-tor: job %u removed\n", jobs[k].job_id);
	return RINA_TOR_ST_OK;
}
