// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor's datapath: the bridge's ports, each an AF_PACKET socket with
 * a receive and a transmit ring, and a tc ingress program that keeps the
 * Rina frames the socket takes from the bridge (rina_tor_tc.bpf.c); every
 * frame received goes to the control protocol or through the model, and
 * the model's outputs leave on their ports. Also the ARP resolution of
 * the MACs job files leave out. The design: rina-tor.c.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tor.h"
#include "rina_tor_tc.skel.h"

/*
 * The receive ring of a port (TPACKET_V2: the kernel wakes us per frame;
 * TPACKET_V3 would only at a block's end or timeout, ms late in a window
 * that is not full). A ring frame holds the tpacket2_hdr, sockaddr_ll
 * and virtio_net_hdr (RING_MAC_OFF bytes with alignment) and a whole
 * RINA_TOR_FRAME_MAX frame, as recvmsg() received them before. A window
 * arrives in one burst: 16 MiB a port holds ~1800 frames.
 */
#define RING_MAC_OFF	(TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + \
			 sizeof(struct virtio_net_hdr) - 14)
#define RING_FRAME	TPACKET_ALIGN(RING_MAC_OFF + RINA_TOR_FRAME_MAX)
#define RING_BLOCK	(1u << 20)
#define RING_BLOCKS	16u
#define RING_PER_BLOCK	(RING_BLOCK / RING_FRAME)
#define RING_FRAMES	(RING_BLOCKS * RING_PER_BLOCK)
/*
 * The transmit ring, same frame size: the outputs of a batch are written
 * into it, each after a virtio_net_hdr, and sent with one send() per
 * port. The header's hdr_len (the whole frame) has the kernel copy the
 * frame into the skb at send(), so a slot is normally free again once
 * send() is back.
 */
#define TX_BLOCKS	4u
#define TX_FRAMES	(TX_BLOCKS * RING_PER_BLOCK)
#define TX_DATA_OFF	TPACKET_ALIGN(sizeof(struct tpacket2_hdr))
#define TX_VNET		sizeof(struct virtio_net_hdr)
_Static_assert(TX_DATA_OFF + TX_VNET + RINA_TOR_FRAME_MAX <= RING_FRAME,
	       "a transmit ring frame holds the largest frame");

struct port ports[MAX_PORTS];
int n_ports;
int use_qdisc;

__u64 tor_lease_lapses;

static struct rina_tor_out out;
static struct rina_tor_tc *tc_skel;

/* tc ingress: drop the port's Rina frames before the bridge sees them. */
static int tc_steer(struct port *p)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = p->ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	int ret;

	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST)
		return ret;
	p->tc = ret ? 1 : 2;		/* 2: we created the clsact qdisc */
	opts.prog_fd = bpf_program__fd(tc_skel->progs.rina_tor_steer);
	/*
	 * a SIGKILLed rina-tor's filter stays (its lease lapsed, it takes
	 * nothing): a new one replaces it, so that rina-tor can be started
	 * again on its ports
	 */
	opts.flags = BPF_TC_F_REPLACE;
	return bpf_tc_attach(&hook, &opts);
}

static void tc_unsteer(struct port *p)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = p->ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);

	if (!p->tc)
		return;
	bpf_tc_detach(&hook, &opts);
	if (p->tc == 2)
		bpf_tc_hook_destroy(&hook);
	p->tc = 0;
}

/*
 * The port's socket receives the frames rina_tor_select() accepts: the
 * Rina frames, which the tc program keeps from the bridge. It is opened
 * for no protocol and bound to the port once its filter and rings are in
 * place, so that it never holds a frame the filter has not seen.
 */
static int port_open(struct port *p, int filter_fd)
{
	struct tpacket_req req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = RING_BLOCKS,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = RING_FRAMES,
	};
	struct sockaddr_ll sll = { 0 };
	struct tpacket_req treq = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = TX_BLOCKS,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = TX_FRAMES,
	};
	int one = 1, v2 = TPACKET_V2;
	size_t rx_len = (size_t)RING_BLOCK * RING_BLOCKS;
	struct ifreq ifr = { 0 };
	void *ring;

	p->ifindex = (int)if_nametoindex(p->name);
	if (!p->ifindex)
		return -errno;
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0);
	if (p->fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, p->name, sizeof(ifr.ifr_name));
	if (ioctl(p->fd, SIOCGIFMTU, &ifr))
		return -errno;
	p->mtu = (unsigned int)ifr.ifr_mtu;
	if (setsockopt(p->fd, SOL_SOCKET, SO_ATTACH_BPF, &filter_fd,
		       sizeof(filter_fd)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
		       sizeof(one)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v2, sizeof(v2)) ||
	    /* a malformed frame is skipped, not a stop of the ring */
	    setsockopt(p->fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one)) ||
	    /*
	     * a virtio_net_hdr before each frame (both rings): its hdr_len,
	     * the whole frame, has the kernel copy a ring frame into the
	     * skb at send() rather than attach the ring's pages, which it
	     * would have to copy again into new pages at the veth
	     */
	    setsockopt(p->fd, SOL_PACKET, PACKET_VNET_HDR, &one,
		       sizeof(one)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_TX_RING, &treq,
		       sizeof(treq)))
		return -errno;
	/*
	 * no qdisc on the way out (a veth has none to speak of), unless the
	 * port is shaped: then its qdisc paces, queues and drops our frames
	 * like the bridge's
	 */
	if (!use_qdisc)
		setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
			   sizeof(one));
	ring = mmap(NULL, rx_len + (size_t)RING_BLOCK * TX_BLOCKS,
		    PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (ring == MAP_FAILED)
		return -errno;
	p->ring = ring;
	p->ring_len = rx_len + (size_t)RING_BLOCK * TX_BLOCKS;
	p->txr = p->ring + rx_len;
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = p->ifindex;
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	return 0;
}

/* Bridge ports: up0 is switch port 0, h<i> is port 1 + i. */
int tor_find_ports(const char *bridge)
{
	char path[256];
	struct dirent *de;
	DIR *d;
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/brif", bridge);
	d = opendir(path);
	if (!d)
		return -errno;
	n_ports = 0;
	while ((de = readdir(d))) {
		int idx;

		if (!strcmp(de->d_name, "up0"))
			idx = 0;
		else if (sscanf(de->d_name, "h%d", &idx) == 1 && idx >= 0 &&
			 idx < MAX_PORTS - 1)
			idx++;
		else
			continue;
		if (strlen(de->d_name) >= sizeof(ports[idx].name))
			continue;
		memcpy(ports[idx].name, de->d_name, strlen(de->d_name) + 1);
		if (idx + 1 > n_ports)
			n_ports = idx + 1;
	}
	closedir(d);
	for (i = 0; i < n_ports; i++)
		if (!ports[i].name[0])
			return -ENOENT;
	return n_ports ? 0 : -ENOENT;
}

/* MACs missing from the job: ARP through the kernel, read /proc/net/arp. */
static int arp_lookup(__be32 ip, __u8 *mac)
{
	char line[256], ipstr[64], hw[64];
	struct in_addr a = { .s_addr = ip };
	unsigned int b[6], i;
	FILE *f = fopen("/proc/net/arp", "r");
	int found = 0;

	if (!f)
		return 0;
	inet_ntop(AF_INET, &a, ipstr, sizeof(ipstr));
	while (fgets(line, sizeof(line), f)) {
		char ip2[64];
		unsigned int flags;

		if (sscanf(line, "%63s %*s %x %63s", ip2, &flags, hw) != 3 ||
		    strcmp(ip2, ipstr) || !(flags & 2))
			continue;
		if (sscanf(hw, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2],
			   &b[3], &b[4], &b[5]) == 6) {
			for (i = 0; i < 6; i++)
				mac[i] = (__u8)b[i];
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/*
 * Whether rank r's MAC is known; if not, a datagram to its discard port
 * has the kernel ask for it by ARP.
 */
static int mac_known(struct rina_rank_desc *r)
{
	static const __u8 zero[6];
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(9),
				   .sin_addr.s_addr = r->ip };
	int fd;

	if (memcmp(r->mac, zero, 6) || arp_lookup(r->ip, r->mac))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0) {
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin,
		       sizeof(sin));
		close(fd);
	}
	return 0;
}

int tor_resolve_macs(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i, k, tries, missing;

	for (tries = 0; tries < 60; tries++) {
		missing = 0;
		for (k = 0; k < n_jobs; k++)
			for (i = 0; i < jobs[k].n_ranks; i++)
				missing += !mac_known(&jobs[k].ranks[i]);
		if (!missing)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/*
 * Transmit side: the output frames of a batch are written in order into
 * their egress port's transmit ring and sent with one send() per port
 * when the batch is done.
 */
static struct sockaddr_ll tx_sll[MAX_PORTS];
static int tx_copy_fd = -1;	/* no ring, receives nothing (protocol 0) */

static struct tpacket2_hdr *ring_frame(__u8 *ring, unsigned int f)
{
	return (struct tpacket2_hdr *)(ring +
		(f / RING_PER_BLOCK) * (size_t)RING_BLOCK +
		(f % RING_PER_BLOCK) * (size_t)RING_FRAME);
}

static unsigned int ring_status(struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

/*
 * Kick the port's ring; the frames the kernel took are sent. One it could
 * not hand to the device stays queued and goes with the next send();
 * a malformed one (PACKET_LOSS) is skipped, as sendto() would refuse it.
 */
static void tx_flush_port(int pi)
{
	struct port *p = &ports[pi];
	unsigned int st;

	if (!p->tx_pend)
		return;
	send(p->fd, NULL, 0, MSG_DONTWAIT);
	while (p->tx_pend) {
		st = ring_status(ring_frame(p->txr, p->tx_first));
		if (st == TP_STATUS_SEND_REQUEST)
			break;
		if (st != TP_STATUS_WRONG_FORMAT)
			p->tx++;
		p->tx_first = (p->tx_first + 1) % TX_FRAMES;
		p->tx_pend--;
	}
}

static void tx_flush(void)
{
	int pi;

	for (pi = 0; pi < n_ports; pi++)
		tx_flush_port(pi);
}

static int tx_free(struct tpacket2_hdr *h)
{
	unsigned int st = ring_status(h);

	return st == TP_STATUS_AVAILABLE || st == TP_STATUS_WRONG_FORMAT;
}

static void tx_queue(int pi, const __u8 *data, unsigned int len)
{
	struct port *p = &ports[pi];
	struct tpacket2_hdr *h = ring_frame(p->txr, p->tx_head);
	struct virtio_net_hdr *vnet;

	/*
	 * A frame longer than the port's MTU never leaves: a socket with a
	 * virtio_net_hdr skips the kernel's MTU test, the veth refuses the
	 * frame, and the kernel keeps it at the head of the transmit ring,
	 * trying it again at every send(): no later frame of the port would
	 * go out again. Drop it here and count it.
	 */
	if (len > ETH_HLEN + p->mtu) {
		p->tx_drop++;
		return;
	}
	if (!tx_free(h))
		tx_flush_port(pi);
	if (!tx_free(h)) {
		/*
		 * the ring is full of frames still in flight: send a copy
		 * from the ringless socket (a send() on a socket with a
		 * transmit ring only kicks the ring)
		 */
		if (sendto(tx_copy_fd, data, len, 0,
			   (struct sockaddr *)&tx_sll[pi],
			   sizeof(tx_sll[pi])) > 0)
			p->tx++;
		return;
	}
	vnet = (struct virtio_net_hdr *)((__u8 *)h + TX_DATA_OFF);
	memset(vnet, 0, sizeof(*vnet));
	vnet->hdr_len = (__u16)len;
	memcpy((__u8 *)h + TX_DATA_OFF + TX_VNET, data, len);
	h->tp_len = TX_VNET + len;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
			 __ATOMIC_RELEASE);
	p->tx_head = (p->tx_head + 1) % TX_FRAMES;
	p->tx_pend++;
}

static int tx_init(void)
{
	int i, one = 1;

	tx_copy_fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0);
	if (tx_copy_fd < 0)
		return -errno;
	if (!use_qdisc)
		setsockopt(tx_copy_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
			   sizeof(one));
	for (i = 0; i < n_ports; i++) {
		tx_sll[i].sll_family = AF_PACKET;
		tx_sll[i].sll_ifindex = ports[i].ifindex;
		tx_sll[i].sll_halen = 6;
	}
	return 0;
}

/* One received frame: the control protocol, else the model. */
static void rx_frame(int pi, __u8 *frame, unsigned int n, int csum_partial)
{
	__u8 reply[TOR_REPLY_FRAME_MAX];
	unsigned int k, rlen;

	ports[pi].rx++;
	/*
	 * an unfinished UDP checksum (offload): send it as "none". The
	 * socket filter gives us IPv4/UDP frames only; the test stays here
	 * because bytes 40-41 of anything else (a TCP sequence number) are
	 * not a checksum
	 */
	if (csum_partial && n >= RINA_TOR_RINA_OFF && frame[14] == 0x45 &&
	    frame[23] == IPPROTO_UDP)
		frame[40] = frame[41] = 0;
	/* a request to the ToR itself never reaches the model */
	rlen = tor_control(frame, n, reply, n_ports);
	if (rlen) {
		tx_queue(pi, reply, rlen);
		return;
	}
	rina_tor_process(sw, (unsigned int)pi, frame, n, &out);
	for (k = 0; k < out.n; k++)
		if (out.pkt[k].port < n_ports)
			tx_queue(out.pkt[k].port, out.pkt[k].data,
				 out.pkt[k].len);
}

/* Up to RX_BATCH frames of a port's ring. */
#define RX_BATCH	64

static void rx_port(int pi)
{
	struct port *p = &ports[pi];
	int i;

	for (i = 0; i < RX_BATCH; i++) {
		unsigned int f = p->head;
		struct tpacket2_hdr *h = ring_frame(p->ring, f);
		unsigned int st = ring_status(h);
		unsigned int len = h->tp_snaplen;

		if (!(st & TP_STATUS_USER))
			return;
		if (len < h->tp_len) {
			/*
			 * longer than a ring frame (a GSO super-frame): the
			 * model counts it as a giant from its length and
			 * drops it; a cut-off copy must never be switched
			 */
			ports[pi].rx++;
			rina_tor_process(sw, (unsigned int)pi,
					 (__u8 *)h + h->tp_mac,
					 h->tp_len > RINA_TOR_FRAME_MAX ?
					 h->tp_len : RINA_TOR_FRAME_MAX + 1,
					 &out);
		} else if (len && h->tp_mac + len <= RING_FRAME) {
			rx_frame(pi, (__u8 *)h + h->tp_mac, len,
				 !!(st & TP_STATUS_CSUMNOTREADY));
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		p->head = f + 1 == RING_FRAMES ? 0 : f + 1;
	}
}

/* The frames each port's receive ring dropped since the last call. */
void tor_port_drops_update(void)
{
	struct tpacket_stats st;
	socklen_t len;
	int i;

	for (i = 0; i < n_ports; i++) {
		len = sizeof(st);
		if (ports[i].fd > 0 &&
		    !getsockopt(ports[i].fd, SOL_PACKET, PACKET_STATISTICS,
				&st, &len))
			ports[i].rx_drop += st.tp_drops;
	}
}

int tor_steer_counts(__u64 *selected, __u64 *steered, __u64 *unleased)
{
	if (!tc_skel || !tc_skel->bss)
		return 0;
	*selected = tc_skel->bss->selected;
	*steered = tc_skel->bss->steered;
	*unleased = tc_skel->bss->unleased;
	return 1;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/*
 * Renew the steering programs' lease (rina_tor_tc.bpf.c) for
 * TOR_LEASE_MS; returns the ms since the previous renewal.
 */
__u64 tor_lease_renew(void)
{
	static __u64 last;
	__u64 now = mono_ns(), away = last ? (now - last) / 1000000 : 0;

	last = now;
	if (away >= TOR_LEASE_MS)
		tor_lease_lapses++;
	if (tc_skel && tc_skel->bss)
		tc_skel->bss->lease_until_ns = now +
					       TOR_LEASE_MS * 1000000ull;
	return away;
}

static struct pollfd pfd[MAX_PORTS];

int tor_ports_open(void)
{
	int i;

	tc_skel = rina_tor_tc__open_and_load();
	if (!tc_skel) {
		fprintf(stderr, "rina-tor: cannot load the tc program: %s\n",
			strerror(errno));
		return -1;
	}
	tor_lease_renew();
	for (i = 0; i < n_ports; i++) {
		if (port_open(&ports[i], bpf_program__fd(
				tc_skel->progs.rina_tor_select)) < 0 ||
		    tc_steer(&ports[i])) {
			fprintf(stderr, "rina-tor: port %s: setup failed\n",
				ports[i].name);
			return -1;
		}
		pfd[i].fd = ports[i].fd;
		pfd[i].events = POLLIN;
	}
	if (tx_init()) {
		fprintf(stderr, "rina-tor: no packet socket: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int tor_poll(int ms)
{
	int i, n = poll(pfd, (nfds_t)n_ports, ms);

	if (n < 0 && errno != EINTR)
		return -1;
	for (i = 0; n > 0 && i < n_ports; i++)
		if (pfd[i].revents & POLLIN)
			rx_port(i);
	tx_flush();
	return 0;
}

/*
 * Undo tor_ports_open(), however far it went: the ports' tc programs
 * first, so that the bridge forwards Rina frames again, then the sockets.
 * The tc program's counters stay readable (tor_steer_counts()) until
 * tor_steer_close().
 */
void tor_ports_close(void)
{
	int i;

	for (i = 0; i < n_ports; i++) {
		tc_unsteer(&ports[i]);
		if (ports[i].ring)
			munmap(ports[i].ring, ports[i].ring_len);
		if (ports[i].fd > 0)
			close(ports[i].fd);
	}
	if (tx_copy_fd >= 0)
		close(tx_copy_fd);
}

void tor_steer_close(void)
{
	rina_tor_tc__destroy(tc_skel);
	tc_skel = NULL;
}
