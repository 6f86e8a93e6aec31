// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Adders (p4/adders.p4): RINA_TOR_ELEMS int32 adders over register
 * slot_val[reg_idx * E + j]. The first contribution of a fresh slot is
 * stored, later ones are added (SUM, wrap-around flagged, never silent)
 * or maxed (MAX); the running value is written back into the packet, so
 * at completion the packet carries the result. A duplicate of a done
 * slot reads the stored result for re-emission without changing it.
 * Register slot_ovf[reg_idx] keeps whether any add of the occupant (or
 * an input flagged OVERFLOW) wrapped; meta.overflow carries it on.
 * The arithmetic is core/agg.h's.
 */
#include "rina_tor_model.h"
#include "agg.h"

void tor_adders(struct rina_tor *sw, struct tor_headers *hdr,
		struct tor_meta *meta)
{
	__u32 *val = &sw->slot_val[meta->reg_idx * RINA_TOR_ELEMS];
	__be32 in[RINA_TOR_ELEMS];
	__u32 j, n = hdr->n_elems;

	if (meta->verdict == RINA_SLOT_ADD)
		meta->overflow |= sw->slot_ovf[meta->reg_idx];
	else if (meta->verdict == RINA_SLOT_DUP_DONE)
		meta->overflow = sw->slot_ovf[meta->reg_idx];
	switch (meta->verdict) {
	case RINA_SLOT_FRESH:
	case RINA_SLOT_ADD:
		for (j = 0; j < n; j++)
			in[j] = rina_htonl(hdr->elems[j]);
		if (meta->verdict == RINA_SLOT_FRESH) {
			for (j = 0; j < RINA_TOR_ELEMS; j++)
				val[j] = 0;
			rina_agg_load_be((__s32 *)val, in, n);
		} else if (RINA_OP_OF(hdr->rina.dtype_op) == RINA_WIRE_MAX) {
			rina_agg_max_be((__s32 *)val, in, n);
		} else {
			if (rina_agg_add_be((__s32 *)val, in, n))
				meta->overflow = 1;
		}
		sw->slot_ovf[meta->reg_idx] = meta->overflow;
		break;
	case RINA_SLOT_DUP_DONE:
		break;
	default:
		return;
	}
	for (j = 0; j < n; j++)
		hdr->elems[j] = val[j];
}
