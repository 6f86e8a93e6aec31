/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Duplicate bitmaps: one bit per sequence number or contributor, on
 * caller-provided memory (the kernel, librina and the switch model each
 * allocate their own way).
 */
#ifndef RINA_CORE_BITMAP_H
#define RINA_CORE_BITMAP_H

#include "compat.h"

#define RINA_BITMAP_WORDS(nbits)	(((nbits) + 63) / 64)

static inline int rina_bit_test(const __u64 *map, __u32 bit)
{
	return (map[bit / 64] >> (bit % 64)) & 1;
}

/* Set a bit; returns its previous value (1: a duplicate). */
static inline int rina_bit_test_and_set(__u64 *map, __u32 bit)
{
	__u64 mask = 1ULL << (bit % 64);
	int old = !!(map[bit / 64] & mask);

	map[bit / 64] |= mask;
	return old;
}

static inline void rina_bit_clear(__u64 *map, __u32 bit)
{
	map[bit / 64] &= ~(1ULL << (bit % 64));
}

#endif /* RINA_CORE_BITMAP_H */
