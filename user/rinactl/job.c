// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl job add FILE | del ID | show [ID]: jobs of rina.ko over the
 * "rina" generic netlink family. FILE is a job description
 * (Documentation/job-file.md), parsed by librina's parser. A job file's
 * secret_file goes to the kernel as the job's secret, which no reply
 * carries back: show says only whether the job has one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile.h"
#include "sysctl_dflt.h"
#include "secret.h"
#include "rgenl.h"

#define OUT rgenl_out()
#include "rinactl.h"

static const char *const job_states[] = {
	[RINA_JOB_READY] = "ready",
	[RINA_JOB_ACTIVE] = "active",
	[RINA_JOB_ABORTED] = "aborted",
};

/* Report a failed request the iproute2 way; returns the exit code. */
int rinactl_genl_error(const char *what, struct rgenl *g, int err)
{
	if (err == -ENOENT && !g->nl) {
		fprintf(stderr, "rinactl: %s: the \"%s\" netlink family is "
			"absent (is rina.ko loaded?)\n", what, RINA_GENL_NAME);
		return RINACTL_EXIT_FAIL;
	}
	fprintf(stderr, "rinactl: %s: %s%s%s\n", what, strerror(-err),
		g->errmsg[0] ? ": " : "", g->errmsg);
	return RINACTL_EXIT_FAIL;
}

static int job_usage(void)
{
	fprintf(stderr, "Usage: rinactl job add FILE [secret PATH]\n"
		"       rinactl job del ID\n"
		"       rinactl job show [ID]\n"
		"       rinactl job gen { --hostfile FILE | --slurm | --nodelist LIST } ...\n"
		"                       (rinactl job gen --help)\n");
	return RINACTL_EXIT_USAGE;
}

static int parse_id(const char *s, unsigned int *id)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 65535) {
		fprintf(stderr, "rinactl: \"%s\" is not a job id (1..65535)\n",
			s);
		return -1;
	}
	*id = (unsigned int)v;
	return 0;
}

/* What the job file left out is left to the module's net.rina.* (given). */
static void put_job(struct nlmsghdr *nlh, const struct rina_job_desc *d,
		    unsigned int given)
{
	struct nlattr *list, *e;
	unsigned int i;

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, d->job_id);
	if (given & RINA_JF_ELEMS)
		mnl_attr_put_u16(nlh, RINA_A_JOB_ELEMS, d->elems);
	if (given & RINA_JF_WINDOW)
		mnl_attr_put_u16(nlh, RINA_A_JOB_WINDOW, d->window);
	if (given & RINA_JF_TIMEOUT)
		mnl_attr_put_u32(nlh, RINA_A_JOB_TIMEOUT_MS, d->timeout_ms);
	if (given & RINA_JF_RTO)
		mnl_attr_put_u32(nlh, RINA_A_JOB_RTO_US, d->rto_us);
	if (d->has_secret)
		mnl_attr_put(nlh, RINA_A_JOB_SECRET, sizeof(d->secret),
			     d->secret);
	if (d->auth != RINA_JOB_AUTH_TAG)
		mnl_attr_put_u8(nlh, RINA_A_JOB_AUTH, (uint8_t)d->auth);
	if (given & RINA_JF_FALLBACK)
		mnl_attr_put_u8(nlh, RINA_A_JOB_FALLBACK, (uint8_t)d->fallback);
	list = mnl_attr_nest_start(nlh, RINA_A_JOB_RACKS);
	for (i = 0; i < d->n_racks; i++) {
		const struct rina_rack_desc *rk = &d->racks[i];

		e = mnl_attr_nest_start(nlh, RINA_A_JOB_RACK);
		mnl_attr_put_u16(nlh, RINA_A_RACK_ID, rk->id);
		if (rk->ina)
			mnl_attr_put(nlh, RINA_A_RACK_INA, 0, NULL);
		if (rk->tor_ip)
			mnl_attr_put_u32(nlh, RINA_A_RACK_TOR_IPV4, rk->tor_ip);
		if (rk->tor_port)
			mnl_attr_put_u16(nlh, RINA_A_RACK_TOR_PORT,
					 ntohs(rk->tor_port));
		if (rk->agent_port)
			mnl_attr_put_u16(nlh, RINA_A_RACK_AGENT_PORT,
					 ntohs(rk->agent_port));
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, list);
	list = mnl_attr_nest_start(nlh, RINA_A_JOB_RANKS);
	for (i = 0; i < d->n_ranks; i++) {
		static const unsigned char zero[6];
		const struct rina_rank_desc *r = &d->ranks[i];

		e = mnl_attr_nest_start(nlh, RINA_A_JOB_RANK);
		mnl_attr_put_u16(nlh, RINA_A_RANK_ID, i);
		mnl_attr_put_u32(nlh, RINA_A_RANK_IPV4, r->ip);
		mnl_attr_put_u16(nlh, RINA_A_RANK_PORT, ntohs(r->port));
		mnl_attr_put_u16(nlh, RINA_A_RANK_RACK, r->rack);
		if (memcmp(r->mac, zero, 6))
			mnl_attr_put(nlh, RINA_A_RANK_MAC, 6, r->mac);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, list);
}

/*
 * "secret PATH": the job's secret is PATH's (over the job file's
 * secret_file); a PATH that does not exist is made, a new secret, mode
 * 0600, for the ranks to read (RINA_SECRET_FILE or secret_file).
 */
static int job_secret(struct rina_job_desc *desc, const char *path)
{
	char err[512];
	int made = 0;

	if (access(path, F_OK)) {
		if (rina_secret_create(path, desc->secret, err, sizeof(err)))
			goto fail;
		made = 1;
	} else if (rina_secret_load(path, desc->secret, err, sizeof(err))) {
		goto fail;
	}
	desc->has_secret = 1;
	if (made && !rinactl_opts.json)
		fprintf(OUT, "secret %s made (mode 0600): give it to the job's ranks\n",
			path);
	return 0;
fail:
	fprintf(stderr, "rinactl: job add: %s\n", err);
	return RINACTL_EXIT_FAIL;
}

static int job_add(int argc, char **argv)
{
	static struct rina_job_desc desc;
	unsigned int given;
	char err[256];
	struct rgenl g;
	int ret;

	if (argc != 1 && (argc != 3 || strcmp(argv[1], "secret")))
		return job_usage();
	/* checked with the defaults the module will apply */
	if (rina_jobfile_parse_host(argv[0], NULL, &given, &desc, err,
				    sizeof(err))) {
		fprintf(stderr, "rinactl: job add: %s\n", err);
		return RINACTL_EXIT_FAIL;
	}
	/* the kernel first: no secret file is made for a job it cannot take */
	ret = rgenl_open(&g);
	if (ret) {
		explicit_bzero(desc.secret, sizeof(desc.secret));
		return rinactl_genl_error("job add", &g, ret);
	}
	if (argc == 3) {
		ret = job_secret(&desc, argv[2]);
		if (ret) {
			rgenl_close(&g);
			return ret;
		}
	}
	{
		struct nlmsghdr *nlh = rgenl_msg(&g, RINA_CMD_JOB_ADD, 0);

		put_job(nlh, &desc, given);
		explicit_bzero(desc.secret, sizeof(desc.secret));
		ret = rgenl_talk(&g, nlh, NULL, NULL);
		/* the request held the secret */
		explicit_bzero(g.buf, RGENL_BUFSZ);
	}
	if (ret)
		ret = rinactl_genl_error("job add", &g, ret);
	else if (!rinactl_opts.json)
		fprintf(OUT, "job %u added\n", desc.job_id);
	else
		fprintf(OUT, "{\"job\":%u,\"added\":true}\n", desc.job_id);
	rgenl_close(&g);
	return ret;
}

static int job_del(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	unsigned int id;
	struct rgenl g;
	int ret;

	if (argc != 1)
		return job_usage();
	if (parse_id(argv[0], &id))
		return RINACTL_EXIT_USAGE;
	ret = rgenl_open(&g);
	if (ret)
		return rinactl_genl_error("job del", &g, ret);
	nlh = rgenl_msg(&g, RINA_CMD_JOB_DEL, 0);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	ret = rgenl_talk(&g, nlh, NULL, NULL);
	if (ret)
		ret = rinactl_genl_error("job del", &g, ret);
	rgenl_close(&g);
	return ret;
}

struct show_ctx {
	int n;
};

static void show_rank(const struct nlattr *e, bool json, bool first)
{
	const struct nlattr *a;
	unsigned int id = 0, port = 0, rack = 0;
	const unsigned char *mac = NULL;
	struct in_addr ip = { 0 };

	mnl_attr_for_each_nested(a, e) {
		switch (mnl_attr_get_type(a)) {
		case RINA_A_RANK_ID:
			id = mnl_attr_get_u16(a);
			break;
		case RINA_A_RANK_IPV4:
			ip.s_addr = mnl_attr_get_u32(a);
			break;
		case RINA_A_RANK_PORT:
			port = mnl_attr_get_u16(a);
			break;
		case RINA_A_RANK_RACK:
			rack = mnl_attr_get_u16(a);
			break;
		case RINA_A_RANK_MAC:
			if (mnl_attr_get_payload_len(a) == 6)
				mac = mnl_attr_get_payload(a);
			break;
		}
	}
	if (json) {
		fprintf(OUT, "%s{\"rank\":%u,\"ip\":\"%s\",\"port\":%u,\"rack\":%u",
			     first ? "" : ",", id, inet_ntoa(ip), port, rack);
		if (mac)
			fprintf(OUT, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"",
				     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		fprintf(OUT, "}");
		return;
	}
	fprintf(OUT, "\trank %u %s:%u rack %u", id, inet_ntoa(ip), port, rack);
	if (mac)
		fprintf(OUT, " mac %02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
			     mac[2], mac[3], mac[4], mac[5]);
	fprintf(OUT, "\n");
}

static void show_rack(const struct nlattr *e, bool json, bool first)
{
	const struct nlattr *a;
	unsigned int id = 0, port = 0, agent_port = 0;
	struct in_addr tor = { 0 };
	bool ina = false;

	mnl_attr_for_each_nested(a, e) {
		switch (mnl_attr_get_type(a)) {
		case RINA_A_RACK_ID:
			id = mnl_attr_get_u16(a);
			break;
		case RINA_A_RACK_INA:
			ina = true;
			break;
		case RINA_A_RACK_TOR_IPV4:
			tor.s_addr = mnl_attr_get_u32(a);
			break;
		case RINA_A_RACK_TOR_PORT:
			port = mnl_attr_get_u16(a);
			break;
		case RINA_A_RACK_AGENT_PORT:
			agent_port = mnl_attr_get_u16(a);
			break;
		}
	}
	if (json) {
		fprintf(OUT, "%s{\"rack\":%u,\"ina\":%s", first ? "" : ",", id,
			     ina ? "true" : "false");
		if (tor.s_addr)
			fprintf(OUT, ",\"tor\":\"%s\",\"tor_port\":%u",
				     inet_ntoa(tor), port);
		if (agent_port)
			fprintf(OUT, ",\"agent_port\":%u", agent_port);
		fprintf(OUT, "}");
		return;
	}
	fprintf(OUT, "\track %u %s", id, ina ? "ina" : "plain");
	if (tor.s_addr)
		fprintf(OUT, " tor %s:%u", inet_ntoa(tor), port);
	if (agent_port)
		fprintf(OUT, " agent_port %u", agent_port);
	fprintf(OUT, "\n");
}

static const char *const tor_states[] = {
	[RINA_AGENT_TOR_ST_NONE] = "none", [RINA_AGENT_TOR_ST_WAIT] = "wait",
	[RINA_AGENT_TOR_ST_ON] = "on", [RINA_AGENT_TOR_ST_OFF] = "off",
	[RINA_AGENT_TOR_ST_LOST] = "lost",
};

/* JSON key and text name of each u64 counter of a local agent */
static const char *const agent_counters[RINA_A_AGENT_MAX + 1] = {
	[RINA_A_AGENT_CONTRIB_IN] = "contrib_in",
	[RINA_A_AGENT_PARTIAL_IN] = "partial_in",
	[RINA_A_AGENT_SLOTS_DONE] = "slots_done",
	[RINA_A_AGENT_AG_OUT] = "ag_out",
	[RINA_A_AGENT_AG_RETRANSMITS] = "ag_retransmits",
	[RINA_A_AGENT_NACKS_IN] = "nacks_in",
	[RINA_A_AGENT_REPAIRS] = "repairs",
	[RINA_A_AGENT_TOR_COPIES] = "tor_copies",
	[RINA_A_AGENT_TOR_RELAYS] = "tor_relays",
	[RINA_A_AGENT_TOR_HELD] = "tor_held",
	[RINA_A_AGENT_TOR_PROBES] = "tor_probes",
	[RINA_A_AGENT_TOR_LOST] = "tor_lost",
	[RINA_A_AGENT_TOR_RETURNS] = "tor_returns",
	[RINA_A_AGENT_SESSIONS] = "sessions",
	[RINA_A_AGENT_ABORTS] = "aborts",
	[RINA_A_AGENT_MALFORMED] = "malformed",
	[RINA_A_AGENT_BAD_TAG] = "bad_tag",
	[RINA_A_AGENT_ASKS_OUT] = "asks_out",
	[RINA_A_AGENT_ASKS_IN] = "asks_in",
	[RINA_A_AGENT_GAP_NACKS] = "gap_nacks",
	[RINA_A_AGENT_SEND_ERRORS] = "send_errors",
};

/* A local agent worker as JOB_GET reports it (RINA_A_JOB_LOCAL_AGENT). */
struct agent_nl {
	unsigned int	rank, rack, tor;
	uint32_t	status;
	uint64_t	c[RINA_A_AGENT_MAX + 1];
};

/* Attributes of the wrong size are left out, as unknown ones are. */
static void parse_agent(const struct nlattr *e, struct agent_nl *ag)
{
	const struct nlattr *a;

	memset(ag, 0, sizeof(*ag));
	mnl_attr_for_each_nested(a, e) {
		int t = mnl_attr_get_type(a);

		if (t == RINA_A_AGENT_RANK &&
		    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			ag->rank = mnl_attr_get_u16(a);
		else if (t == RINA_A_AGENT_RACK &&
			 mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			ag->rack = mnl_attr_get_u16(a);
		else if (t == RINA_A_AGENT_TOR &&
			 mnl_attr_validate(a, MNL_TYPE_U8) >= 0)
			ag->tor = mnl_attr_get_u8(a);
		else if (t == RINA_A_AGENT_TOR_STATUS &&
			 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			ag->status = mnl_attr_get_u32(a);
		else if (t > 0 && t <= RINA_A_AGENT_MAX && agent_counters[t] &&
			 mnl_attr_get_payload_len(a) == 8)
			ag->c[t] = mnl_attr_get_u64(a);
	}
}

/*
 * A local agent worker: its ToR and counters. job 0: inside its job
 * (job show); else with its job id first (stats).
 */
static void show_agent(const struct nlattr *e, unsigned int job, bool json,
		       bool first)
{
	struct agent_nl ag;
	const char *st;
	unsigned int i;

	parse_agent(e, &ag);
	st = ag.tor <= RINA_AGENT_TOR_ST_LOST ? tor_states[ag.tor] : "unknown";
	if (json) {
		fprintf(OUT, "%s{", first ? "" : ",");
		if (job)
			fprintf(OUT, "\"job\":%u,", job);
		fprintf(OUT, "\"rank\":%u,\"rack\":%u,\"tor\":\"%s\","
			     "\"tor_status\":%u", ag.rank, ag.rack, st,
			     ag.status);
	} else if (job) {
		fprintf(OUT, "agent job %u rank %u rack %u tor %s", job,
			     ag.rank, ag.rack, st);
	} else {
		fprintf(OUT, "\tagent rank %u rack %u tor %s", ag.rank, ag.rack,
			     st);
	}
	for (i = 0; i <= RINA_A_AGENT_MAX; i++)
		if (agent_counters[i])
			fprintf(OUT, json ? ",\"%s\":%llu" : " %s %llu",
				agent_counters[i], (unsigned long long)ag.c[i]);
	fprintf(OUT, json ? "}" : "\n");
}

int rinactl_agents_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	unsigned int job = 0;
	int *n = data;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == RINA_A_JOB_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			job = mnl_attr_get_u16(a);
	if (!job)
		return MNL_CB_OK;	/* no job id to name them by */
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != RINA_A_JOB_LOCAL_AGENT)
			continue;
		show_agent(a, job, rinactl_opts.json, !*n);
		(*n)++;
	}
	return MNL_CB_OK;
}

const char *rinactl_agent_counter(unsigned int t)
{
	return t <= RINA_A_AGENT_MAX ? agent_counters[t] : NULL;
}

int rinactl_agents_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rinactl_agents *l = data;
	const struct nlattr *a;
	unsigned int job = 0;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == RINA_A_JOB_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			job = mnl_attr_get_u16(a);
	if (!job)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		struct rinactl_agent *r;
		struct agent_nl ag;

		if (mnl_attr_get_type(a) != RINA_A_JOB_LOCAL_AGENT)
			continue;
		if (l->n == RINACTL_MAX_AGENTS)
			return MNL_CB_ERROR;
		parse_agent(a, &ag);
		r = &l->a[l->n++];
		r->job = job;
		r->rank = ag.rank;
		r->rack = ag.rack;
		r->tor = ag.tor <= RINA_AGENT_TOR_ST_LOST ? tor_states[ag.tor] :
			 "unknown";
		memcpy(r->c, ag.c, sizeof(r->c));
	}
	return MNL_CB_OK;
}

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	bool json = rinactl_opts.json;
	struct show_ctx *ctx = data;
	const struct nlattr *a, *e, *ranks = NULL, *racks = NULL;
	unsigned int v[RINA_A_JOB_MAX + 1] = { 0 };
	const char *state, *auth, *fallback;
	bool first, any_agent = false;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		int t = mnl_attr_get_type(a);

		switch (t) {
		case RINA_A_JOB_ID:
		case RINA_A_JOB_ELEMS:
		case RINA_A_JOB_WINDOW:
			v[t] = mnl_attr_get_u16(a);
			break;
		case RINA_A_JOB_TIMEOUT_MS:
		case RINA_A_JOB_RTO_US:
		case RINA_A_JOB_N_ATTACHED:
		case RINA_A_JOB_RING_LEN:
		case RINA_A_JOB_AGENTS:
		case RINA_A_JOB_LOCAL_AGENTS:
			v[t] = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_STATE:
		case RINA_A_JOB_SIGNED:
		case RINA_A_JOB_AUTH:
		case RINA_A_JOB_FALLBACK:
			v[t] = mnl_attr_get_u8(a);
			break;
		case RINA_A_JOB_LOCAL_AGENT:
			any_agent = true;
			break;
		case RINA_A_JOB_RANKS:
			ranks = a;
			break;
		case RINA_A_JOB_RACKS:
			racks = a;
			break;
		}
	}
	auth = v[RINA_A_JOB_AUTH] == RINA_JOB_AUTH_MAC ? "mac" : "tag";
	fallback = v[RINA_A_JOB_FALLBACK] == RINA_FALLBACK_ABORT ? "abort" :
		   v[RINA_A_JOB_FALLBACK] == RINA_FALLBACK_RING ? "ring" :
		   "software";
	state = v[RINA_A_JOB_STATE] <= RINA_JOB_ABORTED &&
		job_states[v[RINA_A_JOB_STATE]] ?
		job_states[v[RINA_A_JOB_STATE]] : "unknown";
	if (json)
		fprintf(OUT, "%s{\"job\":%u,\"state\":\"%s\",\"elements\":%u,"
			     "\"window\":%u,\"timeout_ms\":%u,\"rto_us\":%u,"
			     "\"ring_len\":%u,\"agents\":%u,\"attached\":%u,"
			     "\"local_agents\":%u,\"signed\":%s,\"auth\":\"%s\","
			     "\"fallback\":\"%s\",\"racks\":[",
			     ctx->n ? "," : "",
			     v[RINA_A_JOB_ID], state, v[RINA_A_JOB_ELEMS],
			     v[RINA_A_JOB_WINDOW], v[RINA_A_JOB_TIMEOUT_MS],
			     v[RINA_A_JOB_RTO_US], v[RINA_A_JOB_RING_LEN],
			     v[RINA_A_JOB_AGENTS], v[RINA_A_JOB_N_ATTACHED],
			     v[RINA_A_JOB_LOCAL_AGENTS],
			     v[RINA_A_JOB_SIGNED] ? "true" : "false", auth,
			     fallback);
	else
		fprintf(OUT, "job %u state %s elements %u window %u timeout_ms %u "
			     "rto_us %u ring %u agents %u attached %u "
			     "local_agents %u signed %s auth %s fallback %s\n",
			     v[RINA_A_JOB_ID], state, v[RINA_A_JOB_ELEMS],
			     v[RINA_A_JOB_WINDOW], v[RINA_A_JOB_TIMEOUT_MS],
			     v[RINA_A_JOB_RTO_US], v[RINA_A_JOB_RING_LEN],
			     v[RINA_A_JOB_AGENTS], v[RINA_A_JOB_N_ATTACHED],
			     v[RINA_A_JOB_LOCAL_AGENTS],
			     v[RINA_A_JOB_SIGNED] ? "yes" : "no", auth, fallback);
	first = true;
	if (racks)
		mnl_attr_for_each_nested(e, racks) {
			show_rack(e, json, first);
			first = false;
		}
	if (json)
		fprintf(OUT, "],\"ranks\":[");
	first = true;
	if (ranks)
		mnl_attr_for_each_nested(e, ranks) {
			show_rank(e, json, first);
			first = false;
		}
	if (json)
		fprintf(OUT, "],\"local_agent\":[");
	first = true;
	if (any_agent)
		mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
			if (mnl_attr_get_type(a) != RINA_A_JOB_LOCAL_AGENT)
				continue;
			show_agent(a, 0, json, first);
			first = false;
		}
	if (json)
		fprintf(OUT, "]}");
	ctx->n++;
	return MNL_CB_OK;
}

static int job_show(int argc, char **argv)
{
	struct show_ctx ctx = { 0 };
	struct nlmsghdr *nlh;
	unsigned int id = 0;
	struct rgenl g;
	int ret;

	if (argc > 1)
		return job_usage();
	if (argc == 1 && parse_id(argv[0], &id))
		return RINACTL_EXIT_USAGE;
	ret = rgenl_open(&g);
	if (ret)
		return rinactl_genl_error("job show", &g, ret);
	nlh = rgenl_msg(&g, RINA_CMD_JOB_GET, id ? 0 : NLM_F_DUMP);
	if (id)
		mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	if (rinactl_opts.json) {
		rgenl_json_begin(rinactl_opts.pretty);
		fprintf(OUT, "[");
	}
	ret = rgenl_talk(&g, nlh, show_cb, &ctx);
	if (rinactl_opts.json) {
		fprintf(OUT, "]\n");
		rgenl_json_end();
	}
	if (ret)
		ret = rinactl_genl_error("job show", &g, ret);
	rgenl_close(&g);
	return ret;
}

static int cmd_job(int argc, char **argv)
{
	if (argc < 2)
		return job_show(0, NULL);
	if (rinactl_matches(argv[1], "add"))
		return job_add(argc - 2, argv + 2);
	if (rinactl_matches(argv[1], "delete"))
		return job_del(argc - 2, argv + 2);
	if (rinactl_matches(argv[1], "show") ||
	    rinactl_matches(argv[1], "list"))
		return job_show(argc - 2, argv + 2);
	if (!strcmp(argv[1], "gen") || rinactl_matches(argv[1], "generate"))
		return rinactl_job_gen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "help")) {
		job_usage();
		return 0;
	}
	fprintf(stderr, "rinactl: job: unknown command \"%s\"\n", argv[1]);
	return job_usage();
}

RINACTL_CMD(job, cmd_job,
	    "job { add FILE [secret PATH] | del ID | show [ID] | gen OPTIONS }");
