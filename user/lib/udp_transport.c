// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * UDP socket transport: one socket bound to the rank's address, batched
 * with sendmmsg()/recvmmsg(), DF set so that an oversize packet is an
 * error rather than a fragment, large socket buffers for bursts.
 *
 * Runs of messages to one peer go out as one UDP GSO send (UDP_SEGMENT):
 * one skb crosses the stack, veth and bridges and is cut into datagrams
 * only at the far end, or handed over whole where the receiver asked for
 * UDP_GRO; the receive side splits such a super-datagram by its gso_size.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rina_int.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif

#define RX_DGRAMS	16		/* datagrams per recvmmsg */
#define RX_DGRAM_MAX	65536		/* a GRO super-datagram */
#define GSO_MAX_SEGS	64		/* UDP_MAX_SEGMENTS */
#define GSO_MAX_BYTES	(65507 - 8)

struct udp_transport {
	struct rina_transport	t;
	int			fd;
	uint32_t		max_len;
	bool			gso, gro;
	bool			rx_filter;	/* not RINA_UDP_RX_FILTER=0 */
	uint8_t			*rxbuf;		/* RX_DGRAMS x RX_DGRAM_MAX */
	/* segments of the last recvmmsg not handed out yet */
	struct rina_msg		pend[RX_DGRAMS * GSO_MAX_SEGS];
	unsigned int		npend, pend_pos;
	struct rina_transport_stats st;
};

/* How many of msgs[0..n) can share one GSO send. */
static int gso_run(const struct udp_transport *u, const struct rina_msg *m,
		   int n)
{
	uint32_t seg = m[0].len, total = m[0].len;
	int k = 1;

	if (!u->gso)
		return 1;
	while (k < n && k < GSO_MAX_SEGS && k < RINA_BATCH &&
	       m[k].addr.ip == m[0].addr.ip &&
	       m[k].addr.port == m[0].addr.port && m[k].len <= seg &&
	       total + m[k].len <= GSO_MAX_BYTES) {
		total += m[k].len;
		/* only the last segment may be short */
		if (m[k++].len < seg)
			break;
	}
	return k;
}

static int udp_send(struct rina_transport *t, const struct rina_msg *msgs,
		    int n)
{
	struct udp_transport *u = (struct udp_transport *)t;
	struct mmsghdr mh[RINA_BATCH];
	struct sockaddr_in sa[RINA_BATCH];
	struct iovec iov[RINA_BATCH];
	char ctl[RINA_BATCH][CMSG_SPACE(sizeof(uint16_t))];
	int runlen[RINA_BATCH];
	int i, done = 0, ret;

	while (done < n) {
		int nmh = 0, nio = 0, pos = done;

		memset(mh, 0, sizeof(mh));
		while (pos < n && nio < RINA_BATCH) {
			const struct rina_msg *m = &msgs[pos];
			int k = gso_run(u, m, n - pos), j;
			struct msghdr *h = &mh[nmh].msg_hdr;

			if (k > RINA_BATCH - nio)
				k = RINA_BATCH - nio;
			sa[nmh].sin_family = AF_INET;
			sa[nmh].sin_addr.s_addr = m->addr.ip;
			sa[nmh].sin_port = m->addr.port;
			h->msg_name = &sa[nmh];
			h->msg_namelen = sizeof(sa[nmh]);
			h->msg_iov = &iov[nio];
			h->msg_iovlen = (size_t)k;
			for (j = 0; j < k; j++) {
				iov[nio + j].iov_base = m[j].buf;
				iov[nio + j].iov_len = m[j].len;
			}
			if (k > 1) {
				struct cmsghdr *cm;

				h->msg_control = ctl[nmh];
				h->msg_controllen = sizeof(ctl[nmh]);
				cm = CMSG_FIRSTHDR(h);
				cm->cmsg_level = SOL_UDP;
				cm->cmsg_type = UDP_SEGMENT;
				cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
				*(uint16_t *)CMSG_DATA(cm) = (uint16_t)m->len;
			}
			runlen[nmh++] = k;
			nio += k;
			pos += k;
		}
		ret = sendmmsg(u->fd, mh, (unsigned int)nmh, 0);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EIO && u->gso) {
				/* no GSO on this path: send one by one */
				u->gso = false;
				continue;
			}
			if (errno == EAGAIN || errno == ENOBUFS ||
			    errno == ECONNREFUSED || errno == EHOSTUNREACH) {
				/* lost like on a wire; retransmission heals */
				u->st.tx_errors++;
				for (i = 0; i < runlen[0]; i++)
					u->st.tx_error_bytes +=
						msgs[done + i].len +
						RINA_FRAME_OVERHEAD;
				done += runlen[0];
				continue;
			}
			return -errno;
		}
		for (i = 0; i < ret; i++) {
			int j;

			for (j = 0; j < runlen[i]; j++) {
				u->st.tx_packets++;
				u->st.tx_bytes += msgs[done + j].len +
						  RINA_FRAME_OVERHEAD;
			}
			done += runlen[i];
		}
	}
	return done;
}

/* Cut one received datagram (maybe a GRO super-datagram) into msgs. */
static void split_dgram(struct udp_transport *u, uint8_t *buf, uint32_t len,
			uint32_t seg, const struct sockaddr_in *from,
			uint8_t ecn)
{
	uint32_t off = 0;

	if (!seg || seg > len)
		seg = len;
	while (off < len && u->npend < RX_DGRAMS * GSO_MAX_SEGS) {
		struct rina_msg *m = &u->pend[u->npend++];
		uint32_t n = len - off < seg ? len - off : seg;

		m->buf = buf + off;
		/* an oversize datagram keeps a length parsers reject */
		m->len = n > u->max_len ? u->max_len + 1 : n;
		m->addr.ip = from->sin_addr.s_addr;
		m->addr.port = from->sin_port;
		memset(m->addr.mac, 0, 6);
		/* GRO merges datagrams of one TOS only: one for all */
		m->ecn = ecn;
		u->st.rx_packets++;
		u->st.rx_bytes += n + RINA_FRAME_OVERHEAD;
		off += n;
	}
}

static int fill_pending(struct udp_transport *u, int timeout_ms)
{
	struct mmsghdr mh[RX_DGRAMS];
	struct sockaddr_in sa[RX_DGRAMS];
	struct iovec iov[RX_DGRAMS];
	/* UDP_GRO's segment size and IP_TOS (IP_RECVTOS) */
	char ctl[RX_DGRAMS][CMSG_SPACE(sizeof(uint16_t)) +
			    CMSG_SPACE(sizeof(int))];
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	int i, ret;

	for (;;) {
		memset(mh, 0, sizeof(mh));
		for (i = 0; i < RX_DGRAMS; i++) {
			iov[i].iov_base = u->rxbuf + (size_t)i * RX_DGRAM_MAX;
			iov[i].iov_len = RX_DGRAM_MAX;
			mh[i].msg_hdr.msg_name = &sa[i];
			mh[i].msg_hdr.msg_namelen = sizeof(sa[i]);
			mh[i].msg_hdr.msg_iov = &iov[i];
			mh[i].msg_hdr.msg_iovlen = 1;
			mh[i].msg_hdr.msg_control = ctl[i];
			mh[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		ret = recvmmsg(u->fd, mh, RX_DGRAMS, MSG_DONTWAIT, NULL);
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
	u->npend = u->pend_pos = 0;
	for (i = 0; i < ret; i++) {
		struct msghdr *h = &mh[i].msg_hdr;
		struct cmsghdr *cm;
		uint32_t seg = 0;
		uint8_t ecn = IPTOS_ECN_NOT_ECT;

		for (cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
			if (cm->cmsg_level == SOL_UDP &&
			    cm->cmsg_type == UDP_GRO)
				seg = *(uint16_t *)CMSG_DATA(cm);
			else if (cm->cmsg_level == IPPROTO_IP &&
				 cm->cmsg_type == IP_TOS)
				ecn = *(uint8_t *)CMSG_DATA(cm) & 3;
		}
		if (h->msg_flags & MSG_TRUNC)
			mh[i].msg_len = u->max_len + 1;	/* refused later */
		split_dgram(u, iov[i].iov_base, mh[i].msg_len, seg, &sa[i],
			    ecn);
	}
	return (int)u->npend;
}

static int udp_recv(struct rina_transport *t, struct rina_msg *msgs, int max,
		    int timeout_ms)
{
	struct udp_transport *u = (struct udp_transport *)t;
	int n = 0, ret;

	if (u->pend_pos == u->npend) {
		ret = fill_pending(u, timeout_ms);
		if (ret <= 0)
			return ret;
	}
	while (n < max && u->pend_pos < u->npend)
		msgs[n++] = u->pend[u->pend_pos++];
	return n;
}

/*
 * What the kernel dropped at the socket since it was made: the tag
 * filter's refusals and the datagrams that found the receive buffer
 * full, in one count (sk_drops, 32 bits: it wraps after 2^32). Read, not
 * kept: any thread may ask for the stats.
 */
static uint64_t udp_kernel_drops(const struct udp_transport *u)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(u->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

static void udp_get_stats(struct rina_transport *t,
			  struct rina_transport_stats *st)
{
	struct udp_transport *u = (struct udp_transport *)t;

	*st = u->st;
	st->rx_kernel_drops = udp_kernel_drops(u);
}

/*
 * A datagram charges the socket until its device takes it: behind a
 * shaped link, that is the time it waits in the qdisc.
 */
static int udp_tx_queued(struct rina_transport *t)
{
	int bytes;

	if (ioctl(((struct udp_transport *)t)->fd, SIOCOUTQ, &bytes))
		return -errno;
	return bytes;
}

static void udp_destroy(struct rina_transport *t)
{
	struct udp_transport *u = (struct udp_transport *)t;

	close(u->fd);
	free(u->rxbuf);
	free(u);
}

/*
 * A flood of forged data at a rank costs its neighbours through the rank
 * that reads it: each datagram takes socket memory, wakes the rank and is
 * copied out only to fail the tag check (issue 49, security.md). A classic
 * BPF filter, which any user may attach, drops it in the kernel instead.
 * It sees the datagram from the UDP header on: runts (malformed), other
 * jobs' (foreign) and CTRL (signed, not tagged) pass to be counted and
 * checked as before; this job's data, ACKs and NACKs pass only with the
 * tag as their last bytes. A GRO super-datagram is judged by its last
 * segment's tag. What it drops never reaches rx_bad_tag: the kernel
 * counts it with the socket's overflows (rx_kernel_drops). On unless
 * RINA_UDP_RX_FILTER=0.
 */
#define UDP_HDR		8
#define RX_TRAILER_MIN	(UDP_HDR + RINA_HDR_LEN + RINA_TAG_LEN)

static int udp_rx_tag_filter(struct rina_transport *t, uint16_t job_id,
			     const uint8_t tag[RINA_TAG_LEN])
{
	struct udp_transport *u = (struct udp_transport *)t;
	uint32_t hi = (uint32_t)tag[0] << 24 | (uint32_t)tag[1] << 16 |
		      (uint32_t)tag[2] << 8 | tag[3];
	uint32_t lo = (uint32_t)tag[4] << 24 | (uint32_t)tag[5] << 16 |
		      (uint32_t)tag[6] << 8 | tag[7];
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, RX_TRAILER_MIN, 0, 12),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
			 UDP_HDR + offsetof(struct rina_hdr, job_id)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, job_id, 0, 10),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS,
			 UDP_HDR + offsetof(struct rina_hdr, ver_op)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x0f),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RINA_OP_CTRL, 7, 0),
		/* X = where the tag is: the last RINA_TAG_LEN bytes */
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_K, RINA_TAG_LEN),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_IND, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, lo, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (!u->rx_filter)
		return -EOPNOTSUPP;
	if (setsockopt(u->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)))
		return -errno;
	return 0;
}

static const struct rina_transport_ops udp_ops = {
	.name		= "udp",
	.send		= udp_send,
	.recv		= udp_recv,
	.get_stats	= udp_get_stats,
	.destroy	= udp_destroy,
	.tx_queued	= udp_tx_queued,
	.rx_tag_filter	= udp_rx_tag_filter,
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
	const char *env;

	u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	u->t.ops = &udp_ops;
	u->max_len = cfg->max_msg_len;
	u->rxbuf = malloc((size_t)RX_DGRAMS * RX_DGRAM_MAX);
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!u->rxbuf || u->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto err;
	}
	setsockopt(u->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	/*
	 * No SO_REUSEADDR: with it, any process (of any user) could bind a
	 * running rank's address and port and take its datagrams, and two
	 * communicators on one port would silently steal each other's.
	 */
	u->gro = !setsockopt(u->fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
	/* every datagram's ECN field, for the receiver's echo of CE marks */
	setsockopt(u->fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	if (cfg->ecn) {
		int tos = IPTOS_ECN_ECT0;

		setsockopt(u->fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	}
	u->gso = !getenv("RINA_UDP_NO_GSO");
	env = getenv("RINA_UDP_RX_FILTER");
	u->rx_filter = !env || strcmp(env, "0");
	if (cfg->rcvbuf) {
		set_buf(u->fd, SO_RCVBUFFORCE, SO_RCVBUF, (int)cfg->rcvbuf);
		set_buf(u->fd, SO_SNDBUFFORCE, SO_SNDBUF, (int)cfg->rcvbuf);
	}
	sa.sin_addr.s_addr = cfg->local.ip;
	sa.sin_port = cfg->local.port;
	if (bind(u->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		snprintf(err, errlen, "bind %s:%u: %s (%s)",
			 inet_ntoa(sa.sin_addr), ntohs(sa.sin_port),
			 strerror(e), e == EADDRINUSE ?
			 "another communicator or process holds this port: one rank per address and port, one INA agent per host and agent port (rack ... agent_port)" :
			 "is this rank's address configured on this host?");
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
