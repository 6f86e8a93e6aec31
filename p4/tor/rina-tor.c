// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor: the software INA ToR of the emulated cluster. In a ToR
 * network namespace whose Linux bridge switches a rack (rina-run: bridge
 * br0, uplink port up0, host ports h0..h<m-1>), it runs the switch model
 * (p4/model) on every Rina frame of the bridge's ports and leaves all
 * other traffic to the bridge.
 *
 * Datapath (v0): one AF_PACKET socket per bridge port sees the port's
 * Rina frames (IPv4/UDP, destination port 0x5240..0x524f) before the
 * bridge does, and a tc ingress program drops them so that the bridge
 * does not forward them too; the model's output frames are sent on their
 * ports directly. The socket's filter and the tc program are one test
 * (rina_tor_tc.bpf.c, loaded with libbpf): every other frame reaches the
 * bridge only, and crosses the ToR as it crosses a plain bridge. No frame
 * is cut to fit a ring frame and no frame above a port's MTU is sent (see
 * rx_port() and tx_queue()). Frames are handled in batches: read in
 * place from a per-port receive ring (PACKET_RX_RING, TPACKET_V2), the
 * outputs of a batch written to their port's transmit ring
 * (PACKET_TX_RING) and sent with one send() each, past the qdisc
 * (PACKET_QDISC_BYPASS; --qdisc sends through it, for ports that
 * rina-run --rate shapes). (An AF_XDP
 * datapath with an XDP program steering Rina frames to XSKs is the
 * faster alternative; the model is the same.)
 *
 * The job is installed from the job file at start, with the commands
 * rina-p4cfg would write for the rack (Documentation/p4-control-plane.md);
 * MAC addresses missing from the job file are resolved by ARP from the
 * bridge's address. Counters: -j prints them as JSON at exit, --stats FILE
 * keeps a JSON copy up to date every second (--format prometheus: in
 * Prometheus's text format, a node_exporter textfile; tor_prom.c).
 *
 * With --on-demand the agents install and remove their jobs (tor_control.c):
 * signed requests in a job with a secret, one uniform answer to every
 * request that does not prove it comes from the job.
 *
 * The parts (tor.h): tor_datapath.c the ports, rings and ARP,
 * tor_control.c the control protocol, tor_jobs.c the job install on the
 * model, tor_stats.c the JSON counters; this file the options and main.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tor.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rina-tor --job FILE [--job FILE]... --rack R [--bridge br0]\n"
		"                [--epoch N] [--on-demand]\n"
		"                [--stats FILE [--format json|prometheus]] [-j]\n"
		"                [--drop VER_OP:RATE]...\n"
		"                [--drop-out VER_OP:RATE]... [--qdisc]\n"
		"  runs in a ToR namespace whose bridge has ports up0, h0, h1...\n"
		"  --drop 0x11:655  drop 1%% of SR_CONTRIB (ingress simulator)\n"
		"  --drop-out 0x13:6554  drop 10%% of the AG_DATA copies the\n"
		"                switch emits, each on its own (egress simulator)\n"
		"  --qdisc       send through the ports' qdiscs (shaped links)\n"
		"  --stats FILE  the counters, every second and at exit, replaced\n"
		"                atomically (FILE.tmp renamed): JSON, or with\n"
		"                --format prometheus Prometheus's text format (a\n"
		"                node_exporter textfile: name it *.prom)\n");
	exit(2);
}

/* --job FILE...: the jobs, and each one's hash before ARP fills in MACs. */
static int load_jobs(const char *const *files)
{
	char err[256];
	int i;

	for (i = 0; i < n_jobs; i++) {
		if (rina_jobfile_parse(files[i], &jobs[i], err, sizeof(err))) {
			fprintf(stderr, "rina-tor: %s\n", err);
			return -1;
		}
		job_hash[i] = rina_job_hash(&jobs[i]);
	}
	return 0;
}

/* Without --on-demand every job is installed at start. */
static int install_all(void)
{
	int i, st;

	for (i = 0; i < n_jobs; i++) {
		/* a job with a secret is tagged for its first session's
		 * number once an agent tells it (TOR_INSTALL) */
		st = tor_job_install(i, n_ports, 0);
		if (st != RINA_TOR_ST_INSTALLED) {
			fprintf(stderr, "rina-tor: job %u: %s\n",
				jobs[i].job_id,
				st == RINA_TOR_ST_NO_SLOTS ? "no slots left" :
				"bad parameters (elements above 64?)");
			return -1;
		}
	}
	return 0;
}

/*
 * After an absence: remove every job, as a restart would, and without
 * --on-demand install them again (a fresh epoch each).
 */
static void forget_jobs(int on_demand)
{
	int i;

	fprintf(stderr, "rina-tor: away for %u ms or more: forgetting the jobs\n",
		TOR_FORGET_MS);
	for (i = 0; i < n_jobs; i++)
		tor_job_remove(i);
	if (!on_demand)
		install_all();
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "job", required_argument, NULL, 'f' },
		{ "rack", required_argument, NULL, 'r' },
		{ "bridge", required_argument, NULL, 'b' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "stats", required_argument, NULL, 's' },
		{ "drop", required_argument, NULL, 'd' },
		{ "drop-out", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "on-demand", no_argument, NULL, 'o' },
		{ "qdisc", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	const char *files[MAX_TOR_JOBS], *bridge = "br0", *stats = NULL;
	char drops[16][96];
	unsigned int epoch = (unsigned int)time(NULL) & 0xffff;
	int c, i, have_rack = 0, jflag = 0, n_drops = 0, ret = 1;
	int on_demand = 0, prom = 0;
	time_t last = 0;

	while ((c = getopt_long(argc, argv, "f:r:b:e:s:d:jo", lo,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			if (n_jobs == MAX_TOR_JOBS)
				usage();
			files[n_jobs++] = optarg;
			break;
		case 'r': rack = (unsigned int)atoi(optarg); have_rack = 1;
			  break;
		case 'b': bridge = optarg; break;
		case 'e': epoch = (unsigned int)strtoul(optarg, NULL, 0) &
				  0xffff; break;
		case 's': stats = optarg; break;
		case 'j': jflag = 1; break;
		case 'o': on_demand = 1; break;
		case 'q': use_qdisc = 1; break;
		case 'F':
			prom = !strcmp(optarg, "prometheus");
			if (!prom && strcmp(optarg, "json")) {
				fprintf(stderr, "rina-tor: --format %s: expected json or prometheus\n",
					optarg);
				usage();
			}
			break;
		case 'd':
		case 'D': {
			const char *pipe = c == 'd' ? "Ingress" : "Egress";
			unsigned int op, rate;

			if (n_drops == 16 ||
			    sscanf(optarg, "%i:%u", &op, &rate) != 2)
				usage();
			snprintf(drops[n_drops++], sizeof(drops[0]),
				 "table_add Rina%s.drop_sim.drop_sim "
				 "Rina%s.drop_sim.drop_rate %u => %u",
				 pipe, pipe, op, rate);
			break;
		}
		default: usage();
		}
	}
	if (!n_jobs || !have_rack || optind != argc)
		usage();
	if (load_jobs(files))
		return 1;
	/* an unwritable --stats fails now, not silently every second */
	if (stats && tor_stats_probe(stats))
		return 1;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return 1;
	rina_tor_init(sw);
	if (tor_find_ports(bridge)) {
		fprintf(stderr, "rina-tor: bridge %s: no ports up0, h0...\n",
			bridge);
		return 1;
	}
	if (tor_resolve_macs()) {
		fprintf(stderr, "rina-tor: cannot resolve every rank's MAC\n");
		return 1;
	}
	tor_jobs_epoch(epoch);
	tor_control_addr(bridge);
	if (tor_install_flood(n_ports) || (!on_demand && install_all()))
		return 1;
	for (i = 0; i < n_drops; i++)
		if (tor_cli(drops[i]))
			return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (tor_ports_open())
		goto out;
	fprintf(stderr, "rina-tor: %d job(s), first %u, rack %u: %d ports, "
		"epoch %u\n", n_jobs, jobs[0].job_id, rack, n_ports, epoch);
	while (!stop) {
		/*
		 * Away long enough for the agents to have given up on us
		 * (stopped, starved): what we hold is theirs no more.
		 */
		if (tor_lease_renew() >= TOR_FORGET_MS)
			forget_jobs(on_demand);
		if (tor_poll(TOR_LEASE_MS / 5))
			break;
		if (stats && time(NULL) != last) {
			last = time(NULL);
			tor_port_drops_update();
			tor_stats_write(stats, prom);
		}
	}
	ret = 0;
out:
	tor_port_drops_update();
	tor_ports_close();
	if (stats && tor_stats_write(stats, prom))
		ret = 1;
	if (jflag)
		tor_json(stdout);
	tor_steer_close();
	tor_exit_line();
	return ret;
}
