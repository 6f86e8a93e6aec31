// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-tor: the software INA ToR of the emulated cluster. In a ToR
 * network namespace whose Linux bridge switches a rack (rina-run: bridge
 * br0, uplink port up0, host ports h0..h<m-1>), it runs the switch model
 * (p4/model) on every Rina frame of the bridge's ports and leaves all
 * other traffic to the bridge.
 *
 * Datapath (v0): one AF_PACKET socket per bridge port sees the port's
 * Rina frames (IPv4/UDP, destination port 0x5240..0x524f) before the
 * bridge does, and a tc ingress program drops them so that the bridge
 * does not forward them too; the model's output frames are sent on their
 * ports directly. The socket's filter and the tc program are one test
 * (rina_tor_tc.bpf.c, loaded with libbpf): every other frame reaches the
 * bridge only, and crosses the ToR as it crosses a plain bridge. No frame
 * is cut to fit a ring frame and no frame above a port's MTU is sent (see
 * rx_port() and tx_queue()). Frames are handled in batches: read in
 * place from a per-port receive ring (PACKET_RX_RING, TPACKET_V2), the
 * outputs of a batch written to their port's transmit ring
 * (PACKET_TX_RING) and sent with one send() each, past the qdisc
 * (PACKET_QDISC_BYPASS; --qdisc sends through it, for ports that
 * rina-run --rate shapes). (An AF_XDP
 * datapath with an XDP program steering Rina frames to XSKs is the
 * faster alternative; the model is the same.)
 *
 * The job is installed from the job file at start, with the commands
 * rina-p4cfg would write for the rack (Documentation/p4-control-plane.md);
 * MAC addresses missing from the job file are resolved by ARP from the
 * bridge's address. Counters: -j prints them as JSON at exit, --stats FILE
 * keeps a JSON copy up to date every second.
 *
 * With --on-demand the agents install and remove their jobs (control()):
 * signed requests in a job with a secret, one uniform answer to every
 * request that does not prove it comes from the job.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "rina_tor_model.h"
#include "p4cfg.h"
#include "jobfile.h"
#include "secret.h"
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

#define MAX_PORTS	(RINA_TOR_MAX_WORKERS + 1)

struct port {
	char	name[IF_NAMESIZE];
	int	ifindex;
	int	fd;
	int	tc;		/* 1: program attached, 2: and our qdisc */
	unsigned int mtu;	/* frames up to ETH_HLEN + mtu leave */
	__u8	*ring;		/* PACKET_RX_RING (TPACKET_V2), mmapped */
	size_t	ring_len;
	unsigned int head;	/* next ring frame to look at */
	__u8	*txr;		/* PACKET_TX_RING, after the receive ring */
	unsigned int tx_head;	/* next transmit frame to fill */
	unsigned int tx_first;	/* oldest frame handed to the kernel */
	unsigned int tx_pend;	/* frames from tx_first not yet sent */
	__u64	rx, tx;
	__u64	tx_drop;	/* output frames longer than the port's MTU */
	__u64	rx_drop;	/* frames the receive ring had no room for */
};

#define MAX_TOR_JOBS	8

static struct rina_job_desc jobs[MAX_TOR_JOBS];
/* each job's hash as its file says it, before MACs are resolved */
static __u64 job_hash[MAX_TOR_JOBS];
static int n_jobs;
static struct rina_tor *sw;
static struct rina_tor_out out;
static struct port ports[MAX_PORTS];
static int n_ports;
static volatile sig_atomic_t stop;
static unsigned int rack;
static int use_qdisc;	/* --qdisc: the ports' qdiscs shape what we send */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

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
static int find_ports(const char *bridge)
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

static int resolve_macs(void)
{
	static const __u8 zero[6];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i, tries, missing;

	for (tries = 0; tries < 60; tries++) {
		missing = 0;
		for (i = 0; i < n_jobs * RINA_MAX_RANKS; i++) {
			struct rina_job_desc *job = &jobs[i / RINA_MAX_RANKS];
			struct rina_rank_desc *r = &job->ranks[i % RINA_MAX_RANKS];

			if (i % RINA_MAX_RANKS >= job->n_ranks)
				continue;
			{
			struct sockaddr_in sin = { .sin_family = AF_INET,
						   .sin_port = htons(9),
						   .sin_addr.s_addr = r->ip };
			int fd;

			if (memcmp(r->mac, zero, 6) || arp_lookup(r->ip, r->mac))
				continue;
			missing++;
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			if (fd >= 0) {
				sendto(fd, "", 0, MSG_DONTWAIT,
				       (struct sockaddr *)&sin, sizeof(sin));
				close(fd);
			}
			}
		}
		if (!missing)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int cli(const char *line)
{
	const char *params = strstr(line, " => ");
	char err[256];

	if (rina_tor_cli(sw, line, err, sizeof(err))) {
		/* the command up to its parameters: set_job's hold the tag */
		fprintf(stderr, "rina-tor: '%.*s': %s\n",
			(int)(params ? params - line : (long)strlen(line)),
			line, err);
		return -1;
	}
	return 0;
}

static void l2_add(const __u8 *m, int port)
{
	char cmd[160], err[128];

	snprintf(cmd, sizeof(cmd), "table_add RinaIngress.l2_fwd.l2_fwd "
		 "RinaIngress.l2_fwd.set_port %02x:%02x:%02x:%02x:%02x:%02x "
		 "=> %d", m[0], m[1], m[2], m[3], m[4], m[5], port);
	rina_tor_cli(sw, cmd, err, sizeof(err));	/* known MAC: fine */
}

/*
 * Host port of a local rank: the rack's distinct host addresses in
 * ascending order sit on h0, h1, ... (rina-run's layout), whatever job.
 */
static int host_port(const struct rina_job_desc *job, int rank)
{
	__u32 me = ntohl(job->ranks[rank].ip);
	int i, below = 0;
	__u32 seen[RINA_MAX_RANKS];
	int n_seen = 0, j, dup;

	for (i = 0; i < job->n_ranks; i++) {
		__u32 ip = ntohl(job->ranks[i].ip);

		if (job->ranks[i].rack != rack || ip >= me)
			continue;
		for (j = 0, dup = 0; j < n_seen; j++)
			dup |= seen[j] == ip;
		if (!dup) {
			seen[n_seen++] = ip;
			below++;
		}
	}
	return 1 + below;
}

/* Plain L2: the flood group 1 over every port, before any job. */
static int install_flood(void)
{
	char cmd[256];
	int i;

	if (cli("mc_mgrp_create 1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_create 0");
	for (i = 0; i < n_ports; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %d",
			 i);
	if (cli(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "mc_node_associate 1 %d", sw->n_nodes - 1);
	return cli(cmd);
}

static unsigned int pool_base_of(int k)
{
	unsigned int pool = 0;
	int i;

	for (i = 0; i < k; i++)
		pool += 2u * jobs[i].window;
	return pool;
}

/*
 * Install job k: job index k, the pool after the jobs before it in the
 * command line (2W slots each), multicast group 2 + k, replica ids from
 * rid_base = 1 + 64k (rina-p4cfg's layout: rid_base + b local worker b,
 * + m the next member, + m + 1 the upstream, + m + 2 the agent; m <= 31,
 * so a job's ids stay below the next job's), a fresh epoch; plain L2
 * entries for its ranks. Returns a RINA_TOR_ST_* status.
 */
enum {
	RINA_TOR_ST_OK		= 0,
	RINA_TOR_ST_UNKNOWN_JOB	= 1,
	RINA_TOR_ST_NO_SLOTS	= 2,
	RINA_TOR_ST_BAD_PARAMS	= 3,
};

static int installed[MAX_TOR_JOBS];
static unsigned int next_epoch;

static int install_one(int k)
{
	const struct rina_job_desc *job = &jobs[k];
	char err[256], *buf = NULL, *line, *save;
	__u8 tag[RINA_TAG_LEN];
	struct rina_p4cfg o;
	size_t sz = 0;
	int i, ret = 0;
	FILE *f;

	if (job->elems > RINA_TOR_ELEMS)
		return RINA_TOR_ST_BAD_PARAMS;
	if (pool_base_of(k) + 2u * job->window > RINA_TOR_POOL_SIZE)
		return RINA_TOR_ST_NO_SLOTS;
	rina_p4cfg_defaults(&o);
	o.rack = rack;
	o.uplink = 0;
	o.epoch = next_epoch++ & 0xffff;
	o.job_idx = (unsigned int)k;
	o.pool_base = pool_base_of(k);
	o.mgrp = 2u + (unsigned int)k;
	o.rid_base = 1u + 64u * (unsigned int)k;
	o.node_base = (unsigned int)sw->n_nodes;
	for (i = 0; i < job->n_ranks; i++) {
		if (job->ranks[i].rack != rack) {
			l2_add(job->ranks[i].mac, 0);
			continue;
		}
		o.port_of[i] = host_port(job, i);
		if (o.port_of[i] >= n_ports) {
			fprintf(stderr, "rina-tor: job %u: more local hosts "
				"than ports h0..h%d\n", job->job_id,
				n_ports - 2);
			return RINA_TOR_ST_BAD_PARAMS;
		}
		l2_add(job->ranks[i].mac, o.port_of[i]);
	}
	/* the data tag goes from here to the model's table, never out */
	if (job->has_secret) {
		rina_job_tag(job->secret, rina_siphash24, job->job_id, tag);
		o.tag = tag;
	}
	f = open_memstream(&buf, &sz);
	if (!f)
		return RINA_TOR_ST_NO_SLOTS;
	if (rina_p4cfg_write(f, job, &o, err, sizeof(err))) {
		fclose(f);
		explicit_bzero(buf, sz);
		free(buf);
		fprintf(stderr, "rina-tor: job %u: %s\n", job->job_id, err);
		return RINA_TOR_ST_BAD_PARAMS;
	}
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = cli(line);
	explicit_bzero(buf, sz);
	explicit_bzero(tag, sizeof(tag));
	free(buf);
	if (ret) {
		rina_tor_job_remove(sw, (unsigned int)k);
		return RINA_TOR_ST_NO_SLOTS;
	}
	installed[k] = 1;
	fprintf(stderr, "rina-tor: job %u installed (job_idx %d, pool %u..%u, "
		"epoch %u)\n", job->job_id, k, o.pool_base,
		o.pool_base + 2 * job->window - 1, o.epoch);
	return RINA_TOR_ST_OK;
}

/* ---- the ToR control protocol (Documentation/protocol-ina.md §9) ---- */

static __u32 my_ip;		/* the bridge's address, host order */
static __u8 my_mac[6];

static void tx_queue(int pi, const __u8 *data, unsigned int len);

static void bridge_addr(const char *bridge)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", bridge);
	if (!ioctl(fd, SIOCGIFADDR, &ifr))
		my_ip = ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->
			      sin_addr.s_addr);
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr))
		memcpy(my_mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

static __u16 rd16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 rd32(const __u8 *p)
{
	return (__u32)rd16(p) << 16 | rd16(p + 2);
}

/*
 * Requests refused or taken, per job (control_refuse(), control()); a
 * request for a job id the ToR does not hold counts in ctrl_unknown.
 */
struct ctrl_ctr {
	__u64	ok;		/* authenticated and acted on */
	__u64	forged;		/* unsigned, bad MAC, or signed without key */
	__u64	replayed;	/* stamp outside the window, or seen before */
	__u64	bad_hash;	/* authentic but for another job description */
};

static struct ctrl_ctr ctrl_ctr[MAX_TOR_JOBS];
static __u64 ctrl_unknown;
/* each job's accepted stamps per sender (ctrl_auth.h) */
static struct rina_ctrl_guard ctrl_guard[MAX_TOR_JOBS];

/*
 * The reply frame to the request req (a CTRL to us): Ethernet, IPv4 and
 * UDP from our address and port 0x524f to the sender's, then m, sealed
 * for the sender's ip:port with key (NULL: unsigned). Returns its length.
 */
static unsigned int reply_frame(__u8 *f, const __u8 *req,
				struct rina_ctrl_msg *m, const __u8 *key)
{
	__be32 to_ip;
	__be16 to_port;
	__u32 len, sum = 0;
	__u8 *x;
	int i;

	memcpy(&to_ip, req + 26, 4);
	memcpy(&to_port, req + 34, 2);
	len = rina_ctrl_seal(m, key, rina_siphash24,
			     key ? rina_ctrl_stamp() : 0, to_ip, to_port);
	memcpy(f, req + 6, 6);
	memcpy(f + 6, my_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	x = f + 14;
	memset(x, 0, 20);
	x[0] = 0x45;
	x[2] = (__u8)((20 + 8 + len) >> 8);
	x[3] = (__u8)(20 + 8 + len);
	x[6] = 0x40;			/* DF */
	x[8] = 64;
	x[9] = IPPROTO_UDP;
	x[12] = (__u8)(my_ip >> 24);
	x[13] = (__u8)(my_ip >> 16);
	x[14] = (__u8)(my_ip >> 8);
	x[15] = (__u8)my_ip;
	memcpy(x + 16, &to_ip, 4);
	for (i = 0; i < 20; i += 2)
		sum += rd16(x + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	x[10] = (__u8)(~sum >> 8);
	x[11] = (__u8)~sum;
	x = f + 34;
	x[0] = RINA_UDP_PORT_AGENT >> 8;
	x[1] = RINA_UDP_PORT_AGENT & 0xff;
	memcpy(x + 2, &to_port, 2);
	x[4] = (__u8)((8 + len) >> 8);
	x[5] = (__u8)(8 + len);
	x[6] = x[7] = 0;		/* no UDP checksum */
	memcpy(f + 42, m, len);
	return 42 + len;
}

/*
 * Whether a request may act on job k: signed, fresh and new when the job
 * has a secret (rina_ctrl_check()), unsigned when it has none, and for
 * the job description the ToR holds. Counts what it refuses.
 */
static int control_trusted(int k, const struct rina_hdr *h, __u64 hash)
{
	const __u8 *key = jobs[k].has_secret ? jobs[k].secret : NULL;
	enum rina_ctrl_verdict v;

	v = rina_ctrl_check(&ctrl_guard[k], h, key, rina_siphash24,
			    key ? rina_wall_us() : 0, htonl(my_ip),
			    htons(RINA_UDP_PORT_AGENT));
	if (v == RINA_CTRL_STALE || v == RINA_CTRL_REPLAY) {
		ctrl_ctr[k].replayed++;
		return 0;
	}
	if (v != RINA_CTRL_OK) {
		ctrl_ctr[k].forged++;
		return 0;
	}
	if (job_hash[k] != hash) {
		ctrl_ctr[k].bad_hash++;
		return 0;
	}
	ctrl_ctr[k].ok++;
	return 1;
}

/*
 * A CTRL to the ToR's own address and port 0x524f with a TOR_* type is
 * the control protocol, handled here and never seen by the model.
 * Every request that does not prove it comes from a job the ToR holds
 * (an unknown job id, a wrong hash, in a job with a secret a missing or
 * wrong MAC, a stale or replayed stamp) gets the same answer: unsigned,
 * status "unknown job", the request's job id and hash echoed
 * (protocol-ina.md, "The ToR control protocol"). Returns 1 when the
 * frame was consumed.
 */
static int control(int pi, __u8 *f, unsigned int len)
{
	const struct rina_hdr *h = (const struct rina_hdr *)(f + 42);
	__u8 rf[42 + sizeof(struct rina_ctrl_msg)];
	__u32 type, st = RINA_TOR_ST_UNKNOWN_JOB;
	const __u8 *key = NULL;
	struct rina_ctrl_msg m;
	__u64 hash;
	int k;

	if (!my_ip || (len != 42 + RINA_HDR_LEN + 4 * RINA_CTRL_WORDS &&
		       len != 42 + RINA_HDR_LEN + 4 * RINA_CTRL_AUTH_WORDS) ||
	    f[14] != 0x45 || rd32(f + 30) != my_ip ||
	    rd16(f + 36) != RINA_UDP_PORT_AGENT ||
	    rina_hdr_check(h, len - 42) ||
	    rina_hdr_opcode(h) != RINA_OP_CTRL)
		return 0;
	type = rd32(f + 70);
	if (type != RINA_CTRL_TOR_INSTALL && type != RINA_CTRL_TOR_REMOVE)
		return 0;
	hash = (__u64)rd32(f + 78) << 32 | rd32(f + 82);
	for (k = 0; k < n_jobs; k++)
		if (jobs[k].job_id == rd16(f + 44))
			break;
	if (k == n_jobs)
		ctrl_unknown++;
	else if (control_trusted(k, h, hash))
		key = jobs[k].has_secret ? jobs[k].secret : NULL;
	else
		k = n_jobs;
	if (k < n_jobs && type == RINA_CTRL_TOR_INSTALL) {
		st = installed[k] ? RINA_TOR_ST_OK : (__u32)install_one(k);
	} else if (k < n_jobs && installed[k]) {
		rina_tor_job_remove(sw, (unsigned int)k);
		installed[k] = 0;
		st = RINA_TOR_ST_OK;
		fprintf(stderr, "rina-tor: job %u removed\n", jobs[k].job_id);
	}
	memset(&m, 0, sizeof(m));
	m.h.ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	m.h.flags = RINA_F_FROM_SWITCH;
	m.h.job_id = h->job_id;
	m.h.src_id = htons((__u16)(RINA_SRC_SWITCH | rack));
	m.h.exp = RINA_EXP_NONE;
	m.c.type = htonl(RINA_CTRL_TOR_REPLY);
	m.c.arg = htonl(st);
	memcpy(&m.c.hash, f + 78, 8);
	tx_queue(pi, rf, reply_frame(rf, f, &m, key));
	return 1;
}

/* The frames each port's receive ring dropped since the last call. */
static void port_drops_update(void)
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

static void json(FILE *f)
{
	static const char *const jn[] = RINA_TOR_JOB_CTR_NAMES;
	static const char *const on[] = RINA_TOR_OUT_CTR_NAMES;
	static const char *const pn[] = RINA_PARSE_NAMES;
	static const char *const tn[] = { "non_rina", "l2_flood", "l2_runt",
					  "giant" };
	int i, k;

	fprintf(f, "{\"rack\":%u,\"jobs\":[", rack);
	for (k = 0; k < n_jobs; k++) {
		const __u64 *jc = &sw->job_ctr[k * __RINA_TC_MAX];
		const __u64 *jo = &sw->job_out[k * __RINA_TO_MAX];

		fprintf(f, "%s{\"job\":%u,\"job_idx\":%d,\"counters\":{",
			k ? "," : "", jobs[k].job_id, k);
		for (i = 0; i < __RINA_TC_MAX; i++)
			fprintf(f, "%s\"%s\":%llu", i ? "," : "", jn[i],
				(unsigned long long)jc[i]);
		for (i = 0; i < __RINA_TO_MAX; i++)
			fprintf(f, ",\"%s\":%llu", on[i],
				(unsigned long long)jo[i]);
		fprintf(f, "},\"control\":{\"ok\":%llu,\"forged\":%llu,"
			"\"replayed\":%llu,\"bad_hash\":%llu}}",
			(unsigned long long)ctrl_ctr[k].ok,
			(unsigned long long)ctrl_ctr[k].forged,
			(unsigned long long)ctrl_ctr[k].replayed,
			(unsigned long long)ctrl_ctr[k].bad_hash);
	}
	fprintf(f, "],\"control\":{\"unknown_job\":%llu}",
		(unsigned long long)ctrl_unknown);
	fprintf(f, ",\"switch\":{");
	for (i = 0; i < __RINA_PARSE_MAX; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", pn[i],
			(unsigned long long)sw->tor_ctr[i]);
	for (i = __RINA_PARSE_MAX; i < __RINA_TS_MAX; i++)
		fprintf(f, ",\"%s\":%llu", tn[i - __RINA_PARSE_MAX],
			(unsigned long long)sw->tor_ctr[i]);
	fprintf(f, "},\"ports\":[");
	for (i = 0; i < n_ports; i++)
		fprintf(f, "%s{\"name\":\"%s\",\"rx\":%llu,\"tx\":%llu,"
			"\"rx_drop\":%llu,\"tx_drop\":%llu}", i ? "," : "",
			ports[i].name, (unsigned long long)ports[i].rx,
			(unsigned long long)ports[i].tx,
			(unsigned long long)ports[i].rx_drop,
			(unsigned long long)ports[i].tx_drop);
	fprintf(f, "]");
	/* every frame the sockets were given was kept from the bridge */
	if (tc_skel && tc_skel->bss)
		fprintf(f, ",\"steer\":{\"selected\":%llu,\"steered\":%llu}",
			(unsigned long long)tc_skel->bss->selected,
			(unsigned long long)tc_skel->bss->steered);
	fprintf(f, "}\n");
}

static void write_stats(const char *path)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	json(f);
	if (!fclose(f))
		rename(tmp, path);
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
	unsigned int k;

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
	if (control(pi, frame, n))
		return;
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

static void usage(void)
{
	fprintf(stderr,
		"usage: rina-tor --job FILE [--job FILE]... --rack R [--bridge br0]\n"
		"                [--epoch N] [--on-demand]\n"
		"                [--stats FILE] [-j] [--drop VER_OP:RATE]...\n"
		"                [--drop-out VER_OP:RATE]... [--qdisc]\n"
		"  runs in a ToR namespace whose bridge has ports up0, h0, h1...\n"
		"  --drop 0x11:655  drop 1%% of SR_CONTRIB (ingress simulator)\n"
		"  --drop-out 0x13:6554  drop 10%% of the AG_DATA copies the\n"
		"                switch emits, each on its own (egress simulator)\n"
		"  --qdisc       send through the ports' qdiscs (shaped links)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "job", required_argument, NULL, 'f' },
		{ "rack", required_argument, NULL, 'r' },
		{ "bridge", required_argument, NULL, 'b' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "stats", required_argument, NULL, 's' },
		{ "drop", required_argument, NULL, 'd' },
		{ "drop-out", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "on-demand", no_argument, NULL, 'o' },
		{ "qdisc", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const char *files[MAX_TOR_JOBS], *bridge = "br0", *stats = NULL;
	char err[256], drops[16][96];
	struct pollfd pfd[MAX_PORTS];
	unsigned int epoch = (unsigned int)time(NULL) & 0xffff;
	int c, i, have_rack = 0, jflag = 0, n_drops = 0, ret = 1;
	int on_demand = 0;
	struct ctrl_ctr refused = { 0 };
	time_t last = 0;

	while ((c = getopt_long(argc, argv, "f:r:b:e:s:d:jo", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (n_jobs == MAX_TOR_JOBS)
				usage();
			files[n_jobs++] = optarg;
			break;
		case 'r': rack = (unsigned int)atoi(optarg); have_rack = 1;
			  break;
		case 'b': bridge = optarg; break;
		case 'e': epoch = (unsigned int)strtoul(optarg, NULL, 0) &
				  0xffff; break;
		case 's': stats = optarg; break;
		case 'j': jflag = 1; break;
		case 'o': on_demand = 1; break;
		case 'q': use_qdisc = 1; break;
		case 'd':
		case 'D': {
			const char *pipe = c == 'd' ? "Ingress" : "Egress";
			unsigned int op, rate;

			if (n_drops == 16 ||
			    sscanf(optarg, "%i:%u", &op, &rate) != 2)
				usage();
			snprintf(drops[n_drops++], sizeof(drops[0]),
				 "table_add Rina%s.drop_sim.drop_sim "
				 "Rina%s.drop_sim.drop_rate %u => %u",
				 pipe, pipe, op, rate);
			break;
		}
		default: usage();
		}
	}
	if (!n_jobs || !have_rack || optind != argc)
		usage();
	for (i = 0; i < n_jobs; i++) {
		if (rina_jobfile_parse(files[i], &jobs[i], err, sizeof(err))) {
			fprintf(stderr, "rina-tor: %s\n", err);
			return 1;
		}
		job_hash[i] = rina_job_hash(&jobs[i]);
	}
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return 1;
	rina_tor_init(sw);
	if (find_ports(bridge)) {
		fprintf(stderr, "rina-tor: bridge %s: no ports up0, h0...\n",
			bridge);
		return 1;
	}
	if (resolve_macs()) {
		fprintf(stderr, "rina-tor: cannot resolve every rank's MAC\n");
		return 1;
	}
	next_epoch = epoch;
	bridge_addr(bridge);
	if (install_flood())
		return 1;
	for (i = 0; !on_demand && i < n_jobs; i++) {
		int st = install_one(i);

		if (st) {
			fprintf(stderr, "rina-tor: job %u: %s\n",
				jobs[i].job_id,
				st == RINA_TOR_ST_NO_SLOTS ? "no slots left" :
				"bad parameters (elements above 64?)");
			return 1;
		}
	}
	for (i = 0; i < n_drops; i++)
		if (cli(drops[i]))
			return 1;
	tc_skel = rina_tor_tc__open_and_load();
	if (!tc_skel) {
		fprintf(stderr, "rina-tor: cannot load the tc program: %s\n",
			strerror(errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; i < n_ports; i++) {
		if (port_open(&ports[i], bpf_program__fd(
				tc_skel->progs.rina_tor_select)) < 0 ||
		    tc_steer(&ports[i])) {
			fprintf(stderr, "rina-tor: port %s: setup failed\n",
				ports[i].name);
			goto out;
		}
		pfd[i].fd = ports[i].fd;
		pfd[i].events = POLLIN;
	}
	if (tx_init()) {
		fprintf(stderr, "rina-tor: no packet socket: %s\n",
			strerror(errno));
		goto out;
	}
	fprintf(stderr, "rina-tor: %d job(s), first %u, rack %u: %d ports, "
		"epoch %u\n", n_jobs, jobs[0].job_id, rack, n_ports, epoch);
	while (!stop) {
		int n = poll(pfd, (nfds_t)n_ports, 200);

		if (n < 0 && errno != EINTR)
			break;
		for (i = 0; n > 0 && i < n_ports; i++)
			if (pfd[i].revents & POLLIN)
				rx_port(i);
		tx_flush();
		if (stats && time(NULL) != last) {
			last = time(NULL);
			port_drops_update();
			write_stats(stats);
		}
	}
	ret = 0;
out:
	port_drops_update();
	for (i = 0; i < n_ports; i++) {
		tc_unsteer(&ports[i]);
		if (ports[i].ring)
			munmap(ports[i].ring, ports[i].ring_len);
		if (ports[i].fd > 0)
			close(ports[i].fd);
	}
	if (tx_copy_fd >= 0)
		close(tx_copy_fd);
	if (stats)
		write_stats(stats);
	if (jflag)
		json(stdout);
	rina_tor_tc__destroy(tc_skel);
	tc_skel = NULL;
	for (i = 0; i < n_jobs; i++) {
		refused.forged += ctrl_ctr[i].forged;
		refused.replayed += ctrl_ctr[i].replayed;
		refused.bad_hash += ctrl_ctr[i].bad_hash;
	}
	fprintf(stderr, "rina-tor: exit: contrib_in %llu partial_in %llu "
		"slots %llu partial_out %llu ag_mcast %llu ag_agent %llu "
		"dup %llu stale %llu collision %llu bypass_in %llu "
		"too_long %llu bad_tag %llu; control requests refused: "
		"unknown job %llu "
		"forged %llu replayed %llu bad hash %llu\n",
		(unsigned long long)sw->job_ctr[RINA_TC_CONTRIB_IN],
		(unsigned long long)sw->job_ctr[RINA_TC_PARTIAL_IN],
		(unsigned long long)sw->job_ctr[RINA_TC_SLOT_DONE],
		(unsigned long long)sw->job_out[RINA_TO_PARTIAL_OUT],
		(unsigned long long)sw->job_out[RINA_TO_AG_MCAST],
		(unsigned long long)sw->job_out[RINA_TO_AG_AGENT],
		(unsigned long long)sw->job_ctr[RINA_TC_DUP],
		(unsigned long long)sw->job_ctr[RINA_TC_STALE],
		(unsigned long long)sw->job_ctr[RINA_TC_COLLISION],
		(unsigned long long)sw->job_ctr[RINA_TC_BYPASS_IN],
		(unsigned long long)sw->job_ctr[RINA_TC_TOO_LONG],
		(unsigned long long)sw->job_ctr[RINA_TC_BAD_TAG],
		(unsigned long long)ctrl_unknown,
		(unsigned long long)refused.forged,
		(unsigned long long)refused.replayed,
		(unsigned long long)refused.bad_hash);
	return ret;
}
