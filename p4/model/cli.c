// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The model's runtime CLI: the subset of the behavioural model's
 * simple_switch_CLI commands that a Rina job install uses, with the same
 * syntax and the P4 program's fully qualified names, so that one command
 * file (rina-p4cfg output, the packet-vector files) configures both.
 *
 *   table_add <table> <action> <key...> => <param...>
 *   table_delete <table> <handle>
 *   mc_mgrp_create <group>
 *   mc_mgrp_destroy <group>
 *   mc_node_create <rid> <port...>
 *   mc_node_associate <group> <handle>
 *   mc_node_dissociate <group> <handle>
 *   mc_node_destroy <handle>
 *   register_write <register> <index> <value>
 *
 * table_add and mc_node_create give a handle, as simple_switch_CLI prints
 * it (rina_tor_cli_handle()). A table entry's handle is its index in the
 * model's table. A node's is the lowest free one, what bmv2's PRE hands
 * out (its HandleMgr): a destroyed node's handle is taken again by the
 * next mc_node_create, so that a replay of bmv2's commands gets bmv2's
 * handles and a switch that installs and removes jobs never runs out.
 *
 * Numbers are decimal or 0x hex; IPv4 addresses dotted; MACs aa:bb:..
 * This is userspace-only code (libc) and not part of the data path.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <errno.h>
#include <arpa/inet.h>
#include "rina_tor_model.h"

#define MAX_TOK 32

static int fail(char *err, unsigned int errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int num(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (*end || errno || *v > max)
		return -1;
	return 0;
}

static int ip(const char *s, __u32 *v)
{
	struct in_addr a;
	unsigned long long n;

	if (strchr(s, '.')) {
		if (inet_pton(AF_INET, s, &a) != 1)
			return -1;
		*v = ntohl(a.s_addr);
		return 0;
	}
	if (num(s, 0xffffffffULL, &n))
		return -1;
	*v = (__u32)n;
	return 0;
}

static int mac(const char *s, __u8 *m)
{
	unsigned int b[6], i;
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		m[i] = (__u8)b[i];
	}
	return 0;
}

/* Split into tokens; "=>" becomes its own token. */
static int split(char *line, char **tok)
{
	int n = 0;
	char *p = strtok(line, " \t\r\n");

	while (p && n < MAX_TOK) {
		tok[n++] = p;
		p = strtok(NULL, " \t\r\n");
	}
	return p ? -1 : n;
}

#define N(i, max, dst) do {						\
	unsigned long long _v;						\
	if (num(a[i], max, &_v))					\
		return fail(err, errlen, "bad number '%s'", a[i]);	\
	dst = _v;							\
} while (0)
#define IP(i, dst) do {							\
	if (ip(a[i], &(dst)))						\
		return fail(err, errlen, "bad IPv4 '%s'", a[i]);	\
} while (0)
#define MAC(i, dst) do {						\
	if (mac(a[i], dst))						\
		return fail(err, errlen, "bad MAC '%s'", a[i]);		\
} while (0)

static int set_job(struct rina_tor *sw, char **k, char **a, char *err,
		   unsigned int errlen)
{
	struct tor_job_entry e = { .used = 1 };
	struct tor_job_params *p = &e.p;
	unsigned int i;
	char **save = a;

	a = k;
	IP(0, e.dst_ip);
	N(1, 0xffff, e.dport);
	N(2, 0xffff, e.job_id);
	a = save;
	N(0, RINA_TOR_MAX_JOBS - 1, p->job_idx);
	N(1, 0xffff, p->epoch);
	N(2, RINA_TOR_POOL_SIZE - 1, p->pool_base);
	N(3, RINA_TOR_POOL_SIZE, p->win);
	N(4, 0xffff, p->member);
	N(5, 0xffff, p->ring_len);
	N(6, 0xffff, p->own_chunk);
	N(7, RINA_TOR_MAX_WORKERS, p->up_bit_idx);
	N(8, 0x7fffffff, p->local_mask);
	N(9, RINA_TOR_MAX_GROUPS - 1, p->mgrp);
	N(10, 0xffff, p->src_id);
	MAC(11, p->agent_mac);
	IP(12, p->agent_ip);
	N(13, 0xffff, p->agent_port);
	N(14, 1, p->tagged);
	N(15, ~0ULL, p->tag);
	if (p->win < 2 || (p->win & (p->win - 1)) ||
	    p->pool_base + p->win > RINA_TOR_POOL_SIZE)
		return fail(err, errlen, "window/pool out of range");
	if (!p->ring_len || p->member >= p->ring_len ||
	    p->own_chunk >= p->ring_len || !p->local_mask ||
	    (p->local_mask >> p->up_bit_idx))
		return fail(err, errlen, "inconsistent ring parameters");
	for (i = 0; i < RINA_TOR_MAX_JOBS; i++)
		if (sw->rina_job[i].used && sw->rina_job[i].dst_ip == e.dst_ip &&
		    sw->rina_job[i].dport == e.dport &&
		    sw->rina_job[i].job_id == e.job_id)
			return fail(err, errlen, "duplicate entry");
	for (i = 0; i < RINA_TOR_MAX_JOBS; i++) {
		if (!sw->rina_job[i].used) {
			sw->rina_job[i] = e;
			return (int)i;
		}
	}
	return fail(err, errlen, "table rina_job is full");
}

static int set_worker(struct rina_tor *sw, char **k, char **a, char *err,
		      unsigned int errlen)
{
	struct tor_worker_entry e = { .used = 1 };
	unsigned int i, n = sizeof(sw->rina_worker) / sizeof(sw->rina_worker[0]);
	char **save = a;

	a = k;
	N(0, RINA_TOR_MAX_JOBS - 1, e.job_idx);
	N(1, 0xffff, e.src_id);
	IP(2, e.src_ip);
	N(3, 0xffff, e.sport);
	a = save;
	N(0, RINA_TOR_MAX_WORKERS - 1, e.bit);
	for (i = 0; i < n; i++)
		if (sw->rina_worker[i].used &&
		    sw->rina_worker[i].job_idx == e.job_idx &&
		    sw->rina_worker[i].src_id == e.src_id &&
		    sw->rina_worker[i].src_ip == e.src_ip &&
		    sw->rina_worker[i].sport == e.sport)
			return fail(err, errlen, "duplicate entry");
	for (i = 0; i < n; i++) {
		if (!sw->rina_worker[i].used) {
			sw->rina_worker[i] = e;
			return (int)i;
		}
	}
	return fail(err, errlen, "table rina_worker is full");
}

static int set_port(struct rina_tor *sw, char **k, char **a, char *err,
		    unsigned int errlen)
{
	struct tor_l2_entry e = { .used = 1 };
	unsigned int i;
	char **save = a;

	a = k;
	MAC(0, e.mac);
	a = save;
	N(0, RINA_TOR_MAX_PORTS - 1, e.port);
	for (i = 0; i < RINA_TOR_L2_SIZE; i++)
		if (sw->l2_fwd[i].used && !memcmp(sw->l2_fwd[i].mac, e.mac, 6))
			return fail(err, errlen, "duplicate entry");
	for (i = 0; i < RINA_TOR_L2_SIZE; i++) {
		if (!sw->l2_fwd[i].used) {
			sw->l2_fwd[i] = e;
			return (int)i;
		}
	}
	return fail(err, errlen, "table l2_fwd is full");
}

static int drop_rate(struct tor_drop_entry *tbl, char **k, char **a,
		     char *err, unsigned int errlen)
{
	struct tor_drop_entry e = { .used = 1 };
	unsigned int i;
	char **save = a;

	a = k;
	N(0, 0xff, e.ver_op);
	a = save;
	N(0, 65536, e.rate);
	for (i = 0; i < RINA_TOR_DROP_SIZE; i++)
		if (tbl[i].used && tbl[i].ver_op == e.ver_op)
			return fail(err, errlen, "duplicate entry");
	for (i = 0; i < RINA_TOR_DROP_SIZE; i++) {
		if (!tbl[i].used) {
			tbl[i] = e;
			return (int)i;
		}
	}
	return fail(err, errlen, "table drop_sim is full");
}

static int rewrite(struct rina_tor *sw, int cls, char **k, char **a,
		   char *err, unsigned int errlen)
{
	struct tor_rid_entry e = { .used = 1, .cls = (__u8)cls };
	unsigned int i;
	char **save = a;

	a = k;
	N(0, 0xffff, e.rid);
	if (!e.rid)
		return fail(err, errlen, "rid 0 is the plain replica");
	a = save;
	if (cls == RINA_RW_LOCAL || cls == RINA_RW_HOST) {
		N(0, RINA_TOR_MAX_WORKERS - 1, e.bit);
		a++;
	}
	MAC(0, e.mac);
	IP(1, e.ip);
	N(2, 0xffff, e.port);
	for (i = 0; i < RINA_TOR_RID_SIZE; i++)
		if (sw->replica[i].used && sw->replica[i].rid == e.rid)
			return fail(err, errlen, "duplicate entry");
	for (i = 0; i < RINA_TOR_RID_SIZE; i++) {
		if (!sw->replica[i].used) {
			sw->replica[i] = e;
			return (int)i;
		}
	}
	return fail(err, errlen, "table replica is full");
}

struct table_spec {
	const char *table, *action;
	int nkeys, nparams;
};

static const struct table_spec specs[] = {
	{ "RinaIngress.job_classify.rina_job",
	  "RinaIngress.job_classify.set_job", 3, 16 },
	{ "RinaIngress.job_classify.rina_worker",
	  "RinaIngress.job_classify.set_worker", 4, 1 },
	{ "RinaIngress.l2_fwd.l2_fwd", "RinaIngress.l2_fwd.set_port", 1, 1 },
	{ "RinaIngress.drop_sim.drop_sim", "RinaIngress.drop_sim.drop_rate",
	  1, 1 },
	{ "RinaEgress.drop_sim.drop_sim", "RinaEgress.drop_sim.drop_rate",
	  1, 1 },
	{ "RinaEgress.rewrite.replica", "RinaEgress.rewrite.rw_local", 1, 4 },
	{ "RinaEgress.rewrite.replica", "RinaEgress.rewrite.rw_next", 1, 3 },
	{ "RinaEgress.rewrite.replica", "RinaEgress.rewrite.rw_up", 1, 3 },
	{ "RinaEgress.rewrite.replica", "RinaEgress.rewrite.rw_agent", 1, 3 },
	{ "RinaEgress.rewrite.replica", "RinaEgress.rewrite.rw_host", 1, 4 },
};

static int table_add(struct rina_tor *sw, char **t, int n, char *err,
		     unsigned int errlen)
{
	unsigned int s;
	char **k, **a;

	if (n < 4)
		return fail(err, errlen, "usage: table_add TABLE ACTION KEY... => PARAM...");
	for (s = 0; s < sizeof(specs) / sizeof(specs[0]); s++)
		if (!strcmp(specs[s].table, t[1]) &&
		    !strcmp(specs[s].action, t[2]))
			break;
	if (s == sizeof(specs) / sizeof(specs[0]))
		return fail(err, errlen, "unknown table/action %s %s", t[1], t[2]);
	k = t + 3;
	if (n != 3 + specs[s].nkeys + 1 + specs[s].nparams ||
	    strcmp(t[3 + specs[s].nkeys], "=>"))
		return fail(err, errlen, "%s takes %d keys => %d params",
			    t[2], specs[s].nkeys, specs[s].nparams);
	a = t + 4 + specs[s].nkeys;
	switch (s) {
	case 0:
		return set_job(sw, k, a, err, errlen);
	case 1:
		return set_worker(sw, k, a, err, errlen);
	case 2:
		return set_port(sw, k, a, err, errlen);
	case 3:
		return drop_rate(sw->drop_in, k, a, err, errlen);
	case 4:
		return drop_rate(sw->drop_out, k, a, err, errlen);
	default:
		return rewrite(sw, RINA_RW_LOCAL + (int)s - 5, k, a, err, errlen);
	}
}

/*
 * table_delete: the entry with the handle table_add gave. A table's
 * entries are an array of structs that each begin with "used": the
 * table's address, size and stride are enough.
 */
_Static_assert(offsetof(struct tor_job_entry, used) == 0 &&
	       offsetof(struct tor_worker_entry, used) == 0 &&
	       offsetof(struct tor_l2_entry, used) == 0 &&
	       offsetof(struct tor_drop_entry, used) == 0 &&
	       offsetof(struct tor_rid_entry, used) == 0,
	       "table_delete finds an entry's used flag at its start");
static int table_delete(struct rina_tor *sw, char **a, int n, char *err,
			unsigned int errlen)
{
	const struct {
		const char *name;
		void *base;
		size_t size, stride;
	} t[] = {
#define T(name, tbl) { name, tbl, sizeof(tbl) / sizeof(tbl[0]),		\
		       sizeof(tbl[0]) }
		T("RinaIngress.job_classify.rina_job", sw->rina_job),
		T("RinaIngress.job_classify.rina_worker", sw->rina_worker),
		T("RinaIngress.l2_fwd.l2_fwd", sw->l2_fwd),
		T("RinaIngress.drop_sim.drop_sim", sw->drop_in),
		T("RinaEgress.drop_sim.drop_sim", sw->drop_out),
		T("RinaEgress.rewrite.replica", sw->replica),
#undef T
	};
	unsigned long long h;
	unsigned int i;
	int *used;

	if (n != 3)
		return fail(err, errlen, "usage: table_delete TABLE HANDLE");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].name, a[1]))
			break;
	if (i == sizeof(t) / sizeof(t[0]))
		return fail(err, errlen, "unknown table %s", a[1]);
	if (num(a[2], t[i].size - 1, &h))
		return fail(err, errlen, "bad handle '%s'", a[2]);
	used = (int *)((char *)t[i].base + h * t[i].stride);
	if (!*used)
		return fail(err, errlen, "no entry with handle %llu", h);
	*used = 0;
	return 0;
}

/* The node handle s if mc_node_create gave it and it is not destroyed; -1. */
static int node_handle(struct rina_tor *sw, const char *s)
{
	unsigned long long h;

	if (num(s, RINA_TOR_MAX_NODES - 1, &h) || (int)h >= sw->n_nodes ||
	    !sw->mc_node[h].used)
		return -1;
	return (int)h;
}

static int mc(struct rina_tor *sw, char **a, int n, char *err,
	      unsigned int errlen)
{
	unsigned long long g, rid, p;
	struct tor_mc_node *node;
	int i, h;

	if (!strcmp(a[0], "mc_mgrp_create") ||
	    !strcmp(a[0], "mc_mgrp_destroy")) {
		if (n != 2 || num(a[1], RINA_TOR_MAX_GROUPS - 1, &g) || !g)
			return fail(err, errlen, "usage: %s GROUP(1..%d)", a[0],
				    RINA_TOR_MAX_GROUPS - 1);
		if (!strcmp(a[0], "mc_mgrp_create")) {
			if (sw->mgrp_used[g])
				return fail(err, errlen, "group %llu exists", g);
			sw->mgrp_used[g] = 1;
			return 0;
		}
		if (!sw->mgrp_used[g])
			return fail(err, errlen, "no group %llu", g);
		/*
		 * bmv2 destroys a group whatever its nodes, which then
		 * still point to it, and a later mc_node_destroy of one of
		 * them fails: the model refuses, to catch that order.
		 */
		for (i = 0; i < sw->n_nodes; i++)
			if (sw->mc_node[i].used && sw->mc_node[i].grp == (int)g)
				return fail(err, errlen, "group %llu has node %d",
					    g, i);
		sw->mgrp_used[g] = 0;
		return 0;
	}
	if (!strcmp(a[0], "mc_node_create")) {
		if (n < 3 || num(a[1], 0xffff, &rid))
			return fail(err, errlen, "usage: mc_node_create RID PORT...");
		/* the lowest free handle, as bmv2's HandleMgr gives */
		for (h = 0; h < RINA_TOR_MAX_NODES; h++)
			if (!sw->mc_node[h].used)
				break;
		if (h == RINA_TOR_MAX_NODES)
			return fail(err, errlen, "no node left");
		node = &sw->mc_node[h];
		node->ports = 0;
		for (i = 2; i < n; i++) {
			if (num(a[i], RINA_TOR_MAX_PORTS - 1, &p))
				return fail(err, errlen, "bad port '%s'", a[i]);
			node->ports |= 1ULL << p;
		}
		node->rid = (__u16)rid;
		node->grp = -1;
		node->used = 1;
		if (h >= sw->n_nodes)
			sw->n_nodes = h + 1;
		return h;
	}
	if (!strcmp(a[0], "mc_node_destroy")) {
		if (n != 2 || (h = node_handle(sw, a[1])) < 0)
			return fail(err, errlen, "usage: mc_node_destroy HANDLE "
				    "(of a node)");
		/* bmv2 lets a node go without mc_node_dissociate first */
		sw->mc_node[h].used = 0;
		sw->mc_node[h].grp = -1;
		while (sw->n_nodes && !sw->mc_node[sw->n_nodes - 1].used)
			sw->n_nodes--;
		return 0;
	}
	/* mc_node_associate, mc_node_dissociate */
	if (n != 3 || num(a[1], RINA_TOR_MAX_GROUPS - 1, &g))
		return fail(err, errlen, "usage: %s GROUP HANDLE", a[0]);
	h = node_handle(sw, a[2]);
	if (!sw->mgrp_used[g] || h < 0)
		return fail(err, errlen, "no such group or node");
	if (!strcmp(a[0], "mc_node_dissociate")) {
		if (sw->mc_node[h].grp != (int)g)
			return fail(err, errlen, "node %d not in group %llu", h,
				    g);
		sw->mc_node[h].grp = -1;
		return 0;
	}
	if (sw->mc_node[h].grp >= 0)
		return fail(err, errlen, "node %d already associated", h);
	sw->mc_node[h].grp = (int)g;
	return 0;
}

static int register_write(struct rina_tor *sw, char **a, int n, char *err,
			  unsigned int errlen)
{
	unsigned long long idx, v;

	if (n != 4 || num(a[2], 0xffffffffULL, &idx) ||
	    num(a[3], 0xffffffffULL, &v))
		return fail(err, errlen, "usage: register_write REG INDEX VALUE");
	if (!strcmp(a[1], "RinaIngress.drop_sim.drop_rng") && idx == 0) {
		sw->drop_rng_in = (__u32)v;
		return 0;
	}
	if (!strcmp(a[1], "RinaEgress.drop_sim.drop_rng") && idx == 0) {
		sw->drop_rng_out = (__u32)v;
		return 0;
	}
	if (!strcmp(a[1], "RinaIngress.slot_tag.slot_epoch") &&
	    idx < 2 * RINA_TOR_POOL_SIZE && v <= 0xffff) {
		sw->slot_epoch[idx] = (__u16)v;
		return 0;
	}
	if (!strcmp(a[1], "RinaIngress.slot_tag.slot_bitmap") &&
	    idx < 2 * RINA_TOR_POOL_SIZE) {
		sw->slot_bitmap[idx] = (__u32)v;
		return 0;
	}
	return fail(err, errlen, "unknown register or index %s[%llu]", a[1], idx);
}

static int is_mc(const char *cmd)
{
	static const char *const mc_cmds[] = {
		"mc_mgrp_create", "mc_mgrp_destroy", "mc_node_create",
		"mc_node_destroy", "mc_node_associate", "mc_node_dissociate",
	};
	unsigned int i;

	for (i = 0; i < sizeof(mc_cmds) / sizeof(mc_cmds[0]); i++)
		if (!strcmp(cmd, mc_cmds[i]))
			return 1;
	return 0;
}

int rina_tor_cli_handle(struct rina_tor *sw, const char *line,
			unsigned int *handle, char *err, unsigned int errlen)
{
	char buf[1024], *t[MAX_TOK];
	int n, ret;

	err[0] = 0;
	if (handle)
		*handle = 0;
	if (strlen(line) >= sizeof(buf))
		return fail(err, errlen, "line too long");
	strcpy(buf, line);
	n = split(buf, t);
	if (n < 0)
		return fail(err, errlen, "too many tokens");
	if (!n || t[0][0] == '#')
		return 0;
	if (!strcmp(t[0], "table_add"))
		ret = table_add(sw, t, n, err, errlen);
	else if (!strcmp(t[0], "table_delete"))
		ret = table_delete(sw, t, n, err, errlen);
	else if (is_mc(t[0]))
		ret = mc(sw, t, n, err, errlen);
	else if (!strcmp(t[0], "register_write"))
		ret = register_write(sw, t, n, err, errlen);
	else
		ret = fail(err, errlen, "unknown command '%s'", t[0]);
	if (ret < 0)
		return -1;
	if (handle)
		*handle = (unsigned int)ret;
	return 0;
}

int rina_tor_cli(struct rina_tor *sw, const char *line, char *err,
		 unsigned int errlen)
{
	return rina_tor_cli_handle(sw, line, NULL, err, errlen);
}

int rina_tor_counter(const struct rina_tor *sw, const char *name,
		     unsigned int index, __u64 *val)
{
	if (!strcmp(name, "RinaIngress.counters.job_ctr") &&
	    index < RINA_TOR_MAX_JOBS * __RINA_TC_MAX)
		*val = sw->job_ctr[index];
	else if (!strcmp(name, "RinaEgress.counters.job_out") &&
		 index < RINA_TOR_MAX_JOBS * __RINA_TO_MAX)
		*val = sw->job_out[index];
	else if (!strcmp(name, "RinaIngress.counters.tor_ctr") &&
		 index < __RINA_TS_MAX)
		*val = sw->tor_ctr[index];
	else
		return -1;
	return 0;
}
