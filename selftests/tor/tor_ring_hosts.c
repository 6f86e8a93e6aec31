// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * tor_ring's hosts: core's engines on the test's network, hosted as
 * librina (user/lib/ring.c, ina_worker.c, agent_thread.c) and rina-sim
 * (sim/ring_member_host.cc, ina_worker_host.cc, rina.cc) host them. Each
 * rank runs the ring member or, in an INA rack, the INA worker; the
 * rack's agent rank runs the agent too. This file feeds them what
 * arrives with the virtual clock's time, sends what they build in
 * frames to the peer they name, and wakes them when they asked; it
 * holds no rule of the protocol.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "tor_ring.h"
#include "agent.h"
#include "agg.h"
#include "cc.h"
#include "ctrl_auth.h"
#include "hdr.h"
#include "ina_worker.h"
#include "ring_member.h"

/* The ring's session, as upstream's HELLO would tell every agent. */
#define SESSION		0x5e55104e5e55104eULL
#define DTYPE		RINA_DTYPE_OP(RINA_WIRE_INT32, RINA_WIRE_SUM)

static const struct rina_agg_ops agg_ops = {
	.add_be		= rina_agg_add_be,
	.max_be		= rina_agg_max_be,
	.store_be	= rina_agg_store_be,
	.load_be	= rina_agg_load_be,
};

static void fail(struct host *h, const char *what, int rc)
{
	char msg[160];
	const struct rina_rm_error *e = h->rm ? rina_rm_error(h->rm) : NULL;

	snprintf(msg, sizeof(msg), "rank %d: %s: engine error %d%s%s",
		 h->rank, what, rc, e && e->what ? ", a different " : "",
		 e && e->what ? e->what : "");
	world_error(h->w, msg);
}

/* Member k's address: its agent's port if it is an INA rack. */
static struct net_addr member_addr(struct world *w, __u32 k)
{
	const struct rina_member *m = &w->ring.m[k];

	return net_addr_of(w, w->h[m->agent].ip, m->ina ?
			   RINA_UDP_PORT_AGENT : RINA_UDP_PORT_WORKER);
}

static void send_dgram(struct host *h, __u16 sport,
		       const struct net_addr *dst, const void *buf,
		       __u32 len)
{
	static __u8 fr[RINA_TOR_FRAME_MAX];
	struct net_addr src = net_addr_of(h->w, h->ip, sport);

	if (RINA_TOR_RINA_OFF + len > sizeof(fr)) {
		world_error(h->w, "a datagram too long for a frame");
		return;
	}
	net_host_send(h->w, h, fr, net_wrap(fr, &src, dst, buf, len));
}

/* ---- what the engines ask of their host (core/engine.h) ---- */

static void *eng_zalloc(void *ctx, __u64 size)
{
	(void)ctx;
	return calloc(1, size);
}

static void eng_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static __u64 eng_now(void *ctx)
{
	return ((struct host *)ctx)->w->now;
}

/*
 * The ring member's peers are its ring neighbours; the INA worker's are
 * the aggregator (RINA_PEER_AGG: the ToR's address for the agent's own
 * rank while the ToR aggregates, else the agent's) and the agent.
 */
static int eng_xmit(void *ctx, struct rina_engine_msg *m, int n)
{
	struct host *h = ctx;
	struct world *w = h->w;
	struct net_addr dst;
	int i;

	for (i = 0; i < n; i++) {
		if (h->rm)
			dst = member_addr(w, m[i].to == RINA_PEER_PREV ?
					  rina_ring_prev(&w->ring, h->member) :
					  rina_ring_next(&w->ring, h->member));
		else if (m[i].to == RINA_PEER_AGG)
			dst = net_addr_of(w, h->agg_ip, RINA_UDP_PORT_AGENT);
		else
			dst = member_addr(w, h->member);
		send_dgram(h, RINA_UDP_PORT_WORKER, &dst, m[i].buf, m[i].len);
	}
	return n;
}

/* The links have no bandwidth limit: nothing waits in the host. */
static int eng_tx_queued(void *ctx)
{
	(void)ctx;
	return 0;
}

/* CTRL STALL to the agent, as librina's engine_host.c and rina-sim. */
static void eng_stalled(void *ctx)
{
	struct host *h = ctx;
	struct world *w = h->w;
	struct net_addr dst = member_addr(w, h->member);
	struct rina_ctrl_msg c;
	__u32 len;

	memset(&c, 0, sizeof(c));
	rina_hdr_fill(&c.h, RINA_OP_CTRL, w->job.job_id, 0, (__u16)h->rank);
	rina_ctrl_set_session(&c.h, SESSION);
	c.c.type = htonl(RINA_CTRL_STALL);
	c.c.arg = htonl(w->job.timeout_ms);
	rina_put_be64(&c.c.hash, rina_job_hash(&w->job));
	len = rina_ctrl_seal(&c, NULL, NULL, 0, htonl(dst.ip),
			     htons(dst.port));
	send_dgram(h, RINA_UDP_PORT_WORKER, &dst, &c, len);
}

static const struct rina_engine_ops engine_ops = {
	.zalloc		= eng_zalloc,
	.free		= eng_free,
	.now_us		= eng_now,
	.xmit		= eng_xmit,
	.tx_queued	= eng_tx_queued,
	.stalled	= eng_stalled,
};

/* ---- what the agent asks of its host (core/agent.h) ---- */

static void *ag_zalloc(void *ctx, __u32 size)
{
	(void)ctx;
	return calloc(1, size);
}

static void ag_send(void *ctx, const struct rina_agent_addr *to,
		    const void *buf, __u32 len)
{
	struct host *h = ctx;
	struct net_addr dst = net_addr_of(h->w, ntohl(to->ip),
					  ntohs(to->port));

	send_dgram(h, RINA_UDP_PORT_AGENT, &dst, buf, len);
}

/* As librina's agent thread: the ToR aggregates from its yes. */
static void ag_event(void *ctx, enum rina_agent_event ev, __u32 arg)
{
	struct host *h = ctx;

	if (ev == RINA_AGENT_EV_TOR)
		h->tor_on = arg == RINA_TOR_ST_OK;
	if (ev == RINA_AGENT_EV_TOR_LOST)
		h->tor_on = 0;
}

static __u64 ag_random(void *ctx)
{
	(void)ctx;
	return SESSION;
}

static const struct rina_agent_ops agent_ops = {
	.zalloc		= ag_zalloc,
	.free		= eng_free,
	.now_us		= eng_now,
	.send		= ag_send,
	.event		= ag_event,
	.random_u64	= ag_random,
};

/* ---- setting up ---- */

static struct rina_agent_addr core_addr(const struct net_addr *a)
{
	struct rina_agent_addr c = { htonl(a->ip), htons(a->port), 0 };

	return c;
}

/* The rack's agent, configured as librina's rina_agent_cfg_fill(). */
static int agent_init(struct host *h, const struct rina_cc_params *cc)
{
	struct world *w = h->w;
	const struct rina_member *m = &w->ring.m[h->member];
	struct rina_agent_cfg cfg;
	struct net_addr a;
	__u32 k;

	memset(&cfg, 0, sizeof(cfg));
	cfg.job_id = w->job.job_id;
	cfg.rank = (__u16)h->rank;
	cfg.elems = w->job.elems;
	cfg.n_local = m->n_local;
	cfg.window = w->job.window;
	cfg.L = w->ring.L;
	cfg.member = (__u32)h->member;
	cfg.rto_us = w->job.rto_us;
	if (cc->flags)
		cfg.cc = *cc;
	cfg.job_hash = rina_job_hash(&w->job);
	cfg.incarnation = 0x5a5a5a5a ^ (__u32)h->rank;
	cfg.single_session = 1;
	a = member_addr(w, rina_ring_next(&w->ring, h->member));
	cfg.next = core_addr(&a);
	a = member_addr(w, rina_ring_prev(&w->ring, h->member));
	cfg.prev = core_addr(&a);
	a = member_addr(w, h->member);
	cfg.self = core_addr(&a);
	a = net_addr_of(w, ntohl(w->job.racks[h->rack].tor_ip),
			RINA_UDP_PORT_AGENT);
	cfg.tor = core_addr(&a);
	for (k = 0; k < m->n_local; k++) {
		a = net_addr_of(w, w->h[w->ring.order[m->first + k]].ip,
				RINA_UDP_PORT_WORKER);
		cfg.local[k] = core_addr(&a);
	}
	h->ag = calloc(1, sizeof(*h->ag));
	if (!h->ag || rina_agent_core_init(h->ag, &cfg, &agent_ops, h)) {
		free(h->ag);
		h->ag = NULL;
		return -1;
	}
	return 0;
}

static int engine_init(struct host *h, const struct rina_cc_params *cc,
		       int pad)
{
	struct world *w = h->w;
	__u32 max_msg = RINA_HDR_LEN + 4u * w->job.elems + RINA_TAG_LEN;

	rina_path_init(&h->path, cc);
	h->txbuf = calloc(RINA_ENGINE_BATCH, max_msg);
	if (!h->txbuf)
		return -1;
	if (h->ina) {
		struct rina_iw_cfg cfg = {
			.ring		= &w->ring,
			.member		= (__u32)h->member,
			.n_ranks	= w->job.n_ranks,
			.job_id		= w->job.job_id,
			.rank		= (__u16)h->rank,
			.elems		= w->job.elems,
			.window		= w->job.window,
			.txq_limit	= w->job.txq_limit,
			.rto_us		= w->job.rto_us,
			.timeout_ms	= w->job.timeout_ms,
			.windowed	= cc->flags != 0,
			.path		= &h->path,
			.txbuf		= h->txbuf,
			.max_msg	= max_msg,
			.agg		= &agg_ops,
		};

		h->agg_ip = member_addr(w, h->member).ip;
		h->iw = rina_iw_create(&cfg, &engine_ops, h);
		return h->iw ? 0 : -1;
	} else {
		struct rina_rm_cfg cfg = {
			.ring		= &w->ring,
			.contrib_before	= w->contrib_before,
			.member		= (__u32)h->member,
			.n_ranks	= w->job.n_ranks,
			.job_id		= w->job.job_id,
			.rank		= (__u16)h->rank,
			.elems		= w->job.elems,
			.window		= w->job.window,
			.txq_limit	= w->job.txq_limit,
			.rto_us		= w->job.rto_us,
			.pad		= pad,
			.path		= &h->path,
			.txbuf		= h->txbuf,
			.max_msg	= max_msg,
			.agg		= &agg_ops,
		};

		h->rm = rina_rm_create(&cfg, &engine_ops, h);
		return h->rm ? 0 : -1;
	}
}

int hosts_init(struct world *w, __u64 count)
{
	struct rina_cc_params cc;
	__u32 k, sum = 0;
	int i, pad = 0;

	for (k = 0; k < w->ring.L; k++) {
		w->contrib_before[k] = sum;
		sum += w->ring.m[k].n_local;
		pad |= w->ring.m[k].ina;
	}
	w->count = count;
	if (rina_sched_call(&w->s, count, w->ring.L, w->job.elems,
			    w->job.window, pad) != RINA_SCHED_OK)
		return -1;
	w->nord = rina_sched_slots(&w->s);
	/* librina's defaults: the job's cc directives, none given */
	rina_job_cc_params(&w->job, w->job.cc, &cc);
	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		h->wake = NO_WAKE;
		h->ag_wake = NO_WAKE;
		h->in = calloc(count + 1, 4);
		h->out = calloc(count + 1, 4);
		h->aga_have = calloc(w->s.seqs + 1, 1);
		if (!h->in || !h->out || !h->aga_have ||
		    engine_init(h, &cc, pad) ||
		    (h->agent && agent_init(h, &cc)))
			return -1;
	}
	return 0;
}

void hosts_free(struct world *w)
{
	int i;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		if (h->ag)
			rina_agent_core_fini(h->ag);
		free(h->ag);
		rina_rm_destroy(h->rm);
		rina_iw_destroy(h->iw);
		free(h->txbuf);
		free(h->in);
		free(h->out);
		free(h->aga_have);
		h->ag = NULL;
		h->rm = NULL;
		h->iw = NULL;
		h->txbuf = NULL;
		h->in = h->out = NULL;
		h->aga_have = NULL;
	}
}

void hosts_tor_install(struct world *w)
{
	int i;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		if (!h->ag)
			continue;
		rina_agent_core_set_session(h->ag, SESSION);
		rina_agent_core_tor_install(h->ag);
		h->ag_woken = 1;
		h->ag_wake = w->now;
	}
}

int hosts_tors_on(struct world *w)
{
	int i;

	for (i = 0; i < w->n_hosts; i++)
		if (w->h[i].ag && !w->h[i].tor_on)
			return 0;
	return 1;
}

/* ---- a call ---- */

static int same_sched(const struct rina_sched *a, const struct rina_sched *b)
{
	return a->L == b->L && a->E == b->E && a->P == b->P &&
	       a->nblocks == b->nblocks && a->seqs == b->seqs &&
	       a->pad == b->pad;
}

void hosts_start(struct host *h, __u64 count)
{
	struct world *w = h->w;
	int rc;

	memcpy(h->out, h->in, count * 4);
	memset(h->aga_have, 0, w->s.seqs + 1);
	h->aga_got = 0;
	if (h->iw)
		rc = rina_iw_start(h->iw, h->out, count, DTYPE, w->round,
				   w->slot_base);
	else
		rc = rina_rm_start(h->rm, h->out, count, DTYPE, w->round,
				   w->slot_base);
	if (rc) {
		fail(h, "start", rc);
		return;
	}
	h->in_call = 1;
	if (!same_sched(h->iw ? rina_iw_sched(h->iw) : rina_rm_sched(h->rm),
			&w->s))
		world_error(w, "the engines' schedules differ");
	h->woken = 1;
	h->wake = w->now;
}

static int engine_done(const struct host *h)
{
	return h->iw ? rina_iw_done(h->iw) : rina_rm_done(h->rm);
}

int hosts_all_done(struct world *w)
{
	int i;

	for (i = 0; i < w->n_hosts; i++)
		if (!w->h[i].in_call || !engine_done(&w->h[i]))
			return 0;
	return 1;
}

static void take_stats(struct host *h)
{
	struct rina_engine_stats st;

	if (h->iw)
		rina_iw_take_stats(h->iw, &st);
	else
		rina_rm_take_stats(h->rm, &st);
	h->timeouts += st.timeouts;
	h->retransmits += st.retransmits;
	h->malformed += st.rx_malformed + st.rx_foreign;
}

void hosts_finish(struct world *w)
{
	int i, rc;

	for (i = 0; i < w->n_hosts; i++) {
		struct host *h = &w->h[i];

		if (!h->in_call)
			continue;
		rc = h->iw ? rina_iw_finish(h->iw, w->errors != 0) :
			     rina_rm_finish(h->rm, w->errors != 0);
		if (rc)
			fail(h, "finish", rc);
		take_stats(h);
		h->in_call = 0;
		h->wake = NO_WAKE;
	}
}

/* ---- receiving ---- */

/* An allgather copy from the ToR at the agent port, of this call. */
static void note_copy(struct host *h, const struct rina_hdr *r)
{
	struct world *w = h->w;
	__u32 seq = ntohl(r->seq);
	struct rina_pkt_id id;

	w->agent_copies++;
	if (ntohs(r->round) != w->round || seq >= w->s.seqs ||
	    h->aga_have[seq])
		return;
	rina_seq_decode(&w->s, seq, &id);
	h->aga_have[seq] = 1;
	h->aga_got += rina_pkt_len(&w->s, id.block, id.chunk, id.pkt);
}

static void agent_rx(struct host *h, const __u8 *d, unsigned int len)
{
	const struct rina_hdr *r = (const struct rina_hdr *)(d + 42);
	struct rina_agent_addr from = { htonl(get32(d + 26)),
					htons(get16(d + 34)), 0 };

	if (!h->agent)
		return world_error(h->w, "agent-port packet at a non-agent");
	if (r->flags & RINA_F_SW_BYPASS)
		return world_error(h->w, "a packet was bypassed to the agent");
	if (rina_hdr_opcode(r) == RINA_OP_AG_DATA) {
		if (!(r->flags & RINA_F_FROM_SWITCH))
			return world_error(h->w, "AG_DATA at the agent port "
					   "not from the ToR");
		note_copy(h, r);
	}
	rina_agent_core_rx(h->ag, r, len - 42, &from);
	h->ag_woken = 1;
}

/* Which of the engine's peers sent d (core/engine.h's RINA_PEER_*). */
static __u8 peer_of(struct host *h, const __u8 *d)
{
	struct world *w = h->w;
	__u32 ip = get32(d + 26);
	__u16 port = get16(d + 34);
	struct net_addr a;
	__u8 from = 0;

	if (h->iw) {
		a = member_addr(w, h->member);
		return a.ip == ip && a.port == port ? RINA_PEER_NEXT : 0;
	}
	a = member_addr(w, rina_ring_prev(&w->ring, h->member));
	if (a.ip == ip && a.port == port)
		from |= RINA_PEER_PREV;
	a = member_addr(w, rina_ring_next(&w->ring, h->member));
	if (a.ip == ip && a.port == port)
		from |= RINA_PEER_NEXT;
	return from;
}

void hosts_rx(struct host *h, const __u8 *frame, unsigned int len)
{
	/*
	 * Where a NIC driver puts a frame (NET_IP_ALIGN): 2 bytes in, so
	 * that the IP header and the Rina datagram are 4-byte aligned, as
	 * the engines read its words (core/agg.c). The network's frames
	 * carry no such offset: UBSan found the misaligned loads.
	 */
	__u8 buf[RINA_TOR_FRAME_MAX + 2] __attribute__((aligned(8)));
	const __u8 *d = buf + 2;
	const struct rina_hdr *r = (const struct rina_hdr *)(d + 42);
	__u8 from;
	int rc;

	if (len > RINA_TOR_FRAME_MAX)
		return world_error(h->w, "a frame longer than the ToR's");
	memcpy(buf + 2, frame, len);
	if (memcmp(d, h->mac, 6))
		return;		/* not ours: an L2 flood copy */
	if (len < 70 || rina_hdr_check(r, len - 42)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "host %d got a malformed packet: "
			 "len %u op %u n %u err %d", h->rank, len, d[42],
			 get16(d + 60), len < 70 ? -1 :
			 (int)rina_hdr_check(r, len - 42));
		return world_error(h->w, msg);
	}
	if (get16(d + 36) == RINA_UDP_PORT_AGENT)
		return agent_rx(h, d, len);
	/*
	 * The ToR's copy, relayed by the agent on this host (rw_host); a
	 * repair from its cache is one too, marked RETX.
	 */
	if (rina_hdr_opcode(r) == RINA_OP_AG_DATA &&
	    (r->flags & (RINA_F_FROM_SWITCH | RINA_F_RETX)) ==
	    RINA_F_FROM_SWITCH && get32(d + 26) == h->ip &&
	    get16(d + 34) == RINA_UDP_PORT_AGENT)
		h->w->host_relays++;
	from = peer_of(h, d);
	if (rina_hdr_opcode(r) == RINA_OP_CTRL) {
		/*
		 * The agent found the ToR lost (librina's session.c); the
		 * rest of the control plane (HELLO) is not the engines'.
		 */
		if (h->iw && from && len >= 70 + 4 &&
		    get32(d + 70) == RINA_CTRL_TOR_LOST) {
			h->tor_lost_told = 1;
			h->woken = 1;
		}
		return;
	}
	if (!h->in_call)
		return world_error(h->w, "data for an engine between calls");
	if (h->iw)
		rc = rina_iw_rx(h->iw, r, from, 0, 0);
	else
		rc = rina_rm_rx(h->rm, r, from, 0, 0);
	/* every rank starts a call at once: nothing comes early */
	if (rc == RINA_RM_STASH || rc == RINA_IW_STASH)
		return world_error(h->w, "data of a call not started");
	if (rc < 0)
		return fail(h, "receiving", rc);
	h->woken = 1;
}

/*
 * The agent's rank sends its contributions to the ToR while it
 * aggregates, to the agent otherwise (librina's contrib_dest()).
 */
static void contrib_dest(struct host *h)
{
	struct world *w = h->w;
	__u32 ip;

	if (!h->agent)
		return;
	ip = h->tor_on ? ntohl(w->job.racks[h->rack].tor_ip) : h->ip;
	if (ip != h->agg_ip)
		rina_iw_agg_changed(h->iw);
	h->agg_ip = ip;
}

static __u64 wake_at(struct world *w, __u64 wait_us)
{
	return wait_us == NO_WAKE ? NO_WAKE : w->now + (wait_us ? wait_us : 1);
}

void hosts_batch_end(struct host *h)
{
	struct world *w = h->w;
	__u64 wait = NO_WAKE;
	int rc;

	if (h->ag && (h->ag_woken || h->ag_wake <= w->now)) {
		h->ag_woken = 0;
		h->ag_wake = wake_at(w, rina_agent_core_tick(h->ag));
	}
	if (!h->in_call || (!h->woken && h->wake > w->now))
		return;
	h->woken = 0;
	h->wake = NO_WAKE;
	if (h->iw) {
		if (h->tor_lost_told) {
			h->tor_lost_told = 0;
			rina_iw_tor_lost(h->iw);
		}
		contrib_dest(h);
	} else {
		rina_rm_flush(h->rm);
	}
	/* done, the call stays open to answer late resends until all are */
	if (engine_done(h))
		return;
	rc = h->iw ? rina_iw_pump(h->iw, &wait) : rina_rm_pump(h->rm, &wait);
	take_stats(h);
	if (rc)
		return fail(h, "sending", rc);
	h->wake = wake_at(w, wait);
}

void hosts_totals(struct world *w, struct engine_totals *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < w->n_hosts; i++) {
		const struct host *h = &w->h[i];

		t->timeouts += h->timeouts;
		t->retransmits += h->retransmits;
		t->malformed += h->malformed;
		if (h->ag) {
			t->retransmits += h->ag->st.ag_retransmits;
			t->malformed += h->ag->st.malformed +
					h->ag->st.foreign + h->ag->st.bad;
			t->host_relays += h->ag->st.host_relays;
			t->tor_copies += h->ag->st.tor_copies;
		}
	}
}

void hosts_dump(struct host *h)
{
	printf("# host %d member %d ina %d agent %d:", h->rank, h->member,
	       h->ina, h->agent);
	if (h->in_call && h->iw) {
		struct rina_iw_progress p;

		rina_iw_progress(h->iw, &p);
		printf(" %llu of %llu allgather packets, %llu of %u "
		       "contributions delivered",
		       (unsigned long long)p.got_ag,
		       (unsigned long long)p.expect_ag,
		       (unsigned long long)p.got_done, p.nct);
	} else if (h->in_call) {
		struct rina_rm_progress p;

		rina_rm_progress(h->rm, &p);
		printf(" %llu of %llu packets, %llu of %llu acks",
		       (unsigned long long)p.got_rx,
		       (unsigned long long)p.expect_rx,
		       (unsigned long long)p.got_ack,
		       (unsigned long long)p.expect_ack);
	}
	if (h->ag)
		printf("; agent: tor state %d, %llu copies, %llu retransmits",
		       h->ag->tor_state,
		       (unsigned long long)h->ag->st.tor_copies,
		       (unsigned long long)h->ag->st.ag_retransmits);
	printf("\n");
}
