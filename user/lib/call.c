// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * One allreduce pass in whichever role this rank has: a plain ring
 * member (ring.c) or a local worker of an INA rack (ina_worker.c).
 */
#include "rina_int.h"

int rina_run_call(struct rina_comm *c, int32_t *acc, size_t count,
		  uint8_t dtype_op)
{
	if (c->ina_local)
		return rina_ina_worker_run(c, acc, count, dtype_op);
	return rina_ring_run(c, acc, count, dtype_op);
}
