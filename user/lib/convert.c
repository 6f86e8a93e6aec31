// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bfloat16, float16 and float64 buffers: widened to float32, reduced by
 * the float32 fixed-point path (quant.c), narrowed back with round to
 * nearest even. The float32 results are bitwise identical on every rank
 * and the narrowing is a pure function of them, so these are too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"

size_t rina_dtype_size(enum rina_dtype dtype)
{
	switch (dtype) {
	case RINA_INT32:
	case RINA_FLOAT32:
		return 4;
	case RINA_BFLOAT16:
	case RINA_FLOAT16:
		return 2;
	case RINA_FLOAT64:
		return 8;
	}
	return 0;
}

bool rina_dtype_converted(enum rina_dtype dtype)
{
	return dtype == RINA_BFLOAT16 || dtype == RINA_FLOAT16 ||
	       dtype == RINA_FLOAT64;
}

float rina_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

uint16_t rina_float_to_bf16(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	if ((bits & 0x7fffffff) > 0x7f800000)	/* NaN: keep it quiet */
		return (uint16_t)(bits >> 16 | 0x40);
	bits += 0x7fff + (bits >> 16 & 1);	/* nearest, ties to even */
	return (uint16_t)(bits >> 16);
}

void rina_dtype_widen(float *dst, const void *src, size_t n,
		      enum rina_dtype dtype)
{
	const uint16_t *b = src;
	const _Float16 *h = src;
	const double *d = src;
	size_t j;

	for (j = 0; j < n; j++) {
		if (dtype == RINA_BFLOAT16)
			dst[j] = rina_bf16_to_float(b[j]);
		else if (dtype == RINA_FLOAT16)
			dst[j] = (float)h[j];
		else	/* beyond float32's range: Inf, NONFINITE */
			dst[j] = (float)d[j];
	}
}

size_t rina_dtype_narrow(void *dst, const float *src, size_t n,
			 enum rina_dtype dtype)
{
	uint16_t *b = dst;
	_Float16 *h = dst;
	double *d = dst;
	size_t j, over = 0;

	for (j = 0; j < n; j++) {
		if (dtype == RINA_BFLOAT16) {
			b[j] = rina_float_to_bf16(src[j]);
		} else if (dtype == RINA_FLOAT16) {
			h[j] = (_Float16)src[j];
			over += isinf((float)h[j]);
		} else {
			d[j] = src[j];
		}
	}
	return over;
}

int rina_dtype_narrow_result(rina_comm_t *c, void *dst, const float *src,
			     size_t n, enum rina_dtype dtype)
{
	size_t over = rina_dtype_narrow(dst, src, n, dtype);

	if (!over)
		return RINA_OK;
	c->st.overflows++;	/* the same on every rank that holds them */
	return rina_fail(RINA_ERR_OVERFLOW,
			 "%zu float16 results beyond +-65504 (now +-Inf)",
			 over);
}

int rina_convert_allreduce(const void *sendbuf, void *recvbuf, size_t count,
			   enum rina_dtype dtype, enum rina_redop op,
			   rina_comm_t *c)
{
	float *tmp;
	int ret;

	if (count && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (!count)	/* nothing to widen: the call still takes place */
		return rina_wire_allreduce(sendbuf, recvbuf, 0, RINA_FLOAT32,
					   op, c);
	tmp = malloc(count * sizeof(*tmp));
	if (!tmp)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	rina_dtype_widen(tmp, sendbuf, count, dtype);
	ret = rina_wire_allreduce(tmp, tmp, count, RINA_FLOAT32, op, c);
	if (ret)
		goto out;
	ret = rina_dtype_narrow_result(c, recvbuf, tmp, count, dtype);
out:
	free(tmp);
	return ret;
}
