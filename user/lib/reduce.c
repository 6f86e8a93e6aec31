// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reduce kernels chosen at run time: the core's reference loops built
 * for the baseline ISA, the same loops built with -mavx2 (agg_avx2.o),
 * and float conversion kernels written here in both flavours. Both
 * flavours round the same way (to nearest even), so a job may mix CPUs.
 */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "rina_int.h"
#include "agg.h"

int rina_agg_add_be_avx2(__s32 *acc, const __be32 *in, __u32 n);
void rina_agg_max_be_avx2(__s32 *acc, const __be32 *in, __u32 n);
void rina_agg_store_be_avx2(__be32 *out, const __s32 *acc, __u32 n);
void rina_agg_load_be_avx2(__s32 *acc, const __be32 *in, __u32 n);

static void quantize_scalar(int32_t *q, const float *x, uint32_t n, double f)
{
	uint32_t j;

	for (j = 0; j < n; j++)
		q[j] = (int32_t)lrint((double)x[j] * f);
}

static void dequantize_scalar(float *y, const int32_t *q, uint32_t n,
			      double div)
{
	uint32_t j;

	for (j = 0; j < n; j++)
		y[j] = (float)((double)q[j] / div);
}

__attribute__((target("avx2")))
static void quantize_avx2(int32_t *q, const float *x, uint32_t n, double f)
{
	__m256d vf = _mm256_set1_pd(f);
	uint32_t j = 0;

	for (; j + 4 <= n; j += 4) {
		__m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + j));

		/* cvtpd2dq rounds to nearest even, as lrint() */
		_mm_storeu_si128((__m128i *)(q + j),
				 _mm256_cvtpd_epi32(_mm256_mul_pd(v, vf)));
	}
	quantize_scalar(q + j, x + j, n - j, f);
}

__attribute__((target("avx2")))
static void dequantize_avx2(float *y, const int32_t *q, uint32_t n,
			    double div)
{
	__m256d vd = _mm256_set1_pd(div);
	uint32_t j = 0;

	for (; j + 4 <= n; j += 4) {
		__m256d v = _mm256_cvtepi32_pd(
				_mm_loadu_si128((const __m128i *)(q + j)));

		_mm_storeu_ps(y + j, _mm256_cvtpd_ps(_mm256_div_pd(v, vd)));
	}
	dequantize_scalar(y + j, q + j, n - j, div);
}

static const struct rina_reduce_ops scalar_ops = {
	.name		= "scalar",
	.add_be		= rina_agg_add_be,
	.max_be		= rina_agg_max_be,
	.store_be	= rina_agg_store_be,
	.load_be	= rina_agg_load_be,
	.quantize	= quantize_scalar,
	.dequantize	= dequantize_scalar,
};

static const struct rina_reduce_ops avx2_ops = {
	.name		= "avx2",
	.add_be		= rina_agg_add_be_avx2,
	.max_be		= rina_agg_max_be_avx2,
	.store_be	= rina_agg_store_be_avx2,
	.load_be	= rina_agg_load_be_avx2,
	.quantize	= quantize_avx2,
	.dequantize	= dequantize_avx2,
};

const struct rina_reduce_ops *rina_reduce = &scalar_ops;

void rina_reduce_select(const char *force)
{
	__builtin_cpu_init();
	if (force && !strcmp(force, "scalar"))
		rina_reduce = &scalar_ops;
	else if (__builtin_cpu_supports("avx2"))
		rina_reduce = &avx2_ops;
	else
		rina_reduce = &scalar_ops;
}
