// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What an ABORT tells a rank (core/abort.h): the aborter's result and,
 * from an INA rack's agent, the rack's workers it waited for in vain,
 * named by rank from the ring (the k-th rank of the agent's rack), or
 * from a plain member, the next member that stopped answering it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rina_int.h"
#include "abort.h"

/* The rack whose agent is rank "agent", or NULL. */
static const struct rina_member *agent_member(const struct rina_comm *c,
					      unsigned int agent)
{
	unsigned int i;

	for (i = 0; i < c->ring.L; i++)
		if (c->ring.m[i].ina && c->ring.m[i].agent == agent)
			return &c->ring.m[i];
	return NULL;
}

/* "rank 1" or "ranks 1, 5": the silent workers, into buf. */
static void silent_ranks(const struct rina_comm *c, unsigned int agent,
			 uint32_t silent, char *buf, size_t len)
{
	const struct rina_member *mb = agent_member(c, agent);
	size_t n;
	unsigned int k, named = 0;

	n = (size_t)snprintf(buf, len, "%s",
			     silent & (silent - 1) ? "ranks " : "rank ");
	for (k = 0; k < RINA_ABORT_SILENT_MAX && n < len; k++) {
		if (!(silent & 1u << k))
			continue;
		if (mb && k < mb->n_local)
			n += (size_t)snprintf(buf + n, len - n, "%s%u",
					      named ? ", " : "",
					      c->ring.order[mb->first + k]);
		else	/* not in our ring: say which of the rack */
			n += (size_t)snprintf(buf + n, len - n,
					      "%s(local worker %u)",
					      named ? ", " : "", k);
		named++;
	}
}

int rina_abort_fail(const struct rina_comm *c, unsigned int src,
		    uint32_t arg)
{
	uint32_t silent = rina_abort_silent(arg);
	int peer = rina_abort_peer(arg);
	char who[256];

	/* a plain member's next one stopped answering (ring.c) */
	if (peer >= 0 && (unsigned int)peer < c->N) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &c->job.ranks[peer].ip, ip, sizeof(ip));
		return rina_fail(RINA_ERR_ABORTED,
				 "rank %u aborted the job: %s: rank %d (%s:%u) acknowledged nothing it sent for its whole timeout: it died, was stopped or is cut off",
				 src, rina_strerror((int)rina_abort_result(arg)),
				 peer, ip, ntohs(c->job.ranks[peer].port));
	}
	/* it was itself told, by its rina.ko, or left with calls pending */
	if (!silent && rina_abort_result(arg) == RINA_ERR_ABORTED)
		return rina_fail(RINA_ERR_ABORTED,
				 "rank %u aborted the job: the job ended there (rina.ko on its host, or it left with calls pending)",
				 src);
	if (!silent)
		return rina_fail(RINA_ERR_ABORTED,
				 "rank %u aborted the job: %s", src,
				 rina_strerror((int)rina_abort_result(arg)));
	silent_ranks(c, src, silent, who, sizeof(who));
	return rina_fail(RINA_ERR_ABORTED,
			 "rank %u aborted the job: %s: %s silent (sent nothing to the rack's agent, rank %u, for %llu ms while the rack waited on it)",
			 src, rina_strerror((int)rina_abort_result(arg)),
			 who, src,
			 (unsigned long long)
			 (rina_agent_silent_us(c->timeout_ms) / 1000));
}
