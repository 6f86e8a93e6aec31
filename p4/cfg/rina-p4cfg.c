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
#include "p4cfg.h"
#include "jobfile.h"
#include "configuration.h"

static struct rina_job_desc job;

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

int main(int argc, char **argv)
{
	struct rina_p4cfg o;
	const char *file = NULL;
	int have_rack = 0, have_uplink = 0, c;
	char err[256];

	rina_p4cfg_defaults(&o);
	while ((c = getopt(argc, argv, "f:r:u:p:i:e:b:g:R:n:lh")) != -1) {
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
		case 'l': o.l2 = 1; break;
		default: usage();
		}
	}
	if (!file || !have_rack || !have_uplink || optind != argc)
		usage();
	if (rina_jobfile_parse(file, &job, err, sizeof(err))) {
		fprintf(stderr, "rina-p4cfg: %s\n", err);
		return 1;
	}
	if (rina_p4cfg_write(stdout, &job, &o, err, sizeof(err))) {
		fprintf(stderr, "rina-p4cfg: %s\n", err);
		return 1;
	}
	return 0;
}
