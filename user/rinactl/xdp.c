// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl xdp: attach, detach and inspect the Rina host XDP program.
 *
 *   rinactl xdp attach dev DEV [mode auto|native|generic]
 *                              [drop-ppm N] [jobs ID[,ID...]]
 *   rinactl xdp detach dev DEV
 *   rinactl xdp status dev DEV        (-j: JSON)
 *   rinactl xdp job add|del dev DEV ID
 *
 * attach loads the embedded skeleton through libxdp, so the program runs
 * in a libxdp dispatcher (XDP_RUN_CONFIG) where the kernel supports one
 * and is attached alone otherwise. "jobs" turns the job filter on.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "compat.h"
#include "wire.h"
#include "rinactl.h"
#include "rina_xdp.skel.h"
#include "../lib/xdp_transport.h"

static const char *const ctr_names[] = RINA_XDP_COUNTER_NAMES;
static const char *const parse_names[] = RINA_PARSE_NAMES;

static int xdp_log(enum libxdp_print_level lvl, const char *fmt, va_list ap)
{
	if (rinactl_opts.verbose < (lvl == LIBXDP_WARN ? 1 : 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int bpf_log(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (rinactl_opts.verbose < (lvl == LIBBPF_WARN ? 1 : 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE:	return "native";
	case XDP_MODE_SKB:	return "generic";
	case XDP_MODE_HW:	return "offload";
	default:		return "unknown";
	}
}

static int usage(void)
{
	fprintf(stderr,
		"Usage: rinactl xdp attach dev DEV [mode auto|native|generic] [drop-ppm N] [jobs ID[,ID...]]\n"
		"       rinactl xdp detach dev DEV\n"
		"       rinactl xdp status dev DEV\n"
		"       rinactl xdp job { add | del } dev DEV ID\n");
	return RINACTL_EXIT_USAGE;
}

static int parse_u32(const char *s, unsigned long max, __u32 *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max)
		return -EINVAL;
	*out = (__u32)v;
	return 0;
}

static int job_update(int map_fd, const char *id, bool add)
{
	__u32 v;
	__u16 job;
	__u8 one = 1;

	if (parse_u32(id, 0xffff, &v)) {
		fprintf(stderr, "rinactl: bad job id \"%s\"\n", id);
		return -EINVAL;
	}
	job = (__u16)v;
	if (add ? bpf_map_update_elem(map_fd, &job, &one, BPF_ANY) :
		  bpf_map_delete_elem(map_fd, &job)) {
		fprintf(stderr, "rinactl: job %u: %s\n", job, strerror(errno));
		return -errno;
	}
	return 0;
}

static int do_attach(int ifindex, const char *dev, int argc, char **argv)
{
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC;
	struct xdp_program *prog = NULL;
	const char *jobs = NULL;
	struct rina_xdp *skel;
	__u32 drop_ppm = 0;
	char buf[256], *tok, *save;
	int err, i, old;

	for (i = 0; i < argc; i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (rinactl_matches(argv[i], "mode")) {
			if (!strcmp(argv[i + 1], "native"))
				mode = XDP_MODE_NATIVE;
			else if (!strcmp(argv[i + 1], "generic"))
				mode = XDP_MODE_SKB;
			else if (strcmp(argv[i + 1], "auto"))
				return usage();
		} else if (rinactl_matches(argv[i], "drop-ppm")) {
			if (parse_u32(argv[i + 1], 1000000, &drop_ppm))
				return usage();
		} else if (rinactl_matches(argv[i], "jobs")) {
			jobs = argv[i + 1];
		} else {
			return usage();
		}
	}
	old = rina_xdp_prog_fd(ifindex, NULL);
	if (old >= 0) {
		close(old);
		fprintf(stderr, "rinactl: %s already has rina_xdp attached\n",
			dev);
		return RINACTL_EXIT_FAIL;
	}
	skel = rina_xdp__open();
	if (!skel) {
		fprintf(stderr, "rinactl: cannot open BPF object: %s\n",
			strerror(errno));
		return RINACTL_EXIT_FAIL;
	}
	skel->rodata->drop_ppm = drop_ppm;
	skel->rodata->filter_jobs = jobs != NULL;
	prog = xdp_program__from_bpf_obj(skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err) {
		prog = NULL;
		goto fail;
	}
	err = xdp_program__attach(prog, ifindex, mode, 0);
	if (err && mode == XDP_MODE_UNSPEC) {
		/*
		 * auto: the driver refused native mode (veth takes frames of
		 * one page only, ERANGE above MTU ~3500): generic works for
		 * any MTU
		 */
		libxdp_strerror(err, buf, sizeof(buf));
		fprintf(stderr,
			"rinactl: native XDP on %s refused (%s): generic mode\n",
			dev, buf);
		mode = XDP_MODE_SKB;
		err = xdp_program__attach(prog, ifindex, mode, 0);
	}
	if (err)
		goto fail;
	if (jobs) {
		snprintf(buf, sizeof(buf), "%s", jobs);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			err = job_update(bpf_map__fd(skel->maps.rina_jobs),
					 tok, true);
			if (err) {
				xdp_program__detach(prog, ifindex, mode, 0);
				goto out;
			}
		}
	}
	if (rinactl_opts.verbose)
		fprintf(stderr, "rinactl: rina_xdp attached to %s\n", dev);
	goto out;
fail:
	libxdp_strerror(err, buf, sizeof(buf));
	fprintf(stderr, "rinactl: attach to %s failed: %s\n", dev, buf);
out:
	xdp_program__close(prog);
	rina_xdp__destroy(skel);
	return err ? RINACTL_EXIT_FAIL : 0;
}

static int do_detach(int ifindex, const char *dev)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	enum xdp_attach_mode mode;
	struct xdp_program *p;
	int err = -ENOENT, fd;
	char buf[256];

	fd = rina_xdp_prog_fd(ifindex, &mode);
	if (fd < 0 || !mp || libxdp_get_error(mp)) {
		fprintf(stderr, "rinactl: no rina_xdp program on %s\n", dev);
		goto out;
	}
	if (xdp_multiprog__is_legacy(mp)) {
		err = xdp_multiprog__detach(mp);
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p), RINA_XDP_PROG_NAME))
				break;
		err = p ? xdp_program__detach(p, ifindex, mode, 0) : -ENOENT;
	}
	if (err) {
		libxdp_strerror(err, buf, sizeof(buf));
		fprintf(stderr, "rinactl: detach from %s failed: %s\n", dev,
			buf);
	}
out:
	if (fd >= 0)
		close(fd);
	if (mp && !libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	return err ? RINACTL_EXIT_FAIL : 0;
}

static const char *counter_name(unsigned int i, char *buf, size_t len)
{
	unsigned int e = i - RINA_XDP_DROP_PARSE;

	if (i < RINA_XDP_DROP_PARSE)
		return ctr_names[i];
	if (e < __RINA_PARSE_MAX && e)
		snprintf(buf, len, "drop_%s", parse_names[e]);
	else
		return NULL;
	return buf;
}

/* The load-time knobs, read back from the program's .rodata map. */
static void read_config(int prog_fd, struct rina_xdp__rodata *cfg)
{
	int fd = rina_xdp_prog_map(prog_fd, "rina_xdp.rodata");
	__u32 zero = 0;
	char buf[256] = {};

	if (fd < 0)
		return;
	if (!bpf_map_lookup_elem(fd, &zero, buf))
		memcpy(cfg, buf, sizeof(*cfg));
	close(fd);
}

static int do_status(int ifindex, const char *dev)
{
	int ncpu = libbpf_num_possible_cpus();
	int prog_fd, stats_fd = -1, jobs_fd = -1;
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC;
	struct bpf_prog_info pi = {};
	__u32 len = sizeof(pi), i;
	const char *sep = "", *name;
	__u16 key, next, *kp = NULL;
	__u64 vals[ncpu > 0 ? ncpu : 1], sum;
	struct rina_xdp__rodata cfg = {};
	char nbuf[64];
	int c;

	prog_fd = rina_xdp_prog_fd(ifindex, &mode);
	if (prog_fd < 0) {
		if (rinactl_opts.json)
			printf("{\"dev\":\"%s\",\"attached\":false}\n", dev);
		else
			printf("%s: rina_xdp not attached\n", dev);
		return 0;
	}
	bpf_obj_get_info_by_fd(prog_fd, &pi, &len);
	stats_fd = rina_xdp_prog_map(prog_fd, RINA_XDP_STATS_MAP);
	jobs_fd = rina_xdp_prog_map(prog_fd, RINA_XDP_JOBS_MAP);
	read_config(prog_fd, &cfg);
	if (rinactl_opts.json)
		printf("{\"dev\":\"%s\",\"attached\":true,\"prog_id\":%u,"
		       "\"mode\":\"%s\",\"drop_ppm\":%u,"
		       "\"filter_jobs\":%s,\"counters\":{", dev, pi.id,
		       mode_name(mode), cfg.drop_ppm,
		       cfg.filter_jobs ? "true" : "false");
	else
		printf("%s: rina_xdp id %u mode %s drop-ppm %u job-filter %s\n"
		       "  counters:\n", dev, pi.id, mode_name(mode),
		       cfg.drop_ppm, cfg.filter_jobs ? "on" : "off");
	for (i = 0; stats_fd >= 0 && i < RINA_XDP_NR_COUNTERS; i++) {
		name = counter_name(i, nbuf, sizeof(nbuf));
		if (!name || bpf_map_lookup_elem(stats_fd, &i, vals))
			continue;
		for (sum = 0, c = 0; c < ncpu; c++)
			sum += vals[c];
		if (rinactl_opts.json)
			printf("%s\"%s\":%llu", sep, name,
			       (unsigned long long)sum);
		else
			printf("    %-20s %llu\n", name,
			       (unsigned long long)sum);
		sep = ",";
	}
	printf(rinactl_opts.json ? "},\"jobs\":[" : "  jobs:");
	sep = "";
	while (jobs_fd >= 0 && !bpf_map_get_next_key(jobs_fd, kp, &next)) {
		printf(rinactl_opts.json ? "%s%u" : "%s %u", sep, next);
		sep = rinactl_opts.json ? "," : "";
		key = next;
		kp = &key;
	}
	printf(rinactl_opts.json ? "]}\n" : "\n");
	if (stats_fd >= 0)
		close(stats_fd);
	if (jobs_fd >= 0)
		close(jobs_fd);
	close(prog_fd);
	return 0;
}

static int cmd_xdp(int argc, char **argv)
{
	const char *verb, *dev = NULL;
	int ifindex, i, add, err;

	libxdp_set_print(xdp_log);
	libbpf_set_print(bpf_log);
	if (argc < 2)
		return usage();
	verb = argv[1];
	add = -1;
	i = 2;
	if (rinactl_matches(verb, "job")) {
		if (argc < 3)
			return usage();
		if (!strcmp(argv[2], "add"))
			add = 1;
		else if (!strcmp(argv[2], "del"))
			add = 0;
		else
			return usage();
		i = 3;
	}
	if (i + 1 >= argc || !rinactl_matches(argv[i], "dev"))
		return usage();
	dev = argv[i + 1];
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "rinactl: no device \"%s\"\n", dev);
		return RINACTL_EXIT_FAIL;
	}
	i += 2;
	if (add >= 0) {
		int pfd, mfd;

		if (i + 1 != argc)
			return usage();
		pfd = rina_xdp_prog_fd(ifindex, NULL);
		mfd = pfd < 0 ? pfd : rina_xdp_prog_map(pfd, RINA_XDP_JOBS_MAP);
		if (mfd < 0) {
			fprintf(stderr, "rinactl: no rina_xdp program on %s\n",
				dev);
			if (pfd >= 0)
				close(pfd);
			return RINACTL_EXIT_FAIL;
		}
		err = job_update(mfd, argv[i], add);
		close(mfd);
		close(pfd);
		return err ? RINACTL_EXIT_FAIL : 0;
	}
	if (rinactl_matches(verb, "attach"))
		return do_attach(ifindex, dev, argc - i, argv + i);
	if (i != argc)
		return usage();
	if (rinactl_matches(verb, "detach"))
		return do_detach(ifindex, dev);
	if (rinactl_matches(verb, "status") || rinactl_matches(verb, "show"))
		return do_status(ifindex, dev);
	return usage();
}

RINACTL_CMD(xdp, cmd_xdp,
	    "xdp { attach | detach | status | job { add | del } } dev DEV ...");
