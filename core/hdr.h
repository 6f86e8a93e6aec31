/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Building a Rina header as a sender; wire.h checks one as a receiver
 * (and, unlike this file, builds in the XDP program too).
 *
 * Header-only, no libc or kernel calls.
 */
#ifndef RINA_CORE_HDR_H
#define RINA_CORE_HDR_H

#include "compat.h"
#include "wire.h"

/* L2+L3+L4 bytes that frame one message on Ethernet/IPv4/UDP. */
#define RINA_FRAME_OVERHEAD	(14 + 20 + 8)

/* A header of this sender's, every other field zero. */
static inline void rina_hdr_fill(struct rina_hdr *h, unsigned int op,
				 __u16 job_id, __u16 round, __u16 src_id)
{
	rina_memset(h, 0, sizeof(*h));
	h->ver_op = (__u8)(RINA_VERSION << 4 | op);
	h->job_id = rina_htons(job_id);
	h->round = rina_htons(round);
	h->src_id = rina_htons(src_id);
	h->exp = RINA_EXP_NONE;
}

#endif /* RINA_CORE_HDR_H */
