// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina-sim's plain ring member: an ns-3 host of the ring member engine
 * (core/ring_member.c), as librina's user/lib/ring.c is its host on a
 * socket. The engine holds every rule of the protocol (send order,
 * windows, RACK, timers, ACKs, the mixed ring's rules); this file gives
 * it simulated time, sends what it builds in the simulator's frames to
 * the next or previous member, feeds it what arrives, and wakes it when
 * it asks. So a change to the protocol in core/ is one in the simulator.
 */
#include "sim.h"

#include <cstdio>
#include <cstdlib>
#include <arpa/inet.h>

extern "C" {
#include "ring_member.h"
}

using namespace ns3;

namespace rsim {

class PlainMember : public RingPart {
public:
	void init();
	void start() override;
	void rx(const uint8_t *f, unsigned len, bool ce) override;
	void trace_unfinished() const override;

	uint32_t ip[2];			/* [0] previous, [1] next member */
	unsigned port[2];

private:
	struct rina_rm *rm = nullptr;
	struct rina_path path;
	struct rina_agg_ops agg;
	std::vector<uint32_t> contrib_before;
	std::vector<uint8_t> txbuf;
	int32_t *acc = nullptr;
	std::vector<int32_t> own;	/* a ring with a view (H-AR) */
	std::vector<std::vector<uint8_t>> early;	/* before start */
	EventId timer, batch;
	bool failed = false;

	void pump();
	void rearm(uint64_t wait_us);
	void finish();
	void batch_end();
	void fail(int rc);
	void take_stats();
};

static void *rm_zalloc(void *, __u64 size)
{
	return calloc(1, size);
}

static void rm_free(void *, void *p)
{
	free(p);
}

static __u64 rm_now(void *)
{
	return now_us();
}

/* The engine's messages, each in its frame to the member it names. */
static int rm_xmit(void *ctx, struct rina_engine_msg *m, int n)
{
	PlainMember *p = (PlainMember *)ctx;
	static uint8_t fr[RINA_TOR_FRAME_MAX];
	int i, to;

	for (i = 0; i < n; i++) {
		const struct rina_hdr *h = (const struct rina_hdr *)m[i].buf;
		unsigned len;

		to = m[i].to == RINA_PEER_NEXT;
		len = wrap_frame(fr, p->h->ip, RINA_UDP_PORT_WORKER, p->ip[to],
				 p->port[to], m[i].buf, m[i].len);
		if (g_cfg.trace && rina_hdr_opcode(h) != RINA_OP_ACK)
			fprintf(stderr, "%.3f rank %u tx op %u fl %02x "
				"chunk %u seq %u\n", now_us_f(), p->g,
				rina_hdr_opcode(h), h->flags,
				ntohs(h->chunk), ntohl(h->seq));
		host_send(*p->h, fr, len);
	}
	return n;
}

/* What our NIC still queues, as SIOCOUTQ tells librina of its socket. */
static int rm_tx_queued(void *ctx)
{
	PlainMember *p = (PlainMember *)ctx;
	Ptr<Queue<Packet>> q = p->h->dev->GetQueue();

	return q ? (int)q->GetNBytes() : -1;
}

static const struct rina_engine_ops g_rm_ops = {
	rm_zalloc, rm_free, rm_now, rm_xmit, rm_tx_queued,
};

/*
 * Without --no-verify each member or INA worker reduces into its rank's
 * result (or a copy of its view's elements); without, into one zeroed
 * buffer that every one shares: sums, copies and stores of zeros stay
 * zeros, and 256 ranks of 16 MiB take 16 MiB, not 4 GiB.
 */
static std::vector<int32_t> g_zeros;

int32_t *ring_acc(const Ring *R, unsigned g, std::vector<int32_t> &own)
{
	uint64_t count = R->s.count, i;
	int32_t *acc;

	if (!g_cfg.verify) {
		if (g_zeros.size() < g_cfg.size / 4)
			g_zeros.assign(g_cfg.size / 4, 0);
		return g_zeros.data();
	}
	if (R->vbase) {
		own.resize(count);
		for (i = 0; i < count; i++)
			own[i] = (int32_t)ring_input(R, g, i);
		return own.data();
	}
	/*
	 * A ring of the whole tensor: the result in place; an allgather
	 * alone starts from what reduce-scatter left there
	 */
	acc = (int32_t *)g_result[g].data();
	if (R->rs && !R->input_from_result)
		for (i = 0; i < count; i++)
			acc[i] = (int32_t)tensor_val(g, i);
	return acc;
}

/* A ring with a view (H-AR's cross-rack phase) returns what it reduced. */
void ring_result_out(const Ring *R, unsigned g,
		     const std::vector<int32_t> &own)
{
	uint64_t i;

	if (!g_cfg.verify || !R->vbase)
		return;
	for (i = 0; i < R->s.count; i++)
		g_result[g][ring_view(R, i)] = (uint32_t)own[i];
}

void PlainMember::init()
{
	const struct rina_ring *ring = &R->ring;
	struct rina_cc_params cp;
	struct rina_rm_cfg cfg;
	uint32_t max_msg = RINA_HDR_LEN + 4 * g_cfg.E + RINA_TAG_LEN;

	ring_member_addr(R, rina_ring_prev(ring, me), &ip[0], &port[0]);
	ring_member_addr(R, rina_ring_next(ring, me), &ip[1], &port[1]);
	contrib_before.resize(ring->L);
	rina_ring_contrib_before(ring, contrib_before.data());
	/* the job's senders' knobs and engine rules, as librina's */
	rina_job_cc_params(R->jd, R->jd->cc, &cp);
	rina_path_init(&path, &cp);
	rina_rm_cfg_job(&cfg, R->jd, ring, (__u16)lr, contrib_before.data());
	agg.add_be = rina_agg_add_be;
	agg.max_be = rina_agg_max_be;
	agg.store_be = rina_agg_store_be;
	agg.load_be = rina_agg_load_be;
	txbuf.assign((size_t)RINA_ENGINE_BATCH * max_msg, 0);
	cfg.path = &path;
	cfg.txbuf = txbuf.data();
	cfg.max_msg = max_msg;
	cfg.agg = &agg;
	cfg.phases = R->rs && R->ag ? 0 : R->rs ? RINA_RM_RS : RINA_RM_AG;
	rm = rina_rm_create(&cfg, &g_rm_ops, this);
	if (!rm) {
		fprintf(stderr, "rina-sim: out of memory\n");
		exit(2);
	}
}

void PlainMember::fail(int rc)
{
	if (!failed)
		fprintf(stderr, "rina-sim: rank %u job %u: ring member error "
			"%d\n", g, R->job, rc);
	failed = true;
}

void PlainMember::take_stats()
{
	struct rina_engine_stats st;

	rina_rm_take_stats(rm, &st);
	g_st.retx += st.retransmits;
	g_st.fast_retx += st.fast_retransmits;
	g_st.timeouts += st.timeouts;
	g_st.txq_holds += st.txq_holds;
}

void PlainMember::start()
{
	int rc;

	acc = ring_acc(R, g, own);
	rc = rina_rm_start(rm, acc, R->s.count,
			   RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM), 1, 0);
	if (rc) {
		fail(rc);
		return;
	}
	started = true;
	for (auto &f : early)
		rx(f.data(), (unsigned)f.size(), false);
	early.clear();
	rina_rm_flush(rm);
	pump();
}

/*
 * As ring.c's loop: until the call is done, send what the engine allows,
 * then wait for a packet or as long as it says (a ring of one is done at
 * once). The call stays open once done, so that a resend from upstream
 * whose ACK was lost is still acknowledged (librina answers it from its
 * next call).
 */
void PlainMember::pump()
{
	__u64 wait_us = ~0ULL;
	int rc;

	if (failed || finished)
		return;
	if (rina_rm_done(rm)) {
		finish();
		return;
	}
	rc = rina_rm_pump(rm, &wait_us);
	take_stats();
	if (rc) {
		fail(rc);
		return;
	}
	rearm(wait_us);
	if (rina_rm_done(rm))
		finish();
}

/*
 * The timer at the engine's wait, kept where it is when that does not
 * move (as ina_worker_host.cc's). Removed, not cancelled: a cancelled
 * ns-3 event stays queued until its time, and a member pumped on every
 * receive batch would leave one behind for each.
 */
void PlainMember::rearm(uint64_t wait_us)
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
		timer = Simulator::Schedule(in, &PlainMember::pump, this);
}

void PlainMember::finish()
{
	if (timer.IsRunning())
		Simulator::Remove(timer);
	finished = true;
	ring_result_out(R, g, own);
	if (done)
		done(g, phase);
}

/* The frames that arrive at one instant are one batch (ring.c's recv). */
void PlainMember::batch_end()
{
	rina_rm_flush(rm);
	pump();
}

void PlainMember::rx(const uint8_t *f, unsigned len, bool ce)
{
	uint32_t sip = f_sip(f);
	unsigned sport = f_sport(f);
	__u8 from = 0;
	int rc;

	if (!started) {
		/* a phase (H-AR) not started here yet: as a socket buffers */
		early.emplace_back(f, f + len);
		return;
	}
	if (sip == ip[0] && sport == port[0])
		from |= RINA_PEER_PREV;
	if (sip == ip[1] && sport == port[1])
		from |= RINA_PEER_NEXT;
	rc = rina_rm_rx(rm, (const struct rina_hdr *)(f + kRina), from,
			ce ? RINA_ECN_CE : 0, 0);
	/* one call a run: no packet of a next call (RINA_RM_STASH) */
	if (rc < 0)
		fail(rc);
	if (!batch.IsRunning())
		batch = Simulator::ScheduleNow(&PlainMember::batch_end, this);
}

void PlainMember::trace_unfinished() const
{
	struct rina_rm_progress pr;

	if (!started)
		return;
	rina_rm_progress(rm, &pr);
	fprintf(stderr, "# rank %u job %u: %lu of %lu packets, %lu of %lu "
		"acks\n", g, R->job, (unsigned long)pr.got_rx,
		(unsigned long)pr.expect_rx, (unsigned long)pr.got_ack,
		(unsigned long)pr.expect_ack);
}

RingPart *plain_member_new(Ring *R, unsigned rank)
{
	PlainMember *p = new PlainMember();

	p->R = R;
	p->g = rank;
	p->lr = (unsigned)R->local[rank];
	p->me = R->ring.member_of[p->lr];
	p->h = &g_hosts[rank];
	p->init();
	return p;
}

} // namespace rsim
