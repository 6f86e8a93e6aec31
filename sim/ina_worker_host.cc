// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-sim's INA worker: an ns-3 host of the INA worker engine
 * (core/ina_worker.c), as librina's user/lib/ina_worker.c is its host on
 * a socket. The engine holds every rule (windows, the txq bound, RACK
 * per step, the probe, timers, NACKs, stall reports); this file gives it
 * simulated time, sends what it builds in the simulator's frames to the
 * aggregator (the ToR, or the agent while the ToR does not aggregate) or
 * the rack's agent, feeds it what arrives from the agent's address, and
 * wakes it when it asks. So a change to the protocol in core/ is one in
 * the simulator.
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <arpa/inet.h>

extern "C" {
#include "ctrl_auth.h"
#include "hdr.h"
#include "txq.h"
#include "ina_worker.h"
}

using namespace ns3;

namespace rsim {

class InaWorker : public RingPart {
public:
	void init();
	void start() override;
	void rx(const uint8_t *f, unsigned len, bool ce) override;
	void trace_unfinished() const override;

	uint32_t agent_ip;		/* the rack's agent, its port */
	unsigned agent_port;
	bool agent_host;		/* our rank hosts the agent */
	uint32_t agg_ip;		/* where contributions go now */
	unsigned agg_port;
	uint64_t stalls = 0;

	void send_to(uint32_t ip, unsigned port, const void *dgram,
		     unsigned len);

private:
	struct rina_iw *iw = nullptr;
	struct rina_path path;
	struct rina_agg_ops agg;
	std::vector<uint8_t> txbuf;
	int32_t *acc = nullptr;
	std::vector<int32_t> own;
	std::vector<std::vector<uint8_t>> early;	/* before start */
	EventId timer;
	bool in_batch = false;	/* on g_batch's list */
	bool failed = false, tor_lost_told = false;
	bool held = false;		/* the last pump held (txq bound) */
	uint32_t txq_limit;

	void contrib_dest();
	void pump();
	void rearm(uint64_t wait_us);
	void batch_end();
	void batch_add();
	static void batches_end();
	void finish();
	void fail(int rc);
	uint64_t take_stats();
	void dequeued(Ptr<const Packet>);
};

static void *iw_zalloc(void *, __u64 size)
{
	return calloc(1, size);
}

static void iw_free(void *, void *p)
{
	free(p);
}

static __u64 iw_now(void *)
{
	return now_us();
}

/*
 * A datagram in its frame. To the agent from the agent's own rank: the
 * kernel delivers it in the host, not on the link.
 */
void InaWorker::send_to(uint32_t ip, unsigned port, const void *dgram,
			unsigned len)
{
	static uint8_t fr[RINA_TOR_FRAME_MAX];
	unsigned flen = wrap_frame(fr, h->ip, RINA_UDP_PORT_WORKER, ip, port,
				   dgram, len);

	if (ip == h->ip)
		local_deliver(g, fr, flen);
	else
		host_send(*h, fr, flen);
}

/*
 * Contributions (RINA_PEER_AGG) to the aggregator: the agent's rank
 * addresses the ToR, the rack's other ranks the agent's address, whose
 * frames the ToR takes; NACKs (RINA_PEER_NEXT) to the agent.
 */
static int iw_xmit(void *ctx, struct rina_engine_msg *m, int n)
{
	InaWorker *w = (InaWorker *)ctx;
	int i;

	for (i = 0; i < n; i++) {
		const struct rina_hdr *hd = (const struct rina_hdr *)m[i].buf;
		bool agg = m[i].to == RINA_PEER_AGG;

		if (g_cfg.trace)
			fprintf(stderr, "%.3f rank %u tx op %u fl %02x "
				"chunk %u seq %u n %u\n", now_us_f(), w->g,
				rina_hdr_opcode(hd), hd->flags,
				ntohs(hd->chunk), ntohl(hd->seq),
				ntohs(hd->n_elem));
		w->send_to(agg ? w->agg_ip : w->agent_ip,
			   agg ? w->agg_port : w->agent_port, m[i].buf,
			   m[i].len);
	}
	return n;
}

/*
 * What our NIC still queues, as SIOCOUTQ tells librina of its socket;
 * on the agent's rank the agent's frames share the queue (few: the ToR
 * sends the rack's partials and ACKs).
 */
static int iw_tx_queued(void *ctx)
{
	InaWorker *w = (InaWorker *)ctx;
	Ptr<Queue<Packet>> q = w->h->dev->GetQueue();

	return q ? (int)q->GetNBytes() : -1;
}

/* CTRL STALL to the agent, as librina's engine_host.c: it counts them. */
static void iw_stalled(void *ctx)
{
	InaWorker *w = (InaWorker *)ctx;
	struct rina_ctrl_msg c = {};
	unsigned len;

	rina_hdr_fill(&c.h, RINA_OP_CTRL, w->R->job, 0, (__u16)w->lr);
	rina_ctrl_set_session(&c.h, SIM_SESSION);
	c.c.type = htonl(RINA_CTRL_STALL);
	c.c.arg = htonl(w->R->jd->timeout_ms);
	rina_put_be64((__u8 *)&c.c.hash, rina_job_hash(w->R->jd));
	len = rina_ctrl_seal(&c, nullptr, nullptr, 0, htonl(w->agent_ip),
			     htons((uint16_t)w->agent_port));
	w->send_to(w->agent_ip, w->agent_port, &c, len);
	w->stalls++;
}

static const struct rina_engine_ops g_iw_ops = {
	iw_zalloc, iw_free, iw_now, iw_xmit, iw_tx_queued, iw_stalled,
};

void InaWorker::init()
{
	const struct rina_member *mm = &R->ring.m[me];
	struct rina_cc_params cp;
	struct rina_iw_cfg cfg;
	uint32_t max_msg = RINA_HDR_LEN + 4 * g_cfg.E + RINA_TAG_LEN;

	ring_member_addr(R, me, &agent_ip, &agent_port);
	agent_host = mm->agent == lr;
	agg_ip = agent_host ? tor_ip(h->rack) : agent_ip;
	agg_port = RINA_UDP_PORT_AGENT;
	/* the job's senders' knobs and engine rules, as librina's */
	rina_job_cc_params(R->jd, R->jd->cc, &cp);
	rina_path_init(&path, &cp);
	rina_iw_cfg_job(&cfg, R->jd, &R->ring, (__u16)lr, &cp);
	agg.add_be = rina_agg_add_be;
	agg.max_be = rina_agg_max_be;
	agg.store_be = rina_agg_store_be;
	agg.load_be = rina_agg_load_be;
	txbuf.assign((size_t)RINA_ENGINE_BATCH * max_msg, 0);
	cfg.path = &path;
	cfg.txbuf = txbuf.data();
	cfg.max_msg = max_msg;
	cfg.agg = &agg;
	txq_limit = rina_txq_limit(cfg.txq_limit, 1);
	h->dev->GetQueue()->TraceConnectWithoutContext("Dequeue",
		MakeCallback(&InaWorker::dequeued, this));
	iw = rina_iw_create(&cfg, &g_iw_ops, this);
	if (!iw) {
		fprintf(stderr, "rina-sim: out of memory\n");
		exit(2);
	}
}

void InaWorker::fail(int rc)
{
	if (!failed)
		fprintf(stderr, "rina-sim: rank %u job %u: INA worker error "
			"%d\n", g, R->job, rc);
	failed = true;
	if (timer.IsRunning())
		Simulator::Remove(timer);
}

/* What the engine counted since; returns its txq holds. */
uint64_t InaWorker::take_stats()
{
	struct rina_engine_stats st;

	rina_iw_take_stats(iw, &st);
	/* NACKs count as retransmissions, as the agents' and the ToR's */
	g_st.retx += st.retransmits + st.nacks;
	g_st.fast_retx += st.fast_retransmits;
	g_st.timeouts += st.timeouts - st.probes;
	g_st.probes += st.probes;
	g_st.txq_holds += st.txq_holds;
	return st.txq_holds;
}

void InaWorker::start()
{
	int rc;

	acc = ring_acc(R, g, own);
	rc = rina_iw_start(iw, acc, R->s.count,
			   RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM), 1, 0);
	if (rc) {
		fail(rc);
		return;
	}
	started = true;
	for (auto &f : early)
		rx(f.data(), (unsigned)f.size(), false);
	early.clear();
	batch_end();
}

/*
 * The agent's rank sends to the ToR while it aggregates the rack, to the
 * agent otherwise (ina_worker.c's contrib_dest()); a change ends what
 * backed off towards the last aggregator. The rack's other ranks always
 * address the agent.
 */
void InaWorker::contrib_dest()
{
	uint32_t ip;

	if (!agent_host)
		return;
	ip = agent_tor_on(g) ? tor_ip(h->rack) : agent_ip;
	if (ip != agg_ip)
		rina_iw_agg_changed(iw);
	agg_ip = ip;
}

/*
 * As ina_worker.c's call_loop: until the call is done, send what the
 * engine allows, then wait for a packet or as long as it says. Done, the
 * call ends as librina's: a worker answers nothing once it holds every
 * result (the agent's requests are for contributions whose results it
 * holds).
 */
void InaWorker::pump()
{
	__u64 wait_us = ~0ULL;
	int rc;

	if (failed || finished)
		return;
	if (rina_iw_done(iw)) {
		finish();
		return;
	}
	contrib_dest();
	rc = rina_iw_pump(iw, &wait_us);
	held = take_stats() > 0;
	if (rc) {
		fail(rc);
		return;
	}
	rearm(wait_us);
}

/*
 * The timer at the engine's wait, kept where it is when that does not
 * move. Removed, not cancelled: a cancelled ns-3 event stays queued
 * until its time, and a worker pumped on every receive batch left
 * millions of them (8x8 all-INA, 16M: 180 MiB more and a third more
 * events, at 100gbit).
 */
void InaWorker::rearm(uint64_t wait_us)
{
	Time in = MicroSeconds(wait_us ? wait_us : 1);

	if (timer.IsRunning()) {
		if (wait_us != ~0ULL &&
		    timer.GetTs() ==
		    (uint64_t)(Simulator::Now() + in).GetTimeStep())
			return;
		Simulator::Remove(timer);
	}
	if (wait_us != ~0ULL)
		timer = Simulator::Schedule(in, &InaWorker::pump, this);
}

void InaWorker::finish()
{
	int rc;

	if (timer.IsRunning())
		Simulator::Remove(timer);
	rc = rina_iw_finish(iw, 0);
	take_stats();
	if (rc) {
		fail(rc);
		return;
	}
	finished = true;
	ring_result_out(R, g, own);
	if (done)
		done(g, phase);
}

/*
 * Our NIC took a frame. A pump that the txq bound held (core/txq.h)
 * waits at most RINA_TXQ_WAIT_US because librina's socket does not say
 * when its queue drains; this device does, and the held worker goes on
 * once the queue is below the bound, as TCP small queues' senders do on
 * a transmit completion. At 25 Mbit/s the two wake alike (the queue
 * takes 5 ms to drain); at 10 Gbit/s it drains in 13 us, and the 1 ms
 * wait held a 2x4 all-INA ring's workers at the start of a 1 MiB call
 * (1964 us, against 975 us with this wake).
 */
void InaWorker::dequeued(Ptr<const Packet>)
{
	if (!held || h->dev->GetQueue()->GetNBytes() >= txq_limit)
		return;
	held = false;
	batch_add();
}

/*
 * The frames that arrive at one instant are one batch (librina's recv):
 * one event ends every worker's batch of that instant (a ToR's results
 * reach the rack's workers together).
 */
static std::vector<InaWorker *> g_batch, g_batch_run;

void InaWorker::batch_add()
{
	if (in_batch)
		return;
	in_batch = true;
	if (g_batch.empty())
		Simulator::ScheduleNow(&InaWorker::batches_end);
	g_batch.push_back(this);
}

void InaWorker::batches_end()
{
	g_batch_run.swap(g_batch);	/* a pump may start the next batch */
	for (auto *w : g_batch_run) {
		w->in_batch = false;
		w->batch_end();
	}
	g_batch_run.clear();
}

void InaWorker::batch_end()
{
	if (failed || finished)
		return;
	if (tor_lost_told) {
		tor_lost_told = false;
		rina_iw_tor_lost(iw);
	}
	pump();
}

void InaWorker::rx(const uint8_t *f, unsigned len, bool ce)
{
	__u8 from = f_sip(f) == agent_ip && f_sport(f) == agent_port ?
		    RINA_PEER_NEXT : 0;
	int rc;

	if (!started) {
		if (!failed)
			early.emplace_back(f, f + len);
		return;
	}
	if (finished || failed)
		return;
	if (f_op(f) == RINA_OP_CTRL) {
		/* the agent found the ToR lost (librina's session.c) */
		if (from && len >= kPay + 4 &&
		    f_word(f, 0) == RINA_CTRL_TOR_LOST)
			tor_lost_told = true;
	} else {
		rc = rina_iw_rx(iw, (const struct rina_hdr *)(f + kRina), from,
				ce ? RINA_ECN_CE : 0, 0);
		/* one call a run: no packet of a next call (RINA_IW_STASH) */
		if (rc < 0) {
			fail(rc);
			return;
		}
	}
	batch_add();
}

void InaWorker::trace_unfinished() const
{
	struct rina_iw_progress pr;

	if (!started || failed)
		return;
	rina_iw_progress(iw, &pr);
	fprintf(stderr, "# rank %u job %u: %lu of %lu allgather packets, "
		"%lu of %u contributions delivered, %lu stall reports\n", g,
		R->job, (unsigned long)pr.got_ag, (unsigned long)pr.expect_ag,
		(unsigned long)pr.got_done, pr.nct, (unsigned long)stalls);
}

RingPart *ina_worker_new(Ring *R, unsigned rank)
{
	InaWorker *w = new InaWorker();

	w->R = R;
	w->g = rank;
	w->lr = (unsigned)R->local[rank];
	w->me = R->ring.member_of[w->lr];
	w->h = &g_hosts[rank];
	w->init();
	return w;
}

} // namespace rsim
