/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Parser states word_0 .. word_(RINA_TNA_PARSE_WORDS - 1) for parser.p4:
 * word_J extracts payload word J; after the packet's last word the data
 * tag (rsvd RINA_X_TAG) or accept. A chain of states rather than a
 * ParserCounter loop: Tofino's egress parser needs its counter to
 * enforce the minimum parse depth.
 */
#ifndef _RINA_TNA_WORDS_P4_
#define _RINA_TNA_WORDS_P4_

#if RINA_TNA_PARSE_WORDS > 0
#define WORD_0							\
	state word_0 {						\
		pkt.extract(hdr.elems[0]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(1, RINA_X_TAG): parse_tag;			\
			(1, _): accept;				\
			default: WORD_NEXT_0;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 1
#define WORD_NEXT_0	word_1
#else
#define WORD_NEXT_0	accept
#define RINA_TNA_WORD_STATES	WORD_0
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 1
#define WORD_1	WORD_0						\
	state word_1 {						\
		pkt.extract(hdr.elems[1]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(2, RINA_X_TAG): parse_tag;			\
			(2, _): accept;				\
			default: WORD_NEXT_1;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 2
#define WORD_NEXT_1	word_2
#else
#define WORD_NEXT_1	accept
#define RINA_TNA_WORD_STATES	WORD_1
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 2
#define WORD_2	WORD_1						\
	state word_2 {						\
		pkt.extract(hdr.elems[2]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(3, RINA_X_TAG): parse_tag;			\
			(3, _): accept;				\
			default: WORD_NEXT_2;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 3
#define WORD_NEXT_2	word_3
#else
#define WORD_NEXT_2	accept
#define RINA_TNA_WORD_STATES	WORD_2
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 3
#define WORD_3	WORD_2						\
	state word_3 {						\
		pkt.extract(hdr.elems[3]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(4, RINA_X_TAG): parse_tag;			\
			(4, _): accept;				\
			default: WORD_NEXT_3;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 4
#define WORD_NEXT_3	word_4
#else
#define WORD_NEXT_3	accept
#define RINA_TNA_WORD_STATES	WORD_3
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 4
#define WORD_4	WORD_3						\
	state word_4 {						\
		pkt.extract(hdr.elems[4]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(5, RINA_X_TAG): parse_tag;			\
			(5, _): accept;				\
			default: WORD_NEXT_4;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 5
#define WORD_NEXT_4	word_5
#else
#define WORD_NEXT_4	accept
#define RINA_TNA_WORD_STATES	WORD_4
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 5
#define WORD_5	WORD_4						\
	state word_5 {						\
		pkt.extract(hdr.elems[5]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(6, RINA_X_TAG): parse_tag;			\
			(6, _): accept;				\
			default: WORD_NEXT_5;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 6
#define WORD_NEXT_5	word_6
#else
#define WORD_NEXT_5	accept
#define RINA_TNA_WORD_STATES	WORD_5
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 6
#define WORD_6	WORD_5						\
	state word_6 {						\
		pkt.extract(hdr.elems[6]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(7, RINA_X_TAG): parse_tag;			\
			(7, _): accept;				\
			default: WORD_NEXT_6;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 7
#define WORD_NEXT_6	word_7
#else
#define WORD_NEXT_6	accept
#define RINA_TNA_WORD_STATES	WORD_6
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 7
#define WORD_7	WORD_6						\
	state word_7 {						\
		pkt.extract(hdr.elems[7]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(8, RINA_X_TAG): parse_tag;			\
			(8, _): accept;				\
			default: WORD_NEXT_7;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 8
#define WORD_NEXT_7	word_8
#else
#define WORD_NEXT_7	accept
#define RINA_TNA_WORD_STATES	WORD_7
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 8
#define WORD_8	WORD_7						\
	state word_8 {						\
		pkt.extract(hdr.elems[8]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(9, RINA_X_TAG): parse_tag;			\
			(9, _): accept;				\
			default: WORD_NEXT_8;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 9
#define WORD_NEXT_8	word_9
#else
#define WORD_NEXT_8	accept
#define RINA_TNA_WORD_STATES	WORD_8
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 9
#define WORD_9	WORD_8						\
	state word_9 {						\
		pkt.extract(hdr.elems[9]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(10, RINA_X_TAG): parse_tag;			\
			(10, _): accept;				\
			default: WORD_NEXT_9;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 10
#define WORD_NEXT_9	word_10
#else
#define WORD_NEXT_9	accept
#define RINA_TNA_WORD_STATES	WORD_9
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 10
#define WORD_10	WORD_9						\
	state word_10 {						\
		pkt.extract(hdr.elems[10]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(11, RINA_X_TAG): parse_tag;			\
			(11, _): accept;				\
			default: WORD_NEXT_10;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 11
#define WORD_NEXT_10	word_11
#else
#define WORD_NEXT_10	accept
#define RINA_TNA_WORD_STATES	WORD_10
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 11
#define WORD_11	WORD_10						\
	state word_11 {						\
		pkt.extract(hdr.elems[11]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(12, RINA_X_TAG): parse_tag;			\
			(12, _): accept;				\
			default: WORD_NEXT_11;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 12
#define WORD_NEXT_11	word_12
#else
#define WORD_NEXT_11	accept
#define RINA_TNA_WORD_STATES	WORD_11
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 12
#define WORD_12	WORD_11						\
	state word_12 {						\
		pkt.extract(hdr.elems[12]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(13, RINA_X_TAG): parse_tag;			\
			(13, _): accept;				\
			default: WORD_NEXT_12;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 13
#define WORD_NEXT_12	word_13
#else
#define WORD_NEXT_12	accept
#define RINA_TNA_WORD_STATES	WORD_12
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 13
#define WORD_13	WORD_12						\
	state word_13 {						\
		pkt.extract(hdr.elems[13]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(14, RINA_X_TAG): parse_tag;			\
			(14, _): accept;				\
			default: WORD_NEXT_13;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 14
#define WORD_NEXT_13	word_14
#else
#define WORD_NEXT_13	accept
#define RINA_TNA_WORD_STATES	WORD_13
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 14
#define WORD_14	WORD_13						\
	state word_14 {						\
		pkt.extract(hdr.elems[14]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(15, RINA_X_TAG): parse_tag;			\
			(15, _): accept;				\
			default: WORD_NEXT_14;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 15
#define WORD_NEXT_14	word_15
#else
#define WORD_NEXT_14	accept
#define RINA_TNA_WORD_STATES	WORD_14
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 15
#define WORD_15	WORD_14						\
	state word_15 {						\
		pkt.extract(hdr.elems[15]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(16, RINA_X_TAG): parse_tag;			\
			(16, _): accept;				\
			default: WORD_NEXT_15;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 16
#define WORD_NEXT_15	word_16
#else
#define WORD_NEXT_15	accept
#define RINA_TNA_WORD_STATES	WORD_15
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 16
#define WORD_16	WORD_15						\
	state word_16 {						\
		pkt.extract(hdr.elems[16]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(17, RINA_X_TAG): parse_tag;			\
			(17, _): accept;				\
			default: WORD_NEXT_16;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 17
#define WORD_NEXT_16	word_17
#else
#define WORD_NEXT_16	accept
#define RINA_TNA_WORD_STATES	WORD_16
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 17
#define WORD_17	WORD_16						\
	state word_17 {						\
		pkt.extract(hdr.elems[17]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(18, RINA_X_TAG): parse_tag;			\
			(18, _): accept;				\
			default: WORD_NEXT_17;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 18
#define WORD_NEXT_17	word_18
#else
#define WORD_NEXT_17	accept
#define RINA_TNA_WORD_STATES	WORD_17
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 18
#define WORD_18	WORD_17						\
	state word_18 {						\
		pkt.extract(hdr.elems[18]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(19, RINA_X_TAG): parse_tag;			\
			(19, _): accept;				\
			default: WORD_NEXT_18;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 19
#define WORD_NEXT_18	word_19
#else
#define WORD_NEXT_18	accept
#define RINA_TNA_WORD_STATES	WORD_18
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 19
#define WORD_19	WORD_18						\
	state word_19 {						\
		pkt.extract(hdr.elems[19]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(20, RINA_X_TAG): parse_tag;			\
			(20, _): accept;				\
			default: WORD_NEXT_19;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 20
#define WORD_NEXT_19	word_20
#else
#define WORD_NEXT_19	accept
#define RINA_TNA_WORD_STATES	WORD_19
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 20
#define WORD_20	WORD_19						\
	state word_20 {						\
		pkt.extract(hdr.elems[20]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(21, RINA_X_TAG): parse_tag;			\
			(21, _): accept;				\
			default: WORD_NEXT_20;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 21
#define WORD_NEXT_20	word_21
#else
#define WORD_NEXT_20	accept
#define RINA_TNA_WORD_STATES	WORD_20
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 21
#define WORD_21	WORD_20						\
	state word_21 {						\
		pkt.extract(hdr.elems[21]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(22, RINA_X_TAG): parse_tag;			\
			(22, _): accept;				\
			default: WORD_NEXT_21;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 22
#define WORD_NEXT_21	word_22
#else
#define WORD_NEXT_21	accept
#define RINA_TNA_WORD_STATES	WORD_21
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 22
#define WORD_22	WORD_21						\
	state word_22 {						\
		pkt.extract(hdr.elems[22]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(23, RINA_X_TAG): parse_tag;			\
			(23, _): accept;				\
			default: WORD_NEXT_22;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 23
#define WORD_NEXT_22	word_23
#else
#define WORD_NEXT_22	accept
#define RINA_TNA_WORD_STATES	WORD_22
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 23
#define WORD_23	WORD_22						\
	state word_23 {						\
		pkt.extract(hdr.elems[23]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(24, RINA_X_TAG): parse_tag;			\
			(24, _): accept;				\
			default: WORD_NEXT_23;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 24
#define WORD_NEXT_23	word_24
#else
#define WORD_NEXT_23	accept
#define RINA_TNA_WORD_STATES	WORD_23
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 24
#define WORD_24	WORD_23						\
	state word_24 {						\
		pkt.extract(hdr.elems[24]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(25, RINA_X_TAG): parse_tag;			\
			(25, _): accept;				\
			default: WORD_NEXT_24;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 25
#define WORD_NEXT_24	word_25
#else
#define WORD_NEXT_24	accept
#define RINA_TNA_WORD_STATES	WORD_24
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 25
#define WORD_25	WORD_24						\
	state word_25 {						\
		pkt.extract(hdr.elems[25]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(26, RINA_X_TAG): parse_tag;			\
			(26, _): accept;				\
			default: WORD_NEXT_25;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 26
#define WORD_NEXT_25	word_26
#else
#define WORD_NEXT_25	accept
#define RINA_TNA_WORD_STATES	WORD_25
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 26
#define WORD_26	WORD_25						\
	state word_26 {						\
		pkt.extract(hdr.elems[26]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(27, RINA_X_TAG): parse_tag;			\
			(27, _): accept;				\
			default: WORD_NEXT_26;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 27
#define WORD_NEXT_26	word_27
#else
#define WORD_NEXT_26	accept
#define RINA_TNA_WORD_STATES	WORD_26
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 27
#define WORD_27	WORD_26						\
	state word_27 {						\
		pkt.extract(hdr.elems[27]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(28, RINA_X_TAG): parse_tag;			\
			(28, _): accept;				\
			default: WORD_NEXT_27;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 28
#define WORD_NEXT_27	word_28
#else
#define WORD_NEXT_27	accept
#define RINA_TNA_WORD_STATES	WORD_27
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 28
#define WORD_28	WORD_27						\
	state word_28 {						\
		pkt.extract(hdr.elems[28]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(29, RINA_X_TAG): parse_tag;			\
			(29, _): accept;				\
			default: WORD_NEXT_28;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 29
#define WORD_NEXT_28	word_29
#else
#define WORD_NEXT_28	accept
#define RINA_TNA_WORD_STATES	WORD_28
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 29
#define WORD_29	WORD_28						\
	state word_29 {						\
		pkt.extract(hdr.elems[29]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(30, RINA_X_TAG): parse_tag;			\
			(30, _): accept;				\
			default: WORD_NEXT_29;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 30
#define WORD_NEXT_29	word_30
#else
#define WORD_NEXT_29	accept
#define RINA_TNA_WORD_STATES	WORD_29
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 30
#define WORD_30	WORD_29						\
	state word_30 {						\
		pkt.extract(hdr.elems[30]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(31, RINA_X_TAG): parse_tag;			\
			(31, _): accept;				\
			default: WORD_NEXT_30;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 31
#define WORD_NEXT_30	word_31
#else
#define WORD_NEXT_30	accept
#define RINA_TNA_WORD_STATES	WORD_30
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 31
#define WORD_31	WORD_30						\
	state word_31 {						\
		pkt.extract(hdr.elems[31]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(32, RINA_X_TAG): parse_tag;			\
			(32, _): accept;				\
			default: WORD_NEXT_31;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 32
#define WORD_NEXT_31	word_32
#else
#define WORD_NEXT_31	accept
#define RINA_TNA_WORD_STATES	WORD_31
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 32
#define WORD_32	WORD_31						\
	state word_32 {						\
		pkt.extract(hdr.elems[32]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(33, RINA_X_TAG): parse_tag;			\
			(33, _): accept;				\
			default: WORD_NEXT_32;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 33
#define WORD_NEXT_32	word_33
#else
#define WORD_NEXT_32	accept
#define RINA_TNA_WORD_STATES	WORD_32
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 33
#define WORD_33	WORD_32						\
	state word_33 {						\
		pkt.extract(hdr.elems[33]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(34, RINA_X_TAG): parse_tag;			\
			(34, _): accept;				\
			default: WORD_NEXT_33;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 34
#define WORD_NEXT_33	word_34
#else
#define WORD_NEXT_33	accept
#define RINA_TNA_WORD_STATES	WORD_33
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 34
#define WORD_34	WORD_33						\
	state word_34 {						\
		pkt.extract(hdr.elems[34]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(35, RINA_X_TAG): parse_tag;			\
			(35, _): accept;				\
			default: WORD_NEXT_34;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 35
#define WORD_NEXT_34	word_35
#else
#define WORD_NEXT_34	accept
#define RINA_TNA_WORD_STATES	WORD_34
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 35
#define WORD_35	WORD_34						\
	state word_35 {						\
		pkt.extract(hdr.elems[35]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(36, RINA_X_TAG): parse_tag;			\
			(36, _): accept;				\
			default: WORD_NEXT_35;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 36
#define WORD_NEXT_35	word_36
#else
#define WORD_NEXT_35	accept
#define RINA_TNA_WORD_STATES	WORD_35
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 36
#define WORD_36	WORD_35						\
	state word_36 {						\
		pkt.extract(hdr.elems[36]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(37, RINA_X_TAG): parse_tag;			\
			(37, _): accept;				\
			default: WORD_NEXT_36;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 37
#define WORD_NEXT_36	word_37
#else
#define WORD_NEXT_36	accept
#define RINA_TNA_WORD_STATES	WORD_36
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 37
#define WORD_37	WORD_36						\
	state word_37 {						\
		pkt.extract(hdr.elems[37]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(38, RINA_X_TAG): parse_tag;			\
			(38, _): accept;				\
			default: WORD_NEXT_37;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 38
#define WORD_NEXT_37	word_38
#else
#define WORD_NEXT_37	accept
#define RINA_TNA_WORD_STATES	WORD_37
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 38
#define WORD_38	WORD_37						\
	state word_38 {						\
		pkt.extract(hdr.elems[38]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(39, RINA_X_TAG): parse_tag;			\
			(39, _): accept;				\
			default: WORD_NEXT_38;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 39
#define WORD_NEXT_38	word_39
#else
#define WORD_NEXT_38	accept
#define RINA_TNA_WORD_STATES	WORD_38
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 39
#define WORD_39	WORD_38						\
	state word_39 {						\
		pkt.extract(hdr.elems[39]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(40, RINA_X_TAG): parse_tag;			\
			(40, _): accept;				\
			default: WORD_NEXT_39;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 40
#define WORD_NEXT_39	word_40
#else
#define WORD_NEXT_39	accept
#define RINA_TNA_WORD_STATES	WORD_39
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 40
#define WORD_40	WORD_39						\
	state word_40 {						\
		pkt.extract(hdr.elems[40]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(41, RINA_X_TAG): parse_tag;			\
			(41, _): accept;				\
			default: WORD_NEXT_40;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 41
#define WORD_NEXT_40	word_41
#else
#define WORD_NEXT_40	accept
#define RINA_TNA_WORD_STATES	WORD_40
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 41
#define WORD_41	WORD_40						\
	state word_41 {						\
		pkt.extract(hdr.elems[41]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(42, RINA_X_TAG): parse_tag;			\
			(42, _): accept;				\
			default: WORD_NEXT_41;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 42
#define WORD_NEXT_41	word_42
#else
#define WORD_NEXT_41	accept
#define RINA_TNA_WORD_STATES	WORD_41
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 42
#define WORD_42	WORD_41						\
	state word_42 {						\
		pkt.extract(hdr.elems[42]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(43, RINA_X_TAG): parse_tag;			\
			(43, _): accept;				\
			default: WORD_NEXT_42;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 43
#define WORD_NEXT_42	word_43
#else
#define WORD_NEXT_42	accept
#define RINA_TNA_WORD_STATES	WORD_42
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 43
#define WORD_43	WORD_42						\
	state word_43 {						\
		pkt.extract(hdr.elems[43]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(44, RINA_X_TAG): parse_tag;			\
			(44, _): accept;				\
			default: WORD_NEXT_43;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 44
#define WORD_NEXT_43	word_44
#else
#define WORD_NEXT_43	accept
#define RINA_TNA_WORD_STATES	WORD_43
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 44
#define WORD_44	WORD_43						\
	state word_44 {						\
		pkt.extract(hdr.elems[44]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(45, RINA_X_TAG): parse_tag;			\
			(45, _): accept;				\
			default: WORD_NEXT_44;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 45
#define WORD_NEXT_44	word_45
#else
#define WORD_NEXT_44	accept
#define RINA_TNA_WORD_STATES	WORD_44
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 45
#define WORD_45	WORD_44						\
	state word_45 {						\
		pkt.extract(hdr.elems[45]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(46, RINA_X_TAG): parse_tag;			\
			(46, _): accept;				\
			default: WORD_NEXT_45;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 46
#define WORD_NEXT_45	word_46
#else
#define WORD_NEXT_45	accept
#define RINA_TNA_WORD_STATES	WORD_45
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 46
#define WORD_46	WORD_45						\
	state word_46 {						\
		pkt.extract(hdr.elems[46]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(47, RINA_X_TAG): parse_tag;			\
			(47, _): accept;				\
			default: WORD_NEXT_46;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 47
#define WORD_NEXT_46	word_47
#else
#define WORD_NEXT_46	accept
#define RINA_TNA_WORD_STATES	WORD_46
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 47
#define WORD_47	WORD_46						\
	state word_47 {						\
		pkt.extract(hdr.elems[47]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(48, RINA_X_TAG): parse_tag;			\
			(48, _): accept;				\
			default: WORD_NEXT_47;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 48
#define WORD_NEXT_47	word_48
#else
#define WORD_NEXT_47	accept
#define RINA_TNA_WORD_STATES	WORD_47
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 48
#define WORD_48	WORD_47						\
	state word_48 {						\
		pkt.extract(hdr.elems[48]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(49, RINA_X_TAG): parse_tag;			\
			(49, _): accept;				\
			default: WORD_NEXT_48;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 49
#define WORD_NEXT_48	word_49
#else
#define WORD_NEXT_48	accept
#define RINA_TNA_WORD_STATES	WORD_48
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 49
#define WORD_49	WORD_48						\
	state word_49 {						\
		pkt.extract(hdr.elems[49]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(50, RINA_X_TAG): parse_tag;			\
			(50, _): accept;				\
			default: WORD_NEXT_49;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 50
#define WORD_NEXT_49	word_50
#else
#define WORD_NEXT_49	accept
#define RINA_TNA_WORD_STATES	WORD_49
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 50
#define WORD_50	WORD_49						\
	state word_50 {						\
		pkt.extract(hdr.elems[50]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(51, RINA_X_TAG): parse_tag;			\
			(51, _): accept;				\
			default: WORD_NEXT_50;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 51
#define WORD_NEXT_50	word_51
#else
#define WORD_NEXT_50	accept
#define RINA_TNA_WORD_STATES	WORD_50
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 51
#define WORD_51	WORD_50						\
	state word_51 {						\
		pkt.extract(hdr.elems[51]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(52, RINA_X_TAG): parse_tag;			\
			(52, _): accept;				\
			default: WORD_NEXT_51;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 52
#define WORD_NEXT_51	word_52
#else
#define WORD_NEXT_51	accept
#define RINA_TNA_WORD_STATES	WORD_51
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 52
#define WORD_52	WORD_51						\
	state word_52 {						\
		pkt.extract(hdr.elems[52]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(53, RINA_X_TAG): parse_tag;			\
			(53, _): accept;				\
			default: WORD_NEXT_52;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 53
#define WORD_NEXT_52	word_53
#else
#define WORD_NEXT_52	accept
#define RINA_TNA_WORD_STATES	WORD_52
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 53
#define WORD_53	WORD_52						\
	state word_53 {						\
		pkt.extract(hdr.elems[53]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(54, RINA_X_TAG): parse_tag;			\
			(54, _): accept;				\
			default: WORD_NEXT_53;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 54
#define WORD_NEXT_53	word_54
#else
#define WORD_NEXT_53	accept
#define RINA_TNA_WORD_STATES	WORD_53
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 54
#define WORD_54	WORD_53						\
	state word_54 {						\
		pkt.extract(hdr.elems[54]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(55, RINA_X_TAG): parse_tag;			\
			(55, _): accept;				\
			default: WORD_NEXT_54;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 55
#define WORD_NEXT_54	word_55
#else
#define WORD_NEXT_54	accept
#define RINA_TNA_WORD_STATES	WORD_54
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 55
#define WORD_55	WORD_54						\
	state word_55 {						\
		pkt.extract(hdr.elems[55]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(56, RINA_X_TAG): parse_tag;			\
			(56, _): accept;				\
			default: WORD_NEXT_55;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 56
#define WORD_NEXT_55	word_56
#else
#define WORD_NEXT_55	accept
#define RINA_TNA_WORD_STATES	WORD_55
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 56
#define WORD_56	WORD_55						\
	state word_56 {						\
		pkt.extract(hdr.elems[56]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(57, RINA_X_TAG): parse_tag;			\
			(57, _): accept;				\
			default: WORD_NEXT_56;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 57
#define WORD_NEXT_56	word_57
#else
#define WORD_NEXT_56	accept
#define RINA_TNA_WORD_STATES	WORD_56
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 57
#define WORD_57	WORD_56						\
	state word_57 {						\
		pkt.extract(hdr.elems[57]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(58, RINA_X_TAG): parse_tag;			\
			(58, _): accept;				\
			default: WORD_NEXT_57;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 58
#define WORD_NEXT_57	word_58
#else
#define WORD_NEXT_57	accept
#define RINA_TNA_WORD_STATES	WORD_57
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 58
#define WORD_58	WORD_57						\
	state word_58 {						\
		pkt.extract(hdr.elems[58]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(59, RINA_X_TAG): parse_tag;			\
			(59, _): accept;				\
			default: WORD_NEXT_58;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 59
#define WORD_NEXT_58	word_59
#else
#define WORD_NEXT_58	accept
#define RINA_TNA_WORD_STATES	WORD_58
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 59
#define WORD_59	WORD_58						\
	state word_59 {						\
		pkt.extract(hdr.elems[59]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(60, RINA_X_TAG): parse_tag;			\
			(60, _): accept;				\
			default: WORD_NEXT_59;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 60
#define WORD_NEXT_59	word_60
#else
#define WORD_NEXT_59	accept
#define RINA_TNA_WORD_STATES	WORD_59
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 60
#define WORD_60	WORD_59						\
	state word_60 {						\
		pkt.extract(hdr.elems[60]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(61, RINA_X_TAG): parse_tag;			\
			(61, _): accept;				\
			default: WORD_NEXT_60;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 61
#define WORD_NEXT_60	word_61
#else
#define WORD_NEXT_60	accept
#define RINA_TNA_WORD_STATES	WORD_60
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 61
#define WORD_61	WORD_60						\
	state word_61 {						\
		pkt.extract(hdr.elems[61]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(62, RINA_X_TAG): parse_tag;			\
			(62, _): accept;				\
			default: WORD_NEXT_61;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 62
#define WORD_NEXT_61	word_62
#else
#define WORD_NEXT_61	accept
#define RINA_TNA_WORD_STATES	WORD_61
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 62
#define WORD_62	WORD_61						\
	state word_62 {						\
		pkt.extract(hdr.elems[62]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(63, RINA_X_TAG): parse_tag;			\
			(63, _): accept;				\
			default: WORD_NEXT_62;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 63
#define WORD_NEXT_62	word_63
#else
#define WORD_NEXT_62	accept
#define RINA_TNA_WORD_STATES	WORD_62
#endif
#endif
#if RINA_TNA_PARSE_WORDS > 63
#define WORD_63	WORD_62						\
	state word_63 {						\
		pkt.extract(hdr.elems[63]);				\
		transition select(hdr.rina.n_elem, hdr.rina.rsvd) {	\
			(64, RINA_X_TAG): parse_tag;			\
			(64, _): accept;				\
			default: WORD_NEXT_63;				\
		}							\
	}
#if RINA_TNA_PARSE_WORDS > 64
#define WORD_NEXT_63	word_64
#else
#define WORD_NEXT_63	accept
#define RINA_TNA_WORD_STATES	WORD_63
#endif
#endif

#endif
