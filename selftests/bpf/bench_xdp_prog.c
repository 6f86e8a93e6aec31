// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Per-packet cost of the Rina XDP program against a bare XDP_DROP
 * program, both through BPF_PROG_RUN with the same repeat count in one
 * run. Prints the figures as KTAP diagnostics; they are not asserted.
 * Usage: bench_xdp_prog [REPEAT]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/filter.h>

#include "pkt.h"
#include "rina_xdp.h"
#include "rina_xdp.skel.h"
#include "../ktap.h"

static int quiet(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	(void)lvl;
	(void)fmt;
	(void)ap;
	return 0;
}

static int bare_drop_prog(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_DROP },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "bare_drop", "GPL", insns,
			     2, NULL);
}

/*
 * Average ns per run as the kernel measures it (time spent preempted by
 * other tasks excluded, 1 ns resolution); keeps the best round in *best.
 */
static int cost(int fd, struct pkt *p, int repeat, __u32 *verdict,
		double *best)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf,
		    .data_size_in = p->len, .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -1;
	*verdict = o.retval;
	if (o.duration < *best)
		*best = o.duration;
	return 0;
}

int main(int argc, char **argv)
{
	int repeat = argc > 1 ? atoi(argv[1]) : 1000000;
	struct rina_xdp *skel;
	double bare = 1e18, rina = 1e18, bad = 1e18;
	__u32 v1 = 0, v2 = 0, v3 = 0;
	static struct pkt p, bad_p;
	int fd, rfd, i, err = 0;

	libbpf_set_print(quiet);
	ktap_plan(1);
	skel = rina_xdp__open_and_load();
	fd = bare_drop_prog();
	if (!skel || fd < 0) {
		ktap_result(0, "bench_xdp_prog # load failed: %s",
			    strerror(errno));
		return ktap_finish();
	}
	rfd = bpf_program__fd(skel->progs.rina_xdp);
	/* Interleave the three so that machine noise hits all alike. */
	pkt_build(&p, RINA_UDP_PORT_WORKER, RINA_OP_SR_CONTRIB, 256, 1);
	pkt_build(&bad_p, RINA_UDP_PORT_WORKER, RINA_OP_SR_CONTRIB, 256, 1);
	pkt_rina(&bad_p)->ver_op = 0x21;
	for (i = 0; i < 7 && !err; i++) {
		err |= cost(fd, &p, repeat, &v1, &bare);
		err |= cost(rfd, &p, repeat, &v2, &rina);
		err |= cost(rfd, &bad_p, repeat, &v3, &bad);
	}
	printf("# repeat %d, E=256 contribution frame (%u bytes)\n", repeat,
	       p.len);
	printf("# bare XDP_DROP:                  %5.1f ns/pkt\n", bare);
	printf("# rina_xdp valid (verdict %u):     %5.1f ns/pkt (%.2fx)\n", v2,
	       rina, rina / bare);
	printf("# rina_xdp malformed (verdict %u):     %5.1f ns/pkt (%.2fx)\n",
	       v3, bad, bad / bare);
	ktap_result(!err && v1 == XDP_DROP && v2 == XDP_PASS &&
		    v3 == XDP_DROP, "bench_xdp_prog");
	rina_xdp__destroy(skel);
	return ktap_finish();
}
