/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small open-addressing map from a packet identity (round, seq) to a
 * pointer, for the agent's per-packet state. Grows by doubling; entries
 * are removed in bulk by rina_keymap_filter(). Memory comes from the
 * host environment through struct rina_keymap_mem, so the same code runs
 * in rina.ko and librina.
 */
#ifndef RINA_CORE_KEYMAP_H
#define RINA_CORE_KEYMAP_H

#include "compat.h"

struct rina_keymap_mem {
	/* zeroed memory, or NULL */
	void	*(*zalloc)(void *ctx, __u32 size);
	void	(*free)(void *ctx, void *p);
	void	*ctx;
};

struct rina_keymap_ent {
	__u16	round;
	__u32	seq;
	void	*val;		/* NULL: empty */
};

struct rina_keymap {
	struct rina_keymap_ent	*tab;
	__u32			cap, used;	/* cap: a power of 2 */
	const struct rina_keymap_mem *mem;
};

int rina_keymap_init(struct rina_keymap *km, __u32 cap,
		     const struct rina_keymap_mem *mem);
void *rina_keymap_get(const struct rina_keymap *km, __u16 round, __u32 seq);
/* Insert a new key (must be absent); 0, or -1 without memory. */
int rina_keymap_put(struct rina_keymap *km, __u16 round, __u32 seq,
		    void *val);
/*
 * Keep the entries for which keep() says true; hand the others' values
 * to drop() (keep NULL: drop all). Returns how many were dropped.
 */
__u32 rina_keymap_filter(struct rina_keymap *km,
			 int (*keep)(void *val, void *arg),
			 void (*drop)(void *val, void *arg), void *arg);
/* Drop every entry (drop() may be NULL) and free the table. */
void rina_keymap_free(struct rina_keymap *km,
		      void (*drop)(void *val, void *arg), void *arg);

#endif /* RINA_CORE_KEYMAP_H */
