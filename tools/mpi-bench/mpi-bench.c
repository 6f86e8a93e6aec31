// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * mpi-bench: the OpenMPI MPI_Allreduce baseline for rina-bench, in the
 * style of nccl-tests (same flags, same row and trailer format, same
 * --json fields), so that scripts/bench.sh can compare the two.
 *
 *   mpi-bench [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]
 *             [-c 0|1] [-d int32|float32] [-o sum|avg] [--json]
 *
 * time is the mean time of one allreduce (slowest rank, in text mode;
 * each rank's own mean in its --json row); algbw = size / time,
 * busbw = algbw * 2 (n - 1) / n.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "size_arg.h"
#include "wire_stats.h"

enum bench_dtype { DT_INT32, DT_FLOAT32 };
enum bench_op { OP_SUM, OP_AVG };

struct bench_opts {
	size_t min_bytes;
	size_t max_bytes;
	unsigned int factor;
	int iters;
	int warmup;
	int check;
	int json;
	enum bench_dtype dtype;
	enum bench_op op;
};

static const char *dtype_name[] = { "int32", "float32" };
static const char *op_name[] = { "sum", "avg" };

static int rank, nranks;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mpi-bench [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
		"                 [-c 0|1] [-d int32|float32] [-o sum|avg] [--json]\n"
		"  sizes in bytes, K/M/G suffixes (powers of 1024)\n");
}

/* "64M" -> 67108864; returns -1 on a malformed size */
static int parse_int(const char *s, int min, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option lopts[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "datatype", required_argument, NULL, 'd' },
		{ "op", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, v;

	while ((c = getopt_long(argc, argv, "b:e:f:n:w:c:d:o:h", lopts,
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
			if (parse_int(optarg, 2, &v))
				goto bad;
			o->factor = v;
			break;
		case 'n':
			if (parse_int(optarg, 1, &o->iters))
				goto bad;
			break;
		case 'w':
			if (parse_int(optarg, 0, &o->warmup))
				goto bad;
			break;
		case 'c':
			if (parse_int(optarg, 0, &o->check))
				goto bad;
			break;
		case 'd':
			if (!strcmp(optarg, "int32"))
				o->dtype = DT_INT32;
			else if (!strcmp(optarg, "float32"))
				o->dtype = DT_FLOAT32;
			else
				goto bad;
			break;
		case 'o':
			if (!strcmp(optarg, "sum"))
				o->op = OP_SUM;
			else if (!strcmp(optarg, "avg"))
				o->op = OP_AVG;
			else
				goto bad;
			break;
		case 'J':
			o->json = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mpi-bench: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (o->min_bytes < 4 || o->max_bytes < o->min_bytes) {
		fprintf(stderr, "mpi-bench: need 4 <= -b <= -e\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "mpi-bench: bad value '%s' for -%c\n", optarg, c);
	return -1;
}

/* Input of element j at rank r: small integers, exact in float32 sums. */
static int32_t input_val(int r, size_t j)
{
	return (int32_t)((r + 1) * (int)(j % 13 + 1));
}

static void fill(void *buf, size_t count, enum bench_dtype dt)
{
	size_t j;

	for (j = 0; j < count; j++) {
		if (dt == DT_INT32)
			((int32_t *)buf)[j] = input_val(rank, j);
		else
			((float *)buf)[j] = (float)input_val(rank, j);
	}
}

static size_t check_result(const void *buf, size_t count,
			   enum bench_dtype dt, enum bench_op op)
{
	int64_t tri = (int64_t)nranks * (nranks + 1) / 2;
	size_t j, wrong = 0;

	for (j = 0; j < count; j++) {
		int64_t sum = tri * (int64_t)(j % 13 + 1);

		if (dt == DT_INT32) {
			int32_t want = (int32_t)sum;

			if (op == OP_AVG)
				want = (int32_t)(sum / nranks);
			if (((const int32_t *)buf)[j] != want)
				wrong++;
		} else {
			float want = (float)sum;
			float got = ((const float *)buf)[j];

			if (op == OP_AVG)
				want = (float)sum / (float)nranks;
			if (fabsf(got - want) > 1e-5f * fabsf(want))
				wrong++;
		}
	}
	return wrong;
}

static void do_allreduce(const void *s, void *r, size_t count,
			 enum bench_dtype dt, enum bench_op op)
{
	MPI_Datatype mdt = dt == DT_INT32 ? MPI_INT32_T : MPI_FLOAT;
	size_t j;

	MPI_Allreduce(s, r, (int)count, mdt, MPI_SUM, MPI_COMM_WORLD);
	if (op != OP_AVG)
		return;
	/* MPI has no average: divide at the endpoint, like librina */
	if (dt == DT_INT32) {
		for (j = 0; j < count; j++)
			((int32_t *)r)[j] /= nranks;
	} else {
		float inv = 1.0f / (float)nranks;

		for (j = 0; j < count; j++)
			((float *)r)[j] *= inv;
	}
}

int main(int argc, char **argv)
{
	struct bench_opts o = {
		.min_bytes = 32ull << 20, .max_bytes = 32ull << 20,
		.factor = 2, .iters = 20, .warmup = 5, .check = 1,
		.dtype = DT_INT32, .op = OP_SUM,
	};
	double bw_sum = 0;
	size_t size, total_wrong = 0;
	int nsizes = 0, ret;
	void *sbuf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	ret = parse_args(argc, argv, &o);
	if (ret) {
		MPI_Finalize();
		return ret < 0 ? 2 : 0;
	}
	if (o.max_bytes / 4 > INT_MAX) {
		if (!rank)
			fprintf(stderr, "mpi-bench: -e too large\n");
		MPI_Finalize();
		return 2;
	}
	sbuf = malloc(o.max_bytes);
	rbuf = malloc(o.max_bytes);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "mpi-bench: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	if (!rank && !o.json) {
		printf("# mpi-bench: OpenMPI MPI_Allreduce, %d ranks, "
		       "iters %d, warmup %d, check %d\n",
		       nranks, o.iters, o.warmup, o.check);
		printf("#%12s %12s %8s %6s %10s %7s %7s %7s\n", "size",
		       "count", "type", "redop", "time", "algbw", "busbw",
		       "#wrong");
		printf("#%12s %12s %8s %6s %10s %7s %7s %7s\n", "(B)",
		       "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
		fflush(stdout);
	}

	for (size = o.min_bytes; size <= o.max_bytes; size *= o.factor) {
		size_t count = size / 4, wrong = 0;
		unsigned long long wrong_all, w64, retx;
		double t0, local_us, max_us, algbw, busbw, cpu0, cpu_util;
		struct bench_wire w0, w1;
		int i;

		fill(sbuf, count, o.dtype);
		for (i = 0; i < o.warmup; i++)
			do_allreduce(sbuf, rbuf, count, o.dtype, o.op);
		MPI_Barrier(MPI_COMM_WORLD);
		bench_wire_read(&w0);
		cpu0 = bench_cpu_s();
		t0 = MPI_Wtime();
		for (i = 0; i < o.iters; i++)
			do_allreduce(sbuf, rbuf, count, o.dtype, o.op);
		local_us = (MPI_Wtime() - t0) * 1e6 / o.iters;
		cpu_util = (bench_cpu_s() - cpu0) / (local_us * o.iters / 1e6);
		bench_wire_read(&w1);
		retx = w1.tcp_retrans - w0.tcp_retrans;
		MPI_Allreduce(&local_us, &max_us, 1, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);

		if (o.check) {
			memset(rbuf, 0xa5, count * 4);
			do_allreduce(sbuf, rbuf, count, o.dtype, o.op);
			wrong = check_result(rbuf, count, o.dtype, o.op);
		}
		w64 = wrong;
		MPI_Allreduce(&w64, &wrong_all, 1, MPI_UNSIGNED_LONG_LONG,
			      MPI_SUM, MPI_COMM_WORLD);
		total_wrong += wrong_all;

		if (o.json) {
			algbw = (double)size / local_us / 1e3;
			busbw = algbw * 2.0 * (nranks - 1) / nranks;
			printf("{\"rank\":%d,\"nranks\":%d,\"size\":%zu,"
			       "\"count\":%zu,\"dtype\":\"%s\",\"op\":\"%s\","
			       "\"time_us\":%.2f,\"algbw_GBps\":%.4f,"
			       "\"busbw_GBps\":%.4f,\"wrong\":%zu,"
			       "\"wire_tx_bytes\":%.0f,\"retransmits\":%llu,"
			       "\"retx_bytes\":%.0f,\"cpu_util\":%.3f}\n",
			       rank, nranks, size, count, dtype_name[o.dtype],
			       op_name[o.op], local_us, algbw, busbw, wrong,
			       w0.ok && w1.ok ? (double)(w1.tx_bytes -
			       w0.tx_bytes) / o.iters : 0.0, retx,
			       /* TCP counts segments: a full MSS each */
			       (double)retx * (w1.mtu > 52 ? w1.mtu - 52 : 0) /
			       o.iters, cpu_util);
			fflush(stdout);
		}
		algbw = (double)size / max_us / 1e3;
		busbw = algbw * 2.0 * (nranks - 1) / nranks;
		bw_sum += busbw;
		nsizes++;
		if (!rank && !o.json) {
			printf(" %12zu %12zu %8s %6s %10.1f %7.3f %7.3f %7llu\n",
			       size, count, dtype_name[o.dtype],
			       op_name[o.op], max_us, algbw, busbw,
			       wrong_all);
			fflush(stdout);
		}
		if (size > o.max_bytes / o.factor)
			break;
	}

	if (!rank && !o.json) {
		printf("# Out of bounds values : %zu %s\n", total_wrong,
		       total_wrong ? "FAILED" : "OK");
		printf("# Avg bus bandwidth : %.4f\n",
		       nsizes ? bw_sum / nsizes : 0.0);
		fflush(stdout);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return total_wrong ? 1 : 0;
}
