// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina transports head to head between two namespaces (set up by
 * bench_transport.sh): round-trip time of one message, and one-way
 * message rate with a sender and a receiver thread. Figures are printed
 * as KTAP diagnostics, not asserted.
 * Usage: bench_transport udp|xdp NS_A IP_A NS_B IP_B [N]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/rina.h>

#include "transport.h"
#include "../ktap.h"

#define E	320	/* rina-run's E at MTU 1500 */
#define LEN	(RINA_HDR_LEN + E * 4)

static const char *tp;
static uint32_t n_msgs;

/* A valid Rina contribution of E words (the XDP program checks it). */
static void fill(uint8_t *buf)
{
	struct rina_hdr *h = (struct rina_hdr *)buf;

	memset(buf, 0, LEN);
	h->ver_op = (RINA_VERSION << 4) | RINA_OP_SR_CONTRIB;
	h->job_id = htons(1);
	h->n_elem = htons(E);
	h->p_chunk = htons(1);
	h->exp = RINA_EXP_NONE;
	h->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int create(const char *ns, const char *ip,
		  struct rina_transport **t)
{
	struct rina_transport_cfg cfg = {
		.max_msg_len = LEN,
		.window = 256,
		.rcvbuf = 8 << 20,
	};
	char path[256], err[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		return -errno;
	close(fd);
	cfg.local.ip = inet_addr(ip);
	cfg.local.port = htons(RINA_UDP_PORT_WORKER);
	ret = !strcmp(tp, "xdp") ?
	      rina_xdp_transport_create(&cfg, t, err, sizeof(err)) :
	      rina_udp_transport_create(&cfg, t, err, sizeof(err));
	if (ret)
		printf("# %s: %s\n", tp, err);
	return ret;
}

struct flow {
	struct rina_transport	*t;
	struct rina_addr	to;
	uint32_t		got;
	double			t0, t1;
};

static void *sender(void *arg)
{
	static uint8_t buf[32][LEN];
	struct flow *f = arg;
	struct rina_msg m[32];
	uint32_t sent = 0;
	int k, r;

	for (k = 0; k < 32; k++) {
		fill(buf[k]);
		m[k].buf = buf[k];
		m[k].len = LEN;
		m[k].addr = f->to;
	}
	while (sent < n_msgs) {
		r = f->t->ops->send(f->t, m, 32);
		if (r < 0)
			break;
		sent += (uint32_t)r;
	}
	return NULL;
}

static void *receiver(void *arg)
{
	struct flow *f = arg;
	struct rina_msg m[64];
	int r;

	for (;;) {
		r = f->t->ops->recv(f->t, m, 64, f->got ? 200 : 2000);
		if (r <= 0)
			break;
		if (!f->got)
			f->t0 = now_us();
		f->got += (uint32_t)r;
		f->t1 = now_us();
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct rina_transport *a, *b;
	struct rina_addr to_a = { 0 }, to_b = { 0 };
	static uint8_t buf[LEN];
	static double rtt[2000];
	struct rina_msg m[64], out;
	struct flow fs, fr;
	pthread_t ts, tr;
	int i, r, ok = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 6)
		return 2;
	tp = argv[1];
	n_msgs = argc > 6 ? (uint32_t)atoi(argv[6]) : 200000;
	ktap_plan(1);
	if (create(argv[2], argv[3], &a) || create(argv[4], argv[5], &b)) {
		ktap_result(0, "bench_transport_%s", tp);
		return ktap_finish();
	}
	to_a.ip = inet_addr(argv[3]);
	to_a.port = htons(RINA_UDP_PORT_WORKER);
	to_b.ip = inet_addr(argv[5]);
	to_b.port = htons(RINA_UDP_PORT_WORKER);

	/* Round trips: A -> B -> A, one message in flight. */
	fill(buf);
	for (i = 0; i < 2000 && ok; i++) {
		double t = now_us();

		out = (struct rina_msg){ .buf = buf, .len = LEN, .addr = to_b };
		ok = a->ops->send(a, &out, 1) == 1 &&
		     b->ops->recv(b, m, 1, 1000) == 1;
		out.addr = to_a;
		ok = ok && b->ops->send(b, &out, 1) == 1 &&
		     a->ops->recv(a, m, 1, 1000) == 1;
		rtt[i] = now_us() - t;
	}
	if (ok) {
		qsort(rtt, 2000, sizeof(rtt[0]), cmp);
		printf("# %s: round trip of a %u-byte message: median %.1f us, p99 %.1f us\n",
		       tp, LEN, rtt[1000], rtt[1980]);
	}

	/* One way, a sender and a receiver thread, no flow control. */
	fs = (struct flow){ .t = a, .to = to_b };
	fr = (struct flow){ .t = b };
	pthread_create(&tr, NULL, receiver, &fr);
	usleep(100000);
	pthread_create(&ts, NULL, sender, &fs);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	if (fr.got > 1 && fr.t1 > fr.t0)
		printf("# %s: one way, %u-byte messages: %u of %u received, %.0f msgs/s, %.1f MB/s\n",
		       tp, LEN, fr.got, n_msgs,
		       fr.got / (fr.t1 - fr.t0) * 1e6,
		       fr.got * (double)LEN / (fr.t1 - fr.t0));
	r = ok && fr.got > 0;
	ktap_result(r, "bench_transport_%s", tp);
	a->ops->destroy(a);
	b->ops->destroy(b);
	return ktap_finish();
}
