// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-bench: nccl-tests-style allreduce benchmark for librina.
 *
 * Every rank runs it (rina-run sets RINA_JOB and RINA_RANK). Rank 0
 * prints the table; with --json every rank prints one object per size.
 * Bytes on the wire per rank are compared with the ring's theoretical
 * volume 2(L-1)/L * S plus per-packet headers. Given the link rate
 * (--link-rate, or RINA_LINK_RATE from rina-run --rate), the efficiency
 * column is the line-rate ideal time of the bytes this rank's devices
 * sent (its namespace's, after the qdisc) over the measured time.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rina.h"

#include "rate_arg.h"
#include "size_arg.h"
#include "wire_stats.h"

#define HDR_BYTES	70	/* Ethernet + IPv4 + UDP + Rina header */

struct opts {
	size_t	min_bytes, max_bytes;
	double	factor;
	int	iters, warmup;
	int	gap_ms;		/* pause after each call: a step's compute */
	int	check;
	enum rina_dtype dtype;
	enum rina_redop op;
	const char *transport;
	bool	json;
	int	elems;		/* E of the job, for the theory column */
	const char *link_rate;	/* tc syntax, or NULL: not known */
	double	link_bps;	/* the slowest link the job crosses, bit/s */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --gap-ms: the compute between two steps' allreduces */
static void gap(const struct opts *o)
{
	struct timespec ts = {
		.tv_sec = o->gap_ms / 1000,
		.tv_nsec = (long)(o->gap_ms % 1000) * 1000000L,
	};

	if (o->gap_ms)
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: rina-bench [-b MINBYTES] [-e MAXBYTES] [-f FACTOR] [-n ITERS]\n"
"                  [-w WARMUP] [-c 0|1] [-d int32|float32] [-o sum|avg|max]\n"
"                  [--transport auto|udp|xdp|inproc] [--json]\n"
"                  [--link-rate RATE] [--gap-ms MS]\n"
"Run once per rank with RINA_JOB and RINA_RANK set (see rina-run).\n"
"-c 1 (default) checks the result of every call, warm-up and timed,\n"
"outside the timed region; #wrong is the sum over a size's calls.\n"
"RATE (tc syntax: 25mbit, 1gbit; default $RINA_LINK_RATE) gives the\n"
"efficiency column: line-rate time of this rank's wire bytes / time.\n"
"--gap-ms MS pauses MS ms after every call, outside the timed region,\n"
"as a training step's compute would.\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "transport", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'J' },
		{ "link-rate", required_argument, NULL, 'R' },
		{ "gap-ms", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ 1024, 16 << 20, 2.0, 20, 5, 0, 1, RINA_FLOAT32,
			    RINA_SUM, NULL, false, 256, NULL, 0 };
	o->link_rate = getenv("RINA_LINK_RATE");
	if (o->link_rate && !*o->link_rate)
		o->link_rate = NULL;
	while ((c = getopt_long(argc, argv, "b:e:f:n:w:c:d:o:h", lo,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			if (bench_parse_size(optarg, &o->min_bytes))
				goto bad;
			break;
		case 'e':
			if (bench_parse_size(optarg, &o->max_bytes))
				goto bad;
			break;
		case 'f':
			o->factor = atof(optarg);
			if (o->factor < 1.0)
				goto bad;
			break;
		case 'n': o->iters = atoi(optarg); break;
		case 'w': o->warmup = atoi(optarg); break;
		case 'c': o->check = atoi(optarg); break;
		case 'd':
			if (!strcmp(optarg, "int32"))
				o->dtype = RINA_INT32;
			else if (!strcmp(optarg, "float32") ||
				 !strcmp(optarg, "float"))
				o->dtype = RINA_FLOAT32;
			else
				goto bad;
			break;
		case 'o':
			if (!strcmp(optarg, "sum"))
				o->op = RINA_SUM;
			else if (!strcmp(optarg, "avg"))
				o->op = RINA_AVG;
			else if (!strcmp(optarg, "max"))
				o->op = RINA_MAX;
			else
				goto bad;
			break;
		case 'T': o->transport = optarg; break;
		case 'J': o->json = true; break;
		case 'R': o->link_rate = optarg; break;
		case 'G': o->gap_ms = atoi(optarg); break;
		case 'h': usage(stdout); exit(0);
		default: goto bad;
		}
	}
	if (optind != argc || o->iters < 1 || o->warmup < 0 || o->gap_ms < 0 ||
	    o->min_bytes > o->max_bytes)
		goto bad;
	if (o->link_rate && bench_parse_rate(o->link_rate, &o->link_bps)) {
		fprintf(stderr,
			"rina-bench: link rate '%s': expected a tc rate such as 25mbit or 1gbit\n",
			o->link_rate);
		return -1;
	}
	return 0;
bad:
	usage(stderr);
	return -1;
}

/* Deterministic inputs: rank r, element j. */
static int32_t ival(int r, size_t j)
{
	return (int32_t)((j * 2654435761u + (size_t)r * 40503u) % 2001) - 1000;
}

static float fval(int r, size_t j)
{
	return (float)ival(r, j) / 997.0f * (float)(1 + (j % 7));
}

static void fill(void *buf, size_t count, const struct opts *o, int rank)
{
	size_t j;

	for (j = 0; j < count; j++) {
		if (o->dtype == RINA_INT32)
			((int32_t *)buf)[j] = ival(rank, j);
		else
			((float *)buf)[j] = fval(rank, j);
	}
}

/*
 * What every call must return, computed once per size so that checking a
 * call costs one pass over its result, outside the timed region. A
 * result element is out of bounds when it differs from ref by more than
 * tol: int32 exactly (tol 0); float32 within N^2 * 2^e / (2 * (2^31 - 1))
 * of the exact sum plus half an ulp of the result, where 2^e bounds the
 * group's largest input (Documentation/protocol.md, "Numbers").
 */
struct expect {
	double	*ref;
	double	*tol;
	size_t	cap;
};

static int expect_grow(struct expect *x, size_t count)
{
	double *ref, *tol;

	if (count <= x->cap)
		return 0;
	ref = realloc(x->ref, count * sizeof(*ref));
	if (!ref)
		return -1;
	x->ref = ref;
	tol = realloc(x->tol, count * sizeof(*tol));
	if (!tol)
		return -1;
	x->tol = tol;
	x->cap = count;
	return 0;
}

static void expect_int(struct expect *x, size_t count, const struct opts *o,
		       int n)
{
	size_t j;
	int r;

	for (j = 0; j < count; j++) {
		int64_t ref = o->op == RINA_MAX ? INT32_MIN : 0;

		for (r = 0; r < n; r++) {
			if (o->op == RINA_MAX)
				ref = ival(r, j) > ref ? ival(r, j) : ref;
			else
				ref += ival(r, j);
		}
		if (o->op == RINA_AVG)
			ref /= n;
		x->ref[j] = (double)ref;
		x->tol[j] = 0;
	}
}

static void expect_float(struct expect *x, size_t count,
			 const struct opts *o, int n)
{
	size_t g0, j, E = (size_t)o->elems;
	int r, e;

	for (g0 = 0; g0 < count; g0 += E) {
		size_t g1 = g0 + E < count ? g0 + E : count;
		double gmax = 0, bound;

		for (r = 0; r < n; r++)
			for (j = g0; j < g1; j++)
				gmax = fmax(gmax, fabs(fval(r, j)));
		frexp(gmax, &e);	/* 2^e > gmax, as librina picks it */
		bound = (double)n * n * ldexp(1.0, e) / (2.0 * 2147483647.0);
		if (o->op == RINA_AVG)
			bound /= n;
		for (j = g0; j < g1; j++) {
			double ref = 0;

			for (r = 0; r < n; r++)
				ref += fval(r, j);
			if (o->op == RINA_AVG)
				ref /= n;
			x->ref[j] = ref;
			x->tol[j] = bound + fabs(ref) * 0x1p-24;
		}
	}
}

static int expect_fill(struct expect *x, size_t count, const struct opts *o,
		       int n)
{
	if (expect_grow(x, count))
		return -1;
	if (o->dtype == RINA_INT32)
		expect_int(x, count, o, n);
	else
		expect_float(x, count, o, n);
	return 0;
}

/* The out-of-bounds elements of one call's result. */
static size_t check(const void *buf, size_t count, const struct opts *o,
		    const struct expect *x)
{
	size_t j, wrong = 0;

	if (o->dtype == RINA_INT32) {
		const int32_t *v = buf;

		for (j = 0; j < count; j++)
			wrong += (double)v[j] != x->ref[j];
	} else {
		const float *v = buf;

		for (j = 0; j < count; j++)
			wrong += !(fabs(v[j] - x->ref[j]) <= x->tol[j]);
	}
	return wrong;
}

static uint64_t fnv(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t next_size(size_t bytes, const struct opts *o)
{
	size_t next = (size_t)ceil((double)bytes * o->factor);

	if (o->factor > 1.0 && next <= bytes)
		next = bytes + 4;
	return next;
}

static const char *role_name(int role)
{
	return role == RINA_ROLE_INA_AGENT ? "ina-agent" :
	       role == RINA_ROLE_INA_WORKER ? "ina-worker" : "member";
}

/* Who runs this rank's rack's agent, when the rank knows: JSON "agent" */
static const char *rack_agent_json(uint64_t who)
{
	return who == RINA_RACK_AGENT_KERNEL ? ",\"agent\":\"kernel\"" :
	       who == RINA_RACK_AGENT_LIBRINA ? ",\"agent\":\"librina\"" : "";
}

static const char *tor_name(uint64_t state)
{
	return state == RINA_TOR_ON ? "on" : state == RINA_TOR_OFF ? "off" :
	       state == RINA_TOR_ASKING ? "asking" :
	       state == RINA_TOR_LOST ? "lost" : "none";
}

/* Who aggregated the agent's rack: the ToR, or the agent in software. */
static void print_tor(int rank, const struct rina_stats *st)
{
	static const char *const why[] = {
		"ok", "unknown job", "no slots left", "bad parameters",
	};
	uint64_t s = st->agent_tor_status;

	switch (st->agent_tor) {
	case RINA_TOR_ON:
		printf("# rank %d tor: on (allgather copies %llu, relayed to its host's worker %llu)\n",
		       rank, (unsigned long long)st->agent_tor_copies,
		       (unsigned long long)st->agent_host_relays);
		break;
	case RINA_TOR_OFF:
		printf("# rank %d tor: off (%s), software aggregation\n", rank,
		       s == 0xffffffffULL ? "no answer" :
		       s < 4 ? why[s] : "refused");
		break;
	case RINA_TOR_LOST:
		printf("# rank %d tor: lost (went silent mid-job after %llu allgather copies), software aggregation since\n",
		       rank, (unsigned long long)st->agent_tor_copies);
		break;
	default:
		printf("# rank %d tor: none, software aggregation\n", rank);
		break;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct rina_stats s0 = { .size = sizeof(s0) }, s1 = { .size = sizeof(s1) };
	struct bench_wire w0, w1;
	struct expect exp = { NULL, NULL, 0 };
	struct opts o;
	rina_comm_t *comm;
	double sum_busbw = 0, *times;
	size_t bytes, total_wrong = 0;
	int rank, n, L, role, rows = 0, i, ret;
	uint64_t who;
	const char *tname;
	void *buf;

	if (parse_opts(argc, argv, &o))
		return 2;
	tname = o.dtype == RINA_INT32 ? "int32" : "float";
	if (o.transport)
		setenv("RINA_TRANSPORT", o.transport, 1);
	ret = rina_comm_init_env(&comm);
	if (ret) {
		fprintf(stderr, "rina-bench: %s: %s\n", rina_strerror(ret),
			rina_last_error());
		return 1;
	}
	rank = rina_comm_rank(comm);
	n = rina_comm_size(comm);
	L = rina_comm_ring_len(comm);
	role = rina_comm_role(comm);
	/* an agent rank whose agent is rina.ko's is an ina-worker here */
	rina_comm_get_stats(comm, &s0);
	who = s0.rack_agent;
	o.elems = rina_comm_elems(comm);
	buf = malloc(o.max_bytes ? o.max_bytes : 4);
	times = calloc((size_t)o.iters, sizeof(*times));
	if (!buf || !times) {
		fprintf(stderr, "rina-bench: out of memory\n");
		return 1;
	}
	if (rank == 0 && !o.json) {
		printf("# rina-bench: %d ranks, ring of %d, rank 0 is %s%s, transport %s, %s %s\n",
		       n, L, role_name(role),
		       who == RINA_RACK_AGENT_KERNEL ?
		       " (its rack's agent is rina.ko)" : "",
		       rina_comm_transport(comm), tname,
		       o.op == RINA_SUM ? "sum" : o.op == RINA_AVG ? "avg" :
		       "max");
		if (o.link_rate)
			printf("# link rate %s (%.3f Mbit/s): effic = rank 0's device tx bytes at that rate / its time\n",
			       o.link_rate, o.link_bps / 1e6);
		else
			printf("# link rate not given (--link-rate, RINA_LINK_RATE): no efficiency\n");
		printf("#\n# %10s %12s %8s %6s %10s %8s %8s %7s %12s %12s %6s %10s %6s\n",
		       "size", "count", "type", "redop", "time", "algbw",
		       "busbw", "#wrong", "tx/rank", "theory", "ratio",
		       "retx/rank", "effic");
		printf("# %10s %12s %8s %6s %10s %8s %8s %7s %12s %12s %6s %10s %6s\n",
		       "(B)", "(elements)", "", "", "(us)", "(GB/s)",
		       "(GB/s)", "", "(B)", "(B)", "", "(B)", "");
	}
	for (bytes = o.min_bytes;; bytes = next_size(bytes, &o)) {
		size_t count = bytes / 4, wrong = 0;
		double t, algbw, busbw, theory, tx, rx;
		double npkt, retx, wire, effic = 0, cpu = 0, wall = 0, cpu_util;
		char effic_s[24];

		if (o.check && expect_fill(&exp, count, &o, n)) {
			fprintf(stderr, "rina-bench: out of memory\n");
			goto fail_destroy;
		}
		for (i = 0; i < o.warmup; i++) {
			fill(buf, count, &o, rank);
			ret = rina_allreduce(buf, buf, count, o.dtype, o.op,
					     comm);
			if (ret)
				goto fail;
			if (o.check)
				wrong += check(buf, count, &o, &exp);
			gap(&o);
		}
		rina_comm_get_stats(comm, &s0);
		bench_wire_read(&w0);
		/*
		 * Every call's result is checked, with the clock stopped:
		 * the times, cpu_util and the counters cover the calls only
		 * (the counters also what arrived late, between calls).
		 */
		for (i = 0; i < o.iters; i++) {
			double t0, c0;

			if (o.check)
				fill(buf, count, &o, rank);
			c0 = bench_cpu_s();
			t0 = now_s();
			ret = rina_allreduce(buf, buf, count, o.dtype, o.op,
					     comm);
			times[i] = now_s() - t0;
			cpu += bench_cpu_s() - c0;
			wall += times[i];
			if (ret)
				goto fail;
			if (o.check)
				wrong += check(buf, count, &o, &exp);
			gap(&o);
		}
		cpu_util = wall > 0 ? cpu / wall : 0;
		rina_comm_get_stats(comm, &s1);
		bench_wire_read(&w1);
		total_wrong += wrong;
		qsort(times, (size_t)o.iters, sizeof(*times), cmp_double);
		for (t = 0, i = 0; i < o.iters; i++)
			t += times[i];
		t /= o.iters;
		algbw = count ? (double)count * 4 / t / 1e9 : 0;
		busbw = algbw * 2.0 * (n - 1) / n;
		tx = (double)(s1.tx_bytes - s0.tx_bytes) / o.iters;
		rx = (double)(s1.rx_bytes - s0.rx_bytes) / o.iters;
		/*
		 * Data packets of E elements, each with its headers: a ring
		 * member moves 2(L-1)/L of the tensor each way, a worker of
		 * an INA rack the tensor once each way.
		 */
		npkt = ceil((double)count / o.elems);
		if (role != RINA_ROLE_MEMBER)
			theory = (double)count * 4 + npkt * HDR_BYTES;
		else
			theory = L > 1 ? 2.0 * (L - 1) / L *
				 ((double)count * 4 + npkt * HDR_BYTES) : 0;
		/* data sent again, as framed: this rank's and its agent's */
		retx = (double)(s1.retx_tx_bytes - s0.retx_tx_bytes) /
		       o.iters;
		/*
		 * what the devices sent: librina's tx_bytes also counts what
		 * a full local qdisc dropped (UDP does not tell)
		 */
		wire = w0.ok && w1.ok ?
		       (double)(w1.tx_bytes - w0.tx_bytes) / o.iters : tx;
		/* the line-rate time of this rank's wire bytes, over its own */
		if (o.link_rate && t > 0)
			effic = wire * 8 / o.link_bps / t;
		if (o.link_rate)
			snprintf(effic_s, sizeof(effic_s), "%.4f", effic);
		else
			snprintf(effic_s, sizeof(effic_s), "null");
		sum_busbw += busbw;
		rows++;
		if (o.json) {
			printf("{\"rank\":%d,\"size\":%zu,\"count\":%zu,\"dtype\":\"%s\",\"op\":\"%s\",\"n_ranks\":%d,\"ring_len\":%d,\"role\":\"%s\"%s,\"transport\":\"%s\",\"time_us\":%.2f,\"time_min_us\":%.2f,\"time_med_us\":%.2f,\"time_max_us\":%.2f,\"algbw_GBps\":%.4f,\"busbw_GBps\":%.4f,\"wrong\":%zu,\"tx_bytes\":%.0f,\"rx_bytes\":%.0f,\"ack_tx_bytes\":%.0f,\"ack_rx_bytes\":%.0f,\"theory_bytes\":%.0f,\"retransmits\":%llu,\"fast_retransmits\":%llu,\"timeouts\":%llu,\"duplicates\":%llu,\"agent_retransmits\":%llu,\"hash\":\"%016llx\"",
			       rank, count * 4, count, tname,
			       o.op == RINA_SUM ? "sum" : o.op == RINA_AVG ?
			       "avg" : "max", n, L, role_name(role),
			       rack_agent_json(who), rina_comm_transport(comm),
			       t * 1e6, times[0] * 1e6,
			       times[o.iters / 2] * 1e6,
			       times[o.iters - 1] * 1e6, algbw, busbw, wrong,
			       tx, rx,
			       (double)(s1.ack_tx_bytes - s0.ack_tx_bytes) /
			       o.iters,
			       (double)(s1.ack_rx_bytes - s0.ack_rx_bytes) /
			       o.iters, theory,
			       (unsigned long long)(s1.retransmits -
						    s0.retransmits),
			       (unsigned long long)(s1.fast_retransmits -
						    s0.fast_retransmits),
			       (unsigned long long)(s1.timeouts - s0.timeouts),
			       (unsigned long long)(s1.duplicates -
						    s0.duplicates),
			       (unsigned long long)(s1.agent_ag_retransmits +
						    s1.agent_reemit -
						    s0.agent_ag_retransmits -
						    s0.agent_reemit),
			       (unsigned long long)fnv(buf, count * 4));
			if (role == RINA_ROLE_INA_AGENT)
				printf(",\"tor\":\"%s\",\"tor_status\":%llu,\"agent_slots_done\":%llu,\"agent_far_round\":%llu,\"agent_ack_tx_bytes\":%.0f,\"agent_host_relays\":%.0f,\"agent_gap_nacks\":%llu,\"agent_duplicates\":%llu",
				       tor_name(s1.agent_tor),
				       (unsigned long long)s1.agent_tor_status,
				       (unsigned long long)
				       (s1.agent_slots_done -
					s0.agent_slots_done),
				       (unsigned long long)s1.agent_far_round,
				       (double)(s1.agent_ack_tx_bytes -
						s0.agent_ack_tx_bytes) /
				       o.iters,
				       (double)(s1.agent_host_relays -
						s0.agent_host_relays) /
				       o.iters,
				       (unsigned long long)
				       (s1.agent_gap_nacks -
					s0.agent_gap_nacks),
				       (unsigned long long)
				       (s1.agent_dup - s0.agent_dup));
			if (o.link_rate)
				printf(",\"link_rate\":\"%s\",\"link_rate_bps\":%.0f",
				       o.link_rate, o.link_bps);
			else
				printf(",\"link_rate\":null,\"link_rate_bps\":null");
			/* congestion signals over the size's calls */
			printf(",\"rx_ce\":%llu,\"ce_acked\":%llu,\"cwnd_cuts_loss\":%llu,\"cwnd_cuts_delay\":%llu,\"cwnd_cuts_ecn\":%llu",
			       (unsigned long long)(s1.rx_ce - s0.rx_ce),
			       (unsigned long long)(s1.ce_acked - s0.ce_acked),
			       (unsigned long long)(s1.cwnd_cuts_loss -
						    s0.cwnd_cuts_loss),
			       (unsigned long long)(s1.cwnd_cuts_delay -
						    s0.cwnd_cuts_delay),
			       (unsigned long long)(s1.cwnd_cuts_ecn -
						    s0.cwnd_cuts_ecn));
			/*
			 * what a worker resent after its agent lost the ToR,
			 * and what this rank resent because a peer asked
			 */
			printf(",\"resent_orphaned\":%llu,\"resent_asked\":%llu",
			       (unsigned long long)(s1.resent_orphaned -
						    s0.resent_orphaned),
			       (unsigned long long)(s1.resent_asked -
						    s0.resent_asked));
			/* what the local stack refused (lost as on a wire) */
			printf(",\"tx_refused_bytes\":%.0f",
			       (double)(s1.tx_refused_bytes -
					s0.tx_refused_bytes) / o.iters);
			/* held back behind its host's queue (txq_limit) */
			printf(",\"txq_holds\":%llu",
			       (unsigned long long)(s1.txq_holds -
						    s0.txq_holds));
			printf(",\"wire_tx_bytes\":%.0f,\"efficiency\":%s,\"retx_bytes\":%.0f,\"cpu_util\":%.3f}\n",
			       wire, effic_s, retx, cpu_util);
		} else if (rank == 0) {
			printf("  %10zu %12zu %8s %6s %10.1f %8.3f %8.3f %7zu %12.0f %12.0f %6.3f %10.0f %6s\n",
			       count * 4, count, tname,
			       o.op == RINA_SUM ? "sum" : o.op == RINA_AVG ?
			       "avg" : "max", t * 1e6, algbw, busbw, wrong,
			       tx, theory, theory > 0 ? tx / theory : 0, retx,
			       o.link_rate ? effic_s : "-");
		}
		fflush(stdout);
		if (next_size(bytes, &o) > o.max_bytes ||
		    next_size(bytes, &o) == bytes)
			break;
	}
	rina_comm_get_stats(comm, &s1);
	if (!o.json) {
		if (rank == 0) {
			printf("# Out of bounds values : %zu %s\n", total_wrong,
			       total_wrong ? "FAILED" : "OK");
			printf("# Avg bus bandwidth    : %.4f\n",
			       rows ? sum_busbw / rows : 0);
		}
		printf("# rank %d counters: tx_packets %llu rx_packets %llu retransmits %llu duplicates %llu timeouts %llu malformed %llu stale %llu early %llu fault_dropped %llu fault_duplicated %llu fault_rx_dropped %llu ctrl_forged %llu ctrl_replayed %llu rx_bad_tag %llu ctrl_duplicates %llu ctrl_before_start %llu rx_kernel_drops %llu\n",
		       rank, (unsigned long long)s1.tx_packets,
		       (unsigned long long)s1.rx_packets,
		       (unsigned long long)s1.retransmits,
		       (unsigned long long)s1.duplicates,
		       (unsigned long long)s1.timeouts,
		       (unsigned long long)s1.rx_malformed,
		       (unsigned long long)s1.rx_stale,
		       (unsigned long long)s1.rx_early,
		       (unsigned long long)s1.fault_dropped,
		       (unsigned long long)s1.fault_duplicated,
		       (unsigned long long)s1.fault_rx_dropped,
		       (unsigned long long)s1.ctrl_forged,
		       (unsigned long long)s1.ctrl_replayed,
		       (unsigned long long)s1.rx_bad_tag,
		       (unsigned long long)s1.ctrl_duplicates,
		       (unsigned long long)s1.ctrl_before_start,
		       (unsigned long long)s1.rx_kernel_drops);
		if (!strcmp(rina_comm_transport(comm), "xdp"))
			printf("# rank %d xdp: redirected %llu passed %llu dropped %llu fault-dropped %llu; sockets: rx_dropped %llu rx_ring_full %llu fill_ring_empty %llu invalid_descs %llu\n",
			       rank,
			       (unsigned long long)s1.xdp_prog_redirected,
			       (unsigned long long)s1.xdp_prog_passed,
			       (unsigned long long)s1.xdp_prog_dropped,
			       (unsigned long long)s1.xdp_prog_fault_dropped,
			       (unsigned long long)s1.xdp_rx_dropped,
			       (unsigned long long)s1.xdp_rx_ring_full,
			       (unsigned long long)s1.xdp_fill_ring_empty,
			       (unsigned long long)s1.xdp_invalid_descs);
		if (role == RINA_ROLE_INA_AGENT)
			print_tor(rank, &s1);
		else if (who == RINA_RACK_AGENT_KERNEL)
			printf("# rank %d tor: in rina.ko (rinactl job show)\n",
			       rank);
		if (role == RINA_ROLE_INA_AGENT)
			printf("# rank %d agent: contributions %llu partials in %llu out %llu slots done %llu allgather in %llu out %llu retransmitted %llu repairs %llu re-emitted %llu duplicates %llu stale %llu bad %llu far-round %llu\n",
			       rank, (unsigned long long)s1.agent_contrib_in,
			       (unsigned long long)s1.agent_partial_in,
			       (unsigned long long)s1.agent_partial_out,
			       (unsigned long long)s1.agent_slots_done,
			       (unsigned long long)s1.agent_ag_in,
			       (unsigned long long)s1.agent_ag_out,
			       (unsigned long long)s1.agent_ag_retransmits,
			       (unsigned long long)s1.agent_repairs,
			       (unsigned long long)s1.agent_reemit,
			       (unsigned long long)s1.agent_dup,
			       (unsigned long long)s1.agent_stale,
			       (unsigned long long)s1.agent_bad,
			       (unsigned long long)s1.agent_far_round);
	}
	rina_comm_destroy(comm);
	free(buf);
	free(times);
	free(exp.ref);
	free(exp.tol);
	return total_wrong ? 1 : 0;
fail:
	fprintf(stderr, "rina-bench: rank %d: %s: %s\n", rank,
		rina_strerror(ret), rina_last_error());
fail_destroy:
	rina_comm_destroy(comm);
	return 1;
}
