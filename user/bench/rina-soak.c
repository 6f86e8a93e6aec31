// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-soak: one rank of the soak (scripts/soak.py, Documentation/soak.md).
 * Back-to-back allreduces of random sizes, dtypes and ops, every one
 * checked against a reference the rank computes itself: each rank's input
 * is a hash of (seed, call, element, rank), so the expected result needs
 * no communication. Calls 1..5 are every dtype at the largest size, so
 * that librina's buffers reach their high-water marks in the first
 * seconds. The communicator is destroyed and re-created every 8..23
 * calls; the heap in use is measured after each destroy. Every rank draws
 * the same calls from the seed; every 8th call is a one-element int32 MAX
 * "stop" vote, so that all ranks agree on the last call when the first
 * of them reaches its deadline.
 *
 * Prints per-call failures ("soak-fail ...", with the wall clock, for the
 * orchestrator to match against its faults), up to 5 wrong results
 * ("soak-wrong ..."), and at the end one "soak-rank" line of totals.
 * Exit status: 0; 1 if a result was wrong; 3 if a call or an init failed
 * (the rank stops there: a broken communicator cannot rejoin the ring).
 *
 * Usage: rina-soak SECONDS|@EPOCH SEED [MAX_BYTES]   (RINA_JOB, RINA_RANK..)
 * where @EPOCH is a wall-clock deadline (seconds since 1970).
 */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rina.h>

#define VOTE_EVERY	8

struct totals {
	uint64_t calls, wrong_calls, wrong_elems, recreates;
	uint64_t dropped, duplicated, rx_dropped, retransmits, timeouts;
	uint64_t tor_lost;
	/* heap in use after each destroy: the first, the last, the most */
	uint64_t heap_first, heap_last, heap_max;
};

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* splitmix64: cheap, and the same on every rank */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Rank r's element j of call c: small integers for the float types (sums
 * of 8 are exact even in bfloat16, whatever the order of the additions),
 * wide ones for int32 (no overflow at 256 ranks).
 */
static int32_t value(uint64_t seed, uint64_t c, size_t j, int r,
		     enum rina_dtype dt)
{
	uint64_t h = mix(seed ^ mix(c * 1000003u + j) ^ ((uint64_t)r << 48));

	if (dt == RINA_INT32)
		return (int32_t)(h % 2000001) - 1000000;
	return (int32_t)(h % 31) - 15;
}

static size_t dtype_size(enum rina_dtype dt)
{
	switch (dt) {
	case RINA_BFLOAT16:
	case RINA_FLOAT16:
		return 2;
	case RINA_FLOAT64:
		return 8;
	default:
		return 4;
	}
}

/* float to IEEE half, exact for the values used here (|x| < 2048) */
static uint16_t to_half(float f)
{
	uint32_t b, sign, mant;
	int e;

	memcpy(&b, &f, 4);
	sign = (b >> 16) & 0x8000;
	if (!(b & 0x7fffffff))
		return sign;
	e = (int)((b >> 23) & 0xff) - 127 + 15;
	mant = (b >> 13) & 0x3ff;
	return sign | (uint16_t)(e << 10) | mant;
}

/* x (an integer, or an integer over a power of two) stored as dt */
static void store(void *buf, size_t j, enum rina_dtype dt, double x)
{
	float f = (float)x;
	uint32_t b;

	switch (dt) {
	case RINA_INT32:
		((int32_t *)buf)[j] = (int32_t)x;
		break;
	case RINA_FLOAT32:
		((float *)buf)[j] = f;
		break;
	case RINA_FLOAT64:
		((double *)buf)[j] = x;
		break;
	case RINA_BFLOAT16:
		memcpy(&b, &f, 4);
		((uint16_t *)buf)[j] = b >> 16;
		break;
	case RINA_FLOAT16:
		((uint16_t *)buf)[j] = to_half(f);
		break;
	}
}

/* one element of sz bytes: same bits, or both zeros of either sign */
static int same(const void *a, const void *b, size_t sz)
{
	uint64_t x = 0, y = 0;

	memcpy(&x, a, sz);
	memcpy(&y, b, sz);
	if (x == y)
		return 1;
	x <<= 1;	/* drop the sign bit of a 64-bit value ... */
	y <<= 1;
	if (sz < 8) {	/* ... or of a shorter one */
		x &= (1ull << (8 * sz)) - 1;
		y &= (1ull << (8 * sz)) - 1;
	}
	return !x && !y;
}

struct call {
	size_t count;
	enum rina_dtype dt;
	enum rina_redop op;
};

/* call c's shape: log-uniform 1 B .. max_bytes, any dtype and valid op */
static struct call draw(uint64_t seed, uint64_t c, size_t max_bytes, int n)
{
	static const enum rina_dtype dts[] = {
		RINA_INT32, RINA_FLOAT32, RINA_BFLOAT16, RINA_FLOAT16,
		RINA_FLOAT64,
	};
	uint64_t h = mix(seed + 0x5eed * c);
	struct call k;
	double bytes;

	k.dt = dts[h % 5];
	h >>= 8;
	bytes = exp2((h % 10000) / 10000.0 * log2((double)max_bytes));
	if (c >= 1 && c <= 5) {
		k.dt = dts[c - 1];
		bytes = max_bytes;
	}
	h >>= 16;
	k.count = (size_t)bytes / dtype_size(k.dt);
	if (!k.count)
		k.count = 1;
	k.op = RINA_SUM;
	if (k.dt == RINA_INT32 && h % 4 == 0)
		k.op = RINA_MAX;
	/* AVG is exact when the division by n is (n a power of two) */
	else if (k.dt != RINA_INT32 && h % 4 == 0 && !(n & (n - 1)))
		k.op = RINA_AVG;
	return k;
}

/*
 * Number of elements of recv that differ from the reference; the first
 * three are printed (index, got and expected bits) when say is set.
 */
static size_t check(const struct call *k, uint64_t seed, uint64_t c, int n,
		    const void *recv, void *want, int say)
{
	size_t j, sz = dtype_size(k->dt), bad = 0;
	int r;

	for (j = 0; j < k->count; j++) {
		const char *got = (const char *)recv + j * sz;
		double x = k->op == RINA_MAX ? -2e9 : 0;
		uint64_t g = 0, w = 0;

		for (r = 0; r < n; r++) {
			int32_t v = value(seed, c, j, r, k->dt);

			if (k->op == RINA_MAX)
				x = v > x ? v : x;
			else
				x += v;
		}
		if (k->op == RINA_AVG)
			x /= n;
		store(want, 0, k->dt, x);
		if (same(got, want, sz))
			continue;
		if (say && bad < 3) {
			memcpy(&g, got, sz);
			memcpy(&w, want, sz);
			printf("soak-wrong call %llu element %zu: got 0x%llx want 0x%llx\n",
			       (unsigned long long)c, j, (unsigned long long)g,
			       (unsigned long long)w);
		}
		bad++;
	}
	return bad;
}

static void add_stats(rina_comm_t *comm, struct totals *t)
{
	struct rina_stats st = { .size = sizeof(st) };

	if (rina_comm_get_stats(comm, &st))
		return;
	t->dropped += st.fault_dropped;
	t->duplicated += st.fault_duplicated;
	t->rx_dropped += st.fault_rx_dropped;
	t->retransmits += st.retransmits;
	t->timeouts += st.timeouts;
	t->tor_lost += st.agent_tor == RINA_TOR_LOST;
}

/*
 * Heap in use (malloc's arenas and its mmapped chunks) once a communicator
 * is gone: the same every time unless a communicator's life leaks memory,
 * a sharper measure than RSS, which follows malloc's trimming.
 */
static void heap_sample(struct totals *t)
{
	struct mallinfo2 mi = mallinfo2();
	uint64_t used = mi.uordblks + mi.hblkhd;

	if (!t->heap_first)
		t->heap_first = used;
	t->heap_last = used;
	if (used > t->heap_max)
		t->heap_max = used;
}

static void report(int rank, const struct totals *t, const char *end)
{
	printf("soak-rank %d calls %llu wrong_calls %llu wrong_elems %llu recreates %llu fault_dropped %llu fault_duplicated %llu fault_rx_dropped %llu retransmits %llu timeouts %llu tor_lost %llu heap_first %llu heap_last %llu heap_max %llu end %s\n",
	       rank, (unsigned long long)t->calls,
	       (unsigned long long)t->wrong_calls,
	       (unsigned long long)t->wrong_elems,
	       (unsigned long long)t->recreates,
	       (unsigned long long)t->dropped,
	       (unsigned long long)t->duplicated,
	       (unsigned long long)t->rx_dropped,
	       (unsigned long long)t->retransmits,
	       (unsigned long long)t->timeouts,
	       (unsigned long long)t->tor_lost,
	       (unsigned long long)t->heap_first,
	       (unsigned long long)t->heap_last,
	       (unsigned long long)t->heap_max, end);
	fflush(stdout);
}

static int fail(int rank, struct totals *t, rina_comm_t *comm, uint64_t c,
		const char *what, int rc)
{
	if (comm)
		add_stats(comm, t);
	printf("soak-fail rank %d call %llu at %.3f %s: %s: %s\n", rank,
	       (unsigned long long)c, now_s(CLOCK_REALTIME), what,
	       rina_strerror(rc), rina_last_error());
	report(rank, t, "failed");
	return 3;
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	size_t max_bytes = 1 << 20, j;
	uint64_t seed, c, next_recreate, epoch = 0;
	double deadline;
	rina_comm_t *comm;
	void *send, *recv, *want;
	int rank, n, rc;

	if (argc < 3 || argc > 4 || atof(argv[1] + (*argv[1] == '@')) <= 0) {
		fprintf(stderr,
			"usage: rina-soak SECONDS|@EPOCH SEED [MAX_BYTES]\n");
		return 2;
	}
	deadline = now_s(CLOCK_MONOTONIC) + atof(argv[1] + (*argv[1] == '@'));
	if (*argv[1] == '@')
		deadline -= now_s(CLOCK_REALTIME);
	seed = strtoull(argv[2], NULL, 0);
	if (argc == 4)
		max_bytes = strtoull(argv[3], NULL, 0);
	if (max_bytes < 8) {
		fprintf(stderr, "rina-soak: MAX_BYTES %zu: below 8\n", max_bytes);
		return 2;
	}
	/* all buffers once, touched: RSS then tracks librina, not them */
	send = calloc(1, max_bytes);
	recv = calloc(1, max_bytes);
	want = calloc(1, 8);
	if (!send || !recv || !want) {
		fprintf(stderr, "rina-soak: out of memory\n");
		return 2;
	}
	memset(send, 1, max_bytes);
	memset(recv, 1, max_bytes);

	rc = rina_comm_init_env(&comm);
	rank = getenv("RINA_RANK") ? atoi(getenv("RINA_RANK")) : -1;
	if (rc)
		return fail(rank, &t, NULL, 0, "init", rc);
	n = rina_comm_size(comm);
	next_recreate = 8 + mix(seed) % 16;

	for (c = 0;; c++) {
		struct call k;
		void *out;
		size_t bad;

		if (c % VOTE_EVERY == 0) {
			int32_t stop = now_s(CLOCK_MONOTONIC) >= deadline;
			int32_t mine = stop;

			rc = rina_allreduce(&stop, &stop, 1, RINA_INT32,
					    RINA_MAX, comm);
			t.calls++;
			if (rc)
				return fail(rank, &t, comm, c, "vote", rc);
			if (stop < mine || stop > 1) {
				t.wrong_calls++;
				t.wrong_elems++;
				printf("soak-wrong rank %d call %llu vote %d\n",
				       rank, (unsigned long long)c, stop);
			}
			if (stop)
				break;
		}
		k = draw(seed, c, max_bytes, n);
		for (j = 0; j < k.count; j++)
			store(send, j, k.dt, value(seed, c, j, rank, k.dt));
		/* in place on odd calls, out of place on even ones */
		out = c & 1 ? send : recv;
		rc = rina_allreduce(send, out, k.count, k.dt, k.op, comm);
		t.calls++;
		if (rc)
			return fail(rank, &t, comm, c, "allreduce", rc);
		bad = check(&k, seed, c, n, out, want, t.wrong_calls < 5);
		if (bad) {
			if (t.wrong_calls < 5)
				printf("soak-wrong rank %d call %llu dtype %d op %d count %zu: %zu elements\n",
				       rank, (unsigned long long)c, k.dt, k.op,
				       k.count, bad);
			t.wrong_calls++;
			t.wrong_elems += bad;
		}
		if (c == next_recreate) {
			add_stats(comm, &t);
			rc = rina_comm_destroy(comm);
			if (rc)
				return fail(rank, &t, NULL, c, "destroy", rc);
			heap_sample(&t);
			rc = rina_comm_init_env(&comm);
			if (rc)
				return fail(rank, &t, NULL, c, "re-init", rc);
			t.recreates++;
			next_recreate = c + 8 + mix(seed + ++epoch) % 16;
		}
	}
	add_stats(comm, &t);
	rc = rina_comm_destroy(comm);
	if (!rc)
		heap_sample(&t);
	report(rank, &t, rc ? "destroy-failed" : "ok");
	free(send);
	free(recv);
	free(want);
	if (rc)
		return 3;
	return t.wrong_calls ? 1 : 0;
}
