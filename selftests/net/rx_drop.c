// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rx_drop.so: loses, for tests, what an INA ToR sent a rank of its rack
 * of one chunk's results in one call, preloaded into the rack's ranks
 * (LD_PRELOAD). It wraps recvmmsg() and empties every datagram that is
 * AG_DATA from the switch (RINA_F_FROM_SWITCH) of round RX_DROP_ROUND and
 * chunk RX_DROP_CHUNK, from seq RX_DROP_SEQ on (0 if unset): a
 * zero-length datagram, which librina drops as malformed. As if the ToR
 * had sent that result downstream and died before its copies to the rack
 * (the workers' and the agent's) left. The ToR sends each frame on its
 * own, so none of them arrives merged with another (UDP GRO). It says on
 * stderr when it first drops one.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rx_shim.h"

static int said;

static void maybe_drop(struct mmsghdr *m, long round, long chunk,
		       long seq)
{
	struct rina_hdr h;

	if (!rx_shim_hdr(m, RINA_HDR_LEN, &h))
		return;
	if ((h.ver_op & 0xf) != RINA_OP_AG_DATA ||
	    !(h.flags & RINA_F_FROM_SWITCH) ||
	    ntohs(h.round) != round || ntohs(h.chunk) != chunk ||
	    ntohl(h.seq) < seq)
		return;
	m->msg_len = 0;
	if (!said++)
		fprintf(stderr,
			"rx_drop: dropping the switch's results of round %u chunk %u (first: seq %u)\n",
			ntohs(h.round), ntohs(h.chunk), ntohl(h.seq));
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	const char *r = getenv("RX_DROP_ROUND");
	const char *c = getenv("RX_DROP_CHUNK");
	const char *q = getenv("RX_DROP_SEQ");
	long seq = q && *q ? strtol(q, NULL, 0) : 0;
	int ret, i;

	ret = rx_shim_recvmmsg(fd, vec, vlen, flags, timeout);
	for (i = 0; r && *r && c && *c && i < ret; i++)
		maybe_drop(&vec[i], strtol(r, NULL, 0), strtol(c, NULL, 0),
			   seq);
	return ret;
}
