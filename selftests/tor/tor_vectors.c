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

 *
 * The TNA program's two passes (rina_tor_pass1(), rina_tor_pass2(),
 * Documentation/tofino.md): with --two-pass, a contribution recirculates
 * at once, and beside the vectors' checks a single-pass switch takes the
 * same commands and frames: every input's packets out and the whole
 * switch state (registers, counters, tables) must be equal to it's. With
 * --overtake N (or all), a contribution waits in a recirculation queue
 * (first in, first out) until N more inputs have passed through their
 * first pass (all: until a cli or counter line or the file's end), so
 * that what takes one pass (AG_DATA, ACK, NACK, CTRL, plain traffic)
 * overtakes it: every input must still produce exactly its "out" lines
 * (a contribution's when it leaves the queue), the counters their values
 * once the queue is empty, and some packet must have overtaken one.
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

/* --two-pass: the single-pass switch it keeps step with */
static int two_pass;
static struct rina_tor ref;
static struct rina_tor_out ref_out;

struct expect {
	unsigned int port, len;
	unsigned char data[RINA_TOR_FRAME_MAX];
};

/* --overtake: the recirculation queue, first in first out */
#define HOLD_ALL	(~0u)
#define RQ_MAX		256
static int overtake;
static unsigned int hold;		/* later inputs a contribution waits */
struct recirc {
	struct rina_tor_recirc rc;
	int in_line;
	unsigned int wait;
	unsigned int nexp;
	struct expect *exp;		/* its "out" lines */
};
static struct recirc rq[RQ_MAX];
static unsigned int rq_head, rq_n;
static unsigned long n_recirc, n_overtook;

static void dump(const char *what, unsigned int port, const unsigned char *d,
		 unsigned int len)
{
	unsigned int i;

	printf("#   %s port %u len %u: ", what, port, len);
	for (i = 0; i < len; i++)
		printf("%02x", d[i]);
	printf("\n");
}

/* Compare the packets o with the expected ones. */
static int check_out(const char *file, int in_line,
		     const struct rina_tor_out *o, const struct expect *exp,
		     unsigned int nexp)
{
	unsigned int i;
	int bad = 0;

	if (o->n != nexp) {
		printf("# %s:%d: %u packets out, expected %u\n", file, in_line,
		       o->n, nexp);
		bad = 1;
	}
	for (i = 0; i < o->n && i < nexp; i++) {
		if (o->pkt[i].port == exp[i].port &&
		    o->pkt[i].len == exp[i].len &&
		    !memcmp(o->pkt[i].data, exp[i].data, exp[i].len))
			continue;
		printf("# %s:%d: output %u differs\n", file, in_line, i);
		dump("got ", o->pkt[i].port, o->pkt[i].data, o->pkt[i].len);
		dump("want", exp[i].port, exp[i].data, exp[i].len);
		bad = 1;
	}
	if (bad) {
		for (i = nexp; i < o->n; i++)
			dump("extra", o->pkt[i].port, o->pkt[i].data,
			     o->pkt[i].len);
	}
	return bad;
}

/* Compare the pending outputs of the last "in" with the "out" lines. */
static int check_outputs(const char *file, int in_line,
			 const struct expect *exp,
			 unsigned int nexp)
{
	return check_out(file, in_line, &out, exp, nexp);
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

static struct rina_tor_out out2;	/* a contribution's second pass */

static unsigned int frame_op(const unsigned char *f, unsigned int len)
{
	if (len <= RINA_TOR_RINA_OFF || f[12] != 8 || f[13] || f[23] != 17)
		return 0;
	return f[RINA_TOR_RINA_OFF] & 0xf;
}

/* The queue's head through its second pass, checked against its lines. */
static int rq_release(const char *file)
{
	struct recirc *e = &rq[rq_head];
	int bad;

	rina_tor_pass2(&sw, &e->rc, &out2);
	bad = check_out(file, e->in_line, &out2, e->exp, e->nexp);
	free(e->exp);
	e->exp = NULL;
	rq_head = (rq_head + 1) % RQ_MAX;
	rq_n--;
	return bad;
}

/* One more input went through its first pass: who has waited enough. */
static int rq_age(const char *file)
{
	unsigned int k;
	int bad = 0;

	for (k = 0; k < rq_n; k++) {
		struct recirc *e = &rq[(rq_head + k) % RQ_MAX];

		if (e->wait != HOLD_ALL && e->wait)
			e->wait--;
	}
	while (rq_n && !rq[rq_head].wait)
		bad |= rq_release(file);
	return bad;
}

static int rq_drain(const char *file)
{
	int bad = 0;

	while (rq_n)
		bad |= rq_release(file);
	return bad;
}

/*
 * The last input's "out" lines are all read: check them now, or, for a
 * contribution in the queue, when it leaves it.
 */
static int settle(const char *file, int in_line, int queued,
		  const struct expect *exp, unsigned int nexp)
{
	struct recirc *e;

	if (!queued)
		return check_outputs(file, in_line, exp, nexp);
	e = &rq[(rq_head + rq_n - 1) % RQ_MAX];
	e->nexp = nexp;
	e->exp = malloc((nexp ? nexp : 1) * sizeof(*exp));
	if (!e->exp) {
		printf("# out of memory\n");
		return 1;
	}
	memcpy(e->exp, exp, nexp * sizeof(*exp));
	return rq_age(file);
}

/* --two-pass: the same packets and state as the single-pass switch */
static int same_as_ref(const char *file, int in_line)
{
	unsigned int i;
	int bad = out.n != ref_out.n;

	for (i = 0; !bad && i < out.n; i++)
		bad = out.pkt[i].port != ref_out.pkt[i].port ||
		      out.pkt[i].len != ref_out.pkt[i].len ||
		      memcmp(out.pkt[i].data, ref_out.pkt[i].data,
			     out.pkt[i].len);
	if (bad)
		printf("# %s:%d: two passes sent other packets than one\n",
		       file, in_line);
	if (memcmp(&sw, &ref, sizeof(sw))) {
		printf("# %s:%d: two passes left another switch state than "
		       "one\n", file, in_line);
		bad = 1;
	}
	return bad;
}

/*
 * One "in" frame through the switch as the mode says; *queued: it waits
 * in the recirculation queue. Returns 1 on a failed check.
 */
static int feed(const char *file, int lineno, unsigned int port,
		const unsigned char *frame, unsigned int len, int *queued)
{
	static struct rina_tor_recirc rc;
	struct recirc *e = &rq[(rq_head + rq_n) % RQ_MAX];
	unsigned int op;

	*queued = 0;
	if (!overtake && !two_pass) {
		rina_tor_process(&sw, port, frame, len, &out);
		return 0;
	}
	if (two_pass) {
		if (rina_tor_pass1(&sw, port, frame, len, &out, &rc)) {
			rina_tor_pass2(&sw, &rc, &out);
			n_recirc++;
		}
		rina_tor_process(&ref, port, frame, len, &ref_out);
		return same_as_ref(file, lineno);
	}
	if (rq_n == RQ_MAX) {
		printf("# %s:%d: queue full\n", file, lineno);
		return 1;
	}
	if (rina_tor_pass1(&sw, port, frame, len, &out, &e->rc)) {
		e->in_line = lineno;
		e->wait = hold == HOLD_ALL ? HOLD_ALL : hold + 1;
		rq_n++;
		n_recirc++;
		*queued = 1;
		return 0;
	}
	op = frame_op(frame, len);
	if (op == RINA_OP_AG_DATA || op == RINA_OP_ACK || op == RINA_OP_NACK)
		n_overtook += rq_n;
	return 0;
}

static int run_file(const char *file, unsigned int *npkts)
{
	static unsigned char frame[RINA_TOR_FRAME_MAX];
	static struct expect exp[RINA_TOR_MAX_OUT];
	static char line[4 * RINA_TOR_FRAME_MAX];
	unsigned int nexp = 0;
	int lineno = 0, in_line = 0, bad = 0, pending = 0, queued = 0, n;
	char err[256];
	FILE *f = fopen(file, "r");

	if (!f) {
		printf("# %s: cannot open\n", file);
		return 1;
	}
	rina_tor_init(&sw);
	if (two_pass)
		rina_tor_init(&ref);
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
			bad |= settle(file, in_line, queued, exp, nexp);
			pending = 0;
		}
		/* the control plane and the counters see no packet in flight */
		if (strcmp(p, "out") && strcmp(p, "in"))
			bad |= rq_drain(file);
		if (!strcmp(p, "cli")) {
			if (rina_tor_cli(&sw, arg, err, sizeof(err))) {
				printf("# %s:%d: cli: %s\n", file, lineno, err);
				bad = 1;
			}
			if (two_pass &&
			    rina_tor_cli(&ref, arg, err, sizeof(err)))
				bad = 1;
		} else if (!strcmp(p, "in")) {
			if (sscanf(arg, "%u", &port) != 1 ||
			    (n = vec_hex(strchr(arg, ' ') ? strchr(arg, ' ') : "",
				     frame, sizeof(frame))) < 0) {
				printf("# %s:%d: bad in line\n", file, lineno);
				bad = 1;
				break;
			}
			if (feed(file, lineno, port, frame, (unsigned int)n,
				 &queued)) {
				bad = 1;
				break;
			}
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
		bad |= settle(file, in_line, queued, exp, nexp);
	bad |= rq_drain(file);
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
	} else if (argc > 1 && !strcmp(argv[1], "--two-pass")) {
		two_pass = 1;
		first = 2;
	} else if (argc > 2 && !strcmp(argv[1], "--overtake")) {
		overtake = 1;
		hold = strcmp(argv[2], "all") ? (unsigned int)atoi(argv[2]) :
						HOLD_ALL;
		first = 3;
	}
	ktap_plan(argc - first + (two_pass || overtake));
	for (i = first; i < argc; i++) {
		const char *name = strrchr(argv[i], '/');
		unsigned int npkts = 0;
		unsigned long r0 = n_recirc, o0 = n_overtook;
		int bad = run_file(argv[i], &npkts);

		name = name ? name + 1 : argv[i];
		if (two_pass || overtake)
			ktap_result(!bad, "%s # %u packets, %lu recirculated, "
				    "%lu overtaken", name, npkts,
				    n_recirc - r0, n_overtook - o0);
		else
			ktap_result(!bad, "%s # %u packets", name, npkts);
	}
	/* or the modes would test nothing the single pass does not */
	if (two_pass)
		ktap_result(n_recirc > 0, "contributions recirculated # %lu",
			    n_recirc);
	if (overtake)
		ktap_result(n_overtook > 0, "AG_DATA, ACK and NACK overtook "
			    "contributions in the queue # %lu times, %lu "
			    "recirculated", n_overtook, n_recirc);
	return ktap_finish();
}
