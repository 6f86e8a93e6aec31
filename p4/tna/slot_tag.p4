/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * SlotTag on Tofino: ../slot_tag.p4's rules (core/slot.h
 * rina_slot_classify()) with each register read and written once per
 * pass by a stateful ALU of two conditions. Three registers decide, in
 * this order (Documentation/tofino.md, "SlotTag"):
 *
 *   slot_age  {hi: epoch, lo: newest key seen}: another epoch, or a key
 *             newer than any seen, takes the claim path (and becomes the
 *             newest);
 *   slot_tag  {hi: occupant key, lo: contributors still missing}: claim
 *             path: claim when the epoch is new or nothing is missing,
 *             else COLLISION; join path: the same key joins (clears its
 *             bit), a newer one (after a collision) is a COLLISION, an
 *             older one STALE;
 *   slot_bits a copy of what was missing before this packet (ADD, DUP,
 *             DUP_DONE).
 *
 * The key is the wire slot << 16, so that 32-bit signed differences are
 * v1model's 16-bit serial comparison. v1model's bitmap is kept inverted,
 * as the bits still missing: a stateful ALU takes two fields of the
 * packet, here the key and rem = full & ~claim, where full = local_mask
 * | up_bit and claim is the contributor's bit plus, for the member's own
 * first chunk (no upstream partial), the upstream bit. A claim stores
 * rem, a join ANDs it in (rem lacks only the joiner's bit there), and
 * done is "nothing missing", a comparison with 0. The slot's exp,
 * num_contrib and state (CE marks, input OVERFLOW) are SlotMeta's.
 */
#ifndef _RINA_TNA_SLOT_TAG_P4_
#define _RINA_TNA_SLOT_TAG_P4_

struct slot_pair_t {
	bit<32>	lo;
	bit<32>	hi;
}

/* stateful predicate outputs: 1 << (cmphi * 2 + cmplo) */
#define P_NONE	1
#define P_LO	2
#define P_HI	4
#define P_BOTH	8

control SlotTag(inout metadata_t meta)
{
	Register<slot_pair_t, slot_idx_t>(RINA_TOR_SLOTS,
					  {0, 0xffffffff}) slot_age;
	Register<slot_pair_t, slot_idx_t>(RINA_TOR_SLOTS, {0, 0}) slot_tag;
	Register<bit<32>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_bits;
	bit<32> now_left;	/* old_bitmap & rem: 0 when this completes */

	COMPUTE(join_a,
		meta.seen = meta.old_bitmap & meta.cbit;
		now_left = meta.old_bitmap & meta.rem;)

	/* cmplo: another epoch; cmphi: newer than the newest */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_age) age = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.hi != meta.epoch32,
				(int<32>)(meta.key - v.lo) > 0);
			if (v.hi != meta.epoch32) {
				v.hi = meta.epoch32;
				v.lo = meta.key;
			} else if ((int<32>)(meta.key - v.lo) > 0) {
				v.lo = meta.key;
			}
		}
	};

	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) claim = {
		void apply(inout slot_pair_t v)
		{
			v.hi = meta.key;
			v.lo = meta.rem;
		}
	};

	/* cmplo: the occupant is done (nothing left) */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) reclaim = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.lo == 0);
			if (v.lo == 0) {
				v.hi = meta.key;
				v.lo = meta.rem;
			}
		}
	};

	/* cmplo: the occupant's key; cmphi: newer than the occupant */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) join = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.hi == meta.key,
				(int<32>)(meta.key - v.hi) > 0);
			if (v.hi == meta.key)
				v.lo = v.lo & meta.rem;
		}
	};

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_bits) bits_claim = {
		void apply(inout bit<32> v)
		{
			v = meta.rem;
		}
	};

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_bits) bits_join = {
		void apply(inout bit<32> v, out bit<32> old)
		{
			old = v;
			v = v & meta.rem;
		}
	};

	apply {
		meta.p_age = age.execute(meta.reg_idx);
		meta.p_tag = 0;
		meta.done_now = 0;
		meta.old_bitmap = 0;
		if (meta.p_age == P_LO || meta.p_age == P_BOTH) {
			claim.execute(meta.reg_idx);
			meta.verdict = RINA_SLOT_FRESH;
		} else if (meta.p_age == P_HI) {
			meta.p_tag = reclaim.execute(meta.reg_idx);
			if (meta.p_tag == P_LO)
				meta.verdict = RINA_SLOT_FRESH;
			else
				meta.verdict = RINA_SLOT_COLLISION;
		} else {
			meta.p_tag = join.execute(meta.reg_idx);
			if (meta.p_tag == P_LO)
				meta.verdict = RINA_SLOT_ADD;
			else if (meta.p_tag == P_HI)
				meta.verdict = RINA_SLOT_COLLISION;
			else
				meta.verdict = RINA_SLOT_STALE;
		}

		if (meta.verdict == RINA_SLOT_FRESH) {
			bits_claim.execute(meta.reg_idx);
			if (meta.rem == 0)
				meta.done_now = 1;
		} else if (meta.verdict == RINA_SLOT_ADD) {
			meta.old_bitmap = bits_join.execute(meta.reg_idx);
			join_a.apply();
			/* ADD, DUP or DUP_DONE, and done_now exactly once */
			if (meta.old_bitmap == 0)
				meta.verdict = RINA_SLOT_DUP_DONE;
			else if (meta.seen == 0)
				meta.verdict = RINA_SLOT_DUP;
			else if (now_left == 0)
				meta.done_now = 1;
		}
	}
}

/*
 * SlotMeta: the slot's exp (signed maximum), num_contrib (sum) and state
 * bits (ST_CE, ST_UP_CE and the input OVERFLOW flag, ORed), one stateful
 * ALU each: stored on FRESH, joined on ADD, read on DUP_DONE; each gives
 * the value after the packet, which is what the result header carries.
 */
#define ST_OVF	0x02	/* a contribution came with OVERFLOW (state bit 1) */

control SlotMeta(in headers_t hdr, inout metadata_t meta)
{
	Register<bit<8>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_exp;
	Register<bit<16>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_ncontrib;
	Register<bit<8>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_state;

	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_set = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			v = hdr.rina.exp;
			r = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_max = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			if ((int<8>)hdr.rina.exp > (int<8>)v)
				v = hdr.rina.exp;
			r = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_get = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			r = v;
		}
	};

	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_set = {
		void apply(inout bit<16> v, out bit<16> r)
		{
			v = hdr.rina.num_contrib;
			r = v;
		}
	};
	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_add = {
		void apply(inout bit<16> v, out bit<16> r)
		{
			v = v + hdr.rina.num_contrib;
			r = v;
		}
	};
	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_get = {
		void apply(inout bit<16> v, out bit<16> r)
		{
			r = v;
		}
	};

	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_set = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			v = meta.st_in;
			r = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_or = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			v = v | meta.st_in;
			r = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_get = {
		void apply(inout bit<8> v, out bit<8> r)
		{
			r = v;
		}
	};

	apply {
		if (meta.verdict == RINA_SLOT_FRESH) {
			meta.s_exp = exp_set.execute(meta.reg_idx);
			meta.s_ncontrib = nc_set.execute(meta.reg_idx);
			meta.s_state = st_set.execute(meta.reg_idx);
		} else if (meta.verdict == RINA_SLOT_ADD) {
			meta.s_exp = exp_max.execute(meta.reg_idx);
			meta.s_ncontrib = nc_add.execute(meta.reg_idx);
			meta.s_state = st_or.execute(meta.reg_idx);
		} else if (meta.verdict == RINA_SLOT_DUP_DONE) {
			meta.s_exp = exp_get.execute(meta.reg_idx);
			meta.s_ncontrib = nc_get.execute(meta.reg_idx);
			meta.s_state = st_get.execute(meta.reg_idx);
		}
	}
}

#endif
