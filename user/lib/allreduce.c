// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The public allreduce: int32 and float32 go straight to the wire
 * (wire_allreduce.c); bfloat16, float16 and float64 are widened to
 * float32 first (convert.c).
 */
#include "rina_int.h"

int rina_allreduce(const void *sendbuf, void *recvbuf, size_t count,
		   enum rina_dtype dtype, enum rina_redop op, rina_comm_t *c)
{
	if (rina_dtype_converted(dtype))	/* widened to float32 */
		return rina_convert_allreduce(sendbuf, recvbuf, count, dtype,
					      op, c);
	return rina_wire_allreduce(sendbuf, recvbuf, count, dtype, op, c);
}
