// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * BPF_PROG_RUN unit tests of the emulated bottleneck's ECN marker
 * (bpf/rina_ecn_mark.bpf.c): below the threshold nothing changes; above
 * it ECN-capable IPv4 packets get CE with a valid header checksum, and
 * others are left alone and counted; the phantom queue never holds more
 * than the real queue's limit and drains at the link's rate. No network.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pkt.h"
#include "rina_ecn_mark.h"
#include "rina_ecn_mark.skel.h"
#include "../ktap.h"

/* RFC 3168 codepoints (<netinet/ip.h>'s clash with pkt.h's linux/ip.h) */
#define IPTOS_ECN_NOT_ECT	0
#define IPTOS_ECN_ECT0		2
#define IPTOS_ECN_CE		3

#define FRAME_WORDS	240	/* a 1030-byte frame */
#define MARK		3000
#define LIMIT		8000

static int ncpus;

static struct rina_ecn_mark *load(__u64 rate_bytes_per_s)
{
	struct rina_ecn_mark *s = rina_ecn_mark__open();

	if (!s)
		return NULL;
	s->rodata->rate_bytes_per_s = rate_bytes_per_s;
	s->rodata->mark_bytes = MARK;
	s->rodata->limit_bytes = LIMIT;
	if (rina_ecn_mark__load(s)) {
		rina_ecn_mark__destroy(s);
		return NULL;
	}
	return s;
}

static __u64 counter(struct rina_ecn_mark *s, __u32 what)
{
	__u64 vals[ncpus], sum = 0;
	int c;

	if (bpf_map_lookup_elem(bpf_map__fd(s->maps.ecn_stats), &what, vals))
		return ~0ULL;
	for (c = 0; c < ncpus; c++)
		sum += vals[c];
	return sum;
}

static __u64 backlog(struct rina_ecn_mark *s)
{
	struct rina_ecn_pq q;
	__u32 k = 0;

	if (bpf_map_lookup_elem_flags(bpf_map__fd(s->maps.pq), &k, &q,
				      BPF_F_LOCK))
		return ~0ULL;
	return q.backlog;
}

/* Run frame p through the program n times in the kernel; output in out. */
static int run_n(struct rina_ecn_mark *s, const struct pkt *p,
		 struct pkt *out, int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf,
		    .data_size_in = p->len, .data_out = out->buf,
		    .data_size_out = sizeof(out->buf), .repeat = n);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.rina_ecn_mark),
				     &o);
	out->len = o.data_size_out;
	if (err)
		return err;
	return o.retval == 0 ? 0 : -EINVAL;	/* TC_ACT_OK */
}

static int run(struct rina_ecn_mark *s, const struct pkt *p, struct pkt *out)
{
	return run_n(s, p, out, 1);
}

static void frame(struct pkt *p, __u8 ecn)
{
	pkt_build(p, RINA_UDP_PORT_WORKER, RINA_OP_SR_PARTIAL, FRAME_WORDS, 7);
	pkt_ip(p)->tos = ecn;
	pkt_fix_csum(p);
}

/* out is in with CE set and the checksum fixed, nothing else changed */
static bool marked_copy(const struct pkt *in, struct pkt *out)
{
	struct pkt want = *in;

	pkt_ip(&want)->tos |= 3;
	pkt_fix_csum(&want);
	return out->len == in->len && !memcmp(out->buf, want.buf, in->len) &&
	       pkt_ip_csum(pkt_ip(out), 20) == 0;
}

static void test_threshold(void)
{
	struct rina_ecn_mark *s = load(1000);	/* 8 kbit/s: no drain */
	struct pkt ect, out;
	bool ok = true;
	int i;

	if (!s) {
		ktap_result(0, "ecn_mark: load # %s", strerror(errno));
		return;
	}
	frame(&ect, IPTOS_ECN_ECT0);
	/* 1030 and 2060 bytes queued: below 3000, left alone */
	for (i = 0; i < 2; i++)
		ok &= !run(s, &ect, &out) && out.len == ect.len &&
		      !memcmp(out.buf, ect.buf, ect.len);
	ktap_result(ok && !counter(s, RINA_ECN_MARKED) &&
		    counter(s, RINA_ECN_SEEN) == 2,
		    "ecn_mark: below the threshold packets pass unchanged");
	/* 3090 bytes: above it */
	ok = !run(s, &ect, &out) && marked_copy(&ect, &out);
	ktap_result(ok && counter(s, RINA_ECN_MARKED) == 1,
		    "ecn_mark: above it an ECT(0) packet gets CE, checksum valid");
	frame(&ect, 1);		/* ECT(1) */
	ok = !run(s, &ect, &out) && marked_copy(&ect, &out);
	ktap_result(ok && counter(s, RINA_ECN_MARKED) == 2,
		    "ecn_mark: and an ECT(1) packet");
	rina_ecn_mark__destroy(s);
}

static void test_left_alone(void)
{
	struct rina_ecn_mark *s = load(1000);
	struct pkt p, out;
	bool ok = true;
	int i;

	if (!s) {
		ktap_result(0, "ecn_mark: load # %s", strerror(errno));
		return;
	}
	frame(&p, IPTOS_ECN_NOT_ECT);
	for (i = 0; i < 4; i++)
		ok &= !run(s, &p, &out) && !memcmp(out.buf, p.buf, p.len);
	ktap_result(ok && counter(s, RINA_ECN_OVER_NOT_ECT) == 2 &&
		    !counter(s, RINA_ECN_MARKED),
		    "ecn_mark: a packet that is not ECN-capable is left alone and counted");
	frame(&p, IPTOS_ECN_CE);
	ok = !run(s, &p, &out) && !memcmp(out.buf, p.buf, p.len);
	ktap_result(ok && counter(s, RINA_ECN_ALREADY_CE) == 1,
		    "ecn_mark: a packet marked before stays as it is");
	frame(&p, IPTOS_ECN_ECT0);
	pkt_eth(&p)->h_proto = htons(ETH_P_ARP);
	ok = !run(s, &p, &out) && !memcmp(out.buf, p.buf, p.len);
	p.len = 20;	/* a runt: not even an IPv4 header */
	ok &= !run(s, &p, &out) && out.len == 20;
	ktap_result(ok && counter(s, RINA_ECN_OVER_NOT_IP) == 2 &&
		    !counter(s, RINA_ECN_MARKED) && !counter(s, RINA_ECN_ERROR),
		    "ecn_mark: non-IPv4 frames and runts are left alone and counted");
	rina_ecn_mark__destroy(s);
}

static void test_limit_and_drain(void)
{
	struct rina_ecn_mark *s = load(1000), *f = load(10000000);
	struct pkt p, out;
	bool ok = true;
	__u64 b;
	int i;

	if (!s || !f) {
		ktap_result(0, "ecn_mark: load # %s", strerror(errno));
		ktap_result(0, "ecn_mark: load");
		goto out;
	}
	frame(&p, IPTOS_ECN_ECT0);
	for (i = 0; i < 20; i++)
		ok &= !run(s, &p, &out);
	b = backlog(s);
	/* 7 frames fit in 8000 bytes; the tbf drops the other 13 */
	ktap_result(ok && b <= LIMIT && b > LIMIT - 2 * p.len,
		    "ecn_mark: the phantom queue holds no more than the real queue's limit (%llu of %u)",
		    (unsigned long long)b, LIMIT);
	/*
	 * At 10 MB/s six frames in one kernel loop (microseconds) queue
	 * about 6 KB; 20 ms drain 200 KB: the next packet finds it empty
	 */
	ok &= !run_n(f, &p, &out, 6) && backlog(f) > 2 * p.len;
	usleep(20000);
	ok &= !run(f, &p, &out) && !memcmp(out.buf, p.buf, p.len);
	ktap_result(ok && backlog(f) == p.len,
		    "ecn_mark: the queue drains at the link's rate (backlog %llu after 20 ms idle)",
		    (unsigned long long)backlog(f));
out:
	rina_ecn_mark__destroy(s);
	rina_ecn_mark__destroy(f);
}

int main(void)
{
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		ktap_plan(1);
		ktap_result(0, "ecn_mark: possible CPUs");
		return ktap_finish();
	}
	if (geteuid())
		return ktap_skip_all("ecn_mark: needs root (BPF_PROG_RUN)");
	libbpf_set_print(NULL);
	ktap_plan(8);
	test_threshold();
	test_left_alone();
	test_limit_and_drain();
	return ktap_finish();
}
