// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The Slurm host-list expander of rinactl job gen (user/common/nodelist.c):
 * ranges, lists, zero padding, several bracket groups, and every kind of
 * bad list refused with its reason; its line parsers (hostfile.c):
 * hostfile lines, SLURM_TASKS_PER_NODE, each bad form refused.
 */
#include <stdio.h>
#include <string.h>

#include "hostfile.h"
#include "nodelist.h"
#include "../ktap.h"

static char out[RINA_NODELIST_MAX][RINA_HOSTNAME_MAX];

static const struct {
	const char *list, *want;	/* want: the names, space-separated */
} good[] = {
	{ "gpu5", "gpu5" },
	{ "node[01-04,07],gpu5", "node01 node02 node03 node04 node07 gpu5" },
	{ "n[8-11]", "n8 n9 n10 n11" },
	{ "n[098-100]", "n098 n099 n100" },
	{ "r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2" },
	{ "a,b[3],c-[1-2].ib", "a b3 c-1.ib c-2.ib" },
};

static const struct {
	const char *list, *want;	/* want: in the message */
} bad[] = {
	{ "", "empty host list" },
	{ "node[01-04", "\"[\" without \"]\"" },
	{ "node01]", "\"]\" without \"[\"" },
	{ "node[04-01]", "range runs backwards" },
	{ "node[a-b]", "expected a number" },
	{ "node[]", "empty range" },
	{ "node[1,]", "empty range" },
	{ "a,,b", "empty host name" },
	{ "a,", "empty host name" },
	{ "node[1-5000]", "more than 4096 hosts" },
	{ "node 1", "blank in a host list" },
	{ "node[1-2x]", "expected \",\", \"-\" or \"]\"" },
	/* fuzz_jobgen's find: a "]" before a group's "[" was a name's */
	{ "n1]-r[1-2]", "\"]\" without \"[\"" },
};

static const struct {
	const char *line;
	int rc;
	const char *want;	/* rc 1: "NAME SLOTS", else in the message */
} host_lines[] = {
	{ "node01 slots=2 max_slots=4 # x\n", 1, "node01 2" },
	{ "node-2.ib_0:3\r\n", 1, "node-2.ib_0 3" },
	{ "  # only a comment\n", 0, "" },
	{ "node01:9\n", -1, "expected host:N" },
	{ "node01 slots= 2\n", -1, "slots must be a number" },
	{ "node01 slots=+2\n", -1, "slots must be a number" },
	/* names the job file's comment and the name lookup take as is */
	{ "a,b slots=1\n", -1, "is not a host name" },
	{ "n[1-2]\n", -1, "is not a host name" },
	{ "a=b\n", -1, "is not a host name" },
	{ ":2\n", -1, "is not a host name" },
	/* longer than a name can be: was cut to 255 bytes, silently */
	{ "h0123456789012345678901234567890123456789012345678901234567890123"
	  "4567890123456789012345678901234567890123456789012345678901234567"
	  "8901234567890123456789012345678901234567890123456789012345678901"
	  "234567890123456789012345678901234567890123456789012345678901234\n",
	  -1, "is not a host name" },
};

static const struct {
	const char *s;
	int hosts, rc;
	const char *want;	/* rc 0: the counts, else in the message */
} tasks[] = {
	{ "2(x3),1", 4, 0, "2 2 2 1" },
	{ "8", 1, 0, "8" },
	{ "2(x3),1", 3, -1, "does not give a count for each of the 3" },
	{ "2(x3)", 4, -1, "does not give a count for each of the 4" },
	{ "2(x0),1", 1, -1, "does not give a count" },
	{ " 2", 1, -1, "does not give a count" },
	{ "2,", 1, -1, "does not give a count" },
	{ "1(x4294967297)", 1, -1, "does not give a count" },
	{ "9", 1, -1, "9 ranks on host 1, but a host has 8" },
};

int main(void)
{
	unsigned int i;
	char err[256], got[1024];
	int n, k;

	ktap_plan((int)(sizeof(good) / sizeof(good[0]) +
			sizeof(bad) / sizeof(bad[0]) +
			sizeof(host_lines) / sizeof(host_lines[0]) +
			sizeof(tasks) / sizeof(tasks[0])));
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		n = rina_nodelist_expand(good[i].list, out, RINA_NODELIST_MAX,
					 err, sizeof(err));
		got[0] = 0;
		for (k = 0; k < n; k++) {
			strcat(got, k ? " " : "");
			strcat(got, out[k]);
		}
		ktap_result(n > 0 && !strcmp(got, good[i].want),
			    "nodelist_expand \"%s\" # %d: %s %s", good[i].list,
			    n, got, n < 0 ? err : "");
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		n = rina_nodelist_expand(bad[i].list, out, RINA_NODELIST_MAX,
					 err, sizeof(err));
		ktap_result(n < 0 && strstr(err, bad[i].want),
			    "nodelist_refuses \"%s\" # %d %s", bad[i].list, n,
			    err);
	}
	for (i = 0; i < sizeof(host_lines) / sizeof(host_lines[0]); i++) {
		char line[1024];
		const char *name = NULL;
		unsigned int slots = 0;

		snprintf(line, sizeof(line), "%s", host_lines[i].line);
		err[0] = got[0] = 0;
		n = rina_hostfile_line(line, &name, &slots, err, sizeof(err));
		if (n > 0)
			snprintf(got, sizeof(got), "%s %u", name, slots);
		ktap_result(n == host_lines[i].rc &&
			    (n < 0 ? !!strstr(err, host_lines[i].want) :
				     !strcmp(got, host_lines[i].want)),
			    "hostfile_line %d # %d %s%s", i, n, got, err);
	}
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		unsigned int r[8] = { 0 };

		err[0] = got[0] = 0;
		n = rina_tasks_per_node(tasks[i].s, r, tasks[i].hosts, err,
					sizeof(err));
		for (k = 0; !n && k < tasks[i].hosts; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
				 "%s%u", k ? " " : "", r[k]);
		ktap_result(n == tasks[i].rc &&
			    (n ? !!strstr(err, tasks[i].want) :
				 !strcmp(got, tasks[i].want)),
			    "tasks_per_node \"%s\" %d hosts # %d %s%s",
			    tasks[i].s, tasks[i].hosts, n, got, err);
	}
	return ktap_finish();
}
