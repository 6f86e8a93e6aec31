// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * SlotTag (p4/slot_tag.p4): find the slot of a contribution, read its
 * tag, bitmap and state registers, and classify the packet with the
 * shared core/slot.h rules (fresh, add, duplicate, duplicate of a done
 * slot, stale, collision); a fresh packet re-initialises the slot.
 * SlotTag.update (after the adders) counts the contributor in, marks
 * the slot done when the bitmap reaches the expected mask, and keeps the
 * packet's CE mark (rina_slot_mark(): a contribution's, the upstream
 * partial's).
 *
 * Register index: set * RINA_TOR_POOL_SIZE + pool_base + (slot & (W-1)),
 * set = (slot & W) != 0.
 */
#include "rina_tor_model.h"

static void slot_read(const struct rina_tor *sw, __u32 i, struct rina_slot *s)
{
	s->epoch = sw->slot_epoch[i];
	s->round = sw->slot_round[i];
	s->seq = sw->slot_seq[i];
	s->id = sw->slot_id[i];
	s->bitmap = sw->slot_bitmap[i];
	s->state = sw->slot_state[i];
	s->exp = (__s8)sw->slot_exp[i];
	s->ncontrib = sw->slot_ncontrib[i];
	s->pad = 0;
}

static void slot_write(struct rina_tor *sw, __u32 i, const struct rina_slot *s)
{
	sw->slot_epoch[i] = s->epoch;
	sw->slot_round[i] = s->round;
	sw->slot_seq[i] = s->seq;
	sw->slot_id[i] = s->id;
	sw->slot_bitmap[i] = s->bitmap;
	sw->slot_state[i] = s->state;
	sw->slot_exp[i] = (__u8)s->exp;
	sw->slot_ncontrib[i] = s->ncontrib;
}

void tor_slot_tag(struct rina_tor *sw, struct tor_headers *hdr,
		  struct tor_meta *meta)
{
	struct rina_slot_key k = {
		.epoch = meta->job.epoch,
		.round = hdr->rina.round,
		.seq = hdr->rina.seq,
		.id = hdr->rina.slot,
	};
	__u32 W = meta->job.win;

	meta->reg_idx = rina_slot_set(hdr->rina.slot, W) * RINA_TOR_POOL_SIZE +
			meta->job.pool_base + rina_slot_idx(hdr->rina.slot, W);
	slot_read(sw, meta->reg_idx, &meta->slot);
	meta->verdict = (__u8)rina_slot_classify(&meta->slot, &k, meta->bit);
	if (meta->verdict == RINA_SLOT_FRESH)
		rina_slot_claim(&meta->slot, &k);
	if (meta->verdict != RINA_SLOT_FRESH && meta->verdict != RINA_SLOT_ADD)
		return;
	meta->done_now = (__u8)rina_slot_join(&meta->slot, meta->bit,
					      hdr->rina.exp,
					      hdr->rina.num_contrib, 0,
					      meta->exp_mask);
	rina_slot_mark(&meta->slot, tor_in_ecn(hdr),
		       (hdr->rina.ver_op & 0xf) == RINA_OP_SR_PARTIAL);
	slot_write(sw, meta->reg_idx, &meta->slot);
}
