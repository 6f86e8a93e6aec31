// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Unit tests of the agent core's ToR mode (core/agent*.c) on a fake host
 * that records every datagram and owns the clock: the TOR_INSTALL
 * handshake (accepted, refused, silent, installed too late; with
 * tor_retry a ToR that starts after the agent takes the job), the ToR's
 * allgather copies (ACKed upstream, kept as sender of record, never
 * re-sent to the workers), and workers' HELLO answered only once the
 * downstream member answered and the ToR decided; data dropped while
 * the ToR is asked. Software aggregation: NACKs and data of rounds
 * outside the window of rounds are counted and purge nothing; a silent
 * worker is named, a worker that is heard from or a slot that waits only
 * on upstream is not. A ToR lost in full flight of a call: retried slots
 * ask upstream (and, for the own chunk, downstream) again, and the
 * neighbours' requests are answered.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_int.h"	/* rina_agent_rto() */
#include "schedule.h"
#include "secret.h"
#include "../ktap.h"

#define MAX_SENT	64

struct sent {
	struct rina_agent_addr to;
	struct rina_hdr h;
	__u32 arg;		/* CTRL type or first payload word */
	struct rina_ctrl_msg ctrl;	/* a CTRL as sent */
	__u32 len;
	struct rina_agent_addr from;	/* relayed: its sender's, else 0 */
};

static struct sent sent[MAX_SENT];
static unsigned int nsent;
static __u64 now_us = 1000000;

static void *h_zalloc(void *ctx, __u32 size)
{
	(void)ctx;
	return calloc(1, size ? size : 1);
}

static void h_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static __u64 h_now(void *ctx)
{
	(void)ctx;
	return now_us;
}

static void h_send(void *ctx, const struct rina_agent_addr *to,
		   const void *buf, __u32 len)
{
	const struct rina_hdr *h = buf;

	(void)ctx;
	if (nsent == MAX_SENT || len < RINA_HDR_LEN + 4)
		return;
	sent[nsent].to = *to;
	sent[nsent].h = *h;
	memcpy(&sent[nsent].arg, (const __u8 *)buf + RINA_HDR_LEN, 4);
	sent[nsent].arg = ntohl(sent[nsent].arg);
	sent[nsent].len = len;
	if (len <= sizeof(sent[nsent].ctrl))
		memcpy(&sent[nsent].ctrl, buf, len);
	memset(&sent[nsent].from, 0, sizeof(sent[nsent].from));
	nsent++;
}

static void h_relay(void *ctx, const struct rina_agent_addr *to,
		    const struct rina_agent_addr *from, const void *buf,
		    __u32 len)
{
	unsigned int n = nsent;

	h_send(ctx, to, buf, len);
	if (nsent > n)
		sent[n].from = *from;
}

/* the wall clock of signed control messages: 2023, plus the fake clock */
#define WALL0	1700000000000000ull

static __u64 h_wall(void *ctx)
{
	(void)ctx;
	return WALL0 + now_us;
}

static __u64 h_stamp(void *ctx)
{
	static __u64 last;

	(void)ctx;
	last = WALL0 + now_us > last ? WALL0 + now_us : last + 1;
	return last;
}

/* sessions the ring's first member draws: 0x5e0001, 0x5e0002, ... */
static __u64 drawn;

static __u64 h_random(void *ctx)
{
	(void)ctx;
	return 0x5e0000 + ++drawn;
}

/* what the core told its host to filter on (ops.tag_set) */
static unsigned int tags_told;
static __u8 tag_told[RINA_TAG_LEN];

static void h_tag_set(void *ctx, __u16 job_id, const __u8 tag[RINA_TAG_LEN])
{
	(void)ctx;
	if (job_id == 7)
		tags_told++;
	memcpy(tag_told, tag, RINA_TAG_LEN);
}

static const struct rina_agent_ops ops = {
	.zalloc = h_zalloc, .free = h_free, .now_us = h_now, .send = h_send,
	.relay = h_relay, .mac = rina_siphash24, .wall_us = h_wall, .ctrl_stamp = h_stamp,
	.random_u64 = h_random, .tag_set = h_tag_set,
};

/* the session upstream's HELLOs carry (rx_ctrl()) */
#define UP_SESSION	0xabcdef0123456789ull

static const __u8 test_secret[RINA_SECRET_LEN] = "0123456789abcdef";

static struct rina_agent_addr addr(unsigned int host, unsigned int port)
{
	struct rina_agent_addr a = { htonl(0xc6120000 | host), htons(port), 0 };

	return a;
}

/*
 * 3 members; the agent is member 0 with two local workers, and a ToR;
 * signed: the job has a secret.
 */
static struct rina_cc_params setup_cc;	/* zero: no congestion control */
static bool setup_relay;		/* cfg.relay_own: rina.ko's agent */
static bool setup_retry;		/* cfg.tor_retry: fallback software */
static bool setup_mac;			/* cfg.auth_mac: per-packet MACs */
/* local[1] on the agent's host too (another process), another port */
static bool setup_host_pair;
static __u32 setup_member;		/* cfg.member: 0, the ring's first */

static void setup_job(struct rina_agent_core *a, bool tor, bool signed_job)
{
	struct rina_agent_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.job_id = 7;
	cfg.elems = 64;
	cfg.n_local = 2;
	cfg.window = 256;
	cfg.L = 3;
	cfg.member = setup_member;
	cfg.rto_us = 20000;
	cfg.cc = setup_cc;
	cfg.relay_own = setup_relay;
	cfg.tor_retry = setup_retry;
	cfg.job_hash = 0x1122334455667788ULL;
	cfg.self = addr(1, RINA_UDP_PORT_AGENT);
	cfg.local[0] = addr(1, RINA_UDP_PORT_MIN);
	cfg.local[1] = setup_host_pair ? addr(1, RINA_UDP_PORT_MIN + 1) :
					 addr(2, RINA_UDP_PORT_MIN);
	cfg.next = addr(0x101, RINA_UDP_PORT_MIN);
	cfg.prev = addr(0x201, RINA_UDP_PORT_MIN);
	if (tor)
		cfg.tor = addr(0xfe, RINA_UDP_PORT_AGENT);
	if (signed_job) {
		cfg.has_secret = 1;
		memcpy(cfg.secret, test_secret, sizeof(cfg.secret));
		cfg.tagged = 1;	/* as librina and rina.ko do */
		cfg.auth_mac = setup_mac;
	}
	if (rina_agent_core_init(a, &cfg, &ops, NULL)) {
		printf("Bail out! agent core init\n");
		exit(1);
	}
	nsent = 0;
}

static void setup(struct rina_agent_core *a, bool tor)
{
	setup_job(a, tor, false);
}

static void hdr(struct rina_hdr *h, unsigned int op, __u16 n)
{
	memset(h, 0, sizeof(*h));
	h->ver_op = (__u8)(RINA_VERSION << 4 | op);
	h->job_id = htons(7);
	h->n_elem = htons(n);
	h->exp = RINA_EXP_NONE;
}

static void rx_ctrl(struct rina_agent_core *a, __u32 type, __u32 arg,
		    __u64 hash, struct rina_agent_addr from)
{
	struct {
		struct rina_hdr h;
		struct rina_ctrl m;
	} __attribute__((packed)) p;
	int j;

	hdr(&p.h, RINA_OP_CTRL, RINA_CTRL_WORDS);
	/* the ToR echoes the session of the agent's request */
	rina_ctrl_set_session(&p.h, type == RINA_CTRL_TOR_REPLY ? a->session :
				    UP_SESSION);
	p.m.type = htonl(type);
	p.m.arg = htonl(arg);
	for (j = 0; j < 8; j++)
		((__u8 *)&p.m.hash)[j] = (__u8)(hash >> (56 - 8 * j));
	rina_agent_core_rx(a, &p, sizeof(p), &from);
}

/* An allgather packet from "from" (the ToR's copy from our own address). */
static void rx_ag(struct rina_agent_core *a, __u16 round, __u16 chunk,
		  __u32 seq, __u8 hop, const struct rina_agent_addr *from)
{
	struct {
		struct rina_hdr h;
		__be32 w[4];
	} __attribute__((packed)) p;

	hdr(&p.h, RINA_OP_AG_DATA, 4);
	p.h.round = htons(round);
	p.h.flags = RINA_F_AG_PHASE | RINA_F_FROM_SWITCH;
	p.h.chunk = htons(chunk);
	p.h.seq = htonl(seq);
	p.h.hop = hop;
	p.h.p_chunk = htons(1);
	p.h.num_contrib = htons(4);
	memset(p.w, 0, sizeof(p.w));
	rina_agent_core_rx(a, &p, sizeof(p), from);
}

/*
 * AG_DATA of a round as the ToR copies it to the agent port (from our own
 * address).
 */
static void rx_ag_copy_round(struct rina_agent_core *a, __u16 round,
			     __u16 chunk, __u32 seq, __u8 hop)
{
	rx_ag(a, round, chunk, seq, hop, &a->cfg.self);
}

static void rx_ag_copy(struct rina_agent_core *a, __u16 chunk, __u32 seq,
		       __u8 hop)
{
	rx_ag_copy_round(a, 0, chunk, seq, hop);
}

static unsigned int count(unsigned int op, __u32 arg_or_any,
			  const struct rina_agent_addr *to)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == op &&
		    (arg_or_any == ~0U || sent[j].arg == arg_or_any) &&
		    (!to || (sent[j].to.ip == to->ip &&
			     sent[j].to.port == to->port)))
			n++;
	return n;
}

/* ACKs to "to" that say the agent holds own-chunk results from seq on. */
static unsigned int held_acks(const struct rina_agent_addr *to, __u32 seq,
			      __u16 n_seqs)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_ACK &&
		    sent[j].h.flags == (RINA_F_AG_PHASE | RINA_F_OWN_FINAL) &&
		    sent[j].arg == seq && ntohs(sent[j].h.n_elem) == n_seqs &&
		    sent[j].to.ip == to->ip && sent[j].to.port == to->port)
			n++;
	return n;
}

static void test_install(void)
{
	struct rina_agent_core a;
	__u64 hash;
	bool ok;

	setup(&a, true);
	hash = a.cfg.job_hash;
	rina_agent_core_tor_install(&a);
	ok = a.tor_state == RINA_AGENT_TOR_WAIT &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) == 1;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, hash,
		addr(0x77, 0x524f));
	ok &= a.tor_state == RINA_AGENT_TOR_WAIT;	/* not the ToR */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, hash ^ 1, a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_WAIT;	/* another job */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, hash, a.cfg.tor);
	/* the stranger's is refused as forged, the other job's as bad */
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.bad == 1 &&
	      a.st.ctrl_forged == 1;
	nsent = 0;
	rina_agent_core_tor_remove(&a);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) >= 1 &&
	      a.tor_state == RINA_AGENT_TOR_OFF;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: TOR_INSTALL to the ToR, only its reply for this job counts, TOR_REMOVE at the end");

	setup(&a, true);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_NO_SLOTS, a.cfg.job_hash,
		a.cfg.tor);
	ok = a.tor_state == RINA_AGENT_TOR_OFF &&
	     a.tor_status == RINA_TOR_ST_NO_SLOTS;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a ToR out of slots (status 2) leaves the rack to software");

	setup(&a, true);
	rina_agent_core_tor_install(&a);
	while (a.tor_state == RINA_AGENT_TOR_WAIT && now_us < 10000000) {
		now_us += 10000;
		rina_agent_core_tick(&a);
	}
	ok = a.tor_state == RINA_AGENT_TOR_OFF &&
	     a.tor_status == RINA_AGENT_TOR_SILENT &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) ==
	     RINA_AGENT_TOR_TRIES;
	nsent = 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_OFF &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a silent ToR is given up after %d tries; installing it late is undone",
		    RINA_AGENT_TOR_TRIES);

	setup(&a, false);
	rina_agent_core_tor_install(&a);
	ok = a.tor_state == RINA_AGENT_TOR_NONE && nsent == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: no ToR address, no handshake");
}

static void test_tor_copies(void)
{
	struct rina_agent_core a;
	__u32 own = rina_own_chunk(0, 3);
	unsigned int j;
	bool ok;

	setup(&a, true);
	rx_ag_copy(&a, 2, 100, 0);	/* not installed: not ours to take */
	ok = nsent == 0 && a.st.bad == 1;
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	nsent = 0;

	/*
	 * upstream's chunk 2 at hop 1: ACK upstream (gathered until the
	 * tick: no RTT sample yet, so no delay), forward owed (hop 2), and
	 * relayed to local[0], the worker on our host (the ToR sends it
	 * none), every copy, as the ToR would have sent it
	 */
	rx_ag_copy(&a, 2, 100, 1);
	ok &= count(RINA_OP_ACK, 100, &a.cfg.prev) == 0 &&
	      count(RINA_OP_AG_DATA, ~0U, &a.cfg.local[0]) == 1 && nsent == 1;
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_ACK, 100, &a.cfg.prev) == 1 && nsent == 2;
	rx_ag_copy(&a, 2, 100, 1);	/* upstream lost our ACK */
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_ACK, 100, &a.cfg.prev) == 2 &&
	      count(RINA_OP_AG_DATA, ~0U, &a.cfg.local[0]) == 2 && nsent == 4;
	/*
	 * The rack's own chunk from the ToR: not ACKed upstream; the
	 * workers hear that the agent holds it (AG_PHASE | OWN_FINAL ACK,
	 * batched until the tick), and again for a re-emitted copy (a
	 * worker retransmitted: it missed that ACK). Data never re-sent.
	 */
	rx_ag_copy(&a, (__u16)own, 200, 0);
	rx_ag_copy(&a, (__u16)own, 201, 0);
	ok &= nsent == 6 && a.st.tor_copies == 4 && a.st.host_relays == 4;
	rina_agent_core_tick(&a);
	ok &= held_acks(&a.cfg.local[0], 200, 2) == 1 &&
	      held_acks(&a.cfg.local[1], 200, 2) == 1 &&
	      count(RINA_OP_ACK, 200, &a.cfg.prev) == 0 &&
	      count(RINA_OP_AG_DATA, ~0U, NULL) == 4 &&
	      count(RINA_OP_AG_DATA, ~0U, &a.cfg.local[0]) == 4;
	/* the re-emitted copy's ACK lists the last one's 201 again */
	rx_ag_copy(&a, (__u16)own, 200, 0);
	rina_agent_core_tick(&a);
	ok &= held_acks(&a.cfg.local[0], 200, 2) == 2 &&
	      held_acks(&a.cfg.local[1], 200, 2) == 2 &&
	      count(RINA_OP_AG_DATA, ~0U, &a.cfg.local[0]) == 5 &&
	      count(RINA_OP_AG_DATA, ~0U, NULL) == 5 && a.st.host_relays == 5;
	ktap_result(ok, "agent: ToR copies ACKed upstream once each; the own chunk's told to the workers as held, again when re-emitted; data only to the worker on the agent's host, each copy relayed");

	/* no AG ACK from downstream: both retransmitted, hop as the ToR's */
	nsent = 0;
	for (j = 0; j < 3; j++) {	/* one timer retransmission a pass */
		now_us += 300000;
		rina_agent_core_tick(&a);
	}
	ok = count(RINA_OP_AG_DATA, ~0U, &a.cfg.next) >= 3;
	{
		unsigned int hop_ok = 1;

		for (j = 0; j < nsent; j++)
			if ((sent[j].h.ver_op & 0xf) == RINA_OP_AG_DATA)
				hop_ok &= (ntohl(sent[j].h.seq) == 100 &&
					   sent[j].h.hop == 2) ||
					  (ntohl(sent[j].h.seq) >= 200 &&
					   sent[j].h.hop == 1);
		ok &= hop_ok && count(RINA_OP_AG_DATA, ~0U,
				      &a.cfg.local[0]) == 0;
	}
	/* downstream ACKs all three: nothing more */
	{
		struct {
			struct rina_hdr h;
			__be32 s[3];
		} __attribute__((packed)) p;

		hdr(&p.h, RINA_OP_ACK, 3);
		p.h.flags = RINA_F_AG_PHASE;
		p.s[0] = htonl(100);
		p.s[1] = htonl(200);
		p.s[2] = htonl(201);
		rina_agent_core_rx(&a, &p, sizeof(p), &a.cfg.next);
	}
	nsent = 0;
	now_us += 2000000;
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_AG_DATA, ~0U, NULL) == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: sender of record for ToR copies until downstream's ACK (forwarded hop 2, own chunk hop 1)");
}

/* ACKs to "to" with flags, first seq and n_seqs seqs. */
static unsigned int acks(const struct rina_agent_addr *to, __u8 flags,
			 __u32 seq, __u16 n_seqs)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_ACK &&
		    sent[j].h.flags == flags && sent[j].arg == seq &&
		    ntohs(sent[j].h.n_elem) == n_seqs &&
		    sent[j].to.ip == to->ip && sent[j].to.port == to->port)
			n++;
	return n;
}

/* The i-th seq an ACK kept in s lists (one short enough to keep whole). */
static __u32 acked_seq(const struct sent *s, unsigned int i)
{
	__be32 v;

	if ((s->h.ver_op & 0xf) != RINA_OP_ACK ||
	    s->len < RINA_HDR_LEN + 4 * (i + 1) || s->len > sizeof(s->ctrl))
		return ~0U;
	memcpy(&v, (const __u8 *)&s->ctrl + RINA_HDR_LEN + 4 * i, 4);
	return ntohl(v);
}

/*
 * The ACKs of the ToR's copies wait for company (delayed ACKs): until
 * RINA_AGENT_ACK_BATCH seqs, or a quarter of the smoothed RTT, at most
 * RINA_AGENT_ACK_DELAY_MAX_US; one ACK then lists them all.
 */
static void test_ack_delay(void)
{
	struct rina_agent_core a;
	__u16 own = (__u16)rina_own_chunk(0, 3);
	__u32 j;
	__u64 wait;
	unsigned int found;
	bool ok;

	setup(&a, true);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	a.rtt.srtt_us = 2000;		/* delay: 500 us */
	nsent = 0;
	for (j = 0; j < 3; j++)
		rx_ag_copy(&a, own, 200 + j, 0);
	wait = rina_agent_core_tick(&a);
	ok = count(RINA_OP_ACK, ~0U, NULL) == 0 && wait == 500;
	now_us += 499;
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_ACK, ~0U, NULL) == 0;
	now_us += 1;
	rina_agent_core_tick(&a);
	ok &= acks(&a.cfg.local[0], RINA_F_AG_PHASE | RINA_F_OWN_FINAL,
		   200, 3) == 1 &&
	      acks(&a.cfg.local[1], RINA_F_AG_PHASE | RINA_F_OWN_FINAL,
		   200, 3) == 1 && count(RINA_OP_ACK, ~0U, NULL) == 2;
	ktap_result(ok, "agent: held ACKs wait a quarter of the SRTT, then one lists every seq (%llu us asked)",
		    (unsigned long long)wait);

	/* RINA_AGENT_ACK_BATCH of upstream's chunk: at once, in one ACK */
	nsent = 0;
	for (j = 0; j < RINA_AGENT_ACK_BATCH; j++)
		rx_ag_copy(&a, 2, 100 + j, 1);
	rina_agent_core_tick(&a);
	ok = acks(&a.cfg.prev, RINA_F_AG_PHASE, 100,
		  RINA_AGENT_ACK_BATCH) == 1 &&
	     count(RINA_OP_ACK, ~0U, NULL) == 1;
	/*
	 * a long RTT: the delay stops at RINA_AGENT_ACK_DELAY_MAX_US; the
	 * ACK lists the last one's 16 seqs again after its own
	 */
	a.rtt.srtt_us = 400000;
	rx_ag_copy(&a, 2, 300, 1);
	now_us += RINA_AGENT_ACK_DELAY_MAX_US - 1;
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_ACK, 300, &a.cfg.prev) == 0;
	now_us += 1;
	rina_agent_core_tick(&a);
	ok &= acks(&a.cfg.prev, RINA_F_AG_PHASE, 300,
		   1 + RINA_AGENT_ACK_BATCH) == 1;
	/* another round does not wait for this one's */
	rx_ag_copy(&a, 2, 301, 1);
	rx_ag_copy_round(&a, 1, 2, 302, 1);
	ok &= acks(&a.cfg.prev, RINA_F_AG_PHASE, 301, 2) == 1;
	ktap_result(ok, "agent: ACKs upstream go at %u seqs at once, after at most %u us, and a new round sends the last one's",
		    RINA_AGENT_ACK_BATCH, RINA_AGENT_ACK_DELAY_MAX_US);
	/*
	 * So a lost ACK loses nothing: 301's lists 300 again, and the next
	 * round's lists nothing of round 0's
	 */
	now_us += RINA_AGENT_ACK_DELAY_MAX_US;
	rina_agent_core_tick(&a);
	ok = acks(&a.cfg.prev, RINA_F_AG_PHASE, 302, 1) == 1;
	for (j = 0, found = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_ACK &&
		    sent[j].arg == 301 && acked_seq(&sent[j], 1) == 300)
			found++;
	ok &= found == 1;
	ktap_result(ok, "agent: an ACK lists the last one's seqs of the same round again, another round's not (RFC 2018)");
	rina_agent_core_fini(&a);
}

static void test_hello_gate(void)
{
	struct rina_agent_core a;
	bool ok;

	setup(&a, false);
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.local[1]);
	ok = count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[1]) == 0;
	rina_agent_core_tick(&a);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_HELLO, &a.cfg.next) == 1;
	rx_ctrl(&a, RINA_CTRL_HELLO_ACK, 0, a.cfg.job_hash, a.cfg.next);
	/* downstream is up, upstream not yet: the workers wait */
	ok &= count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[1]) == 0;
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.prev);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.prev) == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[1]) == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[0]) == 0;
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.local[0]);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[0]) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: workers' HELLO answered only once downstream answered the agent's and upstream greeted it");

	/* with a ToR being asked: no HELLO_ACK, no data taken */
	setup(&a, true);
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.local[0]);
	rina_agent_core_tick(&a);
	rx_ctrl(&a, RINA_CTRL_HELLO_ACK, 0, a.cfg.job_hash, a.cfg.next);
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.prev);
	nsent = 0;
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_HELLO, 0, a.cfg.job_hash, a.cfg.local[1]);
	ok = count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, NULL) == 0;
	{
		struct {
			struct rina_hdr h;
			__be32 w[4];
		} __attribute__((packed)) p;

		hdr(&p.h, RINA_OP_SR_CONTRIB, 4);
		p.h.seq = htonl(5);
		p.h.p_chunk = htons(1);
		p.h.num_contrib = htons(1);
		memset(p.w, 0, sizeof(p.w));
		rina_agent_core_rx(&a, &p, sizeof(p), &a.cfg.local[1]);
	}
	ok &= a.st.tor_held == 1 && a.st.contrib_in == 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[0]) == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[1]) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: while the ToR is asked, workers wait for HELLO_ACK and data is dropped (retried)");
}

/* A signed HELLO from local worker 0 (src_id 0) to the agent port. */
static void rx_signed_hello(struct rina_agent_core *a, __u32 inc,
			    const __u8 *key, __u64 stamp)
{
	struct rina_ctrl_msg m;
	__u32 len;

	hdr(&m.h, RINA_OP_CTRL, 0);
	m.c.type = htonl(RINA_CTRL_HELLO);
	m.c.arg = htonl(inc);
	m.c.hash = htobe64(a->cfg.job_hash);
	len = rina_ctrl_seal(&m, key, rina_siphash24, stamp, a->cfg.self.ip,
			     a->cfg.self.port);
	rina_agent_core_rx(a, &m, len, &a->cfg.local[0]);
}

static void test_signed(void)
{
	struct rina_agent_core a;
	struct rina_ctrl_guard *g = calloc(1, sizeof(*g));
	const struct sent *s = NULL;
	__u8 wrong[RINA_SECRET_LEN] = { 0 };
	unsigned int i;
	bool ok;

	setup_job(&a, false, true);
	rx_ctrl(&a, RINA_CTRL_HELLO, 42, a.cfg.job_hash, a.cfg.local[0]);
	ok = !a.hello_from && a.st.ctrl_forged == 1;
	rx_ctrl(&a, RINA_CTRL_ABORT, 5, a.cfg.job_hash, addr(0x99, 0x5200));
	ok &= a.st.ctrl_forged == 2;
	rx_signed_hello(&a, 42, wrong, h_wall(NULL));
	ok &= a.st.ctrl_forged == 3 && !a.hello_from;
	ktap_result(ok, "agent, signed job: unsigned, strangers' and wrongly signed messages are refused (%llu)",
		    (unsigned long long)a.st.ctrl_forged);

	/*
	 * signed before the agent started (recorded, a restart, or sent
	 * before we existed and delivered late): no, and no replay counted
	 */
	rx_signed_hello(&a, 41, test_secret, h_wall(NULL) - 1000);
	ok = !a.hello_from && a.st.ctrl_before_start == 1 &&
	     a.st.ctrl_replayed == 0;
	ktap_result(ok, "agent, signed job: a HELLO signed 1 ms before the agent started is refused, counted as before_start (%llu), not replayed (%llu)",
		    (unsigned long long)a.st.ctrl_before_start,
		    (unsigned long long)a.st.ctrl_replayed);
	now_us += 1000;
	rx_signed_hello(&a, 42, test_secret, h_wall(NULL));
	ok = a.hello_from == 1 && a.worker_inc[0] == 42;
	rx_signed_hello(&a, 43, test_secret, h_wall(NULL) - 40000000);
	ok &= a.worker_inc[0] == 42 && a.st.ctrl_replayed == 1;
	ktap_result(ok, "agent, signed job: a signed HELLO is taken, a stale one is not");
	/* the network delivers the taken one twice: a copy, no replay */
	rx_signed_hello(&a, 42, test_secret, h_wall(NULL));
	ok = a.hello_from == 1 && a.st.ctrl_replayed == 1 &&
	     a.st.ctrl_duplicates == 1;
	ktap_result(ok, "agent, signed job: a copy of the HELLO taken is refused as a duplicate, not counted as replayed (%llu, %llu)",
		    (unsigned long long)a.st.ctrl_replayed,
		    (unsigned long long)a.st.ctrl_duplicates);

	rina_agent_core_tick(&a);
	for (i = 0; i < nsent; i++)
		if (sent[i].h.ver_op == (RINA_VERSION << 4 | RINA_OP_CTRL) &&
		    sent[i].arg == RINA_CTRL_HELLO)
			s = &sent[i];
	ok = s && s->len == sizeof(struct rina_ctrl_msg) &&
	     rina_ctrl_check(g, &s->ctrl.h, test_secret, rina_siphash24,
			     h_wall(NULL), a.cfg.next.ip,
			     a.cfg.next.port) == RINA_CTRL_OK &&
	     rina_ctrl_check(g, &s->ctrl.h, test_secret, rina_siphash24,
			     h_wall(NULL), a.cfg.prev.ip,
			     a.cfg.prev.port) == RINA_CTRL_FORGED;
	ktap_result(ok, "agent, signed job: its HELLO downstream is signed for downstream only");
	rina_agent_core_fini(&a);
	free(g);
}

/*
 * Data for chunk 2 (the agent is member 0 of 3: added from both workers
 * and upstream, then sent downstream), round "round", seq "seq", from
 * "from": a worker's contribution, or upstream's partial.
 */
static void rx_sr(struct rina_agent_core *a, __u16 round, __u16 chunk,
		  __u32 seq, const struct rina_agent_addr *from, __u8 flags);

static void rx_data_chunk(struct rina_agent_core *a, __u16 round,
			  __u16 chunk, __u32 seq,
			  const struct rina_agent_addr *from)
{
	rx_sr(a, round, chunk, seq, from, 0);
}

/* the rank a contribution names as its sender (src_id) */
static __u16 sr_src_id;

/* A contribution (or, from prev, a partial) with "flags" (RINA_F_RETX). */
static void rx_sr(struct rina_agent_core *a, __u16 round, __u16 chunk,
		  __u32 seq, const struct rina_agent_addr *from, __u8 flags)
{
	struct {
		struct rina_hdr h;
		__be32 w[4];
	} __attribute__((packed)) p;
	bool up = from->ip == a->cfg.prev.ip && from->port == a->cfg.prev.port;
	int j;

	hdr(&p.h, up ? RINA_OP_SR_PARTIAL : RINA_OP_SR_CONTRIB, 4);
	p.h.round = htons(round);
	p.h.chunk = htons(chunk);
	p.h.seq = htonl(seq);
	p.h.slot = htons((__u16)seq);
	p.h.p_chunk = htons(1);
	p.h.num_contrib = htons(1);
	p.h.src_id = htons(sr_src_id);
	p.h.flags = flags;
	for (j = 0; j < 4; j++)
		p.w[j] = htonl((__u32)(j + 1));
	rina_agent_core_rx(a, &p, sizeof(p), from);
}

static void rx_data(struct rina_agent_core *a, __u16 round, __u32 seq,
		    const struct rina_agent_addr *from)
{
	rx_data_chunk(a, round, 2, seq, from);
}

static void rx_nack(struct rina_agent_core *a, __u16 round, __u32 seq,
		    const struct rina_agent_addr *from)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	hdr(&p.h, RINA_OP_NACK, 1);
	p.h.round = htons(round);
	p.h.flags = RINA_F_AG_PHASE;
	p.h.seq = htonl(seq);
	p.seq = htonl(seq);
	rina_agent_core_rx(a, &p, sizeof(p), from);
}

/* The partial for downstream of round "round", seq "seq": sums 3x(1..4). */
static unsigned int partials_out(const struct rina_agent_core *a,
				 __u16 round, __u32 seq)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_SR_PARTIAL &&
		    ntohs(sent[j].h.round) == round &&
		    ntohl(sent[j].h.seq) == seq && sent[j].arg == 3 &&
		    sent[j].to.ip == a->cfg.next.ip &&
		    sent[j].to.port == a->cfg.next.port)
			n++;
	return n;
}

/* NACKs without AG_PHASE to "to" asking for seq (gap_nack()). */
static unsigned int gap_nacks_to(const struct rina_agent_addr *to, __u32 seq)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_NACK &&
		    !(sent[j].h.flags & RINA_F_AG_PHASE) &&
		    ntohl(sent[j].h.seq) == seq && sent[j].arg == seq &&
		    sent[j].to.ip == to->ip && sent[j].to.port == to->port)
			n++;
	return n;
}

static void setup_on(struct rina_agent_core *a);
static void run_for(struct rina_agent_core *a, __u64 us, __u64 step);

/*
 * Software aggregation (no ToR), member 0 of 3, P = 1: chunk 0 of block
 * b is seq 6b and ordinal 3b, the first step (local workers only).
 * Worker 1 loses its parts of blocks 2 and 6 (seqs 12 and 36); worker 0
 * sends all ten.
 */
static void test_gap_nack(void)
{
	struct rina_agent_core a;
	unsigned int b;
	bool ok;

	setup(&a, false);
	for (b = 0; b < 10; b++)
		rx_data_chunk(&a, 0, 0, 6 * b, &a.cfg.local[0]);
	rx_data_chunk(&a, 0, 0, 0, &a.cfg.local[1]);
	rx_data_chunk(&a, 0, 0, 6, &a.cfg.local[1]);
	ok = !a.st.gap_nacks;
	rx_data_chunk(&a, 0, 0, 18, &a.cfg.local[1]);	/* 3 ordinals on */
	ok &= gap_nacks_to(&a.cfg.local[1], 12) == 1 && a.st.gap_nacks == 1;
	rx_data_chunk(&a, 0, 0, 24, &a.cfg.local[1]);	/* asked just now */
	ok &= a.st.gap_nacks == 1;
	ktap_result(ok, "agent: without a ToR, a worker's part that a slot lacks once its part 3 ordinals on came is asked for at once, once (%llu NACKs)",
		    (unsigned long long)a.st.gap_nacks);

	rx_sr(&a, 0, 0, 12, &a.cfg.local[1], RINA_F_RETX);	/* resent */
	now_us += RINA_AGENT_GAP_REASK_US;
	rx_data_chunk(&a, 0, 0, 30, &a.cfg.local[1]);
	ok = a.st.gap_nacks == 1;	/* the slot has it now */
	rx_sr(&a, 0, 0, 42, &a.cfg.local[1], RINA_F_RETX);
	ok &= a.st.gap_nacks == 1;	/* a resend says nothing of order */
	rx_data_chunk(&a, 0, 0, 48, &a.cfg.local[1]);
	ok &= gap_nacks_to(&a.cfg.local[1], 36) == 1;
	now_us += RINA_AGENT_GAP_REASK_US;
	rx_data_chunk(&a, 0, 0, 54, &a.cfg.local[1]);
	ok &= gap_nacks_to(&a.cfg.local[1], 36) == 2;
	rx_sr(&a, 0, 0, 36, &a.cfg.local[1], RINA_F_RETX);
	ok &= a.st.slots_done == 10 && a.st.gap_nacks == 3 &&
	      !count(RINA_OP_NACK, ~0U, &a.cfg.local[0]);
	ktap_result(ok, "agent: asks again after %d us, not once the slot has the part, not on a resend, never the worker that lost nothing (%llu NACKs, %llu slots)",
		    RINA_AGENT_GAP_REASK_US,
		    (unsigned long long)a.st.gap_nacks,
		    (unsigned long long)a.st.slots_done);
	rina_agent_core_fini(&a);

	/* with the ToR on, the rack's parts are the ToR's: nothing asked */
	setup_on(&a);
	nsent = 0;
	rx_data_chunk(&a, 0, 0, 12, &a.cfg.local[0]);
	rx_data_chunk(&a, 0, 0, 24, &a.cfg.local[1]);
	ktap_result(!a.st.gap_nacks && !count(RINA_OP_NACK, ~0U, NULL),
		    "agent: with the ToR on it asks no worker for gaps");
	rina_agent_core_fini(&a);
}

static void test_far_rounds(void)
{
	struct rina_agent_core a;
	bool ok;

	/* a worker's NACK of a far round, its source spoofed */
	setup(&a, false);
	rx_data(&a, 0, 9, &a.cfg.local[0]);
	rx_nack(&a, 30000, 9, &a.cfg.local[1]);
	rx_nack(&a, 0xfffe, 9, &a.cfg.local[1]);	/* two rounds back */
	rx_data(&a, 0, 9, &a.cfg.local[1]);
	rx_data(&a, 0, 9, &a.cfg.prev);
	ok = a.st.slots_done == 1 && partials_out(&a, 0, 9) == 1 &&
	     a.st.stale == 0 && a.st.far_round == 2 && a.st.nacks_in == 0 &&
	     a.max_round == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: NACKs of rounds outside the window are counted (far_round) and purge nothing");

	/*
	 * data: the next rounds move the window (the one before is kept);
	 * more than RINA_AGENT_ROUNDS_AHEAD ahead is counted and ignored
	 */
	setup(&a, false);
	rx_data(&a, 0, 9, &a.cfg.local[0]);
	rx_data(&a, 0, 9, &a.cfg.local[1]);
	rx_data(&a, 1, 9, &a.cfg.local[0]);
	rx_data(&a, 1 + RINA_AGENT_ROUNDS_AHEAD + 1, 9, &a.cfg.local[1]);
	rx_data(&a, 1 + RINA_AGENT_ROUNDS_AHEAD + 1000, 9, &a.cfg.prev);
	rx_data(&a, 0, 9, &a.cfg.prev);
	rx_data(&a, 1, 9, &a.cfg.local[1]);
	rx_data(&a, 1, 9, &a.cfg.prev);
	ok = a.st.slots_done == 2 && partials_out(&a, 0, 9) == 1 &&
	     partials_out(&a, 1, 9) == 1 && a.st.stale == 0 &&
	     a.st.far_round == 2 && a.max_round == 1;
	/* in the window, a later round still moves it */
	rx_data(&a, 1 + RINA_AGENT_ROUNDS_AHEAD, 9, &a.cfg.local[0]);
	ok &= a.max_round == 1 + RINA_AGENT_ROUNDS_AHEAD && a.st.far_round == 2;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: data more than %d rounds ahead is counted (far_round) and purges nothing",
		    RINA_AGENT_ROUNDS_AHEAD);
}

static void test_silent(void)
{
	struct rina_agent_core a;
	const __u64 quiet = 1500000;
	bool ok;

	setup(&a, false);
	rx_data(&a, 0, 9, &a.cfg.prev);	/* waits on upstream only */
	now_us += quiet;
	ok = rina_agent_core_silent(&a, quiet) == 0;
	rx_data(&a, 0, 10, &a.cfg.prev);
	rx_data(&a, 0, 10, &a.cfg.local[0]);	/* worker 1 never comes */
	ok &= rina_agent_core_silent(&a, quiet) == 0;	/* not long yet */
	now_us += quiet - 1;
	ok &= rina_agent_core_silent(&a, quiet) == 0;
	now_us += 1;
	ok &= rina_agent_core_silent(&a, quiet) == 2;
	/* worker 1 speaks (a NACK): alive, waiting behind its window */
	rx_nack(&a, 0, 1, &a.cfg.local[1]);
	ok &= rina_agent_core_silent(&a, quiet) == 0;
	now_us += quiet;	/* and silent again; worker 0 as well now */
	ok &= rina_agent_core_silent(&a, quiet) == 2;
	rx_data(&a, 0, 10, &a.cfg.local[1]);	/* it was only late */
	now_us += quiet;
	ok &= rina_agent_core_silent(&a, quiet) == 0 && a.st.slots_done == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: names the local worker a slot has waited for since 3/4 of the timeout, not one it heard from");
}

/*
 * With the ToR adding the rack the agent sees no contributions: a worker
 * that reports no stall (RINA_CTRL_STALL) while another has reported one
 * for 2/3 of the silence limit is named; one that reports is not, and a
 * stall that ended names nobody.
 */
static void test_silent_tor(void)
{
	struct rina_agent_core a;
	const __u64 quiet = 1500000;	/* 3/4 of a 2000 ms timeout */
	unsigned int j;
	bool ok;

	setup(&a, true);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, 0, a.cfg.job_hash, a.cfg.tor);
	now_us += 10 * quiet;
	ok = a.tor_state == RINA_AGENT_TOR_ON &&
	     rina_agent_core_silent(&a, quiet) == 0;
	for (j = 0; j < 4; j++) {	/* every 250 ms, for 750 ms */
		rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
		ok &= rina_agent_core_silent(&a, quiet) == 0;
		now_us += 250000;
	}
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	ok &= rina_agent_core_silent(&a, quiet) == 1 && a.st.stalls_in == 5;
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[0]);
	ok &= rina_agent_core_silent(&a, quiet) == 0;
	now_us += quiet / 2 + 1;	/* no report since: over */
	ok &= rina_agent_core_silent(&a, quiet) == 0;
	/* a new stall, long after the first: worker 0 not heard in it */
	now_us += 2000000;
	for (j = 0; j < 2; j++) {
		rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
		now_us += quiet / 3;
	}
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	ok &= rina_agent_core_silent(&a, quiet) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent with a ToR: names the local worker that sent no STALL while another stalled for 2/3 of the limit, not one that did, nobody once the stall ended");
}

/*
 * A stall that ends in results: a barrier's early workers report while
 * a late one computes, then the late one comes (to the ToR, unseen by
 * the agent) and the rack's result arrives. The reports alone said the
 * rack was still stalled for half the limit after the last of them, and
 * once 2/3 of the limit had passed since the first, the late worker,
 * which never stalls, was named: bench_ddp's 2x4 all-INA runs aborted on
 * a rank that was 4 s late to a barrier and done with it 3.4 s before.
 * A new result from the ToR ends the stall; a stall after it still names
 * the worker that is not there.
 */
static void test_silent_tor_progress(void)
{
	struct rina_agent_core a;
	const __u64 quiet = 1500000;	/* 3/4 of a 2000 ms timeout */
	__u32 own = rina_own_chunk(0, 3);
	bool ok;

	setup(&a, true);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, 0, a.cfg.job_hash, a.cfg.tor);
	now_us += 10 * quiet;
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	now_us += quiet / 4;
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	now_us += quiet / 20;
	rx_ag_copy_round(&a, 4, (__u16)own, 200, 0);	/* worker 0 came */
	/* 2/3 of the limit after the first report, half after the last */
	now_us += quiet * 2 / 3 - quiet / 4 - quiet / 20;
	ok = a.tor_state == RINA_AGENT_TOR_ON && a.st.stalls_in == 2 &&
	     rina_agent_core_silent(&a, quiet) == 0;
	/*
	 * a new stall; the ToR's copy again in it (a worker resent its
	 * part) is no news of the rack
	 */
	now_us += quiet;
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	now_us += quiet / 3;
	rx_ag_copy_round(&a, 4, (__u16)own, 200, 0);
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	now_us += quiet / 3 - 1;
	ok &= rina_agent_core_silent(&a, quiet) == 0;	/* not long yet */
	now_us += 1;
	rx_ctrl(&a, RINA_CTRL_STALL, 2000, 0, a.cfg.local[1]);
	ok &= rina_agent_core_silent(&a, quiet) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent with a ToR: a new result from the ToR ends the rack's stall, and names nobody the reports before it would have; a later stall names the absent worker");
}

/* Downstream ACKs every copy sent to it since nsent was last reset. */
static void ack_sent_down(struct rina_agent_core *a)
{
	unsigned int j, n = nsent;
	struct {
		struct rina_hdr h;
		__be32 s[1];
	} __attribute__((packed)) p;

	for (j = 0; j < n; j++) {
		if ((sent[j].h.ver_op & 0xf) != RINA_OP_AG_DATA ||
		    sent[j].to.ip != a->cfg.next.ip ||
		    sent[j].to.port != a->cfg.next.port)
			continue;
		hdr(&p.h, RINA_OP_ACK, 1);
		p.h.flags = RINA_F_AG_PHASE;
		p.s[0] = sent[j].h.seq;
		rina_agent_core_rx(a, &p, sizeof(p), &a->cfg.next);
	}
}

struct burst {
	unsigned int first, second, total;
	unsigned int last_gap;	/* ticks between the last two repair passes */
	__u32 w0, w1;
	__u64 wait;
	__u64 srtt, rto;	/* the agent's, and the job's timer */
};

/*
 * 38 of the ToR's 40 copies downstream lost (downstream ACKs only the
 * last): without congestion control every one goes again in one pass;
 * with it, a pass sends the window's credit, the loss halves the window,
 * the rest follow one round trip later, and all of them in the end if
 * downstream acknowledges the repairs (answer); if it does not, the
 * passes back off (core/cc.h).
 */
static void repairs_of_burst(bool cc, bool answer, struct burst *b)
{
	struct rina_agent_core a;
	unsigned int j, n, last = 0, prev = 0;
	struct {
		struct rina_hdr h;
		__be32 s[1];
	} __attribute__((packed)) p;

	memset(b, 0, sizeof(*b));
	memset(&setup_cc, 0, sizeof(setup_cc));
	if (cc) {
		rina_cc_params_default(&setup_cc, 256);
		setup_cc.flags = RINA_CC_F_LOSS;
		setup_cc.w_init = 4;
	}
	setup(&a, true);
	memset(&setup_cc, 0, sizeof(setup_cc));
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	for (j = 0; j < 40; j++) {
		rx_ag_copy(&a, 2, 100 + j, 1);
		now_us += 1000;
	}
	now_us += 5000;
	hdr(&p.h, RINA_OP_ACK, 1);
	p.h.flags = RINA_F_AG_PHASE;
	p.s[0] = htonl(139);
	rina_agent_core_rx(&a, &p, sizeof(p), &a.cfg.next);
	b->w0 = rina_cc_window(&a.cc);
	b->srtt = a.rtt.srtt_us;
	b->rto = a.cfg.rto_us;
	nsent = 0;
	b->wait = rina_agent_core_tick(&a);
	b->first = count(RINA_OP_AG_DATA, ~0U, &a.cfg.next);
	b->w1 = rina_cc_window(&a.cc);
	b->total = b->first;
	nsent = 0;
	now_us += b->wait;
	rina_agent_core_tick(&a);
	b->second = count(RINA_OP_AG_DATA, ~0U, &a.cfg.next);
	b->total += b->second;
	for (j = 1; j <= 40; j++) {	/* ~40 round trips at most */
		if (answer)
			ack_sent_down(&a);
		nsent = 0;
		now_us += 20000;
		rina_agent_core_tick(&a);
		n = count(RINA_OP_AG_DATA, ~0U, &a.cfg.next);
		b->total += n;
		if (n) {
			prev = last;
			last = j;
		}
	}
	b->last_gap = last - prev;
	rina_agent_core_fini(&a);
}

static void test_repair_window(void)
{
	struct burst b;

	repairs_of_burst(false, false, &b);
	ktap_result(b.first == 38 && b.total >= 39,
		    "agent: without congestion control 38 lost copies go again in one pass (%u)",
		    b.first);
	repairs_of_burst(true, true, &b);
	/* a round trip, not the job's timer (20 ms) */
	ktap_result(b.first == b.w0 && b.w0 < 38 && b.w1 == b.w0 / 2 &&
		    b.second == b.w1 && b.srtt >= RINA_CC_RETX_PERIOD_MIN_US &&
		    b.wait == b.srtt && b.wait < b.rto && b.total >= 39,
		    "agent: repairs go cwnd (%u) per round trip, the loss halves it (%u, %u sent %llu us later: the round trip, not the job's %llu us timer), all %u in the end",
		    b.w0, b.w1, b.second, (unsigned long long)b.wait,
		    (unsigned long long)b.rto, b.total);
	repairs_of_burst(true, false, &b);
	ktap_result(b.total < 39 && b.last_gap >= 8,
		    "agent: repairs that downstream never acknowledges back off (%u sent in 40 round trips, the last two passes %u apart)",
		    b.total, b.last_gap);
}

/* Downstream's ACK of one allgather seq (round 0). */
static void ack_down(struct rina_agent_core *a, __u32 seq)
{
	struct {
		struct rina_hdr h;
		__be32 s[1];
	} __attribute__((packed)) p;

	hdr(&p.h, RINA_OP_ACK, 1);
	p.h.flags = RINA_F_AG_PHASE;
	p.s[0] = htonl(seq);
	rina_agent_core_rx(a, &p, sizeof(p), &a->cfg.next);
}

/*
 * The agent's timer downstream (core/agent_cache.c): it restarts on every
 * ACK that brings news, so copies that wait behind others, acknowledged
 * in order at half its period, never fire it; and a resent copy's late
 * ACK (its first copy's) does not judge lost what was stored since
 * (Karn). On a shaped 4x2 all-INA ring each agent resent some 1700
 * copies in 7 calls, all of them duplicates, before either.
 */
static void test_timer_news_and_karn(void)
{
	struct rina_agent_core a;
	__u64 rto;
	__u32 j;
	bool ok;

	setup_on(&a);
	for (j = 0; j < 10; j++) {
		rx_ag_copy(&a, 2, 100 + j, 1);
		now_us += 100;
	}
	rto = rina_agent_rto(&a);	/* each copy's, at its storing */
	nsent = 0;
	for (j = 0; j < 10; j++) {
		now_us += rto / 2;
		ack_down(&a, 100 + j);
		rina_agent_core_tick(&a);
	}
	ktap_result(!count(RINA_OP_AG_DATA, ~0U, &a.cfg.next) && rto,
		    "agent: copies ACKed in order every half timer period (%llu us) are never resent (%u)",
		    (unsigned long long)rto / 2,
		    count(RINA_OP_AG_DATA, ~0U, &a.cfg.next));
	rina_agent_core_fini(&a);

	setup_on(&a);
	rx_ag_copy(&a, 2, 200, 1);
	for (j = 1; j < 6; j++) {
		now_us += 1000;
		rx_ag_copy(&a, 2, 200 + j, 1);
	}
	rto = rina_agent_rto(&a);	/* each copy's, at its storing */
	now_us += rto;		/* the timer: 200 again, only it */
	rina_agent_core_tick(&a);
	ok = count(RINA_OP_AG_DATA, ~0U, &a.cfg.next) == 1;
	nsent = 0;
	now_us += 500;		/* its first copy's ACK, late */
	ack_down(&a, 200);
	now_us += 100;
	rina_agent_core_tick(&a);
	ktap_result(ok && !count(RINA_OP_AG_DATA, ~0U, &a.cfg.next),
		    "agent: the late ACK of a resent copy judges nothing stored since lost (%u resent)",
		    count(RINA_OP_AG_DATA, ~0U, &a.cfg.next));
	rina_agent_core_fini(&a);
}

/* The seqs downstream got again since nsent was last reset, in order. */
static unsigned int resent_seqs(const struct rina_agent_core *a, __u32 *seqs,
				unsigned int max)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent && n < max; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_AG_DATA &&
		    sent[j].to.ip == a->cfg.next.ip &&
		    sent[j].to.port == a->cfg.next.port)
			seqs[n++] = ntohl(sent[j].h.seq);
	return n;
}

/*
 * The timer downstream tells ACKs that are only late from a lost tail
 * (core/agent_cache.c, probe_pick()). When it fires it sends the copy
 * first sent last and restarts, backed off: ACKs that stall over its
 * period, the host thread ticking all along, cost that one copy, not one
 * per tick (on a shaped 4x2 all-INA ring 93% of the agents' timer
 * resends were such, every one a duplicate downstream). If the tail was
 * lost, the probe's ACK finds the rest of it lost (RACK by first send
 * times), and it all goes in the next pass, not one copy per timer
 * period (rina-sim's shallow-queue case took 6.41 s instead of 2.71 s so).
 */
static void test_timer_probe(void)
{
	struct rina_agent_core a;
	__u32 seqs[32], j;
	unsigned int n1, n2, n3, n4;
	__u64 rto;
	bool ok;

	/* late ACKs: one probe, the newest, then twice the period */
	setup_on(&a);
	for (j = 0; j < 10; j++) {
		rx_ag_copy(&a, 2, 100 + j, 1);
		now_us += 100;
	}
	rto = rina_agent_rto(&a);
	nsent = 0;
	run_for(&a, 2 * rto, 100);	/* fires once, at rto */
	n1 = resent_seqs(&a, seqs, 32);
	ok = n1 == 1 && seqs[0] == 109;
	nsent = 0;
	for (j = 0; j < 10; j++)	/* the late ACKs, in order */
		ack_down(&a, 100 + j);
	run_for(&a, rto / 2, 100);
	n2 = resent_seqs(&a, seqs, 32);
	rx_ag_copy(&a, 2, 110, 1);	/* news ended the back-off */
	rto = rina_agent_rto(&a);
	nsent = 0;
	run_for(&a, rto + 200, 100);
	n3 = resent_seqs(&a, seqs, 32);
	ktap_result(ok && !n2 && n3 == 1 && seqs[0] == 110,
		    "agent: ACKs stalled over the timer's period cost one resend, of the newest copy (%u), their late coming none (%u), and news ends the back-off (%u)",
		    n1, n2, n3);
	rina_agent_core_fini(&a);

	/* a lost tail: the probe's ACK sends the rest of it, all in one go */
	setup_on(&a);
	for (j = 0; j < 10; j++) {
		rx_ag_copy(&a, 2, 200 + j, 1);
		now_us += 100;
	}
	for (j = 0; j < 6; j++)
		ack_down(&a, 200 + j);	/* 206..209 were lost */
	rto = rina_agent_rto(&a);
	nsent = 0;
	run_for(&a, rto + 200, 100);
	n1 = resent_seqs(&a, seqs, 32);
	ok = n1 == 1 && seqs[0] == 209;
	nsent = 0;
	now_us += 1000;
	ack_down(&a, 209);
	run_for(&a, rina_rack_reo(&a.rtt) + 100, 100);
	n4 = resent_seqs(&a, seqs, 32);
	ktap_result(ok && n4 == 3 && seqs[0] == 206 && seqs[1] == 207 &&
		    seqs[2] == 208,
		    "agent: a lost tail: the timer probes with its last copy (%u), whose ACK sends the rest within a reordering allowance (%u)",
		    n1, n4);
	rina_agent_core_fini(&a);
}

/* Installed on the ToR, the clock at the reply. */
static void setup_on(struct rina_agent_core *a)
{
	setup(a, true);
	rina_agent_core_tor_install(a);
	rx_ctrl(a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a->cfg.job_hash,
		a->cfg.tor);
	nsent = 0;
}

/* Tick every "step" us for "us" us. */
static void run_for(struct rina_agent_core *a, __u64 us, __u64 step)
{
	__u64 end = now_us + us;

	while (now_us < end) {
		now_us += step;
		rina_agent_core_tick(a);
	}
}

static void test_tor_lost(void)
{
	struct rina_agent_core a;
	__u32 own = rina_own_chunk(0, 3);
	unsigned int j;
	bool ok;

	/* copies keep coming: no probe; then a lull: probed, answered */
	setup_on(&a);
	for (j = 0; j < 30; j++) {
		now_us += 10000;
		rx_ag_copy(&a, 2, 100 + j, 1);
		rina_agent_core_tick(&a);
	}
	ok = count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) == 0 &&
	     a.st.tor_probes == 0;
	for (j = 0; j < 40; j++) {	/* 2 s between calls */
		run_for(&a, 50000, 10000);
		if (count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL))
			rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK,
				a.cfg.job_hash, a.cfg.tor);
		nsent = 0;
	}
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_probes >= 10 &&
	      a.st.tor_probes <= 20 && a.st.tor_lost == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a ToR that sends copies is not probed; one quiet between calls is probed and stays on while it answers");

	/* silent: lost after the probes, TOR_REMOVE until "not installed" */
	setup_on(&a);
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		RINA_AGENT_TOR_TRIES * RINA_AGENT_TOR_RETRY_US - 20000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_ON &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) ==
	     RINA_AGENT_TOR_TRIES;
	run_for(&a, 200000, 10000);
	/* silence alone: a slow switch may still take the rack's data */
	ok &= a.tor_state == RINA_AGENT_TOR_ON &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, NULL) == 0;
	rx_data(&a, 0, 10, &a.cfg.local[1]);	/* it came past the ToR */
	nsent = 0;
	/* at the next probe's time, at most RINA_AGENT_TOR_RETRY_US on */
	while (a.tor_state == RINA_AGENT_TOR_ON && nsent < 2) {
		now_us += 10000;
		rina_agent_core_tick(&a);
	}
	/* its status: its last answer, not "never answered" (~0) */
	ok &= a.tor_state == RINA_AGENT_TOR_LOST && a.st.tor_lost == 1 &&
	      a.tor_status == RINA_TOR_ST_OK &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 1;
	nsent = 0;
	run_for(&a, 2 * RINA_AGENT_TOR_RETRY_US, 10000);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 2 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) == 0;
	/* a late OK (a probe's) does not end it; "not installed" does */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	run_for(&a, RINA_AGENT_TOR_RETRY_US, 10000);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 3;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	nsent = 0;
	run_for(&a, 400000, 10000);	/* HELLOs downstream: < MAX_SENT */
	ok &= nsent < MAX_SENT && count(RINA_OP_CTRL, ~0U, &a.cfg.tor) == 0 &&
	      a.tor_state == RINA_AGENT_TOR_LOST;
	/* it answered: back; the job goes back to it once the rack is quiet */
	ok &= a.tor_back && !rina_agent_core_tor_may_return(&a, 500000);
	run_for(&a, 600000, 10000);	/* slot 10 waits for two more */
	ok &= !rina_agent_core_tor_may_return(&a, 500000);
	rx_data(&a, 0, 10, &a.cfg.local[0]);
	rx_data(&a, 0, 10, &a.cfg.prev);
	run_for(&a, 400000, 10000);	/* complete, not quiet yet */
	ok &= !rina_agent_core_tor_may_return(&a, 500000);
	run_for(&a, 200000, 10000);
	ok &= rina_agent_core_tor_may_return(&a, 500000);
	rx_data(&a, 0, 11, &a.cfg.local[0]);	/* a slot in progress */
	run_for(&a, 600000, 10000);
	ok &= !rina_agent_core_tor_may_return(&a, 500000);
	rx_data(&a, 0, 11, &a.cfg.local[1]);
	rx_data(&a, 0, 11, &a.cfg.prev);
	run_for(&a, 600000, 10000);
	ok &= rina_agent_core_tor_may_return(&a, 500000);
	nsent = 0;
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_returns == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a ToR silent for %d probes is lost once the rack's data comes past it; TOR_REMOVE until it says it holds nothing; then it may have the job back when the rack is quiet, every slot complete",
		    RINA_AGENT_TOR_TRIES);

	/*
	 * ... or upstream's allgather data: a rack waiting for it sends
	 * no contribution; the ToR's copies (from our address) are not it
	 */
	setup_on(&a);
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		(RINA_AGENT_TOR_TRIES + 4) * RINA_AGENT_TOR_RETRY_US, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_ON &&
	     a.st.tor_probes > RINA_AGENT_TOR_TRIES;
	rx_ag(&a, 0, 2, 120, 1, &a.cfg.prev);	/* it came past the ToR */
	run_for(&a, 2 * RINA_AGENT_TOR_RETRY_US, 10000);
	ok &= a.tor_state == RINA_AGENT_TOR_LOST && a.st.tor_lost == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a ToR silent for its probes is lost once upstream's allgather data comes past it");

	/* a lost ToR that never answers is asked once a second */
	setup_on(&a);
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		(RINA_AGENT_TOR_TRIES + 1) * RINA_AGENT_TOR_RETRY_US, 10000);
	rx_data(&a, 0, 10, &a.cfg.local[1]);
	run_for(&a, RINA_AGENT_TOR_RETRY_US * (RINA_AGENT_TOR_TRIES + 1),
		10000);
	nsent = 0;
	run_for(&a, 3 * RINA_AGENT_TOR_BACK_US, 100000);
	ok = a.tor_state == RINA_AGENT_TOR_LOST && !a.tor_back &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 3;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a lost ToR that stays silent is asked once a second whether it is back");

	/* a thread not scheduled for 2 s probes once and reads the reply */
	setup_on(&a);
	now_us += 2000000;
	rina_agent_core_tick(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	run_for(&a, RINA_AGENT_TOR_PROBE_US - 10000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_ON &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a late agent thread probes once before it decides, not %d times",
		    RINA_AGENT_TOR_TRIES);

	/*
	 * After the loss, the rack's data is added here; an own-chunk
	 * contribution whose result the ToR completed and we hold (the
	 * worker missed our word on it) gets that word again, not a slot
	 * that would wait for workers that are done. (Another host's
	 * data came past the ToR: ours never passes it.)
	 */
	setup_on(&a);
	rx_ag_copy(&a, (__u16)own, 200 + 3, 0);	/* p_chunk 1, L 3 */
	rina_agent_core_tick(&a);
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		(RINA_AGENT_TOR_TRIES + 1) * RINA_AGENT_TOR_RETRY_US, 10000);
	rx_data(&a, 0, 10, &a.cfg.local[1]);
	run_for(&a, 60000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_LOST;
	nsent = 0;
	rx_data_chunk(&a, 0, (__u16)own, 200, &a.cfg.local[1]);
	rina_agent_core_tick(&a);
	ok &= held_acks(&a.cfg.local[1], 203, 1) == 1 &&
	      a.st.contrib_in == 2 && a.st.slots_done == 0;
	rx_data(&a, 0, 10, &a.cfg.local[0]);
	rx_data(&a, 0, 10, &a.cfg.prev);
	ok &= partials_out(&a, 0, 10) == 1 && a.st.slots_done == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: after the ToR is lost the rack is added in software; a held own-chunk result is told again");
}

/*
 * What went to the ToR's data address (ip of its control, agent port),
 * relayed as from the agent's host's worker (local[0]): the ToR knows its
 * workers by address and port.
 */
static unsigned int to_tor_data_from(const struct rina_agent_core *a,
				     __u32 seq, unsigned int k)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if (sent[j].to.ip == a->cfg.tor.ip &&
		    sent[j].from.ip == a->cfg.local[k].ip &&
		    sent[j].from.port == a->cfg.local[k].port &&
		    sent[j].to.port == htons(RINA_UDP_PORT_AGENT) &&
		    (sent[j].h.ver_op & 0xf) == RINA_OP_SR_CONTRIB &&
		    ntohl(sent[j].h.seq) == seq &&
		    sent[j].len == RINA_HDR_LEN + 16)
			n++;
	return n;
}

/* relayed to the ToR as local[0] sent it */
static unsigned int to_tor_data(const struct rina_agent_core *a, __u32 seq)
{
	return to_tor_data_from(a, seq, 0);
}

/*
 * rina.ko's agent: its rank's worker (local[0], on the agent's host)
 * sends to the agent port; its contributions go on to the ToR while it
 * aggregates, and are added here before it answers (held) and once it
 * is lost. Other workers' contributions reaching the agent are added.
 */
static void test_relay_own(void)
{
	struct rina_agent_core a;
	bool ok;

	setup_relay = true;
	setup(&a, true);
	rina_agent_core_tor_install(&a);
	nsent = 0;
	rx_data(&a, 0, 10, &a.cfg.local[0]);	/* no answer yet: held */
	ok = to_tor_data(&a, 10) == 0 && a.st.tor_held == 1 &&
	     a.st.tor_relays == 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	nsent = 0;
	rx_data(&a, 0, 10, &a.cfg.local[0]);
	rx_data(&a, 0, 10, &a.cfg.local[0]);	/* its retransmission */
	ok &= to_tor_data(&a, 10) == 2 && a.st.tor_relays == 2 &&
	      a.st.contrib_in == 0;
	rx_data(&a, 0, 11, &a.cfg.local[1]);	/* another host's: here */
	ok &= to_tor_data(&a, 11) == 0 && a.st.contrib_in == 1;
	/* lost (data came past it): our worker's data is added here */
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		(RINA_AGENT_TOR_TRIES + 1) * RINA_AGENT_TOR_RETRY_US, 10000);
	rx_data(&a, 0, 13, &a.cfg.local[1]);
	run_for(&a, 60000, 10000);
	ok &= a.tor_state == RINA_AGENT_TOR_LOST;
	nsent = 0;
	rx_data(&a, 0, 12, &a.cfg.local[0]);
	ok &= to_tor_data(&a, 12) == 0 && a.st.tor_relays == 2 &&
	      a.st.contrib_in == 3;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: relay_own passes its rank's contributions to the ToR while it aggregates, adds them before it answers and once it is lost");

	/*
	 * rina.ko's agent with a second process on its host (local[1] on
	 * the agent's address, another port): its contributions go on to
	 * the ToR too, from its own address and port, which the ToR knows
	 * it by; none is added here while the ToR aggregates.
	 */
	setup_host_pair = true;
	setup(&a, true);
	setup_host_pair = false;
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	nsent = 0;
	sr_src_id = 3;		/* its rank; the agent's is 0 */
	rx_data(&a, 0, 20, &a.cfg.local[1]);
	sr_src_id = 0;
	rx_data(&a, 0, 21, &a.cfg.local[0]);
	ok = to_tor_data_from(&a, 20, 1) == 1 && to_tor_data(&a, 21) == 1 &&
	     to_tor_data_from(&a, 20, 0) == 0 && a.st.tor_relays == 2 &&
	     a.st.contrib_in == 0 && count(RINA_OP_CTRL, RINA_CTRL_TOR_ON,
					   NULL) == 0;
	rina_agent_core_fini(&a);
	setup_relay = false;
	ktap_result(ok, "agent: relay_own passes the contributions of a second process on its host to the ToR as that process sent them (%llu relayed, %llu added)",
		    (unsigned long long)a.st.tor_relays,
		    (unsigned long long)a.st.contrib_in);

	/*
	 * librina's agent (no relay_own): a worker on its host sends to
	 * the ToR's address once told TOR_ON, which every such worker is
	 * when the ToR takes the job, and no other; one whose contribution
	 * comes here all the same (another process, told too late) is told
	 * again, the contribution neither added nor relayed: the ToR adds
	 * the rack.
	 */
	setup_relay = false;
	setup(&a, true);
	rina_agent_core_tor_install(&a);
	nsent = 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok = count(RINA_OP_CTRL, RINA_CTRL_TOR_ON, &a.cfg.local[0]) == 1 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_ON, NULL) == 1;
	nsent = 0;
	rx_data(&a, 0, 10, &a.cfg.local[0]);
	ok &= to_tor_data(&a, 10) == 0 && a.st.tor_relays == 0 &&
	      a.st.contrib_in == 0 && a.st.tor_redirects == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_ON, &a.cfg.local[0]) == 1;
	rx_data(&a, 0, 11, &a.cfg.local[1]);	/* another host's: here */
	ok &= a.st.contrib_in == 1 && a.st.tor_redirects == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_ON, NULL) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: without relay_own the workers on its host are told TOR_ON when the ToR takes the job; a contribution of theirs that comes here is told again, not added nor relayed (%llu added, %llu redirected)",
		    (unsigned long long)a.st.contrib_in,
		    (unsigned long long)a.st.tor_redirects);

	/*
	 * A new session of a many-session agent: the ToR's slots of the
	 * last one are removed, then the job installed again; the workers
	 * wait for it. One session's agent (librina's) asks nothing.
	 */
	setup_on(&a);
	rina_agent_core_reset(&a);
	ok = a.tor_state == RINA_AGENT_TOR_WAIT &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 1 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) == 0;
	run_for(&a, RINA_AGENT_TOR_RETRY_US, 10000);	/* lost: again */
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 2;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_WAIT &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) == 1;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_returns == 0;
	rina_agent_core_fini(&a);
	setup_on(&a);
	a.cfg.single_session = 1;
	rina_agent_core_reset(&a);
	ok &= a.tor_state == RINA_AGENT_TOR_ON && nsent == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a new session of a many-session agent removes the job from the ToR and installs it again");
}

/* Ask the ToR and get no answer: given up on after the tries. */
static bool install_unanswered(struct rina_agent_core *a)
{
	setup(a, true);
	rina_agent_core_tor_install(a);
	while (a->tor_state == RINA_AGENT_TOR_WAIT && now_us < 100000000) {
		now_us += 10000;
		rina_agent_core_tick(a);
	}
	return a->tor_state == RINA_AGENT_TOR_OFF &&
	       a->tor_status == RINA_AGENT_TOR_SILENT &&
	       count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a->cfg.tor) ==
	       RINA_AGENT_TOR_TRIES;
}

/*
 * A ToR that did not answer at the start (not running yet) is, with
 * tor_retry (fallback software), asked once a second like a lost one,
 * and takes the job at a call boundary once it says it holds nothing;
 * one that refused stays refused, and without tor_retry a silent one
 * is not asked again.
 */
static void test_tor_late(void)
{
	struct rina_agent_core a;
	bool ok;

	setup_retry = true;
	ok = install_unanswered(&a);
	nsent = 0;
	run_for(&a, 3 * RINA_AGENT_TOR_BACK_US, 100000);
	ok &= a.tor_state == RINA_AGENT_TOR_OFF && !a.tor_back &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 3 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, NULL) == 0 &&
	      !rina_agent_core_tor_may_return(&a, 500000);
	/* a call in software: slot 10 waits for two more contributions */
	rx_data(&a, 0, 10, &a.cfg.local[0]);
	ok &= a.st.contrib_in == 1 && a.st.tor_held == 0;
	/* the ToR starts: "not installed" says it is there */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	nsent = 0;
	run_for(&a, 600000, 10000);
	ok &= a.tor_back && count(RINA_OP_CTRL, ~0U, &a.cfg.tor) == 0 &&
	      !rina_agent_core_tor_may_return(&a, 500000);
	rx_data(&a, 0, 10, &a.cfg.local[1]);
	rx_data(&a, 0, 10, &a.cfg.prev);
	run_for(&a, 400000, 10000);	/* complete, not quiet yet */
	ok &= a.st.slots_done == 1 &&
	      !rina_agent_core_tor_may_return(&a, 500000);
	run_for(&a, 200000, 10000);
	ok &= rina_agent_core_tor_may_return(&a, 500000);
	nsent = 0;
	rina_agent_core_tor_install(&a);
	ok &= a.tor_state == RINA_AGENT_TOR_WAIT && a.tor_returning &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) == 1;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_returns == 1 &&
	      a.st.tor_lost == 0 && a.tor_status == RINA_TOR_ST_OK;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, fallback software: a ToR that did not answer at the start is asked once a second and takes the job at a call boundary once it answers (tor_returns)");

	/* installed late: undone at once, then asked on until it is back */
	ok = install_unanswered(&a);
	nsent = 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 1 &&
	      !a.tor_back;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	run_for(&a, 600000, 10000);
	ok &= a.tor_back && rina_agent_core_tor_may_return(&a, 500000);
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, fallback software: a late install of an unanswered ToR is undone, its \"not installed\" then marks it back");

	/* refused: stays refused, nothing more is asked */
	setup(&a, true);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_NO_SLOTS, a.cfg.job_hash,
		a.cfg.tor);
	nsent = 0;
	run_for(&a, 3 * RINA_AGENT_TOR_BACK_US, 100000);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	run_for(&a, 600000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_OFF &&
	     a.tor_status == RINA_TOR_ST_NO_SLOTS && !a.tor_back &&
	     count(RINA_OP_CTRL, ~0U, &a.cfg.tor) == 0 &&
	     !rina_agent_core_tor_may_return(&a, 500000);
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, fallback software: a ToR that refused the job stays refused");

	/* without tor_retry (fallback abort): given up for good */
	setup_retry = false;
	ok = install_unanswered(&a);
	nsent = 0;
	run_for(&a, 3 * RINA_AGENT_TOR_BACK_US, 100000);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	run_for(&a, 600000, 10000);
	ok &= count(RINA_OP_CTRL, ~0U, &a.cfg.tor) == 0 && !a.tor_back &&
	      !rina_agent_core_tor_may_return(&a, 500000);
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent without tor_retry: a ToR that did not answer is not asked again");
}

/* The ToR of setup_on() lost: the rack's data came past it, unanswered. */
static void setup_lost(struct rina_agent_core *a)
{
	setup_on(a);
	run_for(a, RINA_AGENT_TOR_PROBE_US +
		RINA_AGENT_TOR_TRIES * RINA_AGENT_TOR_RETRY_US, 10000);
	rx_data(a, 0, 10, &a->cfg.local[1]);
	while (a->tor_state == RINA_AGENT_TOR_ON && now_us < 100000000) {
		now_us += 10000;
		rina_agent_core_tick(a);
	}
	/* the loss's own requests upstream: test_lost_mid_call()'s first */
	a->st.asks_out = 0;
	nsent = 0;
}


/* Datagrams of "op" to "to" for "seq" with (flags & mask) == want. */
static unsigned int count_f(unsigned int op, __u32 seq, __u8 mask, __u8 want,
			    const struct rina_agent_addr *to)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == op &&
		    ntohl(sent[j].h.seq) == seq &&
		    (sent[j].h.flags & mask) == want &&
		    sent[j].to.ip == to->ip && sent[j].to.port == to->port)
			n++;
	return n;
}

/*
 * A ToR that lost the job while alive (rina-tor away TOR_FORGET_MS, or
 * killed and restarted before the probes counted it lost): the probe
 * installs the job afresh and the answer says so (INSTALLED). Taken for
 * "a probe answered", the slots it held were never resent and the call
 * stalled until its timeout, slots split between the fresh ToR and the
 * agent, which had added what passed it meanwhile.
 */
static void test_tor_forgot(void)
{
	struct rina_agent_core a;
	bool ok;

	/* data passed the ToR, then a lull: probed, "installed" */
	setup_on(&a);
	rx_data(&a, 3, 10, &a.cfg.local[1]);
	run_for(&a, RINA_AGENT_TOR_PROBE_US + 10000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_probes == 1 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_INSTALL, &a.cfg.tor) == 1;
	nsent = 0;
	a.st.asks_out = 0;
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_INSTALLED,
		a.cfg.job_hash, a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_LOST && a.st.tor_lost == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, &a.cfg.local[0]) == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, &a.cfg.local[1]) == 1 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, NULL) == 2 &&
	      a.st.asks_out == 2 &&
	      count_f(RINA_OP_NACK, 0, RINA_F_AG_PHASE, 0, &a.cfg.prev) == 2 &&
	      count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, &a.cfg.tor) == 1;
	ktap_result(ok, "agent, a probe answered \"installed\" (the ToR had lost the job): lost, each worker told (TOR_LOST), upstream asked for rounds 2 and 3, the ToR told to let go, counted (tor_lost %llu)",
		    (unsigned long long)a.st.tor_lost);

	/* ... and given the job back between calls, as a lost one is */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		a.cfg.job_hash, a.cfg.tor);
	rx_data(&a, 3, 10, &a.cfg.local[0]);
	rx_data(&a, 3, 10, &a.cfg.prev);
	run_for(&a, 600000, 10000);
	ok = a.tor_back && a.st.slots_done == 1 &&
	     rina_agent_core_tor_may_return(&a, 500000);
	rina_agent_core_tor_install(&a);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_INSTALLED,
		a.cfg.job_hash, a.cfg.tor);
	ok &= a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_returns == 1 &&
	      a.tor_status == RINA_TOR_ST_OK;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: the ToR that had lost the job gets it back at a call boundary (installed: on, tor_returns, status ok)");

	/*
	 * No probe out: a late copy of the answer that put the agent ON
	 * (its retry's OK came first), not a ToR that forgot
	 */
	setup(&a, true);
	rina_agent_core_tor_install(&a);
	run_for(&a, RINA_AGENT_TOR_RETRY_US, 10000);	/* resent */
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, a.cfg.job_hash,
		a.cfg.tor);
	rx_ctrl(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_INSTALLED,
		a.cfg.job_hash, a.cfg.tor);
	nsent = 0;
	run_for(&a, 50000, 10000);
	ok = a.tor_state == RINA_AGENT_TOR_ON && a.st.tor_lost == 0 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, NULL) == 0 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_REMOVE, NULL) == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: a late \"installed\" with no probe out (the first install's answer after its retry's) changes nothing");
}

/*
 * A ToR killed in full flight of a call (protocol-ina.md 8, "A ToR that
 * goes away"): it may have ACKed upstream's partial at DONE and lost the
 * result, so the slot the workers' retries build in software would wait
 * for upstream forever; the agent asks again (ask_again()), and serves
 * such requests of its neighbours.
 */
static void test_lost_mid_call(void)
{
	struct rina_agent_core a;
	__u32 own = rina_own_chunk(0, 3), agseq = 30 + 3;
	bool ok;

	/*
	 * at the loss, upstream is asked for one seq of each round in the
	 * window: it then resends all it has overdue at once
	 */
	setup_on(&a);
	run_for(&a, RINA_AGENT_TOR_PROBE_US +
		RINA_AGENT_TOR_TRIES * RINA_AGENT_TOR_RETRY_US, 10000);
	rx_data(&a, 3, 10, &a.cfg.local[1]);
	nsent = 0;
	while (a.tor_state == RINA_AGENT_TOR_ON && now_us < 100000000) {
		now_us += 10000;
		rina_agent_core_tick(&a);
	}
	ok = a.tor_state == RINA_AGENT_TOR_LOST && a.st.asks_out == 2 &&
	     count_f(RINA_OP_NACK, 0, RINA_F_AG_PHASE, 0, &a.cfg.prev) == 2 &&
	     count(RINA_OP_NACK, ~0U, NULL) == 2;
	{
		unsigned int j, rounds = 0;

		for (j = 0; j < nsent; j++)
			if ((sent[j].h.ver_op & 0xf) == RINA_OP_NACK)
				rounds |= 1u << (ntohs(sent[j].h.round) & 7);
		ok &= rounds == ((1u << 2) | (1u << 3));
	}
	ktap_result(ok, "agent, ToR lost: upstream is asked for one seq of each round in the window (rounds 2 and 3), so that it resends what it has overdue at once");
	/* ... and each worker is told, once, to start its timers over */
	ok = count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, &a.cfg.local[0]) == 1 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, &a.cfg.local[1]) == 1 &&
	     count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, NULL) == 2;
	run_for(&a, 2 * RINA_AGENT_TOR_RETRY_US, 10000);
	ok &= count(RINA_OP_CTRL, RINA_CTRL_TOR_LOST, NULL) == 2;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, ToR lost: each worker of the rack is told once (RINA_CTRL_TOR_LOST), so that its backed-off timers start over");

	/* a retried slot waiting for upstream: asked once per RTO */
	setup_lost(&a);
	rx_sr(&a, 1, 2, 20, &a.cfg.local[0], 0);	/* first sends: no */
	ok = a.st.asks_out == 0;
	rx_sr(&a, 1, 2, 20, &a.cfg.local[1], RINA_F_RETX);
	rx_sr(&a, 1, 2, 20, &a.cfg.local[0], RINA_F_RETX);
	ok &= a.st.asks_out == 1 &&
	      count_f(RINA_OP_NACK, 20, RINA_F_AG_PHASE, 0, &a.cfg.prev) == 1;
	now_us += 200000;
	rx_sr(&a, 1, 2, 20, &a.cfg.local[1], RINA_F_RETX);
	ok &= a.st.asks_out == 2 &&
	      count_f(RINA_OP_NACK, 20, RINA_F_AG_PHASE, 0, &a.cfg.prev) == 2;
	rx_data_chunk(&a, 1, 2, 20, &a.cfg.prev);	/* it came again */
	ok &= partials_out(&a, 1, 20) == 1;
	rina_agent_core_fini(&a);
	/* with the ToR on, a retry is the ToR's business: nothing asked */
	setup_on(&a);
	rx_sr(&a, 1, 2, 21, &a.cfg.local[1], RINA_F_RETX);
	ok &= a.st.asks_out == 0 && count(RINA_OP_NACK, ~0U, NULL) == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, ToR lost mid-call: a retried slot that waits for upstream's partial asks upstream again, once per RTO");

	/* downstream asks us: re-emit what we added, relay the rest */
	setup_lost(&a);
	rx_data_chunk(&a, 1, 2, 22, &a.cfg.local[0]);
	rx_data_chunk(&a, 1, 2, 22, &a.cfg.local[1]);
	rx_data_chunk(&a, 1, 2, 22, &a.cfg.prev);
	ok = partials_out(&a, 1, 22) == 1;
	nsent = 0;
	rx_nack(&a, 1, 22, &a.cfg.next);	/* AG_PHASE: not an ask */
	ok &= partials_out(&a, 1, 22) == 0 && a.st.asks_in == 0 &&
	      a.st.bad == 1;
	{
		struct {
			struct rina_hdr h;
			__be32 seq[2];
		} __attribute__((packed)) p;

		hdr(&p.h, RINA_OP_NACK, 2);
		p.h.round = htons(1);
		p.h.seq = htonl(22);
		p.seq[0] = htonl(22);
		p.seq[1] = htonl(23);	/* the ToR's: our workers resend */
		rina_agent_core_rx(&a, &p, sizeof(p), &a.cfg.next);
		ok &= a.st.asks_in == 1 && partials_out(&a, 1, 22) == 1 &&
		      count_f(RINA_OP_NACK, 22, 0xff, 0, &a.cfg.local[0]) == 1 &&
		      count_f(RINA_OP_NACK, 22, 0xff, 0, &a.cfg.local[1]) == 1;
		nsent = 0;
		rina_agent_core_rx(&a, &p, sizeof(p), &a.cfg.local[0]);
		ok &= a.st.asks_in == 1 && nsent == 0;
	}
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: downstream's request for a partial re-emits one added here and has the rack's workers resend the others; not from a worker");

	/* the own chunk: ask upstream for the partial, downstream for the result */
	setup_lost(&a);
	rx_sr(&a, 1, (__u16)own, 30, &a.cfg.local[0], RINA_F_RETX);
	ok = count_f(RINA_OP_NACK, 30, RINA_F_AG_PHASE, 0, &a.cfg.prev) == 1 &&
	     count_f(RINA_OP_NACK, agseq, RINA_F_AG_PHASE, RINA_F_AG_PHASE,
		     &a.cfg.next) == 1 &&
	     count_f(RINA_OP_NACK, 30, RINA_F_AG_PHASE, 0,
		     &a.cfg.local[1]) == 1 && a.st.asks_out == 3;
	nsent = 0;
	rx_ag(&a, 1, (__u16)own, agseq, 1, &a.cfg.next);	/* the answer */
	run_for(&a, 20000, 10000);
	ok &= count_f(RINA_OP_AG_DATA, agseq, RINA_F_FROM_SWITCH, 0,
		      &a.cfg.local[0]) == 1 &&
	      count_f(RINA_OP_AG_DATA, agseq, RINA_F_FROM_SWITCH, 0,
		      &a.cfg.local[1]) == 1 &&
	      held_acks(&a.cfg.local[0], agseq, 1) == 1 &&
	      held_acks(&a.cfg.local[1], agseq, 1) == 1 &&
	      count(RINA_OP_AG_DATA, ~0U, &a.cfg.next) == 0;
	nsent = 0;
	rx_sr(&a, 1, (__u16)own, 30, &a.cfg.local[1], RINA_F_RETX);
	run_for(&a, 20000, 10000);
	ok &= held_acks(&a.cfg.local[0], agseq, 1) == 1 &&
	      count(RINA_OP_NACK, ~0U, NULL) == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, ToR lost mid-call: a retried own-chunk slot asks upstream for the partial and downstream for the result, which it then gives the workers and holds");

	/* upstream asks us for its own chunk's result that passed us */
	setup_lost(&a);
	rx_ag(&a, 1, 2, 100, 1, &a.cfg.prev);
	nsent = 0;
	rx_nack(&a, 1, 100, &a.cfg.prev);
	ok = a.st.asks_in == 1 &&
	     count_f(RINA_OP_AG_DATA, 100, RINA_F_RETX, RINA_F_RETX,
		     &a.cfg.prev) == 1;
	rx_nack(&a, 1, 101, &a.cfg.prev);	/* not held: nothing */
	ok &= count(RINA_OP_AG_DATA, ~0U, &a.cfg.prev) == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: upstream's request for a result that passed us is answered from the cache");

	/*
	 * The ToR told a worker its contribution was delivered, or died
	 * before its ACK went up: the workers are asked again, and a
	 * partial whose chunk's result we hold is ACKed.
	 */
	setup_lost(&a);
	rx_sr(&a, 1, 0, 60, &a.cfg.local[1], RINA_F_RETX);	/* step 0 */
	ok = a.st.asks_out == 1 &&
	     count_f(RINA_OP_NACK, 60, RINA_F_AG_PHASE, 0,
		     &a.cfg.local[0]) == 1 &&
	     count(RINA_OP_NACK, ~0U, &a.cfg.prev) == 0;
	rx_data_chunk(&a, 1, 0, 60, &a.cfg.local[0]);	/* it resent */
	ok &= count_f(RINA_OP_SR_PARTIAL, 60, 0, 0, &a.cfg.next) == 1;
	nsent = 0;
	rx_sr(&a, 1, 2, 70, &a.cfg.prev, RINA_F_RETX);
	ok &= a.st.asks_out == 2 &&
	      count_f(RINA_OP_NACK, 70, RINA_F_AG_PHASE, 0,
		      &a.cfg.local[0]) == 1 &&
	      count_f(RINA_OP_NACK, 70, RINA_F_AG_PHASE, 0,
		      &a.cfg.local[1]) == 1;
	rx_ag(&a, 1, 2, 83, 1, &a.cfg.prev);	/* seq 80's result */
	nsent = 0;
	rx_sr(&a, 1, 2, 80, &a.cfg.prev, RINA_F_RETX);
	ok &= count_f(RINA_OP_ACK, 80, 0xff, 0, &a.cfg.prev) == 1 &&
	      count(RINA_OP_NACK, ~0U, NULL) == 0 && a.st.asks_out == 2;
	nsent = 0;
	rx_sr(&a, 1, 2, 80, &a.cfg.local[0], RINA_F_RETX);
	ok &= count_f(RINA_OP_AG_DATA, 83, RINA_F_RETX, RINA_F_RETX,
		      &a.cfg.local[0]) == 1 && nsent == 1;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, ToR lost mid-call: a retried slot that lacks a local worker asks the workers again; a retry of a partial or contribution whose result we hold is answered with the ACK or the result");
}

/* A signed control message from src_id src at "from", naming session. */
static void rx_signed(struct rina_agent_core *a, __u32 type, __u32 arg,
		      __u16 src, __u64 session, struct rina_agent_addr from)
{
	struct rina_ctrl_msg m;
	__u32 len;

	hdr(&m.h, RINA_OP_CTRL, 0);
	m.h.src_id = htons(src);
	rina_ctrl_set_session(&m.h, session);
	m.c.type = htonl(type);
	m.c.arg = htonl(arg);
	m.c.hash = htobe64(a->cfg.job_hash);
	len = rina_ctrl_seal(&m, test_secret, rina_siphash24, h_stamp(NULL),
			     a->cfg.self.ip, a->cfg.self.port);
	rina_agent_core_rx(a, &m, len, &from);
}

/* Control messages of "type" sent to "to" that name "session". */
static unsigned int count_session(__u32 type,
				  const struct rina_agent_addr *to,
				  __u64 session)
{
	unsigned int j, n = 0;

	for (j = 0; j < nsent; j++)
		if ((sent[j].h.ver_op & 0xf) == RINA_OP_CTRL &&
		    sent[j].arg == type &&
		    rina_ctrl_session(&sent[j].h) == session &&
		    sent[j].to.ip == to->ip && sent[j].to.port == to->port)
			n++;
	return n;
}

/* A worker's contribution tagged for "session": counted bad_tag or not. */
static bool tag_refused(struct rina_agent_core *a, __u64 session)
{
	struct {
		struct rina_hdr h;
		__be32 w[4];
		__u8 tag[RINA_TAG_LEN];
	} __attribute__((packed)) p;
	__u8 tag[RINA_TAG_LEN];
	__u64 bad = a->st.bad_tag;
	__u32 len;

	hdr(&p.h, RINA_OP_SR_CONTRIB, 4);
	p.h.seq = htonl(5);
	p.h.p_chunk = htons(1);
	p.h.num_contrib = htons(1);
	memset(p.w, 0, sizeof(p.w));
	rina_session_tag(test_secret, rina_siphash24, 7, session, tag);
	len = rina_tag_seal(&p, RINA_HDR_LEN + sizeof(p.w), tag);
	rina_agent_core_rx(a, &p, len, &a->cfg.local[0]);
	return a->st.bad_tag == bad + 1;
}

/*
 * The session (linux/rina.h): the ring's first member draws it, the
 * others learn it from upstream's HELLO before they greet downstream or
 * ask the ToR, and pass it on; the tag follows it.
 */
static void test_session(void)
{
	struct rina_agent_core a;
	__u64 first;
	bool ok;

	/* the first member (a ToR, a signed job) */
	setup_job(&a, true, true);
	first = a.session;
	rina_agent_core_tor_install(&a);
	rx_signed(&a, RINA_CTRL_HELLO, 42, 0, 0, a.cfg.local[0]);
	rina_agent_core_tick(&a);
	ok = first == 0x5e0000 + drawn &&
	     count_session(RINA_CTRL_TOR_INSTALL, &a.cfg.tor, first) == 1 &&
	     count_session(RINA_CTRL_HELLO, &a.cfg.next, first) == 1;
	/* upstream's HELLO names the session it was told: ours */
	rx_signed(&a, RINA_CTRL_HELLO, 9, 2, first, a.cfg.prev);
	ok &= a.session == first && a.hello_prev &&
	      !tag_refused(&a, first) && tag_refused(&a, UP_SESSION);
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, the ring's first member: draws the session; its HELLO and TOR_INSTALL carry it, data is tagged for it");

	/* member 1 of 3: upstream tells it */
	setup_member = 1;
	setup_job(&a, true, true);
	rina_agent_core_tor_install(&a);
	rx_signed(&a, RINA_CTRL_HELLO, 42, 0, 0, a.cfg.local[0]);
	now_us += 200000;	/* past every retry of the ToR */
	rina_agent_core_tick(&a);
	ok = !a.session && nsent == 0 && a.tor_state == RINA_AGENT_TOR_WAIT &&
	     tag_refused(&a, UP_SESSION) && tag_refused(&a, 0);
	/* a HELLO that names none is not upstream's */
	rx_signed(&a, RINA_CTRL_HELLO, 9, 2, 0, a.cfg.prev);
	ok &= !a.session && !a.hello_prev && nsent == 0;
	rx_signed(&a, RINA_CTRL_HELLO, 9, 2, UP_SESSION, a.cfg.prev);
	rina_agent_core_tick(&a);
	ok &= a.session == UP_SESSION &&
	      count_session(RINA_CTRL_HELLO_ACK, &a.cfg.prev,
			    UP_SESSION) == 1 &&
	      count_session(RINA_CTRL_TOR_INSTALL, &a.cfg.tor,
			    UP_SESSION) == 1 &&
	      count_session(RINA_CTRL_HELLO, &a.cfg.next, UP_SESSION) == 1;
	ktap_result(ok, "agent, not the first member: greets downstream and asks the ToR only once upstream's HELLO named the session, and passes it on");

	nsent = 0;
	rx_signed(&a, RINA_CTRL_HELLO_ACK, a.cfg.incarnation, 3, 1,
		  a.cfg.next);
	/* the ToR's answer to the last session's TOR_REMOVE: not ours */
	rx_signed(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_UNKNOWN_JOB,
		  RINA_SRC_SWITCH, UP_SESSION - 1, a.cfg.tor);
	ok = a.tor_state == RINA_AGENT_TOR_WAIT &&
	     count(RINA_OP_CTRL, RINA_CTRL_HELLO_ACK, &a.cfg.local[0]) == 0;
	ktap_result(ok, "agent: a TOR_REPLY that names another session (an answer to the last session's TOR_REMOVE) is not the answer to its install");
	rx_signed(&a, RINA_CTRL_TOR_REPLY, RINA_TOR_ST_OK, RINA_SRC_SWITCH,
		  UP_SESSION, a.cfg.tor);
	ok = a.tor_state == RINA_AGENT_TOR_ON &&
	     count_session(RINA_CTRL_HELLO_ACK, &a.cfg.local[0],
			   UP_SESSION) == 1;
	/* a later HELLO of the same upstream changes nothing */
	rx_signed(&a, RINA_CTRL_HELLO, 9, 2, UP_SESSION + 1, a.cfg.prev);
	ok &= a.session == UP_SESSION && !tag_refused(&a, UP_SESSION) &&
	      tag_refused(&a, UP_SESSION + 1) && tag_refused(&a, first);
	rina_agent_core_fini(&a);
	setup_member = 0;
	ktap_result(ok, "agent, not the first member: tells its workers the session (HELLO_ACK); data tagged for another session of the job is refused");

	/* an agent of many sessions (rina.ko's): each its own number */
	setup_job(&a, false, true);
	first = a.session;
	rina_agent_core_reset(&a);
	ok = a.session && a.session != first;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent of many sessions, the ring's first member: a new session draws a new number");
}

/* the session's tag as the host's filter needs it: what it must match */
static bool told(unsigned int n, __u64 session)
{
	__u8 tag[RINA_TAG_LEN];

	rina_session_tag(test_secret, rina_siphash24, 7, session, tag);
	return tags_told == n && !memcmp(tag, tag_told, sizeof(tag));
}

/*
 * The host learns each session's tag to drop forgeries before they reach
 * the core (librina: the agent socket's filter, issue 49): when the
 * session is drawn or upstream names it; never for per-packet MACs
 * (their trailer is a MAC, not the tag) or an unsigned job (no tag).
 */
static void test_tag_told(void)
{
	struct rina_agent_core a;
	bool ok;

	tags_told = 0;
	setup_job(&a, false, true);
	ok = a.session && told(1, a.session);
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent, the ring's first member: tells its host the tag of the session it draws");

	tags_told = 0;
	setup_member = 1;
	setup_job(&a, false, true);
	ok = tags_told == 0;
	rx_signed(&a, RINA_CTRL_HELLO, 9, 2, UP_SESSION, a.cfg.prev);
	ok &= a.session == UP_SESSION && told(1, UP_SESSION);
	rina_agent_core_fini(&a);
	setup_member = 0;
	ktap_result(ok, "agent, not the first member: tells its host the tag once upstream's HELLO named the session, not before");

	tags_told = 0;
	setup_mac = true;
	setup_job(&a, false, true);
	ok = a.session && tags_told == 0;
	rina_agent_core_fini(&a);
	setup_mac = false;
	setup_job(&a, false, false);
	ok &= tags_told == 0;
	rina_agent_core_fini(&a);
	ktap_result(ok, "agent: no tag told for a job with per-packet MACs (the trailer is a MAC) or without a secret");
}

int main(void)
{
	ktap_plan(4 + 2 + 3 + 2 + 4 + 2 + 1 + 1 + 1 + 3 + 6 + 3 + 4 + 7 + 5 + 3 + 1 +
		  2 + 3 + 3 + 1 + 2);
	test_install();
	test_tor_copies();
	test_ack_delay();
	test_hello_gate();
	test_signed();
	test_far_rounds();
	test_gap_nack();
	test_silent();
	test_silent_tor();
	test_silent_tor_progress();
	test_repair_window();
	test_timer_news_and_karn();
	test_timer_probe();
	test_tor_lost();
	test_relay_own();
	test_tor_late();
	test_lost_mid_call();
	test_tor_forgot();
	test_session();
	test_tag_told();
	return ktap_finish();
}
