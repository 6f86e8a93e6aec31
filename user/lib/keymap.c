// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Open-addressing map keyed by (round, seq); see keymap.h.
 */
#include <stdlib.h>
#include <string.h>

#include "keymap.h"

static uint32_t slot_of(uint16_t round, uint32_t seq, uint32_t cap)
{
	uint64_t k = ((uint64_t)round << 32 | seq) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(k >> 32) & (cap - 1);
}

int keymap_init(struct keymap *km, uint32_t cap)
{
	km->cap = cap;
	km->used = 0;
	km->tab = calloc(cap, sizeof(*km->tab));
	return km->tab ? 0 : -1;
}

void *keymap_get(const struct keymap *km, uint16_t round, uint32_t seq)
{
	uint32_t h = slot_of(round, seq, km->cap);

	while (km->tab[h].val) {
		if (km->tab[h].round == round && km->tab[h].seq == seq)
			return km->tab[h].val;
		h = (h + 1) & (km->cap - 1);
	}
	return NULL;
}

static void place(struct keymap_ent *tab, uint32_t cap,
		  const struct keymap_ent *e)
{
	uint32_t h = slot_of(e->round, e->seq, cap);

	while (tab[h].val)
		h = (h + 1) & (cap - 1);
	tab[h] = *e;
}

static int rehash(struct keymap *km, uint32_t cap)
{
	struct keymap_ent *tab = calloc(cap, sizeof(*tab));
	uint32_t j;

	if (!tab)
		return -1;
	for (j = 0; j < km->cap; j++)
		if (km->tab[j].val)
			place(tab, cap, &km->tab[j]);
	free(km->tab);
	km->tab = tab;
	km->cap = cap;
	return 0;
}

int keymap_put(struct keymap *km, uint16_t round, uint32_t seq, void *val)
{
	struct keymap_ent e = { round, seq, val };

	if ((km->used + 1) * 2 > km->cap && rehash(km, km->cap * 2))
		return -1;
	place(km->tab, km->cap, &e);
	km->used++;
	return 0;
}

void keymap_filter(struct keymap *km, bool (*keep)(void *val, void *arg),
		   void (*drop)(void *val), void *arg)
{
	uint32_t j;

	for (j = 0; j < km->cap; j++) {
		if (km->tab[j].val && !keep(km->tab[j].val, arg)) {
			drop(km->tab[j].val);
			km->tab[j].val = NULL;
			km->used--;
		}
	}
	rehash(km, km->cap);	/* closes the holes the probes relied on */
}

void keymap_free(struct keymap *km, void (*drop)(void *val))
{
	uint32_t j;

	for (j = 0; j < km->cap; j++)
		if (km->tab[j].val && drop)
			drop(km->tab[j].val);
	free(km->tab);
	km->tab = NULL;
	km->cap = km->used = 0;
}
