/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What this host's network devices really sent, for the benchmarks'
 * efficiency: bytes the devices transmitted (after the qdisc, so a frame
 * a shaped link's queue dropped is not counted) and TCP's retransmitted
 * segments, both of the caller's network namespace (rina-run gives each
 * rank its own); and the process's CPU time. Shared by rina-bench and
 * mpi-bench.
 */
#ifndef RINA_BENCH_WIRE_STATS_H
#define RINA_BENCH_WIRE_STATS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

struct bench_wire {
	unsigned long long tx_bytes;	/* all devices but lo */
	unsigned long long tcp_retrans;	/* Tcp RetransSegs */
	unsigned int mtu;		/* the largest device MTU */
	int ok;				/* tx_bytes could be read */
};

static inline int bench_read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu", v);
	fclose(f);
	return n == 1 ? 0 : -1;
}

/* The RetransSegs column of /proc/net/snmp's two "Tcp:" lines. */
static inline unsigned long long bench_tcp_retrans(void)
{
	char names[1024], vals[1024], *n, *v, *sn, *sv;
	unsigned long long r = 0;
	FILE *f = fopen("/proc/net/snmp", "r");

	if (!f)
		return 0;
	while (fgets(names, sizeof(names), f)) {
		if (strncmp(names, "Tcp:", 4))
			continue;
		if (!fgets(vals, sizeof(vals), f))
			break;
		n = strtok_r(names, " \n", &sn);
		v = strtok_r(vals, " \n", &sv);
		while (n && v) {
			if (!strcmp(n, "RetransSegs"))
				sscanf(v, "%llu", &r);
			n = strtok_r(NULL, " \n", &sn);
			v = strtok_r(NULL, " \n", &sv);
		}
		break;
	}
	fclose(f);
	return r;
}

static inline void bench_wire_read(struct bench_wire *w)
{
	char path[300];
	unsigned long long v;
	struct dirent *d;
	DIR *dir;

	memset(w, 0, sizeof(*w));
	w->tcp_retrans = bench_tcp_retrans();
	dir = opendir("/sys/class/net");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "lo"))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/statistics/tx_bytes", d->d_name);
		if (bench_read_ull(path, &v))
			continue;
		w->tx_bytes += v;
		w->ok = 1;
		snprintf(path, sizeof(path), "/sys/class/net/%s/mtu",
			 d->d_name);
		if (!bench_read_ull(path, &v) && v > w->mtu)
			w->mtu = (unsigned int)v;
	}
	closedir(dir);
}

/*
 * CPU seconds this process used (all threads, user and system), for the
 * share of a core a rank needed during the timed calls (cpu_util): far
 * below 1 shows the CPU was not the limit.
 */
static inline double bench_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

#endif /* RINA_BENCH_WIRE_STATS_H */
