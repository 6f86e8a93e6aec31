/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A small open-addressing map from a packet identity (round, seq) to a
 * pointer, for the agent's per-packet state. Grows by doubling; entries
 * are removed in bulk by keymap_filter().
 */
#ifndef RINA_KEYMAP_H
#define RINA_KEYMAP_H

#include <stdbool.h>
#include <stdint.h>

struct keymap_ent {
	uint16_t	round;
	uint32_t	seq;
	void		*val;		/* NULL: empty */
};

struct keymap {
	struct keymap_ent *tab;
	uint32_t	cap, used;	/* cap is a power of two */
};

int keymap_init(struct keymap *km, uint32_t cap);
void *keymap_get(const struct keymap *km, uint16_t round, uint32_t seq);
/* Insert a new key (must be absent); 0 or -1 without memory. */
int keymap_put(struct keymap *km, uint16_t round, uint32_t seq, void *val);
/* Keep the entries for which keep() says true; free the others' values
 * with drop(). */
void keymap_filter(struct keymap *km, bool (*keep)(void *val, void *arg),
		   void (*drop)(void *val), void *arg);
void keymap_free(struct keymap *km, void (*drop)(void *val));

#endif /* RINA_KEYMAP_H */
