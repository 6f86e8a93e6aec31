// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Rina in the simulator, on the project's protocol code:
 *   - the ring, schedule, slots and sequence numbers: core/plan.c,
 *     core/schedule.h (the same rina_ring_build(), rina_sched_init(),
 *     rina_seq(), rina_ordinal() every host uses);
 *   - the INA ToR: the C switch model (p4/model) configured by the
 *     rina-p4cfg generator (p4/cfg/p4cfg.c), one instance per INA rack,
 *     run per packet by the rack's ToR node;
 *   - the agent: core/agent.c behind a struct rina_agent_ops whose send
 *     and clock are the simulator's;
 *   - every sender's window: core/cc.c with core/rtt.h; loss detection:
 *     core/rack.h (RACK, RFC 8985), applied as librina's ring.c and
 *     ina_worker.c apply it.
 * Re-implemented here, after Documentation/protocol.md and
 * protocol-ina.md section 8 (librina's ring.c and ina_worker.c are tied
 * to sockets and threads): the autonomous ring member and the INA rack's
 * worker. The same ring member runs plain RAR and H-AR's phases.
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <arpa/inet.h>

using namespace ns3;

namespace rsim {

enum { O_NONE, O_WAIT, O_READY, O_SENT, O_ACKED };

struct Ring {
	uint16_t job;
	struct rina_job_desc *jd;
	struct rina_ring ring;
	struct rina_sched s;
	uint32_t nord;
	bool rs, ag, ina;
	bool input_from_result = false;
	const struct rina_sched *vbase = nullptr;
	unsigned vchunk = 0;
	std::vector<unsigned> glob;	/* ring rank -> simulator rank */
	std::vector<int> local;		/* simulator rank -> ring rank */
};

static uint64_t view(const Ring *R, uint64_t i)
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

static uint32_t input(const Ring *R, unsigned g, uint64_t i)
{
	if (R->input_from_result)
		return g_result[g][view(R, i)];
	return tensor_val(g, view(R, i));
}

/* Addresses of ring member k: the agent's ip and port 0x524f if INA. */
static void member_addr(const Ring *R, unsigned k, uint32_t *ip,
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
 * least kSlotMinUs; at most kRetxMax resends a pass; a ring member's
 * timer backed off to 4 RTO within kRtoMaxUs .. kRtoCeilUs, kRtoMaxUs
 * towards an INA member.
 */
constexpr uint64_t kPtoMinUs = 2000;
constexpr uint64_t kSlotMinUs = 10000;
constexpr uint64_t kSlotMaxUs = 100000;
constexpr uint32_t kRetxMax = 64;
constexpr uint64_t kRtoMaxUs = 50000;
constexpr uint64_t kRtoCeilUs = 2000000;

/* A ring member's packet on its way downstream, in send order. */
struct SentEnt {
	uint64_t t;		/* when it went out */
	uint32_t key;		/* ordinal, or nord + allgather seq */
};

/* ---- a ring member or an INA rack's worker ------------------------------ */

struct RingPart {
	Ring *R;
	unsigned g;		/* simulator rank */
	unsigned lr;		/* ring rank */
	unsigned me, next;	/* member indices */
	bool inaw;		/* worker of an INA member */
	bool agent_host;	/* its rank hosts the member's agent */
	bool started = false, finished = false;
	int phase;
	void (*done)(unsigned, int);
	Host *h;

	uint32_t sm;		/* member whose ordinals the stream uses */
	std::vector<uint8_t> ost;
	std::vector<uint64_t> tsent;
	std::vector<uint8_t> tries;
	std::vector<uint64_t> dl, orto;	/* per ordinal: deadline, timeout */
	std::vector<uint32_t> odata;	/* upstream partials (verify) */
	std::vector<uint16_t> onc;
	std::vector<uint8_t> sr_have, ag_have, agst, aghop;
	std::vector<uint64_t> agsent, agdl, agrto;
	std::vector<uint8_t> agtries;
	struct rina_rtt agrtt = {};	/* allgather hop: its own estimator */
	uint32_t lo = 0, scanned = 0, acked = 0, nsend = 0;
	EventId nack_timer;
	/* one repair timer: the member's or the worker's next deadline */
	EventId tmr;
	uint64_t tmr_at = ~0ULL;

	/*
	 * A ring member (ring.c): its reduce-scatter partials and allgather
	 * forwards in send order (stale entries, of packets since ACKed or
	 * resent, dropped on the way), for RACK on the downstream member's
	 * ACKs (not towards an INA member: its ACKs come as slots complete,
	 * out of order) and for the timer, which resends only the oldest.
	 */
	std::deque<SentEnt> sendq;
	struct rina_rack rack = {};
	bool rack_on = false;

	/*
	 * An INA worker (ina_worker.c): one rina_rack per step of the
	 * member's schedule, the probe's state, the resend pass's position.
	 */
	std::vector<struct rina_rack> wrack;
	std::vector<uint32_t> probed;	/* per step: last probe pass */
	uint32_t probes = 0, probe_gen = 0, retx_pos = 0, inflight = 0;
	uint64_t last_done = 0, last_probe = 0, last_loss = 0;
	Flow fl;
	uint64_t got = 0, target = 0;
	std::vector<std::vector<uint8_t>> early;	/* before start */

	/* batched ACKs to the upstream member */
	std::vector<uint32_t> ack_sr, ack_ag;
	uint32_t ack_ip = 0;
	unsigned ack_port = 0;
	bool ack_ce_sr = false, ack_ce_ag = false;
	EventId ack_ev;

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
	/* Are our packets ACKed as slots complete (an INA member's)? */
	bool to_slots() const { return inaw || R->ring.m[next].ina; }
	/*
	 * The retransmission timer at a first transmission. A packet ACKed
	 * at slot completion (an INA worker's contribution, a partial to an
	 * INA member) waits for every contributor of the slot and of the
	 * downstream member's slot: as librina (ina_worker.c, ring.c's
	 * ordwin), 2 x the RTO within the job's timer .. 50 ms, at least
	 * 10 ms. Its probe and RACK find losses; this is the last resort.
	 * (Ten path floors before, which at 25 Mbit/s was 1.85 s: the
	 * 2x2 mixed ring at a 60-packet queue then repaired lost ACKs
	 * upstream of the INA member one per 1.85 s and did not finish.)
	 */
	uint64_t rto() const
	{
		uint64_t r;

		if (!to_slots())
			return fl.rto();
		r = 2 * rina_rtt_rto(&fl.rtt, R->jd->rto_us, kRtoMaxUs);
		return r < kSlotMinUs ? kSlotMinUs : r;
	}
	/*
	 * Allgather data are forwarded as they come (not windowed) and wait
	 * in the NIC behind the reduce-scatter window: their timer follows
	 * their own round trips.
	 */
	uint64_t ag_rto() const
	{
		return Flow::rto_of(&agrtt, fl.floor_us);
	}
	uint32_t step_of(uint32_t o) const { return (o / R->s.P) % R->s.L; }
	void init();
	void start();
	void rx(const uint8_t *f, unsigned len, bool ce);
	void pump();
	void send_ord(uint32_t o, bool retx);
	void arm(uint64_t at);
	void on_timer();
	bool m_current(const SentEnt &e) const;
	void m_resend(uint32_t key, bool timeout);
	void m_rack();
	void m_timer();
	uint64_t w_pto(uint64_t now) const;
	void w_probe(uint64_t now, uint32_t credit, uint32_t *n,
		     uint64_t *next);
	void w_repair();
	void ag_send(uint32_t seq, bool retx);
	void ack_add(uint32_t seq, bool ag, uint32_t ip, unsigned port,
		     bool ce);
	void ack_flush();
	void sr_acked(uint32_t seq, bool ce, uint64_t now);
	void store_result(uint32_t seq, const uint8_t *f, bool own);
	void check_done();
	void nack();
	uint32_t own_elems() const;
};

uint32_t RingPart::own_elems() const
{
	const struct rina_sched *s = &R->s;
	uint32_t c = rina_own_chunk(me, s->L), n = 0, p;
	uint64_t b;

	for (b = 0; b < s->nblocks; b++)
		for (p = 0; p < s->P; p++)
			n += rina_pkt_len(s, b, c, p);
	return n;
}

void RingPart::init()
{
	const struct rina_sched *s = &R->s;
	uint32_t o, c, p, t, L = s->L;
	uint64_t b;

	next = rina_ring_next(&R->ring, me);
	sm = inaw ? me : next;
	ost.assign(R->nord, O_NONE);
	tsent.assign(R->nord, 0);
	tries.assign(R->nord, 0);
	dl.assign(R->nord, 0);
	orto.assign(R->nord, 0);
	onc.assign(R->nord, 0);
	if (g_cfg.verify && !inaw)
		odata.assign((uint64_t)R->nord * s->E, 0);
	sr_have.assign(s->seqs, 0);
	ag_have.assign(s->seqs, 0);
	agst.assign(s->seqs, 0);
	aghop.assign(s->seqs, 0);
	agsent.assign(s->seqs, 0);
	agdl.assign(s->seqs, 0);
	agrto.assign(s->seqs, 0);
	agtries.assign(s->seqs, 0);
	fl.init(R->jd->window, R->jd->rto_us);
	/* ring.c: no RACK towards an INA member (k->ordwin) */
	rack_on = !inaw && !R->ring.m[next].ina;
	if (inaw) {
		wrack.assign(L, rina_rack{});
		probed.assign(L, 0);
	}
	for (o = 0; o < R->nord; o++) {
		b = o / ((uint64_t)L * s->P);
		t = (o / s->P) % L;
		p = o % s->P;
		c = rina_sr_chunk(sm, t, L);
		if (!R->rs || !rina_pkt_sent(s, b, c, p))
			continue;
		if (inaw)
			ost[o] = O_READY;
		else if (t == 0)
			continue;	/* our own chunk: never sent in SR */
		else
			ost[o] = t == 1 ? O_READY : O_WAIT;
	}
	if (R->rs && R->ag)
		target = s->count;
	else if (R->rs)
		target = own_elems();
	else
		target = s->count;
	while (lo < R->nord && (ost[lo] == O_NONE || ost[lo] == O_ACKED))
		lo++;
	scanned = lo;
}

void RingPart::start()
{
	const struct rina_sched *s = &R->s;
	uint32_t c, p, L = s->L;
	uint64_t b;

	started = true;
	if (L == 1 && !inaw) {
		/* a ring of one: the result is our own data */
		uint64_t i;

		if (g_cfg.verify && R->rs)
			for (i = 0; i < s->count; i++)
				g_result[g][view(R, i)] = input(R, g, i);
		got = target;
		check_done();
		return;
	}
	if (!R->rs) {
		/* allgather only: our own chunk is reduced already */
		c = rina_own_chunk(me, L);
		got = own_elems();
		for (b = 0; b < s->nblocks; b++)
			for (p = 0; p < s->P; p++) {
				uint32_t seq = rina_seq(s, b, c, p, 1);

				if (!rina_pkt_sent(s, b, c, p) || L < 2)
					continue;
				ag_have[seq] = 1;
				agst[seq] = 1;
				aghop[seq] = 1;
				ag_send(seq, false);
			}
	}
	last_done = now_us();
	pump();
	if (inaw)
		w_repair();	/* arms the probe */
	for (auto &f : early)
		rx(f.data(), (unsigned)f.size(), false);
	early.clear();
	check_done();
}

void RingPart::send_ord(uint32_t o, bool retx)
{
	const struct rina_sched *s = &R->s;
	uint32_t L = s->L, t = (o / s->P) % L, p = o % s->P;
	uint32_t c = rina_sr_chunk(sm, t, L), n, i, dip;
	uint64_t b = o / ((uint64_t)L * s->P), off;
	unsigned dport, len;
	static uint32_t words[RINA_MAX_ELEMS];
	Hdr r;

	n = rina_pkt_len(s, b, c, p);
	off = rina_pkt_off(s, b, c, p);
	r.op = inaw ? RINA_OP_SR_CONTRIB : RINA_OP_SR_PARTIAL;
	r.flags = retx ? RINA_F_RETX : 0;
	r.job = R->job;
	r.step = (uint8_t)t;
	r.src = (uint16_t)lr;
	r.chunk = (uint16_t)c;
	r.slot = (uint16_t)(o);
	r.seq = rina_seq(s, b, c, p, 0);
	r.n = (uint16_t)rina_wire_elems(n);
	r.P = (uint16_t)s->P;
	words[0] = 0;
	if (inaw) {
		r.nc = 1;
		if (g_cfg.verify)
			for (i = 0; i < n; i++)
				words[i] = input(R, g, off + i);
		if (agent_host) {
			dip = tor_ip(h->rack);
		} else {
			member_addr(R, me, &dip, &dport);
		}
		dport = RINA_UDP_PORT_AGENT;
	} else {
		r.nc = t == 1 ? 1 : onc[o];
		if (g_cfg.verify) {
			const uint32_t *up = &odata[(uint64_t)o * s->E];

			for (i = 0; i < n; i++)
				words[i] = (t == 1 ? 0 : up[i]) +
					   input(R, g, off + i);
		}
		member_addr(R, next, &dip, &dport);
	}
	len = build_frame(g_tx, h->ip, RINA_UDP_PORT_WORKER, dip, dport, r,
			  g_cfg.verify ? words : nullptr);
	tsent[o] = now_us();
	/*
	 * The timer, backed off on every resend as librina's: a worker's to
	 * 100 ms, a member's towards an INA member to 50 ms, another's to 4
	 * RTO within 50 ms .. 2 s, but there never below its first timeout:
	 * the simulator's timer floor (path_floor_us()) scales with the
	 * path and exceeds that cap on slow links (185 ms at 25 Mbit/s).
	 */
	if (retx) {
		uint64_t first = rto(), cap = inaw ? kSlotMaxUs : kRtoMaxUs;

		if (!to_slots()) {
			cap = 4 * first;
			cap = cap < kRtoMaxUs ? kRtoMaxUs :
			      cap > kRtoCeilUs ? kRtoCeilUs : cap;
			if (cap < first)
				cap = first;
		}
		g_st.retx++;
		if (tries[o] < 255)
			tries[o]++;
		orto[o] = 2 * orto[o] > cap ? cap : 2 * orto[o];
	} else {
		orto[o] = rto();
		if (inaw)
			inflight++;
	}
	dl[o] = tsent[o] + orto[o];
	if (!inaw)
		sendq.push_back(SentEnt{tsent[o], o});
	host_send(*h, g_tx, len);
	arm(dl[o]);
}

void RingPart::pump()
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
void RingPart::arm(uint64_t at)
{
	uint64_t now = now_us();

	if (tmr.IsRunning() && tmr_at <= at)
		return;
	if (tmr.IsRunning())
		tmr.Cancel();
	tmr_at = at > now ? at : now;
	tmr = Simulator::Schedule(MicroSeconds(tmr_at - now),
				  &RingPart::on_timer, this);
}

void RingPart::on_timer()
{
	tmr_at = ~0ULL;
	if (inaw)
		w_repair();
	else
		m_timer();
}

/* Is e the latest transmission of a packet not yet ACKed? */
bool RingPart::m_current(const SentEnt &e) const
{
	if (e.key < R->nord)
		return ost[e.key] == O_SENT && tsent[e.key] == e.t;
	return agst[e.key - R->nord] == 1 && agsent[e.key - R->nord] == e.t;
}

void RingPart::m_resend(uint32_t key, bool timeout)
{
	uint64_t now = now_us();

	if (g_cfg.trace)
		fprintf(stderr, "%.3f rank %u %s %s %u (lo %u scanned %u "
			"win %u srtt %lu)\n", now_us_f(), g,
			timeout ? "timeout" : "rack", key < R->nord ?
			"ordinal" : "ag seq", key < R->nord ? key :
			key - R->nord, lo, scanned, win(),
			(unsigned long)fl.rtt.srtt_us);
	if (!timeout) {
		g_st.fast_retx++;
		rina_cc_on_loss(&fl.cc, &fl.rtt, now);
	} else {
		g_st.timeouts++;
		/*
		 * Not for allgather data, which the simulator's member
		 * forwards unwindowed (librina: in the same window): they
		 * wait in the NIC behind the reduce-scatter window, and a
		 * timeout there is no sign of a path that lost everything.
		 */
		if (key < R->nord)
			rina_cc_on_timeout(&fl.cc, tries[key] + 1, &fl.rtt,
					   now);
	}
	if (key < R->nord)
		send_ord(key, true);
	else
		ag_send(key - R->nord, true);
}

/*
 * RACK (ring.c's retransmit()): a packet is lost once one sent after it,
 * by more than srtt / 4, has been ACKed; the paths are FIFO. Resent at
 * once; core/cc.c cuts once per round trip however many are lost. The
 * send queue is in send order, so the lost ones are at its head.
 */
void RingPart::m_rack()
{
	uint64_t reo = rina_rack_reo(&fl.rtt);

	while (!sendq.empty()) {
		SentEnt e = sendq.front();

		if (!m_current(e)) {
			sendq.pop_front();
			continue;
		}
		if (!rack_on || !rina_rack_lost(&rack, e.t, reo))
			break;
		sendq.pop_front();
		m_resend(e.key, false);
	}
}

/*
 * The timer resends only the oldest overdue packet, as TCP's RTO does
 * (ring.c): were the others lost too, RACK finds them as soon as this
 * one is ACKed. The other overdue ones wait one more timeout.
 */
void RingPart::m_timer()
{
	uint64_t now = now_us(), next = ~0ULL;
	std::deque<SentEnt> keep;
	uint32_t oldest = 0;
	bool any = false;

	for (const SentEnt &e : sendq) {
		uint64_t *d, r;

		if (!m_current(e))
			continue;
		keep.push_back(e);
		d = e.key < R->nord ? &dl[e.key] : &agdl[e.key - R->nord];
		r = e.key < R->nord ? orto[e.key] : agrto[e.key - R->nord];
		if (*d <= now) {
			if (!any) {
				oldest = e.key;
				any = true;
				continue;
			}
			*d = now + r;
		}
		if (*d < next)
			next = *d;
	}
	sendq.swap(keep);
	if (any)
		m_resend(oldest, true);	/* arms its own deadline */
	if (next != ~0ULL)
		arm(next);
}

/*
 * The probe timeout (ina_worker.c's wpto()): twice the smoothed RTT, or
 * twice the base RTT while RACK found a loss in the last 8 SRTT, the
 * job's timer before any sample; at least kPtoMinUs, doubled per probe
 * pass without a delivery, at most kSlotMaxUs.
 */
uint64_t RingPart::w_pto(uint64_t now) const
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
void RingPart::w_probe(uint64_t now, uint32_t credit, uint32_t *n,
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
void RingPart::w_repair()
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

void RingPart::sr_acked(uint32_t seq, bool ce, uint64_t now)
{
	struct rina_pkt_id id;
	uint64_t o;

	if (seq >= R->s.seqs)
		return;
	rina_seq_decode(&R->s, seq, &id);
	o = rina_ordinal(&R->s, sm, id.block, id.chunk, id.pkt);
	if (o >= R->nord || ost[o] != O_SENT)
		return;
	ost[o] = O_ACKED;
	acked++;
	if (inaw) {
		/* delivered: ina_worker.c's contrib_done() */
		inflight--;
		last_done = now;
		probes = 0;
		if (!tries[o])
			rina_rack_acked(&wrack[step_of((uint32_t)o)], tsent[o]);
	} else {
		/* the latest transmission's time, as ring.c */
		rina_rack_acked(&rack, tsent[o]);
	}
	if (!tries[o]) {
		rina_rtt_update(&fl.rtt, now - tsent[o], now);
		/*
		 * a worker's loss cuts only behind a queue, and its delay
		 * signal is the lowest sample of a round trip (core/cc.h):
		 * no single sample reaches on_ack, as in ina_worker.c
		 */
		if (inaw)
			rina_cc_rtt_sample(&fl.cc, now - tsent[o], &fl.rtt,
					   now);
		rina_cc_on_ack(&fl.cc, 1, ce, inaw ? 0 : now - tsent[o],
			       &fl.rtt, now);
	} else {
		rina_cc_on_ack(&fl.cc, 1, ce, 0, &fl.rtt, now);
	}
}

void RingPart::ag_send(uint32_t seq, bool retx)
{
	const struct rina_sched *s = &R->s;
	struct rina_pkt_id id;
	static uint32_t words[RINA_MAX_ELEMS];
	uint32_t dip, n, i;
	unsigned dport, len;
	uint64_t off;
	Hdr r;

	rina_seq_decode(s, seq, &id);
	n = rina_pkt_len(s, id.block, id.chunk, id.pkt);
	off = rina_pkt_off(s, id.block, id.chunk, id.pkt);
	r.op = RINA_OP_AG_DATA;
	r.flags = RINA_F_AG_PHASE | (retx ? RINA_F_RETX : 0);
	r.job = R->job;
	r.hop = aghop[seq];
	r.src = (uint16_t)lr;
	r.chunk = (uint16_t)id.chunk;
	r.seq = seq;
	r.n = (uint16_t)rina_wire_elems(n);
	r.P = (uint16_t)s->P;
	r.nc = (uint16_t)R->jd->n_ranks;
	words[0] = 0;
	if (g_cfg.verify)
		for (i = 0; i < n; i++)
			words[i] = g_result[g][view(R, off + i)];
	member_addr(R, next, &dip, &dport);
	len = build_frame(g_tx, h->ip, RINA_UDP_PORT_WORKER, dip, dport, r,
			  g_cfg.verify ? words : nullptr);
	agsent[seq] = now_us();
	if (retx) {
		uint64_t first = ag_rto(), cap = 4 * first;

		cap = cap < kRtoMaxUs ? kRtoMaxUs : cap > kRtoCeilUs ?
		      kRtoCeilUs : cap;
		if (cap < first)
			cap = first;
		g_st.retx++;
		if (agtries[seq] < 255)
			agtries[seq]++;
		agrto[seq] = 2 * agrto[seq] > cap ? cap : 2 * agrto[seq];
	} else {
		agrto[seq] = ag_rto();
	}
	agdl[seq] = agsent[seq] + agrto[seq];
	sendq.push_back(SentEnt{agsent[seq], R->nord + seq});
	host_send(*h, g_tx, len);
	arm(agdl[seq]);
}

void RingPart::ack_add(uint32_t seq, bool ag, uint32_t ip, unsigned port,
		       bool ce)
{
	std::vector<uint32_t> &v = ag ? ack_ag : ack_sr;

	if ((ack_ip != ip || ack_port != port) &&
	    (!ack_sr.empty() || !ack_ag.empty()))
		ack_flush();
	ack_ip = ip;
	ack_port = port;
	v.push_back(seq);
	if (ce)
		(ag ? ack_ce_ag : ack_ce_sr) = true;
	if (v.size() >= 16) {
		ack_flush();
		return;
	}
	if (!ack_ev.IsRunning())
		ack_ev = Simulator::Schedule(NanoSeconds(500),
					     &RingPart::ack_flush, this);
}

void RingPart::ack_flush()
{
	for (int ag = 0; ag < 2; ag++) {
		std::vector<uint32_t> &v = ag ? ack_ag : ack_sr;
		Hdr r;
		unsigned len;

		if (v.empty())
			continue;
		r.op = RINA_OP_ACK;
		r.flags = (ag ? RINA_F_AG_PHASE : 0) |
			  ((ag ? ack_ce_ag : ack_ce_sr) ? RINA_F_ECN_ECHO : 0);
		r.job = R->job;
		r.src = (uint16_t)lr;
		r.seq = v[0];
		r.n = (uint16_t)v.size();
		len = build_frame(g_tx, h->ip, RINA_UDP_PORT_WORKER, ack_ip,
				  ack_port, r, v.data());
		host_send(*h, g_tx, len);
		v.clear();
		(ag ? ack_ce_ag : ack_ce_sr) = false;
	}
	if (ack_ev.IsRunning())
		ack_ev.Cancel();
}

void RingPart::store_result(uint32_t seq, const uint8_t *f, bool own)
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
			g_result[g][view(R, off + i)] = f_word(f, i) +
				(own ? input(R, g, off + i) : 0);
	got += n;
}

void RingPart::check_done()
{
	if (finished || !started || got < target)
		return;
	finished = true;
	if (done)
		done(g, phase);
}

void RingPart::nack()
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
		member_addr(R, me, &dip, &dport);
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
					 &RingPart::nack, this);
}

void RingPart::rx(const uint8_t *f, unsigned len, bool ce)
{
	const struct rina_sched *s = &R->s;
	unsigned op = f_op(f), n = f_n(f), i, L = s->L;
	uint32_t seq = f_seq(f);
	uint64_t now = now_us();
	struct rina_pkt_id id;

	if (!started) {
		/*
		 * A phase (H-AR) that has not started here yet: keep the data
		 * and acknowledge it, as a receiver buffers a datagram.
		 */
		if (op == RINA_OP_SR_PARTIAL || op == RINA_OP_AG_DATA) {
			early.emplace_back(f, f + len);
			ack_add(seq, op == RINA_OP_AG_DATA, f_sip(f), f_sport(f),
				ce);
		}
		return;
	}
	if (op == RINA_OP_ACK) {
		bool cee = f_flags(f) & RINA_F_ECN_ECHO;

		for (i = 0; i < n; i++) {
			uint32_t sq = f_word(f, i);

			if (f_flags(f) & RINA_F_AG_PHASE) {
				if (inaw) {
					/* the agent holds our own chunk */
					if (sq < s->seqs) {
						rina_seq_decode(s, sq, &id);
						sr_acked(rina_seq(s, id.block,
							 id.chunk, id.pkt, 0),
							 cee, now);
					}
				} else if (sq < s->seqs && agst[sq] == 1) {
					agst[sq] = 2;
					rina_rack_acked(&rack, agsent[sq]);
					if (!agtries[sq])
						rina_rtt_update(&agrtt,
							now - agsent[sq], now);
				}
			} else {
				sr_acked(sq, cee, now);
			}
		}
		while (lo < R->nord &&
		       (ost[lo] == O_NONE || ost[lo] == O_ACKED))
			lo++;
		if (scanned < lo)
			scanned = lo;
		if (!inaw)
			m_rack();
		pump();
		if (inaw)
			w_repair();
		if (inaw && lo >= R->nord && got < target &&
		    !nack_timer.IsRunning())
			nack_timer = Simulator::Schedule(
				MicroSeconds(2 * fl.rto()), &RingPart::nack,
				this);
		return;
	}
	if (seq >= s->seqs)
		return;
	rina_seq_decode(s, seq, &id);
	if (op == RINA_OP_AG_DATA) {
		if (!id.ag)
			return;
		if (!ag_have[seq]) {
			ag_have[seq] = 1;
			store_result(seq, f, false);
			if (inaw) {
				/* own chunk: complete on the agent's word */
			} else if (f_hop(f) + 1u < L) {
				agst[seq] = 1;
				aghop[seq] = (uint8_t)(f_hop(f) + 1);
				ag_send(seq, false);
			}
			check_done();
		}
		if (!inaw)
			ack_add(seq, true, f_sip(f), f_sport(f), ce);
		return;
	}
	if (op != RINA_OP_SR_PARTIAL || inaw || id.ag)
		return;
	if (!sr_have[seq]) {
		uint32_t nn = rina_pkt_len(s, id.block, id.chunk, id.pkt);

		sr_have[seq] = 1;
		if (id.chunk == rina_own_chunk(me, L)) {
			uint32_t ags = rina_seq(s, id.block, id.chunk, id.pkt,
						1);

			store_result(ags, f, true);
			ag_have[ags] = 1;
			if (R->ag && L > 1) {
				agst[ags] = 1;
				aghop[ags] = 1;
				ag_send(ags, false);
			}
			check_done();
		} else {
			uint64_t o = rina_ordinal(s, next, id.block, id.chunk,
						  id.pkt);

			if (o < R->nord) {
				if (g_cfg.verify)
					for (i = 0; i < nn; i++)
						odata[o * s->E + i] =
							f_word(f, i);
				onc[o] = (uint16_t)(f_nc(f) + 1);
				if (ost[o] == O_WAIT) {
					ost[o] = O_READY;
					if (o < scanned) {
						if (o < lo + win()) {
							ost[o] = O_SENT;
							send_ord((uint32_t)o,
								 false);
						} else {
							scanned = (uint32_t)o;
						}
					}
					pump();
				}
			}
		}
	}
	ack_add(seq, false, f_sip(f), f_sport(f), ce);
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
	/* protocol.md section 4: with INA members P <= W/4 - 1 */
	if (rina_sched_init(&R->s, count, R->ring.L, g_cfg.E,
			    R->ina ? g_cfg.W / 4 : g_cfg.W) != RINA_SCHED_OK) {
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
	RingPart *p = new RingPart();
	unsigned lr = (unsigned)R->local[rank];
	const struct rina_member *mm;

	p->R = R;
	p->g = rank;
	p->lr = lr;
	p->me = R->ring.member_of[lr];
	mm = &R->ring.m[p->me];
	p->inaw = mm->ina;
	p->agent_host = mm->ina && mm->agent == lr;
	p->done = done;
	p->phase = phase;
	p->h = &g_hosts[rank];
	p->init();
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
	Hdr dummy;
	unsigned flen;

	if (len + kRina > sizeof(fr))
		return;
	dummy.n = 0;
	flen = build_frame(fr, rh->h->ip, RINA_UDP_PORT_AGENT, dip,
			   ntohs(to->port), dummy, nullptr);
	/* the agent's datagram replaces the header build_frame wrote */
	memcpy(fr + kRina, buf, len);
	flen = kRina + len;
	put16(fr + kEthIp + 2, flen - kEthIp);
	put16(fr + kUdp + 4, flen - kUdp);
	{
		unsigned i, sum = 0;

		put16(fr + kEthIp + 10, 0);
		for (i = 0; i < 20; i += 2)
			sum += get16(fr + kEthIp + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		put16(fr + kEthIp + 10, ~sum & 0xffff);
	}
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
	if (g_cfg.trace)
		for (auto *rh : g_rh)
			for (auto *p : rh ? rh->parts : std::vector<RingPart *>())
				if (!p->finished) {
					uint32_t miss = 0, sq;

					for (sq = 0; sq < p->R->s.seqs; sq++)
						miss += !p->ag_have[sq];
					fprintf(stderr, "# rank %u job %u: got "
						"%lu/%lu lo %u/%u scanned %u "
						"ag missing %u nack %d\n", p->g,
						p->R->job,
						(unsigned long)p->got,
						(unsigned long)p->target, p->lo,
						p->R->nord, p->scanned, miss,
						p->nack_timer.IsRunning());
				}
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
		member_addr(R, nx, &ip, &port);
		ac.next.ip = htonl(ip);
		ac.next.port = htons((uint16_t)port);
		member_addr(R, prev, &ip, &port);
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
