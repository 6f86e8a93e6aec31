/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * TagCheck (model: p4/model/tag_check.c): is a packet of an installed job
 * the job's? core/ctrl_auth.c rina_tag_open() on what the parser holds.
 * A tagged job's data, ACK and NACK must carry its tag (rsvd RINA_X_TAG,
 * the tag header parsed, equal to the set_job tag); an untagged job's
 * none (rsvd 0: hosts drop a trailer they do not expect). Anything else,
 * X_MAC included (a host-to-host hop's MAC, never on a hop through the
 * ToR), or a tag beyond the RINA_TOR_ELEMS words the parser reads, is
 * meta.bad_tag: dropped, counted bad_tag. CTRL carries no tag (it is
 * signed; the agent checks it) and passes.
 */
#ifndef _RINA_TAG_CHECK_P4_
#define _RINA_TAG_CHECK_P4_

control TagCheck(in headers_t hdr, inout metadata_t meta)
{
	apply {
		meta.bad_tag = 0;
		if ((hdr.rina.ver_op & 0x0f) != RINA_OP_CTRL) {
			if (meta.j_tagged == 1) {
				if (hdr.rina.rsvd != RINA_X_TAG ||
				    !hdr.tag.isValid() ||
				    hdr.tag.tag != meta.j_tag)
					meta.bad_tag = 1;
			} else if (hdr.rina.rsvd != 0) {
				meta.bad_tag = 1;
			}
		}
	}
}

#endif
