// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A bounded fuzzer of rina.ko's generic netlink family, run as root in the
 * qemu guest (selftests/vm/guest.sh, the kernel booted with panic_on_warn):
 * valid requests of every operation, built from the YNL spec's attribute
 * tables (rina_nl_fuzz_spec.h, generated from
 * Documentation/netlink/rina.yaml), mutated (attribute types, lengths,
 * nesting, values, duplicates, header flags and commands, truncated
 * headers, corrupt nla_len), and pure random payloads. Replies are read
 * and thrown away; errors are expected and counted by errno. Whether the
 * kernel survived is the guest script's check (dmesg, the module still
 * working, rmmod); this program fails only when it could not talk to the
 * family at all or its seed corpus never got past the module's checks.
 * Deterministic from the seed; stops after COUNT messages or SECONDS.
 *   rina_nl_fuzz [-s SEED] [-n COUNT] [-t SECONDS]   (1, 150000, 25 s)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rina.h>

#include "rgenl.h"

enum fz_kind { FZ_U8, FZ_U16, FZ_U32, FZ_U64, FZ_FLAG, FZ_BINARY, FZ_NEST,
	       FZ_PAD, FZ_STRING };

struct fz_attr {
	const char *name;
	unsigned int type;
	enum fz_kind kind;
	int has_min, has_max;
	long long min, max;
	int exact_len;		/* -1: none */
	int nest;		/* index into fz_sets, -1: not a nest */
	int multi;
};

struct fz_set {
	const char *name;
	const struct fz_attr *attr;
	unsigned int n;
	unsigned int max_type;
};

struct fz_op {
	const char *name;
	unsigned int cmd;
	int set;
	int admin, has_do, has_dump, event;
	const int *do_req;	/* indexes into the set, -1 ends */
	const int *dump_req;
};

#include "rina_nl_fuzz_spec.h"

#define N_OPS		(sizeof(fz_ops) / sizeof(fz_ops[0]))
#define MAX_NODES	4096
#define ARENA		(128 * 1024)
#define MSG_MAX		(64 * 1024)
#define RX_MAX		(256 * 1024)
#define JOB_IDS		8	/* most requests name one of few jobs */

/* ---- deterministic random numbers (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)(rnd64() % n) : 0;
}

static int chance(unsigned int percent)
{
	return rnd(100) < percent;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rnd64();
}

/* ---- the message as a tree of attributes ---- */

struct fz_node {
	uint16_t type;		/* with any NLA_F_* bits */
	int set;		/* children's attribute set; -1: leaf */
	int first, next;	/* first child, next sibling; -1: none */
	uint16_t len;		/* leaf payload bytes */
	int nla_len;		/* -1, or the nla_len to write instead */
	uint8_t *data;
};

static struct fz_node nodes[MAX_NODES];
static unsigned int n_nodes;
static uint8_t arena[ARENA];
static size_t arena_used;

static void tree_reset(void)
{
	n_nodes = 1;	/* node 0: the message's top level */
	nodes[0] = (struct fz_node){ .set = 0, .first = -1, .next = -1,
				     .nla_len = -1 };
	arena_used = 0;
}

static uint8_t *arena_alloc(size_t n)
{
	uint8_t *p;

	if (arena_used + n > ARENA)
		return NULL;
	p = arena + arena_used;
	arena_used += n;
	return p;
}

/* A new node appended to parent's children; -1 when the pool is full. */
static int node_add(int parent, uint16_t type, int set, const void *data,
		    size_t len)
{
	struct fz_node *nd;
	int i, *link;

	if (n_nodes >= MAX_NODES || len > 0xffff)
		return -1;
	nd = &nodes[n_nodes];
	*nd = (struct fz_node){ .type = type, .set = set, .first = -1,
				.next = -1, .nla_len = -1,
				.len = (uint16_t)len };
	if (len) {
		nd->data = arena_alloc(len);
		if (!nd->data)
			return -1;
		if (data)
			memcpy(nd->data, data, len);
		else
			rnd_bytes(nd->data, len);
	}
	for (link = &nodes[parent].first; *link >= 0;
	     link = &nodes[*link].next)
		;
	i = (int)n_nodes++;
	*link = i;
	return i;
}

static int node_u(int parent, uint16_t type, enum fz_kind kind, uint64_t v)
{
	uint8_t b8 = (uint8_t)v;
	uint16_t b16 = (uint16_t)v;
	uint32_t b32 = (uint32_t)v;

	switch (kind) {
	case FZ_U8:
		return node_add(parent, type, -1, &b8, 1);
	case FZ_U16:
		return node_add(parent, type, -1, &b16, 2);
	case FZ_U32:
		return node_add(parent, type, -1, &b32, 4);
	default:
		return node_add(parent, type, -1, &v, 8);
	}
}

/* ---- valid requests, from the spec's tables ---- */

/* What a job's entries must agree on (ids, referenced racks, ToRs). */
struct fz_job {
	unsigned int n_ranks, n_racks;
	uint16_t rack_id[FZ_CONST_MAX_RACKS];
	uint8_t rack_tor[FZ_CONST_MAX_RACKS];
	int any_tor;
	uint32_t timeout_ms;
};

static uint16_t job_id(void)
{
	return (uint16_t)(chance(90) ? 1 + rnd(JOB_IDS) : 1 + rnd(100));
}

static uint64_t in_checks(const struct fz_attr *a)
{
	static const uint64_t top[] = { [FZ_U8] = 0xff, [FZ_U16] = 0xffff,
					[FZ_U32] = 0xffffffff,
					[FZ_U64] = ~0ULL };
	uint64_t lo = a->has_min ? (uint64_t)a->min : 0;
	uint64_t hi = a->has_max ? (uint64_t)a->max : top[a->kind];

	if (hi - lo >= 0xffffffffULL)
		return lo + rnd64() % (hi - lo);
	return lo + rnd((unsigned int)(hi - lo + 1));
}

/*
 * The value of a scalar: in the spec's checks, and where the module
 * checks more than the spec says (a power-of-two window, the rto below
 * the timeout, ids 0..N-1, ranks in known racks, the ToR port), what a
 * job it accepts has.
 */
static uint64_t pick_value(const char *set, const struct fz_attr *a,
			   unsigned int entry, struct fz_job *j)
{
	const char *n = a->name;

	if (!strcmp(set, "job")) {
		if (!strcmp(n, "id"))
			return job_id();
		if (!strcmp(n, "window"))
			return 1u << (1 + rnd(15));
		if (!strcmp(n, "timeout-ms"))
			return j->timeout_ms;
		if (!strcmp(n, "rto-us"))
			return 50 + rnd(j->timeout_ms < 10000 ?
					j->timeout_ms * 1000 - 50 :
					10000000 - 50);
		if (!strcmp(n, "auth"))
			return j->any_tor ? 0 : rnd(2);
		if (!strcmp(n, "fallback"))
			return j->any_tor ? rnd(2) : rnd(3);
	} else if (!strcmp(set, "rank")) {
		if (!strcmp(n, "id"))
			return entry;
		/* 198.18.0.1 is local in the fuzzer's netns: agents start */
		if (!strcmp(n, "ipv4"))
			return htonl(0xc6120001 + entry);
		if (!strcmp(n, "rack"))
			return j->rack_id[rnd(j->n_racks)];
	} else if (!strcmp(set, "rack")) {
		if (!strcmp(n, "id"))
			return j->rack_id[entry];
		if (!strcmp(n, "tor-ipv4"))
			return htonl(0xc6130001 + entry);
		if (!strcmp(n, "tor-port"))
			return RINA_UDP_PORT_AGENT;
	}
	return in_checks(a);
}

/* Optional in a request: left out now and then. */
static int wanted(const char *set, const struct fz_attr *a,
		  unsigned int entry, const struct fz_job *j)
{
	if (!strcmp(a->name, "id") || a->kind == FZ_NEST)
		return 1;
	if (!strcmp(set, "rank"))
		return strcmp(a->name, "mac") && strcmp(a->name, "port") ?
		       1 : chance(50);
	if (!strcmp(set, "rack")) {
		if (!strncmp(a->name, "tor-", 4))
			return j->rack_tor[entry];
		return chance(50);
	}
	return chance(70);
}

static void gen_set(int parent, int set, const int *req, unsigned int entry,
		    struct fz_job *j);

/* A nest: a table of multi-attr entries (ranks, racks), or one set. */
static void gen_nest(int parent, const struct fz_attr *a, struct fz_job *j)
{
	const struct fz_set *s = &fz_sets[a->nest];
	unsigned int i, n, order[FZ_CONST_MAX_RANKS];
	int nest, e;

	nest = node_add(parent, (uint16_t)(a->type | NLA_F_NESTED), a->nest,
			NULL, 0);
	if (nest < 0)
		return;
	if (s->n != 1 || !s->attr[0].multi || s->attr[0].nest < 0) {
		gen_set(nest, a->nest, NULL, 0, j);
		return;
	}
	n = !strcmp(s->attr[0].name, "rank") ? j->n_ranks : j->n_racks;
	for (i = 0; i < n; i++)
		order[i] = i;
	/* entries in any order: the ids are what count */
	for (i = n; i > 1; i--) {
		unsigned int k = rnd(i), t = order[i - 1];

		order[i - 1] = order[k];
		order[k] = t;
	}
	for (i = 0; i < n; i++) {
		e = node_add(nest, (uint16_t)(s->attr[0].type | NLA_F_NESTED),
			     s->attr[0].nest, NULL, 0);
		if (e < 0)
			return;
		gen_set(e, s->attr[0].nest, NULL, order[i], j);
	}
}

static void gen_set(int parent, int set, const int *req, unsigned int entry,
		    struct fz_job *j)
{
	const struct fz_set *s = &fz_sets[set];
	const struct fz_attr *a;
	unsigned int i;
	uint8_t buf[64];

	for (i = 0; req ? req[i] >= 0 : i < s->n; i++) {
		a = &s->attr[req ? (unsigned int)req[i] : i];
		if (!wanted(s->name, a, entry, j))
			continue;
		switch (a->kind) {
		case FZ_NEST:
			gen_nest(parent, a, j);
			break;
		case FZ_FLAG:
			node_add(parent, (uint16_t)a->type, -1, NULL, 0);
			break;
		case FZ_BINARY:
		case FZ_STRING:
			node_add(parent, (uint16_t)a->type, -1, NULL,
				 a->exact_len >= 0 ? (size_t)a->exact_len :
				 rnd(sizeof(buf)));
			break;
		case FZ_PAD:
			break;
		default:
			node_u(parent, (uint16_t)a->type, a->kind,
			       pick_value(s->name, a, entry, j));
		}
	}
}

static void job_plan(struct fz_job *j)
{
	unsigned int i, base = rnd(1000);

	memset(j, 0, sizeof(*j));
	j->n_ranks = chance(75) ? 1 + rnd(8) :
		     chance(70) ? 1 + rnd(64) : 1 + rnd(FZ_CONST_MAX_RANKS);
	j->n_racks = 1 + rnd(j->n_ranks < 8 ? j->n_ranks : 8);
	if (chance(10))
		j->n_racks = 1 + rnd(FZ_CONST_MAX_RACKS);
	for (i = 0; i < j->n_racks; i++) {
		j->rack_id[i] = (uint16_t)(base + i);
		j->rack_tor[i] = chance(20);
		j->any_tor |= j->rack_tor[i];
	}
	j->timeout_ms = chance(80) ? 10 + rnd(60000) : 10 + rnd(3600000 - 10);
}

/* A valid request of op (do, or dump when asked and the op has one). */
static uint16_t gen_request(const struct fz_op *op, int dump)
{
	struct fz_job j;

	job_plan(&j);
	nodes[0].set = op->set;
	/* a dump of everything, or of the given attributes */
	if (!dump || chance(50))
		gen_set(0, op->set, dump ? op->dump_req : op->do_req, 0, &j);
	return NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
}

/* ---- mutations ---- */

/* A random live node other than the top level; -1 if none. */
static int pick_node(int want_leaf)
{
	int stack[512], sp = 0, found = -1, seen = 0, i;

	stack[sp++] = 0;
	while (sp) {
		int p = stack[--sp];

		for (i = nodes[p].first; i >= 0; i = nodes[i].next) {
			/* reservoir sampling */
			if ((!want_leaf || nodes[i].set < 0) && !rnd(++seen))
				found = i;
			if (nodes[i].set >= 0 && sp < 512)
				stack[sp++] = i;
		}
	}
	return found;
}

static int pick_parent(void)
{
	int i;

	if (chance(30))
		return 0;
	i = pick_node(0);
	return i >= 0 && nodes[i].set >= 0 ? i : 0;
}

static int parent_of(int child)
{
	unsigned int p;
	int i;

	for (p = 0; p < n_nodes; p++)
		for (i = nodes[p].first; i >= 0; i = nodes[i].next)
			if (i == child)
				return (int)p;
	return -1;
}

static void unlink_node(int child)
{
	int p = parent_of(child), *link;

	if (p < 0)
		return;
	for (link = &nodes[p].first; *link != child; link = &nodes[*link].next)
		;
	*link = nodes[child].next;
	nodes[child].next = -1;
}

/* A copy of node src (and its children) appended to parent. */
static int copy_node(int parent, int src, int depth)
{
	int n, i;

	n = node_add(parent, nodes[src].type, nodes[src].set,
		     nodes[src].data, nodes[src].len);
	if (n < 0 || depth > 8)
		return n;
	nodes[n].nla_len = nodes[src].nla_len;
	for (i = nodes[src].first; i >= 0 && i != n; i = nodes[i].next)
		if (copy_node(n, i, depth + 1) < 0)
			break;
	return n;
}

static uint16_t random_type(int set)
{
	unsigned int max = set >= 0 ? fz_sets[set].max_type : 8;

	switch (rnd(5)) {
	case 0:
		return 0;
	case 1:
		return (uint16_t)(max + 1 + rnd(3));
	case 2:
		return (uint16_t)(rnd64() & NLA_TYPE_MASK);
	default:
		return (uint16_t)(1 + rnd(max));
	}
}

static void set_leaf(int n, size_t len)
{
	nodes[n].set = -1;
	nodes[n].first = -1;
	nodes[n].len = (uint16_t)len;
	nodes[n].data = len ? arena_alloc(len) : NULL;
	if (!nodes[n].data)
		nodes[n].len = 0;
	else
		rnd_bytes(nodes[n].data, len);
}

static const size_t odd_lens[] = { 0, 1, 2, 3, 5, 7, 8, 9, 15, 17, 255, 1023 };

/* Values at and beyond the edges of a scalar's range. */
static void edge_value(int n)
{
	static const uint64_t edges[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x100,
					  255, 256, 257, 1024, 1025, 0x5247,
					  0x5248, 0x524f, 0x5250, 0x7fff,
					  0x8000, 0xffff, 0x10000, 3600001,
					  10000001, 0xffffffff };
	uint64_t v = chance(70) ? edges[rnd(sizeof(edges) / sizeof(edges[0]))]
				: rnd64();

	if (nodes[n].len && nodes[n].len <= 8)
		memcpy(nodes[n].data, &v, nodes[n].len);	/* LE */
}

static void mutate_tree(void)
{
	int n, p, k, depth;

	switch (rnd(12)) {
	case 0:		/* attribute type */
		n = pick_node(0);
		if (n >= 0)
			nodes[n].type = chance(80) ? random_type(-1) |
				(nodes[n].type & NLA_F_NESTED) :
				nodes[n].type ^ (chance(50) ? NLA_F_NESTED :
						 NLA_F_NET_BYTEORDER);
		break;
	case 1:		/* payload length: 0, odd, short, oversized */
		n = pick_node(1);
		if (n >= 0)
			set_leaf(n, chance(50) ? odd_lens[rnd(12)] :
				 chance(50) ? nodes[n].len + 1u :
				 (nodes[n].len ? nodes[n].len - 1u : 4u));
		break;
	case 2:		/* a value at an edge */
		n = pick_node(1);
		if (n >= 0)
			edge_value(n);
		break;
	case 3:		/* a nest made a leaf, or the reverse */
		n = pick_node(0);
		if (n < 0)
			break;
		if (nodes[n].set >= 0) {
			set_leaf(n, rnd(64));
		} else {
			nodes[n].set = (int)rnd(sizeof(fz_sets) /
						sizeof(fz_sets[0]));
			nodes[n].first = -1;
			nodes[n].len = 0;
			for (k = rnd(3); k >= 0; k--)
				node_add(n, random_type(nodes[n].set), -1, NULL,
					 odd_lens[rnd(12)]);
		}
		break;
	case 4:		/* a duplicate attribute */
		n = pick_node(0);
		p = n >= 0 ? parent_of(n) : -1;
		if (p >= 0)
			copy_node(p, n, 0);
		break;
	case 5:		/* a missing one */
		n = pick_node(0);
		if (n >= 0)
			unlink_node(n);
		break;
	case 6:		/* an attribute in the wrong nest */
		n = pick_node(0);
		p = pick_parent();
		if (n >= 0 && p != n) {
			copy_node(p, n, 0);
			unlink_node(n);
		}
		break;
	case 7:		/* a stray attribute */
		p = pick_parent();
		node_add(p, random_type(nodes[p].set) |
			 (chance(20) ? NLA_F_NESTED : 0), -1, NULL,
			 chance(80) ? odd_lens[rnd(12)] : rnd(4000));
		break;
	case 8:		/* a lying nla_len */
		n = pick_node(0);
		if (n >= 0)
			nodes[n].nla_len = chance(50) ? (int)rnd(4) :
					   chance(50) ? (int)rnd(0x10000) :
					   0xffff;
		break;
	case 9:		/* deep nesting */
		p = pick_parent();
		for (depth = rnd(12); depth >= 0 && p >= 0; depth--)
			p = node_add(p, random_type(-1) | NLA_F_NESTED, 0,
				     NULL, 0);
		if (p >= 0)
			node_add(p, random_type(0), -1, NULL, rnd(16));
		break;
	case 10:	/* too many entries: a table past its limit */
		n = pick_node(0);
		p = n >= 0 ? parent_of(n) : -1;
		for (k = 20 + rnd(300); p >= 0 && k > 0; k--)
			if (copy_node(p, n, 0) < 0)
				break;
		break;
	default:	/* random bytes in a leaf */
		n = pick_node(1);
		if (n >= 0 && nodes[n].len)
			nodes[n].data[rnd(nodes[n].len)] ^=
				(uint8_t)(1 + rnd(255));
	}
}

/* ---- the wire ---- */

static size_t put_nodes(uint8_t *buf, size_t off, size_t cap, int parent)
{
	struct nlattr *nla;
	size_t start;
	int i;

	for (i = nodes[parent].first; i >= 0; i = nodes[i].next) {
		struct fz_node *nd = &nodes[i];

		if (off + NLA_HDRLEN > cap)
			return off;
		start = off;
		nla = (struct nlattr *)(buf + off);
		off += NLA_HDRLEN;
		if (nd->set >= 0) {
			off = put_nodes(buf, off, cap, i);
		} else if (off + NLA_ALIGN(nd->len) <= cap) {
			if (nd->len)
				memcpy(buf + off, nd->data, nd->len);
			memset(buf + off + nd->len, 0,
			       NLA_ALIGN(nd->len) - nd->len);
			off += NLA_ALIGN(nd->len);
		}
		nla->nla_type = nd->type;
		nla->nla_len = (uint16_t)(nd->nla_len >= 0 ?
					  (size_t)nd->nla_len :
					  nd->set >= 0 ? off - start :
					  NLA_HDRLEN + nd->len);
	}
	return off;
}

static size_t put_msg(uint8_t *buf, size_t cap, uint16_t family, uint8_t cmd,
		      uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = (struct genlmsghdr *)NLMSG_DATA(nlh);
	size_t len;

	len = put_nodes(buf, NLMSG_HDRLEN + GENL_HDRLEN, cap, 0);
	*nlh = (struct nlmsghdr){ .nlmsg_len = (uint32_t)len,
				  .nlmsg_type = family, .nlmsg_flags = flags,
				  .nlmsg_seq = seq };
	*g = (struct genlmsghdr){ .cmd = cmd, .version = RINA_GENL_VERSION };
	return len;
}

/* ---- counting the replies ---- */

struct fz_stats {
	unsigned long sent, send_err, acks, data, dones, events, overruns;
	unsigned long err[256];		/* error replies by errno */
	unsigned long send_errno[256];
	unsigned long added, got;	/* job-add acked, job-get data */
	unsigned long modes[4];
};

static struct fz_stats st;
static uint8_t seq_cmd[1024];	/* the command sent with each seq */

static void count_reply(const struct nlmsghdr *h, uint16_t family)
{
	int e;

	if (h->nlmsg_type == NLMSG_ERROR &&
	    h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
		e = -*(const int *)NLMSG_DATA(h);
		if (!e) {
			st.acks++;
			if (seq_cmd[h->nlmsg_seq % 1024] == RINA_CMD_JOB_ADD)
				st.added++;
		} else {
			st.err[e > 0 && e < 256 ? e : 0]++;
		}
	} else if (h->nlmsg_type == NLMSG_DONE) {
		st.dones++;
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
			e = -*(const int *)NLMSG_DATA(h);
			if (e)
				st.err[e > 0 && e < 256 ? e : 0]++;
		}
	} else if (h->nlmsg_type == family) {
		if (!h->nlmsg_seq && !h->nlmsg_pid) {
			st.events++;
		} else {
			st.data++;
			if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
			    ((const struct genlmsghdr *)NLMSG_DATA(h))->cmd ==
			    RINA_CMD_JOB_GET)
				st.got++;
		}
	}
}

/*
 * Genetlink answers within sendmsg(), and a dump's next part is made
 * within recvmsg(): reading until nothing is queued gets every reply.
 */
static int drain(int fd, uint8_t *rx, uint16_t family)
{
	const struct nlmsghdr *h;
	ssize_t n;
	int len;

	for (;;) {
		n = recv(fd, rx, RX_MAX, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			st.overruns++;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			return -errno;
		len = (int)n;
		for (h = (const struct nlmsghdr *)rx; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len))
			count_reply(h, family);
	}
}

/* ---- one message ---- */

enum { MODE_VALID, MODE_MUTATED, MODE_BYTES, MODE_RANDOM };

/*
 * A request of a random operation in buf, as sent: a valid one, one
 * mutated in its tree and header, one mutated on the wire, or noise.
 */
static size_t gen_message(uint8_t *buf, uint16_t family, uint32_t seq,
			  int *mode)
{
	const struct fz_op *op = &fz_ops[rnd(N_OPS)];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	int dump = op->has_dump && chance(40);
	const size_t hdrs = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned int r = rnd(100), k;
	uint16_t flags;
	uint8_t cmd = (uint8_t)op->cmd;
	size_t len;

	*mode = r < 15 ? MODE_VALID : r < 75 ? MODE_MUTATED :
		r < 92 ? MODE_BYTES : MODE_RANDOM;
	if (*mode == MODE_RANDOM) {
		len = rnd(chance(50) ? 64 : 2048);
		rnd_bytes(buf, len);
		if (chance(60) && len >= NLMSG_HDRLEN) {
			nlh->nlmsg_len = (uint32_t)len;
			nlh->nlmsg_type = family;
			nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
			nlh->nlmsg_seq = seq;
		}
		seq_cmd[seq % 1024] = len > NLMSG_HDRLEN ? buf[NLMSG_HDRLEN] :
				      0;
		return len;
	}
	tree_reset();
	flags = gen_request(op, dump);
	if (*mode == MODE_MUTATED) {
		for (k = 1 + rnd(4); k; k--)
			mutate_tree();
		if (chance(15))
			flags = (uint16_t)rnd64() |
				(chance(90) ? NLM_F_REQUEST : 0);
		else if (chance(15))
			flags |= NLM_F_DUMP;	/* on any command */
		else if (chance(5))
			flags &= (uint16_t)~NLM_F_ACK;
		if (chance(10))
			cmd = chance(50) ? (uint8_t)rnd(256) :
			      (uint8_t)fz_ops[rnd(N_OPS)].cmd;
	}
	len = put_msg(buf, MSG_MAX, family, cmd, flags, seq);
	seq_cmd[seq % 1024] = cmd;
	if (*mode == MODE_MUTATED && chance(10))
		((struct genlmsghdr *)NLMSG_DATA(nlh))->version =
			(uint8_t)rnd(256);
	if (*mode == MODE_MUTATED && chance(5))
		((struct genlmsghdr *)NLMSG_DATA(nlh))->reserved =
			(uint16_t)rnd64();
	if (*mode != MODE_BYTES)
		return len;
	switch (rnd(6)) {
	case 0:		/* bytes flipped past the headers */
		for (k = 1 + rnd(8); k && len > hdrs; k--)
			buf[hdrs + rnd((unsigned int)(len - hdrs))] ^=
				(uint8_t)(1 + rnd(255));
		break;
	case 1:		/* cut short, nlmsg_len telling the truth */
		len = NLMSG_HDRLEN + rnd((unsigned int)len - NLMSG_HDRLEN + 1);
		nlh->nlmsg_len = (uint32_t)len;
		break;
	case 2:		/* cut short, nlmsg_len not */
		len = rnd((unsigned int)len + 1);
		break;
	case 3:		/* a truncated genlmsghdr */
		nlh->nlmsg_len = NLMSG_HDRLEN + rnd(GENL_HDRLEN);
		len = chance(50) ? nlh->nlmsg_len : len;
		break;
	case 4:		/* a lying nlmsg_len */
		nlh->nlmsg_len = chance(50) ? (uint32_t)rnd64() :
				 (uint32_t)(len + 1 + rnd(64));
		break;
	default:	/* two or three messages in one datagram */
		for (k = 1 + rnd(2); k; k--) {
			size_t more;

			tree_reset();
			op = &fz_ops[rnd(N_OPS)];
			flags = gen_request(op, op->has_dump && chance(30));
			if (chance(50))
				mutate_tree();
			len = NLMSG_ALIGN(len);
			if (len + 4096 > MSG_MAX)
				break;
			more = put_msg(buf + len, MSG_MAX - len, family,
				       (uint8_t)op->cmd, flags, seq + k);
			seq_cmd[(seq + k) % 1024] = (uint8_t)op->cmd;
			len += more;
		}
	}
	return len;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fputs("usage: rina_nl_fuzz [-s SEED] [-n COUNT (1..10000000)] "
	      "[-t SECONDS (1..3600)]\n", stderr);
	return 2;
}

static void print_errnos(const unsigned long *n)
{
	const char *name;
	unsigned int e;

	for (e = 0; e < 256; e++) {
		name = e ? strerrorname_np((int)e) : NULL;
		if (n[e])
			printf(" %s:%lu", name ? name : "other", n[e]);
	}
}

static void print_summary(unsigned long long seed, unsigned long count,
			  unsigned int secs, double took)
{

	printf("# rina_nl_fuzz: seed %llu: %lu messages in %.1f s "
	       "(bounds %lu, %u s; valid %lu mutated %lu wire %lu random %lu)"
	       ": acks %lu, data %lu, dump ends %lu, events %lu, overruns %lu, "
	       "job-add accepted %lu, job-get replies %lu; error replies:",
	       seed, st.sent, took, count, secs, st.modes[MODE_VALID],
	       st.modes[MODE_MUTATED], st.modes[MODE_BYTES],
	       st.modes[MODE_RANDOM], st.acks, st.data, st.dones, st.events,
	       st.overruns, st.added, st.got);
	print_errnos(st.err);
	printf("; send errors %lu:", st.send_err);
	print_errnos(st.send_errno);
	putchar('\n');
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	unsigned long count = 150000;
	unsigned int secs = 25;
	static uint8_t buf[MSG_MAX + 64], rx[RX_MAX];
	double start, took;
	uint16_t family;
	uint32_t seq = 1;
	int fd, c, mode, err, rcv = 4 << 20;
	struct rgenl g;
	char *end;
	size_t len;

	while ((c = getopt(argc, argv, "s:n:t:")) != -1) {
		errno = 0;
		switch (c) {
		case 's':
			seed = strtoull(optarg, &end, 0);
			break;
		case 'n':
			count = strtoul(optarg, &end, 0);
			if (!count || count > 10000000)
				return usage();
			break;
		case 't':
			secs = (unsigned int)strtoul(optarg, &end, 0);
			if (!secs || secs > 3600)
				return usage();
			break;
		default:
			return usage();
		}
		if (errno || *end)
			return usage();
	}
	if (optind != argc)
		return usage();
	rng_state = seed;
	err = rgenl_open(&g);
	if (err) {
		fprintf(stderr, "rina_nl_fuzz: the \"rina\" genl family: %s\n",
			strerror(-err));
		return 1;
	}
	/* the events of the jobs it adds and deletes are read too */
	rgenl_subscribe(&g);
	fd = mnl_socket_get_fd(g.nl);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	family = g.family;
	start = now_s();
	while (st.sent < count && now_s() - start < secs) {
		len = gen_message(buf, family, seq, &mode);
		st.modes[mode]++;
		seq += 4;	/* apart from the extra messages' */
		if (send(fd, buf, len, 0) < 0) {
			st.send_err++;
			st.send_errno[errno < 256 ? errno : 0]++;
		}
		st.sent++;
		err = drain(fd, rx, family);
		if (err) {
			fprintf(stderr, "rina_nl_fuzz: recv: %s\n",
				strerror(-err));
			return 1;
		}
	}
	took = now_s() - start;
	print_summary(seed, count, secs, took);
	rgenl_close(&g);
	/* the checks of this program itself: it reached the module */
	if (!st.added || !st.got) {
		fprintf(stderr, "rina_nl_fuzz: no job-add accepted (%lu) or "
			"no job-get answered (%lu): the seed corpus does not "
			"reach the module\n", st.added, st.got);
		return 1;
	}
	return 0;
}
