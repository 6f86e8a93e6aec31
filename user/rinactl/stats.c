// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl stats [percpu]: rina.ko's counters of this network namespace,
 * totals or one row per CPU; with the totals, the local agents of its
 * jobs (their ToR and counters, as job show prints them).
 */
#include <string.h>

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
};

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

static int cmd_stats(int argc, char **argv)
{
	struct stats_ctx ctx = { 0 };
	struct rgenl g;
	int ret;

	if (argc > 2 || (argc == 2 && !(ctx.percpu =
					rinactl_matches(argv[1], "percpu")))) {
		fprintf(stderr, "Usage: rinactl stats [percpu]\n");
		return RINACTL_EXIT_USAGE;
	}
	ret = rgenl_open(&g);
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

RINACTL_CMD(stats, cmd_stats, "stats [percpu]");
