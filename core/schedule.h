/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The allreduce schedule every member and switch computes from the job:
 * blocks of L chunks x P packets x E elements, which chunk a member sends
 * at each reduce-scatter step, packet sequence numbers, element ranges and
 * slot ordinals. Documentation/protocol.md explains the rules.
 */
#ifndef RINA_CORE_SCHEDULE_H
#define RINA_CORE_SCHEDULE_H

#include "compat.h"

struct rina_sched {
	__u64	count;		/* elements in the tensor */
	__u64	nblocks;
	__u64	block_elems;	/* L * P * E */
	__u32	L, P, E;
	__u32	seqs;		/* sequence numbers used: nblocks * 2 * L * P */
	/*
	 * Every packet is sent, an empty one as one zero word: jobs with INA
	 * members, whose ToR relies on every slot ordinal (protocol-ina.md
	 * section 2). Plain rings skip empty packets.
	 */
	__u32	pad;
};

/* Decoded packet identity. */
struct rina_pkt_id {
	__u64	block;
	__u32	chunk;
	__u32	pkt;		/* index inside the chunk, < P */
	__u32	ag;		/* allgather copy (1) or reduce-scatter (0) */
};

enum rina_sched_err {
	RINA_SCHED_OK = 0,
	RINA_SCHED_BAD_PARAM,	/* L, E or W zero, or W < 2 */
	RINA_SCHED_TOO_LARGE,	/* more packets than a 32-bit seq names */
};

/*
 * P is as many packets as one ring pass needs, capped at W - 1 so that the
 * slot window can never deadlock the pipeline (a member must be able to
 * start its own chunk while it waits for the ACKs of W - 1 others).
 */
static inline enum rina_sched_err
rina_sched_init(struct rina_sched *s, __u64 count, __u32 L, __u32 E, __u32 W)
{
	__u64 per_pass, P, seqs;

	if (!L || !E || W < 2)
		return RINA_SCHED_BAD_PARAM;
	per_pass = (__u64)L * E;
	P = (count + per_pass - 1) / per_pass;
	if (P < 1)
		P = 1;
	if (P > W - 1)
		P = W - 1;
	s->count = count;
	s->L = L;
	s->E = E;
	s->P = (__u32)P;
	s->block_elems = per_pass * P;
	s->nblocks = (count + s->block_elems - 1) / s->block_elems;
	seqs = s->nblocks * 2 * L * P;
	if (seqs > 0xffffffffULL)
		return RINA_SCHED_TOO_LARGE;
	s->seqs = (__u32)seqs;
	s->pad = 0;
	return RINA_SCHED_OK;
}

/* At most this many bytes in a chunk of a ring with INA members. */
#define RINA_INA_CHUNK_BYTES	(32 << 10)

/*
 * The schedule of one call of count elements on a ring of L members
 * with E elements a packet and a window of W packets; pad: the ring has
 * INA members. Every sender of a call computes the same.
 */
static inline enum rina_sched_err
rina_sched_call(struct rina_sched *s, __u64 count, __u32 L, __u32 E,
		__u32 W, int pad)
{
	enum rina_sched_err err;
	__u32 cap = W;

	/*
	 * Towards an aggregator an ordinal completes only when the next
	 * member's slot does, which waits on that member's own window: with
	 * P = W - 1 the racks advance one ordinal per round trip in
	 * lock-step. Chunks of at most W/4 packets keep several steps in
	 * flight.
	 */
	if (pad && cap >= 8)
		cap /= 4;
	/*
	 * And a chunk of at most RINA_INA_CHUNK_BYTES: an INA member's
	 * window never drops below P + 1 packets (protocol.md 6.1), which
	 * with 4 KiB packets and P = 63 is 256 KiB, more than a shaped
	 * link's queue holds: every round trip then lost most of it.
	 */
	if (pad && E && cap > RINA_INA_CHUNK_BYTES / (4 * E))
		cap = RINA_INA_CHUNK_BYTES / (4 * E);
	if (cap < 2)
		cap = 2;
	err = rina_sched_init(s, count, L, E, cap);
	if (err)
		return err;
	s->pad = !!pad;
	return RINA_SCHED_OK;
}

/* Slot ordinals a call takes at every member (slot_base moves by it). */
static inline __u32 rina_sched_slots(const struct rina_sched *s)
{
	return (__u32)(s->nblocks * s->L * s->P);
}

/* Chunk member i sends at reduce-scatter step t (0 .. L-2). */
static inline __u32 rina_sr_chunk(__u32 i, __u32 t, __u32 L)
{
	return (i + L - t % L) % L;
}

/* Chunk member i owns (holds fully reduced after the last SR step). */
static inline __u32 rina_own_chunk(__u32 i, __u32 L)
{
	return (i + 1) % L;
}

/* Step at which member i handles chunk c (own chunk: L - 1). */
static inline __u32 rina_chunk_step(__u32 i, __u32 c, __u32 L)
{
	return (i + L - c) % L;
}

/* Seqs of one block: its L·P reduce-scatter seqs, then as many allgather. */
static inline __u32 rina_block_seqs(const struct rina_sched *s)
{
	return 2 * s->L * s->P;
}

/* Whether seq is an allgather one (rina_seq_decode()'s ag, cheaply). */
static inline int rina_seq_is_ag(const struct rina_sched *s, __u32 seq)
{
	return seq % rina_block_seqs(s) >= s->L * s->P;
}

static inline __u32 rina_seq(const struct rina_sched *s, __u64 b, __u32 c,
			     __u32 p, __u32 ag)
{
	__u64 lp = (__u64)s->L * s->P;

	return (__u32)(b * 2 * lp + (ag ? lp : 0) + (__u64)c * s->P + p);
}

/*
 * The allgather seq of the packet whose reduce-scatter seq is sr_seq (a
 * block holds L·P reduce-scatter seqs, then as many allgather ones).
 * Takes L and P alone: the agent core knows no struct rina_sched.
 */
static inline __u32 rina_seq_ag_of(__u32 L, __u32 P, __u32 sr_seq)
{
	return sr_seq + L * P;
}

static inline void rina_seq_decode(const struct rina_sched *s, __u32 seq,
				   struct rina_pkt_id *id)
{
	__u64 lp = (__u64)s->L * s->P;
	__u64 in_block = seq % (2 * lp);

	id->block = seq / (2 * lp);
	id->ag = in_block >= lp;
	if (id->ag)
		in_block -= lp;
	id->chunk = (__u32)(in_block / s->P);
	id->pkt = (__u32)(in_block % s->P);
}

/* First element of packet (b, c, p); its length is rina_pkt_len(). */
static inline __u64 rina_pkt_off(const struct rina_sched *s, __u64 b, __u32 c,
				 __u32 p)
{
	return b * s->block_elems + ((__u64)c * s->P + p) * s->E;
}

/* Elements packet (b, c, p) carries; 0: the packet does not exist. */
static inline __u32 rina_pkt_len(const struct rina_sched *s, __u64 b, __u32 c,
				 __u32 p)
{
	__u64 off = rina_pkt_off(s, b, c, p);

	if (off >= s->count)
		return 0;
	return s->count - off < s->E ? (__u32)(s->count - off) : s->E;
}

/* Packet (b, c, p) is sent: it carries elements, or the job pads. */
static inline int rina_pkt_sent(const struct rina_sched *s, __u64 b, __u32 c,
				__u32 p)
{
	return s->pad || rina_pkt_len(s, b, c, p);
}

/* n_elem on the wire for a sent packet of len elements (padding: 1). */
static inline __u32 rina_wire_elems(__u32 len)
{
	return len ? len : 1;
}

/* Member-local processing ordinal of packet (b, c, p) at member i. */
static inline __u64 rina_ordinal(const struct rina_sched *s, __u32 i, __u64 b,
				 __u32 c, __u32 p)
{
	return (b * s->L + rina_chunk_step(i, c, s->L)) * s->P + p;
}

/* Member i's ordinal of reduce-scatter seq (an allgather seq: none). */
static inline __u64 rina_seq_ordinal(const struct rina_sched *s, __u32 i,
				     __u32 seq)
{
	struct rina_pkt_id id;

	rina_seq_decode(s, seq, &id);
	return rina_ordinal(s, i, id.block, id.chunk, id.pkt);
}

/*
 * The reduce-scatter seq of member i's ordinal o (rina_ordinal()'s
 * inverse), decoded in *id.
 */
static inline __u32 rina_ordinal_seq(const struct rina_sched *s, __u32 i,
				     __u64 o, struct rina_pkt_id *id)
{
	id->block = o / ((__u64)s->L * s->P);
	id->chunk = rina_sr_chunk(i, (__u32)(o / s->P % s->L), s->L);
	id->pkt = (__u32)(o % s->P);
	id->ag = 0;
	return rina_seq(s, id->block, id->chunk, id->pkt, 0);
}

/* Wire slot for an ordinal; slot_base keeps counting across rounds. */
static inline __u16 rina_slot(__u32 slot_base, __u64 ordinal)
{
	return (__u16)(slot_base + ordinal);
}

/*
 * Round comparison with 16-bit wrap-around: < 0 older, 0 same, > 0 newer.
 */
static inline int rina_round_cmp(__u16 a, __u16 b)
{
	return (int)(__s16)(__u16)(a - b);
}

#endif /* RINA_CORE_SCHEDULE_H */
