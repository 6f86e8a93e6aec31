// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * An allreduce of a dtype the wire carries: int32 as it is, float32 in
 * fixed point (quant.c). Checks the call, runs it in this rank's role
 * (call.c), and marks the communicator broken on a failure that leaves
 * the ranks out of step, telling the others. On a plain ring a call may
 * run one of the ring's phases alone (rina_wire_phases(), for
 * collectives.c's allgather and reduce-scatter).
 */
#include <stdlib.h>
#include <string.h>

#include "rina_int.h"
#include "ring_member.h"

static int grow_work(struct rina_comm *c, size_t count)
{
	int32_t *w;

	if (count <= c->work_cap)
		return 0;
	w = realloc(c->work, count * sizeof(*w));
	if (!w)
		return -1;
	c->work = w;
	c->work_cap = count;
	return 0;
}

static int check_call(const void *sendbuf, void *recvbuf, size_t count,
		      enum rina_dtype dtype, enum rina_redop op,
		      rina_comm_t *c)
{
	if (!c)
		return rina_fail(RINA_ERR_INVALID, "comm is NULL");
	if (c->broken)
		return rina_fail(RINA_ERR_BROKEN,
				 "communicator failed earlier (%s); destroy it",
				 rina_strerror(c->broken));
	if (count && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (dtype != RINA_INT32 && dtype != RINA_FLOAT32)
		return rina_fail(RINA_ERR_INVALID, "unknown dtype %d", dtype);
	if (op != RINA_SUM && op != RINA_AVG && op != RINA_MAX)
		return rina_fail(RINA_ERR_INVALID, "unknown op %d", op);
	if (op == RINA_MAX && dtype != RINA_INT32)
		return rina_fail(RINA_ERR_INVALID, "MAX is for int32 only");
	return RINA_OK;
}

static int int32_allreduce(struct rina_comm *c, const int32_t *in,
			   int32_t *out, size_t count, enum rina_redop op)
{
	uint8_t dt = RINA_DTYPE_OP(RINA_WIRE_INT32, op == RINA_MAX ?
				   RINA_WIRE_MAX : RINA_WIRE_SUM);
	size_t j;
	int ret;

	if (in != out)
		memcpy(out, in, count * sizeof(*out));
	ret = rina_run_call(c, out, count, dt);
	if (ret || op != RINA_AVG)
		return ret;
	for (j = 0; j < count; j++)	/* truncates toward zero, as C */
		out[j] /= (int32_t)c->N;
	return RINA_OK;
}

int rina_wire_allreduce(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *c)
{
	return rina_wire_phases(sendbuf, recvbuf, count, dtype, op, c, 0, 0);
}

int rina_wire_phases(const void *sendbuf, void *recvbuf, size_t count,
		     enum rina_dtype dtype, enum rina_redop op,
		     rina_comm_t *c, uint8_t phases, uint32_t root)
{
	int ret;

	ret = check_call(sendbuf, recvbuf, count, dtype, op, c);
	if (ret)
		return ret;
	if (phases && (c->pad || c->ina_local))
		return rina_fail(RINA_ERR_INVALID,
				 "a ring phase alone needs a ring without INA racks");
	if ((phases & RINA_RM_BC) &&
	    (dtype != RINA_INT32 || op != RINA_SUM || root >= c->L))
		return rina_fail(RINA_ERR_INVALID,
				 "a broadcast moves int32 words from a member");
	c->st.calls++;
	c->phases = phases;
	c->bc_root = root;
	if (dtype == RINA_INT32)
		ret = int32_allreduce(c, sendbuf, recvbuf, count, op);
	else if (grow_work(c, count))
		ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
	else
		ret = rina_float_allreduce(c, sendbuf, recvbuf, count,
					   op == RINA_AVG);
	c->phases = 0;
	if (ret == RINA_ERR_OVERFLOW) {
		c->st.overflows++;	/* consistent on every rank */
	} else if (ret && ret != RINA_ERR_INVALID &&
		   ret != RINA_ERR_NONFINITE) {
		if (ret != RINA_ERR_ABORTED)
			rina_session_abort(c, ret);
		c->broken = ret;
	}
	return ret;
}
