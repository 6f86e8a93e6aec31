/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Aggregation slot state machine shared by the INA ToR (P4 program and its
 * C model) and the agent's software aggregator: tag-based claim of a slot,
 * stale/collision detection, contributor bitmap and completion.
 * Documentation/protocol-ina.md explains every rule; p4/slot_tag.p4 is the
 * same logic written for a switch pipeline.
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_SLOT_H
#define RINA_CORE_SLOT_H

#include "compat.h"

#define RINA_SLOT_ST_DONE	0x01	/* bitmap reached the expected mask */
#define RINA_SLOT_ST_OVF	0x02	/* an int32 add wrapped around */
#define RINA_SLOT_ST_CE		0x04	/* a worker's contribution came CE */
#define RINA_SLOT_ST_UP_CE	0x08	/* the upstream partial came CE */

/* The IPv4 ECN field (RFC 3168): the low two bits of the TOS byte. */
#define RINA_ECN_NOT_ECT	0
#define RINA_ECN_ECT0		2
#define RINA_ECN_CE		3

/*
 * One slot (one shadow set of one pool index). The occupant is named by
 * (epoch, round, seq); its age is the wire slot value "id" (the member's
 * processing ordinal mod 65536), compared with serial arithmetic. The
 * epoch is the install generation of the job owning the pool range: a
 * slot written by an earlier install is free whatever its contents.
 */
struct rina_slot {
	__u16	epoch;
	__u16	round;
	__u32	seq;
	__u16	id;
	__u16	ncontrib;
	__u32	bitmap;
	__u8	state;		/* RINA_SLOT_ST_* */
	__s8	exp;		/* largest block exponent seen */
	__u16	pad;
};

/* What a packet brings to a slot. */
struct rina_slot_key {
	__u16	epoch;
	__u16	round;
	__u32	seq;
	__u16	id;		/* the packet's wire slot */
};

enum rina_slot_verdict {
	RINA_SLOT_FRESH = 0,	/* slot (re)claimed: reset values, then add */
	RINA_SLOT_ADD,		/* same occupant, new contributor: add */
	RINA_SLOT_DUP,		/* contributor already counted, not done */
	RINA_SLOT_DUP_DONE,	/* contributor already counted, done: re-emit */
	RINA_SLOT_STALE,	/* older than the occupant: drop */
	RINA_SLOT_COLLISION,	/* newer while the occupant is unfinished */
	__RINA_SLOT_VERDICT_MAX,
};

/* Pool index and shadow set of a wire slot for a window of W (power of 2). */
static inline __u32 rina_slot_idx(__u16 slot, __u32 W)
{
	return slot & (W - 1);
}

static inline __u32 rina_slot_set(__u16 slot, __u32 W)
{
	return (slot & W) ? 1 : 0;
}

/* Serial-number age: 1 if wire slot a is older than b. */
static inline int rina_slot_older(__u16 a, __u16 b)
{
	return (__s16)(__u16)(a - b) < 0;
}

/*
 * Contributors a slot of chunk c waits for at ring member i: every local
 * worker, plus the upstream partial (up_bit) unless c is the member's
 * first chunk (c == i), which has no upstream contribution.
 */
static inline __u32 rina_slot_exp_mask(__u32 local_mask, __u32 up_bit,
				       __u32 chunk, __u32 member)
{
	return chunk == member ? local_mask : (local_mask | up_bit);
}

/* Classify a packet carrying contributor bit "bit" against a slot. */
static inline enum rina_slot_verdict
rina_slot_classify(const struct rina_slot *s, const struct rina_slot_key *k,
		   __u32 bit)
{
	int done = s->state & RINA_SLOT_ST_DONE;

	if (s->epoch != k->epoch || (!s->bitmap && !done))
		return RINA_SLOT_FRESH;
	if (s->round == k->round && s->seq == k->seq) {
		if (!(s->bitmap & bit))
			return done ? RINA_SLOT_DUP_DONE : RINA_SLOT_ADD;
		return done ? RINA_SLOT_DUP_DONE : RINA_SLOT_DUP;
	}
	if (rina_slot_older(k->id, s->id) || k->id == s->id)
		return RINA_SLOT_STALE;
	return done ? RINA_SLOT_FRESH : RINA_SLOT_COLLISION;
}


/* Take the slot for a new occupant (values are the caller's to reset). */
static inline void rina_slot_claim(struct rina_slot *s,
				   const struct rina_slot_key *k)
{
	s->epoch = k->epoch;
	s->round = k->round;
	s->seq = k->seq;
	s->id = k->id;
	s->bitmap = 0;
	s->state = 0;
	s->exp = -128;
	s->ncontrib = 0;
	s->pad = 0;
}

/*
 * Count a contribution in (after its values were added). Returns 1 when
 * the slot just completed: the caller emits the result exactly once.
 */
static inline int rina_slot_join(struct rina_slot *s, __u32 bit, __s8 exp,
				 __u16 ncontrib, int overflow, __u32 exp_mask)
{
	s->bitmap |= bit;
	if (exp > s->exp)
		s->exp = exp;
	s->ncontrib = (__u16)(s->ncontrib + ncontrib);
	if (overflow)
		s->state |= RINA_SLOT_ST_OVF;
	if (!(s->state & RINA_SLOT_ST_DONE) && s->bitmap == exp_mask) {
		s->state |= RINA_SLOT_ST_DONE;
		return 1;
	}
	return 0;
}

/*
 * ECN through an aggregator, as ATP's switch does (NSDI'21): a slot
 * remembers the marks its packets arrived with. A worker's marked
 * contribution marks the slot's result, so the result's receiver echoes
 * it and the echo reaches the workers through the ACK fan-out; a marked
 * upstream partial is echoed in the slot's ACK of it. The two are kept
 * apart so that each sender is told of its own path's queue only.
 * ecn: the packet's IPv4 ECN field (RINA_ECN_*), after it joined.
 */
static inline void rina_slot_mark(struct rina_slot *s, __u8 ecn,
				  int upstream)
{
	if (ecn == RINA_ECN_CE)
		s->state |= upstream ? RINA_SLOT_ST_UP_CE : RINA_SLOT_ST_CE;
}

/*
 * The ECN field of a result the slot emits: CE if a contribution came
 * marked, else ECT(0) if the packet that completes or re-emits it is
 * ECN-capable (the job's senders react to marks), else not ECN-capable.
 */
static inline __u8 rina_slot_result_ecn(const struct rina_slot *s,
					__u8 in_ecn)
{
	if (s->state & RINA_SLOT_ST_CE)
		return RINA_ECN_CE;
	return in_ecn != RINA_ECN_NOT_ECT ? RINA_ECN_ECT0 : RINA_ECN_NOT_ECT;
}

#endif /* RINA_CORE_SLOT_H */
