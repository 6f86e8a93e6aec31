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
#include <stdio.h>

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

/* True when argv[i] is a prefix of word, iproute2 style ("sh" = "show"). */
bool rinactl_matches(const char *arg, const char *word);

#endif /* RINACTL_H */
