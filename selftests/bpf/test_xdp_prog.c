// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * BPF_PROG_RUN unit tests of the Rina host XDP program: crafted frames
 * through every verdict path, each drop counter, runts at every header
 * boundary, the job filter and the loss knob. No network needed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_packet.h>
#include <linux/ipv6.h>

#define rina_ntohs(x) ntohs(x)
#define rina_ntohl(x) ntohl(x)
#include "pkt.h"
#include "rina_xdp.h"
#include "rina_xdp.skel.h"
#include "wire.h"
#include "../ktap.h"

#define W RINA_UDP_PORT_WORKER
#define A RINA_UDP_PORT_AGENT
#define PARSE(e) (RINA_XDP_DROP_PARSE + (e))

static int ncpus;

static int read_counters(struct rina_xdp *skel, __u64 *out)
{
	int fd = bpf_map__fd(skel->maps.rina_stats);
	__u64 vals[ncpus];
	__u32 i;
	int c;

	for (i = 0; i < RINA_XDP_NR_COUNTERS; i++) {
		if (bpf_map_lookup_elem(fd, &i, vals))
			return -errno;
		out[i] = 0;
		for (c = 0; c < ncpus; c++)
			out[i] += vals[c];
	}
	return 0;
}

/* Run p once; check the verdict, that only counter ctr moved (by 1). */
static void run(struct rina_xdp *skel, const char *name, struct pkt *p,
		int want, int ctr)
{
	__u64 before[RINA_XDP_NR_COUNTERS], after[RINA_XDP_NR_COUNTERS];
	static __u8 out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf,
		    .data_size_in = p->len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);
	int err, i, ok = 1;

	if (read_counters(skel, before)) {
		ktap_result(0, "%s # cannot read counters", name);
		return;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.rina_xdp),
				     &o);
	if (err) {
		printf("# %s: prog_test_run: %d\n", name, err);
		ktap_result(0, "%s", name);
		return;
	}
	read_counters(skel, after);
	if ((int)o.retval != want) {
		printf("# %s: verdict %u, want %d\n", name, o.retval, want);
		ok = 0;
	}
	for (i = 0; i < RINA_XDP_NR_COUNTERS; i++) {
		__u64 d = after[i] - before[i];

		if (d != (__u64)(i == ctr)) {
			printf("# %s: counter %d moved by %llu\n", name, i,
			       (unsigned long long)d);
			ok = 0;
		}
	}
	if (o.data_size_out != p->len || memcmp(out, p->buf, p->len)) {
		printf("# %s: packet was modified\n", name);
		ok = 0;
	}
	ktap_result(ok, "%s", name);
}

static struct rina_xdp *load(__u32 drop_ppm, __u8 filter_jobs)
{
	struct rina_xdp *skel = rina_xdp__open();

	if (!skel)
		return NULL;
	skel->rodata->drop_ppm = drop_ppm;
	skel->rodata->filter_jobs = filter_jobs;
	if (rina_xdp__load(skel)) {
		rina_xdp__destroy(skel);
		return NULL;
	}
	return skel;
}

static void test_valid(struct rina_xdp *s)
{
	struct pkt p;
	unsigned int port;

	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 64, 1);
	run(s, "contrib_worker_no_xsk_pass", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	pkt_build(&p, W, RINA_OP_SR_PARTIAL, 256, 1);
	run(s, "partial_e256", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	/* Largest E that fits the linear data of a test-run frame. */
	pkt_build(&p, W, RINA_OP_AG_DATA, 768, 1);
	run(s, "ag_data_e768", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	pkt_build(&p, W, RINA_OP_ACK, 3, 1);
	run(s, "ack", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	pkt_build(&p, W, RINA_OP_NACK, 1, 1);
	run(s, "nack", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	pkt_build(&p, W, RINA_OP_CTRL, RINA_CTRL_WORDS, 1);
	run(s, "ctrl", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
	for (port = RINA_UDP_PORT_MIN + 1; port < RINA_UDP_PORT_AGENT_MIN;
	     port += 3) {
		pkt_build(&p, port, RINA_OP_SR_CONTRIB, 4, 1);
		run(s, "worker_port_range", &p, XDP_PASS,
		    RINA_XDP_PASS_NO_XSK);
	}
	/* every agent port (a rack's agent_port) goes up the stack */
	for (port = RINA_UDP_PORT_AGENT_MIN; port < RINA_UDP_PORT_AGENT;
	     port += 3) {
		pkt_build(&p, port, RINA_OP_SR_CONTRIB, 4, 1);
		run(s, "agent_port_range", &p, XDP_PASS, RINA_XDP_PASS_AGENT);
	}
	pkt_build(&p, A, RINA_OP_CTRL, RINA_CTRL_WORDS, 1);
	run(s, "agent_port_pass", &p, XDP_PASS, RINA_XDP_PASS_AGENT);
	pkt_build(&p, A, RINA_OP_SR_CONTRIB, 16, 9);
	run(s, "agent_port_data_pass", &p, XDP_PASS, RINA_XDP_PASS_AGENT);
	/* Ethernet padding after the IP datagram is not an error. */
	pkt_build(&p, W, RINA_OP_ACK, 1, 1);
	p.len += 10;
	run(s, "trailing_padding_ok", &p, XDP_PASS, RINA_XDP_PASS_NO_XSK);
}

static void test_not_rina(struct rina_xdp *s)
{
	struct ipv6hdr *ip6;
	struct pkt p;

	pkt_build(&p, 53, RINA_OP_SR_CONTRIB, 4, 1);
	run(s, "udp_dns_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
	pkt_build(&p, RINA_UDP_PORT_MIN - 1, RINA_OP_SR_CONTRIB, 4, 1);
	run(s, "udp_below_range_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
	pkt_build(&p, RINA_UDP_PORT_MAX + 1, RINA_OP_SR_CONTRIB, 4, 1);
	run(s, "udp_above_range_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
	/* Garbage payload on a non-Rina port is not Rina's business. */
	pkt_build(&p, 4789, 0, 4, 1);
	pkt_rina(&p)->ver_op = 0xff;
	run(s, "udp_garbage_other_port_pass", &p, XDP_PASS,
	    RINA_XDP_PASS_OTHER);

	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_ip(&p)->protocol = IPPROTO_TCP;
	pkt_fix_csum(&p);
	run(s, "tcp_rina_port_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
	pkt_ip(&p)->protocol = IPPROTO_ICMP;
	pkt_fix_csum(&p);
	run(s, "icmp_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);

	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_eth(&p)->h_proto = htons(ETH_P_ARP);
	p.len = 42;
	run(s, "arp_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);

	/* VLAN-tagged Rina frame: 802.1Q tag before the IPv4 header. */
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	memmove(p.buf + 18, p.buf + 14, p.len - 14);
	pkt_eth(&p)->h_proto = htons(ETH_P_8021Q);
	p.buf[14] = 0;
	p.buf[15] = 10;
	p.buf[16] = 0x08;
	p.buf[17] = 0x00;
	p.len += 4;
	run(s, "vlan_rina_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);

	/* IPv6 + UDP to the worker port: Rina is IPv4 only. */
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	memmove(p.buf + 14 + 40, p.buf + 34, p.len - 34);
	pkt_eth(&p)->h_proto = htons(ETH_P_IPV6);
	ip6 = (struct ipv6hdr *)(p.buf + 14);
	memset(ip6, 0, sizeof(*ip6));
	ip6->version = 6;
	ip6->payload_len = htons(p.len - 34);
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = 64;
	p.len += 20;
	run(s, "ipv6_rina_port_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);

	/* IPv4 options / later fragments on a non-Rina port pass. */
	pkt_build(&p, 53, RINA_OP_SR_CONTRIB, 4, 1);
	memmove(p.buf + 38, p.buf + 34, p.len - 34);
	memset(p.buf + 34, 1, 4);	/* four NOPs */
	pkt_ip(&p)->ihl = 6;
	pkt_ip(&p)->tot_len = htons(ntohs(pkt_ip(&p)->tot_len) + 4);
	p.len += 4;
	pkt_fix_csum(&p);
	run(s, "ip_options_other_port_pass", &p, XDP_PASS,
	    RINA_XDP_PASS_OTHER);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_ip(&p)->frag_off = htons(185);	/* offset 1480, no MF */
	pkt_fix_csum(&p);
	run(s, "later_fragment_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
	pkt_ip(&p)->version = 5;
	pkt_ip(&p)->frag_off = 0;
	run(s, "ip_version_5_pass", &p, XDP_PASS, RINA_XDP_PASS_OTHER);
}

static void test_runts(struct rina_xdp *s)
{
	static const struct {
		unsigned int len;
		int verdict, ctr;
		const char *name;
	} cut[] = {
		{ 14, XDP_PASS, RINA_XDP_PASS_OTHER, "runt_eth_only" },
		{ 14 + 19, XDP_PASS, RINA_XDP_PASS_OTHER, "runt_in_ip" },
		{ 34, XDP_PASS, RINA_XDP_PASS_OTHER, "runt_ip_only" },
		{ 34 + 7, XDP_PASS, RINA_XDP_PASS_OTHER, "runt_in_udp" },
		{ 42, XDP_DROP, PARSE(RINA_PARSE_RUNT), "runt_udp_only" },
		{ 42 + 1, XDP_DROP, PARSE(RINA_PARSE_RUNT), "runt_rina_1" },
		{ 42 + 27, XDP_DROP, PARSE(RINA_PARSE_RUNT), "runt_rina_27" },
		{ 42 + 28, XDP_DROP, RINA_XDP_DROP_UDP_LEN,
		  "runt_payload_cut" },
		{ 42 + 28 + 15, XDP_DROP, RINA_XDP_DROP_UDP_LEN,
		  "runt_payload_cut_mid_word" },
	};
	struct pkt p;
	unsigned int i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
		p.len = cut[i].len;
		run(s, cut[i].name, &p, cut[i].verdict, cut[i].ctr);
	}
	/* Lengths agree, padding follows, but Rina header is too short. */
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_udp(&p)->len = htons(8 + 20);
	pkt_ip(&p)->tot_len = htons(20 + 8 + 20);
	pkt_fix_csum(&p);
	run(s, "runt_rina_hdr_by_udp_len", &p, XDP_DROP,
	    PARSE(RINA_PARSE_RUNT));
}

static void test_malformed(struct rina_xdp *s)
{
	struct rina_hdr *rh;
	struct pkt p;
	unsigned int v;

	for (v = 0; v < 16; v += 15) {
		pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
		pkt_rina(&p)->ver_op = (v << 4) | RINA_OP_SR_CONTRIB;
		run(s, v ? "bad_version_15" : "bad_version_0", &p, XDP_DROP,
		    PARSE(RINA_PARSE_BAD_VERSION));
	}
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_rina(&p)->ver_op = ((RINA_VERSION + 1) << 4) | 1;
	run(s, "bad_version_next", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_VERSION));
	pkt_build(&p, A, RINA_OP_CTRL, RINA_CTRL_WORDS, 1);
	pkt_rina(&p)->ver_op = 0x20 | RINA_OP_CTRL;
	run(s, "bad_version_agent_port", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_VERSION));
	pkt_build(&p, W, 0, 4, 1);
	run(s, "bad_opcode_0", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_OPCODE));
	pkt_build(&p, W, RINA_OP_MAX + 1, 4, 1);
	run(s, "bad_opcode_max_plus_1", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_OPCODE));

	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_rina(&p)->n_elem = htons(5);
	run(s, "n_elem_above_payload", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_LENGTH));
	pkt_rina(&p)->n_elem = htons(3);
	run(s, "n_elem_below_payload", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_LENGTH));
	pkt_rina(&p)->n_elem = htons(0xffff);
	run(s, "n_elem_65535", &p, XDP_DROP, PARSE(RINA_PARSE_OVERSIZE));
	pkt_rina(&p)->n_elem = htons(RINA_MAX_ELEMS + 1);
	run(s, "n_elem_oversize", &p, XDP_DROP, PARSE(RINA_PARSE_OVERSIZE));

	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 0, 1);
	run(s, "data_n_elem_0", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_LENGTH));
	pkt_build(&p, W, RINA_OP_ACK, 0, 1);
	run(s, "ack_n_elem_0", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_LENGTH));
	pkt_build(&p, W, RINA_OP_CTRL, 3, 1);
	run(s, "ctrl_wrong_size", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_LENGTH));

	pkt_build(&p, W, RINA_OP_SR_PARTIAL, 4, 1);
	rh = pkt_rina(&p);
	rh->dtype_op = RINA_DTYPE_OP(2, RINA_WIRE_SUM);
	run(s, "bad_dtype", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_DTYPE));
	rh->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, 7);
	run(s, "bad_reduce_op", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_DTYPE));
	rh->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
	rh->rsvd = htons(1);
	run(s, "rsvd_set", &p, XDP_DROP, PARSE(RINA_PARSE_BAD_FIELD));

	/* IPv4 options and first fragments on a Rina port. */
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	memmove(p.buf + 38, p.buf + 34, p.len - 34);
	memset(p.buf + 34, 1, 4);
	pkt_ip(&p)->ihl = 6;
	pkt_ip(&p)->tot_len = htons(ntohs(pkt_ip(&p)->tot_len) + 4);
	p.len += 4;
	pkt_fix_csum(&p);
	run(s, "ip_options_rina_drop", &p, XDP_DROP,
	    RINA_XDP_DROP_IP_OPTIONS);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_ip(&p)->frag_off = htons(0x2000);
	pkt_fix_csum(&p);
	run(s, "first_fragment_rina_drop", &p, XDP_DROP,
	    RINA_XDP_DROP_FRAGMENT);

	/* UDP / IP length fields against each other and the frame. */
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_udp(&p)->len = htons(7);
	run(s, "udp_len_below_8", &p, XDP_DROP, RINA_XDP_DROP_UDP_LEN);
	pkt_udp(&p)->len = htons(8 + 28 + 20);
	run(s, "udp_len_beyond_frame", &p, XDP_DROP, RINA_XDP_DROP_UDP_LEN);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_ip(&p)->tot_len = htons(20 + 8 + 28 + 16 - 4);
	pkt_fix_csum(&p);
	run(s, "ip_len_disagrees_udp_len", &p, XDP_DROP,
	    RINA_XDP_DROP_UDP_LEN);
}

static void test_jobs(void)
{
	struct rina_xdp *s = load(0, 1);
	__u16 job = 7;
	__u8 one = 1;
	struct pkt p;

	if (!s) {
		ktap_result(0, "job_filter_load");
		return;
	}
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 7);
	run(s, "job_filter_empty_map_drops", &p, XDP_DROP,
	    PARSE(RINA_PARSE_UNKNOWN_JOB));
	if (bpf_map_update_elem(bpf_map__fd(s->maps.rina_jobs), &job, &one,
				BPF_ANY))
		ktap_result(0, "job_filter_add");
	run(s, "job_filter_known_job_pass", &p, XDP_PASS,
	    RINA_XDP_PASS_NO_XSK);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 8);
	run(s, "job_filter_unknown_job_drop", &p, XDP_DROP,
	    PARSE(RINA_PARSE_UNKNOWN_JOB));
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 7 << 8);
	run(s, "job_filter_byte_order", &p, XDP_DROP,
	    PARSE(RINA_PARSE_UNKNOWN_JOB));
	pkt_build(&p, A, RINA_OP_CTRL, RINA_CTRL_WORDS, 8);
	run(s, "job_filter_not_on_agent_port", &p, XDP_PASS,
	    RINA_XDP_PASS_AGENT);
	rina_xdp__destroy(s);
}

/* Run a valid frame n times in one BPF_PROG_RUN; return fault drops. */
static long fault_drops(struct rina_xdp *s, struct pkt *p, int n)
{
	__u64 b[RINA_XDP_NR_COUNTERS], a[RINA_XDP_NR_COUNTERS];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf,
		    .data_size_in = p->len, .repeat = n);

	if (read_counters(s, b) ||
	    bpf_prog_test_run_opts(bpf_program__fd(s->progs.rina_xdp), &o) ||
	    read_counters(s, a))
		return -1;
	if (a[RINA_XDP_DROP_FAULT] - b[RINA_XDP_DROP_FAULT] +
	    a[RINA_XDP_PASS_NO_XSK] - b[RINA_XDP_PASS_NO_XSK] !=
	    (__u64)n)
		return -1;
	return (long)(a[RINA_XDP_DROP_FAULT] - b[RINA_XDP_DROP_FAULT]);
}

static void test_faults(void)
{
	struct rina_xdp *s = load(1000000, 0);
	struct pkt p;
	long d;

	if (!s) {
		ktap_result(0, "fault_load");
		return;
	}
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	run(s, "fault_drop_all_worker", &p, XDP_DROP, RINA_XDP_DROP_FAULT);
	pkt_build(&p, A, RINA_OP_CTRL, RINA_CTRL_WORDS, 1);
	run(s, "fault_drop_all_agent", &p, XDP_DROP, RINA_XDP_DROP_FAULT);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	pkt_rina(&p)->ver_op = 0x21;
	run(s, "fault_malformed_counted_by_reason", &p, XDP_DROP,
	    PARSE(RINA_PARSE_BAD_VERSION));
	pkt_build(&p, 53, RINA_OP_SR_CONTRIB, 4, 1);
	run(s, "fault_spares_other_traffic", &p, XDP_PASS,
	    RINA_XDP_PASS_OTHER);
	rina_xdp__destroy(s);

	/* 10% and 1% loss over 20000 frames: binomial, +-5 sigma. */
	s = load(100000, 0);
	pkt_build(&p, W, RINA_OP_SR_CONTRIB, 4, 1);
	d = s ? fault_drops(s, &p, 20000) : -1;
	printf("# drop_ppm=100000: %ld of 20000 dropped\n", d);
	ktap_result(d >= 2000 - 212 && d <= 2000 + 212, "fault_drop_10_percent");
	rina_xdp__destroy(s);
	s = load(10000, 0);
	d = s ? fault_drops(s, &p, 20000) : -1;
	printf("# drop_ppm=10000: %ld of 20000 dropped\n", d);
	ktap_result(d >= 200 - 71 && d <= 200 + 71, "fault_drop_1_percent");
	rina_xdp__destroy(s);
}

/* libbpf warnings as KTAP diagnostics; the unknown-section note is noise. */
static int libbpf_log(enum libbpf_print_level lvl, const char *fmt,
		      va_list ap)
{
	char *msg = NULL, *line, *save;

	if (lvl == LIBBPF_DEBUG || vasprintf(&msg, fmt, ap) < 0)
		return 0;
	if (!strstr(msg, ".xdp_run_config"))
		for (line = strtok_r(msg, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			printf("# libbpf: %s\n", line);
	free(msg);
	return 0;
}

int main(void)
{
	struct rina_xdp *s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_start();
	libbpf_set_print(libbpf_log);
	ncpus = libbpf_num_possible_cpus();
	s = load(0, 0);
	if (!s)
		return ktap_skip_all("cannot load rina_xdp: %s", strerror(errno));
	test_valid(s);
	test_not_rina(s);
	test_runts(s);
	test_malformed(s);
	rina_xdp__destroy(s);
	test_jobs();
	test_faults();
	return ktap_finish();
}
