/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rina wire header validation, shared by every parser: the XDP program,
 * librina, the kernel agent and the switch model. Header-only and free of
 * libc and kernel calls so that BPF, kernel and userspace include it alike.
 *
 * Byte-order helpers come from core/compat.h (kernel and userspace); the
 * BPF program defines rina_ntohs()/rina_ntohl() as bpf_ntohs/bpf_ntohl
 * before including this file.
 */
#ifndef RINA_CORE_WIRE_H
#define RINA_CORE_WIRE_H

#ifndef rina_ntohs
#include "compat.h"
#endif
#include <linux/rina.h>

/* Why a packet was rejected; every parser counts these by name. */
enum rina_parse_err {
	RINA_PARSE_OK = 0,
	RINA_PARSE_RUNT,		/* shorter than the Rina header */
	RINA_PARSE_BAD_VERSION,
	RINA_PARSE_BAD_OPCODE,
	RINA_PARSE_BAD_LENGTH,		/* n_elem disagrees with the bytes */
	RINA_PARSE_OVERSIZE,		/* n_elem above RINA_MAX_ELEMS */
	RINA_PARSE_BAD_DTYPE,
	RINA_PARSE_BAD_FIELD,		/* reserved bits set, bad ctrl size */
	RINA_PARSE_UNKNOWN_JOB,		/* reported by callers with a job table */
	__RINA_PARSE_MAX,
};

#define RINA_PARSE_NAMES {			\
	[RINA_PARSE_OK]		 = "ok",		\
	[RINA_PARSE_RUNT]	 = "runt",		\
	[RINA_PARSE_BAD_VERSION] = "bad_version",	\
	[RINA_PARSE_BAD_OPCODE]	 = "bad_opcode",	\
	[RINA_PARSE_BAD_LENGTH]	 = "bad_length",	\
	[RINA_PARSE_OVERSIZE]	 = "oversize",		\
	[RINA_PARSE_BAD_DTYPE]	 = "bad_dtype",		\
	[RINA_PARSE_BAD_FIELD]	 = "bad_field",		\
	[RINA_PARSE_UNKNOWN_JOB] = "unknown_job",	\
}

static inline unsigned int rina_hdr_version(const struct rina_hdr *h)
{
	return h->ver_op >> 4;
}

static inline unsigned int rina_hdr_opcode(const struct rina_hdr *h)
{
	return h->ver_op & 0xf;
}

/* Bytes after the n_elem payload words: the data tag's or MAC's, or none. */
static inline unsigned int rina_hdr_trailer(const struct rina_hdr *h)
{
	unsigned int x = rina_ntohs(h->rsvd);

	return x == RINA_X_TAG || x == RINA_X_MAC ? RINA_TAG_LEN : 0;
}

/*
 * How many of the acked seqs an ACK says arrived CE-marked: a receiver
 * sets RINA_F_ECN_ECHO on an ACK only when every seq it lists was, so a
 * sender counts marked packets exactly (Documentation/protocol.md).
 */
static inline unsigned int rina_ack_ce(const struct rina_hdr *h,
				       unsigned int acked)
{
	return h->flags & RINA_F_ECN_ECHO ? acked : 0;
}

/*
 * Check a Rina header against the bytes that carry it. len counts the
 * Rina header plus payload (the UDP payload length). Data opcodes carry
 * n_elem int32 words; ACK and NACK carry n_elem seqs; CTRL carries
 * exactly one struct rina_ctrl, signed (followed by struct rina_ctrl_auth)
 * or not. Other trailing bytes are allowed only as the data tag or MAC
 * (rsvd RINA_X_TAG or RINA_X_MAC, not on CTRL): a length mismatch means
 * a broken sender or a truncated frame.
 */
static inline enum rina_parse_err
rina_hdr_check(const struct rina_hdr *h, unsigned int len)
{
	unsigned int op, n, dt;

	if (len < RINA_HDR_LEN)
		return RINA_PARSE_RUNT;
	if (rina_hdr_version(h) != RINA_VERSION)
		return RINA_PARSE_BAD_VERSION;
	op = rina_hdr_opcode(h);
	if (op < RINA_OP_SR_CONTRIB || op > RINA_OP_MAX)
		return RINA_PARSE_BAD_OPCODE;
	n = rina_ntohs(h->n_elem);
	if (n > RINA_MAX_ELEMS)
		return RINA_PARSE_OVERSIZE;
	if (len != RINA_HDR_LEN + n * 4 + rina_hdr_trailer(h))
		return RINA_PARSE_BAD_LENGTH;
	if (h->rsvd && (!rina_hdr_trailer(h) || op == RINA_OP_CTRL))
		return RINA_PARSE_BAD_FIELD;
	switch (op) {
	case RINA_OP_SR_CONTRIB:
	case RINA_OP_SR_PARTIAL:
	case RINA_OP_AG_DATA:
		dt = RINA_DTYPE_OF(h->dtype_op);
		if (dt > RINA_WIRE_INT32 ||
		    RINA_OP_OF(h->dtype_op) > RINA_WIRE_MAX)
			return RINA_PARSE_BAD_DTYPE;
		if (n == 0)
			return RINA_PARSE_BAD_LENGTH;
		break;
	case RINA_OP_CTRL:
		if (n != RINA_CTRL_WORDS && n != RINA_CTRL_AUTH_WORDS)
			return RINA_PARSE_BAD_LENGTH;
		break;
	default:	/* ACK, NACK: at least one seq */
		if (n == 0)
			return RINA_PARSE_BAD_LENGTH;
		break;
	}
	return RINA_PARSE_OK;
}

/* True for a UDP destination port in the Rina range. */
static inline int rina_port_match(unsigned int port_host_order)
{
	return (port_host_order & RINA_UDP_PORT_MASK) == RINA_UDP_PORT_MIN;
}

#endif /* RINA_CORE_WIRE_H */
