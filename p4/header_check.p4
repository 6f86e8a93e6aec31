/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * HeaderCheck (model: p4/model/header_check.c): core/wire.h
 * rina_hdr_check() written out test by test, in its order, on the UDP
 * payload length, then the agreement of the frame, IPv4 and UDP lengths.
 * meta.parse_err gets the first failing verdict (RINA_PARSE_*).
 */
#ifndef _RINA_HEADER_CHECK_P4_
#define _RINA_HEADER_CHECK_P4_

control HeaderCheck(in headers_t hdr, inout metadata_t meta,
		    in standard_metadata_t sm)
{
	apply {
		bit<16> plen = 0;
		bit<16> trailer = 0;
		bit<8> op = hdr.rina.ver_op & 0x0f;
		bit<8> err = RINA_PARSE_OK;

		if (hdr.udp.length >= 8)
			plen = hdr.udp.length - 8;
		/* rsvd RINA_X_TAG: the job's data tag follows the payload;
		 * RINA_X_MAC: a host-to-host hop's MAC, as long */
		if (hdr.rina.isValid() && (hdr.rina.rsvd == RINA_X_TAG ||
					   hdr.rina.rsvd == RINA_X_MAC))
			trailer = RINA_TAG_LEN;
		if (!hdr.rina.isValid() || plen < RINA_HDR_LEN) {
			err = RINA_PARSE_RUNT;
		} else if ((hdr.rina.ver_op >> 4) != RINA_VERSION) {
			err = RINA_PARSE_BAD_VERSION;
		} else if (op < RINA_OP_SR_CONTRIB || op > RINA_OP_CTRL) {
			err = RINA_PARSE_BAD_OPCODE;
		} else if (hdr.rina.n_elem > RINA_MAX_ELEMS) {
			err = RINA_PARSE_OVERSIZE;
		} else if (plen != RINA_HDR_LEN + (hdr.rina.n_elem << 2) +
			   trailer) {
			err = RINA_PARSE_BAD_LENGTH;
		} else if (hdr.rina.rsvd != 0 &&
			   (trailer == 0 || op == RINA_OP_CTRL)) {
			err = RINA_PARSE_BAD_FIELD;
		} else if (op <= RINA_OP_AG_DATA) {
			if ((hdr.rina.dtype_op >> 4) > RINA_WIRE_INT32 ||
			    (hdr.rina.dtype_op & 0x0f) > RINA_WIRE_MAX)
				err = RINA_PARSE_BAD_DTYPE;
			else if (hdr.rina.n_elem == 0)
				err = RINA_PARSE_BAD_LENGTH;
		} else if (op == RINA_OP_CTRL) {
			if (hdr.rina.n_elem != RINA_CTRL_WORDS &&
			    hdr.rina.n_elem != RINA_CTRL_AUTH_WORDS)
				err = RINA_PARSE_BAD_LENGTH;	/* plain, signed */
		} else if (hdr.rina.n_elem == 0) {
			err = RINA_PARSE_BAD_LENGTH;	/* ACK, NACK */
		}
		/* the frame carries exactly what IPv4 and UDP say */
		if (err == RINA_PARSE_OK &&
		    ((bit<32>)plen != sm.packet_length - 42 ||
		     hdr.ipv4.total_len != 20 + hdr.udp.length))
			err = RINA_PARSE_BAD_LENGTH;
		meta.parse_err = err;
	}
}

#endif
