// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel agents: for every INA rack of a job whose agent rank's address
 * is local to the job's network namespace, a kthread owns a kernel UDP
 * socket on the agent port of that address for the life of the job and
 * runs the agent protocol of core/agent*.c on it, the same code librina's
 * agent thread runs: software aggregation, the allgather sender of
 * record with retransmission downstream, NACK repair, ACK fan-out to the
 * rack's workers, HELLO/BYE. The protocol's timers are the receive
 * timeout: the thread sleeps until a datagram comes or the core's next
 * deadline. A session ends when every party said BYE (or a worker that
 * sent data says HELLO again); the core then forgets it and the agent
 * serves the next one. Every datagram is first checked with the shared
 * rina_hdr_check() and counted per reason in the per-CPU counters.
 */
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/uio.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/inet_sock.h>
#include <net/route.h>
#include <net/sock.h>

#include "rina_kmod.h"
#include "abort.h"
#include "agent.h"
#include "trace.h"

struct rina_agent {
	struct list_head	node;		/* in job->agents */
	struct rina_net		*rn;
	u16			job_id;
	u16			rank;
	struct socket		*sock;
	struct socket		*raw;		/* relays to the ToR, or NULL */
	struct task_struct	*task;
	void			*buf;
	u64			send_errors;
	long			n_allocs;	/* core blocks held */
	/* a member of the job was lost: RINA_AGENT_ABORT_REQ | its bit */
	atomic_t		abort_req;
	u32			timeout_ms;	/* the job's */
	u16			rack;
	u8			fallback;	/* enum rina_fallback */
	/* fallback abort: 1 ABORT sent, 2 the job marked aborted too */
	u8			tor_aborted;
	unsigned long		aborted_at;	/* jiffies of that ABORT */
	unsigned long		abort_again;	/* jiffies: ABORT a sender */
	unsigned long		abort_all_again; /* ... every rank */
	unsigned long		silent_check;	/* jiffies of the next */
	struct rina_agent_addr	*ranks;		/* every rank, for ABORT */
	u16			n_ranks;
	struct rina_agent_core	core;
};

/* the largest datagram: a full payload and the job's data tag */
#define RINA_AGENT_BUF	(RINA_HDR_LEN + RINA_MAX_PAYLOAD + RINA_TAG_LEN)
#define RINA_AGENT_BATCH 64	/* datagrams between two timer checks */
#define RINA_AGENT_POLL_US 100000 /* longest sleep: stop and abort checks */
/* ABORT's result when a member is lost: librina's RINA_ERR_TIMEOUT */
#define RINA_AGENT_LOST_RESULT	5
/* ... when the ToR fails and fallback is abort: RINA_ERR_TRANSPORT */
#define RINA_AGENT_TOR_RESULT	10
/*
 * A lost ToR that answers again takes the job back once the rack has been
 * quiet this long, every slot complete (rina_agent_core_tor_may_return()):
 * three times the longest slot timer of a worker, as librina's agent.
 */
#define RINA_AGENT_TOR_RETURN_QUIET_US	300000
/* abort_req: set, with the lost local worker's bit (abort.h) below it */
#define RINA_AGENT_ABORT_REQ	(1 << 30)
#define RINA_AGENT_SILENT_CHECK	(HZ / 4)

/* ---- the host environment of the core ---------------------------- */

static void *rina_agent_zalloc(void *ctx, __u32 size)
{
	struct rina_agent *a = ctx;
	void *p = kvzalloc(size ? size : 1, GFP_KERNEL);

	if (p)
		a->n_allocs++;
	return p;
}

static void rina_agent_kfree(void *ctx, void *p)
{
	struct rina_agent *a = ctx;

	a->n_allocs--;
	kvfree(p);
}

static __u64 rina_agent_now_us(void *ctx)
{
	return div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

static void rina_agent_send(void *ctx, const struct rina_agent_addr *to,
			    const void *buf, __u32 len)
{
	struct rina_agent *a = ctx;
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_addr	= { .s_addr = to->ip },
		.sin_port	= to->port,
	};
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name	= &sin,
		.msg_namelen	= sizeof(sin),
		.msg_flags	= MSG_DONTWAIT,
	};

	if (kernel_sendmsg(a->sock, &msg, &iov, 1, len) < 0)
		a->send_errors++;	/* a loss: the protocol recovers */
}

/*
 * The agent rank's worker sends its contributions here (a datagram to
 * the host's own address never reaches the wire); while the ToR adds the
 * rack they go on to it as the worker sent them, from the worker's
 * address and port, which is how the ToR knows its workers. A raw socket
 * with the IPv4 and UDP headers built here: no UDP socket may take the
 * worker's port from librina.
 */
static void rina_agent_relay(void *ctx, const struct rina_agent_addr *to,
			     const struct rina_agent_addr *from,
			     const void *buf, __u32 len)
{
	struct rina_agent *a = ctx;
	struct iphdr iph = {
		.version	= 4,
		.ihl		= sizeof(iph) / 4,
		.tot_len	= htons(sizeof(iph) + sizeof(struct udphdr) +
					len),
		.frag_off	= htons(IP_DF),
		.ttl		= 64,
		.protocol	= IPPROTO_UDP,
		.saddr		= from->ip,
		.daddr		= to->ip,
	};	/* id and check: the kernel's (IP_HDRINCL) */
	struct udphdr uh = {
		.source	= from->port,
		.dest	= to->port,
		.len	= htons(sizeof(uh) + len),
	};
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_addr	= { .s_addr = to->ip },
	};
	struct kvec iov[3] = {
		{ .iov_base = &iph, .iov_len = sizeof(iph) },
		{ .iov_base = &uh, .iov_len = sizeof(uh) },
		{ .iov_base = (void *)buf, .iov_len = len },
	};
	struct msghdr msg = {
		.msg_name	= &sin,
		.msg_namelen	= sizeof(sin),
		.msg_flags	= MSG_DONTWAIT,
	};
	__wsum sum;

	if (!a->raw) {
		a->send_errors++;
		return;
	}
	sum = csum_partial(buf, len, csum_partial(&uh, sizeof(uh), 0));
	uh.check = csum_tcpudp_magic(iph.saddr, iph.daddr, ntohs(uh.len),
				     IPPROTO_UDP, sum);
	if (!uh.check)
		uh.check = CSUM_MANGLED_0;
	if (kernel_sendmsg(a->raw, &msg, iov, 3, sizeof(iph) + sizeof(uh) +
			   len) < 0)
		a->send_errors++;
}

/*
 * The ToR's changes are logged: an operator wants to know that a switch
 * refused a job, went away or came back.
 */
static void rina_agent_event(void *ctx, enum rina_agent_event ev, __u32 arg)
{
	struct rina_agent *a = ctx;
	__be32 tor = a->core.cfg.tor.ip;
	const char *then = a->fallback == RINA_FALLBACK_ABORT ?
			   "aborting the job (fallback 0)" :
			   "the agent aggregates the rack in software";

	trace_rina_agent(a->job_id, a->rank, ev, arg);
	if (ev == RINA_AGENT_EV_TOR_LOST && arg == RINA_AGENT_TOR_FORGOT)
		pr_warn_ratelimited("rina: job %u rack %u: the ToR %pI4 had lost the job (a probe installed it anew): %s\n",
				    a->job_id, a->rack, &tor, then);
	else if (ev == RINA_AGENT_EV_TOR_LOST)
		pr_warn_ratelimited("rina: job %u rack %u: the ToR %pI4 went silent (nothing for %u ms, %u probes unanswered): %s\n",
				    a->job_id, a->rack, &tor, arg,
				    RINA_AGENT_TOR_TRIES, then);
	else if (ev == RINA_AGENT_EV_TOR && arg != RINA_TOR_ST_OK)
		pr_warn_ratelimited("rina: job %u rack %u: the ToR %pI4 %s: %s\n",
				    a->job_id, a->rack, &tor,
				    arg == RINA_AGENT_TOR_SILENT ?
				    "did not answer TOR_INSTALL" :
				    "refused the job",
				    a->fallback == RINA_FALLBACK_ABORT ?
				    "aborting the job (fallback 0)" :
				    a->core.cfg.tor_retry &&
				    arg == RINA_AGENT_TOR_SILENT ?
				    "the agent aggregates the rack in software and asks it again every second" :
				    "the agent aggregates the rack in software");
	else if (ev == RINA_AGENT_EV_TOR && a->core.tor_returning)
		pr_info_ratelimited("rina: job %u rack %u: the ToR %pI4 is back and aggregates the rack again\n",
				    a->job_id, a->rack, &tor);
}

static __u64 rina_agent_wall_us(void *ctx)
{
	return rina_kwall_us();
}

static __u64 rina_agent_ctrl_stamp(void *ctx)
{
	return rina_kctrl_stamp();
}

/* The session this agent starts, when its rack is the ring's first. */
static __u64 rina_agent_random(void *ctx)
{
	return get_random_u64();
}

static const struct rina_agent_ops rina_agent_kops = {
	.zalloc		= rina_agent_zalloc,
	.free		= rina_agent_kfree,
	.now_us		= rina_agent_now_us,
	.send		= rina_agent_send,
	.relay		= rina_agent_relay,
	.event		= rina_agent_event,
	.mac		= rina_kmac,
	.wall_us	= rina_agent_wall_us,
	.ctrl_stamp	= rina_agent_ctrl_stamp,
	.random_u64	= rina_agent_random,
};

/* ---- the worker thread ------------------------------------------- */

static const char *const rina_agent_drop_names[] = RINA_PARSE_NAMES;

/* Shared header check and per-reason counters; true: hand to the core. */
static bool rina_agent_check(struct rina_agent *a, int len, bool trunc)
{
	const struct rina_hdr *h = a->buf;
	enum rina_parse_err err;

	err = trunc ? RINA_PARSE_OVERSIZE : rina_hdr_check(h, len);
	if (err == RINA_PARSE_OK && ntohs(h->job_id) != a->job_id)
		err = RINA_PARSE_UNKNOWN_JOB;
	if (err != RINA_PARSE_OK) {
		rina_stat_inc(a->rn, RINA_STAT_AGENT_DROP + err - 1);
		rina_dbg(a->rn, 3, "job %u agent: dropped a %d-byte packet: %s\n",
			 a->job_id, len, rina_agent_drop_names[err]);
		return false;
	}
	rina_stat_inc(a->rn, RINA_STAT_AGENT_RX);
	return true;
}

/* One datagram: > 0 handled, 0 nothing there, < 0 shut down. */
/*
 * A job its agent aborted for want of its ToR (fallback abort) runs no
 * more: a rank that starts later (on another host, whose rina.ko knows
 * nothing of it) is told so when it greets us, at most every 100 ms.
 */
static void rina_agent_aborted_rx(struct rina_agent *a,
				  const struct rina_agent_addr *from)
{
	if (time_before(jiffies, a->abort_again))
		return;
	a->abort_again = jiffies + HZ / 10;
	rina_agent_core_say_aborted(&a->core, RINA_AGENT_TOR_RESULT, from, 1);
}

/*
 * A rank that greets only downstream (librina's HELLO goes to the next
 * member) and whose socket was not up yet when the job died would wait
 * for its own timeout: say it again to every rank twice a second for the
 * job's timeout after the ABORT.
 */
static void rina_agent_aborted_tick(struct rina_agent *a)
{
	if (time_before(jiffies, a->abort_all_again) ||
	    time_after(jiffies, a->aborted_at +
		       msecs_to_jiffies(a->timeout_ms)))
		return;
	a->abort_all_again = jiffies + HZ / 2;
	rina_agent_core_say_aborted(&a->core, RINA_AGENT_TOR_RESULT,
				    a->ranks, a->n_ranks);
}

static int rina_agent_recv_one(struct rina_agent *a, bool block)
{
	struct kvec iov = { .iov_base = a->buf, .iov_len = RINA_AGENT_BUF };
	struct sockaddr_in sin = { };
	struct msghdr msg = { .msg_name = &sin, .msg_namelen = sizeof(sin) };
	struct rina_agent_addr from = { };
	int n;

	n = kernel_recvmsg(a->sock, &msg, &iov, 1, RINA_AGENT_BUF,
			   block ? 0 : MSG_DONTWAIT);
	if (n < 0)
		return 0;	/* timeout, signal, nothing queued */
	if (n == 0 && (a->sock->sk->sk_shutdown & RCV_SHUTDOWN))
		return -1;
	if (!rina_agent_check(a, n, msg.msg_flags & MSG_TRUNC))
		return 1;
	from.ip = sin.sin_addr.s_addr;
	from.port = sin.sin_port;
	if (a->tor_aborted) {
		rina_agent_aborted_rx(a, &from);
		return 1;
	}
	rina_agent_core_rx(&a->core, a->buf, n, &from);
	return 1;
}

/*
 * Tell every rank the job is dead, naming the rack's workers in silent
 * (abort.h), as librina's agent does: their errors then say who.
 */
static void rina_agent_abort(struct rina_agent *a, u32 silent)
{
	rina_agent_core_abort(&a->core,
			      rina_abort_arg(RINA_AGENT_LOST_RESULT, silent),
			      a->ranks, a->n_ranks);
	trace_rina_attach(a->job_id, a->rank, RINA_TR_AGENT_ABORT);
}

/*
 * A local worker silent while a slot waits on it (stopped, or killed on
 * a host whose rina.ko cannot see its fd close): abort naming it before
 * the others' own timeouts blame only this agent, and forget the session
 * so that the next one starts clean.
 */
static void rina_agent_silent_check(struct rina_agent *a)
{
	u32 silent;

	if (time_before(jiffies, a->silent_check))
		return;
	a->silent_check = jiffies + RINA_AGENT_SILENT_CHECK;
	silent = rina_agent_core_silent(&a->core,
					rina_agent_silent_us(a->timeout_ms));
	if (!silent)
		return;
	rina_agent_abort(a, silent);
	rina_agent_core_reset(&a->core);
}

/*
 * What the job's fallback says about the ToR: abort the job when it
 * refused, did not answer or went silent (0); otherwise aggregate in
 * software and give a lost ToR, or one that did not answer at the start,
 * the job when it answers and the rack is quiet (tor_returns). (2, the
 * plain ring, is refused at JOB_ADD.)
 */
static void rina_agent_tor_policy(struct rina_agent *a)
{
	enum rina_agent_tor st = a->core.tor_state;

	if (a->fallback == RINA_FALLBACK_ABORT) {
		if (!a->tor_aborted && (st == RINA_AGENT_TOR_LOST ||
					st == RINA_AGENT_TOR_OFF)) {
			a->tor_aborted = 1;
			a->aborted_at = jiffies;
			a->abort_all_again = jiffies + HZ / 2;
			rina_agent_core_abort(&a->core, RINA_AGENT_TOR_RESULT,
					      a->ranks, a->n_ranks);
			trace_rina_attach(a->job_id, a->rank,
					  RINA_TR_AGENT_ABORT);
		}
		/* this host's ranks, attached or to come, hear it from us */
		if (a->tor_aborted == 1 &&
		    rina_job_abort_by_agent(a->rn, a->job_id))
			a->tor_aborted = 2;
		if (a->tor_aborted)
			rina_agent_aborted_tick(a);
		return;
	}
	if (rina_agent_core_tor_may_return(&a->core,
					   RINA_AGENT_TOR_RETURN_QUIET_US))
		rina_agent_core_tor_install(&a->core);
}

static int rina_agent_fn(void *arg)
{
	struct rina_agent *a = arg;
	u64 wait_us;
	int j, req, r = 0;

	/* the rack's ToR, if it has one, aggregates from the first call */
	rina_agent_core_tor_install(&a->core);
	while (!kthread_should_stop() && r >= 0) {
		req = atomic_xchg(&a->abort_req, 0);
		if (req)
			rina_agent_abort(a, req & ~RINA_AGENT_ABORT_REQ);
		rina_agent_silent_check(a);
		rina_agent_tor_policy(a);
		wait_us = rina_agent_core_tick(&a->core);
		/* kthread_stop() and abort requests are checked then */
		if (wait_us > RINA_AGENT_POLL_US)
			wait_us = RINA_AGENT_POLL_US;
		a->sock->sk->sk_rcvtimeo = max_t(long, 1,
						 usecs_to_jiffies(wait_us));
		r = rina_agent_recv_one(a, true);
		for (j = 1; r > 0 && j < RINA_AGENT_BATCH; j++)
			r = rina_agent_recv_one(a, false);
		if (rina_agent_core_session_done(&a->core))
			rina_agent_core_reset(&a->core);
	}
	/* the ToR lets go of the job's slots (two copies, no reply) */
	rina_agent_core_tor_remove(&a->core);
	/* wait for kthread_stop() so that the task outlives no one */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* ---- life cycle ---------------------------------------------------- */

static void rina_agent_free(struct rina_agent *a)
{
	if (a->task) {
		kernel_sock_shutdown(a->sock, SHUT_RDWR);
		kthread_stop(a->task);
	}
	if (a->sock)
		sock_release(a->sock);
	if (a->raw)
		sock_release(a->raw);
	rina_agent_core_fini(&a->core);
	memzero_explicit(&a->core.cfg, sizeof(a->core.cfg));	/* its key */
	/* every block the core took is back (a WARN panics the VM tests) */
	WARN_ON(a->n_allocs);
	kvfree(a->ranks);
	kfree(a->buf);
	kvfree(a);
	rina_obj_put();
}

/* The address ring member i is reached at: its agent port if INA. */
static void rina_member_addr(const struct rina_job *job, unsigned int i,
			     struct rina_agent_addr *out)
{
	const struct rina_member *m = &job->ring.m[i];

	out->ip = job->desc.ranks[m->agent].ip;
	out->port = m->ina ? rina_rack_agent_port(&job->desc, m->rack) :
		    job->desc.ranks[m->agent].port;
	out->pad = 0;
}

/*
 * The job secret: control messages signed and checked with it, and data
 * tagged (through a ToR too: the P4 program checks the tag), or a MAC per
 * packet (auth mac), as librina's ranks do (user/lib/comm.c); the core
 * derives both from the secret and each session's number.
 */
static void rina_agent_cfg_secret(const struct rina_job *job,
				  struct rina_agent_cfg *cfg)
{
	const struct rina_job_desc *d = &job->desc;

	if (!d->has_secret)
		return;
	cfg->has_secret = 1;
	memcpy(cfg->secret, d->secret, sizeof(cfg->secret));
	cfg->tagged = 1;
	cfg->auth_mac = d->auth == RINA_JOB_AUTH_MAC;
}

/* The core's view of member i's rack (the same as librina's). */
static int rina_agent_cfg(const struct rina_job *job, unsigned int i,
			  struct rina_agent_cfg *cfg)
{
	const struct rina_ring *ring = &job->ring;
	const struct rina_member *m = &ring->m[i];
	unsigned int k;

	if (m->n_local > RINA_AGENT_MAX_LOCAL)
		return -E2BIG;
	memset(cfg, 0, sizeof(*cfg));
	cfg->job_id = job->desc.job_id;
	cfg->rank = m->agent;
	cfg->elems = job->desc.elems;
	cfg->n_local = m->n_local;
	cfg->window = job->desc.window;
	cfg->L = ring->L;
	cfg->member = i;
	cfg->rto_us = job->desc.rto_us;
	/* retransmission credit downstream, as librina's agent (cc.h) */
	rina_job_cc_params(&job->desc, job->desc.cc, &cfg->cc);
	cfg->job_hash = rina_job_hash(&job->desc);
	/* one agent per job, many sessions of its workers: multi-session */
	cfg->incarnation = get_random_u32();
	rina_agent_cfg_secret(job, cfg);
	for (k = 0; k < job->desc.n_racks; k++) {
		const struct rina_rack_desc *r = &job->desc.racks[k];

		if (r->id != m->rack || !r->tor_ip)
			continue;
		cfg->tor.ip = r->tor_ip;
		cfg->tor.port = r->tor_port ? r->tor_port :
				htons(RINA_UDP_PORT_AGENT);
	}
	/* our rank's worker cannot send to the ToR itself: relay_to_tor() */
	cfg->relay_own = 1;
	/* a ToR started after the job is asked again, as a lost one */
	cfg->tor_retry = job->fallback == RINA_FALLBACK_SOFTWARE;
	rina_member_addr(job, rina_ring_next(ring, i), &cfg->next);
	rina_member_addr(job, rina_ring_prev(ring, i), &cfg->prev);
	/* signed control messages name their destination: this socket */
	cfg->self.ip = job->desc.ranks[m->agent].ip;
	cfg->self.port = rina_rack_agent_port(&job->desc, m->rack);
	for (k = 0; k < m->n_local; k++) {
		const struct rina_rank_desc *r;

		r = &job->desc.ranks[ring->order[m->first + k]];
		cfg->local[k].ip = r->ip;
		cfg->local[k].port = r->port;
	}
	return 0;
}

static int rina_agent_start(struct rina_net *rn, struct rina_job *job,
			    unsigned int member, struct netlink_ext_ack *extack)
{
	u16 rank = job->ring.m[member].agent;
	const struct rina_rank_desc *r = &job->desc.ranks[rank];
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_addr	= { .s_addr = r->ip },
		.sin_port	= rina_rack_agent_port(&job->desc,
						       job->ring.m[member].rack),
	};
	struct rina_agent_cfg cfg;
	struct rina_agent *a;
	unsigned int i;
	int err;

	err = rina_agent_cfg(job, member, &cfg);
	if (err) {
		NL_SET_ERR_MSG(extack, "an INA rack may have at most 31 ranks");
		return err;
	}
	a = kvzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		memzero_explicit(&cfg, sizeof(cfg));
		return -ENOMEM;
	}
	rina_obj_get();
	a->rn = rn;
	a->job_id = job->desc.job_id;
	a->rank = rank;
	a->buf = kmalloc(RINA_AGENT_BUF, GFP_KERNEL);
	a->n_ranks = job->desc.n_ranks;
	a->timeout_ms = job->desc.timeout_ms;
	a->rack = job->ring.m[member].rack;
	a->fallback = job->fallback;
	a->silent_check = jiffies + RINA_AGENT_SILENT_CHECK;
	a->ranks = kvcalloc(a->n_ranks, sizeof(*a->ranks), GFP_KERNEL);
	if (!a->buf || !a->ranks ||
	    rina_agent_core_init(&a->core, &cfg, &rina_agent_kops, a)) {
		memzero_explicit(&cfg, sizeof(cfg));
		err = -ENOMEM;
		goto err_free;
	}
	memzero_explicit(&cfg, sizeof(cfg));	/* the core has its copy */
	for (i = 0; i < a->n_ranks; i++) {
		a->ranks[i].ip = job->desc.ranks[i].ip;
		a->ranks[i].port = job->desc.ranks[i].port;
	}
	err = sock_create_kern(rn->net, PF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       &a->sock);
	if (err)
		goto err_free;
	/* IPPROTO_RAW: send only, nothing is delivered to it */
	if (a->core.cfg.relay_own && a->core.cfg.tor.ip) {
		err = sock_create_kern(rn->net, PF_INET, SOCK_RAW,
				       IPPROTO_RAW, &a->raw);
		if (err)
			goto err_free;
	}
	a->sock->sk->sk_rcvtimeo = HZ;
	/* a window of full datagrams from every rank can land at once */
	sock_set_rcvbuf(a->sock->sk, 8 << 20);
	err = kernel_bind(a->sock, (struct sockaddr *)&sin, sizeof(sin));
	if (err) {
		NL_SET_ERR_MSG(extack, "the agent port of a local agent address is in use");
		goto err_free;
	}
	a->task = kthread_run(rina_agent_fn, a, "rina-agent/%u",
			      job->desc.job_id);
	if (IS_ERR(a->task)) {
		err = PTR_ERR(a->task);
		a->task = NULL;
		goto err_free;
	}
	list_add_tail(&a->node, &job->agents);
	job->n_agents++;
	trace_rina_attach(a->job_id, rank, RINA_TR_AGENT_START);
	rina_dbg(rn, 2, "job %u rank %u: agent worker started\n", a->job_id,
		 rank);
	return 0;

err_free:
	rina_agent_free(a);
	return err;
}

/* Start a worker for every INA member whose agent address is ours. */
int rina_agents_start(struct rina_net *rn, struct rina_job *job,
		      struct netlink_ext_ack *extack)
{
	const struct rina_ring *ring = &job->ring;
	unsigned int i;
	int err;

	for (i = 0; i < ring->L; i++) {
		const struct rina_member *m = &ring->m[i];

		if (!m->ina || inet_addr_type(rn->net,
					      job->desc.ranks[m->agent].ip) !=
			       RTN_LOCAL)
			continue;
		err = rina_agent_start(rn, job, i, extack);
		if (err) {
			rina_agents_stop(job);
			return err;
		}
	}
	return 0;
}

void rina_agents_stop(struct rina_job *job)
{
	struct rina_agent *a, *tmp;

	list_for_each_entry_safe(a, tmp, &job->agents, node) {
		list_del(&a->node);
		trace_rina_attach(a->job_id, a->rank, RINA_TR_AGENT_STOP);
		rina_dbg(a->rn, 2, "job %u rank %u: agent worker stopped\n",
			 a->job_id, a->rank);
		rina_agent_free(a);
	}
	job->n_agents = 0;
}

/*
 * A member of the job was lost (its fd closed without a detach): each
 * local agent tells every rank and its ring neighbours that the job is
 * dead, within RINA_AGENT_POLL_US, naming the rank when it is one of the
 * agent's own workers. Called with the namespace lock held.
 */
static void rina_agents_abort(struct rina_job *job, unsigned int lost)
{
	const struct rina_ring *ring = &job->ring;
	struct rina_agent *a;
	unsigned int i, k;

	list_for_each_entry(a, &job->agents, node) {
		int req = RINA_AGENT_ABORT_REQ;

		for (i = 0; i < ring->L; i++) {
			const struct rina_member *m = &ring->m[i];

			if (!m->ina || m->agent != a->rank)
				continue;
			for (k = 0; k < m->n_local &&
			     k < RINA_ABORT_SILENT_MAX; k++)
				if (ring->order[m->first + k] == lost)
					req |= 1 << k;
		}
		atomic_set(&a->abort_req, req);
	}
}

/*
 * The job table's events (job.c) that concern the agents: a member lost
 * (each worker sends ABORT), the job out of the table (deleted, or its
 * netns gone: its workers stop).
 */
static int rina_agents_job_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	const struct rina_job_note *n = data;

	if (action == RINA_EVENT_MEMBER_LOST)
		rina_agents_abort(n->job, n->rank);
	else if (action == RINA_JOB_UNLINKED)
		rina_agents_stop(n->job);
	return NOTIFY_DONE;
}

static struct notifier_block rina_agents_job_nb = {
	.notifier_call	= rina_agents_job_event,
	.priority	= RINA_JOB_NB_AGENTS,
};

/* Before any job exists, and after the last one went (module unload). */
int rina_agents_init(void)
{
	return rina_job_notifier_register(&rina_agents_job_nb);
}

void rina_agents_exit(void)
{
	rina_job_notifier_unregister(&rina_agents_job_nb);
}

/* Does an INA rack of the job have a ToR to drive? */
bool rina_job_has_tor(const struct rina_job_desc *d)
{
	unsigned int k;

	for (k = 0; k < d->n_racks; k++)
		if (d->racks[k].ina && d->racks[k].tor_ip)
			return true;
	return false;
}

/* Is the agent of rank's rack one of our workers (GET_PLAN's flag)? */
bool rina_agents_serve(const struct rina_job *job, u16 rank)
{
	const struct rina_member *m;
	struct rina_agent *a;

	m = &job->ring.m[job->ring.member_of[rank]];
	if (!m->ina)
		return false;
	list_for_each_entry(a, &job->agents, node)
		if (a->rank == m->agent)
			return true;
	return false;
}

/*
 * JOB_GET: a RINA_A_JOB_LOCAL_AGENT nest per local agent worker, its ToR
 * and counters. One writer (the thread): a racy snapshot is fine.
 */
static int rina_agent_nl_put(struct sk_buff *skb, const struct rina_agent *a)
{
	const struct rina_agent_counters *c = &a->core.st;
	static const struct {
		u16 attr;
		u16 off;
	} u64s[] = {
#define RINA_AGENT_NL(attr, field) \
	{ RINA_A_AGENT_##attr, offsetof(struct rina_agent_counters, field) }
		RINA_AGENT_NL(CONTRIB_IN, contrib_in),
		RINA_AGENT_NL(PARTIAL_IN, partial_in),
		RINA_AGENT_NL(SLOTS_DONE, slots_done),
		RINA_AGENT_NL(AG_OUT, ag_out),
		RINA_AGENT_NL(AG_RETRANSMITS, ag_retransmits),
		RINA_AGENT_NL(NACKS_IN, nacks_in),
		RINA_AGENT_NL(REPAIRS, repairs),
		RINA_AGENT_NL(TOR_COPIES, tor_copies),
		RINA_AGENT_NL(TOR_RELAYS, tor_relays),
		RINA_AGENT_NL(TOR_HELD, tor_held),
		RINA_AGENT_NL(TOR_PROBES, tor_probes),
		RINA_AGENT_NL(TOR_LOST, tor_lost),
		RINA_AGENT_NL(TOR_RETURNS, tor_returns),
		RINA_AGENT_NL(SESSIONS, sessions),
		RINA_AGENT_NL(ABORTS, aborts),
		RINA_AGENT_NL(MALFORMED, malformed),
		RINA_AGENT_NL(BAD_TAG, bad_tag),
		RINA_AGENT_NL(ASKS_OUT, asks_out),
		RINA_AGENT_NL(ASKS_IN, asks_in),
		RINA_AGENT_NL(GAP_NACKS, gap_nacks),
#undef RINA_AGENT_NL
	};
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, RINA_A_JOB_LOCAL_AGENT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(skb, RINA_A_AGENT_RANK, a->rank) ||
	    nla_put_u16(skb, RINA_A_AGENT_RACK, a->rack) ||
	    nla_put_u8(skb, RINA_A_AGENT_TOR, READ_ONCE(a->core.tor_state)) ||
	    nla_put_u32(skb, RINA_A_AGENT_TOR_STATUS,
			READ_ONCE(a->core.tor_status)) ||
	    nla_put_u64_64bit(skb, RINA_A_AGENT_SEND_ERRORS,
			      READ_ONCE(a->send_errors), RINA_A_AGENT_PAD))
		goto cancel;
	for (i = 0; i < ARRAY_SIZE(u64s); i++)
		if (nla_put_u64_64bit(skb, u64s[i].attr,
				      READ_ONCE(*(const u64 *)((const u8 *)c +
							       u64s[i].off)),
				      RINA_A_AGENT_PAD))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int rina_agents_nl_put(struct sk_buff *skb, const struct rina_job *job)
{
	const struct rina_agent *a;

	list_for_each_entry(a, &job->agents, node)
		if (rina_agent_nl_put(skb, a))
			return -EMSGSIZE;
	return 0;
}

/* ---- /proc/net/rina_agents: the protocol counters of each agent ---- */

static int rina_agents_show(struct seq_file *s, void *v)
{
	struct rina_net *rn = rina_pernet(seq_file_single_net(s));
	struct rina_job *job;
	struct rina_agent *a;

	mutex_lock(&rn->lock);
	list_for_each_entry(job, &rn->jobs, node) {
		list_for_each_entry(a, &job->agents, node) {
			/* one writer (the thread): a racy snapshot is fine */
			const struct rina_agent_counters *c = &a->core.st;

			seq_printf(s, "job %u rank %u contrib_in %llu partial_in %llu partial_out %llu slots_done %llu ag_in %llu ag_out %llu ag_retransmits %llu mcast_out %llu acks_out %llu ag_acks_in %llu nacks_in %llu repairs %llu reemit %llu dup %llu stale %llu collision %llu bad %llu malformed %llu foreign %llu nomem %llu sessions %llu aborts %llu send_errors %llu ctrl_forged %llu ctrl_replayed %llu bad_tag %llu tor %u tor_copies %llu tor_relays %llu tor_held %llu tor_probes %llu tor_lost %llu tor_returns %llu asks_out %llu asks_in %llu gap_nacks %llu ctrl_duplicates %llu ctrl_before_start %llu\n",
				   a->job_id, a->rank, c->contrib_in,
				   c->partial_in, c->partial_out,
				   c->slots_done, c->ag_in, c->ag_out,
				   c->ag_retransmits, c->mcast_out,
				   c->acks_out, c->ag_acks_in, c->nacks_in,
				   c->repairs, c->reemit, c->dup, c->stale,
				   c->collision, c->bad, c->malformed,
				   c->foreign, c->nomem, c->sessions,
				   c->aborts, a->send_errors,
				   c->ctrl_forged, c->ctrl_replayed,
				   c->bad_tag, a->core.tor_state,
				   c->tor_copies, c->tor_relays, c->tor_held,
				   c->tor_probes, c->tor_lost, c->tor_returns,
				   c->asks_out, c->asks_in, c->gap_nacks,
				   c->ctrl_duplicates, c->ctrl_before_start);
		}
	}
	mutex_unlock(&rn->lock);
	return 0;
}

int rina_agents_net_init(struct rina_net *rn)
{
	if (!proc_create_net_single("rina_agents", 0444, rn->net->proc_net,
				    rina_agents_show, NULL))
		return -ENOMEM;
	return 0;
}

void rina_agents_net_exit(struct rina_net *rn)
{
	remove_proc_entry("rina_agents", rn->net->proc_net);
}
