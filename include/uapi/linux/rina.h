/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Rina: in-network aggregation for Ring-AllReduce.
 *
 * The one header shared by the kernel module, the XDP program, librina,
 * the software ToR and the tools: the wire header, its codes, the UDP
 * port range, and (below the wire section) the generic netlink family,
 * the /dev/rina ioctls and the sysctl names.
 *
 * The wire format is specified field by field in Documentation/protocol.md.
 */
#ifndef _UAPI_LINUX_RINA_H
#define _UAPI_LINUX_RINA_H

#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* Wire format                                                         */
/* ------------------------------------------------------------------ */

#define RINA_VERSION		1

/* UDP destination ports 0x5240..0x524f are Rina; the last one is the agent. */
#define RINA_UDP_PORT_MIN	0x5240
#define RINA_UDP_PORT_MAX	0x524f
#define RINA_UDP_PORT_MASK	0xfff0
#define RINA_UDP_PORT_WORKER	0x5240	/* default worker port */
#define RINA_UDP_PORT_AGENT	0x524f	/* agent / ToR control, goes up the stack */

enum rina_opcode {
	RINA_OP_SR_CONTRIB	= 1,	/* local worker -> own ToR / agent */
	RINA_OP_SR_PARTIAL	= 2,	/* ring member -> next member */
	RINA_OP_AG_DATA		= 3,	/* fully reduced data, allgather */
	RINA_OP_ACK		= 4,	/* payload: n_elem acked __be32 seqs */
	RINA_OP_NACK		= 5,	/* payload: n_elem missing __be32 seqs */
	RINA_OP_CTRL		= 6,	/* payload: struct rina_ctrl */
	__RINA_OP_MAX,
};
#define RINA_OP_MAX		(__RINA_OP_MAX - 1)

enum rina_hdr_flags {
	RINA_F_RETX		= 0x01,	/* retransmission */
	RINA_F_LAST		= 0x02,	/* last packet of its chunk */
	RINA_F_OWN_FINAL	= 0x04,	/* owner's fully reduced chunk */
	RINA_F_SW_BYPASS	= 0x08,	/* switch must not aggregate */
	RINA_F_OVERFLOW		= 0x10,	/* int32 wrap-around seen upstream */
	RINA_F_ECN_ECHO		= 0x20,
	RINA_F_FROM_SWITCH	= 0x40,	/* emitted by an INA ToR */
	RINA_F_AG_PHASE		= 0x80,	/* allgather data, or ACK/NACK of it */
};

/* dtype_op: high nibble data type, low nibble reduction */
enum rina_wire_dtype {
	RINA_WIRE_FIXED32	= 0,	/* int32 fixed point (quantised float) */
	RINA_WIRE_INT32		= 1,	/* raw int32 */
};

enum rina_wire_op {
	RINA_WIRE_SUM		= 0,
	RINA_WIRE_MAX		= 1,
};

#define RINA_DTYPE_OP(dt, op)	((__u8)(((dt) << 4) | ((op) & 0xf)))
#define RINA_DTYPE_OF(x)	((x) >> 4)
#define RINA_OP_OF(x)		((x) & 0xf)

#define RINA_EXP_NONE		((__s8)-128)	/* exp field unused */
#define RINA_SRC_SWITCH		0xf000	/* src_id | rack for ToR packets */

/*
 * The Rina header, after Ethernet | IPv4 | UDP. Network byte order.
 * Payload: n_elem x __be32 (data, or seqs for ACK/NACK, or a control msg).
 */
struct rina_hdr {
	__u8	ver_op;		/* version << 4 | opcode */
	__u8	flags;		/* enum rina_hdr_flags */
	__be16	job_id;
	__be16	round;		/* allreduce call number within the job */
	__u8	step;		/* ring step at the receiver (tracing) */
	__u8	hop;		/* allgather hops travelled */
	__be16	src_id;		/* sender rank, or RINA_SRC_SWITCH | rack */
	__be16	chunk;		/* ring chunk 0..L-1 */
	__be32	seq;		/* packet identity within the round */
	__be16	slot;		/* receiver-side ordinal mod 65536 */
	__be16	n_elem;		/* payload words */
	__be16	p_chunk;	/* packets per chunk (P) */
	__be16	num_contrib;	/* contributions summed into payload */
	__s8	exp;		/* block exponent, or RINA_EXP_NONE */
	__u8	dtype_op;	/* RINA_DTYPE_OP() */
	__be16	rsvd;		/* zero */
} __attribute__((packed));

#define RINA_HDR_LEN		28
#define RINA_MAX_ELEMS		1024	/* largest E a packet may carry */
#define RINA_MAX_PAYLOAD	(RINA_MAX_ELEMS * 4)

#ifdef __cplusplus
static_assert(sizeof(struct rina_hdr) == RINA_HDR_LEN, "rina_hdr size");
#else
_Static_assert(sizeof(struct rina_hdr) == RINA_HDR_LEN, "rina_hdr size");
#endif

/* Control messages (RINA_OP_CTRL payload, n_elem = 4). */
enum rina_ctrl_type {
	RINA_CTRL_HELLO		= 1,	/* arg: 0; hash: job description hash */
	RINA_CTRL_HELLO_ACK	= 2,	/* reply, same fields */
	RINA_CTRL_ABORT		= 3,	/* arg: enum rina_result of the aborter */
	RINA_CTRL_TOR_INSTALL	= 16,	/* agent -> ToR, see protocol.md */
	RINA_CTRL_TOR_REMOVE	= 17,
	RINA_CTRL_TOR_REPLY	= 18,
};

struct rina_ctrl {
	__be32	type;		/* enum rina_ctrl_type */
	__be32	arg;
	__be64	hash;
} __attribute__((packed));

#define RINA_CTRL_WORDS		4

#endif /* _UAPI_LINUX_RINA_H */
