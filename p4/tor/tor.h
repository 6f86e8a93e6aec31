/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * rina-tor's parts and what they share (rina-tor.c describes the whole).
 * Each part owns its state; the others reach it through the names below.
 * Each calls only the parts to its right, without cycles:
 *
 *   rina-tor.c -> tor_stats.c -> tor_datapath.c -> tor_control.c
 *   -> tor_jobs.c -> the switch model, rina-p4cfg's generator
 *
 * (main; JSON; ports, frames, ARP; TOR_INSTALL/REMOVE; job install).
 */
#ifndef RINA_TOR_H
#define RINA_TOR_H

#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/if.h>
#include <stdio.h>

#include "rina_tor_model.h"
#include "jobfile.h"
#include "ctrl_auth.h"

#define MAX_PORTS	(RINA_TOR_MAX_WORKERS + 1)
#define MAX_TOR_JOBS	8

/* ---- tor_jobs.c: the jobs of the command line on the model ---- */

extern struct rina_job_desc jobs[MAX_TOR_JOBS];
/* each job's hash as its file says it, before MACs are resolved */
extern __u64 job_hash[MAX_TOR_JOBS];
extern int n_jobs;
extern struct rina_tor *sw;
extern unsigned int rack;

/* A runtime CLI command on the model; a failure is printed. 0 or -1. */
int tor_cli(const char *line);
/* Plain L2: the flood group 1 over the ports 0..n_ports-1, before jobs. */
int tor_install_flood(int n_ports);
/* The first epoch a job install takes; each install takes the next. */
void tor_jobs_epoch(unsigned int epoch);
/*
 * Install or remove job k: an enum rina_tor_status. Installing a job
 * installed for the same session is ok (an agent's probe); for another
 * session it is installed anew, with that session's tag and a fresh
 * epoch. Removing one that is not installed: "unknown job".
 */
int tor_job_install(int k, int n_ports, __u64 session);
int tor_job_remove(int k);

/* ---- tor_control.c: the ToR control protocol (TOR_INSTALL...) ---- */

/*
 * Requests refused or taken, per job; a request for a job id the ToR
 * does not hold counts in ctrl_unknown.
 */
struct ctrl_ctr {
	__u64	ok;		/* authenticated and acted on */
	__u64	forged;		/* unsigned, bad MAC, or signed without key */
	__u64	replayed;	/* stamp outside the window, or seen before */
	__u64	bad_hash;	/* authentic but for another job description */
};

extern struct ctrl_ctr ctrl_ctr[MAX_TOR_JOBS];
extern __u64 ctrl_unknown;

/*
 * The ToR's control address: the bridge's IPv4 address and MAC (set:
 * given, for a test); without an address no frame is a request.
 */
void tor_control_addr(const char *bridge);
void tor_control_set(__be32 ip, const __u8 mac[6]);
/*
 * A control frame as it is on the wire: no IPv4 options, the message
 * signed (RINA_CTRL_AUTH_WORDS) or not (RINA_CTRL_WORDS: m.a absent).
 * Packed: a frame sits in a ring at any alignment.
 */
struct tor_ctrl_frame {
	struct ethhdr		eth;
	struct iphdr		ip;
	struct udphdr		udp;
	struct rina_ctrl_msg	m;
} __attribute__((packed));

/*
 * The frame f of len bytes, if it is a control request to the ToR: act on
 * it and write the reply frame to reply (TOR_REPLY_FRAME_MAX bytes).
 * Returns the reply's length, or 0 for a frame that is not a control
 * request, which then goes to the model.
 */
#define TOR_REPLY_FRAME_MAX	sizeof(struct tor_ctrl_frame)
unsigned int tor_control(const __u8 *f, unsigned int len, __u8 *reply,
			 int n_ports);

/* ---- tor_datapath.c: the bridge's ports, frames through the model ---- */

struct port {
	char	name[IF_NAMESIZE];
	int	ifindex;
	int	fd;
	int	tc;		/* 1: program attached, 2: and our qdisc */
	unsigned int mtu;	/* frames up to ETH_HLEN + mtu leave */
	__u8	*ring;		/* PACKET_RX_RING (TPACKET_V2), mmapped */
	size_t	ring_len;
	unsigned int head;	/* next ring frame to look at */
	__u8	*txr;		/* PACKET_TX_RING, after the receive ring */
	unsigned int tx_head;	/* next transmit frame to fill */
	unsigned int tx_first;	/* oldest frame handed to the kernel */
	unsigned int tx_pend;	/* frames from tx_first not yet sent */
	__u64	rx, tx;
	__u64	tx_drop;	/* output frames longer than the port's MTU */
	__u64	rx_drop;	/* frames the receive ring had no room for */
};

extern struct port ports[MAX_PORTS];
extern int n_ports;
extern int use_qdisc;	/* --qdisc: the ports' qdiscs shape what we send */

/* The bridge's ports up0, h0, h1... as ports[] (0 or -ENOENT...). */
int tor_find_ports(const char *bridge);
/* The MACs the job files leave out, by ARP (0, or -1 after 3 s). */
int tor_resolve_macs(void);
/* Load the tc program, open and steer every port (0, or -1: printed). */
int tor_ports_open(void);
/* Wait up to ms for frames, handle them, send the outputs; <0: error. */
int tor_poll(int ms);
/* Add the frames each receive ring dropped since the last call. */
void tor_port_drops_update(void);
/* The tc program's counters; 0 when it is not loaded. */
int tor_steer_counts(__u64 *selected, __u64 *steered, __u64 *unleased);
/*
 * The steering lease: the bridge gets the Rina frames back once rina-tor
 * has not renewed it for TOR_LEASE_MS; a rina-tor that was away for
 * TOR_FORGET_MS forgets its jobs (rina-tor.c). Both below the agents'
 * time to give up on a silent ToR (core/agent.h: RINA_AGENT_TOR_PROBE_US
 * + RINA_AGENT_TOR_TRIES x RINA_AGENT_TOR_RETRY_US, 500 ms).
 */
#define TOR_LEASE_MS	250
#define TOR_FORGET_MS	400
__u64 tor_lease_renew(void);
extern __u64 tor_lease_lapses;	/* renewals after it had run out */
/* Close the ports (the bridge forwards every frame again), then unload. */
void tor_ports_close(void);
void tor_steer_close(void);

/* ---- tor_stats.c: the counters as JSON and the exit line ---- */

void tor_json(FILE *f);
/* Write the JSON to path atomically (through path.tmp). */
/* The same counters in Prometheus's text format (tor_prom.c). */
void tor_prom(FILE *f);
/* --stats FILE, atomically, as JSON or (prom) Prometheus; 0 or -1 with
 * a message on stderr */
int tor_stats_write(const char *path, int prom);
/* Whether path's FILE.tmp can be made: 0, or -1 with a message. */
int tor_stats_probe(const char *path);
void tor_exit_line(void);

#endif
