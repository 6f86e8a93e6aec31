// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's AF_XDP transport between two network namespaces joined by a
 * veth pair with rina_xdp attached on both ends (set up by
 * test_xsk_transport.sh): create errors, zero-copy attempt, thousands of
 * messages of several sizes both ways with every byte checked, and the
 * XDP_STATISTICS drop counters when the receiver stops reading.
 * Usage: test_xsk_transport NS_A IP_A NS_B IP_B [MSGS_PER_SIZE]
 *        test_xsk_transport rx NS IP COUNT
 *   (rx: receive COUNT messages that rina_udp.py sends, over every queue)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/rina.h>

#include "xdp_transport.h"
#include "../ktap.h"

static int enter_ns(const char *ns)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define PORT	RINA_UDP_PORT_WORKER
#define MAX_E	350	/* 28 + 1400 bytes: fits a 1500-byte MTU */
#define MAX_MSG	(RINA_HDR_LEN + MAX_E * 4)

/* Message i from side s: a valid Rina header, payload bytes from (s, i). */
static uint32_t fill_msg(uint8_t *buf, int s, uint32_t i, unsigned int e)
{
	struct rina_hdr *h = (struct rina_hdr *)buf;
	uint32_t k, len = RINA_HDR_LEN + e * 4;

	memset(h, 0, sizeof(*h));
	h->ver_op = (RINA_VERSION << 4) | RINA_OP_SR_CONTRIB;
	h->job_id = htons(1);
	h->src_id = htons((uint16_t)s);
	h->seq = htonl(i);
	h->n_elem = htons((uint16_t)e);
	h->p_chunk = htons(1);
	h->exp = RINA_EXP_NONE;
	h->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
	for (k = RINA_HDR_LEN; k < len; k++)
		buf[k] = (uint8_t)(i * 131 + k * 7 + s * 29);
	return len;
}

struct side {
	const char		*name;
	struct rina_transport	*t;
	struct rina_addr	self;
	uint32_t		sent, got, bad;
	uint64_t		bytes;
};

static int check_msg(struct side *rx, int from, const struct rina_msg *m,
		     const struct rina_addr *src)
{
	static uint8_t want[MAX_MSG];
	const struct rina_hdr *h = m->buf;
	uint32_t seq, len;

	if (m->len < RINA_HDR_LEN || m->addr.ip != src->ip ||
	    m->addr.port != src->port)
		return -1;
	seq = ntohl(h->seq);
	len = fill_msg(want, from, seq, ntohs(h->n_elem));
	if (seq != rx->got || len != m->len || memcmp(want, m->buf, len))
		return -1;
	rx->bytes += len;
	return 0;
}

/*
 * a sends to b and b to a, n messages each, e words, at most win ahead
 * of the receiver. Messages arrive in order on veth; any loss or
 * corruption is a failure.
 */
static int exchange(struct side *a, struct side *b, uint32_t n,
		    unsigned int e, uint32_t win)
{
	static uint8_t buf[64][MAX_MSG];
	struct side *s[2] = { a, b };
	struct rina_msg m[64];
	double idle = now_s();
	int d, i, k, r;

	a->sent = a->got = b->sent = b->got = 0;
	while (a->got < n || b->got < n) {
		for (d = 0; d < 2; d++) {
			struct side *tx = s[d], *rx = s[!d];

			for (k = 0; k < 64 && tx->sent + k < n &&
			     tx->sent + k < rx->got + win; k++) {
				m[k].buf = buf[k];
				m[k].len = fill_msg(buf[k], d, tx->sent + k, e);
				m[k].addr = rx->self;
			}
			if (!k)
				continue;
			r = tx->t->ops->send(tx->t, m, k);
			if (r < 0) {
				printf("# %s send: %s\n", tx->name,
				       strerror(-r));
				return -1;
			}
			tx->sent += (uint32_t)r;
		}
		for (d = 0; d < 2; d++) {
			struct side *rx = s[d], *tx = s[!d];

			r = rx->t->ops->recv(rx->t, m, 64, 20);
			if (r < 0) {
				printf("# %s recv: %s\n", rx->name,
				       strerror(-r));
				return -1;
			}
			for (i = 0; i < r; i++) {
				if (check_msg(rx, !d, &m[i], &tx->self)) {
					printf("# %s: message %u (E=%u) wrong\n",
					       rx->name, rx->got, e);
					return -1;
				}
				rx->got++;
			}
			if (r)
				idle = now_s();
		}
		if (now_s() - idle > 3) {
			printf("# stalled: %s got %u/%u, %s got %u/%u\n",
			       a->name, a->got, n, b->name, b->got, n);
			return -1;
		}
	}
	return 0;
}

static int create(const char *ns, struct side *s, uint32_t max_msg,
		  const char *ifname, char *err, size_t errlen)
{
	struct rina_transport_cfg cfg = {
		.local = s->self,
		.ifname = ifname,
		.max_msg_len = max_msg,
		.window = 128,
	};

	if (enter_ns(ns))
		return -errno;
	return rina_xdp_transport_create(&cfg, &s->t, err, errlen);
}

static uint64_t redirect_count(const char *ns, const char *ifname)
{
	int ncpu = libbpf_num_possible_cpus(), pfd, mfd, c;
	__u32 key = RINA_XDP_REDIRECT;
	__u64 vals[256], sum = 0;

	if (enter_ns(ns) || ncpu > 256)
		return 0;
	pfd = rina_xdp_prog_fd((int)if_nametoindex(ifname), NULL);
	if (pfd < 0)
		return 0;
	mfd = rina_xdp_prog_map(pfd, RINA_XDP_STATS_MAP);
	if (mfd >= 0 && !bpf_map_lookup_elem(mfd, &key, vals))
		for (c = 0; c < ncpu; c++)
			sum += vals[c];
	if (mfd >= 0)
		close(mfd);
	close(pfd);
	return sum;
}

/* Receiver b stops reading; a floods it; every frame is accounted. */
static void test_overflow(struct side *a, struct side *b)
{
	static uint8_t buf[32][MAX_MSG];
	struct rina_transport_stats st0, st1;
	struct rina_msg m[64];
	uint32_t sent = 0, drained = 0, flood = 3 * 512;
	uint64_t drops;
	int k, r;

	b->t->ops->get_stats(b->t, &st0);
	while (sent < flood) {
		for (k = 0; k < 32; k++) {
			m[k].buf = buf[k];
			m[k].len = fill_msg(buf[k], 0, sent + k, 16);
			m[k].addr = b->self;
		}
		r = a->t->ops->send(a->t, m, 32);
		if (r <= 0)
			break;
		sent += (uint32_t)r;
		usleep(2000);	/* let the veth NAPI keep up */
	}
	usleep(100000);
	do {
		r = b->t->ops->recv(b->t, m, 64, 100);
		if (r > 0)
			drained += (uint32_t)r;
	} while (r > 0);
	b->t->ops->get_stats(b->t, &st1);
	drops = (st1.rx_dropped - st0.rx_dropped) +
		(st1.rx_ring_full - st0.rx_ring_full);
	printf("# flood %u: drained %u, rx_dropped %llu, rx_ring_full %llu, fill_ring_empty %llu\n",
	       sent, drained,
	       (unsigned long long)(st1.rx_dropped - st0.rx_dropped),
	       (unsigned long long)(st1.rx_ring_full - st0.rx_ring_full),
	       (unsigned long long)(st1.rx_fill_ring_empty -
				    st0.rx_fill_ring_empty));
	ktap_result(sent == flood && drained < flood && drained + drops == sent,
	     "xdp_statistics_account_for_every_frame");
	ktap_result(st1.rx_fill_ring_empty > st0.rx_fill_ring_empty ||
	     st1.rx_ring_full > st0.rx_ring_full,
	     "xdp_statistics_ring_counters_exposed");
}

/*
 * One transport on a multi-queue device receives COUNT messages sent by
 * kernel UDP sockets (rina_udp.py spread) that the device hashes over
 * its queues: only an XSK on every queue gets them all.
 */
static int rx_main(int argc, char **argv)
{
	struct side b = { .name = "B" };
	uint32_t count, got = 0, bad = 0;
	struct rina_msg m[64];
	char err[256];
	double end;
	int r, i;

	if (argc < 5)
		return 2;
	count = (uint32_t)atoi(argv[4]);
	b.self.ip = inet_addr(argv[3]);
	b.self.port = htons(PORT);
	/* Test 3 (traffic really spread over queues) is the script's. */
	ktap_plan(3);
	r = create(argv[2], &b, MAX_MSG, NULL, err, sizeof(err));
	ktap_result(!r, "create_multiqueue");
	if (r) {
		printf("# %s\n", err);
		return 1;
	}
	printf("ready\n");
	end = now_s() + 10;
	while (got + bad < count && now_s() < end) {
		r = b.t->ops->recv(b.t, m, 64, 100);
		for (i = 0; i < r; i++) {
			const struct rina_hdr *h = m[i].buf;
			const int32_t *p = (const int32_t *)(h + 1);
			int32_t seq = (int32_t)ntohl(h->seq);

			if (m[i].len == RINA_HDR_LEN + 16 &&
			    (int32_t)ntohl(p[0]) == seq &&
			    (int32_t)ntohl(p[1]) == -seq &&
			    ntohl(p[2]) == 7 && ntohl(p[3]) == 8)
				got++;
			else
				bad++;
		}
	}
	printf("# received %u of %u (%u wrong)\n", got, count, bad);
	ktap_result(got == count && !bad, "every_queue_delivers");
	b.t->ops->destroy(b.t);
	/* no totals: the script adds test 3 after this output */
	return ktap_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 1, 16, 64, 256, MAX_E };
	struct side a = { .name = "A" }, b = { .name = "B" }, z = { 0 };
	uint32_t per = argc > 5 ? (uint32_t)atoi(argv[5]) : 1000;
	struct rina_transport_stats sa, sb;
	uint64_t total = 0, bytes = 0, red0, red1;
	char err[256];
	unsigned int i;
	double t0, dt;
	int ret, ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "rx"))
		return rx_main(argc, argv);
	if (argc < 5) {
		fprintf(stderr, "usage: %s NS_A IP_A NS_B IP_B [N]\n", argv[0]);
		return 2;
	}
	ktap_plan(13);
	a.self.ip = inet_addr(argv[2]);
	a.self.port = htons(PORT);
	b.self.ip = inet_addr(argv[4]);
	b.self.port = htons(PORT);

	/* Errors at create time, not silent drops later. */
	z.self = a.self;
	ret = create(argv[1], &z, MAX_MSG + 100, NULL, err, sizeof(err));
	printf("# oversize: %s\n", err);
	ktap_result(ret == -EMSGSIZE, "create_rejects_messages_over_mtu");
	if (!ret)
		z.t->ops->destroy(z.t);
	ret = create(argv[1], &z, MAX_MSG, "lo", err, sizeof(err));
	printf("# no program: %s\n", err);
	ktap_result(ret == -ENOENT, "create_needs_attached_program");
	if (!ret)
		z.t->ops->destroy(z.t);

	ret = create(argv[1], &a, MAX_MSG, NULL, err, sizeof(err));
	if (!ret)
		ret = create(argv[3], &b, MAX_MSG, NULL, err, sizeof(err));
	ktap_result(!ret, "create_both_ends");
	if (ret) {
		printf("# create: %s (%s)\n", err, strerror(-ret));
		return ktap_finish();
	}
	if (rina_xdp_transport_zerocopy(a.t))
		ktap_result(1, "zerocopy");
	else
		ktap_skip_reason("zerocopy",
				 "driver has no AF_XDP zero-copy (veth: EOPNOTSUPP), copy mode used");

	red0 = redirect_count(argv[3], "vb");
	t0 = now_s();
	ok = 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && ok; i++) {
		ok = !exchange(&a, &b, per, sizes[i], 128);
		total += a.got + b.got;
		bytes += a.bytes + b.bytes;
		a.bytes = b.bytes = 0;
	}
	dt = now_s() - t0;
	ktap_result(ok, "exchange_%u_msgs_5_sizes_both_ways_every_byte", per * 10);
	printf("# AF_XDP copy mode, one thread driving both ends: %.0f msgs/s, %.1f MB/s of Rina payload\n",
	       total / dt, bytes / dt / 1e6);

	a.t->ops->get_stats(a.t, &sa);
	b.t->ops->get_stats(b.t, &sb);
	ktap_result(sa.tx_packets == per * 5 && sb.tx_packets == per * 5,
	     "stats_tx_packets");
	ktap_result(sa.rx_packets == per * 5 && sb.rx_packets == per * 5,
	     "stats_rx_packets");
	ktap_result(sa.rx_dropped + sa.rx_ring_full + sb.rx_dropped +
	     sb.rx_ring_full == 0 && sa.rx_invalid_descs + sa.tx_invalid_descs +
	     sb.rx_invalid_descs + sb.tx_invalid_descs == 0,
	     "stats_no_drops_under_window");
	red1 = redirect_count(argv[3], "vb");
	printf("# B's rina_xdp redirect_xsk moved by %llu\n",
	       (unsigned long long)(red1 - red0));
	ktap_result(red1 - red0 == (uint64_t)per * 5, "xdp_prog_redirected_every_message");

	{
		uint8_t big[MAX_MSG + 4];
		struct rina_msg m = { .buf = big, .len = MAX_MSG + 4,
				      .addr = b.self };

		memset(big, 0, sizeof(big));
		ret = a.t->ops->send(a.t, &m, 1);
		ktap_result(ret == -EMSGSIZE, "send_rejects_message_over_max");
	}

	test_overflow(&a, &b);

	ret = exchange(&a, &b, 200, 64, 64);
	ktap_result(!ret, "exchange_after_overflow");

	a.t->ops->destroy(a.t);
	b.t->ops->destroy(b.t);
	return ktap_finish();
}
