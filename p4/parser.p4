/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * RinaParser, checksums and RinaDeparser (model: p4/model/parser.c).
 * Ethernet, IPv4 without options and not a fragment, UDP; on a Rina
 * destination port (0x5240..0x524f) the Rina header and, for a data
 * opcode, ACK or NACK with 1..RINA_TOR_ELEMS elements, the payload words
 * (seqs for ACK and NACK) and, with rsvd RINA_X_TAG, the data tag. Anything
 * else is accepted as far as it parsed and switched as plain L2 traffic.
 * Validation of the Rina header is HeaderCheck's job, not the parser's.
 */
#ifndef _RINA_PARSER_P4_
#define _RINA_PARSER_P4_

parser RinaParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
		  inout standard_metadata_t sm)
{
	state start {
		pkt.extract(hdr.ethernet);
		transition select(hdr.ethernet.ether_type) {
			0x0800: parse_ipv4;
			default: accept;
		}
	}

	state parse_ipv4 {
		pkt.extract(hdr.ipv4);
		transition select(hdr.ipv4.ver_ihl, hdr.ipv4.protocol,
				  hdr.ipv4.flags_frag & 0x3fff) {
			(0x45, 17, 0): parse_udp;
			default: accept;
		}
	}

	state parse_udp {
		pkt.extract(hdr.udp);
		transition select(hdr.udp.dst_port & RINA_UDP_PORT_MASK) {
			RINA_UDP_PORT_MIN: parse_rina;
			default: accept;
		}
	}

	state parse_rina {
		meta.is_rina = 1;
		pkt.extract(hdr.rina);
		meta.elems_left = hdr.rina.n_elem;
		transition select(hdr.rina.ver_op, hdr.rina.n_elem) {
			(0x11, 1 .. RINA_TOR_ELEMS): parse_elems;
			(0x12, 1 .. RINA_TOR_ELEMS): parse_elems;
			(0x13, 1 .. RINA_TOR_ELEMS): parse_elems;
			(0x14, 1 .. RINA_TOR_ELEMS): parse_elems;
			(0x15, 1 .. RINA_TOR_ELEMS): parse_elems;
			default: accept;
		}
	}

	state parse_elems {
		pkt.extract(hdr.elems.next);
		meta.elems_left = meta.elems_left - 1;
		transition select(meta.elems_left, hdr.rina.rsvd) {
			(0, RINA_X_TAG): parse_tag;
			(0, _): accept;
			default: parse_elems;
		}
	}

	/* the data tag: right after the elements (HeaderCheck: nothing else
	 * follows them), so only where they were all parsed */
	state parse_tag {
		pkt.extract(hdr.tag);
		transition accept;
	}
}

control RinaVerifyChecksum(inout headers_t hdr, inout metadata_t meta)
{
	apply { }	/* forwarded traffic is left as it came */
}

control RinaComputeChecksum(inout headers_t hdr, inout metadata_t meta)
{
	apply {
		update_checksum(hdr.ipv4.isValid() && meta.csum_update == 1,
			{ hdr.ipv4.ver_ihl, hdr.ipv4.diffserv,
			  hdr.ipv4.total_len, hdr.ipv4.identification,
			  hdr.ipv4.flags_frag, hdr.ipv4.ttl,
			  hdr.ipv4.protocol, hdr.ipv4.src_addr,
			  hdr.ipv4.dst_addr },
			hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
	}
}

control RinaDeparser(packet_out pkt, in headers_t hdr)
{
	apply {
		pkt.emit(hdr.ethernet);
		pkt.emit(hdr.ipv4);
		pkt.emit(hdr.udp);
		pkt.emit(hdr.rina);
		pkt.emit(hdr.elems);
		pkt.emit(hdr.tag);
	}
}

#endif
