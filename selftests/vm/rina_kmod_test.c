// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of rina.ko's interfaces, run inside qemu with the module
 * loaded: every generic netlink op with good and bad attributes (each
 * rejection checked for its errno and extack message), the unprivileged
 * view, per-netns tables, job events, and /dev/rina ioctl use and misuse.
 * Prints KTAP; exits 1 if any case failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/rina.h>

#include "plan.h"
#include "rgenl.h"
#include "../ktap.h"

#define IP(a, b, c, d)	htonl(((a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define TOR_IP		IP(198, 18, 0, 254)

static int attach(int fd, int job, int rank);

/* One KTAP result; a failure is explained by a diagnostic line first. */
__attribute__((format(printf, 3, 4)))
static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!ok) {
		printf("# %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	ktap_result(ok, "%s", name);
}

/* An errno and, when msg is set, an extack message containing it. */
static void expect_err(struct rgenl *g, const char *name, int err, int want,
		       const char *msg)
{
	bool ok = err == -want && (!msg || strstr(g->errmsg, msg));

	result(ok, name, "got %d (%s) extack \"%s\", want %d \"%s\"", err,
	       strerror(-err), g->errmsg, -want, msg ? msg : "");
}

/* ------------------------------------------------------------------ */
/* message builders                                                    */

struct rank_spec {
	int id;		/* <0: omit */
	uint32_t ip;	/* 0: omit */
	int port;	/* <0: omit */
	int rack;	/* <0: omit */
	int maclen;	/* 0: omit */
};

static void put_rank(struct nlmsghdr *nlh, const struct rank_spec *r)
{
	static const uint8_t mac[8] = { 2, 0, 0, 0, 0, 1, 0, 0 };
	struct nlattr *e = mnl_attr_nest_start(nlh, RINA_A_JOB_RANK);

	if (r->id >= 0)
		mnl_attr_put_u16(nlh, RINA_A_RANK_ID, r->id);
	if (r->ip)
		mnl_attr_put_u32(nlh, RINA_A_RANK_IPV4, r->ip);
	if (r->port >= 0)
		mnl_attr_put_u16(nlh, RINA_A_RANK_PORT, r->port);
	if (r->rack >= 0)
		mnl_attr_put_u16(nlh, RINA_A_RANK_RACK, r->rack);
	if (r->maclen)
		mnl_attr_put(nlh, RINA_A_RANK_MAC, r->maclen, mac);
	mnl_attr_nest_end(nlh, e);
}

static void put_rack(struct nlmsghdr *nlh, int id, bool ina, uint32_t tor)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RINA_A_JOB_RACK);

	if (id >= 0)
		mnl_attr_put_u16(nlh, RINA_A_RACK_ID, id);
	if (ina)
		mnl_attr_put(nlh, RINA_A_RACK_INA, 0, NULL);
	if (tor)
		mnl_attr_put_u32(nlh, RINA_A_RACK_TOR_IPV4, tor);
	mnl_attr_nest_end(nlh, e);
}

/* The standard rank i of a job: racks of two, rack 0 INA. */
static struct rank_spec std_rank(int i)
{
	struct rank_spec r = {
		.id = i, .ip = IP(198, 18, i / 2, 1 + i % 2), .port = 0x5240,
		.rack = i / 2, .maclen = 6,
	};
	return r;
}

static void put_std_racks(struct nlmsghdr *nlh, int n_racks)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, RINA_A_JOB_RACKS);
	int i;

	for (i = 0; i < n_racks; i++)
		put_rack(nlh, i, i == 0, i == 0 ? TOR_IP : 0);
	mnl_attr_nest_end(nlh, l);
}

static void put_std_ranks(struct nlmsghdr *nlh, int n)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, RINA_A_JOB_RANKS);
	struct rank_spec r;
	int i;

	for (i = 0; i < n; i++) {
		r = std_rank(i);
		put_rank(nlh, &r);
	}
	mnl_attr_nest_end(nlh, l);
}

/* JOB_ADD of a standard job: n ranks in racks of two, rack 0 INA. */
static int add_std_job(struct rgenl *g, int id, int n)
{
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_ADD, 0);

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	put_std_racks(nlh, (n + 1) / 2);
	put_std_ranks(nlh, n);
	return rgenl_talk(g, nlh, NULL, NULL);
}

static int del_job(struct rgenl *g, int id)
{
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_DEL, 0);

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	return rgenl_talk(g, nlh, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* reply parsers                                                       */

struct job_info {
	int id, elems, window, state, n_attached, ring_len, agents;
	int local_agents;
	int signed_job;		/* -1: no RINA_A_JOB_SIGNED in the reply */
	bool secret_attr;	/* a RINA_A_JOB_SECRET came back */
	uint32_t timeout_ms, rto_us;
	int n_ranks, n_racks;
	uint32_t rank_ip[RINA_MAX_RANKS];
	int rank_port[RINA_MAX_RANKS], rank_rack[RINA_MAX_RANKS];
	bool rank_mac[RINA_MAX_RANKS];
	int rack_ina[RINA_MAX_RACKS];
};

struct job_list {
	int n;			/* stored in j[] */
	int total;		/* messages seen */
	int full;		/* jobs seen with RINA_MAX_RANKS ranks */
	struct job_info j[8];
};

static void parse_rank(const struct nlattr *e, struct job_info *j)
{
	const struct nlattr *a;
	int id = -1;

	mnl_attr_for_each_nested(a, e)
		if (mnl_attr_get_type(a) == RINA_A_RANK_ID)
			id = mnl_attr_get_u16(a);
	if (id < 0 || id >= RINA_MAX_RANKS)
		return;
	j->n_ranks++;
	mnl_attr_for_each_nested(a, e) {
		switch (mnl_attr_get_type(a)) {
		case RINA_A_RANK_IPV4:
			j->rank_ip[id] = mnl_attr_get_u32(a);
			break;
		case RINA_A_RANK_PORT:
			j->rank_port[id] = mnl_attr_get_u16(a);
			break;
		case RINA_A_RANK_RACK:
			j->rank_rack[id] = mnl_attr_get_u16(a);
			break;
		case RINA_A_RANK_MAC:
			j->rank_mac[id] = mnl_attr_get_payload_len(a) == 6;
			break;
		}
	}
}

static void parse_rack(const struct nlattr *e, struct job_info *j)
{
	const struct nlattr *a;

	if (j->n_racks >= RINA_MAX_RACKS)
		return;
	mnl_attr_for_each_nested(a, e)
		if (mnl_attr_get_type(a) == RINA_A_RACK_INA)
			j->rack_ina[j->n_racks] = 1;
	j->n_racks++;
}

static int job_cb(const struct nlmsghdr *nlh, void *data)
{
	static struct job_info tmp;
	struct job_list *l = data;
	const struct nlattr *a, *e;
	struct job_info *j = &tmp;

	memset(j, 0, sizeof(*j));
	j->signed_job = -1;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case RINA_A_JOB_ID:
			j->id = mnl_attr_get_u16(a);
			break;
		case RINA_A_JOB_ELEMS:
			j->elems = mnl_attr_get_u16(a);
			break;
		case RINA_A_JOB_WINDOW:
			j->window = mnl_attr_get_u16(a);
			break;
		case RINA_A_JOB_TIMEOUT_MS:
			j->timeout_ms = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_RTO_US:
			j->rto_us = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_STATE:
			j->state = mnl_attr_get_u8(a);
			break;
		case RINA_A_JOB_N_ATTACHED:
			j->n_attached = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_RING_LEN:
			j->ring_len = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_AGENTS:
			j->agents = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_LOCAL_AGENTS:
			j->local_agents = mnl_attr_get_u32(a);
			break;
		case RINA_A_JOB_SIGNED:
			j->signed_job = mnl_attr_get_u8(a);
			break;
		case RINA_A_JOB_SECRET:
			j->secret_attr = true;
			break;
		case RINA_A_JOB_RANKS:
			mnl_attr_for_each_nested(e, a)
				parse_rank(e, j);
			break;
		case RINA_A_JOB_RACKS:
			mnl_attr_for_each_nested(e, a)
				parse_rack(e, j);
			break;
		}
	}
	l->total++;
	l->full += j->n_ranks == RINA_MAX_RANKS;
	if (l->n < 8)
		l->j[l->n++] = *j;
	return MNL_CB_OK;
}

static int get_job(struct rgenl *g, int id, struct job_info *out)
{
	static struct job_list l;
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_GET, 0);
	int err;

	l.n = l.total = l.full = 0;
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	err = rgenl_talk(g, nlh, job_cb, &l);
	if (!err && l.n != 1)
		err = -EBADMSG;
	if (!err)
		*out = l.j[0];
	return err;
}

static int dump_jobs(struct rgenl *g, struct job_list *l)
{
	l->n = l->total = l->full = 0;
	return rgenl_talk(g, rgenl_msg(g, RINA_CMD_JOB_GET, NLM_F_DUMP),
			  job_cb, l);
}

struct stats {
	int rows;
	int cpu_seen;
	uint32_t jobs;
	uint64_t v[RINA_A_STATS_MAX + 1];
};

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats *s = data;
	const struct nlattr *a;

	s->rows++;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		int t = mnl_attr_get_type(a);

		if (t == RINA_A_STATS_JOBS)
			s->jobs = mnl_attr_get_u32(a);
		else if (t == RINA_A_STATS_CPU)
			s->cpu_seen++;
		else if (t >= RINA_A_STATS_JOBS_ADDED && t <= RINA_A_STATS_MAX)
			s->v[t] += mnl_attr_get_u64(a);
	}
	return MNL_CB_OK;
}

static int get_stats(struct rgenl *g, struct stats *s, bool dump)
{
	memset(s, 0, sizeof(*s));
	return rgenl_talk(g, rgenl_msg(g, RINA_CMD_STATS_GET,
				       dump ? NLM_F_DUMP : 0), stats_cb, s);
}

/* Events: read what arrived on a subscribed socket within ms. */
struct event {
	int type, job, rank, state;
};

static int read_events(struct rgenl *g, struct event *ev, int max, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };
	int n = 0;

	setsockopt(mnl_socket_get_fd(g->nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	while (n < max) {
		ssize_t len = mnl_socket_recvfrom(g->nl, g->buf, RGENL_BUFSZ);
		const struct nlmsghdr *m;
		int left;

		if (len <= 0)
			break;
		left = (int)len;
		for (m = (void *)g->buf; mnl_nlmsg_ok(m, left) && n < max;
		     m = mnl_nlmsg_next(m, &left)) {
			const struct genlmsghdr *gh = mnl_nlmsg_get_payload(m);
			const struct nlattr *a;
			struct event *e = &ev[n];

			if (m->nlmsg_type != g->family ||
			    gh->cmd != RINA_CMD_JOB_EVENT)
				continue;
			e->rank = -1;
			mnl_attr_for_each(a, m, sizeof(*gh)) {
				switch (mnl_attr_get_type(a)) {
				case RINA_A_JOB_ID:
					e->job = mnl_attr_get_u16(a);
					break;
				case RINA_A_JOB_EVENT:
					e->type = mnl_attr_get_u8(a);
					break;
				case RINA_A_JOB_EVENT_RANK:
					e->rank = mnl_attr_get_u16(a);
					break;
				case RINA_A_JOB_STATE:
					e->state = mnl_attr_get_u8(a);
					break;
				}
			}
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* generic netlink tests                                               */

static void test_job_add_get(struct rgenl *g)
{
	struct job_list l;
	struct job_info j;
	int err;

	err = add_std_job(g, 1, 4);
	result(!err, "genl_job_add", "err %d %s", err, g->errmsg);
	err = get_job(g, 1, &j);
	result(!err && j.id == 1 && j.n_ranks == 4 && j.n_racks == 2 &&
	       j.rank_ip[2] == IP(198, 18, 1, 1) && j.rank_port[3] == 0x5240 &&
	       j.rank_rack[3] == 1 && j.rank_mac[0] && j.rack_ina[0] &&
	       !j.rack_ina[1] && j.state == RINA_JOB_READY &&
	       j.n_attached == 0, "genl_job_get",
	       "err %d id %d ranks %d racks %d state %d", err, j.id,
	       j.n_ranks, j.n_racks, j.state);
	/* defaults from net.rina.* (10000 ms, 2000 us, 256, 64) */
	result(!err && j.elems == 256 && j.window == 64 &&
	       j.timeout_ms == 10000 && j.rto_us == 2000,
	       "genl_job_defaults_from_sysctl", "E %d W %d T %u RTO %u",
	       j.elems, j.window, j.timeout_ms, j.rto_us);
	/* 2 racks of 2, rack 0 INA: L = x + m(k - x) = 1 + 2 = 3 */
	result(!err && j.ring_len == 3 && j.agents == 1, "genl_job_ring_len",
	       "L %d agents %d", j.ring_len, j.agents);

	err = add_std_job(g, 2, 2);
	if (!err)
		err = dump_jobs(g, &l);
	result(!err && l.n == 2 && l.j[0].id == 1 && l.j[1].id == 2 &&
	       l.j[1].ring_len == 1, "genl_job_dump",
	       "err %d n %d", err, l.n);

	err = add_std_job(g, 1, 4);
	expect_err(g, "genl_job_add_duplicate_id", err, EEXIST,
		   "job id already in use");
}


/* The largest jobs (256 ranks in 64 racks of 4) fit a reply, and a dump
 * of many of them continues across messages. */
static int add_full_job(struct rgenl *g, int id)
{
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_ADD, 0);
	struct nlattr *l;
	int i;

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, id);
	l = mnl_attr_nest_start(nlh, RINA_A_JOB_RACKS);
	for (i = 0; i < RINA_MAX_RACKS; i++)
		put_rack(nlh, i, i % 2, i % 2 ? IP(198, 19, i, 254) : 0);
	mnl_attr_nest_end(nlh, l);
	l = mnl_attr_nest_start(nlh, RINA_A_JOB_RANKS);
	for (i = 0; i < RINA_MAX_RANKS; i++) {
		struct rank_spec r = {
			.id = i, .ip = IP(198, 19, i / 4, 1 + i % 4),
			.port = 0x5240, .rack = i / 4, .maclen = 6,
		};
		put_rank(nlh, &r);
	}
	mnl_attr_nest_end(nlh, l);
	return rgenl_talk(g, nlh, NULL, NULL);
}

static void test_full_jobs(struct rgenl *g)
{
	struct job_list l;
	struct job_info j = { 0 };
	int id, err = 0, n = 0;

	for (id = 200; id < 220 && !err; id++, n++)
		err = add_full_job(g, id);
	result(!err && n == 20, "genl_job_add_256_ranks", "err %d %s", err,
	       g->errmsg);
	err = get_job(g, 200, &j);
	/* 32 INA racks of 4 = 32 members, 32 plain racks of 4 = 128 */
	result(!err && j.n_ranks == RINA_MAX_RANKS &&
	       j.n_racks == RINA_MAX_RACKS && j.ring_len == 160 &&
	       j.agents == 32, "genl_job_get_256_ranks", "err %d ranks %d L %d",
	       err, j.n_ranks, j.ring_len);
	err = dump_jobs(g, &l);
	result(!err && l.full == 20 && l.total == 22,
	       "genl_job_dump_continues", "err %d total %d full %d", err,
	       l.total, l.full);
	for (id = 200; id < 220; id++)
		del_job(g, id);
}

static void test_job_explicit_params(struct rgenl *g)
{
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_ADD, 0);
	struct job_info j = { 0 };
	int err;

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 3);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ELEMS, 64);
	mnl_attr_put_u16(nlh, RINA_A_JOB_WINDOW, 32768);
	mnl_attr_put_u32(nlh, RINA_A_JOB_TIMEOUT_MS, 3600000);
	mnl_attr_put_u32(nlh, RINA_A_JOB_RTO_US, 50);
	put_std_racks(nlh, 3);
	put_std_ranks(nlh, 6);
	err = rgenl_talk(g, nlh, NULL, NULL);
	if (!err)
		err = get_job(g, 3, &j);
	result(!err && j.elems == 64 && j.window == 32768 &&
	       j.timeout_ms == 3600000 && j.rto_us == 50 && j.ring_len == 5,
	       "genl_job_add_explicit_params", "err %d %s E %d W %d L %d",
	       err, g->errmsg, j.elems, j.window, j.ring_len);
	err = del_job(g, 3);
	result(!err && get_job(g, 3, &j) == -ENOENT, "genl_job_del",
	       "err %d", err);
}

enum bad_kind {
	BAD_NO_ID, BAD_NO_RANKS, BAD_NO_RACKS, BAD_ID_ZERO, BAD_ELEMS,
	BAD_WINDOW_RANGE, BAD_WINDOW_POW2, BAD_TIMEOUT, BAD_RTO_RANGE,
	BAD_RTO_VS_TIMEOUT, BAD_PORT, BAD_MAC_LEN, BAD_UNKNOWN_ATTR,
	BAD_RANK_DUP, BAD_RANK_GAP, BAD_RANK_NO_IP, BAD_RANK_NO_ID,
	BAD_RANK_NO_RACK, BAD_RANK_ID_RANGE, BAD_RANK_UNKNOWN_RACK,
	BAD_DUP_ADDR, BAD_RACK_DUP, BAD_RACK_NO_ID, BAD_EMPTY_RANKS,
	BAD_EMPTY_RACKS, BAD_RANKS_WRONG_TYPE, BAD_ID_U32, BAD_RANK_IP_ZERO,
	BAD_SECRET_SHORT, BAD_SECRET_LONG, BAD_SIGNED_IN_ADD,
	BAD_OUTPUT_IN_ADD, BAD_AUTH_VALUE, BAD_AUTH_MAC_TOR,
	BAD_RACK_AGENT_PORT,
	BAD_N,
};

static const struct {
	const char *name;
	int err;
	const char *msg;
} bad_cases[BAD_N] = {
	[BAD_NO_ID]	 = { "missing_id", EINVAL, "missing job id" },
	[BAD_NO_RANKS]	 = { "missing_ranks", EINVAL, "missing rank table" },
	[BAD_NO_RACKS]	 = { "missing_racks", EINVAL, "missing rack table" },
	[BAD_ID_ZERO]	 = { "id_zero", ERANGE, "out of range" },
	[BAD_ELEMS]	 = { "elems_1025", ERANGE, "out of range" },
	[BAD_WINDOW_RANGE] = { "window_1", ERANGE, "out of range" },
	[BAD_WINDOW_POW2] = { "window_48", EINVAL, "power of two" },
	[BAD_TIMEOUT]	 = { "timeout_9ms", ERANGE, "out of range" },
	[BAD_RTO_RANGE]	 = { "rto_49us", ERANGE, "out of range" },
	[BAD_RTO_VS_TIMEOUT] = { "rto_above_timeout", EINVAL,
				 "retransmission timeout" },
	[BAD_PORT]	 = { "rank_agent_port", ERANGE, "out of range" },
	[BAD_MAC_LEN]	 = { "rank_mac_5_bytes", ERANGE, "out of range" },
	[BAD_UNKNOWN_ATTR] = { "unknown_attr", EINVAL, "Unknown attribute" },
	[BAD_RANK_DUP]	 = { "rank_id_twice", EINVAL, "rank id given twice" },
	[BAD_RANK_GAP]	 = { "rank_ids_gap", EINVAL, "without gaps" },
	[BAD_RANK_NO_IP] = { "rank_no_ipv4", EINVAL,
			     "rank entry without an address" },
	[BAD_RANK_NO_ID] = { "rank_no_id", EINVAL, "rank entry without an id" },
	[BAD_RANK_NO_RACK] = { "rank_no_rack", EINVAL,
			       "rank entry without a rack" },
	[BAD_RANK_ID_RANGE] = { "rank_id_256", ERANGE, "out of range" },
	[BAD_RANK_UNKNOWN_RACK] = { "rank_unknown_rack", EINVAL,
				    "not declared" },
	[BAD_DUP_ADDR]	 = { "ranks_share_address", EINVAL,
			     "share one address" },
	[BAD_RACK_DUP]	 = { "rack_twice", EINVAL, "rack declared twice" },
	[BAD_RACK_NO_ID] = { "rack_no_id", EINVAL, "rack entry without an id" },
	[BAD_EMPTY_RANKS] = { "no_rank_entries", EINVAL, "at least one rank" },
	[BAD_EMPTY_RACKS] = { "no_rack_entries", EINVAL, "at least one rack" },
	[BAD_RANKS_WRONG_TYPE] = { "ranks_holds_rack", EINVAL,
				   "only rank entries" },
	[BAD_ID_U32]	 = { "id_wrong_width", EINVAL, "attribute length" },
	[BAD_RANK_IP_ZERO] = { "rank_ipv4_zero", EINVAL, "no IPv4 address" },
	[BAD_SECRET_SHORT] = { "secret_15_bytes", ERANGE, "out of range" },
	[BAD_SECRET_LONG] = { "secret_17_bytes", ERANGE, "out of range" },
	/* output attributes are no requests */
	[BAD_SIGNED_IN_ADD] = { "signed_flag", EINVAL, "Unsupported attribute" },
	[BAD_OUTPUT_IN_ADD] = { "state", EINVAL, "Unsupported attribute" },
	[BAD_AUTH_VALUE] = { "auth_2", ERANGE, "out of range" },
	/* the bad job's rack has a ToR: no per-packet MACs there */
	[BAD_AUTH_MAC_TOR] = { "auth_mac_with_tor", EINVAL,
			       "cannot check per-packet MACs" },
	/* a rack's agent port is one of the agent ports, not a rank's */
	[BAD_RACK_AGENT_PORT] = { "rack_agent_port_21063", ERANGE,
				  "out of range" },
};

static struct nlmsghdr *bad_job(struct rgenl *g, enum bad_kind k)
{
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_ADD, 0);
	struct nlattr *l;
	struct rank_spec r;
	int i, n = 4;

	if (k == BAD_ID_U32)
		mnl_attr_put_u32(nlh, RINA_A_JOB_ID, 9);
	else if (k != BAD_NO_ID)
		mnl_attr_put_u16(nlh, RINA_A_JOB_ID, k == BAD_ID_ZERO ? 0 : 9);
	if (k == BAD_ELEMS)
		mnl_attr_put_u16(nlh, RINA_A_JOB_ELEMS, 1025);
	if (k == BAD_WINDOW_RANGE)
		mnl_attr_put_u16(nlh, RINA_A_JOB_WINDOW, 1);
	if (k == BAD_WINDOW_POW2)
		mnl_attr_put_u16(nlh, RINA_A_JOB_WINDOW, 48);
	if (k == BAD_TIMEOUT)
		mnl_attr_put_u32(nlh, RINA_A_JOB_TIMEOUT_MS, 9);
	if (k == BAD_RTO_RANGE)
		mnl_attr_put_u32(nlh, RINA_A_JOB_RTO_US, 49);
	if (k == BAD_RTO_VS_TIMEOUT) {
		mnl_attr_put_u32(nlh, RINA_A_JOB_TIMEOUT_MS, 10);
		mnl_attr_put_u32(nlh, RINA_A_JOB_RTO_US, 20000);
	}
	if (k == BAD_UNKNOWN_ATTR)
		mnl_attr_put_u32(nlh, RINA_A_JOB_MAX + 7, 1);
	if (k == BAD_SECRET_SHORT || k == BAD_SECRET_LONG) {
		static const uint8_t key[RINA_SECRET_LEN + 1];

		mnl_attr_put(nlh, RINA_A_JOB_SECRET, k == BAD_SECRET_SHORT ?
			     RINA_SECRET_LEN - 1 : RINA_SECRET_LEN + 1, key);
	}
	if (k == BAD_SIGNED_IN_ADD)
		mnl_attr_put_u8(nlh, RINA_A_JOB_SIGNED, 1);
	if (k == BAD_AUTH_VALUE)
		mnl_attr_put_u8(nlh, RINA_A_JOB_AUTH, 2);
	if (k == BAD_AUTH_MAC_TOR)
		mnl_attr_put_u8(nlh, RINA_A_JOB_AUTH, RINA_JOB_AUTH_MAC);
	if (k == BAD_OUTPUT_IN_ADD)
		mnl_attr_put_u8(nlh, RINA_A_JOB_STATE, RINA_JOB_READY);
	if (k != BAD_NO_RACKS) {
		l = mnl_attr_nest_start(nlh, RINA_A_JOB_RACKS);
		if (k != BAD_EMPTY_RACKS) {
			put_rack(nlh, k == BAD_RACK_NO_ID ? -1 : 0, true,
				 TOR_IP);
			put_rack(nlh, 1, false, 0);
		}
		if (k == BAD_RACK_DUP)
			put_rack(nlh, 1, false, 0);
		if (k == BAD_RACK_AGENT_PORT) {
			struct nlattr *e;

			e = mnl_attr_nest_start(nlh, RINA_A_JOB_RACK);
			mnl_attr_put_u16(nlh, RINA_A_RACK_ID, 2);
			mnl_attr_put(nlh, RINA_A_RACK_INA, 0, NULL);
			mnl_attr_put_u16(nlh, RINA_A_RACK_AGENT_PORT,
					 RINA_UDP_PORT_AGENT_MIN - 1);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_nest_end(nlh, l);
	}
	if (k == BAD_NO_RANKS)
		return nlh;
	l = mnl_attr_nest_start(nlh, RINA_A_JOB_RANKS);
	if (k == BAD_RANKS_WRONG_TYPE)
		put_rack(nlh, 0, false, 0);
	for (i = 0; i < n && k != BAD_EMPTY_RANKS; i++) {
		r = std_rank(i);
		if (i == 2) {
			switch (k) {
			case BAD_PORT:
				r.port = RINA_UDP_PORT_AGENT;
				break;
			case BAD_MAC_LEN:
				r.maclen = 5;
				break;
			case BAD_RANK_DUP:
				r.id = 1;
				break;
			case BAD_RANK_GAP:
				r.id = 7;
				break;
			case BAD_RANK_NO_IP:
				r.ip = 0;
				break;
			case BAD_RANK_NO_ID:
				r.id = -1;
				break;
			case BAD_RANK_NO_RACK:
				r.rack = -1;
				break;
			case BAD_RANK_ID_RANGE:
				r.id = 256;
				break;
			case BAD_RANK_UNKNOWN_RACK:
				r.rack = 5;
				break;
			case BAD_DUP_ADDR:
				r.ip = std_rank(1).ip;
				break;
			default:
				break;
			}
		}
		put_rank(nlh, &r);
		if (i == 2 && k == BAD_RANK_IP_ZERO) {
			/* an explicit 0.0.0.0 instead of an omitted one */
			struct nlattr *e = mnl_attr_nest_start(nlh,
							       RINA_A_JOB_RANK);

			mnl_attr_put_u16(nlh, RINA_A_RANK_ID, 4);
			mnl_attr_put_u32(nlh, RINA_A_RANK_IPV4, 0);
			mnl_attr_put_u16(nlh, RINA_A_RANK_RACK, 1);
			mnl_attr_nest_end(nlh, e);
		}
	}
	mnl_attr_nest_end(nlh, l);
	return nlh;
}

static uint64_t job_rejects(struct rgenl *g)
{
	struct stats s;

	get_stats(g, &s, false);
	return s.v[RINA_A_STATS_JOB_REJECTS];
}

static void test_job_add_bad(struct rgenl *g)
{
	struct job_info j;
	char name[96];
	uint64_t r0, r1, r2;
	int k, err;

	/* the module counts what its own checks reject, not the policy's */
	r0 = job_rejects(g);
	rgenl_talk(g, bad_job(g, BAD_RANK_DUP), NULL, NULL);
	r1 = job_rejects(g);
	rgenl_talk(g, bad_job(g, BAD_ELEMS), NULL, NULL);
	r2 = job_rejects(g);
	result(r1 - r0 == 1 && r2 == r1, "stats_count_job_rejects",
	       "+%llu +%llu", (unsigned long long)(r1 - r0),
	       (unsigned long long)(r2 - r1));

	for (k = 0; k < BAD_N; k++) {
		err = rgenl_talk(g, bad_job(g, k), NULL, NULL);
		snprintf(name, sizeof(name), "genl_job_add_rejects_%s",
			 bad_cases[k].name);
		expect_err(g, name, err, bad_cases[k].err, bad_cases[k].msg);
	}
	/* nothing of the rejected job 9 was kept */
	err = get_job(g, 9, &j);
	result(err == -ENOENT, "genl_job_add_rejects_leave_no_job",
	       "err %d", err);
	/* the extack points at the offending attribute */
	err = rgenl_talk(g, bad_job(g, BAD_RANK_UNKNOWN_RACK), NULL, NULL);
	result(err == -EINVAL && g->err_offs > 0, "genl_extack_bad_attr_offset",
	       "err %d offs %u", err, g->err_offs);
	err = rgenl_talk(g, bad_job(g, BAD_NO_ID), NULL, NULL);
	result(err == -EINVAL && g->miss_type == RINA_A_JOB_ID,
	       "genl_extack_missing_attr_type", "err %d miss %u", err,
	       g->miss_type);
}

static void test_job_del_get_bad(struct rgenl *g)
{
	struct nlmsghdr *nlh;
	struct job_info j;
	int err;

	err = del_job(g, 4242);
	expect_err(g, "genl_job_del_unknown", err, ENOENT, "no such job");
	err = get_job(g, 4242, &j);
	expect_err(g, "genl_job_get_unknown", err, ENOENT, "no such job");
	nlh = rgenl_msg(g, RINA_CMD_JOB_DEL, 0);
	err = rgenl_talk(g, nlh, NULL, NULL);
	expect_err(g, "genl_job_del_missing_id", err, EINVAL,
		   "missing job id");
	nlh = rgenl_msg(g, RINA_CMD_JOB_GET, 0);
	err = rgenl_talk(g, nlh, NULL, NULL);
	expect_err(g, "genl_job_get_missing_id", err, EINVAL,
		   "missing job id");
	nlh = rgenl_msg(g, RINA_CMD_JOB_DEL, 0);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 1);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ELEMS, 8);
	err = rgenl_talk(g, nlh, NULL, NULL);
	expect_err(g, "genl_job_del_rejects_extra_attr", err, EINVAL,
		   "Unknown attribute");
	nlh = rgenl_msg(g, RINA_CMD_STATS_GET, 0);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 1);
	err = rgenl_talk(g, nlh, NULL, NULL);
	result(err == -EINVAL, "genl_stats_get_rejects_attr", "err %d", err);
	nlh = rgenl_msg(g, RINA_CMD_JOB_EVENT, 0);
	err = rgenl_talk(g, nlh, NULL, NULL);
	result(err == -EOPNOTSUPP, "genl_event_cmd_not_requestable",
	       "err %d", err);
}

/* A secret no reply may carry: its bytes are looked for in each one. */
static const uint8_t test_secret[RINA_SECRET_LEN] = {
	0x5e, 0xc4, 0xe7, 0x00, 0x11, 0x22, 0x33, 0x44,
	0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
};

struct scan_ctx {
	struct job_list l;
	int leaks;		/* replies holding the secret's bytes */
};

static int scan_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scan_ctx *c = data;

	if (memmem(nlh, nlh->nlmsg_len, test_secret, sizeof(test_secret)))
		c->leaks++;
	return job_cb(nlh, &c->l);
}

static void test_job_secret(struct rgenl *g)
{
	static struct scan_ctx c;
	struct nlmsghdr *nlh = rgenl_msg(g, RINA_CMD_JOB_ADD, 0);
	struct job_info j = { 0 };
	int err, i, signed_seen = 0;

	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 5);
	mnl_attr_put(nlh, RINA_A_JOB_SECRET, sizeof(test_secret),
		     test_secret);
	put_std_racks(nlh, 1);
	put_std_ranks(nlh, 2);
	err = rgenl_talk(g, nlh, NULL, NULL);
	result(!err, "genl_job_add_with_secret", "err %d %s", err,
	       g->errmsg);
	memset(&c, 0, sizeof(c));
	nlh = rgenl_msg(g, RINA_CMD_JOB_GET, 0);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 5);
	err = rgenl_talk(g, nlh, scan_cb, &c);
	result(!err && c.l.n == 1 && c.l.j[0].signed_job == 1 &&
	       !c.l.j[0].secret_attr && !c.leaks,
	       "genl_job_get_signed_without_secret",
	       "err %d n %d signed %d secret attr %d leaks %d", err, c.l.n,
	       c.l.j[0].signed_job, c.l.j[0].secret_attr, c.leaks);
	memset(&c, 0, sizeof(c));
	err = rgenl_talk(g, rgenl_msg(g, RINA_CMD_JOB_GET, NLM_F_DUMP),
			 scan_cb, &c);
	for (i = 0; i < c.l.n; i++)
		signed_seen += c.l.j[i].signed_job == (c.l.j[i].id == 5);
	result(!err && c.l.n >= 2 && signed_seen == c.l.n && !c.leaks,
	       "genl_job_dump_signed_without_secret",
	       "err %d n %d right signed %d leaks %d", err, c.l.n,
	       signed_seen, c.leaks);
	err = get_job(g, 1, &j);
	result(!err && j.signed_job == 0, "genl_job_get_unsigned",
	       "err %d signed %d", err, j.signed_job);
	err = del_job(g, 5);
	result(!err && get_job(g, 5, &j) == -ENOENT,
	       "genl_job_del_with_secret", "err %d", err);
	/* the secret is write-only: get and del take no secret either */
	nlh = rgenl_msg(g, RINA_CMD_JOB_GET, 0);
	mnl_attr_put_u16(nlh, RINA_A_JOB_ID, 1);
	mnl_attr_put(nlh, RINA_A_JOB_SECRET, sizeof(test_secret),
		     test_secret);
	err = rgenl_talk(g, nlh, NULL, NULL);
	expect_err(g, "genl_job_get_rejects_secret", err, EINVAL,
		   "Unknown attribute");
}

static void test_job_limit(struct rgenl *g)
{
	struct stats s;
	int id, err = 0, added = 0;

	get_stats(g, &s, false);
	for (id = 100; id < 100 + 80; id++) {
		err = add_std_job(g, id, 1);
		if (err)
			break;
		added++;
	}
	expect_err(g, "genl_job_add_limit_per_netns", err, ENOSPC,
		   "too many jobs");
	result(added + (int)s.jobs == 64, "genl_job_limit_is_64",
	       "added %d with %u present", added, s.jobs);
	for (id = 100; id < 100 + added; id++)
		del_job(g, id);
}

static void test_stats(struct rgenl *g)
{
	struct stats tot, cpu;
	int err, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

	err = get_stats(g, &tot, false);
	result(!err && tot.rows == 1 && tot.jobs == 2 &&
	       tot.v[RINA_A_STATS_JOBS_ADDED] >= 3 &&
	       tot.v[RINA_A_STATS_JOBS_DELETED] >= 1 &&
	       tot.v[RINA_A_STATS_JOB_REJECTS] >= 10,
	       "genl_stats_get", "err %d jobs %u added %llu rejects %llu",
	       err, tot.jobs,
	       (unsigned long long)tot.v[RINA_A_STATS_JOBS_ADDED],
	       (unsigned long long)tot.v[RINA_A_STATS_JOB_REJECTS]);
	err = get_stats(g, &cpu, true);
	result(!err && cpu.rows == ncpu && cpu.cpu_seen == ncpu &&
	       cpu.v[RINA_A_STATS_JOBS_ADDED] ==
	       tot.v[RINA_A_STATS_JOBS_ADDED],
	       "genl_stats_dump_per_cpu", "err %d rows %d cpus %d", err,
	       cpu.rows, ncpu);
}

static void test_events(struct rgenl *g)
{
	struct rgenl ev;
	struct event e[4] = { 0 };
	int err, n;

	err = rgenl_open(&ev);
	if (!err)
		err = rgenl_subscribe(&ev);
	result(!err, "genl_events_group_join", "err %d", err);
	if (err)
		return;
	add_std_job(g, 50, 2);
	del_job(g, 50);
	n = read_events(&ev, e, 4, 1000);
	result(n == 2 && e[0].type == RINA_EVENT_JOB_ADDED && e[0].job == 50 &&
	       e[1].type == RINA_EVENT_JOB_DELETED && e[1].job == 50,
	       "genl_events_add_del", "n %d type %d/%d", n, e[0].type,
	       e[1].type);
	rgenl_close(&ev);
}

/* Run fn in a child; the child's exit status is its number of failures. */
static void in_child(const char *name, void (*fn)(int *fails))
{
	int st, fails = 0;
	pid_t pid = fork();

	if (pid == 0) {
		fn(&fails);
		fflush(stdout);
		_exit(fails > 100 ? 100 : fails);
	}
	waitpid(pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0, name,
	       "child status 0x%x", st);
}

static void child_check(int *fails, bool ok, const char *what, int err)
{
	if (!ok) {
		printf("# %s: err %d (%s)\n", what, err, strerror(-err));
		(*fails)++;
	}
}

static void unpriv_body(int *fails)
{
	struct job_list l;
	struct stats s;
	struct rgenl g;
	int err, fd;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		printf("# cannot drop privileges: %s\n", strerror(errno));
		(*fails)++;
		return;
	}
	err = rgenl_open(&g);
	child_check(fails, !err, "open as nobody", err);
	if (err)
		return;
	err = add_std_job(&g, 60, 2);
	child_check(fails, err == -EPERM, "JOB_ADD as nobody is EPERM", err);
	err = del_job(&g, 1);
	child_check(fails, err == -EPERM, "JOB_DEL as nobody is EPERM", err);
	err = dump_jobs(&g, &l);
	child_check(fails, !err && l.n == 2, "JOB_GET dump as nobody", err);
	err = get_stats(&g, &s, false);
	child_check(fails, !err && s.jobs == 2, "STATS_GET as nobody", err);
	err = rgenl_subscribe(&g);
	child_check(fails, !err, "join events as nobody", err);
	fd = open("/dev/rina", O_RDWR);
	child_check(fails, fd < 0 && errno == EACCES,
		    "/dev/rina is root-only", -errno);
	rgenl_close(&g);
}

static void netns_body(int *fails)
{
	struct job_list l;
	struct stats s;
	struct rgenl g;
	char buf[32] = "";
	int err, fd;

	if (unshare(CLONE_NEWNET)) {
		printf("# unshare: %s\n", strerror(errno));
		(*fails)++;
		return;
	}
	err = rgenl_open(&g);
	child_check(fails, !err, "family visible in a new netns", err);
	if (err)
		return;
	err = dump_jobs(&g, &l);
	child_check(fails, !err && l.n == 0, "new netns has no jobs", err);
	err = add_std_job(&g, 1, 2);
	child_check(fails, !err, "job id 1 free in the new netns", err);
	err = get_stats(&g, &s, false);
	child_check(fails, !err && s.jobs == 1 &&
		    s.v[RINA_A_STATS_JOBS_ADDED] == 1,
		    "new netns has its own stats", err);
	fd = open("/proc/sys/net/rina/default_elems", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = 0;
		close(fd);
	}
	child_check(fails, atoi(buf) == 256,
		    "new netns has default sysctls", -errno);
	/* exit with an fd attached in this netns: torn down at exit */
	fd = open("/dev/rina", O_RDWR);
	err = fd < 0 ? -errno : attach(fd, 1, 0);
	child_check(fails, !err, "attach in the new netns", err);
	rgenl_close(&g);
	/* the netns and its job go away with this process */
}

static void unpriv_test(int *fails) { unpriv_body(fails); }

/* ------------------------------------------------------------------ */
/* in-kernel agent workers (run in a netns of their own)              */

#define AGENT_IP	IP(198, 18, 0, 1)

static int udp_bind_agent_port(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_addr.s_addr = AGENT_IP,
		.sin_port = htons(RINA_UDP_PORT_AGENT),
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), err = 0;

	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* A control message to the agent port; mutate() spoils it. */
static void send_agent(int fd, int job, int ver, int op, int n_elem,
		       int rsvd, int dtype, size_t len)
{
	static uint8_t buf[5000];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct sockaddr_in to = {
		.sin_family = AF_INET, .sin_addr.s_addr = AGENT_IP,
		.sin_port = htons(RINA_UDP_PORT_AGENT),
	};

	memset(buf, 0, sizeof(buf));
	h->ver_op = (uint8_t)(ver << 4 | op);
	h->job_id = htons(job);
	h->n_elem = htons(n_elem);
	h->rsvd = htons(rsvd);
	h->dtype_op = (uint8_t)dtype;
	sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
}

static void agent_body(int *fails)
{
	const size_t ctrl = RINA_HDR_LEN + sizeof(struct rina_ctrl);
	struct stats s0, s1;
	struct job_info j = { 0 };
	struct rgenl g;
	int err, fd, tx, i;

	if (unshare(CLONE_NEWNET) ||
	    system("/usr/bin/ip link set lo up && "
		   "/usr/bin/ip addr add 198.18.0.1/32 dev lo")) {
		printf("# netns setup failed\n");
		(*fails)++;
		return;
	}
	err = rgenl_open(&g);
	child_check(fails, !err, "open", err);
	if (err)
		return;
	err = add_std_job(&g, 1, 4);
	err = err ? err : get_job(&g, 1, &j);
	child_check(fails, !err && j.local_agents == 1,
		    "rank 0 is the local agent of INA rack 0: one worker", err);
	fd = udp_bind_agent_port();
	child_check(fails, fd == -EADDRINUSE,
		    "the worker holds the agent port", fd);
	if (fd >= 0)
		close(fd);

	get_stats(&g, &s0, false);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	send_agent(tx, 1, 1, RINA_OP_CTRL, 4, 0, 0, 10);	   /* runt */
	send_agent(tx, 1, 2, RINA_OP_CTRL, 4, 0, 0, ctrl);	   /* version */
	send_agent(tx, 1, 1, 9, 4, 0, 0, ctrl);			   /* opcode */
	send_agent(tx, 1, 1, RINA_OP_CTRL, 4, 0, 0, RINA_HDR_LEN); /* length */
	send_agent(tx, 1, 1, RINA_OP_AG_DATA, 2000, 0, 0, ctrl);  /* oversize */
	send_agent(tx, 1, 1, RINA_OP_AG_DATA, 1024, 0, 0, 5000);  /* truncated */
	send_agent(tx, 1, 1, RINA_OP_SR_CONTRIB, 1, 0, 0x50,
		   RINA_HDR_LEN + 4);				   /* dtype */
	send_agent(tx, 1, 1, RINA_OP_CTRL, 4, 1, 0, ctrl);	   /* rsvd */
	send_agent(tx, 99, 1, RINA_OP_CTRL, 4, 0, 0, ctrl);	   /* job */
	send_agent(tx, 1, 1, RINA_OP_CTRL, 4, 0, 0, ctrl);	   /* good */
	close(tx);
	for (i = 0; i < 50; i++) {
		get_stats(&g, &s1, false);
		if (s1.v[RINA_A_STATS_AGENT_RX] > s0.v[RINA_A_STATS_AGENT_RX])
			break;
		usleep(20000);
	}
#define D(x) (s1.v[RINA_A_STATS_##x] - s0.v[RINA_A_STATS_##x])
	child_check(fails, D(AGENT_RX) == 1, "one well-formed packet", 0);
	child_check(fails, D(AGENT_DROP_RUNT) == 1 &&
		    D(AGENT_DROP_BAD_VERSION) == 1 &&
		    D(AGENT_DROP_BAD_OPCODE) == 1 &&
		    D(AGENT_DROP_BAD_LENGTH) == 1 &&
		    D(AGENT_DROP_OVERSIZE) == 2 &&
		    D(AGENT_DROP_BAD_DTYPE) == 1 &&
		    D(AGENT_DROP_BAD_FIELD) == 1 &&
		    D(AGENT_DROP_UNKNOWN_JOB) == 1,
		    "every malformed packet dropped and counted by reason", 0);
#undef D
	err = del_job(&g, 1);
	fd = err ? err : udp_bind_agent_port();
	child_check(fails, fd >= 0, "job delete frees the agent port", fd);
	err = add_std_job(&g, 1, 4);
	child_check(fails, err == -EADDRINUSE &&
		    strstr(g.errmsg, "agent port"),
		    "job add with the agent port taken fails", err);
	if (fd >= 0)
		close(fd);
	err = system("/usr/bin/ip addr del 198.18.0.1/32 dev lo");
	err = err ? -EIO : add_std_job(&g, 2, 4);
	err = err ? err : get_job(&g, 2, &j);
	child_check(fails, !err && j.local_agents == 0,
		    "no worker when the agent address is not local", err);
	err = system("/usr/bin/ip addr add 198.18.0.1/32 dev lo");
	err = err ? -EIO : add_std_job(&g, 3, 4);
	err = err ? err : get_job(&g, 3, &j);
	child_check(fails, !err && j.local_agents == 1,
		    "worker started again", err);
	rgenl_close(&g);
	/* the netns goes away with a running worker: torn down at exit */
}

static void agent_test(int *fails) { agent_body(fails); }

static void netns_test(int *fails) { netns_body(fails); }

/* ------------------------------------------------------------------ */
/* /dev/rina tests                                                     */

static int dev_open(void)
{
	return open("/dev/rina", O_RDWR | O_CLOEXEC);
}

static int attach(int fd, int job, int rank)
{
	struct rina_attach a = {
		.size = sizeof(a), .job_id = job, .rank = rank,
	};

	return ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0;
}

static int get_plan(int fd, struct rina_plan *p,
		    struct rina_ring_member *ring, unsigned int cap)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->ring = (uintptr_t)ring;
	p->ring_cap = cap;
	return ioctl(fd, RINA_IOC_GET_PLAN, p) ? -errno : 0;
}

/* Read queued /dev/rina events without blocking; -errno on failure. */
static int read_dev_events(int fd, struct rina_dev_event *ev, int max)
{
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	n = read(fd, ev, max * sizeof(*ev));
	fcntl(fd, F_SETFL, fl);
	if (n < 0)
		return -errno;
	return (int)(n / sizeof(*ev));
}

static void expect_ioc(const char *name, int err, int want)
{
	result(err == -want, name, "got %d (%s), want %d", err,
	       strerror(-err), -want);
}

static void test_ioctl_misuse(struct rgenl *g)
{
	struct {
		struct rina_attach a;
		uint8_t tail[16];
	} big;
	struct rina_attach a;
	struct rina_plan p;
	struct stats s0, s1;
	int fd = dev_open(), fd2 = dev_open(), err;

	result(fd >= 0 && fd2 >= 0, "dev_open", "%s", strerror(errno));
	get_stats(g, &s0, false);

	expect_ioc("ioctl_attach_unknown_job", attach(fd, 4242, 0), ENOENT);
	expect_ioc("ioctl_attach_rank_out_of_range", attach(fd, 1, 4),
		   ERANGE);
	a = (struct rina_attach){ .size = 8, .job_id = 1 };
	expect_ioc("ioctl_attach_size_too_small",
		   ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0, EINVAL);
	a = (struct rina_attach){ .size = 0, .job_id = 1 };
	expect_ioc("ioctl_attach_size_zero",
		   ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0, EINVAL);
	a = (struct rina_attach){ .size = 8192, .job_id = 1 };
	expect_ioc("ioctl_attach_size_above_page",
		   ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0, EINVAL);
	memset(&big, 0, sizeof(big));
	big.a = (struct rina_attach){ .size = sizeof(big), .job_id = 1 };
	big.tail[3] = 1;
	expect_ioc("ioctl_attach_unknown_tail_nonzero",
		   ioctl(fd, RINA_IOC_ATTACH, &big) ? -errno : 0, E2BIG);
	a = (struct rina_attach){ .size = sizeof(a), .job_id = 1,
				  .flags = 1 };
	expect_ioc("ioctl_attach_unknown_flags",
		   ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0, EINVAL);
	a = (struct rina_attach){ .size = sizeof(a), .job_id = 1,
				  .rsvd = 1 };
	expect_ioc("ioctl_attach_reserved_nonzero",
		   ioctl(fd, RINA_IOC_ATTACH, &a) ? -errno : 0, EINVAL);
	expect_ioc("ioctl_attach_bad_pointer",
		   ioctl(fd, RINA_IOC_ATTACH, (void *)8) ? -errno : 0, EFAULT);
	expect_ioc("ioctl_unknown_cmd",
		   ioctl(fd, _IO(RINA_IOC_MAGIC, 99)) ? -errno : 0, ENOTTY);
	expect_ioc("ioctl_detach_unattached",
		   ioctl(fd, RINA_IOC_DETACH, 0) ? -errno : 0, ENOTCONN);
	expect_ioc("ioctl_plan_unattached", get_plan(fd, &p, NULL, 0),
		   ENOTCONN);

	/* a larger struct whose unknown tail is zero is fine (newer caller) */
	big.tail[3] = 0;
	big.a.rank = 1;
	err = ioctl(fd, RINA_IOC_ATTACH, &big) ? -errno : 0;
	result(!err, "ioctl_attach_larger_struct_zero_tail", "err %d", err);
	expect_ioc("ioctl_attach_twice_same_fd", attach(fd, 1, 2), EISCONN);
	expect_ioc("ioctl_attach_rank_taken", attach(fd2, 1, 1), EBUSY);
	expect_ioc("ioctl_detach_with_arg",
		   ioctl(fd, RINA_IOC_DETACH, 1) ? -errno : 0, EINVAL);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.flags = 2;
	expect_ioc("ioctl_plan_unknown_flags",
		   ioctl(fd, RINA_IOC_GET_PLAN, &p) ? -errno : 0, EINVAL);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.rsvd = 1;
	expect_ioc("ioctl_plan_reserved_nonzero",
		   ioctl(fd, RINA_IOC_GET_PLAN, &p) ? -errno : 0, EINVAL);
	memset(&p, 0, sizeof(p));
	p.size = RINA_PLAN_SIZE_VER0 - 4;
	expect_ioc("ioctl_plan_size_too_small",
		   ioctl(fd, RINA_IOC_GET_PLAN, &p) ? -errno : 0, EINVAL);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.ring_cap = 4;
	expect_ioc("ioctl_plan_ring_cap_without_buffer",
		   ioctl(fd, RINA_IOC_GET_PLAN, &p) ? -errno : 0, EFAULT);
	err = ioctl(fd, RINA_IOC_DETACH, 0) ? -errno : 0;
	result(!err, "ioctl_detach", "err %d", err);

	get_stats(g, &s1, false);
	/* 19 rejected calls above; 1 attach, 1 detach */
	result(s1.v[RINA_A_STATS_IOCTL_REJECTS] -
	       s0.v[RINA_A_STATS_IOCTL_REJECTS] == 19 &&
	       s1.v[RINA_A_STATS_ATTACHES] - s0.v[RINA_A_STATS_ATTACHES] == 1 &&
	       s1.v[RINA_A_STATS_DETACHES] - s0.v[RINA_A_STATS_DETACHES] == 1,
	       "stats_count_ioctls", "rejects +%llu attaches +%llu",
	       (unsigned long long)(s1.v[RINA_A_STATS_IOCTL_REJECTS] -
				    s0.v[RINA_A_STATS_IOCTL_REJECTS]),
	       (unsigned long long)(s1.v[RINA_A_STATS_ATTACHES] -
				    s0.v[RINA_A_STATS_ATTACHES]));
	close(fd);
	close(fd2);
}

static bool member_is(const struct rina_ring_member *m, int rank, int rack,
		      int ina, int port, uint32_t ip)
{
	return m->rank == rank && m->rack == rack && m->ina == ina &&
	       m->port == port && m->ipv4 == ip;
}

static void test_plan(struct rgenl *g)
{
	struct rina_ring_member ring[8];
	struct rina_plan p;
	struct job_info j;
	int fd[4], i, err;

	for (i = 0; i < 4; i++) {
		fd[i] = dev_open();
		err = attach(fd[i], 1, i);
		if (err)
			break;
	}
	result(!err, "ioctl_attach_all_ranks", "rank %d err %d", i, err);
	err = get_job(g, 1, &j);
	result(!err && j.n_attached == 4 && j.state == RINA_JOB_ACTIVE,
	       "genl_job_shows_attached", "n %d state %d", j.n_attached,
	       j.state);

	memset(ring, 0xff, sizeof(ring));
	err = get_plan(fd[0], &p, ring, 8);
	/* ring: [0] rack 0 (INA, agent rank 0), [1] rank 2, [2] rank 3 */
	result(!err && p.size == sizeof(p) && p.ring_len == 3 &&
	       p.ring_cap == 3 && p.job_id == 1 && p.rank == 0 &&
	       p.member == 0 && p.agent == 0 && p.is_agent == 1 &&
	       p.n_ranks == 4 && p.elems == 256 && p.window == 64 &&
	       p.timeout_ms == 10000 && p.rto_us == 2000 && p.rsvd0 == 0,
	       "ioctl_plan_agent_rank", "err %d L %u member %u agent %u",
	       err, p.ring_len, p.member, p.agent);
	result(!err &&
	       member_is(&ring[0], 0, 0, 1, RINA_UDP_PORT_AGENT,
			 IP(198, 18, 0, 1)) &&
	       member_is(&ring[1], 2, 1, 0, 0x5240, IP(198, 18, 1, 1)) &&
	       member_is(&ring[2], 3, 1, 0, 0x5240, IP(198, 18, 1, 2)) &&
	       ring[3].rank == 0xffff && ring[0].mac[0] == 2 &&
	       ring[0].mac[5] == 1,
	       "ioctl_plan_ring_order", "ring %u/%u/%u", ring[0].rank,
	       ring[1].rank, ring[2].rank);
	result(!err && member_is(&p.prev, 3, 1, 0, 0x5240, IP(198, 18, 1, 2)) &&
	       member_is(&p.next, 2, 1, 0, 0x5240, IP(198, 18, 1, 1)),
	       "ioctl_plan_peers_of_agent", "prev %u next %u", p.prev.rank,
	       p.next.rank);
	err = get_plan(fd[1], &p, NULL, 0);
	result(!err && p.member == 0 && p.agent == 0 && p.is_agent == 0 &&
	       p.ring_len == 3 && p.ring_cap == 0, "ioctl_plan_local_worker",
	       "err %d member %u agent %u", err, p.member, p.agent);
	err = get_plan(fd[2], &p, ring, 1);
	result(!err && p.member == 1 && p.agent == RINA_NO_AGENT &&
	       !p.is_agent && p.prev.rank == 0 && p.prev.ina &&
	       p.next.rank == 3 && p.ring_cap == 1,
	       "ioctl_plan_autonomous_member", "err %d member %u agent %u",
	       err, p.member, p.agent);
	err = get_plan(fd[3], &p, NULL, 0);
	result(!err && p.member == 2 && p.next.rank == 0 &&
	       p.next.port == RINA_UDP_PORT_AGENT && p.prev.rank == 2,
	       "ioctl_plan_ring_wraps", "err %d member %u next %u", err,
	       p.member, p.next.rank);

	/* a newer, larger struct: known part filled, tail left zero */
	{
		struct {
			struct rina_plan p;
			uint8_t tail[8];
		} bp;

		memset(&bp, 0, sizeof(bp));
		bp.p.size = sizeof(bp);
		err = ioctl(fd[3], RINA_IOC_GET_PLAN, &bp) ? -errno : 0;
		result(!err && bp.p.size == sizeof(p) && bp.p.member == 2 &&
		       !bp.tail[0] && !bp.tail[7],
		       "ioctl_plan_larger_struct", "err %d size %u", err,
		       bp.p.size);
	}

	/* explicit detach is not a loss; the rank can be attached again */
	err = ioctl(fd[3], RINA_IOC_DETACH, 0) ? -errno : 0;
	if (!err)
		err = attach(fd[3], 1, 3);
	get_job(g, 1, &j);
	result(!err && j.state == RINA_JOB_ACTIVE && j.n_attached == 4,
	       "ioctl_detach_then_reattach", "err %d state %d", err, j.state);
	{
		struct rina_dev_event ev[2];

		err = read_dev_events(fd[0], ev, 2);
		result(err == -EAGAIN, "dev_read_no_event_after_detach",
		       "read gave %d", err);
	}
	for (i = 0; i < 4; i++) {
		ioctl(fd[i], RINA_IOC_DETACH, 0);
		close(fd[i]);
	}
	get_job(g, 1, &j);
	result(j.state == RINA_JOB_READY && j.n_attached == 0,
	       "detached_close_is_not_a_loss", "state %d n %d", j.state,
	       j.n_attached);
}

static void test_close_releases(struct rgenl *g)
{
	struct rgenl ev;
	struct event e[4] = { 0 };
	struct stats s0, s1;
	struct job_info j;
	int fd, fd2, n, err;

	get_stats(g, &s0, false);
	err = rgenl_open(&ev);
	if (!err)
		err = rgenl_subscribe(&ev);
	fd = dev_open();
	fd2 = dev_open();
	attach(fd, 2, 1);
	attach(fd2, 2, 0);
	close(fd);	/* rank 1 lost: no detach first */
	n = err ? 0 : read_events(&ev, e, 4, 1000);
	result(n == 2 && e[0].type == RINA_EVENT_MEMBER_LOST &&
	       e[0].job == 2 && e[0].rank == 1 &&
	       e[1].type == RINA_EVENT_JOB_ABORTED && e[1].job == 2 &&
	       e[1].state == RINA_JOB_ABORTED,
	       "close_emits_member_lost_and_abort", "n %d type %d rank %d",
	       n, e[0].type, e[0].rank);
	err = get_job(g, 2, &j);
	result(!err && j.state == RINA_JOB_ABORTED && j.n_attached == 1,
	       "close_releases_rank", "state %d n %d", j.state,
	       j.n_attached);
	{
		struct pollfd pfd = { .fd = fd2, .events = POLLIN };
		struct rina_dev_event dev[4] = { 0 };
		char small[8];

		n = poll(&pfd, 1, 1000);
		result(n == 1 && (pfd.revents & POLLIN),
		       "dev_poll_readable_on_member_lost", "poll %d rev %x",
		       n, pfd.revents);
		result(read(fd2, small, sizeof(small)) < 0 && errno == EINVAL,
		       "dev_read_short_buffer_einval", "%s", strerror(errno));
		n = read(fd2, dev, sizeof(dev));
		result(n == 2 * (int)sizeof(dev[0]) &&
		       dev[0].type == RINA_EVENT_MEMBER_LOST &&
		       dev[0].job_id == 2 && dev[0].rank == 1 &&
		       dev[0].state == RINA_JOB_ABORTED && !dev[0].dropped &&
		       dev[1].type == RINA_EVENT_JOB_ABORTED &&
		       dev[1].rank == RINA_NO_RANK,
		       "dev_read_member_lost_and_abort", "read %d type %u rank %u",
		       n, dev[0].type, dev[0].rank);
		n = read_dev_events(fd2, dev, 4);
		result(n == -EAGAIN, "dev_read_empty_nonblocking_eagain",
		       "read %d", n);
	}
	fd = dev_open();
	expect_ioc("ioctl_attach_aborted_job", attach(fd, 2, 1), ESHUTDOWN);
	get_stats(g, &s1, false);
	result(s1.v[RINA_A_STATS_MEMBERS_LOST] -
	       s0.v[RINA_A_STATS_MEMBERS_LOST] == 1 &&
	       s1.v[RINA_A_STATS_JOBS_ABORTED] -
	       s0.v[RINA_A_STATS_JOBS_ABORTED] == 1,
	       "stats_count_lost_and_aborted", "lost +%llu",
	       (unsigned long long)(s1.v[RINA_A_STATS_MEMBERS_LOST] -
				    s0.v[RINA_A_STATS_MEMBERS_LOST]));

	/* deleting a job with an attached fd: the fd sees ENOENT */
	err = del_job(g, 2);
	result(!err, "genl_job_del_with_attached_fd", "err %d", err);
	{
		struct rina_dev_event dev[2] = { 0 };

		n = read_dev_events(fd2, dev, 2);
		result(n == 1 && dev[0].type == RINA_EVENT_JOB_DELETED &&
		       dev[0].job_id == 2, "dev_read_job_deleted",
		       "read %d type %u", n, dev[0].type);
	}
	expect_ioc("ioctl_plan_after_job_deleted",
		   get_plan(fd2, &(struct rina_plan){ 0 }, NULL, 0), ENOENT);
	err = ioctl(fd2, RINA_IOC_DETACH, 0) ? -errno : 0;
	result(!err, "ioctl_detach_after_job_deleted", "err %d", err);
	close(fd2);
	/* the same id can be added again and attached afresh */
	err = add_std_job(g, 2, 2);
	if (!err)
		err = attach(fd, 2, 1);
	result(!err, "job_readded_after_delete_attaches", "err %d", err);
	close(fd);	/* leaves job 2 aborted, for rmmod with jobs present */
	if (!ev.nl)
		return;
	rgenl_close(&ev);
}

/* net.rina.* values are the defaults a JOB_ADD without them takes. */
static int write_sysctl(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/rina/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void test_sysctl_defaults(struct rgenl *g)
{
	struct job_info j = { 0 };
	int err;

	err = write_sysctl("default_elems", "128");
	err = err ? err : write_sysctl("default_window", "8");
	err = err ? err : write_sysctl("timeout_ms", "500");
	err = err ? err : write_sysctl("rto_us", "700");
	err = err ? err : add_std_job(g, 70, 2);
	err = err ? err : get_job(g, 70, &j);
	result(!err && j.elems == 128 && j.window == 8 &&
	       j.timeout_ms == 500 && j.rto_us == 700,
	       "sysctl_defaults_apply_to_new_jobs", "err %d E %d W %d",
	       err, j.elems, j.window);
	write_sysctl("default_elems", "256");
	write_sysctl("default_window", "64");
	write_sysctl("timeout_ms", "10000");
	write_sysctl("rto_us", "2000");
	del_job(g, 70);
}

int main(void)
{
	struct rgenl g;
	int err;

	ktap_start();
	err = rgenl_open(&g);
	result(!err && g.mcgrp_events, "genl_family_resolves",
	       "err %d (is rina.ko loaded?)", err);
	if (err)
		return ktap_finish();
	test_job_add_get(&g);
	test_job_explicit_params(&g);
	test_full_jobs(&g);
	test_job_add_bad(&g);
	test_job_del_get_bad(&g);
	test_job_secret(&g);
	test_job_limit(&g);
	test_stats(&g);
	test_events(&g);
	in_child("genl_unprivileged_denied_admin_ops", unpriv_test);
	in_child("genl_per_netns_tables", netns_test);
	in_child("agent_worker_port_and_drop_counters", agent_test);
	test_ioctl_misuse(&g);
	test_plan(&g);
	test_close_releases(&g);
	test_sysctl_defaults(&g);
	rgenl_close(&g);
	return ktap_finish();
}
