// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * float32 allreduce as int32 fixed point with a shared block exponent
 * (SwitchML's scheme). For each group of E elements (one packet) every
 * rank takes the exponent e of its largest magnitude; a MAX allreduce
 * makes e common; values travel as round(x * f) with
 * f = (2^31 - 1) / (N * 2^e), so N of them never overflow; the int32
 * sum is exact and every rank divides the same integers by the same f:
 * results are bitwise identical. Error bound: Documentation/protocol.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"

#define EXP_NONFINITE	1000	/* any exponent above 128 flags NaN/Inf */

static int32_t group_exponent(const float *x, uint32_t n)
{
	uint32_t j, m = 0;

	for (j = 0; j < n; j++) {
		uint32_t bits;

		memcpy(&bits, &x[j], 4);
		bits &= 0x7f800000;
		if (bits > m)
			m = bits;
	}
	if (m == 0x7f800000)
		return EXP_NONFINITE;
	/* 2^e is above every |x| of the group; zeros and denormals: -126 */
	return (int32_t)(m >> 23) - 126;
}

static double group_scale(const struct rina_comm *c, int32_t e)
{
	return ldexp(2147483647.0 / c->N, -e);
}

int rina_float_allreduce(struct rina_comm *c, const float *in, float *out,
			 size_t count, bool avg)
{
	uint32_t E = c->job.elems;
	size_t ngroups = (count + E - 1) / E, g;
	uint8_t phases;
	int32_t *ex;
	int ret;

	ex = malloc(ngroups ? ngroups * sizeof(*ex) : 1);
	if (!ex)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	for (g = 0; g < ngroups; g++) {
		size_t off = g * E;
		uint32_t n = count - off < E ? (uint32_t)(count - off) : E;

		ex[g] = group_exponent(in + off, n);
	}
	/*
	 * Every rank quantizes every group by its exponent: a whole
	 * allreduce even when the data's call runs a ring phase alone
	 * (c->phases, collectives.c's reduce-scatter).
	 */
	phases = c->phases;
	c->phases = 0;
	ret = rina_run_call(c, ex, ngroups,
			    RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_MAX));
	c->phases = phases;
	if (ret)
		goto out;
	for (g = 0; g < ngroups; g++) {
		if (ex[g] >= EXP_NONFINITE) {
			ret = rina_fail(RINA_ERR_NONFINITE,
					"NaN or infinity near element %zu on some rank",
					g * E);
			goto out;
		}
	}
	for (g = 0; g < ngroups; g++) {
		size_t off = g * E;
		uint32_t n = count - off < E ? (uint32_t)(count - off) : E;

		rina_reduce->quantize(c->work + off, in + off, n,
				      group_scale(c, ex[g]));
	}
	ret = rina_run_call(c, c->work, count,
			    RINA_DTYPE_OP(RINA_WIRE_FIXED32, RINA_WIRE_SUM));
	if (ret)
		goto out;
	for (g = 0; g < ngroups; g++) {
		size_t off = g * E;
		uint32_t n = count - off < E ? (uint32_t)(count - off) : E;
		double div = group_scale(c, ex[g]);

		if (avg)
			div *= c->N;
		rina_reduce->dequantize(out + off, c->work + off, n, div);
	}
out:
	free(ex);
	return ret;
}
