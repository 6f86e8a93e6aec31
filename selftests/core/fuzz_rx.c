// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: datagrams as librina receives them, into the state
 * machines that parse their payloads: the agent core (every opcode on
 * the agent port: CTRL, software aggregation, allgather, ACK, NACK) and
 * a ring member in the middle of a call (data, ACK, NACK).
 *
 * Input: a mode byte, then datagrams, each "FROM LEN_HI LEN_LO BYTES".
 * Mode bit 0: the ring member, else the agent core; bit 1: the job has a
 * secret (control messages signed, data tagged); bit 2: each datagram is
 * sealed as a peer that knows the secret would (a valid MAC on a CTRL, a
 * valid tag on data), so that the fuzzer reaches what follows the
 * check; without it, a forged one; bit 3: the agent has a ToR.
 * Each datagram is an exact-size heap copy (ASan sees any over-read).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "ctrl_auth.h"
#include "ring_member.h"
#include "secret.h"

#define MAX_MSG		(RINA_HDR_LEN + 64 * 4 + RINA_TAG_LEN)
#define SESSION		0xabcdef0123456789ull
#define WALL0		1700000000000000ull

static __u64 now_us = 1000000;
static const __u8 secret[RINA_SECRET_LEN] = "0123456789abcdef";

static void *a_zalloc(void *ctx, __u32 size)
{
	(void)ctx;
	return calloc(1, size ? size : 1);
}

static void *e_zalloc(void *ctx, __u64 size)
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

static __u64 h_random(void *ctx)
{
	(void)ctx;
	return SESSION;
}

/* what the core sends is read in full, as a host's sendmsg() would */
static volatile __u8 sink;

static void h_send(void *ctx, const struct rina_agent_addr *to,
		   const void *buf, __u32 len)
{
	const __u8 *b = buf;
	__u32 j;

	(void)ctx;
	(void)to;
	for (j = 0; j < len; j++)
		sink ^= b[j];
}

static void h_relay(void *ctx, const struct rina_agent_addr *to,
		    const struct rina_agent_addr *from, const void *buf,
		    __u32 len)
{
	(void)from;
	h_send(ctx, to, buf, len);
}

static const struct rina_agent_ops agent_ops = {
	.zalloc = a_zalloc, .free = h_free, .now_us = h_now, .send = h_send,
	.relay = h_relay, .mac = rina_siphash24, .wall_us = h_wall,
	.ctrl_stamp = h_stamp, .random_u64 = h_random,
};

static int e_xmit(void *ctx, struct rina_engine_msg *m, int cnt)
{
	int j;

	for (j = 0; j < cnt; j++)
		h_send(ctx, NULL, m[j].buf, m[j].len);
	return cnt;
}

static int e_tx_queued(void *ctx)
{
	(void)ctx;
	return -1;
}

static const struct rina_engine_ops engine_ops = {
	.zalloc = e_zalloc, .free = h_free, .now_us = h_now,
	.xmit = e_xmit, .tx_queued = e_tx_queued,
};

static const struct rina_agg_ops agg = {
	.add_be = rina_agg_add_be, .max_be = rina_agg_max_be,
	.store_be = rina_agg_store_be, .load_be = rina_agg_load_be,
};

static struct rina_agent_addr addr(unsigned int host, unsigned int port)
{
	struct rina_agent_addr a = { htonl(0xc6120000 | host), htons(port), 0 };

	return a;
}

/* the senders a datagram may come from: FROM picks one */
static struct rina_agent_addr sender(__u8 from)
{
	static const unsigned int host[] = { 1, 2, 0x101, 0x201, 0xfe, 9 };

	return addr(host[from % 6], from & 0x40 ? RINA_UDP_PORT_AGENT :
		    RINA_UDP_PORT_MIN);
}

/* room for what sealing adds: a CTRL's stamp and MAC, data's trailer */
#define SEAL_ROOM	(sizeof(struct rina_ctrl_auth) + RINA_TAG_LEN)

/* Seal b (SEAL_ROOM bytes more) as a peer with the secret would. */
static __u32 seal(__u8 *b, __u32 len, const __u8 *tag, const __u8 *mac_key,
		  struct rina_agent_addr self)
{
	struct rina_hdr *h = (struct rina_hdr *)b;

	if (len < RINA_HDR_LEN)
		return len;
	if (rina_hdr_opcode(h) == RINA_OP_CTRL) {
		if (len < sizeof(struct rina_hdr) + sizeof(struct rina_ctrl) ||
		    len > sizeof(struct rina_ctrl_msg))
			return len;
		return rina_ctrl_seal((struct rina_ctrl_msg *)b, secret,
				      rina_siphash24, h_stamp(NULL), self.ip,
				      self.port);
	}
	return rina_data_seal(b, len, tag, mac_key, rina_siphash24);
}

/*
 * The next datagram of the input, sealed when seal_it, in an exact-size
 * heap copy (*b, to free); its length. The input is advanced.
 */
static __u32 next_dgram(const __u8 **p, size_t *n, __u8 **b, int seal_it,
			const __u8 *tag, struct rina_agent_addr self)
{
	__u32 len = (__u32)(*p)[1] << 8 | (*p)[2];
	__u8 *tmp;

	*p += 3;
	*n -= 3;
	if (len > *n)
		len = (__u32)*n;
	tmp = malloc(len + SEAL_ROOM);
	memcpy(tmp, *p, len);
	*p += len;
	*n -= len;
	if (seal_it)
		len = seal(tmp, len, tag, NULL, self);
	*b = malloc(len ? len : 1);
	memcpy(*b, tmp, len);
	free(tmp);
	return len;
}

static void agent_run(__u8 mode, const __u8 *p, size_t n)
{
	static struct rina_agent_core a;
	struct rina_agent_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.job_id = 7;
	cfg.elems = 64;
	cfg.n_local = 2;
	cfg.window = 256;
	cfg.L = 3;
	cfg.member = 1;
	cfg.rto_us = 20000;
	cfg.job_hash = 0x1122334455667788ULL;
	cfg.self = addr(1, RINA_UDP_PORT_AGENT);
	cfg.local[0] = addr(1, RINA_UDP_PORT_MIN);
	cfg.local[1] = addr(2, RINA_UDP_PORT_MIN);
	cfg.next = addr(0x101, RINA_UDP_PORT_MIN);
	cfg.prev = addr(0x201, RINA_UDP_PORT_MIN);
	if (mode & 8)
		cfg.tor = addr(0xfe, RINA_UDP_PORT_AGENT);
	if (mode & 2) {
		cfg.has_secret = 1;
		memcpy(cfg.secret, secret, sizeof(cfg.secret));
		cfg.tagged = 1;
	}
	if (rina_agent_core_init(&a, &cfg, &agent_ops, NULL))
		abort();
	rina_agent_core_set_session(&a, SESSION);
	while (n >= 3) {
		struct rina_agent_addr from = sender(p[0]);
		__u8 *b;
		__u32 len = next_dgram(&p, &n, &b, (mode & 6) == 6, a.tag,
				       cfg.self);

		rina_agent_core_rx(&a, b, len, &from);
		free(b);
		now_us += 1000;
		rina_agent_core_tick(&a);
	}
	rina_agent_core_fini(&a);
}

static void rm_run(__u8 mode, const __u8 *p, size_t n)
{
	static struct rina_ring ring;
	static __u32 before[3] = { 0, 1, 2 };
	static __u8 txbuf[RINA_ENGINE_BATCH * MAX_MSG];
	__u8 tag[RINA_TAG_LEN];
	struct rina_cc_params cp;
	struct rina_path path;
	struct rina_rm_cfg cfg = {
		.ring = &ring, .contrib_before = before, .member = 1,
		.n_ranks = 3, .job_id = 7, .rank = 1, .elems = 16,
		.window = 8, .txq_limit = RINA_TXQ_LIMIT_OFF, .rto_us = 2000,
		.path = &path, .txbuf = txbuf, .max_msg = MAX_MSG, .agg = &agg,
	};
	struct rina_rm *rm;
	__s32 acc[64];
	__u64 wait;
	unsigned int j;

	ring.L = 3;
	ring.n_ranks = 3;
	for (j = 0; j < 3; j++) {
		ring.order[j] = (__u16)j;
		ring.member_of[j] = (__u16)j;
		ring.m[j].agent = (__u16)j;
		ring.m[j].first = (__u16)j;
		ring.m[j].n_local = 1;
		ring.m[j].rack = (__u16)j;
	}
	rina_session_tag(secret, rina_siphash24, 7, SESSION, tag);
	rina_cc_params_default(&cp, cfg.window);
	rina_path_init(&path, &cp);
	rm = rina_rm_create(&cfg, &engine_ops, NULL);
	if (!rm)
		abort();
	memset(acc, 0, sizeof(acc));
	if (rina_rm_start(rm, acc, 64, RINA_DTYPE_OP(RINA_WIRE_INT32,
						     RINA_WIRE_SUM), 1, 0))
		abort();
	rina_rm_pump(rm, &wait);
	while (n >= 3) {
		__u8 from = p[0] & 3, *b;
		__u32 len = next_dgram(&p, &n, &b, (mode & 6) == 6, tag,
				       addr(1, RINA_UDP_PORT_MIN));

		/* the host's checks before the engine: endpoint.c */
		if (len >= RINA_HDR_LEN &&
		    !rina_hdr_check((struct rina_hdr *)b, len) &&
		    rina_hdr_opcode((struct rina_hdr *)b) != RINA_OP_CTRL &&
		    rina_data_open(b, len, mode & 2 ? tag : NULL, NULL,
				   rina_siphash24))
			rina_rm_rx(rm, (struct rina_hdr *)b, from, 0, 0);
		free(b);
		rina_rm_flush(rm);
		now_us += 500;
		rina_rm_pump(rm, &wait);
	}
	rina_rm_finish(rm, !rina_rm_done(rm));
	rina_rm_destroy(rm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		rm_run(data[0], data + 1, size - 1);
	else
		agent_run(data[0], data + 1, size - 1);
	return 0;
}
