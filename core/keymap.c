// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Open-addressing map keyed by (round, seq); see keymap.h.
 */
#include "keymap.h"

static __u32 slot_of(__u16 round, __u32 seq, __u32 cap)
{
	__u64 k = ((__u64)round << 32 | seq) * 0x9e3779b97f4a7c15ULL;

	return (__u32)(k >> 32) & (cap - 1);
}

int rina_keymap_init(struct rina_keymap *km, __u32 cap,
		     const struct rina_keymap_mem *mem)
{
	km->mem = mem;
	km->cap = cap;
	km->used = 0;
	km->tab = mem->zalloc(mem->ctx, cap * (__u32)sizeof(*km->tab));
	return km->tab ? 0 : -1;
}

void *rina_keymap_get(const struct rina_keymap *km, __u16 round, __u32 seq)
{
	__u32 h = slot_of(round, seq, km->cap);

	while (km->tab[h].val) {
		if (km->tab[h].round == round && km->tab[h].seq == seq)
			return km->tab[h].val;
		h = (h + 1) & (km->cap - 1);
	}
	return NULL;
}

static void place(struct rina_keymap_ent *tab, __u32 cap,
		  const struct rina_keymap_ent *e)
{
	__u32 h = slot_of(e->round, e->seq, cap);

	while (tab[h].val)
		h = (h + 1) & (cap - 1);
	tab[h] = *e;
}

static int rehash(struct rina_keymap *km, __u32 cap)
{
	struct rina_keymap_ent *tab;
	__u32 j;

	tab = km->mem->zalloc(km->mem->ctx, cap * (__u32)sizeof(*tab));
	if (!tab)
		return -1;
	for (j = 0; j < km->cap; j++)
		if (km->tab[j].val)
			place(tab, cap, &km->tab[j]);
	km->mem->free(km->mem->ctx, km->tab);
	km->tab = tab;
	km->cap = cap;
	return 0;
}

int rina_keymap_put(struct rina_keymap *km, __u16 round, __u32 seq,
		    void *val)
{
	struct rina_keymap_ent e = { .round = round, .seq = seq, .val = val };

	if ((km->used + 1) * 2 > km->cap && rehash(km, km->cap * 2))
		return -1;
	place(km->tab, km->cap, &e);
	km->used++;
	return 0;
}

/*
 * Remove entry j and re-place the run of entries after it, so that every
 * probe sequence stays unbroken without a new table (no allocation: this
 * works when memory is short too).
 */
static void remove_at(struct rina_keymap *km, __u32 j)
{
	__u32 mask = km->cap - 1, k = (j + 1) & mask;

	km->tab[j].val = NULL;
	km->used--;
	while (km->tab[k].val) {
		struct rina_keymap_ent e = km->tab[k];

		km->tab[k].val = NULL;
		place(km->tab, km->cap, &e);
		k = (k + 1) & mask;
	}
}

__u32 rina_keymap_filter(struct rina_keymap *km,
			 int (*keep)(void *val, void *arg),
			 void (*drop)(void *val, void *arg), void *arg)
{
	__u32 j = 0, n = 0;

	while (j < km->cap) {
		void *v = km->tab[j].val;

		if (v && (!keep || !keep(v, arg))) {
			remove_at(km, j);
			drop(v, arg);
			n++;
			continue;	/* j may hold a moved entry now */
		}
		j++;
	}
	return n;
}

void rina_keymap_free(struct rina_keymap *km,
		      void (*drop)(void *val, void *arg), void *arg)
{
	__u32 j;

	if (!km->tab)
		return;
	for (j = 0; j < km->cap; j++)
		if (km->tab[j].val && drop)
			drop(km->tab[j].val, arg);
	km->mem->free(km->mem->ctx, km->tab);
	km->tab = NULL;
	km->cap = km->used = 0;
}
