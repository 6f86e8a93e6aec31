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
 *   - the INA worker's window: core/cc.c with core/rtt.h; loss
 *     detection: core/rack.h (RACK, RFC 8985), applied as librina's
 *     ina_worker.c applies it.
 * Re-implemented here, after Documentation/protocol-ina.md section 8
 * (librina's ina_worker.c is tied to sockets and threads; it moves into
 * core/ as the ring member did): the INA rack's worker.
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <arpa/inet.h>

using namespace ns3;

namespace rsim {

enum { O_NONE, O_READY, O_SENT, O_ACKED };

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

static uint8_t g_tx[RINA_TOR_FRAME_MAX];
static void local_deliver(unsigned rank, const uint8_t *f, unsigned len);

/*
 * librina's repair constants (user/lib/rina_int.h, endpoint.h), the same
 * here: an INA worker's probe timeout at least kPtoMinUs and, like its
 * contribution timer, at most kSlotMaxUs, which starts at 2 RTO, at
 * least kSlotMinUs, within kRtoMaxUs; at most kRetxMax resends a pass.
 */
constexpr uint64_t kPtoMinUs = 2000;
constexpr uint64_t kSlotMinUs = 10000;
constexpr uint64_t kSlotMaxUs = 100000;
constexpr uint32_t kRetxMax = 64;
constexpr uint64_t kRtoMaxUs = 50000;

/* ---- an INA rack's worker ---------------------------------------------- */

struct InaWorker : public RingPart {
	bool agent_host;	/* its rank hosts the member's agent */

	std::vector<uint8_t> ost;	/* per ordinal of our member */
	std::vector<uint64_t> tsent;
	std::vector<uint8_t> tries;
	std::vector<uint64_t> dl, orto;	/* per ordinal: deadline, timeout */
	std::vector<uint8_t> ag_have;
	uint32_t lo = 0, scanned = 0;
	EventId nack_timer;
	/* one repair timer: the next deadline or probe */
	EventId tmr;
	uint64_t tmr_at = ~0ULL;

	/*
	 * As ina_worker.c: one rina_rack per step of the member's
	 * schedule, the probe's state, the resend pass's position.
	 */
	std::vector<struct rina_rack> wrack;
	std::vector<uint32_t> probed;	/* per step: last probe pass */
	uint32_t probes = 0, probe_gen = 0, retx_pos = 0, inflight = 0;
	uint64_t last_done = 0, last_probe = 0, last_loss = 0;
	Flow fl;
	uint64_t got = 0;
	std::vector<std::vector<uint8_t>> early;	/* before start */

	/*
	 * The congestion window, but never below P + 1 ordinals: member i's
	 * first ordinal completes only when member i + 1's workers reach
	 * ordinal P (its step 1 of chunk i), so a smaller window deadlocks
	 * a ring of INA members.
	 */
	unsigned win() const
	{
		unsigned w = fl.window(), f = R->s.P + 1;

		return w < f ? f : w;
	}
	/*
	 * The retransmission timer at a first transmission. A contribution
	 * is ACKed at slot completion: it waits for every contributor of
	 * the slot and of the downstream member's slot: as librina
	 * (ina_worker.c), 2 x the RTO within the job's timer .. 50 ms, at
	 * least 10 ms. Its probe and RACK find losses; this is the last
	 * resort.
	 */
	uint64_t rto() const
	{
		uint64_t r = 2 * rina_rtt_rto(&fl.rtt, R->jd->rto_us,
					      kRtoMaxUs);

		return r < kSlotMinUs ? kSlotMinUs : r;
	}
	uint32_t step_of(uint32_t o) const { return (o / R->s.P) % R->s.L; }
	void init();
	void start() override;
	void rx(const uint8_t *f, unsigned len, bool ce) override;
	void trace_unfinished() const override;
	void pump();
	void send_ord(uint32_t o, bool retx);
	void arm(uint64_t at);
	uint64_t w_pto(uint64_t now) const;
	void w_probe(uint64_t now, uint32_t credit, uint32_t *n,
		     uint64_t *next);
	void w_repair();
	void sr_acked(uint32_t seq, bool ce, uint64_t now);
	void store_result(uint32_t seq, const uint8_t *f);
	void check_done();
	void nack();
};

void InaWorker::init()
{
	const struct rina_sched *s = &R->s;
	uint32_t o, c, p, t, L = s->L;
	uint64_t b;

	ost.assign(R->nord, O_NONE);
	tsent.assign(R->nord, 0);
	tries.assign(R->nord, 0);
	dl.assign(R->nord, 0);
	orto.assign(R->nord, 0);
	ag_have.assign(s->seqs, 0);
	fl.init(R->jd->window, R->jd->rto_us);
	wrack.assign(L, rina_rack{});
	probed.assign(L, 0);
	/* every contribution of ours is ready: the ToR adds them */
	for (o = 0; o < R->nord; o++) {
		b = o / ((uint64_t)L * s->P);
		t = (o / s->P) % L;
		p = o % s->P;
		c = rina_sr_chunk(me, t, L);
		if (rina_pkt_sent(s, b, c, p))
			ost[o] = O_READY;
	}
	while (lo < R->nord && ost[lo] == O_NONE)
		lo++;
	scanned = lo;
}

void InaWorker::start()
{
	started = true;
	last_done = now_us();
	pump();
	w_repair();	/* arms the probe */
	for (auto &f : early)
		rx(f.data(), (unsigned)f.size(), false);
	early.clear();
	check_done();
}

void InaWorker::send_ord(uint32_t o, bool retx)
{
	const struct rina_sched *s = &R->s;
	uint32_t L = s->L, t = (o / s->P) % L, p = o % s->P;
	uint32_t c = rina_sr_chunk(me, t, L), n, i, dip;
	uint64_t b = o / ((uint64_t)L * s->P), off;
	unsigned dport, len;
	static uint32_t words[RINA_MAX_ELEMS];
	Hdr r;

	n = rina_pkt_len(s, b, c, p);
	off = rina_pkt_off(s, b, c, p);
	r.op = RINA_OP_SR_CONTRIB;
	r.flags = retx ? RINA_F_RETX : 0;
	r.job = R->job;
	r.step = (uint8_t)t;
	r.src = (uint16_t)lr;
	r.chunk = (uint16_t)c;
	r.slot = (uint16_t)(o);
	r.seq = rina_seq(s, b, c, p, 0);
	r.n = (uint16_t)rina_wire_elems(n);
	r.P = (uint16_t)s->P;
	r.nc = 1;
	words[0] = 0;
	if (g_cfg.verify)
		for (i = 0; i < n; i++)
			words[i] = ring_input(R, g, off + i);
	if (agent_host)
		dip = tor_ip(h->rack);
	else
		ring_member_addr(R, me, &dip, &dport);
	dport = RINA_UDP_PORT_AGENT;
	len = build_frame(g_tx, h->ip, RINA_UDP_PORT_WORKER, dip, dport, r,
			  g_cfg.verify ? words : nullptr);
	tsent[o] = now_us();
	/* the timer, backed off on every resend as librina's, to 100 ms */
	if (retx) {
		g_st.retx++;
		if (tries[o] < 255)
			tries[o]++;
		orto[o] = 2 * orto[o] > kSlotMaxUs ? kSlotMaxUs : 2 * orto[o];
	} else {
		orto[o] = rto();
		inflight++;
	}
	dl[o] = tsent[o] + orto[o];
	host_send(*h, g_tx, len);
	arm(dl[o]);
}

void InaWorker::pump()
{
	uint32_t hi;

	if (!started)
		return;
	hi = lo + win();
	if (hi > R->nord)
		hi = R->nord;
	for (; scanned < hi; scanned++)
		if (ost[scanned] == O_READY) {
			ost[scanned] = O_SENT;
			send_ord(scanned, false);
		}
}

/* The repair timer runs at "at" at the latest. */
void InaWorker::arm(uint64_t at)
{
	uint64_t now = now_us();

	if (tmr.IsRunning() && tmr_at <= at)
		return;
	if (tmr.IsRunning())
		tmr.Cancel();
	tmr_at = at > now ? at : now;
	tmr = Simulator::Schedule(MicroSeconds(tmr_at - now), [this]() {
		tmr_at = ~0ULL;
		w_repair();
	});
}

/*
 * The probe timeout (ina_worker.c's wpto()): twice the smoothed RTT, or
 * twice the base RTT while RACK found a loss in the last 8 SRTT, the
 * job's timer before any sample; at least kPtoMinUs, doubled per probe
 * pass without a delivery, at most kSlotMaxUs.
 */
uint64_t InaWorker::w_pto(uint64_t now) const
{
	const struct rina_rtt *rt = &fl.rtt;
	uint64_t pto = 2 * rt->srtt_us;

	if (!pto)
		pto = R->jd->rto_us;
	else if (last_loss && now - last_loss < 8 * rt->srtt_us)
		pto = 2 * rt->base_us;
	if (pto < kPtoMinUs)
		pto = kPtoMinUs;
	pto <<= probes < 8 ? probes : 8;
	return pto > kSlotMaxUs ? kSlotMaxUs : pto;
}

/*
 * The probe (ina_worker.c's wprobe(), RFC 8985's tail loss probe):
 * nothing was delivered for a PTO while contributions are out, and RACK
 * cannot tell what is lost since nothing sent after it completed (racks
 * at the window's floor advance in lock-step, each waiting on the
 * other's next ordinal). Resend the oldest undelivered contribution of
 * each step; not a loss signal, the window stays.
 */
void InaWorker::w_probe(uint64_t now, uint32_t credit, uint32_t *n,
		       uint64_t *next)
{
	uint64_t pto = w_pto(now), since = last_done > last_probe ?
					   last_done : last_probe;
	uint32_t j, t;

	if (!inflight)
		return;
	if (now < since + pto) {
		if (since + pto < *next)
			*next = since + pto;
		return;
	}
	probes++;
	probe_gen++;
	last_probe = now;
	for (j = lo; j < scanned && *n < credit; j++) {
		if (ost[j] != O_SENT)
			continue;
		t = step_of(j);
		if (probed[t] == probe_gen)
			continue;
		probed[t] = probe_gen;
		if (now - tsent[j] < pto)	/* just sent or resent */
			continue;
		if (g_cfg.trace)
			fprintf(stderr, "%.3f rank %u probe ordinal %u step %u "
				"(lo %u scanned %u pto %lu)\n", now_us_f(), g,
				j, t, lo, scanned, (unsigned long)pto);
		g_st.probes++;
		send_ord(j, true);
		(*n)++;
	}
	if (now + w_pto(now) < *next)
		*next = now + w_pto(now);
}

/*
 * An INA worker's repair (ina_worker.c's wretransmit()), run after each
 * ACK and at the next deadline. A contribution is lost (ours, another
 * worker's, upstream's partial or an ACK: the slot did not complete) once
 * one of the same step sent after it was delivered: within a step the
 * slots complete in send order, across steps they do not, hence one
 * rina_rack per step, and no reordering allowance (a window goes out in
 * one burst). Behind it the probe, and behind both each contribution's
 * timer; every overdue one goes, within the congestion window's
 * retransmission credit (cwnd per round trip), each pass starting where
 * the last one stopped.
 */
void InaWorker::w_repair()
{
	uint64_t now = now_us(), next = ~0ULL;
	uint32_t credit, n = 0, nprobe, span = scanned - lo, i, j;
	bool held = false, windowed = fl.cc.p.flags != 0, lost;

	/* the job's timer as the credit's shortest round trip, as librina */
	credit = rina_cc_retx_credit_floor(&fl.cc, &fl.rtt, R->jd->rto_us,
					   kSlotMaxUs, now, R->s.P + 1);
	if (!windowed || credit > kRetxMax)
		credit = kRetxMax;
	w_probe(now, credit, &n, &next);
	nprobe = n;
	if (!windowed || retx_pos < lo || retx_pos >= scanned)
		retx_pos = lo;
	for (i = 0; i < span; i++) {
		j = retx_pos + i;
		if (j >= scanned)
			j -= span;
		if (ost[j] != O_SENT)
			continue;
		lost = rina_rack_lost(&wrack[step_of(j)], tsent[j], 0);
		if (lost || dl[j] <= now) {
			if (n >= credit) {
				held = true;
				continue;
			}
			if (lost) {
				g_st.fast_retx++;
				last_loss = now;
			} else {
				g_st.timeouts++;
			}
			if (g_cfg.trace)
				fprintf(stderr, "%.3f rank %u %s ordinal %u "
					"(lo %u scanned %u win %u srtt %lu)\n",
					now_us_f(), g, lost ? "rack" :
					"timeout", j, lo, scanned, win(),
					(unsigned long)fl.rtt.srtt_us);
			send_ord(j, true);
			n++;
			retx_pos = j + 1;
		}
		if (dl[j] < next)
			next = dl[j];
	}
	rina_cc_retx_spend(&fl.cc, n);
	if (held && !windowed)
		next = now;
	else if (held && rina_cc_retx_refill_at(&fl.cc) < next)
		next = rina_cc_retx_refill_at(&fl.cc);
	/*
	 * Lost or overdue contributions are a loss: the window halves, at
	 * most once per round trip. Not a timeout's restart from one
	 * packet: a contribution also waits for the rack and upstream.
	 */
	if (n > nprobe && windowed)
		rina_cc_on_loss(&fl.cc, &fl.rtt, now);
	if (next != ~0ULL)
		arm(next);
}

void InaWorker::sr_acked(uint32_t seq, bool ce, uint64_t now)
{
	struct rina_pkt_id id;
	uint64_t o;

	if (seq >= R->s.seqs)
		return;
	rina_seq_decode(&R->s, seq, &id);
	o = rina_ordinal(&R->s, me, id.block, id.chunk, id.pkt);
	if (o >= R->nord || ost[o] != O_SENT)
		return;
	ost[o] = O_ACKED;
	/* delivered: ina_worker.c's contrib_done() */
	inflight--;
	last_done = now;
	probes = 0;
	if (!tries[o]) {
		rina_rack_acked(&wrack[step_of((uint32_t)o)], tsent[o]);
		rina_rtt_update(&fl.rtt, now - tsent[o], now);
		/*
		 * a worker's loss cuts only behind a queue, and its delay
		 * signal is the lowest sample of a round trip (core/cc.h):
		 * no single sample reaches on_ack, as in ina_worker.c
		 */
		rina_cc_rtt_sample(&fl.cc, now - tsent[o], &fl.rtt, now);
	}
	rina_cc_on_ack(&fl.cc, 1, ce, 0, &fl.rtt, now);
}

void InaWorker::store_result(uint32_t seq, const uint8_t *f)
{
	const struct rina_sched *s = &R->s;
	struct rina_pkt_id id;
	uint32_t n, i;
	uint64_t off;

	rina_seq_decode(s, seq, &id);
	n = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	if (g_cfg.verify)
		for (i = 0; i < n; i++)
			g_result[g][ring_view(R, off + i)] = f_word(f, i);
	got += n;
}

void InaWorker::check_done()
{
	if (finished || !started || got < R->s.count)
		return;
	finished = true;
	if (done)
		done(g, phase);
}

void InaWorker::nack()
{
	const struct rina_sched *s = &R->s;
	uint32_t miss[64], seq, k = 0, dip;
	unsigned dport, len;
	struct rina_pkt_id id;
	Hdr r;

	if (finished)
		return;
	for (seq = 0; seq < s->seqs && k < 64; seq++) {
		rina_seq_decode(s, seq, &id);
		if (!id.ag || ag_have[seq] ||
		    !rina_pkt_len(s, id.block, id.chunk, id.pkt))
			continue;
		miss[k++] = seq;
	}
	if (k) {
		r.op = RINA_OP_NACK;
		r.flags = RINA_F_AG_PHASE;
		r.job = R->job;
		r.src = (uint16_t)lr;
		r.seq = miss[0];
		r.n = (uint16_t)k;
		ring_member_addr(R, me, &dip, &dport);
		len = build_frame(g_tx, h->ip, RINA_UDP_PORT_WORKER, dip,
				  dport, r, miss);
		/* the agent shares our address: the kernel delivers locally */
		if (agent_host)
			local_deliver(g, g_tx, len);
		else
			host_send(*h, g_tx, len);
		g_st.retx++;
	}
	nack_timer = Simulator::Schedule(MicroSeconds(2 * fl.rto()),
					 &InaWorker::nack, this);
}

void InaWorker::rx(const uint8_t *f, unsigned len, bool ce)
{
	const struct rina_sched *s = &R->s;
	unsigned op = f_op(f), n = f_n(f), i;
	uint32_t seq = f_seq(f);
	uint64_t now = now_us();
	struct rina_pkt_id id;

	if (!started) {
		if (op == RINA_OP_ACK || op == RINA_OP_AG_DATA)
			early.emplace_back(f, f + len);
		return;
	}
	if (op == RINA_OP_ACK) {
		bool cee = f_flags(f) & RINA_F_ECN_ECHO;

		for (i = 0; i < n; i++) {
			uint32_t sq = f_word(f, i);

			if (sq >= s->seqs)
				continue;
			/* an AG_PHASE ACK: the agent holds our own chunk */
			rina_seq_decode(s, sq, &id);
			sr_acked(rina_seq(s, id.block, id.chunk, id.pkt, 0),
				 cee, now);
		}
		while (lo < R->nord &&
		       (ost[lo] == O_NONE || ost[lo] == O_ACKED))
			lo++;
		if (scanned < lo)
			scanned = lo;
		pump();
		w_repair();
		if (lo >= R->nord && got < s->count &&
		    !nack_timer.IsRunning())
			nack_timer = Simulator::Schedule(
				MicroSeconds(2 * fl.rto()), &InaWorker::nack,
				this);
		return;
	}
	if (op != RINA_OP_AG_DATA || seq >= s->seqs)
		return;
	rina_seq_decode(s, seq, &id);
	if (id.ag && !ag_have[seq]) {
		ag_have[seq] = 1;
		store_result(seq, f);
		check_done();
	}
}

void InaWorker::trace_unfinished() const
{
	uint32_t miss = 0, sq;

	for (sq = 0; sq < R->s.seqs; sq++)
		miss += !ag_have[sq];
	fprintf(stderr, "# rank %u job %u: got %lu/%lu lo %u/%u scanned %u "
		"ag missing %u nack %d\n", g, R->job, (unsigned long)got,
		(unsigned long)R->s.count, lo, R->nord, scanned, miss,
		nack_timer.IsRunning());
}

/* ---- rings ------------------------------------------------------------------ */

static std::vector<Ring *> g_rings;

Ring *ring_new(const std::vector<unsigned> &ranks, uint16_t job,
	       uint64_t count, bool rs, bool ag)
{
	Ring *R = new Ring();
	struct rina_job_desc *jd = (struct rina_job_desc *)calloc(1,
								 sizeof(*jd));
	unsigned i, x = 0;
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
			x += jd->racks[jd->n_racks].ina;
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
	R->ina = x > 0;
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

	if (mm->ina) {
		InaWorker *w = new InaWorker();

		w->R = R;
		w->g = rank;
		w->lr = lr;
		w->me = R->ring.member_of[lr];
		w->agent_host = mm->agent == lr;
		w->h = &g_hosts[rank];
		w->init();
		p = w;
	} else {
		p = plain_member_new(R, rank);
	}
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

static void local_deliver(unsigned rank, const uint8_t *f, unsigned len)
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

/*
 * The session the ring's first agent draws: the simulated ranks say no
 * HELLO and carry no secret, so any number will do; a fixed one keeps
 * runs reproducible.
 */
#define SIM_SESSION	0x5e55105e55105eULL

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

static void ag_event(void *, enum rina_agent_event ev, __u32)
{
	if (ev == RINA_AGENT_EV_TOR && g_tor_wait && !--g_tor_wait)
		Simulator::ScheduleNow(&start_parts);
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
		memset(&ac, 0, sizeof(ac));
		ac.job_id = R->job;
		ac.rank = mm->agent;
		ac.elems = (uint16_t)g_cfg.E;
		ac.n_local = mm->n_local;
		ac.window = g_cfg.W;
		ac.L = R->ring.L;
		ac.member = k;
		ac.rto_us = R->jd->rto_us;
		ac.job_hash = rina_job_hash(R->jd);
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
