/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * rinactl: subcommand registration and the options every subcommand
 * shares (iproute2 conventions: -j JSON, -p pretty, exit 0/1/2).
 *
 * A subcommand lives in its own file and registers itself with
 * RINACTL_CMD(name, fn, help); rinactl.c finds it through the linker
 * section, so adding one touches no table.
 */
#ifndef RINACTL_H
#define RINACTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/rina.h>

struct rinactl_opts {
	bool	json;		/* -j */
	bool	pretty;		/* -p */
	int	verbose;	/* -v, -vv */
};

extern struct rinactl_opts rinactl_opts;

struct rinactl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand */
	const char *help;			/* one usage line */
};

#define RINACTL_CMD(_name, _fn, _help)					\
	static const struct rinactl_cmd __rinactl_cmd_##_name		\
	__attribute__((used, section("rinactl_cmds"), aligned(8))) = {	\
		.name = #_name, .fn = _fn, .help = _help,		\
	}

/* Exit codes, as iproute2: 0 ok, 1 runtime failure, 2 usage error. */
#define RINACTL_EXIT_FAIL	1
#define RINACTL_EXIT_USAGE	2

struct nlmsghdr;

/*
 * A JOB_GET reply's local agents (job.c), one line or JSON object each
 * with the job id first; *(int *)data counts them (rinactl stats).
 */
int rinactl_agents_cb(const struct nlmsghdr *nlh, void *data);

/* rinactl stats -f prometheus: the local agents, collected (job.c) */
#define RINACTL_MAX_AGENTS	1024
struct rinactl_agent {
	unsigned int	job, rank, rack;
	const char	*tor;		/* its ToR's state */
	uint64_t	c[RINA_A_AGENT_MAX + 1];
};
struct rinactl_agents {
	int			n;
	struct rinactl_agent	a[RINACTL_MAX_AGENTS];
};
int rinactl_agents_collect_cb(const struct nlmsghdr *nlh, void *data);
/* The JSON key of a local agent's counter t, or NULL. */
const char *rinactl_agent_counter(unsigned int t);

/* rinactl job gen (jobgen.c): argv after "gen". */
int rinactl_job_gen(int argc, char **argv);

/* True when argv[i] is a prefix of word, iproute2 style ("sh" = "show"). */
bool rinactl_matches(const char *arg, const char *word);

#endif /* RINACTL_H */
