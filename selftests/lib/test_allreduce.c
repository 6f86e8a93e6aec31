// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina allreduce over the in-process transport: every rank is a
 * thread running the real ring engine. Results against a CPU reference
 * for N = 1..8 and awkward counts, bitwise identity across ranks, loss
 * and duplication through the fault knobs, a dead rank, mismatched jobs
 * and calls, overflow and NaN reporting.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rina.h"
#include "../ktap.h"

#define MAXN	8

struct job_opts {
	int	n;
	int	elems;
	int	window;
	int	timeout_ms;
	int	racks;		/* ranks spread over this many racks */
	unsigned int ina;	/* bit r: rack r's ToR aggregates */
	uint32_t drop_ppm, dup_ppm;
	int	rto_us;		/* the job's timer; 0: 1000 */
	int	net;		/* distinct per run: late packets stay apart */
};

struct rank_ctx {
	const struct job_opts *jo;
	int	rank;
	char	job[8192];
	size_t	count;
	enum rina_dtype dtype;
	enum rina_redop op;
	bool	in_place;
	int	calls;		/* allreduce calls to make */
	int	empty;		/* count-0 calls before them */
	int	die_after;	/* rank leaves after this many calls, -1 never */
	uint32_t rx_drop_ppm;	/* this rank's receive loss */
	void	*in, *out;
	int	init_rc, rc;
	double	elapsed_ms;
	struct rina_stats st;
	char	err[512];
};

static void make_job(char *buf, size_t len, const struct job_opts *jo,
		     int variant)
{
	int r, n = 0, racks = jo->racks ? jo->racks : 1;

	n += snprintf(buf + n, len - n,
		      "job %d\nelements %d\nwindow %d\ntimeout_ms %d\nrto_us %d\n",
		      7 + variant, jo->elems, jo->window, jo->timeout_ms,
		      jo->rto_us ? jo->rto_us : 1000);
	for (r = 0; r < racks; r++)
		n += snprintf(buf + n, len - n, "rack %d %s\n", r,
			      jo->ina & (1u << r) ? "ina" : "plain");
	/* a fresh address block per run: a vanished rank's endpoint stays */
	for (r = 0; r < jo->n; r++) {
		unsigned int a = (unsigned int)jo->net * 16 + (unsigned int)r + 1;

		n += snprintf(buf + n, len - n,
			      "rank %d 198.%u.%u.%u:21056 rack %d\n", r,
			      18 + a / 65536, a / 256 % 256, a % 256,
			      r * racks / jo->n);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *rank_main(void *arg)
{
	struct rank_ctx *x = arg;
	struct rina_config cfg = RINA_CONFIG_INIT;
	rina_comm_t *comm;
	double t0;
	int i;

	cfg.job_text = x->job;
	cfg.rank = x->rank;
	cfg.transport = "inproc";
	cfg.drop_ppm = x->jo->drop_ppm;
	cfg.dup_ppm = x->jo->dup_ppm;
	cfg.rx_drop_ppm = x->rx_drop_ppm;
	x->init_rc = rina_comm_init(&comm, &cfg);
	if (x->init_rc) {
		snprintf(x->err, sizeof(x->err), "%s", rina_last_error());
		return NULL;
	}
	t0 = now_ms();
	for (i = 0; i < x->empty && !x->rc; i++)
		x->rc = rina_allreduce(x->in, x->out, 0, x->dtype, x->op,
				       comm);
	if (x->rc)
		snprintf(x->err, sizeof(x->err), "%s", rina_last_error());
	for (i = 0; i < x->calls && !x->rc; i++) {
		if (i == x->die_after) {
			/* vanish without a word, like a killed process */
			x->rc = -1;
			return NULL;
		}
		if (!x->in_place)
			memset(x->out, 0xa5, x->count * 4);
		else
			memcpy(x->out, x->in, x->count * 4);
		x->rc = rina_allreduce(x->in_place ? x->out : x->in, x->out,
				       x->count, x->dtype, x->op, comm);
		if (x->rc) {
			snprintf(x->err, sizeof(x->err), "%s",
				 rina_last_error());
			break;
		}
	}
	x->elapsed_ms = now_ms() - t0;
	x->st.size = sizeof(x->st);
	rina_comm_get_stats(comm, &x->st);
	rina_comm_destroy(comm);
	return NULL;
}

static int32_t ival(int r, size_t j)
{
	return (int32_t)((j * 2654435761u + (size_t)r * 977u) % 20001) - 10000;
}

static float fval(int r, size_t j)
{
	return (float)ival(r, j) * 1e-3f * (float)(1 + j % 13) *
	       (j % 97 == 0 ? 1000.0f : 1.0f);
}

struct run {
	struct job_opts jo;
	struct rank_ctx x[MAXN];
	int	variant[MAXN];	/* job id offset per rank (mismatch test) */
	size_t	count[MAXN];
};

static int net_seq;

static void run_init(struct run *R, int n, int elems, int window)
{
	memset(R, 0, sizeof(*R));
	R->jo.n = n;
	R->jo.elems = elems;
	R->jo.window = window;
	R->jo.timeout_ms = 3000;
	R->jo.net = net_seq++;
}

static void run_go(struct run *R, size_t count, enum rina_dtype dt,
		   enum rina_redop op, bool in_place, int calls)
{
	pthread_t th[MAXN];
	int r;
	size_t j;

	for (r = 0; r < R->jo.n; r++) {
		struct rank_ctx *x = &R->x[r];
		size_t cnt = R->count[r] ? R->count[r] : count;

		x->jo = &R->jo;
		x->rank = r;
		make_job(x->job, sizeof(x->job), &R->jo, R->variant[r]);
		x->count = cnt;
		x->dtype = dt;
		x->op = op;
		x->in_place = in_place;
		x->calls = calls;
		if (!x->die_after)
			x->die_after = -1;
		x->in = malloc(cnt * 4 + 4);
		x->out = malloc(cnt * 4 + 4);
		for (j = 0; j < cnt; j++) {
			if (dt == RINA_INT32)
				((int32_t *)x->in)[j] = ival(r, j);
			else
				((float *)x->in)[j] = fval(r, j);
		}
	}
	for (r = 0; r < R->jo.n; r++)
		pthread_create(&th[r], NULL, rank_main, &R->x[r]);
	for (r = 0; r < R->jo.n; r++)
		pthread_join(th[r], NULL);
}

static void run_free(struct run *R)
{
	int r;

	for (r = 0; r < R->jo.n; r++) {
		free(R->x[r].in);
		free(R->x[r].out);
	}
}

/* What the rank's user saw: the init's error, or else the calls'. */
static int outcome(const struct rank_ctx *x)
{
	return x->init_rc ? x->init_rc : x->rc;
}

static bool all_ok(struct run *R)
{
	int r;

	for (r = 0; r < R->jo.n; r++) {
		if (R->x[r].init_rc || R->x[r].rc) {
			ktap_diag("rank %d: init %d rc %d: %s", r,
				  R->x[r].init_rc, R->x[r].rc, R->x[r].err);
			return false;
		}
	}
	return true;
}

/* Every rank holds the same bytes. */
static bool identical(struct run *R)
{
	int r;

	for (r = 1; r < R->jo.n; r++)
		if (memcmp(R->x[0].out, R->x[r].out, R->x[0].count * 4)) {
			ktap_diag("rank %d differs from rank 0", r);
			return false;
		}
	return true;
}

static bool int_correct(struct run *R, enum rina_redop op)
{
	size_t j, n = R->x[0].count;
	int r;

	for (j = 0; j < n; j++) {
		int64_t ref = op == RINA_MAX ? INT32_MIN : 0;

		for (r = 0; r < R->jo.n; r++)
			ref = op == RINA_MAX ? (ival(r, j) > ref ?
						ival(r, j) : ref) :
					       ref + ival(r, j);
		if (op == RINA_AVG)
			ref /= R->jo.n;
		if (((int32_t *)R->x[0].out)[j] != ref) {
			ktap_diag("element %zu: got %d want %lld", j,
				  ((int32_t *)R->x[0].out)[j],
				  (long long)ref);
			return false;
		}
	}
	return true;
}

/* The bound of Documentation/protocol.md: N^2 2^e / (2 (2^31-1)). */
static bool float_correct(struct run *R, bool avg)
{
	size_t g0, j, n = R->x[0].count, E = (size_t)R->jo.elems;
	int N = R->jo.n, r, e;

	for (g0 = 0; g0 < n; g0 += E) {
		size_t g1 = g0 + E < n ? g0 + E : n;
		double gmax = 0, bound;

		for (r = 0; r < N; r++)
			for (j = g0; j < g1; j++)
				gmax = fmax(gmax, fabs(fval(r, j)));
		frexp(gmax, &e);
		bound = (double)N * N * ldexp(1, e) / (2.0 * 2147483647.0);
		for (j = g0; j < g1; j++) {
			double ref = 0, got = ((float *)R->x[0].out)[j];

			for (r = 0; r < N; r++)
				ref += fval(r, j);
			if (avg)
				ref /= N;
			if (fabs(got - ref) > (avg ? bound / N : bound) +
			    fabs(ref) * 0x1p-24) {
				ktap_diag("element %zu: got %.9g want %.9g bound %.3g",
					  j, got, ref, bound);
				return false;
			}
		}
	}
	return true;
}

static void test_counts(void)
{
	static const size_t counts[] = { 0, 1, 3, 7, 255, 1000, 4099, 50001 };
	int n;
	unsigned int c;

	for (n = 1; n <= MAXN; n++) {
		bool ok = true;

		for (c = 0; c < sizeof(counts) / sizeof(counts[0]) && ok;
		     c++) {
			struct run R;
			bool in_place = c % 2;

			run_init(&R, n, 64, 8);
			run_go(&R, counts[c], RINA_INT32, RINA_SUM, in_place,
			       2);
			ok = all_ok(&R) && int_correct(&R, RINA_SUM) &&
			     identical(&R);
			if (!ok)
				ktap_diag("count %zu in_place %d", counts[c],
					  in_place);
			run_free(&R);
			if (!ok)
				break;
			run_init(&R, n, 64, 8);
			run_go(&R, counts[c], RINA_FLOAT32, RINA_SUM,
			       in_place, 2);
			ok = all_ok(&R) && float_correct(&R, false) &&
			     identical(&R);
			if (!ok)
				ktap_diag("float count %zu", counts[c]);
			run_free(&R);
		}
		ktap_result(ok, "int32 and float32 sum, N=%d, counts 0..50001, in and out of place",
			    n);
	}
}

static void test_ops(void)
{
	struct run R;
	bool ok;

	run_init(&R, 4, 32, 16);
	run_go(&R, 3000, RINA_INT32, RINA_AVG, false, 1);
	ok = all_ok(&R) && int_correct(&R, RINA_AVG) && identical(&R);
	run_free(&R);
	ktap_result(ok, "int32 avg");

	run_init(&R, 5, 32, 16);
	run_go(&R, 3000, RINA_INT32, RINA_MAX, true, 1);
	ok = all_ok(&R) && int_correct(&R, RINA_MAX) && identical(&R);
	run_free(&R);
	ktap_result(ok, "int32 max");

	run_init(&R, 3, 32, 16);
	run_go(&R, 3000, RINA_FLOAT32, RINA_AVG, false, 1);
	ok = all_ok(&R) && float_correct(&R, true) && identical(&R);
	run_free(&R);
	ktap_result(ok, "float32 avg");
}

/*
 * A data datagram as framed on the wire (Ethernet, IPv4, UDP, the Rina
 * header, the payload, the tag): the bounds of what one retransmission
 * adds to retx_tx_bytes with E elements a packet.
 */
#define FRAME_MIN	(14 + 20 + 8 + 28 + 4)
#define FRAME_MAX(E)	(14 + 20 + 8 + 28 + 4 * (E) + 8)

static void test_faults(uint32_t drop, uint32_t dup, const char *what)
{
	struct run R;
	uint64_t retx = 0, dups = 0, rb;
	bool ok, bytes_ok = true;
	int r;

	run_init(&R, 4, 64, 16);
	R.jo.drop_ppm = drop;
	R.jo.dup_ppm = dup;
	R.jo.timeout_ms = 5000;
	run_go(&R, 20000, RINA_INT32, RINA_SUM, false, 3);
	ok = all_ok(&R) && int_correct(&R, RINA_SUM) && identical(&R);
	for (r = 0; r < R.jo.n; r++) {
		retx += R.x[r].st.retransmits;
		dups += R.x[r].st.duplicates;
		/* every retransmission counted once, at its framed size */
		rb = R.x[r].st.retx_tx_bytes;
		if (rb < R.x[r].st.retransmits * FRAME_MIN ||
		    rb > R.x[r].st.retransmits * FRAME_MAX(64))
			bytes_ok = false;
	}
	ktap_diag("%s: retransmits %llu duplicates %llu", what,
		  (unsigned long long)retx, (unsigned long long)dups);
	if (drop && !retx)
		ok = false;
	if (!bytes_ok) {
		ktap_diag("%s: retx_tx_bytes out of its frames' bounds", what);
		ok = false;
	}
	if (dup && !dups)
		ok = false;
	run_free(&R);
	ktap_result(ok, "%s: exact result, recovery counted", what);

	run_init(&R, 3, 64, 16);
	R.jo.drop_ppm = drop;
	R.jo.dup_ppm = dup;
	R.jo.timeout_ms = 5000;
	run_go(&R, 20000, RINA_FLOAT32, RINA_SUM, true, 2);
	ok = all_ok(&R) && float_correct(&R, false) && identical(&R);
	run_free(&R);
	ktap_result(ok, "%s: float32 bitwise identical on every rank", what);
}

static void test_dead_rank(void)
{
	struct run R;
	bool ok = true;
	int r;

	run_init(&R, 4, 64, 16);
	R.jo.timeout_ms = 400;
	R.x[2].die_after = 1;
	run_go(&R, 10000, RINA_INT32, RINA_SUM, false, 3);
	for (r = 0; r < R.jo.n; r++) {
		if (r == 2)
			continue;
		ktap_diag("rank %d: rc %d (%s) after %.0f ms: %s", r,
			  R.x[r].rc, rina_strerror(R.x[r].rc),
			  R.x[r].elapsed_ms, R.x[r].err);
		if (R.x[r].rc != RINA_ERR_TIMEOUT &&
		    R.x[r].rc != RINA_ERR_ABORTED)
			ok = false;
		/* deadline: one timeout, plus the first call's work */
		if (R.x[r].elapsed_ms > 400 * 2 + 500)
			ok = false;
	}
	run_free(&R);
	ktap_result(ok, "a vanished rank: every other rank fails within the deadline");

	/*
	 * float32 takes two passes a call: messages still count the user's
	 * calls (the third call is "call 3", not its fifth pass)
	 */
	run_init(&R, 4, 64, 16);
	R.jo.timeout_ms = 400;
	R.x[2].die_after = 2;
	run_go(&R, 1000, RINA_FLOAT32, RINA_SUM, false, 4);
	ok = false;
	for (r = 0; r < R.jo.n; r++) {
		if (R.x[r].rc != RINA_ERR_TIMEOUT)
			continue;
		ktap_diag("rank %d: %s", r, R.x[r].err);
		ok = strstr(R.x[r].err, "in call 3:") != NULL;
		break;
	}
	run_free(&R);
	ktap_result(ok, "a timeout names the user's call, not an internal pass");
}

static void test_mismatch(void)
{
	struct run R;
	bool ok;

	run_init(&R, 3, 64, 16);
	R.jo.timeout_ms = 1000;
	R.variant[1] = 1;	/* rank 1 has another job id */
	run_go(&R, 100, RINA_INT32, RINA_SUM, false, 1);
	/* rank 1 hears no one of its job; its neighbours see a stranger */
	ok = R.x[1].init_rc == RINA_ERR_TIMEOUT && R.x[0].init_rc &&
	     R.x[2].init_rc;
	ktap_diag("job id differs: init %d %d %d: %s", R.x[0].init_rc,
		  R.x[1].init_rc, R.x[2].init_rc, R.x[0].err);
	run_free(&R);
	ktap_result(ok, "different job ids never form a ring");

	run_init(&R, 3, 64, 16);
	R.jo.timeout_ms = 1000;
	R.x[0].jo = &R.jo;
	run_go(&R, 100, RINA_INT32, RINA_SUM, false, 0);
	ok = all_ok(&R);
	run_free(&R);
	ktap_result(ok, "init and destroy without a call");

	run_init(&R, 3, 64, 16);
	R.jo.timeout_ms = 2000;
	R.count[1] = 5000;	/* rank 1 calls with another count */
	run_go(&R, 4000, RINA_INT32, RINA_SUM, false, 1);
	/*
	 * A rank still greeting its neighbour when another one aborts fails
	 * in rina_comm_init, with the abort: that is its error then.
	 */
	ok = outcome(&R.x[0]) && outcome(&R.x[1]) && outcome(&R.x[2]);
	ktap_diag("count differs: %d %d %d: %s / %s / %s", outcome(&R.x[0]),
		  outcome(&R.x[1]), outcome(&R.x[2]), R.x[0].err, R.x[1].err,
		  R.x[2].err);
	ok = ok && (outcome(&R.x[0]) == RINA_ERR_MISMATCH ||
		    outcome(&R.x[1]) == RINA_ERR_MISMATCH ||
		    outcome(&R.x[2]) == RINA_ERR_MISMATCH);
	run_free(&R);
	ktap_result(ok, "different counts: a clear mismatch error, no hang");
}

static void test_job_hash_mismatch(void)
{
	struct run R;
	pthread_t th[3];
	bool ok;
	int r;

	/* same job id and ring, rank 2's file says window 32 */
	run_init(&R, 3, 64, 16);
	R.jo.timeout_ms = 1000;
	for (r = 0; r < 3; r++) {
		struct rank_ctx *x = &R.x[r];

		x->jo = &R.jo;
		x->rank = r;
		x->die_after = -1;
		make_job(x->job, sizeof(x->job), &R.jo, 0);
		x->in = x->out = NULL;
	}
	{
		struct job_opts jo2 = R.jo;

		jo2.window = 32;
		make_job(R.x[2].job, sizeof(R.x[2].job), &jo2, 0);
	}
	for (r = 0; r < 3; r++)
		pthread_create(&th[r], NULL, rank_main, &R.x[r]);
	for (r = 0; r < 3; r++)
		pthread_join(th[r], NULL);
	ok = R.x[2].init_rc == RINA_ERR_MISMATCH ||
	     R.x[1].init_rc == RINA_ERR_MISMATCH ||
	     R.x[0].init_rc == RINA_ERR_MISMATCH;
	ktap_diag("window differs: %d %d %d: %s", R.x[0].init_rc,
		  R.x[1].init_rc, R.x[2].init_rc,
		  R.x[2].init_rc ? R.x[2].err : R.x[1].err);
	ktap_result(ok, "different job descriptions: RINA_ERR_MISMATCH at init");
}

static void test_overflow_nan(void)
{
	struct run R;
	bool ok = true;
	int r;

	run_init(&R, 3, 64, 16);
	run_go(&R, 500, RINA_INT32, RINA_SUM, false, 0);
	for (r = 0; r < 3; r++) {
		((int32_t *)R.x[r].in)[123] = INT32_MAX - 5;
		R.x[r].calls = 1;
	}
	{
		pthread_t th[3];

		for (r = 0; r < 3; r++)
			pthread_create(&th[r], NULL, rank_main, &R.x[r]);
		for (r = 0; r < 3; r++)
			pthread_join(th[r], NULL);
	}
	for (r = 0; r < 3; r++)
		if (R.x[r].rc != RINA_ERR_OVERFLOW)
			ok = false;
	ktap_diag("overflow: %d %d %d", R.x[0].rc, R.x[1].rc, R.x[2].rc);
	run_free(&R);
	ktap_result(ok, "int32 wrap-around reported on every rank");

	ok = true;
	run_init(&R, 3, 64, 16);
	run_go(&R, 500, RINA_FLOAT32, RINA_SUM, false, 0);
	((float *)R.x[1].in)[77] = NAN;
	for (r = 0; r < 3; r++)
		R.x[r].calls = 1;
	{
		pthread_t th[3];

		for (r = 0; r < 3; r++)
			pthread_create(&th[r], NULL, rank_main, &R.x[r]);
		for (r = 0; r < 3; r++)
			pthread_join(th[r], NULL);
	}
	for (r = 0; r < 3; r++)
		if (R.x[r].rc != RINA_ERR_NONFINITE)
			ok = false;
	ktap_diag("nan: %d %d %d", R.x[0].rc, R.x[1].rc, R.x[2].rc);
	run_free(&R);
	ktap_result(ok, "NaN in one rank's input reported on every rank");
}

static void test_bad_args(void)
{
	struct rina_config cfg = RINA_CONFIG_INIT;
	rina_comm_t *comm = (void *)1;
	int rc;

	cfg.job_text = "job 1\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n";
	cfg.rank = 1;
	cfg.transport = "inproc";
	rc = rina_comm_init(&comm, &cfg);
	ktap_result(rc == RINA_ERR_INVALID && !comm &&
		    strstr(rina_last_error(), "rank 1"),
		    "rank outside the job is refused: %s", rina_last_error());
	cfg.rank = 0;
	cfg.transport = "carrier-pigeon";
	rc = rina_comm_init(&comm, &cfg);
	ktap_result(rc == RINA_ERR_INVALID &&
		    strstr(rina_last_error(), "carrier-pigeon"),
		    "unknown transport is refused: %s", rina_last_error());
	cfg.transport = "inproc";
	rc = rina_comm_init(&comm, &cfg);
	if (rc == RINA_OK) {
		int32_t v = 5;

		rc = rina_allreduce(&v, &v, 1, RINA_FLOAT32, RINA_MAX, comm);
		ktap_result(rc == RINA_ERR_INVALID,
			    "MAX on float32 is refused: %s",
			    rina_last_error());
		rc = rina_allreduce(&v, &v, 1, RINA_INT32, RINA_SUM, comm);
		ktap_result(rc == RINA_OK && v == 5, "N=1 allreduce is the identity");
		rina_comm_destroy(comm);
	} else {
		ktap_result(0, "single-rank init: %s", rina_last_error());
		ktap_result(0, "N=1 allreduce is the identity");
	}
}

/*
 * Racks with INA: each is one ring member whose agent (no ToR here)
 * aggregates in software. Results equal the reference, are identical on
 * every rank, and equal plain RAR's bit for bit (float32 included).
 */
static void test_ina(int k, int m, unsigned int mask, uint32_t drop_ppm)
{
	static const size_t counts[] = { 1, 5, 777, 20000 };
	bool all_ina = mask == (1u << k) - 1;
	uint64_t fast = 0, timeouts = 0;
	struct run R, P;
	bool ok = true;
	unsigned int c;
	int L = 0, r;

	for (r = 0; r < k; r++)
		L += mask & (1u << r) ? 1 : m;
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]) && ok; c++) {
		enum rina_dtype dt = c % 2 ? RINA_FLOAT32 : RINA_INT32;

		run_init(&R, k * m, 64, 16);
		R.jo.racks = k;
		R.jo.ina = mask;
		R.jo.drop_ppm = drop_ppm;
		R.jo.timeout_ms = 8000;
		run_go(&R, counts[c], dt, RINA_SUM, c % 2, 2);
		ok = all_ok(&R) && identical(&R) &&
		     (dt == RINA_INT32 ? int_correct(&R, RINA_SUM) :
		      float_correct(&R, false));
		for (r = 0; r < k * m; r++) {
			fast += R.x[r].st.fast_retransmits;
			timeouts += R.x[r].st.timeouts;
		}
		if (ok && dt == RINA_FLOAT32) {
			run_init(&P, k * m, 64, 16);
			P.jo = R.jo;
			P.jo.net = net_seq++;
			setenv("RINA_NO_INA", "1", 1);
			run_go(&P, counts[c], dt, RINA_SUM, true, 2);
			unsetenv("RINA_NO_INA");
			ok = all_ok(&P) && !memcmp(P.x[0].out, R.x[0].out,
						   counts[c] * 4);
			if (!ok)
				ktap_diag("INA and plain RAR differ");
			run_free(&P);
		}
		if (!ok)
			ktap_diag("count %zu", counts[c]);
		run_free(&R);
	}
	ktap_result(ok, "INA racks %dx%d mask 0x%x (ring of %d)%s: exact, identical, equal to plain RAR",
		    k, m, mask, L, drop_ppm ? " under 5% loss" : "");
	/*
	 * With every member INA only INA workers retransmit contributions:
	 * a slot that completed after a younger one of its step is a loss
	 * they find by RACK (ina_worker.c), not only by their timers.
	 */
	if (drop_ppm && all_ina) {
		ktap_diag("fast retransmissions %llu, timer and probe retransmissions %llu",
			  (unsigned long long)fast,
			  (unsigned long long)timeouts);
		ktap_result(ok && fast > 0,
			    "INA racks %dx%d under loss: workers find lost slots by RACK",
			    k, m);
	}
}

/*
 * n ranks in 2 racks, INA racks by mask ina (software agents), giving
 * up after timeout_ms without progress
 */
static void ina_2racks_init(struct run *R, int n, unsigned int ina,
			    unsigned int timeout_ms)
{
	run_init(R, n, 64, 16);
	R->jo.racks = 2;
	R->jo.ina = ina;
	R->jo.timeout_ms = timeout_ms;
}

/*
 * A local worker that lags behind the rank hosting its rack's agent: the
 * host finishes and destroys its communicator while the laggard (90%
 * receive loss) still needs the agent to repair allgather data and to
 * re-emit partials, and the next member to acknowledge them. The agent
 * and the ring members must stay for it (rina_linger_over), not leave
 * after a fixed linger, or the laggard times out (4 runs in 4 failed
 * that way with a 2 s linger). One call of 300 int32 fits the window, so
 * the rest of the ring finishes at once and the laggard is seconds late.
 */
static void test_ina_laggard(void)
{
	double lag, lag_max = 0;
	bool ok = true;
	struct run R;
	int t;

	for (t = 0; t < 3 && ok; t++) {
		ina_2racks_init(&R, 6, 3, 15000);
		R.x[2].rx_drop_ppm = 900000;	/* rack 0's worker, not agent */
		run_go(&R, 300, RINA_INT32, RINA_SUM, false, 1);
		ok = all_ok(&R) && identical(&R) &&
		     int_correct(&R, RINA_SUM) &&
		     R.x[2].st.fault_rx_dropped > 0;
		lag = R.x[2].elapsed_ms - R.x[0].elapsed_ms;
		if (lag > lag_max)
			lag_max = lag;
		ktap_diag("trial %d: rank 2 finished %.0f ms after rank 0: %llu received packets dropped, %llu retransmits, %llu nacks",
			  t, lag,
			  (unsigned long long)R.x[2].st.fault_rx_dropped,
			  (unsigned long long)R.x[2].st.retransmits,
			  (unsigned long long)R.x[2].st.nacks);
		run_free(&R);
	}
	ktap_result(ok, "a worker lagging up to %.1f s behind its agent's rank (90%% receive loss): exact everywhere",
		    lag_max / 1000);
}

/*
 * A worker that loses results its agent sent it (10% receive loss on
 * rank 1, a worker of rack 0 that is not the agent's) asks for them
 * again about a round trip after its contributions are all delivered
 * (ina_worker.c, wnack_at()), not after the slot timer (the job's 2 s
 * here, capped at RINA_RTO_MAX_US, 50 ms): 10 calls take 50-80 ms, under
 * a parallel build too, and must take less than 300. Before, every call
 * waited at least one slot timer for its last lost result (10 calls:
 * 0.5 s and more).
 */
static void test_ina_lost_results(void)
{
	const int calls = 10;
	struct run R;
	bool ok;

	ina_2racks_init(&R, 6, 3, 20000);
	R.jo.rto_us = 2000000;
	R.x[1].rx_drop_ppm = 100000;
	run_go(&R, 4096, RINA_INT32, RINA_SUM, false, calls);
	ok = all_ok(&R) && identical(&R) && int_correct(&R, RINA_SUM) &&
	     R.x[1].st.fault_rx_dropped > 0 && R.x[1].st.nacks > 0;
	ktap_diag("rank 1: %llu received packets dropped, %llu nacks, %d calls in %.0f ms",
		  (unsigned long long)R.x[1].st.fault_rx_dropped,
		  (unsigned long long)R.x[1].st.nacks, calls,
		  R.x[1].elapsed_ms);
	ok = ok && R.x[1].elapsed_ms < 300;
	run_free(&R);
	ktap_result(ok, "INA racks 2x3, a worker losing 10%% of what it receives: it asks for the lost results within a round trip, not a slot timer (10 calls under 300 ms); exact");
}

/*
 * Software agents (no ToR) under 10% loss of every send: an agent that
 * sees a worker's later contribution before an earlier one asks for the
 * earlier one (core/agent_agg.c, gap_nack()), and the worker resends it at
 * once (ina_worker.c, wrx_resend()): resent_asked counts them. Without
 * the agent's part asks come only after a ToR went away, and it stays 0
 * (the worker's at once is not pinned here: threads in one process are
 * often 2 ms late, and half as many went after the old 2 ms rule).
 */
static void test_ina_gap_asked(void)
{
	unsigned long long asked = 0, gaps = 0;
	struct run R;
	bool ok;
	int r;

	ina_2racks_init(&R, 6, 3, 20000);
	R.jo.drop_ppm = 100000;
	run_go(&R, 65536, RINA_INT32, RINA_SUM, false, 3);
	ok = all_ok(&R) && identical(&R) && int_correct(&R, RINA_SUM);
	for (r = 0; r < 6; r++) {
		asked += R.x[r].st.resent_asked;
		gaps += R.x[r].st.agent_gap_nacks;
		/* only the agents (ranks 0 and 3) ask */
		if (r % 3 && R.x[r].st.agent_gap_nacks)
			ok = false;
	}
	run_free(&R);
	ktap_result(ok && asked > 0 && gaps > 0,
		    "INA racks 2x3, software agents, 10%% loss: workers resend what their agent saw missing (%llu asked, agents' gap_nacks %llu); exact",
		    asked, gaps);
}

/*
 * Empty calls send nothing but take a round number each (a round keeps
 * calls apart): after a run of them the rack's data is that many rounds
 * ahead of what the agent saw last, and must still be in its window of
 * rounds (core/agent_cache.c, RINA_AGENT_ROUNDS_AHEAD).
 */
static void test_ina_empty_calls(void)
{
	struct run R;
	bool ok;
	int r;

	ina_2racks_init(&R, 4, 1, 8000);
	for (r = 0; r < 4; r++)
		R.x[r].empty = 100;
	run_go(&R, 777, RINA_INT32, RINA_SUM, false, 2);
	ok = all_ok(&R) && identical(&R) && int_correct(&R, RINA_SUM);
	run_free(&R);
	ktap_result(ok, "INA racks 2x2 mask 0x1: exact after 100 empty calls");
}

/*
 * "base" and "ina" run as separate processes in the suite, so that each
 * stays well within its time budget on a loaded machine.
 */
int main(int argc, char **argv)
{
	bool base = argc < 2 || !strcmp(argv[1], "base");
	bool ina = argc < 2 || !strcmp(argv[1], "ina");

	ktap_plan((base ? 8 + 3 + 4 + 2 + 4 + 2 + 4 : 0) + (ina ? 12 : 0));
	if (base) {
		test_counts();
		test_ops();
		test_faults(10000, 0, "1% loss");
		test_faults(100000, 100000, "10% loss and 10% duplication");
		test_dead_rank();
		test_mismatch();
		test_job_hash_mismatch();
		test_overflow_nan();
		test_bad_args();
	}
	if (ina) {
		test_ina(1, 4, 1, 0);
		test_ina(2, 2, 1, 0);
		test_ina(2, 2, 3, 0);
		test_ina(3, 2, 5, 0);
		test_ina(2, 3, 2, 0);
		test_ina(2, 3, 3, 50000);
		test_ina(3, 2, 2, 50000);
		test_ina_laggard();
		test_ina_lost_results();
		test_ina_gap_asked();
		test_ina_empty_calls();
	}
	return ktap_finish();
}
