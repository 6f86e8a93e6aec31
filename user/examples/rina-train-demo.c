// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-train-demo: data-parallel training in miniature. Each rank fits
 * the same linear model to its own shard of synthetic data and averages
 * gradients with rina_allreduce() every step, as a training framework
 * would. All ranks must end with bitwise-identical weights.
 *
 *	rina-run --topo 2x2 -- rina-train-demo [STEPS] [FEATURES]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rina.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 60;
	int dim = argc > 2 ? atoi(argv[2]) : 20000;
	int samples = 64, rank, n, s, i, d, ret;
	float *w, *truth, *grad, *x;
	rina_comm_t *comm;
	uint64_t h = 1469598103934665603ULL;

	ret = rina_comm_init_env(&comm);
	if (ret) {
		fprintf(stderr, "rina-train-demo: %s: %s\n", rina_strerror(ret),
			rina_last_error());
		return 1;
	}
	rank = rina_comm_rank(comm);
	n = rina_comm_size(comm);
	w = calloc((size_t)dim, sizeof(*w));
	truth = malloc((size_t)dim * sizeof(*truth));
	grad = malloc((size_t)dim * sizeof(*grad));
	x = malloc((size_t)samples * dim * sizeof(*x));
	if (!w || !truth || !grad || !x)
		return 1;
	for (d = 0; d < dim; d++)		/* same model on every rank */
		truth[d] = (float)uniform();
	rng += (uint64_t)rank * 0x9e3779b97f4a7c15ULL;	/* own data shard */
	for (i = 0; i < samples * dim; i++)
		x[i] = (float)uniform();
	if (rank == 0)
		printf("# %d ranks (ring of %d, %s transport) fit %d weights, %d samples each\n",
		       n, rina_comm_ring_len(comm), rina_comm_transport(comm),
		       dim, samples);
	for (s = 0; s < steps; s++) {
		double loss = 0;

		memset(grad, 0, (size_t)dim * sizeof(*grad));
		for (i = 0; i < samples; i++) {
			const float *xi = x + (size_t)i * dim;
			double err = 0;

			for (d = 0; d < dim; d++)
				err += (double)(w[d] - truth[d]) * xi[d];
			loss += err * err / samples;
			for (d = 0; d < dim; d++)
				grad[d] += (float)(2.0 * err * xi[d] / samples);
		}
		/* the allreduce a training framework does every step */
		ret = rina_allreduce(grad, grad, (size_t)dim, RINA_FLOAT32,
				     RINA_AVG, comm);
		if (ret) {
			fprintf(stderr, "rank %d step %d: %s: %s\n", rank, s,
				rina_strerror(ret), rina_last_error());
			return 1;
		}
		for (d = 0; d < dim; d++)
			w[d] -= 0.3f * (float)samples / (float)dim * grad[d];
		if (rank == 0 && (s % 10 == 0 || s == steps - 1))
			printf("step %3d  local loss %.6f\n", s, loss);
	}
	for (d = 0; d < dim * 4; d++) {
		h ^= ((uint8_t *)w)[d];
		h *= 1099511628211ULL;
	}
	printf("rank %d: final weights hash %016llx\n", rank,
	       (unsigned long long)h);
	rina_comm_destroy(comm);
	return 0;
}
