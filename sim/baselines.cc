// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The baselines, in the same network as Rina (RESEARCH.md section 2):
 *   ps        every worker streams its tensor in packets of E elements to
 *             the parameter server (one, or P sharded by packet number);
 *             the server sums N contributions and returns the result,
 *             which is also the worker's ACK (windowed by core/cc.c);
 *   atp       as ps, and the ToRs of the INA racks aggregate their rack
 *             first (ATP: best-effort aggregator slots hashed by packet;
 *             a collision, or a retransmission, sends the packet on to the
 *             server unaggregated; the server's result frees the slot and
 *             the ToR multicasts it to the rack);
 *   switchml  one rack: the ToR aggregates all m workers and multicasts
 *             the result (slot pool of 2W, results kept for repeats);
 *   har       Horovod's hierarchical allreduce: ring reduce-scatter in the
 *             rack, m rings across racks (one per local index) on the
 *             shards, ring allgather in the rack (rina.cc's ring member).
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ns3;

namespace rsim {

static uint8_t g_ps_tx[RINA_TOR_FRAME_MAX];
static uint64_t g_npk;		/* packets per tensor */

static uint32_t pk_len(uint64_t j)
{
	uint64_t count = g_cfg.size / 4, off = j * g_cfg.E;

	return count - off < g_cfg.E ? (uint32_t)(count - off) : g_cfg.E;
}

/* ---- the worker -------------------------------------------------------------- */

class PsWorker : public Endpoint {
public:
	Host *h;
	std::vector<uint8_t> st;	/* 0 ready, 1 sent, 2 done */
	std::vector<uint64_t> tsent;
	std::vector<uint8_t> tries;
	uint64_t lo = 0, scanned = 0, got = 0;
	Flow fl;
	RetxTimer rt;
	bool finished = false;

	void Start() override
	{
		st.assign(g_npk, 0);
		tsent.assign(g_npk, 0);
		tries.assign(g_npk, 0);
		fl.init(g_cfg.W, path_floor_us(g_cfg.qpkts));
		rt.unacked = [this](uint32_t j) { return st[j] == 1; };
		rt.sent_us = [this](uint32_t j) { return tsent[j]; };
		rt.rto = [this]() { return fl.rto(); };
		rt.resend = [this](uint32_t j, bool first) {
			if (first) {
				rina_cc_on_timeout(&fl.cc, tries[j] + 1,
						   &fl.rtt, now_us());
				g_st.timeouts++;
			}
			send(j, true);
		};
		pump();
	}
	uint32_t dst_of(uint64_t j)
	{
		if (g_cfg.scheme == "switchml")
			return tor_ip(0);
		return server_ip((unsigned)(j % g_cfg.ps));
	}
	void send(uint64_t j, bool retx)
	{
		static uint32_t words[RINA_MAX_ELEMS];
		uint32_t n = pk_len(j), i;
		unsigned len;
		Hdr r;

		r.op = RINA_OP_SR_CONTRIB;
		r.flags = retx ? RINA_F_RETX : 0;
		r.job = 9;
		r.src = (uint16_t)h->id;
		r.seq = (uint32_t)j;
		r.n = (uint16_t)n;
		r.nc = 1;
		if (g_cfg.verify)
			for (i = 0; i < n; i++)
				words[i] = tensor_val(h->id, j * g_cfg.E + i);
		len = build_frame(g_ps_tx, h->ip, RINA_UDP_PORT_WORKER,
				  dst_of(j), RINA_UDP_PORT_WORKER, r,
				  g_cfg.verify ? words : nullptr);
		if (retx) {
			g_st.retx++;
			if (tries[j] < 255)
				tries[j]++;
		}
		tsent[j] = now_us();
		rt.sent((uint32_t)j);
		host_send(*h, g_ps_tx, len);
		rt.arm();
	}
	void pump()
	{
		uint64_t hi = lo + fl.window();

		if (hi > g_npk)
			hi = g_npk;
		for (; scanned < hi; scanned++)
			if (st[scanned] == 0) {
				st[scanned] = 1;
				send(scanned, false);
			}
	}
	/*
	 * RACK (RFC 8985): one server answers in the order it completes,
	 * and it completes in the order of the first contributions, so an
	 * older packet to the same server that is still unanswered when a
	 * younger one's result comes, sent well before it, was lost.
	 */
	void rack_lost(uint64_t j)
	{
		uint64_t i, reo = fl.rtt.srtt_us / 4 + 1, now = now_us();
		bool cut = false;

		for (i = lo; i < j; i++) {
			if (st[i] != 1 || i % g_cfg.ps != j % g_cfg.ps ||
			    tries[i] || tsent[i] + reo >= tsent[j])
				continue;
			if (!cut) {
				rina_cc_on_loss(&fl.cc, &fl.rtt, now);
				cut = true;
			}
			send(i, true);
		}
	}
	void Rx(const uint8_t *f, unsigned len, bool ce) override
	{
		uint64_t j = f_seq(f), now = now_us();
		uint32_t n, i;

		if (len < kPay || f_op(f) != RINA_OP_AG_DATA || j >= g_npk ||
		    st[j] == 2)
			return;
		n = pk_len(j);
		if (f_n(f) != n)
			return;
		if (g_cfg.verify)
			for (i = 0; i < n; i++)
				g_result[h->id][j * g_cfg.E + i] = f_word(f, i);
		if (st[j] == 1 && !tries[j]) {
			rina_rtt_update(&fl.rtt, now - tsent[j], now);
			rina_cc_on_ack(&fl.cc, 1, ce, now - tsent[j], &fl.rtt,
				       now);
		} else {
			rina_cc_on_ack(&fl.cc, 1, ce, 0, &fl.rtt, now);
		}
		st[j] = 2;
		got += n;
		rack_lost(j);
		while (lo < g_npk && st[lo] == 2)
			lo++;
		if (scanned < lo)
			scanned = lo;
		pump();
		if (!finished && got == g_cfg.size / 4) {
			finished = true;
			rank_done(h->id);
		}
	}
};

/* ---- an aggregator slot (ATP's switch, SwitchML's switch) ------------------ */

struct Agtr {
	bool used = false, done = false;
	uint32_t seq = 0, count = 0, bitmap = 0;
	std::vector<uint32_t> val;
	std::vector<uint64_t> racks;	/* second level: racks added */
};

static unsigned agtr_idx(uint64_t j, unsigned A)
{
	return (unsigned)((j * 2654435761ULL) >> 7) % A;
}

static void add_words(std::vector<uint32_t> &v, const uint8_t *f, unsigned n,
		      bool first)
{
	unsigned i;

	if (!g_cfg.verify)
		return;
	if (v.size() < n)
		v.resize(g_cfg.E);
	for (i = 0; i < n; i++)
		v[i] = (first ? 0 : v[i]) + f_word(f, i);
}

/* A result packet for seq j from ip:port to dip. */
static unsigned result_frame(uint8_t *buf, uint32_t sip, uint32_t dip,
			     uint64_t j, const std::vector<uint32_t> *val)
{
	Hdr r;

	r.op = RINA_OP_AG_DATA;
	r.flags = RINA_F_AG_PHASE;
	r.job = 9;
	r.src = RINA_SRC_SWITCH;
	r.seq = (uint32_t)j;
	r.n = (uint16_t)pk_len(j);
	r.nc = (uint16_t)g_N;
	return build_frame(buf, sip, RINA_UDP_PORT_WORKER, dip,
			   RINA_UDP_PORT_WORKER, r,
			   g_cfg.verify && val && !val->empty() ? val->data() :
			   nullptr);
}

/* ATP's worker-side ToR, and SwitchML's ToR (root = no server). */
class AggTor : public SwitchApp {
public:
	unsigned rack;
	bool root;
	std::vector<Agtr> a;
	bool Rx(unsigned port, const uint8_t *f, unsigned len,
		bool ce) override;
	void mcast(uint64_t j, const std::vector<uint32_t> *val,
		   const uint8_t *f, unsigned len);
};

void AggTor::mcast(uint64_t j, const std::vector<uint32_t> *val,
		   const uint8_t *f, unsigned len)
{
	static uint8_t b[RINA_TOR_FRAME_MAX];
	unsigned i, l;

	for (i = 0; i < g_cfg.m; i++) {
		uint32_t dip = rank_ip(rack, i);

		if (val) {
			l = result_frame(b, tor_ip(rack), dip, j, val);
		} else {
			memcpy(b, f, len);
			ip_mac(dip, b);
			put32(b + kEthIp + 16, dip);
			l = len;
		}
		tor_send(rack, 1 + i, b, l);
	}
}

bool AggTor::Rx(unsigned port, const uint8_t *f, unsigned len, bool)
{
	static uint8_t b[RINA_TOR_FRAME_MAX];
	unsigned op, n, src, bit;
	uint64_t j;
	Agtr *e;

	if (len < kPay || f_job(f) != 9)
		return false;
	op = f_op(f);
	j = f_seq(f);
	n = f_n(f);
	if (j >= g_npk)
		return false;
	e = &a[agtr_idx(j, (unsigned)a.size())];
	if (op == RINA_OP_AG_DATA && f_dip(f) == tor_ip(rack)) {
		/* the server's result for the rack: free the slot, multicast */
		if (e->used && e->seq == j) {
			e->used = false;
			e->done = false;
		}
		mcast(j, nullptr, f, len);
		return true;
	}
	if (op != RINA_OP_SR_CONTRIB || port == 0)
		return false;
	src = f_src(f);
	bit = 1u << (src % g_cfg.m);
	if (f_flags(f) & RINA_F_RETX) {
		if (root) {
			if (e->used && e->seq == j && e->done) {
				unsigned l = result_frame(b, tor_ip(rack),
							  f_sip(f), j,
							  &e->val);

				tor_send(rack, port, b, l);
				return true;
			}
		} else {
			if (e->used && e->seq == j && !e->done)
				e->used = false;	/* partial dropped */
			g_st.atp_fallback++;
			return false;	/* on to the server */
		}
	}
	if (e->used && e->seq != j && !(root && e->done)) {
		if (root)
			return true;	/* window violated: the worker retries */
		g_st.atp_fallback++;
		return false;		/* collision: best effort, to the PS */
	}
	if (!e->used || e->seq != j) {
		e->used = true;
		e->done = false;
		e->seq = (uint32_t)j;
		e->count = 0;
		e->bitmap = 0;
	}
	if (e->bitmap & bit || e->done)
		return true;		/* duplicate */
	add_words(e->val, f, n, !e->count);
	e->bitmap |= bit;
	if (++e->count < g_cfg.m)
		return true;
	e->done = true;
	g_st.tor_slots_done++;
	if (root) {
		mcast(j, &e->val, nullptr, 0);
		return true;
	}
	{
		/* the rack's aggregate to the server */
		Hdr r;
		unsigned l;

		r.op = RINA_OP_SR_CONTRIB;
		r.flags = RINA_F_FROM_SWITCH;
		r.job = 9;
		r.src = (uint16_t)(RINA_SRC_SWITCH | rack);
		r.seq = (uint32_t)j;
		r.n = (uint16_t)n;
		r.nc = (uint16_t)g_cfg.m;
		l = build_frame(b, tor_ip(rack), RINA_UDP_PORT_WORKER, f_dip(f),
				RINA_UDP_PORT_WORKER, r,
				g_cfg.verify ? e->val.data() : nullptr);
		tor_send(rack, 0, b, l);
	}
	return true;
}

/*
 * ATP's second level (every rack INA, --two-level): the switch in front of
 * the servers (here the spine) adds the k rack aggregates of a packet and
 * sends one to the server; the server's result comes back to the spine
 * (address SPINE_IP), which sends it to the k ToRs, which multicast it.
 */
static const uint32_t SPINE_IP = 198u << 24 | 19u << 16 | 1;
static const unsigned ALL_RACKS = 0xfff;

class SpineAgg : public SwitchApp {
public:
	std::vector<Agtr> a;
	bool Rx(unsigned port, const uint8_t *f, unsigned len,
		bool ce) override;
};

bool SpineAgg::Rx(unsigned, const uint8_t *f, unsigned len, bool)
{
	static uint8_t b[RINA_TOR_FRAME_MAX];
	unsigned src, r, n, l;
	uint64_t j;
	Agtr *e;

	if (len < kPay || f_job(f) != 9)
		return false;
	j = f_seq(f);
	if (j >= g_npk)
		return false;
	e = &a[agtr_idx(j, (unsigned)a.size())];
	if (f_op(f) == RINA_OP_AG_DATA && f_dip(f) == SPINE_IP) {
		if (e->used && e->seq == j)
			e->used = e->done = false;
		for (r = 0; r < g_cfg.k; r++) {
			memcpy(b, f, len);
			ip_mac(tor_ip(r), b);
			put32(b + kEthIp + 16, tor_ip(r));
			spine_send_rack(r, b, len);
		}
		return true;
	}
	src = f_src(f);
	if (f_op(f) != RINA_OP_SR_CONTRIB || (src & 0xf000) != RINA_SRC_SWITCH ||
	    (f_flags(f) & RINA_F_RETX))
		return false;
	r = src & 0xfff;
	if (e->used && e->seq != j) {
		g_st.atp_fallback++;
		return false;
	}
	if (!e->used) {
		e->used = true;
		e->done = false;
		e->seq = (uint32_t)j;
		e->count = 0;
		e->bitmap = 0;
		e->racks.assign((g_cfg.k + 63) / 64, 0);
	}
	if (e->done || (e->racks[r / 64] >> (r % 64) & 1))
		return true;
	n = f_n(f);
	add_words(e->val, f, n, !e->count);
	e->racks[r / 64] |= 1ULL << (r % 64);
	if (++e->count < g_cfg.k)
		return true;
	e->done = true;
	{
		Hdr h;

		h.op = RINA_OP_SR_CONTRIB;
		h.flags = RINA_F_FROM_SWITCH;
		h.job = 9;
		h.src = (uint16_t)(RINA_SRC_SWITCH | ALL_RACKS);
		h.seq = (uint32_t)j;
		h.n = (uint16_t)n;
		h.nc = (uint16_t)g_N;
		l = build_frame(b, SPINE_IP, RINA_UDP_PORT_WORKER, f_dip(f),
				RINA_UDP_PORT_WORKER, h,
				g_cfg.verify ? e->val.data() : nullptr);
		spine_send_server((unsigned)(j % g_cfg.ps), b, l);
	}
	return true;
}

/* ---- the parameter server ------------------------------------------------------ */

class PsServer : public Endpoint {
public:
	Host *h;
	unsigned s;
	struct Ent {
		uint32_t count = 0;
		bool done = false;
		std::vector<uint64_t> who;	/* ranks counted */
		std::vector<uint64_t> racks;	/* rack aggregates */
		std::vector<uint32_t> val;
		bool all = false;	/* from the second level */
	};
	std::vector<Ent> ent;			/* by j / P */
	void Start() override {}
	void reply(uint64_t j, Ent &e, uint32_t dip)
	{
		unsigned l = result_frame(g_ps_tx, h->ip, dip, j, &e.val);

		host_send(*h, g_ps_tx, l);
	}
	void finish(uint64_t j, Ent &e)
	{
		unsigned r, i;

		e.done = true;
		if (e.all) {
			reply(j, e, SPINE_IP);
			return;
		}
		for (r = 0; r < g_cfg.k; r++) {
			if (e.racks[r / 64] >> (r % 64) & 1) {
				reply(j, e, tor_ip(r));
				continue;
			}
			for (i = 0; i < g_cfg.m; i++) {
				unsigned rk = r * g_cfg.m + i;

				if (e.who[rk / 64] >> (rk % 64) & 1)
					reply(j, e, rank_ip(r, i));
			}
		}
	}
	void Rx(const uint8_t *f, unsigned len, bool) override
	{
		uint64_t j = f_seq(f);
		unsigned src = f_src(f), i, n = f_n(f), r;
		Ent *e;

		if (len < kPay || f_op(f) != RINA_OP_SR_CONTRIB ||
		    j >= g_npk || j % g_cfg.ps != s)
			return;
		e = &ent[j / g_cfg.ps];
		if (e->who.empty()) {
			e->who.assign((g_N + 63) / 64, 0);
			e->racks.assign((g_cfg.k + 63) / 64, 0);
		}
		if (src == (RINA_SRC_SWITCH | ALL_RACKS)) {
			if (e->count || e->done)
				return;	/* a rack came alone: dropped */
			add_words(e->val, f, n, true);
			for (i = 0; i < e->who.size(); i++)
				e->who[i] = ~0ULL;
			e->count = g_N;
			e->all = true;
		} else if ((src & 0xf000) == RINA_SRC_SWITCH) {
			r = src & 0xfff;
			for (i = 0; i < g_cfg.m; i++) {
				unsigned rk = r * g_cfg.m + i;

				if (e->who[rk / 64] >> (rk % 64) & 1)
					return;	/* overlaps: dropped */
			}
			if (e->done)
				return;
			add_words(e->val, f, n, !e->count);
			for (i = 0; i < g_cfg.m; i++) {
				unsigned rk = r * g_cfg.m + i;

				e->who[rk / 64] |= 1ULL << (rk % 64);
			}
			e->racks[r / 64] |= 1ULL << (r % 64);
			e->count += g_cfg.m;
		} else {
			if (src >= g_N)
				return;
			if (e->who[src / 64] >> (src % 64) & 1) {
				if (e->done)	/* it lost the result */
					reply(j, *e, f_sip(f));
				return;
			}
			add_words(e->val, f, n, !e->count);
			e->who[src / 64] |= 1ULL << (src % 64);
			e->count++;
		}
		if (e->count == g_N && !e->done)
			finish(j, *e);
	}
};

int ps_setup()
{
	unsigned i, r;

	g_npk = (g_cfg.size / 4 + g_cfg.E - 1) / g_cfg.E;
	if (g_cfg.scheme == "switchml")
		g_cfg.ps = g_cfg.ps ? g_cfg.ps : 1;
	for (i = 0; i < g_N; i++) {
		PsWorker *w = new PsWorker();

		w->h = &g_hosts[i];
		g_hosts[i].ep = w;
	}
	if (g_cfg.scheme != "switchml")
		for (i = 0; i < g_cfg.ps; i++) {
			PsServer *p = new PsServer();

			p->h = &g_hosts[g_N + i];
			p->s = i;
			p->ent.resize((g_npk + g_cfg.ps - 1) / g_cfg.ps);
			g_hosts[g_N + i].ep = p;
		}
	if (g_cfg.scheme == "atp" && g_cfg.two_level) {
		SpineAgg *sa = new SpineAgg();

		for (r = 0; r < g_cfg.k; r++)
			if (!g_cfg.ina[r]) {
				fprintf(stderr, "rina-sim: --two-level needs "
					"every rack INA (--ina all)\n");
				return 2;
			}
		sa->a.resize(4 * g_cfg.W);
		set_spine_app(sa);
	}
	for (r = 0; r < g_cfg.k; r++) {
		AggTor *t;

		if (g_cfg.scheme == "ps" || !g_cfg.ina[r])
			continue;
		t = new AggTor();
		t->rack = r;
		t->root = g_cfg.scheme == "switchml";
		t->a.resize(4 * g_cfg.W);
		set_tor_app(r, t);
	}
	return 0;
}

/* ---- H-AR ------------------------------------------------------------------------ */

static std::vector<RingPart *> g_p1, g_p2, g_p3;

static void har_done(unsigned rank, int phase)
{
	if (phase == 1)
		ring_start(g_p2[rank]);
	else if (phase == 2)
		ring_start(g_p3[rank]);
	else
		rank_done(rank);
}

static void har_start(int)
{
	for (auto *p : g_p1)
		ring_start(p);
}

/* Elements of chunk c of schedule s: the shard a cross-rack ring reduces. */
static uint64_t shard_count(const struct rina_sched *s, unsigned c)
{
	uint64_t b, n = 0;
	uint32_t p;

	for (b = 0; b < s->nblocks; b++)
		for (p = 0; p < s->P; p++)
			n += rina_pkt_len(s, b, c, p);
	return n;
}

int har_setup()
{
	unsigned k = g_cfg.k, m = g_cfg.m, r, j;
	uint64_t count = g_cfg.size / 4;
	std::vector<Ring *> rs(k), ag(k), x(m);

	g_p1.assign(g_N, nullptr);
	g_p2.assign(g_N, nullptr);
	g_p3.assign(g_N, nullptr);
	rina_sim_hosts_init();
	for (r = 0; r < k; r++) {
		std::vector<unsigned> ranks;

		for (j = 0; j < m; j++)
			ranks.push_back(r * m + j);
		rs[r] = ring_new(ranks, (uint16_t)(100 + r), count, true,
				 false);
		ag[r] = ring_new(ranks, (uint16_t)(300 + r), count, false,
				 true);
		for (j = 0; j < m; j++) {
			g_p1[r * m + j] = ring_join(rs[r], r * m + j, har_done,
						    1);
		}
	}
	for (j = 0; j < m; j++) {
		std::vector<unsigned> ranks;
		const struct rina_sched *base = ring_sched(rs[0]);
		unsigned c = rina_own_chunk(j, m);

		for (r = 0; r < k; r++)
			ranks.push_back(r * m + j);
		x[j] = ring_new(ranks, (uint16_t)(200 + j),
				m > 1 ? shard_count(base, c) : count, true,
				true);
		if (m > 1)
			ring_set_view(x[j], base, c);
		else
			ring_set_view(x[j], nullptr, 0);
		for (r = 0; r < k; r++)
			g_p2[r * m + j] = ring_join(x[j], r * m + j, har_done,
						    2);
	}
	for (r = 0; r < k; r++)
		for (j = 0; j < m; j++)
			g_p3[r * m + j] = ring_join(ag[r], r * m + j, har_done,
						    3);
	Simulator::Schedule(Seconds(0), &har_start, 0);
	return 0;
}

} // namespace rsim
