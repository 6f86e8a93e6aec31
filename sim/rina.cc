// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Rina in the simulator, on the project's protocol code:
 *   - the ring, schedule, slots and sequence numbers: core/plan.c,
 *     core/schedule.h (the same rina_ring_build(), rina_sched_call(),
 *     rina_seq(), rina_ordinal() every host uses);
 *   - the plain ring member: core/ring_member.c's engine, hosted by
 *     ring_member_host.cc (as librina's ring.c hosts it); it runs RAR,
 *     Rina's plain members and H-AR's phases;
 *   - the INA ToR: the C switch model (p4/model) configured by the
 *     rina-p4cfg generator (p4/cfg/p4cfg.c), one instance per INA rack,
 *     run per packet by the rack's ToR node;
 *   - the agent: core/agent.c behind a struct rina_agent_ops whose send
 *     and clock are the simulator's;
 *   - the INA rack's worker: core/ina_worker.c's engine, hosted by
 *     ina_worker_host.cc (as librina's ina_worker.c hosts it).
 * What is the simulator's own is here: the rings' setup and element
 * views, the hosts that hold a rank's ring parts and its agent, and the
 * ToR application.
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <arpa/inet.h>

using namespace ns3;

namespace rsim {

uint64_t ring_view(const Ring *R, uint64_t i)
{
	const struct rina_sched *b = R->vbase;
	uint64_t pe, blk, rem;

	if (!b)
		return i;
	pe = (uint64_t)b->P * b->E;
	blk = i / pe;
	rem = i % pe;
	return rina_pkt_off(b, blk, R->vchunk, (uint32_t)(rem / b->E)) +
	       rem % b->E;
}

uint32_t ring_input(const Ring *R, unsigned g, uint64_t i)
{
	if (R->input_from_result)
		return g_result[g][ring_view(R, i)];
	return tensor_val(g, ring_view(R, i));
}

void ring_member_addr(const Ring *R, unsigned k, uint32_t *ip,
		      unsigned *port)
{
	const struct rina_member *m = &R->ring.m[k];

	*ip = ntohl(R->jd->ranks[m->agent].ip);
	*port = m->ina ? RINA_UDP_PORT_AGENT : RINA_UDP_PORT_WORKER;
}

/* ---- rings ------------------------------------------------------------------ */

static std::vector<Ring *> g_rings;

Ring *ring_new(const std::vector<unsigned> &ranks, uint16_t job,
	       uint64_t count, bool rs, bool ag)
{
	Ring *R = new Ring();
	struct rina_job_desc *jd = (struct rina_job_desc *)calloc(1,
								 sizeof(*jd));
	unsigned i;
	std::vector<int> rack_of(g_cfg.k, -1);

	R->job = job;
	R->jd = jd;
	R->rs = rs;
	R->ag = ag;
	R->local.assign(g_N, -1);
	jd->job_id = job;
	jd->elems = (uint16_t)g_cfg.E;
	jd->window = (uint16_t)g_cfg.W;
	jd->timeout_ms = 10000;
	jd->rto_us = (uint32_t)path_floor_us(g_cfg.W);
	job_cc(jd);
	for (i = 0; i < ranks.size(); i++) {
		Host &h = g_hosts[ranks[i]];

		if (rack_of[h.rack] < 0) {
			rack_of[h.rack] = (int)jd->n_racks;
			jd->racks[jd->n_racks].id = (uint16_t)h.rack;
			jd->racks[jd->n_racks].ina = job == 7 &&
				g_cfg.ina[h.rack];
			jd->racks[jd->n_racks].tor_ip = htonl(tor_ip(h.rack));
			jd->racks[jd->n_racks].tor_port =
				htons(RINA_UDP_PORT_AGENT);
			jd->n_racks++;
		}
		jd->ranks[i].ip = htonl(h.ip);
		jd->ranks[i].port = htons(RINA_UDP_PORT_WORKER);
		jd->ranks[i].rack = (uint16_t)h.rack;
		ip_mac(h.ip, jd->ranks[i].mac);
		R->glob.push_back(ranks[i]);
		R->local[ranks[i]] = (int)i;
	}
	jd->n_ranks = (uint16_t)ranks.size();
	if (rina_job_validate(jd).err != RINA_JOB_OK) {
		fprintf(stderr, "rina-sim: job rejected: %s\n",
			rina_job_err_names[rina_job_validate(jd).err]);
		exit(2);
	}
	rina_ring_build(jd, 1, &R->ring);
	R->ina = rina_ring_has_ina(&R->ring);
	/*
	 * The schedule every host of the call computes (librina's, the
	 * ring member engine's): with INA members P <= W/4 - 1 and a chunk
	 * of at most RINA_INA_CHUNK_BYTES (protocol.md section 4)
	 */
	if (rina_sched_call(&R->s, count, R->ring.L, g_cfg.E, g_cfg.W,
			    R->ina) != RINA_SCHED_OK) {
		fprintf(stderr, "rina-sim: the schedule does not fit\n");
		exit(2);
	}
	R->s.pad = R->ina;
	R->nord = (uint32_t)(R->s.nblocks * R->s.L * R->s.P);
	g_rings.push_back(R);
	return R;
}

void ring_set_view(Ring *R, const struct rina_sched *base, unsigned chunk)
{
	R->vbase = base;
	R->vchunk = chunk;
	R->input_from_result = true;
}

uint64_t ring_count(const Ring *R)
{
	return R->s.count;
}

const struct rina_sched *ring_sched(const Ring *R)
{
	return &R->s;
}

/* Hosts: every part of every ring a rank takes part in, and an agent. */
class RinaHost;
static std::vector<RinaHost *> g_rh;

class RinaHost : public Endpoint {
public:
	Host *h;
	std::vector<RingPart *> parts;
	struct rina_agent_core *agent = nullptr;
	bool tor_on = false;	/* the agent's ToR aggregates the rack */
	EventId tick_ev;
	uint64_t tick_at = ~0ULL;
	void Start() override {}
	void Rx(const uint8_t *f, unsigned len, bool ce) override;
	void tick();
	void tick_soon(uint64_t us);
};

RingPart *ring_join(Ring *R, unsigned rank, void (*done)(unsigned, int),
		    int phase)
{
	unsigned lr = (unsigned)R->local[rank];
	const struct rina_member *mm = &R->ring.m[R->ring.member_of[lr]];
	RingPart *p;

	p = mm->ina ? ina_worker_new(R, rank) : plain_member_new(R, rank);
	p->done = done;
	p->phase = phase;
	if (!g_rh[rank]) {
		g_rh[rank] = new RinaHost();
		g_rh[rank]->h = &g_hosts[rank];
		g_hosts[rank].ep = g_rh[rank];
	}
	g_rh[rank]->parts.push_back(p);
	return p;
}

void rina_sim_hosts_init()
{
	g_rh.assign(g_N, nullptr);
}

void ring_start(RingPart *p)
{
	p->start();
}

/* ---- the agent's host environment ---------------------------------------- */

/* Size-class free lists: no heap churn for the agent's per-packet copies. */
static std::map<uint32_t, std::vector<void *>> g_free;

static void *ag_zalloc(void *, __u32 size)
{
	std::vector<void *> &l = g_free[size];
	uint32_t *p;

	if (!l.empty()) {
		p = (uint32_t *)l.back();
		l.pop_back();
	} else {
		p = (uint32_t *)malloc(size + 16);
		if (!p)
			return nullptr;
		p[0] = size;
		p += 4;
	}
	memset(p, 0, size);
	return p;
}

static void ag_free(void *, void *q)
{
	uint32_t *p = (uint32_t *)q;

	if (!p)
		return;
	g_free[p[-4]].push_back(p);
}

static __u64 ag_now(void *)
{
	return now_us();
}

static void ag_event(void *, enum rina_agent_event ev, __u32);

static void deliver_local(RinaHost *rh, std::vector<uint8_t> f)
{
	rh->Rx(f.data(), (unsigned)f.size(), false);
}

void local_deliver(unsigned rank, const uint8_t *f, unsigned len)
{
	Simulator::ScheduleNow(&deliver_local, g_rh[rank],
			       std::vector<uint8_t>(f, f + len));
}

static void ag_send_fn(void *ctx, const struct rina_agent_addr *to,
		       const void *buf, __u32 len)
{
	RinaHost *rh = (RinaHost *)ctx;
	static uint8_t fr[RINA_TOR_FRAME_MAX];
	const struct rina_hdr *rh_hdr = (const struct rina_hdr *)buf;
	unsigned op = rina_hdr_opcode(rh_hdr);
	uint32_t dip = ntohl(to->ip);
	unsigned flen;

	if (len + kRina > sizeof(fr))
		return;
	flen = wrap_frame(fr, rh->h->ip, RINA_UDP_PORT_AGENT, dip,
			  ntohs(to->port), buf, len);
	if (g_cfg.trace && op != RINA_OP_AG_DATA)
		fprintf(stderr, "%.3f agent %u sends op %u fl %02x seq %u n %u "
			"to %08x:%x\n", now_us_f(), rh->h->id, op,
			rh_hdr->flags, ntohl(rh_hdr->seq),
			ntohs(rh_hdr->n_elem), dip, ntohs(to->port));
	if ((op == RINA_OP_AG_DATA) && (rh_hdr->flags & RINA_F_RETX))
		g_st.retx++;
	if (dip == rh->h->ip) {
		Simulator::ScheduleNow(&deliver_local, rh,
				       std::vector<uint8_t>(fr, fr + flen));
		return;
	}
	host_send(*rh->h, fr, flen);
}

static __u64 ag_random(void *ctx)
{
	(void)ctx;
	return SIM_SESSION;
}

static const struct rina_agent_ops g_agent_ops = {
	ag_zalloc, ag_free, ag_now, ag_send_fn,
	nullptr,	/* relay: no relay_own */
	nullptr, nullptr, nullptr, nullptr, ag_event,
	nullptr, nullptr, nullptr,	/* no secret: mac, clocks */
	ag_random,
};

void RinaHost::tick()
{
	__u64 w;

	tick_at = ~0ULL;
	if (!agent)
		return;
	w = rina_agent_core_tick(agent);
	if (w != RINA_AGENT_NO_WAIT)
		tick_soon(w ? w : 1);
}

void RinaHost::tick_soon(uint64_t us)
{
	uint64_t at = now_us() + us;

	if (tick_at <= at && tick_ev.IsRunning())
		return;
	if (tick_ev.IsRunning())
		tick_ev.Cancel();
	tick_at = at;
	tick_ev = Simulator::Schedule(MicroSeconds(us), &RinaHost::tick, this);
}

void RinaHost::Rx(const uint8_t *f, unsigned len, bool ce)
{
	unsigned job;

	if (len < kPay || f[12] != 8 || f[13] != 0 || f[kEthIp + 9] != 17 ||
	    !rina_port_match(f_dport(f)) ||
	    rina_hdr_check((const struct rina_hdr *)(f + kRina), len - kRina))
		return;
	if (f_dport(f) == RINA_UDP_PORT_AGENT) {
		struct rina_agent_addr from;

		if (!agent)
			return;
		from.ip = htonl(f_sip(f));
		from.port = htons((uint16_t)f_sport(f));
		from.pad = 0;
		rina_agent_core_rx(agent, f + kRina, len - kRina, &from);
		if (g_cfg.trace)
			fprintf(stderr, "%.3f agent %u rx op %u fl %02x seq %u "
				"tor %d held %u\n", now_us_f(), h->id, f_op(f),
				f_flags(f), f_seq(f), agent->tor_state,
				agent->held.n);
		tick_soon(1);
		return;
	}
	job = f_job(f);
	for (auto *p : parts)
		if (p->R->job == job) {
			p->rx(f, len, ce);
			return;
		}
}

/* ---- the INA ToR: the C switch model on a ToR node ------------------------ */

static struct rina_tor_out g_tor_out;

class TorApp : public SwitchApp {
public:
	unsigned rack;
	uint32_t agent_ip;
	struct rina_tor *sw;
	bool Rx(unsigned port, const uint8_t *f, unsigned len,
		bool ce) override;
};

bool TorApp::Rx(unsigned port, const uint8_t *f, unsigned len, bool)
{
	uint32_t dip;
	unsigned i;

	if (len < kPay || f_dport(f) != RINA_UDP_PORT_AGENT ||
	    f[kEthIp + 9] != 17)
		return false;
	dip = f_dip(f);
	if (dip == tor_ip(rack) && f_op(f) == RINA_OP_CTRL &&
	    len >= kPay + 16) {
		/* the job is installed from the start (rina-tor's default) */
		uint32_t type = f_word(f, 0);
		static uint8_t r[kPay + 16];
		unsigned rl;

		if (type != RINA_CTRL_TOR_INSTALL &&
		    type != RINA_CTRL_TOR_REMOVE)
			return true;
		memcpy(r, f, kPay + 16);
		rl = kPay + 16;
		ip_mac(f_sip(f), r);
		ip_mac(dip, r + 6);
		put32(r + kEthIp + 12, dip);
		put32(r + kEthIp + 16, f_sip(f));
		put16(r + kUdp, RINA_UDP_PORT_AGENT);
		put16(r + kUdp + 2, f_sport(f));
		r[kRina + 1] = RINA_F_FROM_SWITCH;
		put16(r + kRina + 8, RINA_SRC_SWITCH | rack);
		put32(r + kPay, RINA_CTRL_TOR_REPLY);
		put32(r + kPay + 4, 0);
		tor_forward(rack, r, rl, false);
		return true;
	}
	if (dip != tor_ip(rack) && dip != agent_ip)
		return false;
	rina_tor_process(sw, port, f, len, &g_tor_out);
	if (g_cfg.trace)
		fprintf(stderr, "%.3f tor%u in port %u op %u fl %02x src %x "
			"chunk %u seq %u slot %u n %u -> %u out\n", now_us_f(),
			rack, port, f_op(f), f_flags(f), f_src(f), f_chunk(f),
			f_seq(f), get16(f + 58), f_n(f), g_tor_out.n);
	for (i = 0; i < g_tor_out.n; i++) {
		const uint8_t *o = g_tor_out.pkt[i].data;

		tor_send(rack, g_tor_out.pkt[i].port, o, g_tor_out.pkt[i].len);
	}
	return true;
}

static std::vector<TorApp *> g_torapps;

static int tor_install(TorApp *t, const struct rina_job_desc *jd)
{
	struct rina_p4cfg o;
	char err[256], *buf = nullptr, *line, *save;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);
	unsigned k;

	rina_p4cfg_defaults(&o);
	o.rack = t->rack;
	o.uplink = 0;
	o.l2 = 1;
	for (k = 0; k < jd->n_ranks; k++)
		if (jd->ranks[k].rack == t->rack)
			o.port_of[k] = 1 + g_hosts[k].idx;
	if (!f || rina_p4cfg_write(f, jd, &o, err, sizeof(err))) {
		fprintf(stderr, "rina-sim: ToR %u install: %s\n", t->rack, err);
		return -1;
	}
	fclose(f);
	rina_tor_init(t->sw);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(nullptr, "\n", &save))
		if (rina_tor_cli(t->sw, line, err, sizeof(err))) {
			fprintf(stderr, "rina-sim: ToR %u '%s': %s\n", t->rack,
				line, err);
			free(buf);
			return -1;
		}
	free(buf);
	return 0;
}

static void rina_done(unsigned rank, int)
{
	rank_done(rank);
}

static void tor_stats()
{
	static const std::vector<RingPart *> no_parts;

	for (auto *rh : g_rh)
		for (auto *p : rh && g_cfg.trace ? rh->parts : no_parts)
			if (!p->finished)
				p->trace_unfinished();
	for (auto *t : g_torapps) {
		g_st.tor_slots_done += t->sw->job_ctr[RINA_TC_SLOT_DONE];
		g_st.tor_collisions += t->sw->job_ctr[RINA_TC_COLLISION];
	}
	for (auto *rh : g_rh)
		if (rh && rh->agent)
			g_st.agent_sw_slots += rh->agent->st.slots_done;
}

/*
 * As librina: the agents ask their ToRs first (TOR_INSTALL, TOR_REPLY)
 * and the ranks start when every agent has its answer; the allreduce
 * time counts from there.
 */
static std::vector<RingPart *> g_parts;
static unsigned g_tor_wait;

static void start_parts()
{
	g_st.t_start_us = now_us_f();
	for (auto *p : g_parts)
		p->start();
}

/*
 * As librina's agent thread (op_event()): the ToR aggregates the rack
 * from its answer until it went silent, and the agent's rank sends its
 * contributions there meanwhile (ina_worker_host.cc).
 */
static void ag_event(void *ctx, enum rina_agent_event ev, __u32 arg)
{
	RinaHost *rh = (RinaHost *)ctx;

	if (ev == RINA_AGENT_EV_TOR)
		rh->tor_on = arg == RINA_TOR_ST_OK;
	if (ev == RINA_AGENT_EV_TOR_LOST)
		rh->tor_on = false;
	if (ev == RINA_AGENT_EV_TOR && g_tor_wait && !--g_tor_wait)
		Simulator::ScheduleNow(&start_parts);
}

bool agent_tor_on(unsigned rank)
{
	return g_rh[rank] && g_rh[rank]->tor_on;
}

static void start_all()
{
	for (auto *rh : g_rh)
		if (rh && rh->agent)
			g_tor_wait++;
	if (!g_tor_wait) {
		start_parts();
		return;
	}
	/* the session every agent's upstream HELLO would have told it */
	for (auto *rh : g_rh)
		if (rh && rh->agent) {
			rina_agent_core_set_session(rh->agent, SIM_SESSION);
			rina_agent_core_tor_install(rh->agent);
		}
}

int rina_setup()
{
	std::vector<unsigned> ranks;
	std::vector<RingPart *> &ps = g_parts;
	unsigned i, r, k;
	Ring *R;

	rina_sim_hosts_init();
	for (i = 0; i < g_N; i++)
		ranks.push_back(i);
	R = ring_new(ranks, 7, g_cfg.size / 4, true, true);
	for (i = 0; i < g_N; i++)
		ps.push_back(ring_join(R, i, rina_done, 0));
	/* an INA ToR and an agent per INA member */
	for (k = 0; k < R->ring.L; k++) {
		const struct rina_member *mm = &R->ring.m[k];
		struct rina_agent_cfg ac;
		struct rina_cc_params cp;
		TorApp *t;
		RinaHost *rh;
		unsigned prev = rina_ring_prev(&R->ring, k);
		unsigned nx = rina_ring_next(&R->ring, k);
		uint32_t ip;
		unsigned port;

		if (!mm->ina)
			continue;
		r = mm->rack;
		t = new TorApp();
		t->rack = r;
		t->agent_ip = g_hosts[mm->agent].ip;
		t->sw = (struct rina_tor *)calloc(1, sizeof(*t->sw));
		if (!t->sw || tor_install(t, R->jd))
			return 2;
		set_tor_app(r, t);
		g_torapps.push_back(t);
		/* the job's rules as librina derives them (engine_cfg.h) */
		rina_job_cc_params(R->jd, R->jd->cc, &cp);
		rina_agent_cfg_job(&ac, R->jd, &R->ring, mm->agent, &cp);
		ring_member_addr(R, nx, &ip, &port);
		ac.next.ip = htonl(ip);
		ac.next.port = htons((uint16_t)port);
		ring_member_addr(R, prev, &ip, &port);
		ac.prev.ip = htonl(ip);
		ac.prev.port = htons((uint16_t)port);
		ac.self.ip = htonl(g_hosts[mm->agent].ip);
		ac.self.port = htons(RINA_UDP_PORT_AGENT);
		ac.tor.ip = htonl(tor_ip(r));
		ac.tor.port = htons(RINA_UDP_PORT_AGENT);
		for (i = 0; i < mm->n_local; i++) {
			unsigned rk = R->ring.order[mm->first + i];

			ac.local[i].ip = htonl(g_hosts[rk].ip);
			ac.local[i].port = htons(RINA_UDP_PORT_WORKER);
		}
		rh = g_rh[mm->agent];
		rh->agent = (struct rina_agent_core *)calloc(1,
							    sizeof(*rh->agent));
		if (!rh->agent ||
		    rina_agent_core_init(rh->agent, &ac, &g_agent_ops, rh)) {
			fprintf(stderr, "rina-sim: agent init failed\n");
			return 2;
		}
	}
	Simulator::Schedule(Seconds(0), &start_all);
	sim_at_end(&tor_stats);
	return 0;
}

} // namespace rsim
