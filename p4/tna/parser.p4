/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Parsers and deparsers of the TNA Rina ToR: ../parser.p4's states on
 * Tofino. Ingress: Ethernet, IPv4 without options and not a fragment,
 * UDP; on a Rina port the Rina header and, for a data opcode, ACK or
 * NACK with 1..RINA_TNA_PARSE_WORDS words, the words and (rsvd
 * RINA_X_TAG) the data tag; anything else is accepted as far as it
 * parsed. Egress reads the bridged header, then the headers it rewrites:
 * the words only where an ACK is cut from the packet (bridge.words).
 */
#ifndef _RINA_TNA_PARSER_P4_
#define _RINA_TNA_PARSER_P4_

parser RinaIngressParser(packet_in pkt, out headers_t hdr,
			 out metadata_t meta,
			 out ingress_intrinsic_metadata_t ig_md)
{
	state start {
		pkt.extract(ig_md);
		pkt.advance(PORT_METADATA_SIZE);
		meta.is_rina = 0;
		transition select(ig_md.ingress_port) {
			RINA_TNA_RECIRC_PORT: parse_recirc;
			default: parse_ethernet;
		}
	}

	/* a contribution's second pass: what the first pass found; the
	 * job's fields where the tail of the pass reads them (an action
	 * copying them would need a source each) */
	state parse_recirc {
		pkt.extract(hdr.recirc);
		meta.j_mgrp = hdr.recirc.mgrp;
		meta.j_job_idx = hdr.recirc.job_idx;
		meta.j_tagged = hdr.recirc.tagged;
		meta.one_bit = hdr.recirc.one_bit;
		meta.in_port = hdr.recirc.ingress_port;
		transition parse_ethernet;
	}

	state parse_ethernet {
		pkt.extract(hdr.ethernet);
		transition select(hdr.ethernet.ether_type) {
			0x0800: parse_ipv4;
			default: accept;
		}
	}

	state parse_ipv4 {
		pkt.extract(hdr.ipv4);
		transition select(hdr.ipv4.ver_ihl, hdr.ipv4.protocol,
				  hdr.ipv4.flags_frag[13:0]) {
			(0x45, 17, 0): parse_udp;
			default: accept;
		}
	}

	state parse_udp {
		pkt.extract(hdr.udp);
		transition select(hdr.udp.dst_port[15:4]) {
			RINA_UDP_PORT_MIN >> 4: parse_rina;
			default: accept;
		}
	}

	state parse_rina {
		meta.is_rina = 1;
		pkt.extract(hdr.rina);
		transition select(hdr.rina.ver_op, hdr.rina.n_elem) {
			(0x11, 1 .. RINA_TNA_PARSE_WORDS): word_0;
			(0x12, 1 .. RINA_TNA_PARSE_WORDS): word_0;
			(0x13, 1 .. RINA_TNA_PARSE_WORDS): word_0;
			(0x14, 1 .. RINA_TNA_PARSE_WORDS): word_0;
			(0x15, 1 .. RINA_TNA_PARSE_WORDS): word_0;
			default: accept;
		}
	}

	/* word_J: word J, then the tag (rsvd RINA_X_TAG) after the last */
	RINA_TNA_WORD_STATES

	state parse_tag {
		pkt.extract(hdr.tag);
		transition accept;
	}
}

control RinaIngressDeparser(packet_out pkt, inout headers_t hdr,
			    in metadata_t meta,
			    in ingress_intrinsic_metadata_for_deparser_t dp)
{
	apply {
		pkt.emit(hdr.bridge);
		pkt.emit(hdr.recirc);
		pkt.emit(hdr.ethernet);
		pkt.emit(hdr.ipv4);
		pkt.emit(hdr.udp);
		pkt.emit(hdr.rina);
		pkt.emit(hdr.elems);
		pkt.emit(hdr.tag);
	}
}

parser RinaEgressParser(packet_in pkt, out headers_t hdr,
			out egress_metadata_t emeta,
			out egress_intrinsic_metadata_t eg_md)
{
	state start {
		pkt.extract(eg_md);
		pkt.extract(hdr.bridge);
		transition select(hdr.bridge.md.emit) {
			0: accept;
			default: parse_ethernet;
		}
	}

	/* only what the ingress emitted as the job's: IPv4, UDP, Rina */
	state parse_ethernet {
		pkt.extract(hdr.ethernet);
		pkt.extract(hdr.ipv4);
		pkt.extract(hdr.udp);
		pkt.extract(hdr.rina);
		transition select(hdr.bridge.md.words, hdr.rina.n_elem) {
			(1, 1 .. RINA_TNA_ELEMS): word_0;
			default: accept;
		}
	}

	RINA_TNA_WORD_STATES

	state parse_tag {
		pkt.extract(hdr.tag);
		transition accept;
	}
}

control RinaEgressDeparser(packet_out pkt, inout headers_t hdr,
			   in egress_metadata_t emeta,
			   in egress_intrinsic_metadata_for_deparser_t dp)
{
	Checksum() ipv4_csum;

	apply {
		if (emeta.csum == 1) {
			hdr.ipv4.hdr_checksum = ipv4_csum.update({
				hdr.ipv4.ver_ihl, hdr.ipv4.diffserv,
				hdr.ipv4.total_len, hdr.ipv4.identification,
				hdr.ipv4.flags_frag, hdr.ipv4.ttl,
				hdr.ipv4.protocol, hdr.ipv4.src_addr,
				hdr.ipv4.dst_addr });
		}
		pkt.emit(hdr.ethernet);
		pkt.emit(hdr.ipv4);
		pkt.emit(hdr.udp);
		pkt.emit(hdr.rina);
		pkt.emit(hdr.elems);
		pkt.emit(hdr.tag);
	}
}

#endif
