// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * AF_XDP transport: one XSK per receive queue of the rank's device, bound
 * into the xsks_map of the attached rina_xdp program (which steers the
 * worker-port packets to it). Zero-copy is tried first, copy mode is the
 * fallback. The UMEM holds 2 x ring frames per socket (half fill/RX, half
 * TX), the ring sized from the window. Waits are poll() with
 * XDP_USE_NEED_WAKEUP; TX builds Ethernet/IPv4/UDP itself, the destination
 * MAC coming from the message or from the kernel's neighbour table.
 * Not thread safe: one caller drives a transport, as the ring engine does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <xdp/xsk.h>

#include "xdp_transport.h"

#define XT_RING_MIN	256
#define XT_RING_MAX	4096
#define XT_NEIGH_MAX	64
#define XT_LOCAL_MAX	64	/* host-local datagrams per recv */
#define XT_DISCARD_PORT	9	/* datagram that makes the kernel ARP */

struct xt_queue {
	struct xsk_socket	*xsk;
	struct xsk_umem		*umem;
	struct xsk_ring_prod	fill, tx;
	struct xsk_ring_cons	comp, rx;
	void			*area;
	size_t			area_len;
	uint64_t		*tx_free;	/* stack of free TX frames */
	uint32_t		n_tx_free;
	uint32_t		qid;
};

struct xt_held {
	uint32_t	q;
	uint64_t	addr;
};

struct xt_neigh {
	__be32	ip;
	uint8_t	mac[6];
};

struct xdp_transport {
	struct rina_transport	t;
	struct xt_queue		q[RINA_XDP_MAX_QUEUES];
	unsigned int		nq, next_q;
	uint32_t		ring, frame, max_len;
	int			ifindex, map_fd, ctl_fd;
	/*
	 * Datagrams between this host's own addresses never reach the
	 * device (the agent of an INA rack and its rank's worker share an
	 * address): a kernel UDP socket bound to our port carries them.
	 */
	int			local_fd;
	uint8_t			*local_buf;	/* XT_LOCAL_MAX x max_len */
	int			stats_fd;	/* the program's counters */
	bool			zc;
	char			ifname[IF_NAMESIZE];
	uint8_t			mac[6];
	__be32			ip;
	__be16			port;
	uint16_t		ip_id;
	uint8_t			tos;	/* ECT(0) if cfg->ecn */
	struct xt_neigh		neigh[XT_NEIGH_MAX];
	unsigned int		nneigh;
	struct xt_held		*held;		/* lent by the last recv */
	uint32_t		nheld;
	uint64_t		rx_bad;		/* not for this rank */
	struct rina_transport_stats st;
};

static const struct rina_transport_ops xdp_ops;

/* The kernel socket for host-local datagrams; it also holds the port. */
static int open_local(struct xdp_transport *x,
		      const struct rina_transport_cfg *cfg)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = cfg->local.ip,
		.sin_port = cfg->local.port,
	};

	x->local_buf = malloc((size_t)XT_LOCAL_MAX * x->max_len);
	if (!x->local_buf)
		return -ENOMEM;
	x->local_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (x->local_fd < 0)
		return -errno;
	if (bind(x->local_fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return 0;
}

/* ---- device facts ------------------------------------------------ */

static int find_ifname(__be32 ip, char *name)
{
	struct ifaddrs *ifa, *i;
	int ret = -ENODEV;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr != ip)
			continue;
		snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
		ret = 0;
		break;
	}
	freeifaddrs(ifa);
	return ret;
}

static int dev_ioctl(int fd, const char *ifname, unsigned long req,
		     struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	return ioctl(fd, req, ifr) ? -errno : 0;
}

/* Receive queues in use: ethtool channels, 1 when the driver can't say. */
static unsigned int rx_queues(int fd, const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	unsigned int n;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return 1;
	n = ch.rx_count > ch.combined_count ? ch.rx_count : ch.combined_count;
	if (!n)
		n = 1;
	return n > RINA_XDP_MAX_QUEUES ? RINA_XDP_MAX_QUEUES : n;
}

/* ---- neighbours ------------------------------------------------------ */

static int neigh_get(struct xdp_transport *x, __be32 ip, uint8_t *mac)
{
	struct arpreq r;
	struct sockaddr_in *sin = (struct sockaddr_in *)&r.arp_pa;

	memset(&r, 0, sizeof(r));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ip;
	snprintf(r.arp_dev, sizeof(r.arp_dev), "%s", x->ifname);
	if (ioctl(x->ctl_fd, SIOCGARP, &r))
		return -errno;
	if (!(r.arp_flags & ATF_COM))
		return -EAGAIN;
	memcpy(mac, r.arp_ha.sa_data, 6);
	return 0;
}

/*
 * Destination MAC of an on-link peer: the message's, the cache's, or the
 * kernel neighbour table's. A missing entry is resolved by the kernel
 * after a datagram to the discard port; we wait up to a second for it.
 */
static int resolve(struct xdp_transport *x, const struct rina_addr *a,
		   uint8_t *mac)
{
	static const uint8_t zero[6];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned int i;
	int ret = -EAGAIN;

	if (memcmp(a->mac, zero, 6)) {
		memcpy(mac, a->mac, 6);
		return 0;
	}
	for (i = 0; i < x->nneigh; i++) {
		if (x->neigh[i].ip == a->ip) {
			memcpy(mac, x->neigh[i].mac, 6);
			return 0;
		}
	}
	sa.sin_addr.s_addr = a->ip;
	sa.sin_port = htons(XT_DISCARD_PORT);
	for (i = 0; i < 100; i++) {
		ret = neigh_get(x, a->ip, mac);
		if (!ret)
			break;
		if (i % 25 == 0)
			sendto(x->ctl_fd, "", 0, MSG_DONTWAIT,
			       (struct sockaddr *)&sa, sizeof(sa));
		usleep(10000);
	}
	if (ret)
		return -EHOSTUNREACH;
	if (x->nneigh < XT_NEIGH_MAX) {
		x->neigh[x->nneigh].ip = a->ip;
		memcpy(x->neigh[x->nneigh].mac, mac, 6);
		x->nneigh++;
	}
	return 0;
}

/* ---- TX ---------------------------------------------------------------- */

static uint16_t ip_csum(const void *hdr)
{
	const uint16_t *w = hdr;
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 10; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void reap_tx(struct xt_queue *q)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&q->comp, UINT32_MAX, &idx);
	for (i = 0; i < n; i++)
		q->tx_free[q->n_tx_free++] =
			*xsk_ring_cons__comp_addr(&q->comp, idx + i);
	if (n)
		xsk_ring_cons__release(&q->comp, n);
}

/* Make the kernel drain the TX ring (copy mode sends in the syscall). */
static int kick_tx(struct xdp_transport *x, struct xt_queue *q)
{
	int tries;

	for (tries = 0; tries < 64; tries++) {
		if (xsk_prod_nb_free(&q->tx, x->ring) >= x->ring)
			return 0;
		if (!xsk_ring_prod__needs_wakeup(&q->tx))
			return 0;
		if (sendto(xsk_socket__fd(q->xsk), NULL, 0, MSG_DONTWAIT,
			   NULL, 0) >= 0)
			continue;
		if (errno != EAGAIN && errno != EBUSY && errno != ENOBUFS &&
		    errno != EINTR)
			return -errno;
	}
	return 0;
}

static void build_frame(struct xdp_transport *x, uint8_t *f,
			const struct rina_msg *m, const uint8_t *dmac)
{
	struct ethhdr *eth = (struct ethhdr *)f;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct udphdr *udp = (struct udphdr *)(ip + 1);

	memcpy(eth->h_dest, dmac, 6);
	memcpy(eth->h_source, x->mac, 6);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = x->tos;
	ip->tot_len = htons((uint16_t)(sizeof(*ip) + sizeof(*udp) + m->len));
	ip->id = htons(x->ip_id++);
	ip->frag_off = htons(IP_DF);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->check = 0;
	ip->saddr = x->ip;
	ip->daddr = m->addr.ip;
	ip->check = ip_csum(ip);
	udp->source = x->port;
	udp->dest = m->addr.port;
	udp->len = htons((uint16_t)(sizeof(*udp) + m->len));
	udp->check = 0;		/* optional on IPv4 */
	memcpy(udp + 1, m->buf, m->len);
}

/* A datagram to our own address, through the kernel. */
static void send_local(struct xdp_transport *x, const struct rina_msg *m)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = m->addr.ip,
		.sin_port = m->addr.port,
	};

	if (sendto(x->local_fd, m->buf, m->len, MSG_DONTWAIT,
		   (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		x->st.tx_errors++;	/* lost, like on a wire */
		x->st.tx_error_bytes += m->len + RINA_FRAME_OVERHEAD;
		return;
	}
	x->st.tx_packets++;
	x->st.tx_bytes += m->len + RINA_FRAME_OVERHEAD;
}

static int xdp_send(struct rina_transport *t, const struct rina_msg *msgs,
		    int n)
{
	struct xdp_transport *x = (struct xdp_transport *)t;
	struct xt_queue *q = &x->q[0];
	uint8_t dmac[6];
	int done = 0, stalls = 0, ret;
	uint32_t idx;

	reap_tx(q);
	while (done < n) {
		const struct rina_msg *m = &msgs[done];
		struct xdp_desc *d;
		uint64_t addr;

		if (m->len > x->max_len)
			return done ? done : -EMSGSIZE;
		if (m->addr.ip == x->ip && x->local_fd >= 0) {
			send_local(x, m);
			done++;
			continue;
		}
		if (resolve(x, &m->addr, dmac)) {
			x->st.tx_errors++;	/* lost, like on a wire */
			x->st.tx_error_bytes += m->len + RINA_FRAME_OVERHEAD;
			done++;
			continue;
		}
		if (!q->n_tx_free ||
		    xsk_ring_prod__reserve(&q->tx, 1, &idx) != 1) {
			/* All frames in flight: push them out, reclaim. */
			ret = kick_tx(x, q);
			if (ret)
				return done ? done : ret;
			reap_tx(q);
			if (!q->n_tx_free) {
				if (++stalls > 200)
					break;
				usleep(50);
			}
			continue;
		}
		addr = q->tx_free[--q->n_tx_free];
		build_frame(x, xsk_umem__get_data(q->area, addr), m, dmac);
		d = xsk_ring_prod__tx_desc(&q->tx, idx);
		d->addr = addr;
		d->len = m->len + RINA_FRAME_OVERHEAD;
		d->options = 0;
		xsk_ring_prod__submit(&q->tx, 1);
		x->st.tx_packets++;
		x->st.tx_bytes += d->len;
		done++;
		/* TX batching: one wakeup per 32 frames and at the end. */
		if (!(done & 31)) {
			ret = kick_tx(x, q);
			if (ret)
				return ret;
		}
	}
	ret = kick_tx(x, q);
	if (ret && !done)
		return ret;
	return done;
}

/* ---- RX ---------------------------------------------------------------- */

/* Give the frames lent by the previous recv back to their fill rings. */
static void refill(struct xdp_transport *x)
{
	uint32_t i, idx;

	for (i = 0; i < x->nheld; i++) {
		struct xt_queue *q = &x->q[x->held[i].q];

		/* The fill ring has room for every RX frame: can't fail. */
		if (xsk_ring_prod__reserve(&q->fill, 1, &idx) != 1)
			continue;
		*xsk_ring_prod__fill_addr(&q->fill, idx) = x->held[i].addr;
		xsk_ring_prod__submit(&q->fill, 1);
	}
	x->nheld = 0;
}

/* Parse one received frame into m; false when it isn't ours. */
static bool parse_frame(struct xdp_transport *x, uint8_t *f, uint32_t len,
			struct rina_msg *m)
{
	struct ethhdr *eth = (struct ethhdr *)f;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	uint32_t ulen;

	if (len < RINA_FRAME_OVERHEAD || eth->h_proto != htons(ETH_P_IP) ||
	    ip->version != 4 || ip->ihl != 5 || ip->protocol != IPPROTO_UDP ||
	    udp->dest != x->port)
		return false;
	ulen = ntohs(udp->len);
	if (ulen < sizeof(*udp) || sizeof(*eth) + sizeof(*ip) + ulen > len)
		return false;
	m->buf = udp + 1;
	m->len = ulen - sizeof(*udp);
	m->addr.ip = ip->saddr;
	m->addr.port = udp->source;
	memcpy(m->addr.mac, eth->h_source, 6);
	m->ecn = ip->tos & 3;
	return true;
}

/* Host-local datagrams (see local_fd); valid until the next recv. */
static int rx_local(struct xdp_transport *x, struct rina_msg *msgs, int max)
{
	int got = 0;

	while (x->local_fd >= 0 && got < max && got < XT_LOCAL_MAX) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof(sa);
		uint8_t *b = x->local_buf + (size_t)got * x->max_len;
		ssize_t n;

		n = recvfrom(x->local_fd, b, x->max_len, MSG_DONTWAIT,
			     (struct sockaddr *)&sa, &sl);
		if (n < 0)
			break;
		msgs[got].buf = b;
		msgs[got].len = (uint32_t)n;
		memset(&msgs[got].addr, 0, sizeof(msgs[got].addr));
		msgs[got].addr.ip = sa.sin_addr.s_addr;
		msgs[got].addr.port = sa.sin_port;
		/* host-local: no queue marks it */
		msgs[got].ecn = IPTOS_ECN_NOT_ECT;
		x->st.rx_packets++;
		x->st.rx_bytes += (uint64_t)n + RINA_FRAME_OVERHEAD;
		got++;
	}
	return got;
}

static int rx_burst(struct xdp_transport *x, struct rina_msg *msgs, int max)
{
	unsigned int k, qi;
	uint32_t idx, n, i;
	int got = rx_local(x, msgs, max);

	for (k = 0; k < x->nq && got < max; k++) {
		struct xt_queue *q;

		qi = (x->next_q + k) % x->nq;
		q = &x->q[qi];
		n = xsk_ring_cons__peek(&q->rx, (uint32_t)(max - got), &idx);
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&q->rx, idx + i);
			uint8_t *f = xsk_umem__get_data(q->area, d->addr);

			x->held[x->nheld].q = qi;
			x->held[x->nheld].addr =
				xsk_umem__extract_addr(d->addr);
			x->nheld++;
			if (!parse_frame(x, f, d->len, &msgs[got])) {
				x->rx_bad++;
				continue;
			}
			x->st.rx_packets++;
			x->st.rx_bytes += d->len;
			got++;
		}
		if (n)
			xsk_ring_cons__release(&q->rx, n);
	}
	x->next_q = (x->next_q + 1) % x->nq;
	return got;
}

static int xdp_recv(struct rina_transport *t, struct rina_msg *msgs, int max,
		    int timeout_ms)
{
	struct xdp_transport *x = (struct xdp_transport *)t;
	struct pollfd pfd[RINA_XDP_MAX_QUEUES + 1];
	unsigned int i, npfd;
	int got, ret;

	refill(x);
	for (;;) {
		got = rx_burst(x, msgs, max);
		if (got)
			return got;
		/* Frames that were not ours went straight back. */
		refill(x);
		for (i = 0; i < x->nq; i++) {
			pfd[i].fd = xsk_socket__fd(x->q[i].xsk);
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		npfd = x->nq;
		if (x->local_fd >= 0) {
			pfd[npfd].fd = x->local_fd;
			pfd[npfd].events = POLLIN;
			pfd[npfd++].revents = 0;
		}
		if (timeout_ms <= 0) {
			/* Let a sleeping driver see the refilled ring. */
			for (i = 0; i < x->nq; i++)
				if (xsk_ring_prod__needs_wakeup(&x->q[i].fill))
					recvfrom(pfd[i].fd, NULL, 0,
						 MSG_DONTWAIT, NULL, NULL);
			return rx_burst(x, msgs, max);
		}
		ret = poll(pfd, npfd, timeout_ms);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret <= 0)
			return 0;
		timeout_ms = 0;
	}
}

/* ---- stats, teardown ------------------------------------------------- */

/* Sum the program's per-CPU counters into the transport's view. */
static void prog_counters(const struct xdp_transport *x,
			  struct rina_transport_stats *st)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint32_t i;
	uint64_t *vals, sum;

	if (x->stats_fd < 0 || ncpu <= 0)
		return;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (i = 0; i < RINA_XDP_NR_COUNTERS; i++) {
		if (bpf_map_lookup_elem(x->stats_fd, &i, vals))
			continue;
		for (sum = 0, c = 0; c < ncpu; c++)
			sum += vals[c];
		if (i == RINA_XDP_REDIRECT)
			st->prog_redirected += sum;
		else if (i == RINA_XDP_PASS_OTHER || i == RINA_XDP_PASS_AGENT ||
			 i == RINA_XDP_PASS_NO_XSK)
			st->prog_passed += sum;
		else if (i == RINA_XDP_DROP_FAULT)
			st->prog_fault_dropped += sum;
		else
			st->prog_dropped += sum;
	}
	free(vals);
}

static void xdp_get_stats(struct rina_transport *t,
			  struct rina_transport_stats *st)
{
	struct xdp_transport *x = (struct xdp_transport *)t;
	struct xdp_statistics xs;
	socklen_t len;
	unsigned int i;

	*st = x->st;
	prog_counters(x, st);
	st->rx_dropped += x->rx_bad;
	for (i = 0; i < x->nq; i++) {
		len = sizeof(xs);
		memset(&xs, 0, sizeof(xs));
		if (getsockopt(xsk_socket__fd(x->q[i].xsk), SOL_XDP,
			       XDP_STATISTICS, &xs, &len))
			continue;
		st->rx_dropped += xs.rx_dropped;
		st->rx_ring_full += xs.rx_ring_full;
		st->rx_fill_ring_empty += xs.rx_fill_ring_empty_descs;
		st->rx_invalid_descs += xs.rx_invalid_descs;
		st->tx_invalid_descs += xs.tx_invalid_descs;
	}
}

static void queue_teardown(struct xt_queue *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);	/* leaves xsks_map too */
	if (q->umem)
		xsk_umem__delete(q->umem);
	if (q->area)
		munmap(q->area, q->area_len);
	free(q->tx_free);
	memset(q, 0, sizeof(*q));
}

static void xdp_destroy(struct rina_transport *t)
{
	struct xdp_transport *x = (struct xdp_transport *)t;
	unsigned int i;

	for (i = 0; i < x->nq; i++)
		queue_teardown(&x->q[i]);
	if (x->map_fd >= 0)
		close(x->map_fd);
	if (x->stats_fd >= 0)
		close(x->stats_fd);
	if (x->ctl_fd >= 0)
		close(x->ctl_fd);
	if (x->local_fd >= 0)
		close(x->local_fd);
	free(x->local_buf);
	free(x->held);
	free(x);
}

static const struct rina_transport_ops xdp_ops = {
	.name		= "xdp",
	.send		= xdp_send,
	.recv		= xdp_recv,
	.get_stats	= xdp_get_stats,
	.destroy	= xdp_destroy,
};

int rina_xdp_transport_zerocopy(const struct rina_transport *t)
{
	return t && t->ops == &xdp_ops &&
	       ((const struct xdp_transport *)t)->zc;
}

/* ---- setup ----------------------------------------------------------- */

static int queue_setup(struct xdp_transport *x, struct xt_queue *q,
		       uint32_t qid, bool zc)
{
	struct xsk_umem_config uc = {
		.fill_size = x->ring,
		.comp_size = x->ring,
		.frame_size = x->frame,
		.frame_headroom = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = x->ring,
		.tx_size = x->ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP |
			      (zc ? XDP_ZEROCOPY : XDP_COPY),
	};
	uint32_t i, idx;
	int ret, sndbuf;

	q->qid = qid;
	q->area_len = (size_t)2 * x->ring * x->frame;
	q->area = mmap(NULL, q->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		return -errno;
	}
	q->tx_free = calloc(x->ring, sizeof(*q->tx_free));
	if (!q->tx_free)
		return -ENOMEM;
	ret = xsk_umem__create(&q->umem, q->area, q->area_len, &q->fill,
			       &q->comp, &uc);
	if (ret) {
		q->umem = NULL;
		return ret;
	}
	ret = xsk_socket__create(&q->xsk, x->ifname, qid, q->umem, &q->rx,
				 &q->tx, &sc);
	if (ret) {
		q->xsk = NULL;
		return ret;
	}
	/*
	 * Copy-mode TX allocates an skb per frame against the socket's send
	 * buffer: make room for every TX frame (root may exceed wmem_max).
	 */
	sndbuf = (int)(x->ring * (x->frame + 1024));
	if (setsockopt(xsk_socket__fd(q->xsk), SOL_SOCKET, SO_SNDBUFFORCE,
		       &sndbuf, sizeof(sndbuf)))
		setsockopt(xsk_socket__fd(q->xsk), SOL_SOCKET, SO_SNDBUF,
			   &sndbuf, sizeof(sndbuf));
	/* First half of the UMEM receives, the second half transmits. */
	if (xsk_ring_prod__reserve(&q->fill, x->ring, &idx) != x->ring)
		return -ENOSPC;
	for (i = 0; i < x->ring; i++)
		*xsk_ring_prod__fill_addr(&q->fill, idx + i) =
			(uint64_t)i * x->frame;
	xsk_ring_prod__submit(&q->fill, x->ring);
	for (i = 0; i < x->ring; i++)
		q->tx_free[i] = (uint64_t)(x->ring + i) * x->frame;
	q->n_tx_free = x->ring;
	return xsk_socket__update_xskmap(q->xsk, x->map_fd);
}

static uint32_t ring_for_window(uint32_t window)
{
	uint32_t want = window ? window * 2 : 512, r = XT_RING_MIN;

	while (r < want && r < XT_RING_MAX)
		r <<= 1;
	return r;
}

int rina_xdp_transport_create(const struct rina_transport_cfg *cfg,
			      struct rina_transport **out,
			      char *err, size_t errlen)
{
	struct xdp_transport *x;
	struct ifreq ifr;
	uint32_t frame_len;
	unsigned int i;
	int ret, prog_fd;

	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->t.ops = &xdp_ops;
	x->map_fd = -1;
	x->stats_fd = -1;
	x->local_fd = -1;
	x->ip = cfg->local.ip;
	x->port = cfg->local.port;
	x->tos = cfg->ecn ? IPTOS_ECN_ECT0 : 0;
	x->max_len = cfg->max_msg_len;
	x->ctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (x->ctl_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-ret));
		goto fail;
	}
	ret = open_local(x, cfg);
	if (ret) {
		snprintf(err, errlen, "UDP port %u: %s", ntohs(x->port),
			 strerror(-ret));
		goto fail;
	}
	if (cfg->ifname)
		snprintf(x->ifname, sizeof(x->ifname), "%s", cfg->ifname);
	else if (find_ifname(cfg->local.ip, x->ifname)) {
		ret = -ENODEV;
		snprintf(err, errlen, "no device holds %s",
			 inet_ntoa((struct in_addr){ cfg->local.ip }));
		goto fail;
	}
	x->ifindex = (int)if_nametoindex(x->ifname);
	if (!x->ifindex) {
		ret = -ENODEV;
		snprintf(err, errlen, "no device %s", x->ifname);
		goto fail;
	}

	/* The Rina XDP program must be attached: its xsks_map is ours. */
	prog_fd = rina_xdp_prog_fd(x->ifindex, NULL);
	if (prog_fd < 0) {
		ret = -ENOENT;
		snprintf(err, errlen, "rina_xdp is not attached to %s (rinactl xdp attach dev %s)",
			 x->ifname, x->ifname);
		goto fail;
	}
	x->map_fd = rina_xdp_prog_map(prog_fd, RINA_XDP_XSKS_MAP);
	x->stats_fd = rina_xdp_prog_map(prog_fd, RINA_XDP_STATS_MAP);
	close(prog_fd);
	if (x->map_fd < 0) {
		ret = x->map_fd;
		snprintf(err, errlen, "%s: rina_xdp has no %s map",
			 x->ifname, RINA_XDP_XSKS_MAP);
		goto fail;
	}

	/* Frames sized for the job's messages and the link MTU. */
	ret = dev_ioctl(x->ctl_fd, x->ifname, SIOCGIFMTU, &ifr);
	if (ret) {
		snprintf(err, errlen, "%s: MTU: %s", x->ifname, strerror(-ret));
		goto fail;
	}
	frame_len = x->max_len + RINA_FRAME_OVERHEAD;
	if (!x->max_len || x->max_len + 28 > (uint32_t)ifr.ifr_mtu) {
		ret = -EMSGSIZE;
		snprintf(err, errlen, "%u-byte messages need an MTU of %u, %s has %d",
			 x->max_len, x->max_len + 28, x->ifname, ifr.ifr_mtu);
		goto fail;
	}
	x->frame = frame_len <= 2048 - XDP_PACKET_HEADROOM ? 2048 : 4096;
	if (frame_len > x->frame - XDP_PACKET_HEADROOM) {
		ret = -EMSGSIZE;
		snprintf(err, errlen, "%u-byte frames exceed the AF_XDP frame (%u usable)",
			 frame_len, x->frame - XDP_PACKET_HEADROOM);
		goto fail;
	}
	ret = dev_ioctl(x->ctl_fd, x->ifname, SIOCGIFHWADDR, &ifr);
	if (ret) {
		snprintf(err, errlen, "%s: MAC: %s", x->ifname, strerror(-ret));
		goto fail;
	}
	memcpy(x->mac, ifr.ifr_hwaddr.sa_data, 6);

	x->ring = ring_for_window(cfg->window);
	x->nq = rx_queues(x->ctl_fd, x->ifname);
	x->held = calloc((size_t)x->nq * x->ring, sizeof(*x->held));
	if (!x->held) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* Zero-copy first; copy mode where the driver can't do it. */
	x->zc = true;
	ret = queue_setup(x, &x->q[0], 0, true);
	if (ret) {
		queue_teardown(&x->q[0]);
		fprintf(stderr, "librina: AF_XDP zero-copy unavailable on %s (%s), using copy mode\n",
			x->ifname, strerror(-ret));
		x->zc = false;
		ret = queue_setup(x, &x->q[0], 0, false);
	}
	for (i = 1; !ret && i < x->nq; i++)
		ret = queue_setup(x, &x->q[i], i, x->zc);
	if (ret) {
		snprintf(err, errlen, "AF_XDP socket on %s: %s", x->ifname,
			 strerror(-ret));
		goto fail;
	}
	*out = &x->t;
	return 0;
fail:
	xdp_destroy(&x->t);
	return ret < 0 ? ret : -EINVAL;
}
