// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The Slurm host-list expander of rinactl job gen (user/common/nodelist.c):
 * ranges, lists, zero padding, several bracket groups, and every kind of
 * bad list refused with its reason.
 */
#include <stdio.h>
#include <string.h>

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
};

int main(void)
{
	unsigned int i;
	char err[256], got[1024];
	int n, k;

	ktap_plan((int)(sizeof(good) / sizeof(good[0]) +
			sizeof(bad) / sizeof(bad[0])));
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
	return ktap_finish();
}
