// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A bounded flood of forged Rina data at one port, faster than
 * inject.py (which paces a few 10^4 packets/s): SR_PARTIALs with a
 * made-up data tag and a spoofed source, 64 distinct packets sent in
 * turn with sendmmsg() on a raw socket, until COUNT went out or SECS
 * passed. Used by flood_bench.sh (issue 49); root only.
 *
 *   flood DST_IP DST_PORT SRC_IP SRC_PORT JOB_ID COUNT SECS [WORDS]
 */
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/rina.h>

#define NPKT	64

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One forged packet: IPv4, UDP (no checksum), header, payload, tag. */
static size_t build(uint8_t *p, int i, uint32_t src, int sport,
		    uint32_t dst, int dport, int job, int words)
{
	size_t rlen = sizeof(struct rina_hdr) + 4 * (size_t)words +
		      RINA_TAG_LEN;
	size_t len = sizeof(struct iphdr) + sizeof(struct udphdr) + rlen;
	struct iphdr *ip = (struct iphdr *)p;
	struct udphdr *u = (struct udphdr *)(ip + 1);
	struct rina_hdr *h = (struct rina_hdr *)(u + 1);
	uint8_t *b = (uint8_t *)(h + 1);
	size_t j;

	memset(p, 0, len);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons((uint16_t)len);
	ip->id = htons((uint16_t)i);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = src;
	ip->daddr = dst;
	u->source = htons((uint16_t)sport);
	u->dest = htons((uint16_t)dport);
	u->len = htons((uint16_t)(sizeof(*u) + rlen));
	h->ver_op = RINA_VERSION << 4 | RINA_OP_SR_PARTIAL;
	h->job_id = htons((uint16_t)job);
	h->round = htons((uint16_t)(rand() % 400));
	h->chunk = htons((uint16_t)(rand() % 4));
	h->seq = htonl((uint32_t)(rand() % 4096));
	h->n_elem = htons((uint16_t)words);
	h->p_chunk = htons(16);
	h->num_contrib = htons(1);
	h->exp = RINA_EXP_NONE;
	h->dtype_op = 0x10;
	h->rsvd = htons(RINA_X_TAG);
	for (j = 0; j < 4 * (size_t)words + RINA_TAG_LEN; j++)
		b[j] = (uint8_t)rand();
	return len;
}

int main(int argc, char **argv)
{
	static uint8_t pkt[NPKT][sizeof(struct iphdr) + sizeof(struct udphdr) +
				 sizeof(struct rina_hdr) + 4 * 1024 +
				 RINA_TAG_LEN];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct mmsghdr mh[NPKT];
	struct iovec iov[NPKT];
	long count, sent = 0;
	int fd, i, words;
	double secs, t0;

	if (argc < 8) {
		fprintf(stderr, "usage: %s DST_IP DST_PORT SRC_IP SRC_PORT JOB_ID COUNT SECS [WORDS]\n",
			argv[0]);
		return 2;
	}
	sa.sin_addr.s_addr = inet_addr(argv[1]);
	count = atol(argv[6]);
	secs = atof(argv[7]);
	words = argc > 8 ? atoi(argv[8]) : 256;
	if (words < 1 || words > 1024) {
		fprintf(stderr, "flood: WORDS is 1..1024\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("flood: socket");
		return 1;
	}
	srand((unsigned int)getpid());
	memset(mh, 0, sizeof(mh));
	for (i = 0; i < NPKT; i++) {
		iov[i].iov_base = pkt[i];
		iov[i].iov_len = build(pkt[i], i, inet_addr(argv[3]),
				       atoi(argv[4]), sa.sin_addr.s_addr,
				       atoi(argv[2]), atoi(argv[5]), words);
		mh[i].msg_hdr.msg_iov = &iov[i];
		mh[i].msg_hdr.msg_iovlen = 1;
		mh[i].msg_hdr.msg_name = &sa;
		mh[i].msg_hdr.msg_namelen = sizeof(sa);
	}
	t0 = now_s();
	while (sent < count && now_s() - t0 < secs) {
		int n = count - sent < NPKT ? (int)(count - sent) : NPKT;
		int r = sendmmsg(fd, mh, (unsigned int)n, 0);

		if (r > 0)
			sent += r;
	}
	printf("flood: sent %ld forged packets of %zu bytes to %s:%s in %.1f s\n",
	       sent, iov[0].iov_len, argv[1], argv[2], now_s() - t0);
	close(fd);
	return 0;
}
