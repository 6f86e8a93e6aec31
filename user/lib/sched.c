// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The packet schedule of one call on this communicator's ring. */
#include "rina_int.h"
#include "schedule.h"

int rina_call_sched(const struct rina_comm *c, struct rina_sched *s,
		    size_t count)
{
	if (rina_sched_call(s, count, c->L, c->job.elems, c->job.window,
			    c->pad))
		return rina_fail(RINA_ERR_INVALID,
				 "count %zu needs more than 2^32 packets", count);
	return RINA_OK;
}
