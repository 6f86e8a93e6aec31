// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * TagCheck (p4/tag_check.p4): is a packet of an installed job the job's?
 * core/ctrl_auth.c rina_tag_open() on the parsed headers: a tagged job's
 * data, ACK and NACK carry its tag (rsvd RINA_X_TAG, the tag parsed after
 * the elements, equal to set_job's); an untagged job's carry no trailer.
 * Anything else (X_MAC, a tag past the RINA_TOR_ELEMS words parsed) is
 * meta.bad_tag. CTRL is signed instead and passes.
 */
#include "rina_tor_model.h"

void tor_tag_check(struct tor_headers *hdr, struct tor_meta *meta)
{
	meta->bad_tag = 0;
	if ((hdr->rina.ver_op & 0xf) == RINA_OP_CTRL)
		return;
	if (meta->job.tagged)
		meta->bad_tag = hdr->rina.rsvd != RINA_X_TAG ||
				!hdr->tag_valid || hdr->tag != meta->job.tag;
	else
		meta->bad_tag = hdr->rina.rsvd != 0;
}
