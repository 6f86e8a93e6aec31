// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters of one network namespace, summed on read.
 */
#include <linux/percpu.h>

#include "rina_kmod.h"

int rina_stats_net_init(struct rina_net *rn)
{
	int cpu;

	rn->stats = alloc_percpu(struct rina_pcpu_stats);
	if (!rn->stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rn->stats, cpu)->syncp);
	return 0;
}

void rina_stats_net_exit(struct rina_net *rn)
{
	free_percpu(rn->stats);
	rn->stats = NULL;
}

void rina_stat_inc(struct rina_net *rn, enum rina_stat s)
{
	struct rina_pcpu_stats *st = get_cpu_ptr(rn->stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->cnt[s]);
	u64_stats_update_end(&st->syncp);
	put_cpu_ptr(st);
}

static void rina_stats_add_cpu(struct rina_net *rn, int cpu, u64 *out)
{
	const struct rina_pcpu_stats *st = per_cpu_ptr(rn->stats, cpu);
	u64 v[RINA_STAT_N];
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		for (i = 0; i < RINA_STAT_N; i++)
			v[i] = u64_stats_read(&st->cnt[i]);
	} while (u64_stats_fetch_retry(&st->syncp, start));
	for (i = 0; i < RINA_STAT_N; i++)
		out[i] += v[i];
}

/* out[RINA_STAT_N]: one CPU's counters, or the sum over all when cpu < 0. */
void rina_stats_sum(struct rina_net *rn, int cpu, u64 *out)
{
	int c;

	memset(out, 0, sizeof(u64) * RINA_STAT_N);
	if (cpu >= 0) {
		rina_stats_add_cpu(rn, cpu, out);
		return;
	}
	for_each_possible_cpu(c)
		rina_stats_add_cpu(rn, c, out);
}
