// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's control protocol (p4/tor/tor_control.c) without a network:
 * frames straight into tor_control() over the model, built with ASan and
 * UBSan. A request gets the reply protocol-ina.md describes; every frame
 * that is not exactly a request (cut short, longer, another address,
 * inconsistent IPv4 or UDP lengths, random corruption) is left to the
 * model, never read past its end. Usage: tor_control_test JOBFILE (a job
 * without a secret with INA rack 1, selftests/tor/job_rack1.txt).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tor.h"
#include "secret.h"
#include "../ktap.h"

#define TOR_IP		"198.18.1.254"
#define AGENT_IP	"198.18.1.11"
#define AGENT_SPORT	0x5240

static const __u8 tor_mac[6] = { 2, 0, 0, 0, 1, 0xfe };
static const __u8 agent_mac[6] = { 2, 0, 0, 0, 1, 0x0b };

/* A request frame of type for job job_id with hash; its length. */
static unsigned int request(__u8 *buf, __u32 type, __u16 job_id, __u64 hash)
{
	struct tor_ctrl_frame *f = (struct tor_ctrl_frame *)buf;
	unsigned int len;

	memset(f, 0, sizeof(*f));
	f->m.h.ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	f->m.h.job_id = htons(job_id);
	f->m.h.src_id = htons(1);
	f->m.h.exp = RINA_EXP_NONE;
	f->m.c.type = htonl(type);
	f->m.c.hash = htobe64(hash);
	len = rina_ctrl_seal(&f->m, NULL, rina_siphash24, 0,
			     inet_addr(TOR_IP), htons(RINA_UDP_PORT_AGENT));
	memcpy(f->eth.h_dest, tor_mac, 6);
	memcpy(f->eth.h_source, agent_mac, 6);
	f->eth.h_proto = htons(ETH_P_IP);
	f->ip.version = 4;
	f->ip.ihl = 5;
	f->ip.tot_len = htons((__u16)(28 + len));
	f->ip.ttl = 64;
	f->ip.protocol = IPPROTO_UDP;
	f->ip.saddr = inet_addr(AGENT_IP);
	f->ip.daddr = inet_addr(TOR_IP);
	f->ip.check = htons(rina_tor_ipv4_csum(buf + 14));
	f->udp.source = htons(AGENT_SPORT);
	f->udp.dest = htons(RINA_UDP_PORT_AGENT);
	f->udp.len = htons((__u16)(8 + len));
	return 42 + len;
}

/*
 * What the switch holds: entries of the job tables, multicast groups and
 * nodes. An install and its removal, or an install refused, leave it so.
 */
struct held {
	unsigned int job, worker, replica, group, node;
};

static struct held held(void)
{
	struct held h = { 0 };
	unsigned int i;

	for (i = 0; i < RINA_TOR_MAX_JOBS; i++)
		h.job += !!sw->rina_job[i].used;
	for (i = 0; i < RINA_TOR_WORKER_SIZE; i++)
		h.worker += !!sw->rina_worker[i].used;
	for (i = 0; i < RINA_TOR_RID_SIZE; i++)
		h.replica += !!sw->replica[i].used;
	for (i = 0; i < RINA_TOR_MAX_GROUPS; i++)
		h.group += !!sw->mgrp_used[i];
	for (i = 0; i < RINA_TOR_MAX_NODES; i++)
		h.node += !!sw->mc_node[i].used;
	return h;
}

static int held_eq(struct held a, struct held b)
{
	return a.job == b.job && a.worker == b.worker &&
	       a.replica == b.replica && a.group == b.group && a.node == b.node;
}

/* tor_control() on a copy of exactly len bytes (ASan sees an over-read). */
static unsigned int control(const __u8 *f, unsigned int len, __u8 *reply)
{
	__u8 *copy = malloc(len ? len : 1);
	unsigned int n;

	memcpy(copy, f, len);
	n = tor_control(copy, len, reply, 4);
	free(copy);
	return n;
}

/* A reply answering the request req with status st, unsigned. */
static int reply_ok(const __u8 *buf, unsigned int n, const __u8 *req,
		    __u32 st)
{
	const struct tor_ctrl_frame *r = (const struct tor_ctrl_frame *)buf;
	const struct tor_ctrl_frame *q = (const struct tor_ctrl_frame *)req;

	return n == 42 + RINA_HDR_LEN + 4 * RINA_CTRL_WORDS &&
	       !memcmp(r->eth.h_dest, agent_mac, 6) &&
	       !memcmp(r->eth.h_source, tor_mac, 6) &&
	       r->ip.saddr == inet_addr(TOR_IP) &&
	       r->ip.daddr == inet_addr(AGENT_IP) &&
	       ntohs(r->ip.tot_len) == n - 14 &&
	       ntohs(r->ip.check) == rina_tor_ipv4_csum(buf + 14) &&
	       ntohs(r->udp.source) == RINA_UDP_PORT_AGENT &&
	       ntohs(r->udp.dest) == AGENT_SPORT &&
	       ntohs(r->udp.len) == n - 34 &&
	       rina_hdr_check(&r->m.h, n - 42) == RINA_PARSE_OK &&
	       r->m.h.flags == RINA_F_FROM_SWITCH &&
	       r->m.h.job_id == q->m.h.job_id &&
	       ntohs(r->m.h.src_id) == (RINA_SRC_SWITCH | 1) &&
	       ntohl(r->m.c.type) == RINA_CTRL_TOR_REPLY &&
	       ntohl(r->m.c.arg) == st && r->m.c.hash == q->m.c.hash;
}

int main(int argc, char **argv)
{
	__u8 req[TOR_REPLY_FRAME_MAX + 16], f[TOR_REPLY_FRAME_MAX + 16];
	__u8 reply[TOR_REPLY_FRAME_MAX];
	unsigned int len, n, i, bad = 0, taken = 0, fill[RINA_TOR_RID_SIZE];
	unsigned int n_fill = 0;
	struct held before;
	__u32 rng = 1;
	char err[256];
	int ok;

	ktap_plan(11);
	if (argc != 2 || rina_jobfile_parse(argv[1], &jobs[0], err,
					    sizeof(err))) {
		fprintf(stderr, "usage: tor_control_test JOBFILE (%s)\n",
			argc == 2 ? err : "no job file");
		return 2;
	}
	job_hash[0] = rina_job_hash(&jobs[0]);
	n_jobs = 1;
	rack = 1;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return 1;
	rina_tor_init(sw);
	tor_jobs_epoch(1);
	if (tor_install_flood(4))
		return 1;
	tor_control_set(inet_addr(TOR_IP), tor_mac);

	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id, job_hash[0]);
	n = control(req, len, reply);
	ok = reply_ok(reply, n, req, RINA_TOR_ST_INSTALLED);
	n = control(req, len, reply);
	ktap_result(ok && reply_ok(reply, n, req, RINA_TOR_ST_OK) &&
		    ctrl_ctr[0].ok == 2,
		    "install: status installed, the reply addressed, sized "
		    "and checksummed; again (held): ok");

	len = request(req, RINA_CTRL_TOR_REMOVE, jobs[0].job_id, job_hash[0]);
	n = control(req, len, reply);
	ok = reply_ok(reply, n, req, RINA_TOR_ST_OK);
	n = control(req, len, reply);
	ktap_result(ok && reply_ok(reply, n, req, RINA_TOR_ST_UNKNOWN_JOB),
		    "remove: ok; again: unknown job");

	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id,
		      job_hash[0] ^ 1);
	n = control(req, len, reply);
	ok = reply_ok(reply, n, req, RINA_TOR_ST_UNKNOWN_JOB) &&
	     ctrl_ctr[0].bad_hash == 1;
	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id + 1,
		      job_hash[0]);
	n = control(req, len, reply);
	ktap_result(ok && reply_ok(reply, n, req, RINA_TOR_ST_UNKNOWN_JOB) &&
		    ctrl_unknown == 1,
		    "another job's hash, an unknown job id: unknown job, "
		    "counted");

	/* every length but the request's own: not a request */
	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id, job_hash[0]);
	for (i = 0; i < len + 16; i++)
		if (i != len && control(req, i, reply))
			bad++;
	ktap_result(!bad, "the request cut short or longer: not a request "
		    "(%u taken)", bad);

	/* one field wrong each: not a request */
	bad = 0;
	for (i = 0; i < 7; i++) {
		static const unsigned int off[] = {
			12,	/* ethertype */
			14,	/* version and ihl */
			17,	/* IPv4 total length */
			23,	/* protocol */
			33,	/* destination address */
			37,	/* UDP destination port */
			39,	/* UDP length */
		};

		memcpy(f, req, len);
		f[off[i]] ^= 1;
		bad += !!control(f, len, reply);
	}
	memcpy(f, req, len);
	((struct tor_ctrl_frame *)f)->m.c.type = htonl(RINA_CTRL_TOR_REPLY);
	bad += !!control(f, len, reply);
	ktap_result(!bad, "another ethertype, IPv4 header, length, protocol, "
		    "address, port, UDP length or CTRL type: not a request");

	memcpy(f, req, len);
	((struct tor_ctrl_frame *)f)->m.h.n_elem =
		htons(RINA_CTRL_WORDS + 1);
	ktap_result(!control(f, len, reply) &&
		    !control(f, len + 4, reply),
		    "a CTRL whose n_elem disagrees: not a request");

	/*
	 * random corruption of a request: a reply of a request, or none.
	 * The request is a remove with a wrong hash, so that hardly any
	 * corruption makes it a valid request that changes the switch.
	 */
	len = request(req, RINA_CTRL_TOR_REMOVE, jobs[0].job_id,
		      job_hash[0] ^ 1);
	bad = 0;
	for (i = 0; i < 200000; i++) {
		unsigned int k, l = len;

		memcpy(f, req, len);
		rng = rng * 1103515245u + 12345u;
		for (k = 0; k < 1 + (rng >> 28) % 4; k++) {
			rng = rng * 1103515245u + 12345u;
			f[(rng >> 8) % len] ^= (__u8)(1u << ((rng >> 4) % 8));
		}
		if ((rng >> 20) % 8 == 0)
			l = (rng >> 12) % (len + 16);
		n = control(f, l, reply);
		if (n)
			taken++;
		if (n && n != 42 + RINA_HDR_LEN + 4 * RINA_CTRL_WORDS)
			bad++;
	}
	ktap_result(!bad, "200000 corrupted requests: no bad reply (%u "
		    "answered)", taken);

	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id, job_hash[0]);
	tor_job_remove(0);
	n = control(req, len, reply);
	ktap_result(reply_ok(reply, n, req, RINA_TOR_ST_INSTALLED),
		    "after all that, a request is still answered (installed)");

	/*
	 * A job installed and removed again and again, as rina-tor
	 * --on-demand does while agents come and go: each install takes
	 * m + 3 of the 1024 multicast nodes, which its removal must give
	 * back for the next.
	 */
	tor_job_remove(0);
	before = held();
	bad = 0;
	for (i = 0; i < 1000; i++) {
		len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id,
			      job_hash[0]);
		n = control(req, len, reply);
		bad += !reply_ok(reply, n, req, RINA_TOR_ST_INSTALLED);
		len = request(req, RINA_CTRL_TOR_REMOVE, jobs[0].job_id,
			      job_hash[0]);
		n = control(req, len, reply);
		bad += !reply_ok(reply, n, req, RINA_TOR_ST_OK);
	}
	ok = !bad && held_eq(held(), before);
	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id, job_hash[0]);
	n = control(req, len, reply);
	ktap_result(ok && reply_ok(reply, n, req, RINA_TOR_ST_INSTALLED),
		    "1000 installs and removals: all ok, nothing left behind "
		    "(%u failed); one more install ok", bad);

	/*
	 * An install the switch refuses half way: the replica table full
	 * but for one entry, so that the job's first replica goes in and
	 * the second does not. Nothing of it may stay.
	 */
	tor_job_remove(0);
	before = held();
	for (i = 0; before.replica + n_fill + 1 < RINA_TOR_RID_SIZE; i++) {
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "table_add RinaEgress.rewrite.replica "
			 "RinaEgress.rewrite.rw_next %u => 02:00:00:00:09:09 "
			 "198.18.9.9 21056", 60000 + i);
		if (rina_tor_cli_handle(sw, cmd, &fill[n_fill], err,
					sizeof(err)))
			break;
		n_fill++;
	}
	before = held();
	len = request(req, RINA_CTRL_TOR_INSTALL, jobs[0].job_id, job_hash[0]);
	n = control(req, len, reply);
	ktap_result(before.replica == RINA_TOR_RID_SIZE - 1 &&
		    reply_ok(reply, n, req, RINA_TOR_ST_NO_SLOTS) &&
		    held_eq(held(), before),
		    "an install refused half way (replica table full): no "
		    "slots, nothing of it left behind");

	bad = 0;
	for (i = 0; i < n_fill; i++) {
		char cmd[80];

		snprintf(cmd, sizeof(cmd),
			 "table_delete RinaEgress.rewrite.replica %u", fill[i]);
		bad += !!rina_tor_cli(sw, cmd, err, sizeof(err));
	}
	n = control(req, len, reply);
	ok = !bad && reply_ok(reply, n, req, RINA_TOR_ST_INSTALLED);
	len = request(req, RINA_CTRL_TOR_REMOVE, jobs[0].job_id, job_hash[0]);
	n = control(req, len, reply);
	ktap_result(ok && reply_ok(reply, n, req, RINA_TOR_ST_OK),
		    "the table's room back: the install ok, then its "
		    "removal ok");
	free(sw);
	return ktap_finish();
}
