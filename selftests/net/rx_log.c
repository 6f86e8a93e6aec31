// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rx_log.so: the order in which a rank receives ring data, for tests
 * that check a sender's order on the wire. Preloaded into one rank
 * (LD_PRELOAD), it wraps recvmmsg() and appends a line per reduce-scatter
 * or allgather packet (each segment of a UDP GRO super-datagram) to the
 * file RX_LOG names: "round seq opcode chunk p_chunk retx". A path of
 * one queue after another keeps its sender's order, losses aside.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rx_shim.h"

#ifndef SOL_UDP
#define SOL_UDP		17
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif

static FILE *log_file;

/* The segment size of a GRO super-datagram, or 0 (one datagram). */
static size_t gro_size(const struct msghdr *mh)
{
	struct cmsghdr *cm;
	int v;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR((struct msghdr *)mh,
							  cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(v))) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v > 0 ? (size_t)v : 0;
		}
	return 0;
}

static void log_one(const uint8_t *p, size_t len)
{
	struct rina_hdr h;
	unsigned int op;

	if (len < RINA_HDR_LEN)
		return;
	memcpy(&h, p, sizeof(h));
	op = h.ver_op & 0xf;
	if (op != RINA_OP_SR_PARTIAL && op != RINA_OP_AG_DATA)
		return;
	fprintf(log_file, "%u %u %u %u %u %u\n", ntohs(h.round),
		ntohl(h.seq), op, ntohs(h.chunk), ntohs(h.p_chunk),
		!!(h.flags & RINA_F_RETX));
}

static void log_msg(const struct mmsghdr *m)
{
	const struct msghdr *mh = &m->msg_hdr;
	size_t seg, off, len = m->msg_len;
	const uint8_t *p;

	if (mh->msg_iovlen < 1 || mh->msg_iov[0].iov_len < len)
		return;
	p = mh->msg_iov[0].iov_base;
	seg = gro_size(mh);
	if (!seg)
		seg = len;
	for (off = 0; off < len; off += seg)
		log_one(p + off, len - off < seg ? len - off : seg);
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	const char *path = getenv("RX_LOG");
	int ret, i;

	ret = rx_shim_recvmmsg(fd, vec, vlen, flags, timeout);
	if (!log_file && path && *path)
		log_file = fopen(path, "a");
	for (i = 0; log_file && i < ret; i++)
		log_msg(&vec[i]);
	return ret;
}
