// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The packet schedule of one call on this communicator's ring. */
#include "rina_int.h"
#include "schedule.h"

int rina_call_sched(const struct rina_comm *c, struct rina_sched *s,
		    size_t count)
{
	uint32_t cap = c->job.window;

	/*
	 * Towards an aggregator an ordinal completes only when the next
	 * member's slot does, which waits on that member's own window: with
	 * P = W - 1 the racks advance one ordinal per round trip in lock-step.
	 * Chunks of at most W/4 packets keep several steps in flight.
	 */
	if (c->pad && cap >= 8)
		cap /= 4;
	if (rina_sched_init(s, count, c->L, c->job.elems, cap))
		return rina_fail(RINA_ERR_INVALID,
				 "count %zu needs more than 2^32 packets", count);
	s->pad = c->pad;
	return RINA_OK;
}
