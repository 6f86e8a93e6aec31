// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl stats [percpu]: rina.ko's counters of this network namespace,
 * totals or one row per CPU; with the totals, the local agents of its
 * jobs (their ToR and counters, as job show prints them). The totals
 * and agents also in Prometheus's text format (-f prometheus), on
 * stdout or as a node_exporter textfile (--textfile FILE).
 */
#include <stdlib.h>
#include <string.h>

#include "atomic_write.h"
#include "prom.h"
#include "rgenl.h"

#define OUT rgenl_out()
#include "rinactl.h"

int rinactl_genl_error(const char *what, struct rgenl *g, int err);

static const char *const stat_names[RINA_A_STATS_MAX + 1] = {
	[RINA_A_STATS_CPU]		= "cpu",
	[RINA_A_STATS_JOBS]		= "jobs",
	[RINA_A_STATS_JOBS_ADDED]	= "jobs_added",
	[RINA_A_STATS_JOBS_DELETED]	= "jobs_deleted",
	[RINA_A_STATS_JOB_REJECTS]	= "job_rejects",
	[RINA_A_STATS_ATTACHES]		= "attaches",
	[RINA_A_STATS_DETACHES]		= "detaches",
	[RINA_A_STATS_IOCTL_REJECTS]	= "ioctl_rejects",
	[RINA_A_STATS_MEMBERS_LOST]	= "members_lost",
	[RINA_A_STATS_JOBS_ABORTED]	= "jobs_aborted",
	[RINA_A_STATS_AGENT_RX]		= "agent_rx",
	[RINA_A_STATS_AGENT_DROP_RUNT]	= "agent_drop_runt",
	[RINA_A_STATS_AGENT_DROP_BAD_VERSION] = "agent_drop_bad_version",
	[RINA_A_STATS_AGENT_DROP_BAD_OPCODE] = "agent_drop_bad_opcode",
	[RINA_A_STATS_AGENT_DROP_BAD_LENGTH] = "agent_drop_bad_length",
	[RINA_A_STATS_AGENT_DROP_OVERSIZE] = "agent_drop_oversize",
	[RINA_A_STATS_AGENT_DROP_BAD_DTYPE] = "agent_drop_bad_dtype",
	[RINA_A_STATS_AGENT_DROP_BAD_FIELD] = "agent_drop_bad_field",
	[RINA_A_STATS_AGENT_DROP_UNKNOWN_JOB] = "agent_drop_unknown_job",
};

struct stats_ctx {
	int	rows;
	bool	percpu;
	bool	prom;		/* collect into v[], do not print */
	unsigned long long v[RINA_A_STATS_MAX + 1];
	bool	have[RINA_A_STATS_MAX + 1];
	struct rinactl_agents *agents;
};

/*
 * Prometheus names of the totals: counters end in _total; the drops are
 * one metric with a reason label (the JSON key's suffix).
 */
static const struct {
	const char *name, *type, *help;
} prom_names[RINA_A_STATS_MAX + 1] = {
	[RINA_A_STATS_JOBS] = { "rina_jobs", "gauge",
		"Jobs in rina.ko's table of this network namespace." },
	[RINA_A_STATS_JOBS_ADDED] = { "rina_jobs_added_total", "counter",
		"Jobs added (JOB_ADD accepted)." },
	[RINA_A_STATS_JOBS_DELETED] = { "rina_jobs_deleted_total", "counter",
		"Jobs deleted." },
	[RINA_A_STATS_JOB_REJECTS] = { "rina_job_rejects_total", "counter",
		"Invalid JOB_ADD or JOB_DEL requests." },
	[RINA_A_STATS_ATTACHES] = { "rina_attaches_total", "counter",
		"Ranks attached through /dev/rina." },
	[RINA_A_STATS_DETACHES] = { "rina_detaches_total", "counter",
		"Ranks detached, explicitly or on close." },
	[RINA_A_STATS_IOCTL_REJECTS] = { "rina_ioctl_rejects_total", "counter",
		"Invalid /dev/rina requests." },
	[RINA_A_STATS_MEMBERS_LOST] = { "rina_members_lost_total", "counter",
		"Attached ranks whose fd closed without a detach." },
	[RINA_A_STATS_JOBS_ABORTED] = { "rina_jobs_aborted_total", "counter",
		"Jobs aborted." },
	[RINA_A_STATS_AGENT_RX] = { "rina_agent_rx_packets_total", "counter",
		"Well-formed packets to the kernel agents' ports." },
};

#define PROM_DROPS		"rina_agent_dropped_packets_total"
#define PROM_DROP_PREFIX	"agent_drop_"

static bool is_drop(unsigned int t)
{
	return t >= RINA_A_STATS_AGENT_DROP_RUNT &&
	       t <= RINA_A_STATS_AGENT_DROP_UNKNOWN_JOB;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats_ctx *ctx = data;
	const struct nlattr *a;
	bool first = true;

	if (rinactl_opts.json)
		fprintf(OUT, "%s{", ctx->rows ? "," : "");
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		unsigned int t = mnl_attr_get_type(a);
		unsigned long long v;

		if (t > RINA_A_STATS_MAX || !stat_names[t])
			continue;
		if (mnl_attr_get_payload_len(a) == 8)
			v = (unsigned long long)mnl_attr_get_u64(a);
		else
			v = mnl_attr_get_u32(a);
		if (ctx->prom) {
			ctx->v[t] = v;
			ctx->have[t] = true;
			continue;
		}
		if (rinactl_opts.json)
			fprintf(OUT, "%s\"%s\":%llu", first ? "" : ",",
				     stat_names[t], v);
		else if (t == RINA_A_STATS_CPU)
			fprintf(OUT, "cpu%llu:\n", v);
		else
			fprintf(OUT, "  %-16s %llu\n", stat_names[t], v);
		first = false;
	}
	/* the totals' object stays open for the agents: cmd_stats() */
	if (rinactl_opts.json && ctx->percpu)
		fprintf(OUT, "}");
	ctx->rows++;
	return MNL_CB_OK;
}

/*
 * The agents are per job, in JOB_GET (a dump of the namespace's jobs):
 * text lines "agent job J rank R ...", JSON "agents":[...] in the
 * totals' object.
 */
static int stats_agents(struct rgenl *g)
{
	int n = 0, ret;

	if (rinactl_opts.json)
		fprintf(OUT, ",\"agents\":[");
	ret = rgenl_talk(g, rgenl_msg(g, RINA_CMD_JOB_GET, NLM_F_DUMP),
			 rinactl_agents_cb, &n);
	if (rinactl_opts.json)
		fprintf(OUT, "]}");
	return ret;
}

static void prom_write(FILE *f, void *arg)
{
	const struct stats_ctx *ctx = arg;
	const struct rinactl_agents *l = ctx->agents;
	char lb[128];
	unsigned int t;
	int i;

	for (t = 0; t <= RINA_A_STATS_MAX; t++) {
		if (!prom_names[t].name || !ctx->have[t])
			continue;
		rina_prom_head(f, prom_names[t].name, prom_names[t].type,
			       prom_names[t].help);
		rina_prom_sample(f, prom_names[t].name, "", ctx->v[t]);
	}
	rina_prom_head(f, PROM_DROPS, "counter",
		       "Packets to the kernel agents' ports dropped, by reason.");
	for (t = 0; t <= RINA_A_STATS_MAX; t++) {
		if (!is_drop(t) || !ctx->have[t])
			continue;
		snprintf(lb, sizeof(lb), "reason=\"%s\"",
			 stat_names[t] + strlen(PROM_DROP_PREFIX));
		rina_prom_sample(f, PROM_DROPS, lb, ctx->v[t]);
	}
	if (!l->n)
		return;
	rina_prom_head(f, "rina_agent_tor_state", "gauge",
		       "1 for the state of a local agent's ToR (none, wait, on, off, lost).");
	for (i = 0; i < l->n; i++) {
		snprintf(lb, sizeof(lb),
			 "job=\"%u\",rank=\"%u\",rack=\"%u\",state=\"%s\"",
			 l->a[i].job, l->a[i].rank, l->a[i].rack, l->a[i].tor);
		rina_prom_sample(f, "rina_agent_tor_state", lb, 1);
	}
	for (t = 0; t <= RINA_A_AGENT_MAX; t++) {
		const char *key = rinactl_agent_counter(t);
		char name[96], help[160];

		if (!key)
			continue;
		snprintf(name, sizeof(name), "rina_agent_%s_total", key);
		snprintf(help, sizeof(help),
			 "A local agent's %s counter (rinactl -j stats: agents[].%s).",
			 key, key);
		rina_prom_head(f, name, "counter", help);
		for (i = 0; i < l->n; i++) {
			snprintf(lb, sizeof(lb),
				 "job=\"%u\",rank=\"%u\",rack=\"%u\"",
				 l->a[i].job, l->a[i].rank, l->a[i].rack);
			rina_prom_sample(f, name, lb,
					 (unsigned long long)l->a[i].c[t]);
		}
	}
}

/* -f prometheus: totals and agents collected first (grouped by metric) */
static int stats_prom(struct rgenl *g, const char *textfile)
{
	struct stats_ctx ctx = { .prom = true };
	char err[512];
	int ret;

	ctx.agents = calloc(1, sizeof(*ctx.agents));
	if (!ctx.agents) {
		fprintf(stderr, "rinactl: stats: out of memory\n");
		return RINACTL_EXIT_FAIL;
	}
	ret = rgenl_talk(g, rgenl_msg(g, RINA_CMD_STATS_GET, 0), stats_cb,
			 &ctx);
	if (!ret)
		ret = rgenl_talk(g, rgenl_msg(g, RINA_CMD_JOB_GET, NLM_F_DUMP),
				 rinactl_agents_collect_cb, ctx.agents);
	if (ret) {
		ret = rinactl_genl_error("stats", g, ret);
	} else if (!textfile) {
		prom_write(OUT, &ctx);
	} else if (rina_write_atomic(textfile, prom_write, &ctx, err,
				      sizeof(err))) {
		fprintf(stderr, "rinactl: stats: %s\n", err);
		ret = RINACTL_EXIT_FAIL;
	}
	free(ctx.agents);
	return ret;
}

static int stats_usage(void)
{
	fprintf(stderr, "Usage: rinactl stats [percpu] [-f|--format text|json|prometheus]\n"
			"                     [--textfile FILE]\n"
			"  -f prometheus  the totals and local agents in Prometheus's text format\n"
			"  --textfile FILE  write that to FILE (via FILE.tmp and rename) for\n"
			"                 node_exporter's textfile collector; implies -f prometheus\n");
	return RINACTL_EXIT_USAGE;
}

static int cmd_stats(int argc, char **argv)
{
	struct stats_ctx ctx = { 0 };
	const char *textfile = NULL;
	bool prom = false;
	struct rgenl g;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if ((!strcmp(o, "-f") || !strcmp(o, "--format")) &&
		    i + 1 < argc) {
			o = argv[++i];
			prom = !strcmp(o, "prometheus");
			if (!strcmp(o, "json"))
				rinactl_opts.json = true;
			else if (strcmp(o, "text") && !prom) {
				fprintf(stderr, "rinactl: stats: unknown format \"%s\" (text, json or prometheus)\n",
					o);
				return stats_usage();
			}
		} else if (!strcmp(o, "--textfile") && i + 1 < argc) {
			textfile = argv[++i];
			prom = true;
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			stats_usage();
			return 0;
		} else if (!ctx.percpu && rinactl_matches(o, "percpu")) {
			ctx.percpu = true;
		} else {
			return stats_usage();
		}
	}
	if (prom && ctx.percpu) {
		fprintf(stderr, "rinactl: stats: percpu has no Prometheus form (the totals are the counters)\n");
		return RINACTL_EXIT_USAGE;
	}
	ret = rgenl_open(&g);
	if (ret)
		return rinactl_genl_error("stats", &g, ret);
	if (prom) {
		ret = stats_prom(&g, textfile);
		rgenl_close(&g);
		return ret;
	}
	if (ret)
		return rinactl_genl_error("stats", &g, ret);
	if (rinactl_opts.json)
		rgenl_json_begin(rinactl_opts.pretty);
	if (rinactl_opts.json && ctx.percpu)
		fprintf(OUT, "[");
	ret = rgenl_talk(&g, rgenl_msg(&g, RINA_CMD_STATS_GET,
				       ctx.percpu ? NLM_F_DUMP : 0),
			 stats_cb, &ctx);
	if (!ctx.percpu && ctx.rows) {
		if (!ret)
			ret = stats_agents(&g);
		else if (rinactl_opts.json)
			fprintf(OUT, "}");
	}
	if (rinactl_opts.json) {
		fprintf(OUT, ctx.percpu ? "]\n" : "\n");
		rgenl_json_end();
	}
	if (ret)
		ret = rinactl_genl_error("stats", &g, ret);
	rgenl_close(&g);
	return ret;
}

RINACTL_CMD(stats, cmd_stats,
	    "stats [percpu] [-f text|json|prometheus] [--textfile FILE]");
