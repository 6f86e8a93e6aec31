// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rx_reorder.so: reorders what a rank receives, for the soak
 * (scripts/soak.py), since the host kernel has no netem. Preloaded
 * (LD_PRELOAD), it wraps recvmmsg() and, with probability
 * RX_REORDER_PPM per million for each datagram of a batch, swaps it with
 * the next one of the batch: data, length, source address, control
 * messages (UDP_GRO's segment size, IP_TOS) and flags, so that each
 * datagram stays whole and only the order changes. At exit it says on
 * stderr how many it swapped ("rx_reorder: pid P swapped N of M").
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rx_shim.h"

#define SWAP_MAX	65536		/* librina's largest receive buffer */

static atomic_ulong swapped, seen;
static __thread uint64_t rng;
static __thread unsigned char tmp[SWAP_MAX];

static uint64_t next_rand(void)
{
	if (!rng)
		rng = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^
		      (uintptr_t)&rng;
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void swap_bytes(void *a, void *b, size_t len)
{
	memcpy(tmp, a, len);
	memcpy(a, b, len);
	memcpy(b, tmp, len);
}

/* swap a and b if every buffer of each holds the other's contents */
static int swap_msgs(struct mmsghdr *a, struct mmsghdr *b)
{
	struct msghdr *x = &a->msg_hdr, *y = &b->msg_hdr;
	unsigned int len;
	size_t cl;

	if (x->msg_iovlen != 1 || y->msg_iovlen != 1 ||
	    x->msg_iov[0].iov_len != y->msg_iov[0].iov_len ||
	    x->msg_iov[0].iov_len > SWAP_MAX ||
	    x->msg_namelen != y->msg_namelen || !x->msg_name ||
	    !y->msg_name || x->msg_namelen > SWAP_MAX)
		return 0;
	cl = x->msg_controllen > y->msg_controllen ? x->msg_controllen :
						     y->msg_controllen;
	if ((cl && (!x->msg_control || !y->msg_control)) || cl > SWAP_MAX)
		return 0;
	len = a->msg_len > b->msg_len ? a->msg_len : b->msg_len;
	swap_bytes(x->msg_iov[0].iov_base, y->msg_iov[0].iov_base, len);
	swap_bytes(x->msg_name, y->msg_name, x->msg_namelen);
	if (cl)
		swap_bytes(x->msg_control, y->msg_control, cl);
	cl = x->msg_controllen;
	x->msg_controllen = y->msg_controllen;
	y->msg_controllen = cl;
	len = a->msg_len;
	a->msg_len = b->msg_len;
	b->msg_len = len;
	len = x->msg_flags;
	x->msg_flags = y->msg_flags;
	y->msg_flags = len;
	return 1;
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	const char *p = getenv("RX_REORDER_PPM");
	unsigned long ppm = p ? strtoul(p, NULL, 0) : 0;
	int ret, i;

	ret = rx_shim_recvmmsg(fd, vec, vlen, flags, timeout);
	if (ret > 0)
		atomic_fetch_add(&seen, ret);
	for (i = 0; ppm && i + 1 < ret; i++)
		if (next_rand() % 1000000 < ppm &&
		    swap_msgs(&vec[i], &vec[i + 1]))
			atomic_fetch_add(&swapped, 1);
	return ret;
}

__attribute__((destructor)) static void say(void)
{
	fprintf(stderr, "rx_reorder: pid %d swapped %lu of %lu\n", getpid(),
		(unsigned long)swapped, (unsigned long)seen);
}
