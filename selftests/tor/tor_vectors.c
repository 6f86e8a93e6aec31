// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Packet-vector runner for the INA ToR model: feeds every *.vec file
 * given on the command line through the model and prints KTAP, one test
 * per file. File format: selftests/tor/README.md.
 *
 * With --replay, a recorded run instead (selftests/net/bmv2_replay.py
 * writes it: the commands and frames a switch took, in order): "out" and
 * "counter" lines are not checked, and every non-zero counter is printed
 * at the end of the file as a "counter NAME INDEX VALUE" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "rina_tor_model.h"
#include "vec_hex.h"
#include "../ktap.h"

static struct rina_tor sw;
static struct rina_tor_out out;
static int replay;

struct expect {
	unsigned int port, len;
	unsigned char data[RINA_TOR_FRAME_MAX];
};

static void dump(const char *what, unsigned int port, const unsigned char *d,
		 unsigned int len)
{
	unsigned int i;

	printf("#   %s port %u len %u: ", what, port, len);
	for (i = 0; i < len; i++)
		printf("%02x", d[i]);
	printf("\n");
}

/* Compare the pending outputs of the last "in" with the "out" lines. */
static int check_outputs(const char *file, int in_line, struct expect *exp,
			 unsigned int nexp)
{
	unsigned int i;
	int bad = 0;

	if (out.n != nexp) {
		printf("# %s:%d: %u packets out, expected %u\n", file, in_line,
		       out.n, nexp);
		bad = 1;
	}
	for (i = 0; i < out.n && i < nexp; i++) {
		if (out.pkt[i].port == exp[i].port &&
		    out.pkt[i].len == exp[i].len &&
		    !memcmp(out.pkt[i].data, exp[i].data, exp[i].len))
			continue;
		printf("# %s:%d: output %u differs\n", file, in_line, i);
		dump("got ", out.pkt[i].port, out.pkt[i].data, out.pkt[i].len);
		dump("want", exp[i].port, exp[i].data, exp[i].len);
		bad = 1;
	}
	if (bad) {
		for (i = nexp; i < out.n; i++)
			dump("extra", out.pkt[i].port, out.pkt[i].data,
			     out.pkt[i].len);
	}
	return bad;
}

static void print_counters(void)
{
	static const struct {
		const char *name;
		unsigned int n;
	} ctr[] = {
		{ "RinaIngress.counters.job_ctr",
		  RINA_TOR_MAX_JOBS * __RINA_TC_MAX },
		{ "RinaEgress.counters.job_out",
		  RINA_TOR_MAX_JOBS * __RINA_TO_MAX },
		{ "RinaIngress.counters.tor_ctr", __RINA_TS_MAX },
	};
	unsigned int c, i;
	__u64 v;

	for (c = 0; c < sizeof(ctr) / sizeof(ctr[0]); c++)
		for (i = 0; i < ctr[c].n; i++)
			if (!rina_tor_counter(&sw, ctr[c].name, i, &v) && v)
				printf("counter %s %u %llu\n", ctr[c].name, i,
				       (unsigned long long)v);
}

static int run_file(const char *file, unsigned int *npkts)
{
	static unsigned char frame[RINA_TOR_FRAME_MAX];
	static struct expect exp[RINA_TOR_MAX_OUT];
	static char line[4 * RINA_TOR_FRAME_MAX];
	unsigned int nexp = 0;
	int lineno = 0, in_line = 0, bad = 0, pending = 0, n;
	char err[256];
	FILE *f = fopen(file, "r");

	if (!f) {
		printf("# %s: cannot open\n", file);
		return 1;
	}
	rina_tor_init(&sw);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *arg;
		unsigned int port;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		arg = strchr(p, ' ');
		if (arg)
			*arg++ = 0;
		else
			arg = p + strlen(p);
		if (replay && (!strcmp(p, "out") || !strcmp(p, "counter")))
			continue;
		if (strcmp(p, "out") && pending) {
			bad |= check_outputs(file, in_line, exp, nexp);
			pending = 0;
		}
		if (!strcmp(p, "cli")) {
			if (rina_tor_cli(&sw, arg, err, sizeof(err))) {
				printf("# %s:%d: cli: %s\n", file, lineno, err);
				bad = 1;
			}
		} else if (!strcmp(p, "in")) {
			if (sscanf(arg, "%u", &port) != 1 ||
			    (n = vec_hex(strchr(arg, ' ') ? strchr(arg, ' ') : "",
				     frame, sizeof(frame))) < 0) {
				printf("# %s:%d: bad in line\n", file, lineno);
				bad = 1;
				break;
			}
			rina_tor_process(&sw, port, frame, (unsigned int)n, &out);
			(*npkts)++;
			in_line = lineno;
			nexp = 0;
			pending = !replay;
		} else if (!strcmp(p, "out")) {
			if (!pending || nexp >= RINA_TOR_MAX_OUT ||
			    sscanf(arg, "%u", &exp[nexp].port) != 1 ||
			    (n = vec_hex(strchr(arg, ' ') ? strchr(arg, ' ') : "",
				     exp[nexp].data,
				     sizeof(exp[nexp].data))) < 0) {
				printf("# %s:%d: bad out line\n", file, lineno);
				bad = 1;
				break;
			}
			exp[nexp++].len = (unsigned int)n;
		} else if (!strcmp(p, "counter")) {
			char name[128];
			unsigned int idx;
			unsigned long long want;
			__u64 got;

			if (sscanf(arg, "%127s %u %llu", name, &idx, &want) != 3 ||
			    rina_tor_counter(&sw, name, idx, &got)) {
				printf("# %s:%d: bad counter line\n", file,
				       lineno);
				bad = 1;
				break;
			}
			if (got != want) {
				printf("# %s:%d: %s[%u] = %llu, expected %llu\n",
				       file, lineno, name, idx,
				       (unsigned long long)got, want);
				bad = 1;
			}
		} else {
			printf("# %s:%d: unknown directive '%s'\n", file,
			       lineno, p);
			bad = 1;
			break;
		}
	}
	if (pending && !replay)
		bad |= check_outputs(file, in_line, exp, nexp);
	fclose(f);
	if (replay)
		print_counters();
	return bad;
}

int main(int argc, char **argv)
{
	int i, first = 1;

	if (argc > 1 && !strcmp(argv[1], "--replay")) {
		replay = 1;
		first = 2;
	}
	ktap_plan(argc - first);
	for (i = first; i < argc; i++) {
		const char *name = strrchr(argv[i], '/');
		unsigned int npkts = 0;
		int bad = run_file(argv[i], &npkts);

		name = name ? name + 1 : argv[i];
		ktap_result(!bad, "%s # %u packets", name, npkts);
	}
	return ktap_finish();
}
