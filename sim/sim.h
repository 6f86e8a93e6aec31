// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-sim: the pieces the simulator's translation units share. The
 * network (net.cc: leaf-spine of ns-3 point-to-point links, ECN-marking
 * drop-tail queues, the CLI and the JSON report), the Rina hosts and the
 * INA ToR (rina.cc: the protocol from core/ and the C switch model from
 * p4/model), the plain ring member and the INA worker
 * (ring_member_host.cc, ina_worker_host.cc: core's engines) and the
 * baselines (baselines.cc: PS, ATP, SwitchML, H-AR).
 * Documentation/simulator.md describes the model.
 */
#ifndef RINA_SIM_H
#define RINA_SIM_H

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/point-to-point-channel.h"

extern "C" {
#include "plan.h"
#include "schedule.h"
#include "slot.h"
#include "wire.h"
#include "rtt.h"
#include "rack.h"
#include "cc.h"
#include "agent.h"
#include "engine_cfg.h"
#include "rina_tor_model.h"
#include "p4cfg.h"
}

namespace rsim {

using ns3::Ptr;

/* Frame layout: Ethernet | IPv4 | UDP | Rina header | payload. */
constexpr unsigned kEthIp = 14, kUdp = 34, kRina = 42, kPay = 70;

enum LinkClass {
	LC_HOST_UP,	/* worker -> its ToR */
	LC_HOST_DOWN,	/* ToR -> worker */
	LC_RACK_UP,	/* ToR -> spine */
	LC_RACK_DOWN,	/* spine -> ToR */
	LC_PS_UP,	/* parameter server -> spine */
	LC_PS_DOWN,	/* spine -> parameter server */
	LC_MAX,
};

struct Cfg {
	unsigned k = 2, m = 2;
	std::string scheme = "rina";
	std::vector<int> ina;		/* per rack */
	std::string ina_arg = "all";
	uint64_t size = 1 << 20;	/* bytes of int32 per worker */
	uint64_t B = 10000000000ULL;	/* host link, bit/s */
	uint64_t U = 0;			/* rack uplink, bit/s (0: B) */
	uint64_t Bdown = 0;		/* ToR -> host (0: B) */
	double delay_us = 1.0;		/* per link */
	unsigned E = 0;			/* elements per packet (0: default) */
	unsigned W = 256;		/* job window, packets */
	unsigned ps = 1;		/* parameter servers */
	unsigned qpkts = 1000;		/* switch queue, packets */
	unsigned ecn_k = 64;		/* ECN marking threshold, packets */
	unsigned host_q = 100000;	/* host NIC queue, packets */
	bool verify = true;		/* carry and check real int32 sums */
	bool json = false;
	bool trace = false;
	bool fault_result = false;	/* tests: corrupt one element */
	bool two_level = false;		/* ATP: the spine aggregates too */
	double limit_s = 60.0;		/* simulated time limit */
	unsigned rto_us = 0;		/* timer floor (0: from the path) */
	unsigned cc_target_us = 0;	/* queueing-delay target (0: auto) */
	unsigned cc_init = 16;		/* initial window, packets (job cc_init) */
	unsigned cc_flags = RINA_CC_F_LOSS | RINA_CC_F_ECN;
};

struct Stats {
	uint64_t bytes[LC_MAX] = {}, pkts[LC_MAX] = {}, payload[LC_MAX] = {};
	std::vector<uint64_t> host_tx, host_rx;		/* payload, by rank */
	std::vector<uint64_t> rack_up, rack_down;	/* payload, by rack */
	/* of which retransmitted (RETX: resent, or re-emitted by a ToR) */
	std::vector<uint64_t> host_tx_retx, host_rx_retx;
	std::vector<uint64_t> rack_up_retx, rack_down_retx;
	uint64_t drops_cls[LC_MAX] = {};
	uint64_t drops = 0, ecn_marks = 0, retx = 0, timeouts = 0;
	/* of retx: found lost by RACK, resent by an INA worker's probe */
	uint64_t fast_retx = 0, probes = 0;
	uint64_t agent_rx = 0;		/* payload to agent ports */
	uint64_t done = 0;		/* ranks holding the whole result */
	double t_start_us = 0, t_done_us = 0;
	uint64_t verify_errors = 0, elems_checked = 0;
	uint64_t tor_collisions = 0, tor_bypass = 0, tor_slots_done = 0;
	uint64_t agent_sw_slots = 0;
	uint64_t atp_fallback = 0;
	/* sends of ring members and INA workers held by core/txq.h */
	uint64_t txq_holds = 0;
};

class Endpoint;

/* A host: one ns-3 node with one link (to its ToR, or to the spine). */
struct Host {
	unsigned id;			/* rank, or N + s for server s */
	unsigned rack, idx;		/* idx inside the rack */
	uint32_t ip;			/* host order */
	bool server;
	Ptr<ns3::Node> node;
	Ptr<ns3::PointToPointNetDevice> dev;
	Endpoint *ep = nullptr;
};

/* What a scheme runs on a host. */
class Endpoint {
public:
	virtual ~Endpoint() {}
	virtual void Start() = 0;
	/* A frame for this host; ce: an ECN mark on the way. */
	virtual void Rx(const uint8_t *f, unsigned len, bool ce) = 0;
};

/* A frame a switch application may take instead of forwarding it. */
class SwitchApp {
public:
	virtual ~SwitchApp() {}
	/* true: consumed; in_port: the model's port number */
	virtual bool Rx(unsigned in_port, const uint8_t *f, unsigned len,
			bool ce) = 0;
};

/* ---- net.cc ---------------------------------------------------------- */

extern Cfg g_cfg;
extern Stats g_st;
extern std::vector<Host> g_hosts;	/* ranks, then servers */
extern unsigned g_N;

uint32_t rank_ip(unsigned rack, unsigned idx);
uint32_t tor_ip(unsigned rack);
uint32_t server_ip(unsigned s);
void ip_mac(uint32_t ip, uint8_t *mac);
uint64_t now_us();
double now_us_f();

/* Host h transmits frame f (copied). */
void host_send(Host &h, const uint8_t *f, unsigned len);
/* A ToR emits on a model port (0: uplink, 1 + i: local host i). */
void tor_send(unsigned rack, unsigned port, const uint8_t *f, unsigned len);
/* A ToR or the spine forwards a frame by destination address. */
void tor_forward(unsigned rack, const uint8_t *f, unsigned len, bool ce);
void spine_send_rack(unsigned rack, const uint8_t *f, unsigned len);
void spine_send_server(unsigned s, const uint8_t *f, unsigned len);
void set_tor_app(unsigned rack, SwitchApp *app);
void set_spine_app(SwitchApp *app);
/* Run f after the simulation, before the report. */
void sim_at_end(void (*f)());
/* A rank is done (holds the whole result). */
void rank_done(unsigned rank);

/* ---- frames ------------------------------------------------------------ */

struct Hdr {
	uint8_t op = 0, flags = 0, step = 0, hop = 0;
	uint16_t job = 7, round = 1, src = 0, chunk = 0, slot = 0, n = 0;
	uint16_t P = 0, nc = 0;
	uint32_t seq = 0;
};

static inline void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Build a frame into buf; words (host order) may be null: zeros. */
unsigned build_frame(uint8_t *buf, uint32_t sip, unsigned sport, uint32_t dip,
		     unsigned dport, const Hdr &h, const uint32_t *words);
/* A frame around a Rina datagram that core/ built (header and payload). */
unsigned wrap_frame(uint8_t *buf, uint32_t sip, unsigned sport, uint32_t dip,
		    unsigned dport, const void *dgram, unsigned len);

/* Frame field accessors. */
static inline uint32_t f_sip(const uint8_t *f) { return get32(f + 26); }
static inline uint32_t f_dip(const uint8_t *f) { return get32(f + 30); }
static inline unsigned f_sport(const uint8_t *f) { return get16(f + 34); }
static inline unsigned f_dport(const uint8_t *f) { return get16(f + 36); }
static inline unsigned f_op(const uint8_t *f) { return f[42] & 0xf; }
static inline unsigned f_flags(const uint8_t *f) { return f[43]; }
static inline unsigned f_job(const uint8_t *f) { return get16(f + 44); }
static inline unsigned f_hop(const uint8_t *f) { return f[49]; }
static inline unsigned f_src(const uint8_t *f) { return get16(f + 50); }
static inline unsigned f_chunk(const uint8_t *f) { return get16(f + 52); }
static inline uint32_t f_seq(const uint8_t *f) { return get32(f + 54); }
static inline unsigned f_n(const uint8_t *f) { return get16(f + 60); }
static inline unsigned f_nc(const uint8_t *f) { return get16(f + 64); }
static inline uint32_t f_word(const uint8_t *f, unsigned i)
{
	return get32(f + kPay + 4 * i);
}

/* The test tensor: rank r's element i, and the sum over N ranks. */
static inline uint32_t tensor_val(unsigned r, uint64_t i)
{
	return (uint32_t)(r + 1) * (uint32_t)(i % 1009 + 1) +
	       (uint32_t)(i / 7);
}

static inline uint32_t tensor_sum(unsigned N, uint64_t i)
{
	return (uint32_t)((uint64_t)N * (N + 1) / 2) *
	       (uint32_t)(i % 1009 + 1) + (uint32_t)N * (uint32_t)(i / 7);
}

void check_elem(unsigned N, uint64_t i, uint32_t v);

/*
 * A timer floor for the path: a full window (or a full switch queue, for
 * a server) queued at the slowest link, plus the propagation delays.
 */
uint64_t path_floor_us(unsigned pkts);
unsigned cc_target_us();
void job_cc(struct rina_job_desc *jd);

/* ---- a sender's window, timers and congestion control ---------------- */

struct Flow {
	struct rina_cc cc;
	struct rina_rtt rtt;
	uint64_t floor_us;	/* timer before any sample, and its floor */
	void init(unsigned W, uint64_t floor_us);
	unsigned window() const { return rina_cc_window(&cc); }
	uint64_t rto() const { return rto_of(&rtt, floor_us); }
	/* the timeout for an estimator and a floor (path_floor_us) */
	static uint64_t rto_of(const struct rina_rtt *rtt, uint64_t floor_us);
};

/*
 * A sender's retransmission timer (PS, ATP and SwitchML workers; Rina's
 * ring members and INA workers repair in core's engines): the packets in the order of
 * their last transmission, one ns-3 timer on the oldest still
 * unACKed. The owner keeps the per-packet state and says, through the callbacks,
 * which packets are unACKed, when each went out, the timeout, and how to
 * resend one; its send path calls sent() and then arm().
 */
struct RetxTimer {
	std::function<bool(uint32_t)> unacked;
	std::function<uint64_t(uint32_t)> sent_us;
	std::function<uint64_t()> rto;
	/* first: the first packet of this expiry (one loss event for cc) */
	std::function<void(uint32_t, bool first)> resend;

	void sent(uint32_t i) { fifo.push_back(i); }
	void arm();

private:
	std::deque<uint32_t> fifo;
	ns3::EventId timer;
	void fire();
};

/* ---- rina.cc: Rina and the rings (RAR, H-AR phases) --------------------- */

int rina_setup();		/* schemes rina and rar */

/* A ring: Rina's (job 7), or one of H-AR's phases (its own job). */
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

/* The tensor's index of a ring's element i (ring_set_view()). */
uint64_t ring_view(const Ring *R, uint64_t i);
/* Rank g's input to a ring: the test tensor, or an earlier phase's result */
uint32_t ring_input(const Ring *R, unsigned g, uint64_t i);
/* Member k's address: its agent's ip, and the agent's port if INA. */
void ring_member_addr(const Ring *R, unsigned k, uint32_t *ip,
		      unsigned *port);

/*
 * One rank's part in a ring: a plain member (ring_member_host.cc, core's
 * ring member engine) or an INA rack's worker (ina_worker_host.cc, core's
 * INA worker engine).
 */
struct RingPart {
	Ring *R;
	unsigned g;		/* simulator rank */
	unsigned lr;		/* ring rank */
	unsigned me;		/* member index */
	int phase;
	void (*done)(unsigned, int);
	Host *h;
	bool started = false, finished = false;

	virtual ~RingPart() {}
	virtual void start() = 0;
	virtual void rx(const uint8_t *f, unsigned len, bool ce) = 0;
	/* --trace: where a part the run left unfinished stands */
	virtual void trace_unfinished() const {}
};

/* A plain member of R at rank (ring_member_host.cc). */
RingPart *plain_member_new(Ring *R, unsigned rank);
/* An INA rack's worker of R at rank (ina_worker_host.cc). */
RingPart *ina_worker_new(Ring *R, unsigned rank);
/*
 * Where rank g's part reduces (ring_member_host.cc): its result, or own
 * for a ring with a view (ring_result_out() copies it back), or with
 * --no-verify one zeroed buffer all parts share.
 */
int32_t *ring_acc(const Ring *R, unsigned g, std::vector<int32_t> &own);
void ring_result_out(const Ring *R, unsigned g,
		     const std::vector<int32_t> &own);

/*
 * The session the ring's first agent draws: the simulated ranks say no
 * HELLO and carry no secret, so any number will do; a fixed one keeps
 * runs reproducible.
 */
#define SIM_SESSION	0x5e55105e55105eULL
/* A frame from rank's host to its own address: delivered in the host. */
void local_deliver(unsigned rank, const uint8_t *f, unsigned len);
/* The ToR of the rack whose agent rank hosts aggregates (the agent's). */
bool agent_tor_on(unsigned rank);

/* H-AR (baselines.cc) builds its rings with these. */
Ring *ring_new(const std::vector<unsigned> &ranks, uint16_t job, uint64_t count,
	       bool rs, bool ag);
/* Element map of a ring: its index i -> the tensor's index. */
void ring_set_view(Ring *r, const struct rina_sched *base, unsigned chunk);
RingPart *ring_join(Ring *r, unsigned rank, void (*done)(unsigned rank,
							 int phase),
		    int phase);
void ring_start(RingPart *p);
uint64_t ring_count(const Ring *r);
const struct rina_sched *ring_sched(const Ring *r);
void rina_sim_hosts_init();
/* The elements a ring's member holds reduced after reduce-scatter. */
bool ring_rx(unsigned rank, const uint8_t *f, unsigned len, bool ce);

/* ---- baselines.cc ------------------------------------------------------ */

int ps_setup();			/* ps, atp, switchml */
int har_setup();

/* A per-rank result store for verify mode (H-AR phases share it). */
extern std::vector<std::vector<uint32_t>> g_result;

} // namespace rsim

#endif /* RINA_SIM_H */
