// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-ecn-mark: attach, show and detach the ECN marker of an emulated
 * bottleneck (bpf/rina_ecn_mark.bpf.c) on a device's tc egress hook.
 *
 *   rina-ecn-mark attach DEV rate RATE mark BYTES limit BYTES
 *   rina-ecn-mark show DEV [-j]
 *   rina-ecn-mark detach DEV
 *
 * RATE is the link's (tc syntax, as the tbf on DEV has it); the marker
 * keeps a phantom queue draining at it and sets CE on ECN-capable
 * packets while the queue holds more than mark bytes. The tc filter
 * holds the program after this tool exits; rina-run --ecn runs it in
 * every shaped link's namespace.
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rate_arg.h"
#include "rina_ecn_mark.h"
#include "rina_ecn_mark.skel.h"

static const char *const counter_names[] = RINA_ECN_COUNTER_NAMES;

static int usage(void)
{
	fprintf(stderr,
		"usage: rina-ecn-mark attach DEV rate RATE mark BYTES limit BYTES\n"
		"       rina-ecn-mark show DEV [-j]\n"
		"       rina-ecn-mark detach DEV\n");
	return 2;
}

/* bytes: a number with an optional k or m (powers of 1024) */
static int parse_bytes(const char *s, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v *= 1048576;
		end++;
	}
	if ((*end == 'b' || *end == 'B') && !end[1])
		end++;
	if (*end || !v || v > 1073741824UL)
		return -1;
	*out = v;
	return 0;
}

static void hook_init(struct bpf_tc_hook *hook, int ifindex)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = BPF_TC_EGRESS;
}

static void opts_init(struct bpf_tc_opts *o, int prog_fd, __u32 flags)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->handle = RINA_ECN_TC_HANDLE;
	o->priority = RINA_ECN_TC_PRIO;
	o->prog_fd = prog_fd;
	o->flags = flags;
}

static int do_attach(const char *dev, int ifindex, int argc, char **argv)
{
	unsigned long mark = 0, limit = 0;
	struct rina_ecn_mark *skel;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	double bps = 0;
	int i, err;

	for (i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "rate")) {
			if (bench_parse_rate(argv[i + 1], &bps) ||
			    bps < 8000 || bps > 1e11)
				goto bad;
		} else if (!strcmp(argv[i], "mark")) {
			if (parse_bytes(argv[i + 1], &mark))
				goto bad;
		} else if (!strcmp(argv[i], "limit")) {
			if (parse_bytes(argv[i + 1], &limit))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (i != argc || !bps || !mark || !limit) {
		fprintf(stderr, "rina-ecn-mark: attach needs rate, mark and limit\n");
		return usage();
	}
	if (mark >= limit) {
		fprintf(stderr,
			"rina-ecn-mark: mark %lu must be below the queue's limit %lu\n",
			mark, limit);
		return 2;
	}
	skel = rina_ecn_mark__open();
	if (!skel) {
		fprintf(stderr, "rina-ecn-mark: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->rate_bytes_per_s = (__u64)(bps / 8);
	skel->rodata->mark_bytes = (__u32)mark;
	skel->rodata->limit_bytes = (__u32)limit;
	err = rina_ecn_mark__load(skel);
	if (err) {
		fprintf(stderr, "rina-ecn-mark: load: %s\n", strerror(-err));
		goto out;
	}
	hook_init(&hook, ifindex);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		fprintf(stderr, "rina-ecn-mark: clsact on %s: %s\n", dev,
			strerror(-err));
		goto out;
	}
	opts_init(&opts, bpf_program__fd(skel->progs.rina_ecn_mark),
		  BPF_TC_F_REPLACE);
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		fprintf(stderr, "rina-ecn-mark: attach to %s: %s\n", dev,
			strerror(-err));
out:
	rina_ecn_mark__destroy(skel);
	return err ? 1 : 0;
bad:
	fprintf(stderr, "rina-ecn-mark: bad value for %s: '%s'\n", argv[i],
		argv[i + 1]);
	return usage();
}

/* The counters map of the program attached to dev's egress. */
static int stats_map_fd(int ifindex)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), ids[4], nr = 4, k;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int prog_fd, fd = -ENOENT;

	hook_init(&hook, ifindex);
	opts_init(&opts, 0, 0);
	if (bpf_tc_query(&hook, &opts))
		return -ENOENT;
	prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (prog_fd < 0)
		return -errno;
	info.nr_map_ids = nr;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		goto out;
	for (k = 0; k < info.nr_map_ids && k < nr && fd < 0; k++) {
		struct bpf_map_info mi = { 0 };
		__u32 ml = sizeof(mi);
		int m = bpf_map_get_fd_by_id(ids[k]);

		if (m < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(m, &mi, &ml) &&
		    !strcmp(mi.name, "ecn_stats"))
			fd = m;
		else
			close(m);
	}
out:
	close(prog_fd);
	return fd;
}

static int do_show(const char *dev, int ifindex, bool json)
{
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	__u64 sum[RINA_ECN_NR_COUNTERS] = { 0 }, *v;
	__u32 k;

	libbpf_set_print(NULL);		/* "no filter" is our message */
	fd = stats_map_fd(ifindex);
	if (fd < 0) {
		fprintf(stderr, "rina-ecn-mark: no marker on %s's egress\n",
			dev);
		return 1;
	}
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v) {
		close(fd);
		return 1;
	}
	for (k = 0; k < RINA_ECN_NR_COUNTERS; k++)
		if (!bpf_map_lookup_elem(fd, &k, v))
			for (c = 0; c < ncpu; c++)
				sum[k] += v[c];
	free(v);
	close(fd);
	if (json)
		printf("{\"dev\":\"%s\"", dev);
	else
		printf("%s:", dev);
	for (k = 0; k < RINA_ECN_NR_COUNTERS; k++)
		printf(json ? ",\"%s\":%llu" : " %s %llu", counter_names[k],
		       (unsigned long long)sum[k]);
	printf(json ? "}\n" : "\n");
	return 0;
}

static int do_detach(const char *dev, int ifindex)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	hook_init(&hook, ifindex);
	opts_init(&opts, 0, 0);
	err = bpf_tc_detach(&hook, &opts);
	if (err) {
		fprintf(stderr, "rina-ecn-mark: detach from %s: %s\n", dev,
			strerror(-err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ifindex;

	if (argc < 3)
		return usage();
	ifindex = (int)if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "rina-ecn-mark: no device '%s'\n", argv[2]);
		return 1;
	}
	if (!strcmp(argv[1], "attach"))
		return do_attach(argv[2], ifindex, argc - 3, argv + 3);
	if (!strcmp(argv[1], "show") &&
	    (argc == 3 || (argc == 4 && !strcmp(argv[3], "-j"))))
		return do_show(argv[2], ifindex, argc == 4);
	if (!strcmp(argv[1], "detach") && argc == 3)
		return do_detach(argv[2], ifindex);
	return usage();
}
