// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-sim's network and command line: a leaf-spine of k racks of m hosts
 * on ns-3 point-to-point links (host links B, one rack uplink of U per
 * ToR, a non-blocking spine, parameter servers on the spine), drop-tail
 * queues that mark ECN above a threshold, forwarding by IPv4 destination,
 * byte counters per link class, and the JSON report.
 */
#include "sim.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>

using namespace ns3;

namespace rsim {

Cfg g_cfg;
Stats g_st;
std::vector<Host> g_hosts;
unsigned g_N;
std::vector<std::vector<uint32_t>> g_result;

/* ---- the queue: drop-tail with a marking threshold -------------------- */

/* An ECN mark (CE) travels as a packet tag: the frames carry no ECN bits. */
class CeTag : public Tag {
public:
	static TypeId GetTypeId()
	{
		static TypeId tid = TypeId("rsim::CeTag")
			.SetParent<Tag>()
			.AddConstructor<CeTag>();
		return tid;
	}
	TypeId GetInstanceTypeId() const override { return GetTypeId(); }
	uint32_t GetSerializedSize() const override { return 0; }
	void Serialize(TagBuffer) const override {}
	void Deserialize(TagBuffer) override {}
	void Print(std::ostream &) const override {}
};

/* --trace: what a queue dropped (the frame starts after PPP's 2 bytes) */
static void trace_drop(Ptr<Packet> p, int cls)
{
	uint8_t f[kPay + 2];

	if (p->CopyData(f, sizeof(f)) < sizeof(f))
		return;
	fprintf(stderr, "%.3f drop class %d op %u fl %02x %08x -> %08x seq %u "
		"slot %u\n", now_us_f(), cls, f_op(f + 2), f_flags(f + 2),
		f_sip(f + 2), f_dip(f + 2), f_seq(f + 2), get16(f + 2 + 58));
}

class EcnQueue : public Queue<Packet> {
public:
	static TypeId GetTypeId()
	{
		static TypeId tid = TypeId("rsim::EcnQueue")
			.SetParent<Queue<Packet>>()
			.AddConstructor<EcnQueue>();
		return tid;
	}
	unsigned mark_k = ~0u;
	int cls = 0;
	bool Enqueue(Ptr<Packet> p) override
	{
		if (GetNPackets() >= mark_k) {
			CeTag t;

			if (!p->PeekPacketTag(t)) {
				p->AddPacketTag(t);
				g_st.ecn_marks++;
			}
		}
		if (!DoEnqueue(GetContainer().end(), p)) {
			g_st.drops++;
			g_st.drops_cls[cls]++;
			if (g_cfg.trace)
				trace_drop(p, cls);
			return false;
		}
		return true;
	}
	Ptr<Packet> Dequeue() override
	{
		return DoDequeue(GetContainer().begin());
	}
	Ptr<Packet> Remove() override
	{
		return DoRemove(GetContainer().begin());
	}
	Ptr<const Packet> Peek() const override
	{
		return DoPeek(GetContainer().begin());
	}
};

/* ---- nodes ----------------------------------------------------------------- */

struct Port {
	Ptr<PointToPointNetDevice> dev;
	LinkClass cls;
};

struct Switch {
	Ptr<Node> node;
	std::vector<Port> ports;	/* ToR: 0 uplink, 1 + i host i */
	SwitchApp *app = nullptr;
	unsigned rack;
};

static std::vector<Switch> g_tors;
static Switch g_spine;		/* ports: racks 0..k-1, then servers */
static uint8_t g_buf[RINA_TOR_FRAME_MAX];

uint32_t rank_ip(unsigned rack, unsigned idx)
{
	return 198u << 24 | 18u << 16 | rack << 8 | (10 + idx);
}

uint32_t tor_ip(unsigned rack)
{
	return 198u << 24 | 18u << 16 | rack << 8 | 1;
}

uint32_t server_ip(unsigned s)
{
	return 198u << 24 | 19u << 16 | (10 + s);
}

void ip_mac(uint32_t ip, uint8_t *mac)
{
	mac[0] = 2;
	mac[1] = 0;
	put32(mac + 2, ip);
}

uint64_t now_us()
{
	return (uint64_t)Simulator::Now().GetMicroSeconds();
}

double now_us_f()
{
	return Simulator::Now().GetNanoSeconds() / 1000.0;
}

unsigned build_frame(uint8_t *d, uint32_t sip, unsigned sport, uint32_t dip,
		     unsigned dport, const Hdr &r, const uint32_t *words)
{
	unsigned ulen = 8 + RINA_HDR_LEN + 4u * r.n, i, sum = 0;
	uint8_t *x;

	ip_mac(dip, d);
	ip_mac(sip, d + 6);
	put16(d + 12, 0x0800);
	x = d + kEthIp;
	x[0] = 0x45;
	x[1] = 0;
	put16(x + 2, 20 + ulen);
	put16(x + 4, 0);
	put16(x + 6, 0x4000);
	x[8] = 64;
	x[9] = 17;
	put16(x + 10, 0);
	put32(x + 12, sip);
	put32(x + 16, dip);
	for (i = 0; i < 20; i += 2)
		sum += get16(x + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(x + 10, ~sum & 0xffff);
	x = d + kUdp;
	put16(x, sport);
	put16(x + 2, dport);
	put16(x + 4, ulen);
	put16(x + 6, 0);
	x = d + kRina;
	x[0] = RINA_VERSION << 4 | r.op;
	x[1] = r.flags;
	put16(x + 2, r.job);
	put16(x + 4, r.round);
	x[6] = r.step;
	x[7] = r.hop;
	put16(x + 8, r.src);
	put16(x + 10, r.chunk);
	put32(x + 12, r.seq);
	put16(x + 16, r.slot);
	put16(x + 18, r.n);
	put16(x + 20, r.P);
	put16(x + 22, r.nc);
	x[24] = 0x80;
	x[25] = RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM);
	put16(x + 26, 0);
	if (words)
		for (i = 0; i < r.n; i++)
			put32(x + 28 + 4 * i, words[i]);
	else
		memset(x + 28, 0, 4u * r.n);
	return kUdp + ulen;
}

unsigned wrap_frame(uint8_t *d, uint32_t sip, unsigned sport, uint32_t dip,
		    unsigned dport, const void *dgram, unsigned len)
{
	unsigned flen = kRina + len, i, sum = 0;
	uint8_t *x = d + kEthIp;
	Hdr none;

	/* the L2-L4 headers of an empty datagram, then its length */
	build_frame(d, sip, sport, dip, dport, none, nullptr);
	memcpy(d + kRina, dgram, len);
	put16(x + 2, flen - kEthIp);
	put16(d + kUdp + 4, flen - kUdp);
	put16(x + 10, 0);
	for (i = 0; i < 20; i += 2)
		sum += get16(x + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(x + 10, ~sum & 0xffff);
	return flen;
}

void check_elem(unsigned N, uint64_t i, uint32_t v)
{
	g_st.elems_checked++;
	if (v != tensor_sum(N, i)) {
		if (!g_st.verify_errors && g_cfg.trace)
			fprintf(stderr, "# element %" PRIu64 ": %u != %u\n", i,
				v, tensor_sum(N, i));
		g_st.verify_errors++;
	}
}

static unsigned data_payload(const uint8_t *f, unsigned len)
{
	unsigned op;

	if (len < kPay)
		return 0;
	op = f_op(f);
	if (op < RINA_OP_SR_CONTRIB || op > RINA_OP_AG_DATA)
		return 0;
	return 4 * f_n(f);
}

static void dev_send(Ptr<PointToPointNetDevice> dev, LinkClass c,
		     const uint8_t *f, unsigned len)
{
	Ptr<Packet> p = Create<Packet>(f, len);

	g_st.bytes[c] += len;
	g_st.pkts[c]++;
	g_st.payload[c] += data_payload(f, len);
	dev->Send(p, dev->GetBroadcast(), 0x0800);
}

void host_send(Host &h, const uint8_t *f, unsigned len)
{
	unsigned pl = data_payload(f, len);

	if (!h.server) {
		g_st.host_tx[h.id] += pl;
		if (f_flags(f) & RINA_F_RETX)
			g_st.host_tx_retx[h.id] += pl;
	}
	dev_send(h.dev, h.server ? LC_PS_UP : LC_HOST_UP, f, len);
}

void tor_send(unsigned rack, unsigned port, const uint8_t *f, unsigned len)
{
	Switch &s = g_tors[rack];

	if (port >= s.ports.size())
		return;
	if (port == 0) {
		g_st.rack_up[rack] += data_payload(f, len);
		if (len >= kPay && (f_flags(f) & RINA_F_RETX))
			g_st.rack_up_retx[rack] += data_payload(f, len);
	}
	dev_send(s.ports[port].dev, s.ports[port].cls, f, len);
}

void spine_send_rack(unsigned rack, const uint8_t *f, unsigned len)
{
	g_st.rack_down[rack] += data_payload(f, len);
	if (len >= kPay && (f_flags(f) & RINA_F_RETX))
		g_st.rack_down_retx[rack] += data_payload(f, len);
	dev_send(g_spine.ports[rack].dev, LC_RACK_DOWN, f, len);
}

void spine_send_server(unsigned s, const uint8_t *f, unsigned len)
{
	dev_send(g_spine.ports[g_cfg.k + s].dev, LC_PS_DOWN, f, len);
}

void tor_forward(unsigned rack, const uint8_t *f, unsigned len, bool)
{
	uint32_t dip = f_dip(f);

	if ((dip >> 16) == (198u << 8 | 18u) && ((dip >> 8) & 0xff) == rack) {
		unsigned h = dip & 0xff;

		if (h >= 10)
			tor_send(rack, 1 + h - 10, f, len);
		return;
	}
	tor_send(rack, 0, f, len);
}

static void spine_forward(const uint8_t *f, unsigned len)
{
	uint32_t dip = f_dip(f);

	if ((dip >> 16) == (198u << 8 | 19u)) {
		unsigned s = (dip & 0xff) - 10;

		if (s < g_cfg.ps)
			spine_send_server(s, f, len);
		return;
	}
	if (((dip >> 8) & 0xff) < g_cfg.k)
		spine_send_rack((dip >> 8) & 0xff, f, len);
}

void set_tor_app(unsigned rack, SwitchApp *app)
{
	g_tors[rack].app = app;
}

void set_spine_app(SwitchApp *app)
{
	g_spine.app = app;
}

static std::vector<void (*)()> g_at_end;

void sim_at_end(void (*f)())
{
	g_at_end.push_back(f);
}

void rank_done(unsigned)
{
	g_st.done++;
	g_st.t_done_us = now_us_f();
	/*
	 * The result is complete everywhere; let what is in flight (the
	 * last ACKs, padding packets after the last element) arrive so
	 * that the byte counts are those of the whole allreduce.
	 */
	if (g_st.done == g_N)
		Simulator::Stop(MicroSeconds(path_floor_us(g_cfg.W)));
}

/* ---- receive paths ----------------------------------------------------- */

static unsigned copy_in(Ptr<const Packet> p, bool *ce)
{
	unsigned len = p->GetSize();
	CeTag t;

	if (len > sizeof(g_buf))
		len = sizeof(g_buf);
	p->CopyData(g_buf, len);
	*ce = p->PeekPacketTag(t);
	return len;
}

static void host_rx(Host *h, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t,
		    const Address &, const Address &, NetDevice::PacketType)
{
	bool ce;
	unsigned len = copy_in(p, &ce);

	/*
	 * Per host link: the agent's copies (its port) count for its host,
	 * whose worker gets its own from the agent in the host (rw_host),
	 * and apart as agent_port_rx.
	 */
	if (!h->server) {
		unsigned pl = data_payload(g_buf, len);

		if (len >= kPay && f_dport(g_buf) == RINA_UDP_PORT_AGENT)
			g_st.agent_rx += pl;
		g_st.host_rx[h->id] += pl;
		if (len >= kPay && (f_flags(g_buf) & RINA_F_RETX))
			g_st.host_rx_retx[h->id] += pl;
	}
	if (h->ep)
		h->ep->Rx(g_buf, len, ce);
}

static void tor_rx(unsigned rack, unsigned port, Ptr<NetDevice>,
		   Ptr<const Packet> p, uint16_t, const Address &,
		   const Address &, NetDevice::PacketType)
{
	bool ce;
	unsigned len = copy_in(p, &ce);
	Switch &s = g_tors[rack];

	if (port == 0)
		; /* counted at the spine */
	if (s.app && s.app->Rx(port, g_buf, len, ce))
		return;
	tor_forward(rack, g_buf, len, ce);
}

static void spine_rx(unsigned port, Ptr<NetDevice>, Ptr<const Packet> p,
		     uint16_t, const Address &, const Address &,
		     NetDevice::PacketType)
{
	bool ce;
	unsigned len = copy_in(p, &ce);

	if (g_spine.app && g_spine.app->Rx(port, g_buf, len, ce))
		return;
	spine_forward(g_buf, len);
}

/* ---- topology ------------------------------------------------------------ */

static Ptr<PointToPointNetDevice> new_dev(Ptr<Node> n, uint64_t rate,
					  unsigned qpkts, unsigned mark,
					  int cls)
{
	Ptr<PointToPointNetDevice> d = CreateObject<PointToPointNetDevice>();
	Ptr<EcnQueue> q = CreateObject<EcnQueue>();

	q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, qpkts));
	q->mark_k = mark;
	q->cls = cls;
	d->SetQueue(q);
	d->SetDataRate(DataRate(rate));
	d->SetAddress(Mac48Address::Allocate());
	d->SetMtu(9216);
	n->AddDevice(d);
	return d;
}

static void link(Ptr<PointToPointNetDevice> a, Ptr<PointToPointNetDevice> b)
{
	Ptr<PointToPointChannel> ch = CreateObject<PointToPointChannel>();

	ch->SetAttribute("Delay", TimeValue(NanoSeconds(
		(int64_t)(g_cfg.delay_us * 1000))));
	a->Attach(ch);
	b->Attach(ch);
}

static void build_topology()
{
	unsigned k = g_cfg.k, m = g_cfg.m, r, i, s;
	uint64_t U = g_cfg.U ? g_cfg.U : g_cfg.B;

	g_N = k * m;
	g_hosts.resize(g_N + g_cfg.ps);
	g_tors.resize(k);
	g_st.host_tx.assign(g_N, 0);
	g_st.host_rx.assign(g_N, 0);
	g_st.rack_up.assign(k, 0);
	g_st.host_tx_retx.assign(g_N, 0);
	g_st.host_rx_retx.assign(g_N, 0);
	g_st.rack_up_retx.assign(k, 0);
	g_st.rack_down_retx.assign(k, 0);
	g_st.rack_down.assign(k, 0);
	g_spine.node = CreateObject<Node>();
	for (r = 0; r < k; r++) {
		Switch &t = g_tors[r];
		Ptr<PointToPointNetDevice> up, sp;

		t.rack = r;
		t.node = CreateObject<Node>();
		up = new_dev(t.node, U, g_cfg.qpkts, g_cfg.ecn_k, LC_RACK_UP);
		sp = new_dev(g_spine.node, U, g_cfg.qpkts, g_cfg.ecn_k,
			     LC_RACK_DOWN);
		link(up, sp);
		t.ports.push_back({ up, LC_RACK_UP });
		g_spine.ports.push_back({ sp, LC_RACK_DOWN });
		for (i = 0; i < m; i++) {
			Host &h = g_hosts[r * m + i];
			Ptr<PointToPointNetDevice> td;

			h.id = r * m + i;
			h.rack = r;
			h.idx = i;
			h.server = false;
			h.ip = rank_ip(r, i);
			h.node = CreateObject<Node>();
			h.dev = new_dev(h.node, g_cfg.B, g_cfg.host_q, ~0u,
					 LC_HOST_UP);
			td = new_dev(t.node, g_cfg.Bdown ? g_cfg.Bdown :
				     g_cfg.B, g_cfg.qpkts, g_cfg.ecn_k,
				     LC_HOST_DOWN);
			link(h.dev, td);
			t.ports.push_back({ td, LC_HOST_DOWN });
		}
	}
	for (s = 0; s < g_cfg.ps; s++) {
		Host &h = g_hosts[g_N + s];
		Ptr<PointToPointNetDevice> sd;

		h.id = g_N + s;
		h.rack = k;
		h.idx = s;
		h.server = true;
		h.ip = server_ip(s);
		h.node = CreateObject<Node>();
		h.dev = new_dev(h.node, g_cfg.B, g_cfg.host_q, ~0u, LC_PS_UP);
		sd = new_dev(g_spine.node, g_cfg.B, g_cfg.qpkts, g_cfg.ecn_k,
			     LC_PS_DOWN);
		link(h.dev, sd);
		g_spine.ports.push_back({ sd, LC_PS_DOWN });
	}
	for (auto &h : g_hosts)
		h.node->RegisterProtocolHandler(MakeBoundCallback(&host_rx, &h),
						0x0800, h.dev, false);
	for (r = 0; r < k; r++)
		for (i = 0; i < g_tors[r].ports.size(); i++)
			g_tors[r].node->RegisterProtocolHandler(
				MakeBoundCallback(&tor_rx, r, i), 0x0800,
				g_tors[r].ports[i].dev, false);
	for (i = 0; i < g_spine.ports.size(); i++)
		g_spine.node->RegisterProtocolHandler(
			MakeBoundCallback(&spine_rx, i), 0x0800,
			g_spine.ports[i].dev, false);
}

/* ---- Flow: every sender's congestion control ----------------------------- */

uint64_t path_floor_us(unsigned pkts)
{
	uint64_t r = g_cfg.U && g_cfg.U < g_cfg.B ? g_cfg.U : g_cfg.B;
	double ser = (70.0 + 4 * g_cfg.E) * 8 / (double)r * 1e6;
	double f = 2 * (8 * g_cfg.delay_us + (pkts + 8) * ser);

	if (g_cfg.rto_us)
		return g_cfg.rto_us;
	return f < 200 ? 200 : (uint64_t)f;
}

void Flow::init(unsigned W, uint64_t floor)
{
	struct rina_cc_params p;

	rina_cc_params_default(&p, W);
	/*
	 * The job's cc_init (librina's 16 by default; --cc-init): the
	 * latency-bound validation starts at the job window, as datacenter
	 * transports start near line rate, so that slow start does not add
	 * round trips the completion-time model (RESEARCH.md 4.2) has not.
	 */
	p.w_init = g_cfg.cc_init < W ? g_cfg.cc_init : W;
	/*
	 * Loss and ECN (DCTCP) by default: the switches mark, and an INA
	 * worker's round trip includes waiting for the other contributors
	 * of its slot, which a delay target would take for queueing.
	 */
	p.flags = g_cfg.cc_flags;
	p.target_us = cc_target_us();
	rina_cc_init(&cc, &p);
	memset(&rtt, 0, sizeof(rtt));
	floor_us = floor;
}

/* --cc-target, or a few base round trips of queueing at the job's rate */
unsigned cc_target_us()
{
	if (g_cfg.cc_target_us)
		return g_cfg.cc_target_us;
	return (unsigned)(20 * g_cfg.delay_us) + 20;
}

/*
 * The simulator's congestion knobs (Flow::init()'s) as a job's cc, cc_init
 * and cc_target_us directives: the engines' senders take theirs from the
 * job through rina_job_cc_params(), as librina's do.
 */
void job_cc(struct rina_job_desc *jd)
{
	jd->cc = g_cfg.cc_flags ? (uint16_t)g_cfg.cc_flags : RINA_JOB_CC_OFF;
	jd->cc_init = (uint16_t)g_cfg.cc_init;
	jd->cc_target_us = cc_target_us();
}

uint64_t Flow::rto_of(const struct rina_rtt *rtt, uint64_t floor_us)
{
	uint64_t r;

	/* before the first sample: conservative, as RFC 6298's 1 s */
	if (!rtt->srtt_us)
		return 10 * floor_us;
	r = rina_rtt_rto(rtt, floor_us, floor_us > 50000 ? 2 * floor_us :
			 50000);

	/*
	 * The simulated paths have almost no jitter, so RTTVAR goes to zero
	 * and srtt + 4 rttvar sits just above the mean: one burst of
	 * allgather data in the NIC then fires every timer of the window.
	 * At least two round trips, as a real stack's coarse timers give.
	 */
	return r < 2 * rtt->srtt_us ? 2 * rtt->srtt_us : r;
}

void RetxTimer::arm()
{
	uint64_t at, now = now_us();

	if (timer.IsRunning() || fifo.empty())
		return;
	at = sent_us(fifo.front()) + rto();
	timer = Simulator::Schedule(MicroSeconds(at > now ? at - now : 0),
				    &RetxTimer::fire, this);
}

/*
 * Resend what expired, oldest first, at most 64 packets an expiry: a
 * burst of timeouts goes out in rounds of 64 (the next round is armed at
 * once), each behind what the rest of the simulation has scheduled for
 * that instant. Entries no longer unACKed are dropped on the way.
 */
void RetxTimer::fire()
{
	uint64_t now = now_us(), r = rto();
	unsigned n = 0;

	while (!fifo.empty()) {
		uint32_t i = fifo.front();

		if (!unacked(i)) {
			fifo.pop_front();
			continue;
		}
		if (sent_us(i) + r > now || n >= 64)
			break;
		fifo.pop_front();
		resend(i, n == 0);
		n++;
	}
	arm();
}

/* ---- command line --------------------------------------------------------- */

static int parse_size(const char *s, uint64_t *v)
{
	char *e;
	double x = strtod(s, &e);

	if (e == s || x <= 0)
		return -1;
	switch (*e) {
	case 'k': case 'K': x *= 1024; e++; break;
	case 'm': case 'M': x *= 1024 * 1024; e++; break;
	case 'g': case 'G': x *= 1024.0 * 1024 * 1024; e++; break;
	}
	if (*e == 'B' || *e == 'b')
		e++;
	if (*e)
		return -1;
	*v = (uint64_t)x;
	return 0;
}

/* tc syntax: 10gbit, 25mbit, 100kbit, 1000bit, also bps units (bytes). */
static int parse_rate(const char *s, uint64_t *v)
{
	char *e;
	double x = strtod(s, &e);
	std::string u;

	if (e == s || x <= 0)
		return -1;
	u = e;
	for (auto &c : u)
		c = (char)tolower(c);
	if (u == "bit" || u.empty())
		;
	else if (u == "kbit")
		x *= 1e3;
	else if (u == "mbit")
		x *= 1e6;
	else if (u == "gbit")
		x *= 1e9;
	else if (u == "tbit")
		x *= 1e12;
	else if (u == "bps")
		x *= 8;
	else if (u == "kbps")
		x *= 8e3;
	else if (u == "mbps")
		x *= 8e6;
	else if (u == "gbps")
		x *= 8e9;
	else
		return -1;
	*v = (uint64_t)x;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: rina-sim --topo KxM --scheme rar|har|ps|atp|switchml|rina\n"
"                [--ina all|none|I,J,...] --size SIZE --link-rate RATE\n"
"                [--uplink-rate RATE] [--delay US] [--json]\n"
"                [--elems E] [--window W] [--ps N] [--queue PKTS]\n"
"                [--ecn-k PKTS] [--rto US] [--no-verify] [--limit S]\n"
"                [--cc loss,ecn,delay|all|fixed] [--cc-init PKTS]\n"
"                [--host-down-rate RATE] [--two-level]\n"
"  SIZE: bytes of int32 per worker, K/M/G suffixes (1M = 1 MiB)\n"
"  RATE: tc syntax (10gbit, 25mbit)\n");
}

static int fail(const char *msg, const char *arg)
{
	fprintf(stderr, "rina-sim: %s%s%s\n", msg, arg ? ": " : "",
		arg ? arg : "");
	return 2;
}

static int parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
		bool has = false;

		if (a == "-h" || a == "--help") {
			usage(stdout);
			exit(0);
		} else if (a == "--json" || a == "-j") {
			g_cfg.json = true;
		} else if (a == "--no-verify") {
			g_cfg.verify = false;
		} else if (a == "--verify") {
			g_cfg.verify = true;
		} else if (a == "--trace") {
			g_cfg.trace = true;
		} else if (a == "--two-level") {
			g_cfg.two_level = true;
		} else if (a == "--agent-copy-local") {
			fprintf(stderr, "rina-sim: --agent-copy-local is gone: "
				"the ToR now sends the agent's host each result "
				"once (rw_host; protocol-ina.md 5)\n");
			exit(2);
		} else if (a == "--fault-result") {
			g_cfg.fault_result = true;
		} else {
			has = true;
		}
		if (!has)
			continue;
		if (!v)
			return fail("missing value", a.c_str());
		i++;
		if (a == "--topo") {
			if (sscanf(v, "%ux%u", &g_cfg.k, &g_cfg.m) != 2 ||
			    !g_cfg.k || !g_cfg.m)
				return fail("bad --topo (KxM)", v);
		} else if (a == "--scheme") {
			g_cfg.scheme = v;
		} else if (a == "--ina") {
			g_cfg.ina_arg = v;
		} else if (a == "--size") {
			if (parse_size(v, &g_cfg.size))
				return fail("bad --size", v);
		} else if (a == "--link-rate") {
			if (parse_rate(v, &g_cfg.B))
				return fail("bad --link-rate", v);
		} else if (a == "--host-down-rate") {
			if (parse_rate(v, &g_cfg.Bdown))
				return fail("bad --host-down-rate", v);
		} else if (a == "--uplink-rate") {
			if (parse_rate(v, &g_cfg.U))
				return fail("bad --uplink-rate", v);
		} else if (a == "--delay") {
			g_cfg.delay_us = atof(v);
			if (g_cfg.delay_us < 0)
				return fail("bad --delay", v);
		} else if (a == "--elems") {
			g_cfg.E = (unsigned)atoi(v);
		} else if (a == "--window") {
			g_cfg.W = (unsigned)atoi(v);
		} else if (a == "--ps") {
			g_cfg.ps = (unsigned)atoi(v);
		} else if (a == "--queue") {
			g_cfg.qpkts = (unsigned)atoi(v);
		} else if (a == "--ecn-k") {
			g_cfg.ecn_k = (unsigned)atoi(v);
		} else if (a == "--rto") {
			g_cfg.rto_us = (unsigned)atoi(v);
		} else if (a == "--cc-target") {
			g_cfg.cc_target_us = (unsigned)atoi(v);
		} else if (a == "--cc-init") {
			char *e;
			long n = strtol(v, &e, 10);

			/* the job file's cc_init range (job-file.md) */
			if (*e || e == v || n < 1 || n > 32768)
				return fail("bad --cc-init (packets, 1..32768)",
					    v);
			g_cfg.cc_init = (unsigned)n;
		} else if (a == "--cc") {
			std::string c = v;

			g_cfg.cc_flags = 0;
			if (c.find("loss") != std::string::npos)
				g_cfg.cc_flags |= RINA_CC_F_LOSS;
			if (c.find("delay") != std::string::npos)
				g_cfg.cc_flags |= RINA_CC_F_DELAY;
			if (c.find("ecn") != std::string::npos)
				g_cfg.cc_flags |= RINA_CC_F_ECN;
			if (c == "all")
				g_cfg.cc_flags = RINA_CC_F_ALL;
		} else if (a == "--limit") {
			g_cfg.limit_s = atof(v);
		} else {
			usage(stderr);
			return fail("unknown option", a.c_str());
		}
	}
	if (g_cfg.k > RINA_MAX_RACKS || g_cfg.k * g_cfg.m > RINA_MAX_RANKS)
		return fail("topology too large (racks <= 64, ranks <= 1024)",
			    nullptr);
	if (g_cfg.m > RINA_TOR_MAX_WORKERS)
		return fail("at most 31 hosts per rack (the ToR's bitmap)",
			    nullptr);
	if (g_cfg.W < 8 || (g_cfg.W & (g_cfg.W - 1)) || g_cfg.W > 512)
		return fail("--window: a power of two, 8..512", nullptr);
	if (g_cfg.size % 4)
		return fail("--size: a multiple of 4 bytes (int32)", nullptr);
	if (!g_cfg.E)
		g_cfg.E = g_cfg.scheme == "rina" || g_cfg.scheme == "atp" ||
			  g_cfg.scheme == "switchml" ? 256 : 1024;
	if (!g_cfg.E || g_cfg.E > RINA_TOR_ELEMS)
		return fail("--elems: 1..1024", nullptr);
	if (!g_cfg.ps || g_cfg.ps > 64)
		return fail("--ps: 1..64", nullptr);
	/* which racks have an INA ToR */
	g_cfg.ina.assign(g_cfg.k, 0);
	if (g_cfg.ina_arg == "all") {
		g_cfg.ina.assign(g_cfg.k, 1);
	} else if (g_cfg.ina_arg != "none") {
		std::string s = g_cfg.ina_arg;
		size_t p = 0;

		while (p <= s.size()) {
			size_t q = s.find(',', p);
			std::string t = s.substr(p, q == std::string::npos ?
						 std::string::npos : q - p);
			char *e;
			long r = strtol(t.c_str(), &e, 10);

			if (t.empty() || *e || r < 0 || r >= (long)g_cfg.k)
				return fail("bad --ina (all, none or rack "
					    "ids)", g_cfg.ina_arg.c_str());
			g_cfg.ina[r] = 1;
			if (q == std::string::npos)
				break;
			p = q + 1;
		}
	}
	if (g_cfg.scheme == "rar" || g_cfg.scheme == "har" ||
	    g_cfg.scheme == "ps")
		g_cfg.ina.assign(g_cfg.k, 0);
	if (g_cfg.scheme == "switchml") {
		if (g_cfg.k != 1)
			return fail("switchml aggregates one rack: --topo 1xM",
				    nullptr);
		g_cfg.ina.assign(1, 1);
	}
	return 0;
}

static std::string rate_str(uint64_t r)
{
	char b[32];

	if (r % 1000000000ULL == 0)
		snprintf(b, sizeof(b), "%" PRIu64 "gbit", (uint64_t)(r / 1000000000ULL));
	else if (r % 1000000ULL == 0)
		snprintf(b, sizeof(b), "%" PRIu64 "mbit", (uint64_t)(r / 1000000ULL));
	else
		snprintf(b, sizeof(b), "%" PRIu64 "bit", r);
	return b;
}

static void minmax(const std::vector<uint64_t> &v, uint64_t *mn, uint64_t *mx,
		   double *mean)
{
	double s = 0;

	*mn = ~0ULL;
	*mx = 0;
	for (auto x : v) {
		*mn = x < *mn ? x : *mn;
		*mx = x > *mx ? x : *mx;
		s += (double)x;
	}
	if (v.empty())
		*mn = 0;
	*mean = v.empty() ? 0 : s / (double)v.size();
}

static void report(double wall_s, uint64_t events)
{
	static const char *const cls[LC_MAX] = {
		"host_up", "host_down", "rack_up", "rack_down", "ps_up",
		"ps_down" };
	double t = g_st.t_done_us - g_st.t_start_us, S = (double)g_cfg.size;
	/* a run cut off at --limit has no completion time (null in JSON) */
	bool fin = g_st.done == g_N;
	double algbw = fin && t > 0 ? S / (t * 1e-6) / 1e9 : 0;
	double N = g_N, busbw = algbw * 2 * (N - 1) / N;
	unsigned x = 0, c;
	uint64_t mn, mx;
	double mean;
	struct rusage ru;
	std::string ina;

	for (c = 0; c < g_cfg.k; c++)
		if (g_cfg.ina[c]) {
			ina += (x ? "," : "") + std::to_string(c);
			x++;
		}
	if (!x)
		ina = "none";
	else if (x == g_cfg.k)
		ina = "all";
	getrusage(RUSAGE_SELF, &ru);
	if (!g_cfg.json) {
		printf("# rina-sim %s %ux%u ina %s size %" PRIu64 " B link %s "
		       "uplink %s delay %.1f us E %u\n", g_cfg.scheme.c_str(),
		       g_cfg.k, g_cfg.m, ina.c_str(), g_cfg.size,
		       rate_str(g_cfg.B).c_str(),
		       rate_str(g_cfg.U ? g_cfg.U : g_cfg.B).c_str(),
		       g_cfg.delay_us, g_cfg.E);
		if (fin)
			printf("time %.1f us  algbw %.3f GB/s  busbw %.3f GB/s"
			       "  ", t, algbw, busbw);
		else
			printf("time - (unfinished at %g s)  ", g_cfg.limit_s);
		printf("done %" PRIu64 "/%u  drops %" PRIu64 "  retx %" PRIu64
		       "%s\n", g_st.done, g_N, g_st.drops,
		       g_st.retx, !fin ? "" : g_cfg.verify ? (g_st.verify_errors ?
		       "  RESULT WRONG" : "  result exact") : "");
		for (c = 0; c < LC_MAX; c++)
			if (g_st.pkts[c])
				printf("  %-9s %12" PRIu64 " B %10" PRIu64
				       " pkts %12" PRIu64 " B payload\n",
				       cls[c], g_st.bytes[c], g_st.pkts[c],
				       g_st.payload[c]);
		printf("  events %" PRIu64 " in %.2f s wall (%.0f/s), max rss "
		       "%ld MiB\n", events, wall_s, events / wall_s,
		       ru.ru_maxrss / 1024);
		return;
	}
	printf("{\"scheme\":\"%s\",\"topo\":\"%ux%u\",\"k\":%u,\"m\":%u,"
	       "\"ina\":\"%s\",\"x\":%u,\"size\":%" PRIu64 ",\"elems\":%u,"
	       "\"window\":%u,\"cc_init\":%u,\"link_rate\":\"%s\","
	       "\"uplink_rate\":\"%s\",\"delay_us\":%.3f,\"ps\":%u,"
	       "\"two_level\":%s,", g_cfg.scheme.c_str(), g_cfg.k,
	       g_cfg.m, g_cfg.k, g_cfg.m, ina.c_str(), x, g_cfg.size, g_cfg.E, g_cfg.W,
	       g_cfg.cc_init < g_cfg.W ? g_cfg.cc_init : g_cfg.W,
	       rate_str(g_cfg.B).c_str(),
	       rate_str(g_cfg.U ? g_cfg.U : g_cfg.B).c_str(), g_cfg.delay_us,
	       g_cfg.ps,
	       g_cfg.two_level ? "true" : "false");
	if (fin)
		printf("\"time_us\":%.3f,\"algbw_GBps\":%.6f,"
		       "\"busbw_GBps\":%.6f,", t, algbw, busbw);
	else
		printf("\"time_us\":null,\"algbw_GBps\":null,"
		       "\"busbw_GBps\":null,");
	printf("\"done\":%" PRIu64 ",\"ranks\":%u,", g_st.done, g_N);
	printf("\"bytes\":{");
	for (c = 0; c < LC_MAX; c++)
		printf("%s\"%s\":%" PRIu64, c ? "," : "", cls[c],
		       g_st.bytes[c]);
	printf("},\"packets\":{");
	for (c = 0; c < LC_MAX; c++)
		printf("%s\"%s\":%" PRIu64, c ? "," : "", cls[c], g_st.pkts[c]);
	printf("},\"drops_by_class\":{");
	for (c = 0; c < LC_MAX; c++)
		printf("%s\"%s\":%" PRIu64, c ? "," : "", cls[c],
		       g_st.drops_cls[c]);
	printf("},\"payload\":{");
	for (c = 0; c < LC_MAX; c++)
		printf("%s\"%s\":%" PRIu64, c ? "," : "", cls[c],
		       g_st.payload[c]);
	printf("},");
	minmax(g_st.host_tx, &mn, &mx, &mean);
	printf("\"worker_tx\":{\"min\":%" PRIu64 ",\"max\":%" PRIu64
	       ",\"mean\":%.1f},", mn, mx, mean);
	minmax(g_st.host_rx, &mn, &mx, &mean);
	printf("\"worker_rx\":{\"min\":%" PRIu64 ",\"max\":%" PRIu64
	       ",\"mean\":%.1f},", mn, mx, mean);
	printf("\"worker_tx_by_rank\":[");
	for (c = 0; c < g_N; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.host_tx[c]);
	printf("],\"worker_rx_by_rank\":[");
	for (c = 0; c < g_N; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.host_rx[c]);
	printf("],\"uplink_tx_by_rack\":[");
	for (c = 0; c < g_cfg.k; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.rack_up[c]);
	printf("],\"uplink_rx_by_rack\":[");
	for (c = 0; c < g_cfg.k; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.rack_down[c]);
	printf("],\"retx_payload\":{\"worker_tx_by_rank\":[");
	for (c = 0; c < g_N; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.host_tx_retx[c]);
	printf("],\"worker_rx_by_rank\":[");
	for (c = 0; c < g_N; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.host_rx_retx[c]);
	printf("],\"uplink_tx_by_rack\":[");
	for (c = 0; c < g_cfg.k; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.rack_up_retx[c]);
	printf("],\"uplink_rx_by_rack\":[");
	for (c = 0; c < g_cfg.k; c++)
		printf("%s%" PRIu64, c ? "," : "", g_st.rack_down_retx[c]);
	printf("]},\"drops\":%" PRIu64 ",\"ecn_marks\":%" PRIu64
	       ",\"retransmissions\":%" PRIu64 ",\"timeouts\":%" PRIu64
	       ",\"fast_retransmits\":%" PRIu64 ",\"probes\":%" PRIu64
	       ",\"agent_port_rx\":%" PRIu64 ",\"txq_holds\":%" PRIu64 ",",
	       g_st.drops, g_st.ecn_marks, g_st.retx, g_st.timeouts,
	       g_st.fast_retx, g_st.probes, g_st.agent_rx, g_st.txq_holds);
	printf("\"tor_slots_done\":%" PRIu64 ",\"tor_collisions\":%" PRIu64
	       ",\"agent_sw_slots\":%" PRIu64 ",\"atp_fallback\":%" PRIu64
	       ",", g_st.tor_slots_done, g_st.tor_collisions,
	       g_st.agent_sw_slots, g_st.atp_fallback);
	printf("\"verified\":%s,\"verify_errors\":%" PRIu64
	       ",\"elems_checked\":%" PRIu64 ",", g_cfg.verify ? "true" :
	       "false", g_st.verify_errors, g_st.elems_checked);
	printf("\"events\":%" PRIu64 ",\"wall_s\":%.3f,\"events_per_s\":%.0f,"
	       "\"max_rss_MiB\":%ld}\n", events, wall_s,
	       wall_s > 0 ? events / wall_s : 0, ru.ru_maxrss / 1024);
}

/* Simulated events, counted without ns-3's logging: one per tick. */
static uint64_t g_events;

static void count_events()
{
	g_events = Simulator::GetEventCount();
}

} // namespace rsim

using namespace rsim;

int main(int argc, char **argv)
{
	int rc = parse_args(argc, argv);
	std::chrono::steady_clock::time_point t0;
	double wall;

	if (rc)
		return rc;
	if (g_cfg.verify && (double)g_cfg.size * g_cfg.k * g_cfg.m >
	    (double)(2ULL << 30))
		return fail("--verify keeps every rank's result: use "
			    "--no-verify above 2 GiB in total", nullptr);
	build_topology();
	if (g_cfg.verify)
		g_result.assign(g_N, std::vector<uint32_t>(g_cfg.size / 4, 0));
	if (g_cfg.scheme == "rina" || g_cfg.scheme == "rar")
		rc = rina_setup();
	else if (g_cfg.scheme == "ps" || g_cfg.scheme == "atp" ||
		 g_cfg.scheme == "switchml")
		rc = ps_setup();
	else if (g_cfg.scheme == "har")
		rc = har_setup();
	else
		return fail("unknown --scheme", g_cfg.scheme.c_str());
	if (rc)
		return rc;
	for (unsigned i = 0; i < g_hosts.size(); i++)
		if (g_hosts[i].ep)
			Simulator::ScheduleWithContext(
				g_hosts[i].node->GetId(), Seconds(0),
				&Endpoint::Start, g_hosts[i].ep);
	Simulator::Stop(Seconds(g_cfg.limit_s));
	t0 = std::chrono::steady_clock::now();
	Simulator::Run();
	wall = std::chrono::duration<double>(
		std::chrono::steady_clock::now() - t0).count();
	count_events();
	for (auto f : g_at_end)
		f();
	if (g_cfg.verify) {
		/* a test of the check itself: one wrong element */
		if (g_cfg.fault_result && g_cfg.size)
			g_result[g_N - 1][g_cfg.size / 8]++;
		for (unsigned r = 0; r < g_N; r++)
			for (uint64_t i = 0; i < g_cfg.size / 4; i++)
				check_elem(g_N, i, g_result[r][i]);
	}
	report(wall, g_events);
	Simulator::Destroy();
	if (g_st.done != g_N) {
		fprintf(stderr, "rina-sim: %" PRIu64 " of %u ranks finished "
			"within %g s of simulated time\n", g_st.done, g_N,
			g_cfg.limit_s);
		return 1;
	}
	if (g_cfg.verify && g_st.verify_errors) {
		fprintf(stderr, "rina-sim: %" PRIu64 " wrong elements\n",
			g_st.verify_errors);
		return 1;
	}
	return 0;
}
