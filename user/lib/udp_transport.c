// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * UDP socket transport: one socket bound to the rank's address, batched
 * with sendmmsg()/recvmmsg(), DF set so that an oversize packet is an
 * error rather than a fragment, large socket buffers for bursts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rina_int.h"

struct udp_transport {
	struct rina_transport	t;
	int			fd;
	uint32_t		max_len;
	uint8_t			*rxbuf;		/* RINA_BATCH x max_len */
	struct rina_transport_stats st;
};

static int udp_send(struct rina_transport *t, const struct rina_msg *msgs,
		    int n)
{
	struct udp_transport *u = (struct udp_transport *)t;
	struct mmsghdr mh[RINA_BATCH];
	struct sockaddr_in sa[RINA_BATCH];
	struct iovec iov[RINA_BATCH];
	int i, done = 0, ret;

	while (done < n) {
		int k = n - done < RINA_BATCH ? n - done : RINA_BATCH;

		memset(mh, 0, sizeof(mh[0]) * k);
		for (i = 0; i < k; i++) {
			const struct rina_msg *m = &msgs[done + i];

			sa[i].sin_family = AF_INET;
			sa[i].sin_addr.s_addr = m->addr.ip;
			sa[i].sin_port = m->addr.port;
			iov[i].iov_base = m->buf;
			iov[i].iov_len = m->len;
			mh[i].msg_hdr.msg_name = &sa[i];
			mh[i].msg_hdr.msg_namelen = sizeof(sa[i]);
			mh[i].msg_hdr.msg_iov = &iov[i];
			mh[i].msg_hdr.msg_iovlen = 1;
		}
		ret = sendmmsg(u->fd, mh, (unsigned int)k, 0);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == ENOBUFS ||
			    errno == ECONNREFUSED || errno == EHOSTUNREACH) {
				/* lost like on a wire; retransmission heals */
				u->st.tx_errors++;
				done++;
				continue;
			}
			return -errno;
		}
		for (i = 0; i < ret; i++) {
			u->st.tx_packets++;
			u->st.tx_bytes += msgs[done + i].len +
					  RINA_FRAME_OVERHEAD;
		}
		done += ret;
	}
	return done;
}

static int udp_recv(struct rina_transport *t, struct rina_msg *msgs, int max,
		    int timeout_ms)
{
	struct udp_transport *u = (struct udp_transport *)t;
	struct mmsghdr mh[RINA_BATCH];
	struct sockaddr_in sa[RINA_BATCH];
	struct iovec iov[RINA_BATCH];
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	int i, ret;

	if (max > RINA_BATCH)
		max = RINA_BATCH;
	for (;;) {
		memset(mh, 0, sizeof(mh[0]) * max);
		for (i = 0; i < max; i++) {
			iov[i].iov_base = u->rxbuf + (size_t)i * u->max_len;
			iov[i].iov_len = u->max_len;
			mh[i].msg_hdr.msg_name = &sa[i];
			mh[i].msg_hdr.msg_namelen = sizeof(sa[i]);
			mh[i].msg_hdr.msg_iov = &iov[i];
			mh[i].msg_hdr.msg_iovlen = 1;
		}
		ret = recvmmsg(u->fd, mh, (unsigned int)max, MSG_DONTWAIT,
			       NULL);
		if (ret > 0)
			break;
		if (ret < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (timeout_ms <= 0)
			return 0;
		ret = poll(&pfd, 1, timeout_ms);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			return 0;
		timeout_ms = 0;
	}
	for (i = 0; i < ret; i++) {
		msgs[i].buf = iov[i].iov_base;
		/* a truncated datagram keeps its real length: parsers reject */
		msgs[i].len = mh[i].msg_hdr.msg_flags & MSG_TRUNC ?
			      u->max_len + 1 : mh[i].msg_len;
		if (msgs[i].len > u->max_len)
			msgs[i].len = u->max_len;
		msgs[i].addr.ip = sa[i].sin_addr.s_addr;
		msgs[i].addr.port = sa[i].sin_port;
		memset(msgs[i].addr.mac, 0, 6);
		u->st.rx_packets++;
		u->st.rx_bytes += mh[i].msg_len + RINA_FRAME_OVERHEAD;
	}
	return ret;
}

static void udp_get_stats(struct rina_transport *t,
			  struct rina_transport_stats *st)
{
	*st = ((struct udp_transport *)t)->st;
}

static void udp_destroy(struct rina_transport *t)
{
	struct udp_transport *u = (struct udp_transport *)t;

	close(u->fd);
	free(u->rxbuf);
	free(u);
}

static const struct rina_transport_ops udp_ops = {
	.name		= "udp",
	.send		= udp_send,
	.recv		= udp_recv,
	.get_stats	= udp_get_stats,
	.destroy	= udp_destroy,
};

static void set_buf(int fd, int force_opt, int opt, int bytes)
{
	/* root may exceed net.core.[rw]mem_max; others get what they get */
	if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

int rina_udp_transport_create(const struct rina_transport_cfg *cfg,
			      struct rina_transport **out,
			      char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct udp_transport *u;
	int pmtu = IP_PMTUDISC_DO, one = 1;

	u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	u->t.ops = &udp_ops;
	u->max_len = cfg->max_msg_len;
	u->rxbuf = malloc((size_t)RINA_BATCH * (u->max_len + 1));
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!u->rxbuf || u->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto err;
	}
	setsockopt(u->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	setsockopt(u->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (cfg->rcvbuf) {
		set_buf(u->fd, SO_RCVBUFFORCE, SO_RCVBUF, (int)cfg->rcvbuf);
		set_buf(u->fd, SO_SNDBUFFORCE, SO_SNDBUF, (int)cfg->rcvbuf);
	}
	sa.sin_addr.s_addr = cfg->local.ip;
	sa.sin_port = cfg->local.port;
	if (bind(u->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, errlen, "bind %s:%u: %s (is this rank's address configured on this host?)",
			 inet_ntoa(sa.sin_addr), ntohs(sa.sin_port),
			 strerror(errno));
		goto err;
	}
	*out = &u->t;
	return 0;
err:
	if (u->fd >= 0)
		close(u->fd);
	free(u->rxbuf);
	free(u);
	return -EINVAL;
}
