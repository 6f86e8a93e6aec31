/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * SlotTag on Tofino, in the second ingress pass (its operands come in
 * the recirculation header r): ../slot_tag.p4's rules (core/slot.h
 * rina_slot_classify()) with each register read and written once per
 * pass by a stateful ALU of two conditions, the RegisterAction chosen by
 * a table keyed on the predicate before it. Three registers decide, in
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

control SlotTag(in recirc_t r, inout metadata_t meta)
{
	Register<slot_pair_t, slot_idx_t>(RINA_TOR_SLOTS,
					  {0, 0xffffffff}) slot_age;
	Register<slot_pair_t, slot_idx_t>(RINA_TOR_SLOTS, {0, 0}) slot_tag;
	Register<bit<32>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_bits;

	COMPUTE(join_a,
		meta.seen = meta.old_bitmap & r.cbit;
		meta.now_left = meta.old_bitmap & r.rem;)

	/* cmplo: another epoch; cmphi: newer than the newest */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_age) age = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.hi != r.epoch32,
				(int<32>)(r.key - v.lo) > 0);
			if (v.hi != r.epoch32) {
				v.hi = r.epoch32;
				v.lo = r.key;
			} else if ((int<32>)(r.key - v.lo) > 0) {
				v.lo = r.key;
			}
		}
	};

	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) claim = {
		void apply(inout slot_pair_t v)
		{
			v.hi = r.key;
			v.lo = r.rem;
		}
	};

	/* cmplo: the occupant is done (nothing left) */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) reclaim = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.lo == 0);
			if (v.lo == 0) {
				v.hi = r.key;
				v.lo = r.rem;
			}
		}
	};

	/* cmplo: the occupant's key; cmphi: newer than the occupant */
	RegisterAction<slot_pair_t, slot_idx_t, bit<4>>(slot_tag) join = {
		void apply(inout slot_pair_t v, out bit<4> p)
		{
			p = this.predicate(v.hi == r.key,
				(int<32>)(r.key - v.hi) > 0);
			if (v.hi == r.key)
				v.lo = v.lo & r.rem;
		}
	};

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_bits) bits_claim = {
		void apply(inout bit<32> v)
		{
			v = r.rem;
		}
	};

	RegisterAction<bit<32>, slot_idx_t, bit<32>>(slot_bits) bits_join = {
		void apply(inout bit<32> v, out bit<32> old)
		{
			old = v;
			v = v & r.rem;
		}
	};

	/*
	 * Each register's choice of RegisterAction as one table keyed on
	 * the predicate before it (one stage each; a chain of gateways
	 * would take a stage per test).
	 */
	action tag_claim()
	{
		claim.execute(r.reg_idx);
		meta.p_tag = 0;
	}

	action tag_reclaim()
	{
		meta.p_tag = reclaim.execute(r.reg_idx);
	}

	action tag_join()
	{
		meta.p_tag = join.execute(r.reg_idx);
	}

	table tag_op {
		key = { meta.p_age : exact; }
		actions = { tag_claim; tag_reclaim; tag_join; NoAction; }
		size = 4;
		/* every predicate value has its entry, and no default runs
		 * a RegisterAction: the compiler refuses a default action
		 * that needs the hash distribution unit (the index) */
		const entries = {
			P_LO : tag_claim();
			P_BOTH : tag_claim();
			P_HI : tag_reclaim();
			P_NONE : tag_join();
		}
		default_action = NoAction();
	}

	action v_fresh()
	{
		meta.verdict = RINA_SLOT_FRESH;
		bits_claim.execute(r.reg_idx);
	}

	action v_add()
	{
		meta.verdict = RINA_SLOT_ADD;
		meta.old_bitmap = bits_join.execute(r.reg_idx);
	}

	action v_is(bit<8> verdict)
	{
		meta.verdict = verdict;
	}

	/* ../slot_tag.p4's verdict from the two predicates; slot_bits */
	table tag_verdict {
		key = {
			meta.p_age : exact;
			meta.p_tag : exact;
		}
		actions = { v_fresh; v_add; v_is; }
		size = 8;
		const entries = {
			(P_LO, 0) : v_fresh();
			(P_BOTH, 0) : v_fresh();
			(P_HI, P_LO) : v_fresh();
			(P_HI, P_NONE) : v_is(RINA_SLOT_COLLISION);
			(P_NONE, P_LO) : v_add();
			(P_NONE, P_HI) : v_is(RINA_SLOT_COLLISION);
		}
		default_action = v_is(RINA_SLOT_STALE);
	}

	action refine_is(bit<8> verdict, bit<1> done)
	{
		meta.verdict = verdict;
		meta.done_now = done;
	}

	/* ADD, DUP or DUP_DONE, and done_now exactly once */
	table refine {
		key = {
			meta.verdict : exact;
			r.rem : ternary;
			meta.old_bitmap : ternary;
			meta.seen : ternary;
			meta.now_left : ternary;
		}
		actions = { refine_is; NoAction; }
		size = 8;
		const entries = {
			(RINA_SLOT_FRESH, 0, _, _, _) :
				refine_is(RINA_SLOT_FRESH, 1);
			(RINA_SLOT_ADD, _, 0, _, _) :
				refine_is(RINA_SLOT_DUP_DONE, 0);
			(RINA_SLOT_ADD, _, _, 0, _) :
				refine_is(RINA_SLOT_DUP, 0);
			(RINA_SLOT_ADD, _, _, _, 0) :
				refine_is(RINA_SLOT_ADD, 1);
		}
		default_action = NoAction();
	}

	apply {
		meta.done_now = 0;
		meta.old_bitmap = 0;
		meta.p_age = age.execute(r.reg_idx);
		tag_op.apply();
		tag_verdict.apply();
		join_a.apply();
		refine.apply();
	}
}

/*
 * SlotMeta: the slot's exp (signed maximum), num_contrib (sum) and state
 * bits (ST_CE, ST_UP_CE and the input OVERFLOW flag, ORed), one stateful
 * ALU each: stored on FRESH, joined on ADD, read on DUP_DONE; each gives
 * the value after the packet, which is what the result header carries.
 */
#define ST_OVF	0x02	/* a contribution came with OVERFLOW (state bit 1) */

control SlotMeta(in headers_t hdr, in recirc_t r, inout metadata_t meta)
{
	Register<bit<8>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_exp;
	Register<bit<16>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_ncontrib;
	Register<bit<8>, slot_idx_t>(RINA_TOR_SLOTS, 0) slot_state;

	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_set = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			v = hdr.rina.exp;
			o = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_max = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			if ((int<8>)hdr.rina.exp > (int<8>)v)
				v = hdr.rina.exp;
			o = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_exp) exp_get = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			o = v;
		}
	};

	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_set = {
		void apply(inout bit<16> v, out bit<16> o)
		{
			v = hdr.rina.num_contrib;
			o = v;
		}
	};
	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_add = {
		void apply(inout bit<16> v, out bit<16> o)
		{
			v = v + hdr.rina.num_contrib;
			o = v;
		}
	};
	RegisterAction<bit<16>, slot_idx_t, bit<16>>(slot_ncontrib) nc_get = {
		void apply(inout bit<16> v, out bit<16> o)
		{
			o = v;
		}
	};

	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_set = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			v = r.st_in;
			o = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_or = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			v = v | r.st_in;
			o = v;
		}
	};
	RegisterAction<bit<8>, slot_idx_t, bit<8>>(slot_state) st_get = {
		void apply(inout bit<8> v, out bit<8> o)
		{
			o = v;
		}
	};

	action m_set()
	{
		meta.s_exp = exp_set.execute(r.reg_idx);
	}
	action m_max()
	{
		meta.s_exp = exp_max.execute(r.reg_idx);
	}
	action m_get()
	{
		meta.s_exp = exp_get.execute(r.reg_idx);
	}
	action n_set()
	{
		meta.s_ncontrib = nc_set.execute(r.reg_idx);
	}
	action n_add()
	{
		meta.s_ncontrib = nc_add.execute(r.reg_idx);
	}
	action n_get()
	{
		meta.s_ncontrib = nc_get.execute(r.reg_idx);
	}
	action s_set()
	{
		meta.s_state = st_set.execute(r.reg_idx);
	}
	action s_or()
	{
		meta.s_state = st_or.execute(r.reg_idx);
	}
	action s_get()
	{
		meta.s_state = st_get.execute(r.reg_idx);
	}

	/* stored on FRESH, joined on ADD, read on DUP_DONE: a table each */
#define SLOT_META_TABLE(NAME, SET, JOIN, GET)				\
	table NAME {							\
		key = { meta.verdict : exact; }				\
		actions = { SET; JOIN; GET; NoAction; }			\
		size = 4;						\
		const entries = {					\
			RINA_SLOT_FRESH : SET();			\
			RINA_SLOT_ADD : JOIN();				\
			RINA_SLOT_DUP_DONE : GET();			\
		}							\
		default_action = NoAction();				\
	}
	SLOT_META_TABLE(exp_op, m_set, m_max, m_get)
	SLOT_META_TABLE(nc_op, n_set, n_add, n_get)
	SLOT_META_TABLE(st_op, s_set, s_or, s_get)

	apply {
		exp_op.apply();
		nc_op.apply();
		st_op.apply();
	}
}

#endif
