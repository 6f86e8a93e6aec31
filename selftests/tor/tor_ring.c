// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Whole Rina allreduces through the INA ToR model, the ranks running
 * core's engines as librina and rina-sim do: racks of hosts, one model
 * instance per INA rack configured by the rina-p4cfg generator, a spine
 * that routes by IPv4 destination. An INA rack's ranks host the INA
 * worker (core/ina_worker.h), its lowest rank the rack's agent
 * (core/agent.h) besides, on the agent port; every other rank hosts the
 * ring member (core/ring_member.h). This file holds no protocol rule:
 * tor_ring_hosts.c feeds the engines what arrives, sends what they build
 * and wakes them when they ask; tor_ring_net.c is the network on a
 * virtual clock (each hop LINK_US, loss, duplication and jitter injected
 * on every one); here are the ToRs on it, its event loop and the cases. Every rank must end with the exact int32 sum, and
 * without faults the ToR counters must match the schedule. Prints KTAP.
 *
 * With --two-pass US, every ToR runs the TNA program's two ingress
 * passes (rina_tor_pass1(), rina_tor_pass2(); Documentation/tofino.md):
 * a contribution that passed its checks recirculates, first in first out
 * and without faults, for US microseconds, while what takes one pass
 * (AG_DATA, ACK, NACK) goes on and may overtake it. The same results and
 * counters must hold, and some packet must have overtaken one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "tor_ring.h"
#include "p4cfg.h"
#include "../ktap.h"

/* the watchdog: a call's virtual time and events (the CPU it takes) */
#define CALL_MAX_US	(60ULL * 1000 * 1000)
#define CALL_MAX_EVENTS	5000000UL

static struct rina_tor_out tor_out;

/*
 * The ToR's control address answers TOR_INSTALL and TOR_REMOVE with OK:
 * the job is installed from the start (rina-tor's default), as rina-sim
 * answers. The reply echoes the request's session and job hash.
 */
static void tor_control(struct world *w, int tor, const struct frame *f)
{
	__u8 r[RINA_TOR_RINA_OFF + RINA_HDR_LEN + 16];
	const __u8 *q = f->data + RINA_TOR_RINA_OFF;
	struct host *h = net_host_by_ip(w, get32(f->data + 26));
	struct net_addr src = net_addr_of(w, net_tor_ip(w->tor_rack[tor]),
					  RINA_UDP_PORT_AGENT);
	struct net_addr dst = net_addr_of(w, get32(f->data + 26),
					  get16(f->data + 34));
	__u32 type = f->len >= sizeof(r) ? get32(q + RINA_HDR_LEN) : 0;
	__u8 dg[RINA_HDR_LEN + 16];
	struct frame g = { 0 };

	if (!h || (type != RINA_CTRL_TOR_INSTALL &&
		   type != RINA_CTRL_TOR_REMOVE))
		return;
	memcpy(dg, q, sizeof(dg));
	dg[1] = RINA_F_FROM_SWITCH;
	put16(dg + 8, RINA_SRC_SWITCH | w->tor_rack[tor]);
	put32(dg + RINA_HDR_LEN, RINA_CTRL_TOR_REPLY);
	put32(dg + RINA_HDR_LEN + 4, RINA_TOR_ST_OK);
	g.data = r;
	g.len = (__u16)net_wrap(r, &src, &dst, dg, sizeof(dg));
	g.host = h->rank;
	net_push(w, &g, LINK_US);
}

static void tor_rx(struct world *w, struct frame *f)
{
	struct rina_tor *T = w->tor[f->tor];
	unsigned int k;
	int j;

	if (!f->recirc &&
	    net_frame_dip(f->data) == net_tor_ip(w->tor_rack[f->tor]) &&
	    f->len >= RINA_TOR_RINA_OFF + RINA_HDR_LEN &&
	    (f->data[RINA_TOR_RINA_OFF] & 0xf) == RINA_OP_CTRL) {
		tor_control(w, f->tor, f);
		return;
	}
	if (f->recirc) {
		rina_tor_pass2(T, (const struct rina_tor_recirc *)f->data,
			       &tor_out);
		w->recirc_n[f->tor]--;
	} else if (w->two_pass) {
		static struct rina_tor_recirc rc;
		unsigned int op = f->len > RINA_TOR_RINA_OFF ?
				  f->data[RINA_TOR_RINA_OFF] & 0xf : 0;

		if (w->recirc_n[f->tor] && (op == RINA_OP_AG_DATA ||
					    op == RINA_OP_ACK ||
					    op == RINA_OP_NACK))
			w->overtook++;
		if (rina_tor_pass1(T, (unsigned int)f->port, f->data, f->len,
				   &tor_out, &rc))
			net_recirculate(w, f->tor, &rc);
	} else {
		rina_tor_process(T, (unsigned int)f->port, f->data, f->len,
				 &tor_out);
	}
	for (k = 0; k < tor_out.n; k++) {
		struct frame g = { 0 };
		struct host *h = NULL;

		g.len = tor_out.pkt[k].len;
		g.data = tor_out.pkt[k].data;
		if (tor_out.pkt[k].port == 0) {
			net_route(w, &g);
			continue;
		}
		for (j = 0; j < w->n_hosts; j++)
			if (w->h[j].rack == w->tor_rack[f->tor] &&
			    1 + w->h[j].idx == tor_out.pkt[k].port)
				h = &w->h[j];
		if (!h) {
			world_error(w, "frame to a dead port");
			continue;
		}
		g.host = h->rank;
		net_push(w, &g, LINK_US);
	}
}

/* ---- the world ---- */

struct topo {
	const char *name;
	int	n_racks;
	int	ina[MAX_TORS + 4];
	int	hosts[MAX_TORS + 4];
	__u32	count;
	int	loss, dup, reorder;
	__u16	elems, window;
	int	seeds;		/* runs with different seeds (faults) */
	int	rounds;		/* allreduce calls, switch state kept */
};

static int setup(struct world *w, const struct topo *t)
{
	struct rina_job_desc *job = &w->job;
	int r, k, rank = 0;

	memset(job, 0, sizeof(*job));
	job->job_id = 7;
	job->elems = t->elems;
	job->window = t->window;
	job->timeout_ms = 1000;
	job->rto_us = 1000;
	job->n_racks = (__u16)t->n_racks;
	w->n_tors = 0;
	for (k = 0; k < t->n_racks; k++) {
		job->racks[k].id = (__u16)k;
		job->racks[k].ina = (__u8)t->ina[k];
		/* the agent's rank addresses the ToR itself (librina) */
		if (t->ina[k])
			job->racks[k].tor_ip = htonl(net_tor_ip(k));
		for (r = 0; r < t->hosts[k]; r++, rank++) {
			struct host *h = &w->h[rank];

			memset(h, 0, sizeof(*h));
			h->w = w;
			h->rank = rank;
			h->rack = k;
			h->idx = r;
			h->ip = 198u << 24 | 18u << 16 | (__u32)k << 8 |
				(__u32)(10 + r);
			h->mac[0] = 2;
			h->mac[4] = (__u8)k;
			h->mac[5] = (__u8)(10 + r);
			job->ranks[rank].ip = htonl(h->ip);
			job->ranks[rank].port = htons(RINA_UDP_PORT_WORKER);
			job->ranks[rank].rack = (__u16)k;
			memcpy(job->ranks[rank].mac, h->mac, 6);
		}
		if (t->ina[k])
			w->tor_rack[w->n_tors++] = k;
	}
	w->n_hosts = rank;
	job->n_ranks = (__u16)rank;
	if (rina_job_validate(job).err != RINA_JOB_OK)
		return -1;
	rina_ring_build(job, 1, &w->ring);
	for (k = 0; k < w->n_hosts; k++) {
		struct host *h = &w->h[k];

		h->member = w->ring.member_of[k];
		h->ina = w->ring.m[h->member].ina;
		h->agent = h->ina && w->ring.m[h->member].agent == k;
		for (r = 0; r < w->n_tors; r++)
			if (w->tor_rack[r] == h->rack)
				h->tor = r;
	}
	return 0;
}

static int install(struct world *w)
{
	int i, k;
	char err[256], *buf = NULL, *line, *save;
	size_t sz = 0;

	for (i = 0; i < w->n_tors; i++) {
		struct rina_p4cfg o;
		FILE *f = open_memstream(&buf, &sz);
		int rack = w->tor_rack[i];

		rina_p4cfg_defaults(&o);
		o.rack = (unsigned int)rack;
		o.uplink = 0;
		o.l2 = 1;
		for (k = 0; k < w->n_hosts; k++)
			if (w->h[k].rack == rack)
				o.port_of[k] = 1 + w->h[k].idx;
		if (!f || rina_p4cfg_write(f, &w->job, &o, err, sizeof(err))) {
			printf("# install: %s\n", err);
			return -1;
		}
		fclose(f);
		rina_tor_init(w->tor[i]);
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (rina_tor_cli(w->tor[i], line, err, sizeof(err))) {
				printf("# cli '%s': %s\n", line, err);
				return -1;
			}
		}
		free(buf);
		buf = NULL;
		/* remote MACs to the uplink, flood group 1 */
		for (k = 0; k < w->n_hosts; k++) {
			char cmd[160];
			const __u8 *m = w->h[k].mac;

			if (w->h[k].rack == rack)
				continue;
			snprintf(cmd, sizeof(cmd),
				 "table_add RinaIngress.l2_fwd.l2_fwd "
				 "RinaIngress.l2_fwd.set_port "
				 "%02x:%02x:%02x:%02x:%02x:%02x => 0",
				 m[0], m[1], m[2], m[3], m[4], m[5]);
			if (rina_tor_cli(w->tor[i], cmd, err, sizeof(err)))
				return -1;
		}
	}
	return 0;
}

static __u64 jc(struct world *w, int tor, int id)
{
	return w->tor[tor]->job_ctr[id];
}

static __u64 jo(struct world *w, int tor, int id)
{
	return w->tor[tor]->job_out[id];
}

static void dump(struct world *w)
{
	int i, k;

	for (i = 0; i < w->n_hosts; i++)
		hosts_dump(&w->h[i]);
	for (k = 0; k < w->n_tors; k++) {
		printf("# tor %d:", k);
		for (i = 0; i < __RINA_TC_MAX; i++)
			printf(" %llu", (unsigned long long)jc(w, k, i));
		printf(" |");
		for (i = 0; i < __RINA_TO_MAX; i++)
			printf(" %llu", (unsigned long long)jo(w, k, i));
		printf("\n");
		for (i = 0; i < 2 * w->job.window; i++) {
			unsigned int r = (i / w->job.window) *
				RINA_TOR_POOL_SIZE + i % w->job.window;
			struct rina_tor *t = w->tor[k];

			printf("#   slot set %u idx %u: id %u seq %u bitmap %x "
			       "state %u\n", i / w->job.window,
			       i % w->job.window, t->slot_id[r], t->slot_seq[r],
			       t->slot_bitmap[r], t->slot_state[r]);
		}
	}
}

/*
 * Run the network until done(w) or the watchdog: the frames of one
 * instant, then the engines and agents they woke or whose timers are
 * due. Returns 0, or -1 with w->errors set.
 */
static int run_until(struct world *w, int (*done)(struct world *))
{
	__u64 t0 = w->now, t;
	unsigned long events = 0;
	int i;

	while (!w->errors && !done(w)) {
		t = w->qn ? w->q[0].t : NO_WAKE;
		for (i = 0; i < w->n_hosts; i++) {
			if (w->h[i].wake < t)
				t = w->h[i].wake;
			if (w->h[i].ag_wake < t)
				t = w->h[i].ag_wake;
		}
		if (t == NO_WAKE || t - t0 > CALL_MAX_US ||
		    events > CALL_MAX_EVENTS) {
			world_error(w, "no progress (watchdog)");
			if (getenv("TOR_RING_DEBUG"))
				dump(w);
			break;
		}
		if (t > w->now)
			w->now = t;
		while (w->qn && w->q[0].t <= w->now && !w->errors) {
			struct frame f = net_pop(w);

			events++;
			w->frames++;
			if (f.to_tor)
				tor_rx(w, &f);
			else
				hosts_rx(&w->h[f.host], f.data, f.len);
			free(f.data);
		}
		for (i = 0; i < w->n_hosts && !w->errors; i++)
			hosts_batch_end(&w->h[i]);
	}
	return w->errors ? -1 : 0;
}

/* One allreduce call. */
static int call(struct world *w, const struct topo *t, __u16 round)
{
	__u64 e;
	int i;

	memset(w->ref, 0, (t->count + 1) * sizeof(*w->ref));
	for (i = 0; i < w->n_hosts; i++)
		for (e = 0; e < t->count; e++) {
			w->h[i].in[e] = (__s32)(net_rnd(w) % 2000001) - 1000000;
			w->ref[e] += w->h[i].in[e];
		}
	w->round = round;
	for (i = 0; i < w->n_hosts && !w->errors; i++)
		hosts_start(&w->h[i], t->count);
	run_until(w, hosts_all_done);
	hosts_finish(w);
	w->slot_base += rina_sched_slots(&w->s);
	for (i = 0; !w->errors && i < w->n_hosts; i++)
		for (e = 0; e < t->count; e++)
			if (w->h[i].out[e] != (__s32)w->ref[e]) {
				snprintf(w->why, sizeof(w->why),
					 "call %u rank %d element %llu: %d, "
					 "expected %d", round, i,
					 (unsigned long long)e, w->h[i].out[e],
					 (__s32)w->ref[e]);
				w->errors++;
				break;
			}
	return w->errors ? -1 : 0;
}

static int run(const struct topo *t, struct world *w, char *diag,
	       size_t dlen, __u64 seed)
{
	struct engine_totals tot;
	__u16 round;

	w->errors = 0;
	w->frames = 0;
	if (setup(w, t)) {
		snprintf(diag, dlen, "bad topology");
		return -1;
	}
	w->loss_pct = t->loss;
	w->dup_pct = t->dup;
	w->reorder = t->reorder;
	w->rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0x2545f4914f6cdd1dULL);
	w->qn = 0;
	w->sent = 0;
	w->now = 1000000;	/* a monotonic clock is rarely at 0 */
	w->agent_copies = 0;
	w->host_relays = 0;
	memset(w->recirc_n, 0, sizeof(w->recirc_n));
	w->ref = calloc(t->count + 1, sizeof(*w->ref));
	if (!w->ref || install(w) || hosts_init(w, t->count)) {
		snprintf(diag, dlen, "setup failed");
		return -1;
	}
	w->rounds = t->rounds;
	/* the agents ask their ToRs first, as librina's and rina-sim's */
	hosts_tor_install(w);
	run_until(w, hosts_tors_on);
	w->slot_base = 65536 - w->nord;	/* the 16-bit slot wraps */
	for (round = 1; round <= t->rounds && !w->errors; round++)
		call(w, t, round);
	hosts_totals(w, &tot);
	/* the old reference hosts' "unexpected packet", faults or not */
	if (tot.malformed && !w->errors) {
		snprintf(w->why, sizeof(w->why), "the engines received %llu "
			 "packets the schedule does not send them",
			 (unsigned long long)tot.malformed);
		w->errors++;
	}
	snprintf(diag, dlen, "L %u P %u blocks %llu, %d calls, %lu frames, "
		 "%llu timeouts, %llu retransmits, %lu agent copies, "
		 "%lu relayed to their hosts",
		 w->s.L, w->s.P, (unsigned long long)w->s.nblocks, t->rounds,
		 w->frames, (unsigned long long)tot.timeouts,
		 (unsigned long long)tot.retransmits, w->agent_copies,
		 w->host_relays);
	return w->errors ? -1 : 0;
}

/*
 * Without faults, the counters follow from the schedule, each agent got
 * every allgather packet (other chunks and its own) from its ToR's
 * agent replica and relayed each to its rank's worker.
 */
static int check_counters(struct world *w, char *diag, size_t dlen)
{
	struct engine_totals tot;
	__u64 copies = 0;
	int i;

	for (i = 0; i < w->n_hosts; i++) {
		if (w->h[i].agent && w->h[i].aga_got != w->count) {
			snprintf(diag, dlen, "agent %d holds %llu of %llu "
				 "elements", i,
				 (unsigned long long)w->h[i].aga_got,
				 (unsigned long long)w->count);
			return -1;
		}
	}
	hosts_totals(w, &tot);
	if (w->host_relays != w->agent_copies ||
	    tot.host_relays != w->agent_copies ||
	    tot.tor_copies != w->agent_copies) {
		snprintf(diag, dlen, "%lu of %lu agent copies relayed to the "
			 "agent's host (the agents counted %llu), %llu taken "
			 "by the agents", w->host_relays, w->agent_copies,
			 (unsigned long long)tot.host_relays,
			 (unsigned long long)tot.tor_copies);
		return -1;
	}

	for (i = 0; i < w->n_tors; i++) {
		const struct rina_member *me = NULL;
		__u64 pk = 0, own = 0, first = 0, fwd = 0, b;
		__u32 c, p, k, L = w->s.L;

		for (k = 0; k < L; k++)
			if (w->ring.m[k].ina &&
			    w->ring.m[k].rack == w->tor_rack[i])
				me = &w->ring.m[k];
		k = (__u32)(me - w->ring.m);
		/* per call, times the calls made */
		for (b = 0; b < w->s.nblocks; b++)
			for (c = 0; c < L; c++)
				for (p = 0; p < w->s.P; p++) {
					pk++;
					if (c == rina_own_chunk(k, L))
						own++;
					if (c == k)
						first++;
					/* AG from the owner (c - 1) arrives
					 * with hop d and goes on if d + 1 < L */
					if (((k + L - (c + L - 1) % L) % L) + 1 < L &&
					    c != rina_own_chunk(k, L))
						fwd++;
				}
		pk *= (__u64)w->rounds;
		own *= (__u64)w->rounds;
		first *= (__u64)w->rounds;
		fwd *= (__u64)w->rounds;
		if (jc(w, i, RINA_TC_CONTRIB_IN) != me->n_local * pk ||
		    jc(w, i, RINA_TC_SLOT_DONE) != pk ||
		    jc(w, i, RINA_TC_PARTIAL_IN) != (L > 1 ? pk - first : 0) ||
		    jo(w, i, RINA_TO_PARTIAL_OUT) != pk - own ||
		    jo(w, i, RINA_TO_AG_OUT) != (L > 1 ? own + fwd : 0) ||
		    /* none to the agent's host (rw_host): it relays */
		    jo(w, i, RINA_TO_AG_MCAST) != (me->n_local - 1u) * pk ||
		    jo(w, i, RINA_TO_AG_AGENT) != pk ||
		    jo(w, i, RINA_TO_ACK_OUT) != (L > 1 ? pk - first : 0) ||
		    jc(w, i, RINA_TC_DUP) || jc(w, i, RINA_TC_STALE) ||
		    jc(w, i, RINA_TC_COLLISION) || jc(w, i, RINA_TC_BAD)) {
			snprintf(diag, dlen, "tor %d: contrib_in %llu (m x %llu) "
				 "done %llu partial_in %llu partial_out %llu "
				 "ag_out %llu ag_mcast %llu ag_agent %llu "
				 "ack_out %llu dup %llu stale %llu "
				 "collision %llu",
				 i, (unsigned long long)jc(w, i, RINA_TC_CONTRIB_IN),
				 (unsigned long long)pk,
				 (unsigned long long)jc(w, i, RINA_TC_SLOT_DONE),
				 (unsigned long long)jc(w, i, RINA_TC_PARTIAL_IN),
				 (unsigned long long)jo(w, i, RINA_TO_PARTIAL_OUT),
				 (unsigned long long)jo(w, i, RINA_TO_AG_OUT),
				 (unsigned long long)jo(w, i, RINA_TO_AG_MCAST),
				 (unsigned long long)jo(w, i, RINA_TO_AG_AGENT),
				 (unsigned long long)jo(w, i, RINA_TO_ACK_OUT),
				 (unsigned long long)jc(w, i, RINA_TC_DUP),
				 (unsigned long long)jc(w, i, RINA_TC_STALE),
				 (unsigned long long)jc(w, i, RINA_TC_COLLISION));
			return -1;
		}
		copies += jo(w, i, RINA_TO_AG_AGENT);
	}
	if (copies != w->agent_copies) {
		snprintf(diag, dlen, "agents took %lu copies, the ToRs sent "
			 "%llu", w->agent_copies, (unsigned long long)copies);
		return -1;
	}
	return 0;
}

static void free_world(struct world *w)
{
	while (w->qn)
		free(net_pop(w).data);
	hosts_free(w);
	free(w->ref);
	w->ref = NULL;
}

static const struct topo topos[] = {
	{ "1x1+ina3+1x1 clean", 3, { 0, 1, 0 }, { 1, 3, 1 }, 3000, 0, 0, 0, 64, 8, 1, 3 },
	{ "ina2 alone (L=1)", 1, { 1 }, { 2 }, 500, 0, 0, 0, 64, 4, 1, 3 },
	{ "ina2+1x1 (L=2), count 777", 2, { 1, 0 }, { 2, 1 }, 777, 0, 0, 0, 32, 4, 1, 3 },
	{ "ina2+ina3+2x1 two ToRs (L=4)", 3, { 1, 1, 0 }, { 2, 3, 2 }, 5000, 0, 0, 0, 64, 8, 1, 3 },
	{ "count 2 < L", 3, { 0, 1, 0 }, { 1, 3, 1 }, 2, 0, 0, 0, 64, 8, 1, 3 },
	{ "W = P + 1 = 2", 3, { 0, 1, 0 }, { 1, 2, 1 }, 2000, 0, 0, 0, 16, 2, 1, 3 },
	{ "every rack INA, 2x2 (L=2)", 2, { 1, 1 }, { 2, 2 }, 4096, 0, 0, 0, 64, 16, 1, 3 },
	/* the engines' chunks towards INA racks are W / 4 packets */
	{ "W = 32 (P = 7) two ToRs (L=4)", 3, { 1, 1, 0 }, { 2, 3, 2 }, 5000, 0, 0, 0, 64, 32, 1, 3 },
	{ "5% loss 5% dup reordered x20", 3, { 0, 1, 0 }, { 1, 3, 1 }, 3000, 5, 5, 1, 64, 8, 20, 3 },
	{ "10% loss two ToRs x20", 3, { 1, 1, 0 }, { 2, 3, 2 }, 4000, 10, 0, 1, 64, 8, 20, 3 },
	{ "10% dup reordered L=5 x10", 4, { 1, 0, 1, 0 }, { 3, 2, 2, 1 }, 2500, 0, 10, 1, 16, 8, 10, 3 },
	{ "10% loss 10% dup W=2 x10", 3, { 0, 1, 0 }, { 1, 2, 1 }, 1000, 10, 10, 1, 16, 2, 10, 3 },
	{ "10% loss every rack INA x10", 3, { 1, 1, 1 }, { 2, 2, 3 }, 3000, 10, 5, 1, 64, 8, 10, 3 },
	{ "5% loss 5% dup reordered W = 32 (P = 7) x10", 3, { 1, 0, 1 }, { 3, 1, 2 }, 6000, 5, 5, 1, 64, 32, 10, 3 },
};

int main(int argc, char **argv)
{
	unsigned int i, n = sizeof(topos) / sizeof(topos[0]);
	static struct world w;
	int k;

	if (argc == 3 && !strcmp(argv[1], "--two-pass")) {
		w.two_pass = 1;
		w.recirc_us = (unsigned int)atoi(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--two-pass US]\n", argv[0]);
		return 2;
	}

	w.q = malloc(sizeof(*w.q) * QCAP);
	for (k = 0; k < MAX_TORS; k++)
		w.tor[k] = malloc(sizeof(struct rina_tor));
	if (!w.q || !w.tor[MAX_TORS - 1])
		return 1;
	ktap_plan((int)n + w.two_pass);
	for (i = 0; i < n; i++) {
		char diag[512] = "";
		int seed, bad = 0;
		unsigned long frames = 0;

		int seeds = topos[i].seeds;

		if (seeds > 1 && getenv("TOR_RING_SEEDS"))
			seeds = atoi(getenv("TOR_RING_SEEDS"));
		for (seed = 0; seed < seeds && !bad; seed++) {
			bad = run(&topos[i], &w, diag, sizeof(diag),
				  (__u64)seed + 1);
			frames += w.frames;
			if (!bad && !topos[i].loss && !topos[i].dup)
				bad = check_counters(&w, diag, sizeof(diag));
			if (bad)
				printf("# %s, seed %d: %s\n", topos[i].name,
				       seed + 1, w.errors ? w.why : "");
			free_world(&w);
		}
		printf("# %s%s\n", diag, seeds > 1 ? " (last seed)" : "");
		ktap_result(!bad, "%s # %lu frames", topos[i].name, frames);
	}
	/* or the two passes would have been one in all but name */
	if (w.two_pass)
		ktap_result(w.overtook > 0, "AG_DATA, ACK and NACK overtook "
			    "recirculating contributions # %lu times, %lu "
			    "recirculated", w.overtook, w.recirculated);
	return ktap_finish();
}
