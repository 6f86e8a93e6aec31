/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Sizes of the TNA (Tofino) version of the Rina ToR. Everything of the
 * wire protocol (opcodes, flags, verdicts, counter ids) comes from the
 * v1model program's ../configuration.p4, which this file includes.
 */
#ifndef _RINA_TNA_CONFIG_P4_
#define _RINA_TNA_CONFIG_P4_

#include "../configuration.p4"
#include "../repeat.p4"

/*
 * int32 words added per pass: one 32-bit stateful ALU per word. 8: the
 * egress parser reads at most 160 bytes (intrinsic metadata, bridged
 * header, Ethernet to Rina, the words and the tag of the replica cut to
 * an ACK); 16 takes 183.
 * Jobs on a Tofino ToR state `elements RINA_TNA_ELEMS` in their job
 * file; a longer packet is bypassed to the agent (too_long), as on
 * v1model above RINA_TOR_ELEMS. Documentation/tofino.md.
 */
#ifndef RINA_TNA_ELEMS
#define RINA_TNA_ELEMS		8
#endif

/* words the parser reads: the payload of data, ACK and NACK up to this */
#define RINA_TNA_PARSE_WORDS	RINA_TNA_ELEMS

/*
 * The recirculation port of pipe 0 on Tofino 1 (as SwitchML's): every
 * contribution's second pass comes in here, so that one pipe's ingress
 * holds the slot registers whatever port the frame came in on. Tofino 2
 * numbers its ports differently: -DRINA_TNA_RECIRC_PORT= (untested).
 */
#ifndef RINA_TNA_RECIRC_PORT
#define RINA_TNA_RECIRC_PORT	68
#endif

/* slots: 2 shadow sets of RINA_TOR_POOL_SIZE, as on v1model */
#define RINA_TNA_SLOT_BITS	13	/* log2(RINA_TOR_SLOTS) */
typedef bit<RINA_TNA_SLOT_BITS> slot_idx_t;

#define RINA_TNA_AG_SEQ_SIZE	4096	/* (job, p_chunk) -> L * p_chunk */
#define RINA_TNA_CTR_STRIDE	32	/* counters: job_idx * 32 + id */
#define RINA_TNA_CTR_SHIFT	5

/* Tofino-only job_ctr id (beyond v1model's RINA_TC_MAX): raw int32 SUM,
 * whose wrap-around one pass cannot detect, goes to the agent */
#define RINA_TNA_TC_INT32_SUM	18

/* RINA_TNA_REPEAT(M): M(0) M(1) ... M(RINA_TNA_ELEMS - 1), with literal
 * numbers (instance names are pasted from them) */
#define RINA_TNA_REPEAT_8(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define RINA_TNA_REPEAT_12(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11)
#define RINA_TNA_REPEAT_16(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define RINA_TNA_REPEAT_20(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19)
#define RINA_TNA_REPEAT_24(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23)
#define RINA_TNA_REPEAT_28(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27)
#define RINA_TNA_REPEAT_32(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) \
	M(31)
#define RINA_TNA_REPEAT_36(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) \
	M(31) M(32) M(33) M(34) M(35)
#define RINA_TNA_REPEAT_40(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) \
	M(31) M(32) M(33) M(34) M(35) M(36) M(37) M(38) M(39)
#define RINA_TNA_REPEAT_44(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) \
	M(31) M(32) M(33) M(34) M(35) M(36) M(37) M(38) M(39) M(40) M(41) \
	M(42) M(43)
#define RINA_TNA_REPEAT_48(M)	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) \
	M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) \
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) \
	M(31) M(32) M(33) M(34) M(35) M(36) M(37) M(38) M(39) M(40) M(41) \
	M(42) M(43) M(44) M(45) M(46) M(47)

#define RINA_TNA_REPEAT_(N, M)	RINA_TNA_REPEAT_##N(M)
#define RINA_TNA_REPEAT_N(N, M)	RINA_TNA_REPEAT_(N, M)
#define RINA_TNA_REPEAT(M)	RINA_TNA_REPEAT_N(RINA_TNA_ELEMS, M)

/*
 * COMPUTE(NAME, BODY): BODY as the default action of a keyless table
 * NAME. A Tofino gateway compares a field with a constant; written
 * inline, a value the compiler can recompute from its expression ends up
 * as that expression in the gateway (too complex) or in a register index.
 * In a table's action it stays a field.
 */
#define COMPUTE(NAME, BODY)						\
	action NAME##_do() { BODY }					\
	table NAME {							\
		actions = { NAME##_do; }				\
		default_action = NAME##_do();				\
		size = 1;						\
	}

#endif
