// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-p4cfg: write the runtime configuration that installs one Rina job
 * on one INA rack's ToR running p4/rina_tor.p4, as simple_switch_CLI
 * commands (table_add, mc_mgrp_create, mc_node_create, mc_node_associate).
 * The same file configures the C model (rina_tor_cli()).
 * What each command writes: Documentation/p4-control-plane.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "p4cfg.h"
#include "jobfile.h"
#include "configuration.h"

static struct rina_job_desc job;

static void usage(void)
{
	fprintf(stderr,
		"usage: rina-p4cfg -f JOBFILE -r RACK -u UPLINK_PORT -p RANK:PORT...\n"
		"                  [-i JOB_IDX] [-e EPOCH] [-b POOL_BASE] [-g GROUP]\n"
		"                  [-R RID_BASE] [-n NODE_BASE] [-k K[:W0,...]] [-l]\n"
		"       rina-p4cfg -f JOBFILE -H\n"
		"  -p  switch port of each local rank (every rank of the rack)\n"
		"  -u  switch port towards the previous and next ring members\n"
		"  -l  also write l2_fwd entries for the local ranks' MACs\n"
		"  -k  job K of the ToR after jobs of windows W0..W(K-1):\n"
		"      the job index, pool base, group and rid base of\n"
		"      rina-tor's layout (in place of -i, -b, -g and -R)\n"
		"  -H  describe the job: a line \"job ID hash HASH elements E\n"
		"      window W secret 0|1\" (the hash rina_job_hash(), as\n"
		"      TOR_INSTALL carries it; secret 1: the job file has a\n"
		"      secret_file, never shown), then \"rank R IP PORT RACK\n"
		"      MAC\" per rank\n");
	exit(2);
}

static unsigned int num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "rina-p4cfg: %s '%s' out of range %ld..%ld\n",
			what, s, min, max);
		exit(2);
	}
	return (unsigned int)v;
}

/*
 * -k K[:W0,...,W(K-1)]: the windows of the jobs before job K into
 * window[0..K-1]. Returns K.
 */
static unsigned int slot_arg(char *s, unsigned int *window)
{
	char *colon = strchr(s, ':'), *w, *save;
	unsigned int k, n = 0;

	if (colon)
		*colon = 0;
	k = num(s, 0, RINA_TOR_MAX_JOBS - 1, "job slot");
	for (w = colon ? strtok_r(colon + 1, ",", &save) : NULL; w;
	     w = strtok_r(NULL, ",", &save)) {
		if (n == k)
			usage();
		window[n++] = num(w, 1, RINA_TOR_POOL_SIZE, "window");
	}
	if (n != k)
		usage();
	return k;
}

/* -H: what a ToR's control plane needs to know of the job. */
static int describe(const struct rina_job_desc *j)
{
	char ip[INET_ADDRSTRLEN];
	unsigned int i;

	printf("job %u hash %016llx elements %u window %u secret %u\n",
	       j->job_id, (unsigned long long)rina_job_hash(j), j->elems,
	       j->window, j->has_secret ? 1u : 0u);
	for (i = 0; i < j->n_ranks; i++) {
		const struct rina_rank_desc *r = &j->ranks[i];
		struct in_addr a = { .s_addr = r->ip };
		const __u8 *m = r->mac;

		printf("rank %u %s %u %u %02x:%02x:%02x:%02x:%02x:%02x\n", i,
		       inet_ntop(AF_INET, &a, ip, sizeof(ip)), ntohs(r->port),
		       r->rack, m[0], m[1], m[2], m[3], m[4], m[5]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rina_p4cfg o;
	const char *file = NULL;
	int have_rack = 0, have_uplink = 0, hash = 0, slot = -1, c;
	unsigned int window[RINA_TOR_MAX_JOBS];
	char err[256];

	rina_p4cfg_defaults(&o);
	while ((c = getopt(argc, argv, "f:r:u:p:i:e:b:g:R:n:k:lHh")) != -1) {
		char *colon;
		unsigned int rank;

		switch (c) {
		case 'f': file = optarg; break;
		case 'r': o.rack = num(optarg, 0, 65535, "rack");
			  have_rack = 1; break;
		case 'u': o.uplink = num(optarg, 0, RINA_TOR_MAX_PORTS - 1,
					 "uplink port");
			  have_uplink = 1; break;
		case 'p':
			colon = strchr(optarg, ':');
			if (!colon)
				usage();
			*colon = 0;
			rank = num(optarg, 0, RINA_MAX_RANKS - 1, "rank");
			o.port_of[rank] = (int)num(colon + 1, 0,
						   RINA_TOR_MAX_PORTS - 1,
						   "port");
			break;
		case 'i': o.job_idx = num(optarg, 0, RINA_TOR_MAX_JOBS - 1,
					  "job index"); break;
		case 'e': o.epoch = num(optarg, 0, 65535, "epoch"); break;
		case 'b': o.pool_base = num(optarg, 0, RINA_TOR_POOL_SIZE - 1,
					    "pool base"); break;
		case 'g': o.mgrp = num(optarg, 2, RINA_TOR_MAX_GROUPS - 1,
				       "group"); break;
		case 'R': o.rid_base = num(optarg, 1, 65000, "rid base"); break;
		case 'n': o.node_base = num(optarg, 0, RINA_TOR_MAX_NODES - 1,
					    "node base"); break;
		case 'k': slot = (int)slot_arg(optarg, window); break;
		case 'l': o.l2 = 1; break;
		case 'H': hash = 1; break;
		default: usage();
		}
	}
	if (!file || (!hash && (!have_rack || !have_uplink)) || optind != argc)
		usage();
	if (rina_jobfile_parse(file, &job, err, sizeof(err))) {
		fprintf(stderr, "rina-p4cfg: %s\n", err);
		return 1;
	}
	if (hash)
		return describe(&job);
	if (slot >= 0) {
		window[slot] = job.window;
		if (rina_p4cfg_layout(&o, (unsigned int)slot, window)) {
			fprintf(stderr, "rina-p4cfg: job %u as job %d of the "
				"ToR: no job index, group or pool slots left\n",
				job.job_id, slot);
			return 1;
		}
	}
	if (rina_p4cfg_write(stdout, &job, &o, err, sizeof(err))) {
		fprintf(stderr, "rina-p4cfg: %s\n", err);
		return 1;
	}
	return 0;
}
