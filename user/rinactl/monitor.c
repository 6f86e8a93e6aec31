// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rinactl monitor [count N]: print rina.ko's job events (job added,
 * deleted, member lost, job aborted) as they happen, one per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rgenl.h"

#define OUT rgenl_out()
#include "rinactl.h"

int rinactl_genl_error(const char *what, struct rgenl *g, int err);

static const char *const event_names[] = {
	[RINA_EVENT_JOB_ADDED]		= "job_added",
	[RINA_EVENT_JOB_DELETED]	= "job_deleted",
	[RINA_EVENT_MEMBER_LOST]	= "member_lost",
	[RINA_EVENT_JOB_ABORTED]	= "job_aborted",
};

static const char *const state_names[] = {
	[RINA_JOB_READY] = "ready",
	[RINA_JOB_ACTIVE] = "active",
	[RINA_JOB_ABORTED] = "aborted",
};

static const char *name_of(const char *const *names, unsigned int n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

static void print_event(const struct nlmsghdr *m)
{
	unsigned int job = 0, ev = 0, state = 0;
	const struct nlattr *a;
	int rank = -1;

	mnl_attr_for_each(a, m, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case RINA_A_JOB_ID:
			job = mnl_attr_get_u16(a);
			break;
		case RINA_A_JOB_EVENT:
			ev = mnl_attr_get_u8(a);
			break;
		case RINA_A_JOB_STATE:
			state = mnl_attr_get_u8(a);
			break;
		case RINA_A_JOB_EVENT_RANK:
			rank = mnl_attr_get_u16(a);
			break;
		}
	}
	if (rinactl_opts.json) {
		rgenl_json_begin(rinactl_opts.pretty);
		fprintf(OUT, "{\"event\":\"%s\",\"job\":%u,\"state\":\"%s\"",
			     name_of(event_names, 5, ev), job,
			     name_of(state_names, 4, state));
		if (rank >= 0)
			fprintf(OUT, ",\"rank\":%d", rank);
		fprintf(OUT, "}\n");
		rgenl_json_end();
	} else {
		fprintf(OUT, "%s job %u state %s", name_of(event_names, 5, ev), job,
			     name_of(state_names, 4, state));
		if (rank >= 0)
			fprintf(OUT, " rank %d", rank);
		fprintf(OUT, "\n");
	}
	fflush(stdout);
}

static int cmd_monitor(int argc, char **argv)
{
	long count = -1;
	struct rgenl g;
	int ret;

	if (argc == 3 && rinactl_matches(argv[1], "count")) {
		char *end;

		count = strtol(argv[2], &end, 10);
		if (*end || count < 1) {
			fprintf(stderr, "rinactl: monitor: bad count \"%s\"\n",
				argv[2]);
			return RINACTL_EXIT_USAGE;
		}
	} else if (argc != 1) {
		fprintf(stderr, "Usage: rinactl monitor [count N]\n");
		return RINACTL_EXIT_USAGE;
	}
	ret = rgenl_open(&g);
	if (!ret)
		ret = rgenl_subscribe(&g);
	if (ret)
		return rinactl_genl_error("monitor", &g, ret);
	while (count) {
		const struct nlmsghdr *m;
		ssize_t n = mnl_socket_recvfrom(g.nl, g.buf, RGENL_BUFSZ);
		int len;

		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			ret = rinactl_genl_error("monitor", &g, -errno);
			break;
		}
		len = (int)n;
		for (m = (void *)g.buf; mnl_nlmsg_ok(m, len) && count;
		     m = mnl_nlmsg_next(m, &len)) {
			const struct genlmsghdr *gh = mnl_nlmsg_get_payload(m);

			if (m->nlmsg_type != g.family ||
			    gh->cmd != RINA_CMD_JOB_EVENT)
				continue;
			print_event(m);
			if (count > 0)
				count--;
		}
	}
	rgenl_close(&g);
	return ret;
}

RINACTL_CMD(monitor, cmd_monitor, "monitor [count N]");
