/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a CTRL ABORT's arg says (the control message's layout is
 * unchanged): bits 0-6 the aborter's result (librina's enum
 * rina_result); bits 8-31, from an INA rack's agent, the rack's local
 * workers it gave up on: bit 8 + k for local index k (the k-th rank of
 * the rack, core/plan.h's ring order), so every rank can name them.
 * With bit 7 (RINA_ABORT_F_PEER), bits 8-23 are instead the rank that
 * a plain member gave up on: its next member, which acknowledged
 * nothing while the stall lasted (a dead or stopped process).
 */
#ifndef RINA_CORE_ABORT_H
#define RINA_CORE_ABORT_H

#include "compat.h"

#define RINA_ABORT_SILENT_MAX	24	/* local workers one ABORT names */

static inline __u32 rina_abort_arg(__u32 result, __u32 silent)
{
	return (result & 0xff) | (silent & 0xffffff) << 8;
}

#define RINA_ABORT_F_PEER	0x80

/* An ABORT that names rank, the member that stopped answering. */
static inline __u32 rina_abort_arg_peer(__u32 result, __u32 rank)
{
	return (result & 0x7f) | RINA_ABORT_F_PEER | (rank & 0xffff) << 8;
}

static inline __u32 rina_abort_result(__u32 arg)
{
	return arg & 0x7f;
}

static inline __u32 rina_abort_silent(__u32 arg)
{
	return arg & RINA_ABORT_F_PEER ? 0 : arg >> 8;
}

/* The rank an ABORT names (rina_abort_arg_peer()), or -1. */
static inline int rina_abort_peer(__u32 arg)
{
	return arg & RINA_ABORT_F_PEER ? (int)(arg >> 8 & 0xffff) : -1;
}

/*
 * An agent aggregating in software gives up on a local worker that sent
 * nothing for 3/4 of the job's timeout while a slot waits on it: before
 * the other ranks' own timeouts fire, so that they learn whom from it.
 */
static inline __u64 rina_agent_silent_us(__u32 timeout_ms)
{
	return (__u64)timeout_ms * 750;
}

#endif /* RINA_CORE_ABORT_H */
