// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * tx_log.so: the order in which a rank sends ring data, for tests of a
 * sender's order. Preloaded into one rank (LD_PRELOAD), it wraps
 * sendmmsg() and appends a line per reduce-scatter or allgather packet
 * that the kernel took (each segment of a UDP GSO send) to the file
 * TX_LOG names: "round seq opcode chunk p_chunk retx". What the kernel
 * refused is not logged: it was never sent, and goes again flagged as a
 * retransmission. The sender's order, not the receiver's: two veths
 * deliver through the per-CPU backlog of whichever CPU sent, so a
 * shaped path may reorder a frame or two in a thousand.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rina.h>

#ifndef SOL_UDP
#define SOL_UDP		17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif

typedef int (*sendmmsg_fn)(int, struct mmsghdr *, unsigned int, int);

static FILE *log_file;

/* The segment size of a UDP GSO send, or 0 (one datagram). */
static size_t gso_size(const struct msghdr *mh)
{
	struct cmsghdr *cm;
	uint16_t v;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR((struct msghdr *)mh,
							  cm))
		if (cm->cmsg_level == SOL_UDP &&
		    cm->cmsg_type == UDP_SEGMENT &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(v))) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v;
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

/*
 * Each segment of a message: the payload is the iovecs one after
 * another, cut every seg bytes. A segment's header must lie in one
 * iovec (librina gives each packet its own).
 */
static void log_msg(const struct msghdr *mh)
{
	size_t seg = gso_size(mh), pos = 0, i, next = 0;

	for (i = 0; i < mh->msg_iovlen; i++) {
		const struct iovec *v = &mh->msg_iov[i];

		while (next >= pos && next < pos + v->iov_len) {
			size_t off = next - pos;

			log_one((const uint8_t *)v->iov_base + off,
				v->iov_len - off);
			if (!seg)
				return;
			next += seg;
		}
		pos += v->iov_len;
	}
}

int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	static sendmmsg_fn real;
	const char *path = getenv("TX_LOG");
	int ret, i;

	if (!real)
		real = (sendmmsg_fn)dlsym(RTLD_NEXT, "sendmmsg");
	ret = real(fd, vec, vlen, flags);
	if (!log_file && path && *path)
		log_file = fopen(path, "a");
	for (i = 0; log_file && i < ret; i++)
		log_msg(&vec[i].msg_hdr);
	return ret;
}
