// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: rina-tor's control protocol (p4/tor/tor_control.c),
 * frames straight into tor_control() over the model, as rina-tor's
 * datapath hands them over. A reply, when there is one, must be a whole
 * reply frame; the switch's tables must hold what the jobs installed.
 *
 * Input: a mode byte, then frames, each "LEN_HI LEN_LO BYTES". Mode bit
 * 0: each frame's Ethernet, IPv4 and UDP fields are made those of a
 * request to the ToR (so that the fuzzer reaches the message); bit 1:
 * the job has a secret, and bit 2 with it: each request is signed with
 * it (a valid MAC and a fresh stamp), else forged; bit 3 (with bit 0):
 * each request carries the job's hash, so that installs and removals
 * are taken.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tor.h"
#include "secret.h"

#define TOR_IP		"198.18.1.254"

static const __u8 tor_mac[6] = { 2, 0, 0, 0, 1, 0xfe };
static const __u8 secret[RINA_SECRET_LEN] = "0123456789abcdef";

/* the job of selftests/tor/job_rack1.txt: this ToR is INA rack 1's */
static const char job_text[] =
	"job 7\nelements 64\nwindow 2\n"
	"rack 0 plain\nrack 1 ina tor 198.18.1.254\nrack 2 plain\n"
	"rank 0 198.18.0.10:21056 rack 0\n"
	"rank 1 198.18.1.11:21056 rack 1\n"
	"rank 2 198.18.1.12:21056 rack 1\n"
	"rank 3 198.18.1.13:21056 rack 1\n"
	"rank 4 198.18.2.10:21056 rack 2\n";

static int setup(int with_secret)
{
	char err[256], *text = strdup(job_text);
	int ret;

	ret = rina_jobfile_parse_text(text, "fuzz", &jobs[0], err,
				      sizeof(err));
	free(text);
	if (ret)
		return -1;
	if (with_secret) {
		jobs[0].has_secret = 1;
		memcpy(jobs[0].secret, secret, sizeof(secret));
	}
	job_hash[0] = rina_job_hash(&jobs[0]);
	n_jobs = 1;
	rack = 1;
	if (!sw)
		sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -1;
	rina_tor_init(sw);
	tor_jobs_epoch(1);
	if (tor_install_flood(4))
		return -1;
	/* (also the replay guards, from now) */
	tor_control_set(inet_addr(TOR_IP), tor_mac);
	return 0;
}

/* Make f (room for a signed request) a request's frame: its length. */
static unsigned int fix(__u8 *f, unsigned int len, int sign, int hash)
{
	struct tor_ctrl_frame *q = (struct tor_ctrl_frame *)f;
	unsigned int plain = sizeof(*q) - sizeof(q->m.a);

	if (len < plain)
		len = plain;
	if (len > sizeof(*q))
		len = sizeof(*q);
	q->eth.h_proto = htons(ETH_P_IP);
	q->ip.version = 4;
	q->ip.ihl = 5;
	q->ip.protocol = IPPROTO_UDP;
	q->ip.daddr = inet_addr(TOR_IP);
	q->udp.dest = htons(RINA_UDP_PORT_AGENT);
	if (hash)
		q->m.c.hash = htobe64(job_hash[0]);
	if (sign) {
		rina_ctrl_seal(&q->m, secret, rina_siphash24, rina_wall_us(),
			       q->ip.daddr, q->udp.dest);
		len = sizeof(*q);
	} else if (len != sizeof(*q)) {
		len = plain;
	}
	q->ip.tot_len = htons((__u16)(len - sizeof(q->eth)));
	q->udp.len = htons((__u16)(len - sizeof(q->eth) - sizeof(q->ip)));
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	__u8 reply[TOR_REPLY_FRAME_MAX];
	__u8 mode;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	if (setup(mode & 2))
		abort();
	while (size >= 2) {
		unsigned int len = (unsigned int)data[0] << 8 | data[1];
		unsigned int n;
		__u8 *f;

		data += 2;
		size -= 2;
		if (len > size)
			len = (unsigned int)size;
		f = calloc(1, len + sizeof(struct tor_ctrl_frame));
		memcpy(f, data, len);
		data += len;
		size -= len;
		if (mode & 1)
			len = fix(f, len, (mode & 6) == 6, mode & 8);
		/* an exact-size copy: ASan sees any read past the frame */
		{
			__u8 *copy = malloc(len ? len : 1);

			memcpy(copy, f, len);
			n = tor_control(copy, len, reply, 4);
			free(copy);
		}
		free(f);
		/* a reply is a whole frame, signed or not */
		if (n && n != TOR_REPLY_FRAME_MAX &&
		    n != TOR_REPLY_FRAME_MAX - sizeof(struct rina_ctrl_auth))
			abort();
	}
	tor_jobs_epoch(1);
	return 0;
}
