// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rx_kill.so: kills a process at a fixed point of a call, for tests that
 * kill an INA ToR in full flight (LD_PRELOAD into one rank of its rack).
 * A timer lands wherever the scheduler puts it, a call early or late;
 * this lands where the rank is in the call. It wraps recvmmsg() and
 * counts the AG_DATA datagrams of round RX_KILL_ROUND that the switch
 * sent (RINA_F_FROM_SWITCH); at the RX_KILL_AFTER-th it sends SIGKILL to
 * the PID written in the file RX_KILL_PIDFILE (by the test, before that
 * round), once, and says so on stderr. Without the file by then it says
 * that instead and kills nothing.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rx_shim.h"

static long seen;
static int done;

static void kill_now(const char *pidfile, long round)
{
	FILE *f = fopen(pidfile, "r");
	long pid = 0;

	if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 1) {
		fprintf(stderr, "rx_kill: no PID in %s at round %ld\n",
			pidfile, round);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	if (kill((pid_t)pid, SIGKILL))
		perror("rx_kill: kill");
	else
		fprintf(stderr,
			"rx_kill: killed %ld at the switch's allgather datagram %ld of round %ld\n",
			pid, seen, round);
}

static int counts(const struct mmsghdr *m, long round)
{
	struct rina_hdr h;

	return rx_shim_hdr(m, RINA_HDR_LEN, &h) &&
	       (h.ver_op & 0xf) == RINA_OP_AG_DATA &&
	       (h.flags & RINA_F_FROM_SWITCH) && ntohs(h.round) == round;
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	const char *r = getenv("RX_KILL_ROUND");
	const char *a = getenv("RX_KILL_AFTER");
	const char *p = getenv("RX_KILL_PIDFILE");
	long round, after;
	int ret, i;

	ret = rx_shim_recvmmsg(fd, vec, vlen, flags, timeout);
	if (__atomic_load_n(&done, __ATOMIC_RELAXED) || !r || !*r || !a ||
	    !*a || !p || !*p)
		return ret;
	round = strtol(r, NULL, 0);
	after = strtol(a, NULL, 0);
	/* the rank's threads (worker, agent) count together, kill once */
	for (i = 0; i < ret; i++)
		if (counts(&vec[i], round) &&
		    __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) == after &&
		    !__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
			kill_now(p, round);
	return ret;
}
