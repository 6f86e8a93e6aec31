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
	/*
	 * And a chunk of at most RINA_INA_CHUNK_BYTES: an INA member's
	 * window never drops below P + 1 packets (protocol.md 6.1), which
	 * with 4 KiB packets and P = 63 is 256 KiB, more than a shaped
	 * link's queue holds: every round trip then lost most of it.
	 */
	if (c->pad && cap > RINA_INA_CHUNK_BYTES / (4 * c->job.elems))
		cap = RINA_INA_CHUNK_BYTES / (4 * c->job.elems);
	if (cap < 2)
		cap = 2;
	if (rina_sched_init(s, count, c->L, c->job.elems, cap))
		return rina_fail(RINA_ERR_INVALID,
				 "count %zu needs more than 2^32 packets", count);
	s->pad = c->pad;
	return RINA_OK;
}
