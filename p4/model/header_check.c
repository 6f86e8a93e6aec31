// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HeaderCheck (p4/header_check.p4): the one Rina header validation,
 * core/wire.h rina_hdr_check(), applied to the UDP payload, plus the
 * IPv4/UDP/frame length agreement. The verdict lands in meta.parse_err
 * and is counted in tor_ctr[verdict]; the ingress drops on any error.
 */
#include "rina_tor_model.h"

void tor_header_check(struct rina_tor *sw, struct tor_headers *hdr,
		      struct tor_meta *meta, unsigned int frame_len)
{
	unsigned int avail, plen;
	enum rina_parse_err err;

	(void)sw;
	avail = frame_len - RINA_TOR_RINA_OFF;
	plen = hdr->udp.length >= 8 ? hdr->udp.length - 8u : 0;
	if (!hdr->rina_valid) {
		err = RINA_PARSE_RUNT;
	} else {
		err = rina_hdr_check((const struct rina_hdr *)hdr->rina_raw,
				     plen);
		if (err == RINA_PARSE_OK &&
		    (plen != avail ||
		     hdr->ipv4.total_len != 20u + hdr->udp.length))
			err = RINA_PARSE_BAD_LENGTH;
	}
	meta->parse_err = (__u8)err;
}
