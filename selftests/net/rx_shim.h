/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the test shims preloaded into a rank (rx_corrupt.so, rx_drop.so,
 * rx_kill.so) share: the real recvmmsg() under theirs, and the Rina
 * header of a received datagram.
 */
#ifndef RINA_SELFTESTS_RX_SHIM_H
#define RINA_SELFTESTS_RX_SHIM_H

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rina.h>

typedef int (*recvmmsg_fn)(int, struct mmsghdr *, unsigned int, int,
			   struct timespec *);

/* The libc recvmmsg() the shim wraps. */
static inline int rx_shim_recvmmsg(int fd, struct mmsghdr *vec,
				   unsigned int vlen, int flags,
				   struct timespec *timeout)
{
	static recvmmsg_fn real;

	if (!real)
		real = (recvmmsg_fn)dlsym(RTLD_NEXT, "recvmmsg");
	return real(fd, vec, vlen, flags, timeout);
}

/*
 * The Rina header of m into h, if m holds at least len bytes in its
 * first buffer (len >= RINA_HDR_LEN).
 */
static inline bool rx_shim_hdr(const struct mmsghdr *m, size_t len,
			       struct rina_hdr *h)
{
	if (m->msg_len < len || m->msg_hdr.msg_iovlen < 1 ||
	    m->msg_hdr.msg_iov[0].iov_len < len)
		return false;
	memcpy(h, m->msg_hdr.msg_iov[0].iov_base, sizeof(*h));
	return true;
}

#endif /* RINA_SELFTESTS_RX_SHIM_H */
