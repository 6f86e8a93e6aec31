// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's jobs on the switch model: the L2 flood group, and a job's
 * install as the commands rina-p4cfg writes for the rack, in the ToR
 * layout rina_p4cfg_layout() gives (Documentation/p4-control-plane.md).
 */
#include <arpa/inet.h>
#include <stdarg.h>
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

/*
 * What takes a job out again: for every entry, group and node its install
 * made, the command that deletes it, with the handle the model gave
 * (rina-tor-bmv2 keeps the same). A job's install makes at most 2 rina_job
 * entries, m rina_worker and m + 3 replica entries, a group and m + 3
 * nodes.
 */
#define UNDO_MAX	(3 * RINA_TOR_MAX_WORKERS + 9)

/* the order of the undo: a job dead first, then its entries, nodes, group */
enum { UNDO_JOB, UNDO_ENTRY, UNDO_NODE, UNDO_GROUP, __UNDO_MAX };

struct undo {
	unsigned int	n;
	struct {
		int	order;
		char	cmd[80];
	} c[UNDO_MAX];
};

static int installed[MAX_TOR_JOBS];
static __u64 installed_session[MAX_TOR_JOBS];	/* its tag's session */
static struct undo undo[MAX_TOR_JOBS];
static unsigned int next_epoch;

/* tor_cli(), and *handle the handle the command gave */
static int tor_cli_handle(const char *line, unsigned int *handle)
{
	const char *params = strstr(line, " => ");
	char err[256];

	if (rina_tor_cli_handle(sw, line, handle, err, sizeof(err))) {
		/* the command up to its parameters: set_job's hold the tag */
		fprintf(stderr, "rina-tor: '%.*s': %s\n",
			(int)(params ? params - line : (long)strlen(line)),
			line, err);
		return -1;
	}
	return 0;
}

int tor_cli(const char *line)
{
	return tor_cli_handle(line, NULL);
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
	unsigned int h;
	int i;

	if (tor_cli("mc_mgrp_create 1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_create 0");
	for (i = 0; i < n_ports; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %d",
			 i);
	if (tor_cli_handle(cmd, &h))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_associate 1 %u", h);
	return tor_cli(cmd);
}

void tor_jobs_epoch(unsigned int epoch)
{
	next_epoch = epoch;
}

static void undo_add(struct undo *u, int order, const char *fmt, ...)
{
	va_list ap;

	/* UNDO_MAX holds a whole install: never full */
	if (u->n == UNDO_MAX)
		abort();
	u->c[u->n].order = order;
	va_start(ap, fmt);
	vsnprintf(u->c[u->n].cmd, sizeof(u->c[u->n].cmd), fmt, ap);
	va_end(ap);
	u->n++;
}

/* Take out what u holds, in the order of UNDO_*; u is then empty. */
static void undo_run(struct undo *u)
{
	unsigned int i;
	int order;

	for (order = 0; order < __UNDO_MAX; order++)
		for (i = 0; i < u->n; i++)
			if (u->c[i].order == order)
				tor_cli(u->c[i].cmd);
	u->n = 0;
}

/*
 * One command of an install into the model, and into u its undo. Node
 * handles are the model's: rina-p4cfg's mc_node_associate handles count
 * from o->node_base in the order of its mc_node_create lines; nodes[]
 * maps them to those the model gave (rina-tor-bmv2 does the same on bmv2).
 */
static int apply_one(char *line, struct undo *u, unsigned int *nodes,
		     unsigned int *n_nodes, const struct rina_p4cfg *o)
{
	char table[64], cmd[96];
	unsigned int grp, h;

	if (sscanf(line, "mc_node_associate %u %u", &grp, &h) == 2) {
		if (h < o->node_base || h - o->node_base >= *n_nodes) {
			fprintf(stderr, "rina-tor: '%s': no such node\n", line);
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "mc_node_associate %u %u", grp,
			 nodes[h - o->node_base]);
		return tor_cli(cmd);
	}
	if (tor_cli_handle(line, &h))
		return -1;
	if (sscanf(line, "table_add %63s", table) == 1)
		undo_add(u, strcmp(table, "RinaIngress.job_classify.rina_job") ?
			 UNDO_ENTRY : UNDO_JOB, "table_delete %s %u", table, h);
	else if (sscanf(line, "mc_mgrp_create %u", &grp) == 1)
		undo_add(u, UNDO_GROUP, "mc_mgrp_destroy %u", grp);
	else if (!strncmp(line, "mc_node_create ", 15)) {
		if (*n_nodes == RINA_TOR_MAX_WORKERS + 3)
			abort();	/* p4cfg makes m + 3 */
		nodes[(*n_nodes)++] = h;
		undo_add(u, UNDO_NODE, "mc_node_destroy %u", h);
	}
	return 0;
}

/*
 * The commands of job k, one by one into the model, each one's undo kept
 * for the job's removal; a job the model refuses half way is taken out
 * again to the last entry, so that nothing of it stays to refuse the
 * next try ("duplicate entry") or to take the model's room. The commands
 * hold the data tag: wiped once applied.
 */
static int apply(int k, const struct rina_p4cfg *o)
{
	const struct rina_job_desc *job = &jobs[k];
	unsigned int nodes[RINA_TOR_MAX_WORKERS + 3], n_nodes = 0;
	char err[256], *buf = NULL, *line, *save;
	struct undo *u = &undo[k];
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
	u->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			ret = apply_one(line, u, nodes, &n_nodes, o);
	explicit_bzero(buf, sz);
	free(buf);
	if (ret) {
		undo_run(u);
		return RINA_TOR_ST_NO_SLOTS;
	}
	return RINA_TOR_ST_OK;
}

/*
 * Install job k where rina_p4cfg_layout() puts it, with a fresh epoch,
 * and plain L2 entries for its ranks. Returns an enum rina_tor_status:
 * OK if the session's job was held already (an agent's probe),
 * INSTALLED if this installed it, so that an agent whose probe finds
 * the job forgotten knows its slots are gone.
 */
int tor_job_install(int k, int n_ports, __u64 session)
{
	const struct rina_job_desc *job = &jobs[k];
	unsigned int window[MAX_TOR_JOBS];
	__u8 tag[RINA_TAG_LEN];
	struct rina_p4cfg o;
	int i, st;

	if (installed[k] && installed_session[k] == session)
		return RINA_TOR_ST_OK;
	if (installed[k])	/* the job's next session */
		tor_job_remove(k);
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
	o.node_base = 0;	/* the model's handles: apply_one() maps */
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
		rina_session_tag(job->secret, rina_siphash24, job->job_id,
				 session, tag);
		o.tag = tag;
	}
	st = apply(k, &o);
	explicit_bzero(tag, sizeof(tag));
	if (st != RINA_TOR_ST_OK)
		return st;
	installed[k] = 1;
	installed_session[k] = session;
	fprintf(stderr, "rina-tor: job %u installed (job_idx %d, pool %u..%u, "
		"epoch %u)\n", job->job_id, k, o.pool_base,
		o.pool_base + 2 * job->window - 1, o.epoch);
	return RINA_TOR_ST_INSTALLED;
}

/* Remove job k: RINA_TOR_ST_OK, or RINA_TOR_ST_UNKNOWN_JOB if not held. */
int tor_job_remove(int k)
{
	if (!installed[k])
		return RINA_TOR_ST_UNKNOWN_JOB;
	undo_run(&undo[k]);
	installed[k] = 0;
	fprintf(stderr, "rina-tor: job %u removed\n", jobs[k].job_id);
	return RINA_TOR_ST_OK;
}
