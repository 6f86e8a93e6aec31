// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rx_corrupt.so: an on-path corrupter for tests, preloaded into one rank
 * (LD_PRELOAD). It wraps recvmmsg() and changes the first payload word
 * of the first ring partial (SR_PARTIAL) of a SUM that the rank receives
 * in round RX_CORRUPT_ROUND or later (a float32 call's exponent pre-pass,
 * a MAX, is left alone), as a faulty NIC or switch would: the packet
 * stays well formed, only one value is wrong, nothing else is touched.
 * It says on stderr which packet it changed, once.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rx_shim.h"

#define CORRUPT_ADD	12345	/* out of any bound, no int32 wrap */

static int done;

static void maybe_corrupt(struct mmsghdr *m, long round)
{
	struct rina_hdr h;
	uint32_t v;
	uint8_t *p;

	if (!rx_shim_hdr(m, RINA_HDR_LEN + 4, &h))
		return;
	p = m->msg_hdr.msg_iov[0].iov_base;
	if ((h.ver_op & 0xf) != RINA_OP_SR_PARTIAL ||
	    RINA_OP_OF(h.dtype_op) != RINA_WIRE_SUM ||
	    ntohs(h.round) < round || !ntohs(h.n_elem))
		return;
	memcpy(&v, p + RINA_HDR_LEN, 4);
	v = htonl(ntohl(v) + CORRUPT_ADD);
	memcpy(p + RINA_HDR_LEN, &v, 4);
	done = 1;
	fprintf(stderr,
		"rx_corrupt: changed word 0 of SR_PARTIAL round %u seq %u chunk %u from rank %u\n",
		ntohs(h.round), ntohl(h.seq), ntohs(h.chunk), ntohs(h.src_id));
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	const char *r = getenv("RX_CORRUPT_ROUND");
	int ret, i;

	ret = rx_shim_recvmmsg(fd, vec, vlen, flags, timeout);
	for (i = 0; r && *r && !done && i < ret; i++)
		maybe_corrupt(&vec[i], strtol(r, NULL, 0));
	return ret;
}
