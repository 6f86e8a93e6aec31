/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Sizes and constants of the Rina INA ToR, in one place. Mirrored name
 * for name by p4/model/configuration.h: change both or neither.
 */
#ifndef _RINA_CONFIGURATION_P4_
#define _RINA_CONFIGURATION_P4_

#define RINA_TOR_ELEMS		256	/* int32 elements added per pass (E) */
#define RINA_TOR_POOL_SIZE	4096	/* slots per shadow set, all jobs */
#define RINA_TOR_MAX_JOBS	16
#define RINA_TOR_MAX_WORKERS	31	/* local bits 0..30, upstream bit m */
#define RINA_TOR_L2_SIZE	1024
#define RINA_TOR_WORKER_SIZE	512	/* MAX_JOBS * (MAX_WORKERS + 1) */
#define RINA_TOR_RID_SIZE	1024
#define RINA_TOR_DROP_SIZE	16
#define RINA_TOR_FLOOD_GRP	1
#define RINA_TOR_FRAME_MAX	9216	/* largest frame switched */

/* 2 * RINA_TOR_POOL_SIZE and 2 * RINA_TOR_POOL_SIZE * RINA_TOR_ELEMS */
#define RINA_TOR_SLOTS		8192
#define RINA_TOR_VALUES		2097152

/* Wire (include/uapi/linux/rina.h) */
#define RINA_VERSION		1
#define RINA_UDP_PORT_MIN	0x5240
#define RINA_UDP_PORT_MASK	0xfff0
#define RINA_HDR_LEN		28
#define RINA_MAX_ELEMS		1024
#define RINA_CTRL_WORDS		4
#define RINA_X_TAG		0x8000	/* rsvd: a data tag follows */
#define RINA_X_MAC		0x4000	/* rsvd: a per-packet MAC follows */
#define RINA_TAG_LEN		8
#define RINA_CTRL_AUTH_WORDS	8	/* a signed CTRL (struct rina_ctrl_auth) */

#define RINA_OP_SR_CONTRIB	1
#define RINA_OP_SR_PARTIAL	2
#define RINA_OP_AG_DATA		3
#define RINA_OP_ACK		4
#define RINA_OP_NACK		5
#define RINA_OP_CTRL		6

#define RINA_F_RETX		0x01
#define RINA_F_LAST		0x02
#define RINA_F_OWN_FINAL	0x04
#define RINA_F_SW_BYPASS	0x08
#define RINA_F_OVERFLOW		0x10
#define RINA_F_ECN_ECHO		0x20
#define RINA_F_FROM_SWITCH	0x40
#define RINA_F_AG_PHASE		0x80

#define RINA_WIRE_INT32		1
#define RINA_WIRE_MAX		1
#define RINA_EXP_NONE		0x80

/* enum rina_parse_err (core/wire.h) */
#define RINA_PARSE_OK		0
#define RINA_PARSE_RUNT		1
#define RINA_PARSE_BAD_VERSION	2
#define RINA_PARSE_BAD_OPCODE	3
#define RINA_PARSE_BAD_LENGTH	4
#define RINA_PARSE_OVERSIZE	5
#define RINA_PARSE_BAD_DTYPE	6
#define RINA_PARSE_BAD_FIELD	7
#define RINA_PARSE_UNKNOWN_JOB	8

/* enum rina_slot_verdict (core/slot.h) */
#define RINA_SLOT_FRESH		0
#define RINA_SLOT_ADD		1
#define RINA_SLOT_DUP		2
#define RINA_SLOT_DUP_DONE	3
#define RINA_SLOT_STALE		4
#define RINA_SLOT_COLLISION	5
#define RINA_SLOT_ST_DONE	0x01
#define RINA_SLOT_ST_CE		0x04
#define RINA_SLOT_ST_UP_CE	0x08

/* the IPv4 ECN field (RFC 3168; core/slot.h) */
#define RINA_ECN_NOT_ECT	0
#define RINA_ECN_ECT0		2
#define RINA_ECN_CE		3

/* meta.emit: replica classes of the job's group that survive egress */
#define RINA_EMIT_LOCAL		0x01
#define RINA_EMIT_ONE		0x02
#define RINA_EMIT_NEXT		0x04
#define RINA_EMIT_UP		0x08
#define RINA_EMIT_AGENT		0x10

#define RINA_RW_LOCAL		1
#define RINA_RW_NEXT		2
#define RINA_RW_UP		3
#define RINA_RW_AGENT		4
#define RINA_RW_HOST		5	/* the local worker on the agent's host */

/* job_ctr ids (per job: job_idx * RINA_TC_MAX + id) */
#define RINA_TC_CONTRIB_IN	0
#define RINA_TC_PARTIAL_IN	1
#define RINA_TC_AG_IN		2
#define RINA_TC_ACK_IN		3
#define RINA_TC_NACK_IN		4
#define RINA_TC_CTRL_IN		5
#define RINA_TC_BYPASS_IN	6
#define RINA_TC_SLOT_DONE	7
#define RINA_TC_DUP		8
#define RINA_TC_REEMIT		9
#define RINA_TC_STALE		10
#define RINA_TC_COLLISION	11
#define RINA_TC_OVERFLOW	12
#define RINA_TC_BAD		13
#define RINA_TC_TOO_LONG	14
#define RINA_TC_NO_WORKER	15
#define RINA_TC_DROP_SIM	16
#define RINA_TC_BAD_TAG		17
#define RINA_TC_MAX		18

/* job_out ids (per job: job_idx * RINA_TO_MAX + id) */
#define RINA_TO_PARTIAL_OUT	0
#define RINA_TO_AG_OUT		1
#define RINA_TO_AG_MCAST	2
#define RINA_TO_ACK_OUT		3
#define RINA_TO_ACK_MCAST	4
#define RINA_TO_DROP_SIM	5
#define RINA_TO_AG_AGENT	6
#define RINA_TO_MAX		7

/* tor_ctr ids: 0..8 are the parse verdicts above */
#define RINA_TS_NON_RINA	9
#define RINA_TS_L2_FLOOD	10
#define RINA_TS_L2_RUNT		11
#define RINA_TS_GIANT		12
#define RINA_TS_MAX		13

#define RINA_LCG_MUL		1664525
#define RINA_LCG_INC		1013904223

#endif
