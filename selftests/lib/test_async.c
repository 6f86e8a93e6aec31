// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's asynchronous allreduce over the in-process transport (every
 * rank a thread): many calls in flight of every dtype, waited for out
 * of order; callbacks and the eventfd once per request; bfloat16 and
 * float16 exact where the sum is representable, within the documented
 * bound otherwise, bitwise identical on every rank; a dead rank's
 * timeout failing every pending request; a per-call error that fails
 * only its request; destroy with calls pending.
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rina.h"
#include "../ktap.h"

#define N	4
#define NREQ	16

static int net_seq;

static void make_job(char *buf, size_t len, int n, int timeout_ms, int net,
		     bool ina)
{
	int r, k = 0;

	k += snprintf(buf + k, len - k,
		      "job 11\nelements 64\nwindow 8\ntimeout_ms %d\nrto_us 1000\n"
		      "rack 0 %s\nrack 1 %s\n", timeout_ms,
		      ina ? "ina" : "plain", ina ? "ina" : "plain");
	for (r = 0; r < n; r++) {
		unsigned int a = 4096 + (unsigned int)net * 16 + r + 1;

		k += snprintf(buf + k, len - k,
			      "rank %d 198.%u.%u.%u:21056 rack %d\n", r,
			      18 + a / 65536, a / 256 % 256, a % 256,
			      r * 2 / n);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Request k's dtype and size: every dtype, awkward counts. */
static enum rina_dtype req_dtype(int k)
{
	static const enum rina_dtype t[] = {
		RINA_FLOAT32, RINA_INT32, RINA_BFLOAT16, RINA_FLOAT16,
		RINA_FLOAT64,
	};
	return t[k % 5];
}

static size_t req_count(int k)
{
	return (size_t)(k * 977 % 5000) + 1;
}

/* Small integers: sums representable in every dtype (|sum| <= 120). */
static double exact_val(int r, int k, size_t j)
{
	return (double)((int)((j * 2654435761u + r * 977u + k * 31u) % 61)
			- 30);
}

/* General values: exponents over a wide range. */
static double gen_val(int r, int k, size_t j)
{
	return exact_val(r, k, j) * 1e-2 * (1 + j % 7) *
	       (j % 89 == 0 ? 300.0 : 1.0) + 0.001 * (r + 1);
}

static uint16_t to_bf16(float f)
{
	uint32_t b;

	memcpy(&b, &f, 4);
	b += 0x7fff + (b >> 16 & 1);
	return (uint16_t)(b >> 16);
}

static double from_bf16(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;

	memcpy(&f, &b, 4);
	return f;
}

/* Store v as dtype; returns the value actually stored. */
static double put(void *buf, enum rina_dtype dt, size_t j, double v)
{
	switch (dt) {
	case RINA_INT32:
		((int32_t *)buf)[j] = (int32_t)v;
		return (int32_t)v;
	case RINA_FLOAT32:
		((float *)buf)[j] = (float)v;
		return (float)v;
	case RINA_BFLOAT16:
		((uint16_t *)buf)[j] = to_bf16((float)v);
		return from_bf16(((uint16_t *)buf)[j]);
	case RINA_FLOAT16:
		((_Float16 *)buf)[j] = (_Float16)v;
		return (double)((_Float16 *)buf)[j];
	case RINA_FLOAT64:
		((double *)buf)[j] = v;
		return v;
	}
	return 0;
}

static double get(const void *buf, enum rina_dtype dt, size_t j)
{
	switch (dt) {
	case RINA_INT32:
		return ((const int32_t *)buf)[j];
	case RINA_FLOAT32:
		return ((const float *)buf)[j];
	case RINA_BFLOAT16:
		return from_bf16(((const uint16_t *)buf)[j]);
	case RINA_FLOAT16:
		return (double)((const _Float16 *)buf)[j];
	case RINA_FLOAT64:
		return ((const double *)buf)[j];
	}
	return 0;
}

/* Significand bits after the final narrowing (protocol.md section 7). */
static int precision(enum rina_dtype dt)
{
	return dt == RINA_BFLOAT16 ? 8 : dt == RINA_FLOAT16 ? 11 : 24;
}

enum scenario {
	SC_MANY,	/* NREQ calls, waited for in reverse order */
	SC_DEAD,	/* rank N-1 vanishes: every pending call fails */
	SC_NONFINITE,	/* a NaN on one rank fails only its call */
	SC_DESTROY,	/* rank 0 destroys with calls pending */
};

struct rank_ctx {
	int		rank;
	enum scenario	sc;
	bool		exact;		/* exact_val inputs */
	char		job[4096];
	void		*in[NREQ], *out[NREQ];
	double		*ref_in[NREQ];	/* the values put, as double */
	int		rc[NREQ];
	char		err[NREQ][256];
	atomic_int	cb_calls[NREQ];
	int		cb_result[NREQ];
	uint64_t	efd_count;
	int		init_rc, late_rc;
	double		fail_ms;	/* until every request completed */
	uint64_t	calls;
	bool		tested_all_done;
	/* the dead rank's communicator, destroyed once the others are done */
	rina_comm_t	*vanished;
};

/* Scores 1 per call, 100 if the request did not read as complete. */
static void on_done(rina_request_t *req, int result, void *arg)
{
	atomic_int *slot = arg;
	int done, res = -1;

	/* the request reads as complete inside its callback already */
	done = rina_test(req, &res);
	atomic_fetch_add(slot, done && res == result ? 1 : 100);
}

static int nreq(const struct rank_ctx *x)
{
	return x->sc == SC_NONFINITE ? 4 : x->sc == SC_DESTROY ? 8 : NREQ;
}

static void *rank_main(void *arg)
{
	struct rank_ctx *x = arg;
	struct rina_config cfg = RINA_CONFIG_INIT;
	rina_request_t *req[NREQ] = { 0 };
	struct rina_stats st = { .size = sizeof(st) };
	rina_comm_t *comm;
	int k, efd, n = nreq(x);
	double t0;

	cfg.job_text = x->job;
	cfg.rank = x->rank;
	cfg.transport = "inproc";
	x->init_rc = rina_comm_init(&comm, &cfg);
	if (x->init_rc)
		return NULL;
	if (x->sc == SC_DEAD && x->rank == N - 1) {
		x->vanished = comm;
		return NULL;	/* vanish without a word, like a killed one */
	}
	efd = rina_comm_eventfd(comm);
	for (k = 0; k < n; k++) {
		enum rina_dtype dt = x->sc == SC_MANY ? req_dtype(k) :
				     RINA_FLOAT32;

		x->rc[k] = rina_iallreduce(x->in[k], x->out[k], req_count(k),
					   dt, RINA_SUM, comm, on_done,
					   &x->cb_calls[k], &req[k]);
		if (x->rc[k])
			snprintf(x->err[k], sizeof(x->err[k]), "start: %s",
				 rina_last_error());
	}
	/* a released pending request completes and is freed by librina */
	if (x->sc == SC_DESTROY) {
		rina_request_free(req[n - 1]);
		req[n - 1] = NULL;
	}
	t0 = now_ms();
	if (x->sc == SC_DESTROY) {	/* everyone is up: the first call ran */
		x->rc[0] = rina_wait(req[0]);
		rina_request_free(req[0]);
		req[0] = NULL;
	}
	if (x->sc == SC_DESTROY && x->rank == 0) {
		rina_comm_destroy(comm);
		x->fail_ms = now_ms() - t0;
		x->tested_all_done = true;
		for (k = 0; k < n; k++) {
			if (!req[k])
				continue;
			if (!rina_test(req[k], &x->rc[k]))
				x->tested_all_done = false;
			snprintf(x->err[k], sizeof(x->err[k]), "%s",
				 rina_last_error());
			rina_request_free(req[k]);
		}
		return NULL;
	}
	for (k = n - 1; k >= 0; k--) {	/* out of order */
		if (!req[k])
			continue;
		x->rc[k] = rina_wait(req[k]);
		snprintf(x->err[k], sizeof(x->err[k]), "%s",
			 x->rc[k] ? rina_last_error() : "");
		rina_request_free(req[k]);
	}
	x->fail_ms = now_ms() - t0;
	if (x->sc == SC_DEAD) {
		rina_request_t *late;

		x->late_rc = rina_iallreduce(x->in[0], x->out[0], 1,
					     RINA_FLOAT32, RINA_SUM, comm,
					     NULL, NULL, &late);
		if (!x->late_rc)
			x->late_rc = rina_wait(late), rina_request_free(late);
	}
	if (efd >= 0) {
		struct pollfd p = { .fd = efd, .events = POLLIN };
		uint64_t v;

		if (poll(&p, 1, 0) == 1 && read(efd, &v, sizeof(v)) == 8)
			x->efd_count = v;
	}
	rina_comm_get_stats(comm, &st);
	x->calls = st.calls;
	rina_comm_destroy(comm);
	return NULL;
}

static struct rank_ctx X[N];

static void setup(enum scenario sc, bool exact, int timeout_ms, bool ina)
{
	int r, k, net = net_seq++;
	size_t j;

	for (r = 0; r < N; r++) {
		struct rank_ctx *x = &X[r];

		memset(x, 0, sizeof(*x));
		x->rank = r;
		x->sc = sc;
		x->exact = exact;
		make_job(x->job, sizeof(x->job), N, timeout_ms, net, ina);
		for (k = 0; k < nreq(x); k++) {
			enum rina_dtype dt = sc == SC_MANY ? req_dtype(k) :
					     RINA_FLOAT32;
			size_t cnt = req_count(k);

			x->in[k] = malloc(cnt * 8);
			x->out[k] = k % 2 ? x->in[k] : malloc(cnt * 8);
			x->ref_in[k] = malloc(cnt * sizeof(double));
			for (j = 0; j < cnt; j++)
				x->ref_in[k][j] = put(x->in[k], dt, j,
						      exact ?
						      exact_val(r, k, j) :
						      gen_val(r, k, j));
			if (sc == SC_NONFINITE && k == 1 && r == 2)
				((float *)x->in[k])[cnt / 2] = NAN;
		}
	}
}

static void go(void)
{
	pthread_t th[N];
	int r;

	for (r = 0; r < N; r++)
		pthread_create(&th[r], NULL, rank_main, &X[r]);
	for (r = 0; r < N; r++)
		pthread_join(th[r], NULL);
	/* a killed rank's memory goes with its process: here, now */
	for (r = 0; r < N; r++)
		if (X[r].vanished) {
			rina_comm_destroy(X[r].vanished);
			X[r].vanished = NULL;
		}
}

static void teardown(void)
{
	int r, k;

	for (r = 0; r < N; r++)
		for (k = 0; k < NREQ; k++) {
			if (X[r].out[k] != X[r].in[k])
				free(X[r].out[k]);
			free(X[r].in[k]);
			free(X[r].ref_in[k]);
		}
}

static bool inits_ok(void)
{
	int r;

	for (r = 0; r < N; r++)
		if (X[r].init_rc) {
			ktap_diag("rank %d: init failed %d", r, X[r].init_rc);
			return false;
		}
	return true;
}

/* Each request's callback ran exactly once, with the request complete. */
static bool callbacks_once(int r, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (atomic_load(&X[r].cb_calls[k]) != 1) {
			ktap_diag("rank %d request %d: callback score %d", r, k,
				  atomic_load(&X[r].cb_calls[k]));
			return false;
		}
	return true;
}

/*
 * Every rank's results equal the reference: int32 exact, floats within
 * the float32 bound plus the narrowing; exact inputs exactly. Bitwise
 * identical across ranks.
 */
static bool check_many(bool exact)
{
	int r, k;
	size_t j;

	for (k = 0; k < NREQ; k++) {
		enum rina_dtype dt = req_dtype(k);
		size_t cnt = req_count(k), esz = rina_dtype_size(dt);

		for (r = 0; r < N; r++) {
			if (X[r].rc[k]) {
				ktap_diag("rank %d request %d: %d %s", r, k,
					  X[r].rc[k], X[r].err[k]);
				return false;
			}
			if (memcmp(X[0].out[k], X[r].out[k], cnt * esz)) {
				ktap_diag("request %d: rank %d differs", k, r);
				return false;
			}
		}
		for (j = 0; j < cnt; j++) {
			double ref = 0, gmax = 0, got, bound;
			size_t g0 = j / 64 * 64, g;
			int e;

			for (r = 0; r < N; r++) {
				ref += X[r].ref_in[k][j];
				for (g = g0; g < g0 + 64 && g < cnt; g++)
					gmax = fmax(gmax,
						    fabs(X[r].ref_in[k][g]));
			}
			frexp(gmax, &e);
			bound = dt == RINA_INT32 || exact ? 0 :
				(double)N * N * ldexp(1, e) /
				(2.0 * 2147483647.0) +
				fabs(ref) * (0x1p-24 +
					     ldexp(1, -precision(dt))) +
				(dt == RINA_FLOAT16 ? 0x1p-25 : 0) +
				/* float64 inputs are rounded to float32 */
				(dt == RINA_FLOAT64 ? N * gmax * 0x1p-24 : 0);
			got = get(X[0].out[k], dt, j);
			if (fabs(got - ref) > bound) {
				ktap_diag("request %d dtype %d element %zu: got %.9g want %.9g bound %.3g",
					  k, dt, j, got, ref, bound);
				return false;
			}
		}
	}
	return true;
}

static void test_many(bool exact, bool ina)
{
	bool ok, cbs = true, efd = true, calls = true;
	int r;

	setup(SC_MANY, exact, 5000, ina);
	go();
	ok = inits_ok() && check_many(exact);
	for (r = 0; r < N && ok; r++) {
		cbs = cbs && callbacks_once(r, NREQ);
		if (X[r].efd_count != NREQ) {
			ktap_diag("rank %d: eventfd counted %llu", r,
				  (unsigned long long)X[r].efd_count);
			efd = false;
		}
		/* one user call is one call, whatever its dtype's passes */
		if (X[r].calls != NREQ) {
			ktap_diag("rank %d: stats.calls %llu", r,
				  (unsigned long long)X[r].calls);
			calls = false;
		}
	}
	ktap_result(ok, "%d calls in flight (f32, i32, bf16, f16, f64), waited in reverse: %s%s, identical on every rank",
		    NREQ, exact ? "exact sums" : "within the bound",
		    ina ? ", INA racks" : "");
	ktap_result(ok && cbs && efd && calls,
		    "callback once per request (complete in it), eventfd counts %d, stats.calls %d%s",
		    NREQ, NREQ, ina ? ", INA racks" : "");
	teardown();
}

static void test_dead(void)
{
	bool ok = inits_ok();
	int r, k, code = 0;

	setup(SC_DEAD, false, 1000, false);
	go();
	ok = inits_ok();
	for (r = 0; r < N - 1 && ok; r++) {
		for (k = 0; k < NREQ; k++) {
			if (!code)
				code = X[r].rc[k];
			if (X[r].rc[k] == 0 || X[r].rc[k] != X[r].rc[0] ||
			    !X[r].err[k][0]) {
				ktap_diag("rank %d request %d: %d (first %d) \"%s\"",
					  r, k, X[r].rc[k], X[r].rc[0],
					  X[r].err[k]);
				ok = false;
				break;
			}
		}
		if (ok && X[r].late_rc != RINA_ERR_BROKEN) {
			ktap_diag("rank %d: a call after the failure: %d", r,
				  X[r].late_rc);
			ok = false;
		}
		/* bounded: a few timeouts at most, not one per request */
		if (ok && X[r].fail_ms > 4 * 1000) {
			ktap_diag("rank %d: %.0f ms to fail", r, X[r].fail_ms);
			ok = false;
		}
		ok = ok && callbacks_once(r, NREQ);
	}
	ktap_diag("dead rank: %s (%d), e.g. \"%s\"", rina_strerror(code), code,
		  X[0].err[0]);
	ktap_result(ok, "dead rank: all %d pending requests fail with the first one's code within the timeout, later calls RINA_ERR_BROKEN",
		    NREQ);
	teardown();
}

static void test_nonfinite(void)
{
	bool ok;
	int r;

	setup(SC_NONFINITE, false, 5000, false);
	go();
	ok = inits_ok();
	for (r = 0; r < N && ok; r++) {
		if (X[r].rc[0] || X[r].rc[1] != RINA_ERR_NONFINITE ||
		    X[r].rc[2] || X[r].rc[3]) {
			ktap_diag("rank %d: %d %d %d %d (%s)", r, X[r].rc[0],
				  X[r].rc[1], X[r].rc[2], X[r].rc[3],
				  X[r].err[1]);
			ok = false;
		}
		ok = ok && callbacks_once(r, 4);
	}
	ktap_result(ok, "NaN on one rank fails that request on every rank, the later ones succeed");
	teardown();
}

static void test_destroy(void)
{
	bool ok;
	int r, k;

	setup(SC_DESTROY, false, 2000, false);
	go();
	ok = inits_ok() && X[0].tested_all_done && !X[0].rc[0];
	if (!X[0].tested_all_done)
		ktap_diag("rank 0: a request still pending after destroy");
	for (r = 0; r < N && ok; r++) {
		for (k = 0; k < 8; k++) {
			/* the others fail (or finish what all started) */
			if (r && X[r].rc[k] && X[r].rc[k] != RINA_ERR_ABORTED &&
			    X[r].rc[k] != RINA_ERR_TIMEOUT) {
				ktap_diag("rank %d request %d: %d %s", r, k,
					  X[r].rc[k], X[r].err[k]);
				ok = false;
			}
		}
		if (r && !X[r].rc[6]) {
			ktap_diag("rank %d: request 6 succeeded without rank 0",
				  r);
			ok = false;
		}
		ok = ok && callbacks_once(r, 8);
	}
	if (ok && X[0].rc[6] != RINA_ERR_BROKEN) {
		ktap_diag("rank 0 request 6: %d %s", X[0].rc[6], X[0].err[6]);
		ok = false;
	}
	ktap_diag("destroy took %.0f ms; rank 1 request 6: \"%s\"",
		  X[0].fail_ms, X[1].err[6]);
	ktap_result(ok, "destroy with 8 calls pending: every request completes once, queued ones RINA_ERR_BROKEN, the other ranks fail, nothing hangs");
	teardown();
}

int main(void)
{
	ktap_plan(9);
	test_many(true, false);
	test_many(false, false);
	test_many(false, true);
	test_dead();
	test_nonfinite();
	test_destroy();
	return ktap_finish();
}
