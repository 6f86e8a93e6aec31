// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina's host of the agent of an INA rack (core/agent*.c has the
 * protocol): a thread of the rack's lowest rank that owns the rack's ring
 * address (agent IP, agent port) through a transport of its own, sends
 * through rina_xmit() (so the fault knobs apply) in batches, and runs the
 * core's timers. Used when rina.ko does not run the rack's agent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rina_int.h"
#include "abort.h"
#include "wire.h"
#include "agent.h"
#include "engine_cfg.h"
#include "secret.h"

#define AGENT_SILENT_CHECK_US	50000	/* how often it looks */

struct rina_agent {
	struct rina_comm c;		/* own endpoint, neighbours, knobs */
	struct rina_agent_core core;
	pthread_t	thread;
	/* set by the rank's thread, read by the agent's: atomic, not volatile */
	atomic_int	stop, abort;
	/* the ToR aggregates: set by the thread, read by the rank's worker */
	int		tor_on;
	int		rank_busy;	/* the rank is in a call */
	bool		returning;	/* re-installing a lost ToR */
	/* the core told the session's tag (op_tag_set); the port is open */
	bool		tag_told, port_open;

	struct rina_msg	tx[RINA_BATCH];
	uint8_t		*txbuf;
	uint32_t	txbuf_len;	/* bytes per tx[] buffer */
	int		ntx;

	/*
	 * The counters, as the agent thread last copied them for
	 * rina_agent_get_stats(): the core and the transport write theirs
	 * without a lock, so only this thread reads them while it runs.
	 * A reader raises stats_asked and waits for stats_gen to move.
	 */
	pthread_mutex_t	stats_lock;
	pthread_cond_t	stats_cond;
	struct rina_agent_stats stats;	/* under stats_lock */
	uint64_t	stats_gen;	/* under stats_lock */
	bool		stats_final;	/* the thread left: stats is its last */
	atomic_int	stats_asked;
};

/* ---- the host environment of the core ---------------------------- */

static void aflush(struct rina_agent *a)
{
	if (a->ntx)
		rina_xmit(&a->c, a->tx, a->ntx);
	a->ntx = 0;
}

static void *op_zalloc(void *ctx, __u32 size)
{
	(void)ctx;
	return calloc(1, size ? size : 1);
}

static void op_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static __u64 op_now(void *ctx)
{
	(void)ctx;
	return rina_now_us();
}

static void op_send(void *ctx, const struct rina_agent_addr *to,
		    const void *buf, __u32 len)
{
	struct rina_agent *a = ctx;
	uint8_t *b;

	if (len > a->txbuf_len)
		return;		/* the core never builds these */
	if (a->ntx == RINA_BATCH)
		aflush(a);
	b = a->txbuf + (size_t)a->ntx * a->txbuf_len;
	memcpy(b, buf, len);
	a->tx[a->ntx].buf = b;
	a->tx[a->ntx].len = len;
	/* the agent's ACK frames, for byte accounting (agent_ack_tx_bytes) */
	if (rina_hdr_opcode(buf) == RINA_OP_ACK)
		a->c.st.ack_tx_bytes += len + RINA_FRAME_OVERHEAD;
	memset(&a->tx[a->ntx].addr, 0, sizeof(a->tx[a->ntx].addr));
	a->tx[a->ntx].addr.ip = to->ip;
	a->tx[a->ntx].addr.port = to->port;
	a->ntx++;
}

static int op_add_be(__s32 *acc, const __be32 *in, __u32 n)
{
	return rina_reduce->add_be(acc, in, n);
}

static void op_max_be(__s32 *acc, const __be32 *in, __u32 n)
{
	rina_reduce->max_be(acc, in, n);
}

static void op_load_be(__s32 *acc, const __be32 *in, __u32 n)
{
	rina_reduce->load_be(acc, in, n);
}

static void op_store_be(__be32 *out, const __s32 *acc, __u32 n)
{
	rina_reduce->store_be(out, acc, n);
}

static __u64 op_wall_us(void *ctx)
{
	(void)ctx;
	return rina_wall_us();
}

static __u64 op_ctrl_stamp(void *ctx)
{
	(void)ctx;
	return rina_ctrl_stamp();
}

static __u64 op_random(void *ctx)
{
	(void)ctx;
	return rina_random_u64();
}

/*
 * Where the agent rank's worker sends its contributions follows the
 * ToR (rina_agent_tor_on()): to the ToR while it aggregates, to the
 * agent port once it went silent (core/agent_tor.c, tor_lost()) and while it
 * is asked again. Both changes are said on stderr, as an operator wants
 * to know that a switch went away or came back.
 */
static void op_event(void *ctx, enum rina_agent_event ev, __u32 arg)
{
	struct rina_agent *a = ctx;
	char ip[INET_ADDRSTRLEN];
	const char *then;

	inet_ntop(AF_INET, &a->core.cfg.tor.ip, ip, sizeof(ip));
	if (ev == RINA_AGENT_EV_TOR && a->returning) {
		fprintf(stderr, "librina: rank %u: the ToR of rack %u (%s) is back: %s\n",
			a->c.rank, a->c.ring.m[a->c.member].rack, ip,
			arg == RINA_TOR_ST_OK ?
			"the job is installed on it again" :
			"it did not take the job again, software aggregation");
		a->returning = false;
	}
	if (ev == RINA_AGENT_EV_TOR)
		__atomic_store_n(&a->tor_on, arg == RINA_TOR_ST_OK,
				 __ATOMIC_RELEASE);
	if (ev != RINA_AGENT_EV_TOR_LOST)
		return;
	then = a->c.job.fallback == RINA_FALLBACK_ABORT ?
	       "aborting the job (fallback abort)" :
	       "the rack's agent aggregates in software from now on";
	if (arg == RINA_AGENT_TOR_FORGOT)
		fprintf(stderr, "librina: rank %u: the ToR of rack %u (%s) had lost the job (a probe installed it anew): %s\n",
			a->c.rank, a->c.ring.m[a->c.member].rack, ip, then);
	else
		fprintf(stderr, "librina: rank %u: the ToR of rack %u (%s) went silent (nothing for %u ms, %u probes unanswered): %s\n",
			a->c.rank, a->c.ring.m[a->c.member].rack, ip, arg,
			RINA_AGENT_TOR_TRIES, then);
	__atomic_store_n(&a->tor_on, 0, __ATOMIC_RELEASE);
}

bool rina_agent_tor_on(const struct rina_agent *a)
{
	return __atomic_load_n(&a->tor_on, __ATOMIC_ACQUIRE);
}

void rina_agent_rank_busy(struct rina_agent *a, bool busy)
{
	__atomic_store_n(&a->rank_busy, busy, __ATOMIC_RELEASE);
}

/*
 * A lost ToR that answers again gets the job back when the rack is
 * quiet and this rank is between calls (core/agent_tor.c,
 * rina_agent_core_tor_may_return()): three times the longest
 * contribution timer without data, so that no worker still has one to
 * resend into a slot the ToR would not know.
 */
#define AGENT_TOR_RETURN_QUIET_US	(3 * RINA_RTO_SLOT_MAX_US)

static void agent_tor_return(struct rina_agent *a)
{
	if (__atomic_load_n(&a->rank_busy, __ATOMIC_ACQUIRE) ||
	    !rina_agent_core_tor_may_return(&a->core,
					    AGENT_TOR_RETURN_QUIET_US))
		return;
	a->returning = true;
	rina_agent_core_tor_install(&a->core);
	aflush(a);
}

/*
 * Forgeries to the agent port dropped before its socket (issue 49). The
 * ring's first member draws its session in rina_agent_core_init(),
 * before the port is open: told then, the filter waits for the port.
 */
static void agent_filter(struct rina_agent *a)
{
	if (a->tag_told && a->port_open && a->c.tp->ops->rx_tag_filter)
		a->c.tp->ops->rx_tag_filter(a->c.tp, a->core.cfg.job_id,
					    a->core.tag);
}

static void op_tag_set(void *ctx, __u16 job_id, const __u8 tag[RINA_TAG_LEN])
{
	struct rina_agent *a = ctx;

	(void)job_id;	/* the core's, as the tag */
	(void)tag;
	a->tag_told = true;
	agent_filter(a);
}

static const struct rina_agent_ops agent_ops = {
	.zalloc		= op_zalloc,
	.free		= op_free,
	.now_us		= op_now,
	.send		= op_send,
	.add_be		= op_add_be,
	.max_be		= op_max_be,
	.load_be	= op_load_be,
	.store_be	= op_store_be,
	.mac		= rina_siphash24,
	.wall_us	= op_wall_us,
	.ctrl_stamp	= op_ctrl_stamp,
	.random_u64	= op_random,
	.event		= op_event,
	.tag_set	= op_tag_set,
};

static void to_core_addr(struct rina_agent_addr *o, const struct rina_addr *a)
{
	memset(o, 0, sizeof(*o));
	o->ip = a->ip;
	o->port = a->port;
}

/* Read the counters: only by the thread that runs the core. */
static void agent_stats_fill(const struct rina_agent *a,
			     struct rina_agent_stats *st)
{
	const struct rina_agent_counters *s = &a->core.st;
	struct rina_transport_stats ts = { 0 };

	st->contrib_in = s->contrib_in;
	st->partial_in = s->partial_in;
	st->partial_out = s->partial_out;
	st->slots_done = s->slots_done;
	st->ag_in = s->ag_in;
	st->ag_out = s->ag_out;
	st->ag_retransmits = s->ag_retransmits;
	st->mcast_out = s->mcast_out;
	st->acks_out = s->acks_out;
	st->ag_acks_in = s->ag_acks_in;
	st->nacks_in = s->nacks_in;
	st->repairs = s->repairs;
	st->reemit = s->reemit;
	st->dup = s->dup;
	st->stale = s->stale;
	st->collision = s->collision;
	st->bad = s->bad;
	st->malformed = s->malformed;
	st->foreign = s->foreign;
	st->tor_copies = s->tor_copies;
	st->host_relays = s->host_relays;
	st->ctrl_forged = s->ctrl_forged;
	st->ctrl_replayed = s->ctrl_replayed;
	st->ctrl_duplicates = s->ctrl_duplicates;
	st->ctrl_before_start = s->ctrl_before_start;
	st->bad_tag = s->bad_tag;
	st->far_round = s->far_round;
	st->ack_tx_bytes = a->c.st.ack_tx_bytes;
	st->asks_out = s->asks_out;
	st->asks_in = s->asks_in;
	st->gap_nacks = s->gap_nacks;
	st->retx_tx_bytes = a->c.st.retx_tx_bytes;
	a->c.tp->ops->get_stats(a->c.tp, &ts);
	st->tx_refused_bytes = ts.tx_error_bytes;
	st->rx_kernel_drops = ts.rx_kernel_drops;
	st->tor_state = a->core.tor_state;
	st->tor_status = a->core.tor_status;
}

/* Copy the counters for rina_agent_get_stats() when it asks, or last. */
static void agent_stats_publish(struct rina_agent *a, bool last)
{
	struct rina_agent_stats st;

	if (!last && !atomic_load(&a->stats_asked))
		return;
	agent_stats_fill(a, &st);
	pthread_mutex_lock(&a->stats_lock);
	atomic_store(&a->stats_asked, 0);
	a->stats = st;
	a->stats_gen++;
	a->stats_final = last;
	pthread_cond_broadcast(&a->stats_cond);
	pthread_mutex_unlock(&a->stats_lock);
}

/* ---- the thread --------------------------------------------------- */

/*
 * Run the core's timers, then feed it what arrives within its wait.
 * Returns how many messages arrived.
 */
static int agent_step(struct rina_agent *a)
{
	struct rina_msg msgs[RINA_BATCH];
	uint64_t wait;
	int n, j;

	wait = rina_agent_core_tick(&a->core);
	aflush(a);
	if (wait > 5000)
		wait = 5000;
	n = a->c.tp->ops->recv(a->c.tp, msgs, RINA_BATCH,
			       (int)((wait + 999) / 1000));
	for (j = 0; j < n; j++) {
		struct rina_agent_addr from;

		a->c.st.rx_packets++;
		to_core_addr(&from, &msgs[j].addr);
		rina_agent_core_rx(&a->core, msgs[j].buf, msgs[j].len, &from);
	}
	aflush(a);
	return n > 0 ? n : 0;
}

/* ABORT with "arg" (core/abort.h) to every rank and both neighbours. */
static void agent_abort_job(struct rina_agent *a, uint32_t arg)
{
	struct rina_agent_addr to[RINA_MAX_RANKS];
	uint32_t r;

	for (r = 0; r < a->c.N && r < RINA_MAX_RANKS; r++) {
		memset(&to[r], 0, sizeof(to[r]));
		to[r].ip = a->c.job.ranks[r].ip;
		to[r].port = a->c.job.ranks[r].port;
	}
	rina_agent_core_abort(&a->core, arg, to, r);
	aflush(a);
}

/*
 * A local worker that went silent (killed, stopped) while the rack waits
 * on it: abort the job for every rank, naming it, before their own
 * timeouts would blame only the rack's agent. Returns true if it did.
 */
static bool agent_silent_abort(struct rina_agent *a)
{
	uint32_t silent;

	silent = rina_agent_core_silent(&a->core,
					rina_agent_silent_us(a->c.timeout_ms));
	if (!silent)
		return false;
	agent_abort_job(a, rina_abort_arg(RINA_ERR_TIMEOUT, silent));
	return true;
}

static void *agent_main(void *arg)
{
	struct rina_agent *a = arg;
	uint64_t stop_at = 0, last_rx = 0, done_at = 0, checked = 0, now;

	for (;;) {
		now = rina_now_us();
		if (a->abort)
			break;
		if (now - checked >= AGENT_SILENT_CHECK_US) {
			checked = now;
			if (agent_silent_abort(a))
				break;
			if (!a->stop)
				agent_tor_return(a);
		}
		/*
		 * This rank is done, but the rack's other workers may still
		 * be in the last call and need the agent to re-emit a
		 * result (it holds the only copy): stay until the rack's
		 * workers and the upstream member are done with us and
		 * downstream heard BYE (then a time-wait for BYEs whose
		 * BYE_ACK was lost), or rina_linger_over().
		 */
		if (a->stop && !stop_at) {
			stop_at = last_rx = now;
			rina_agent_core_leave(&a->core);
		}
		if (a->stop && rina_agent_core_session_done(&a->core)) {
			if (!done_at)
				done_at = now;
			if (now - done_at > RINA_LINGER_TIMEWAIT_US)
				break;
		} else if (a->stop && rina_linger_over(a->c.timeout_ms,
							stop_at, last_rx,
							now)) {
			break;
		}
		if (agent_step(a))
			last_rx = rina_now_us();
		agent_stats_publish(a, false);
		if (a->core.tor_state == RINA_AGENT_TOR_LOST &&
		    a->c.job.fallback == RINA_FALLBACK_ABORT) {
			/* the ranks fail with "transport unavailable" */
			agent_abort_job(a, RINA_ERR_TRANSPORT);
			break;
		}
	}
	rina_agent_core_tor_remove(&a->core);
	aflush(a);
	agent_stats_publish(a, true);
	return NULL;
}

/*
 * Install the job on the rack's ToR before the first call, so that this
 * rank's worker knows where its contributions go: to the ToR's address
 * when it aggregates (a datagram to our own address would never leave
 * the host), to the agent port when the rack aggregates in software (no
 * ToR address, RINA_NO_TOR=1, refused, or no answer).
 */
static int agent_tor_install(struct rina_agent *a, struct rina_comm *c)
{
	const char *no = getenv("RINA_NO_TOR");
	uint64_t start = rina_now_us();
	char ip[INET_ADDRSTRLEN];

	if (no && *no && strcmp(no, "0"))
		return RINA_OK;
	/* sent once upstream's HELLO told the session (core/agent_tor.c) */
	rina_agent_core_tor_install(&a->core);
	while (a->core.tor_state == RINA_AGENT_TOR_WAIT) {
		if (!a->core.session &&
		    rina_now_us() - start > (uint64_t)c->timeout_ms * 1000)
			return rina_fail(RINA_ERR_TIMEOUT,
					 "agent of rack %u: upstream (rank %d) did not greet within %u ms%s",
					 c->ring.m[c->member].rack,
					 c->ring.m[rina_ring_prev(&c->ring,
								  c->member)].agent,
					 c->timeout_ms,
					 a->core.st.ctrl_forged ?
					 "; control messages that failed authentication came: do all ranks have the job's secret?" :
					 "");
		agent_step(a);
	}
	if (a->core.tor_state == RINA_AGENT_TOR_OFF &&
	    c->job.fallback == RINA_FALLBACK_ABORT) {
		/* the others fail at once, not at their timeouts */
		agent_abort_job(a, RINA_ERR_TRANSPORT);
		inet_ntop(AF_INET, &a->core.cfg.tor.ip, ip, sizeof(ip));
		if (a->core.tor_status == RINA_AGENT_TOR_SILENT)
			return rina_fail(RINA_ERR_TRANSPORT,
					 "the ToR of rack %u (%s) did not answer TOR_INSTALL (%u tries) and the job says fallback abort",
					 c->ring.m[c->member].rack, ip,
					 RINA_AGENT_TOR_TRIES);
		return rina_fail(RINA_ERR_TRANSPORT,
				 "the ToR of rack %u (%s) refused the job (status %u) and the job says fallback abort",
				 c->ring.m[c->member].rack, ip,
				 a->core.tor_status);
	}
	/*
	 * A ToR that refused stays refused; one that did not answer may
	 * take the job later (cfg.tor_retry), and the worker then follows
	 * rina_agent_tor_on() to it.
	 */
	if (a->core.tor_state != RINA_AGENT_TOR_ON &&
	    !rina_agent_core_tor_unheard(&a->core))
		return RINA_OK;
	c->tor_to.ip = a->core.cfg.tor.ip;
	c->tor_to.port = htons(RINA_UDP_PORT_AGENT);
	memset(c->tor_to.mac, 0, sizeof(c->tor_to.mac));
	if (a->core.tor_state != RINA_AGENT_TOR_ON)
		return RINA_OK;
	c->contrib_to = c->tor_to;
	a->tor_on = 1;
	return RINA_OK;
}

/* The core's view of this rack, from librina's ring. */
static void rina_agent_cfg_fill(const struct rina_comm *c,
				struct rina_agent_cfg *cfg)
{
	const struct rina_member *mb = &c->ring.m[c->member];
	const struct rina_rack_desc *rack;
	uint32_t k;

	/* the job's rules as rina-sim derives them (core/engine_cfg.h) */
	rina_agent_cfg_job(cfg, &c->job, &c->ring, (__u16)c->rank,
			   &c->cc_params);
	/* one communicator's agent: one session, its own incarnation */
	cfg->incarnation = c->incarnation ^ 0x5a5a5a5a;
	cfg->single_session = 1;
	to_core_addr(&cfg->next, &c->member_next);
	to_core_addr(&cfg->prev, &c->member_prev);
	cfg->self.ip = c->job.ranks[c->rank].ip;
	cfg->self.port = rina_rack_agent_port(&c->job, mb->rack);
	cfg->has_secret = c->job.has_secret;
	memcpy(cfg->secret, c->job.secret, sizeof(cfg->secret));
	cfg->tagged = c->tagged;
	cfg->auth_mac = c->auth_mac;
	rack = rina_job_rack(&c->job, mb->rack);
	if (rack && rack->tor_ip) {
		cfg->tor.ip = rack->tor_ip;
		cfg->tor.port = rack->tor_port ? rack->tor_port :
				htons(RINA_UDP_PORT_AGENT);
	}
	/* a ToR that starts after us is asked again, as a lost one */
	cfg->tor_retry = c->job.fallback == RINA_FALLBACK_SOFTWARE;
	for (k = 0; k < mb->n_local && k < RINA_AGENT_MAX_LOCAL; k++) {
		int r = c->ring.order[mb->first + k];

		cfg->local[k].ip = c->job.ranks[r].ip;
		cfg->local[k].port = c->job.ranks[r].port;
	}
}

int rina_agent_start(struct rina_comm *c, struct rina_agent **out)
{
	const struct rina_member *mb = &c->ring.m[c->member];
	struct rina_transport_cfg tc = { 0 };
	struct rina_agent_cfg cfg;
	struct rina_agent *a;
	int ret;

	if (mb->n_local > RINA_AGENT_MAX_LOCAL)
		return rina_fail(RINA_ERR_INVALID,
				 "an INA rack may have at most %u ranks (rack %u has %u)",
				 RINA_AGENT_MAX_LOCAL, mb->rack, mb->n_local);
	a = calloc(1, sizeof(*a));
	if (!a)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	a->c = *c;	/* job, ring, neighbours; own endpoint and counters */
	memset(&a->c.st, 0, sizeof(a->c.st));
	memset(a->c.stash, 0, sizeof(a->c.stash));
	a->c.nstash = 0;
	a->c.work = NULL;
	a->c.txbuf = NULL;
	a->c.rng ^= 0x5bd1e995;
	a->c.ctrl_guard = NULL;	/* the core checks the agent's own */
	a->c.tagged = false;	/* ... and tags its datagrams itself */
	a->c.auth_mac = false;
	a->c.self.port = rina_rack_agent_port(&c->job, mb->rack);
	a->c.next = c->member_next;
	a->c.prev = c->member_prev;
	/* ACKs fanned out may carry up to RINA_MAX_ELEMS sequence numbers */
	a->txbuf_len = RINA_HDR_LEN + RINA_MAX_PAYLOAD + RINA_TAG_LEN;
	a->txbuf = malloc((size_t)RINA_BATCH * a->txbuf_len);
	rina_agent_cfg_fill(c, &cfg);
	ret = !a->txbuf || rina_agent_core_init(&a->core, &cfg, &agent_ops, a);
	explicit_bzero(&cfg, sizeof(cfg));	/* the core holds its copy */
	if (ret) {
		ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
		goto err_free;
	}
	tc.local = a->c.self;
	tc.max_msg_len = a->txbuf_len;
	tc.window = c->job.window;
	tc.rcvbuf = 32 << 20;
	tc.ecn = !!(c->cc_params.flags & RINA_CC_F_ECN);
	/*
	 * The agent port goes up the kernel stack (the XDP program passes
	 * it): AF_XDP is for worker ports, so "auto" and "xdp" mean UDP here.
	 */
	if (rina_transport_open(strcmp(c->tp->ops->name, "inproc") ? "udp" :
				"inproc", &tc, &a->c.tp)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", rina_last_error());
		ret = rina_fail(RINA_ERR_TRANSPORT, "agent of rack %u: %s",
				mb->rack, why);
		goto err_core;
	}
	a->port_open = true;
	agent_filter(a);
	ret = agent_tor_install(a, c);
	if (ret)
		goto err_tp;
	pthread_mutex_init(&a->stats_lock, NULL);
	pthread_cond_init(&a->stats_cond, NULL);
	ret = pthread_create(&a->thread, NULL, agent_main, a);
	if (ret) {
		ret = rina_fail(RINA_ERR_SYSTEM, "agent thread: %s",
				strerror(ret));
		goto err_lock;
	}
	*out = a;
	return RINA_OK;
err_lock:
	pthread_cond_destroy(&a->stats_cond);
	pthread_mutex_destroy(&a->stats_lock);
err_tp:
	a->c.tp->ops->destroy(a->c.tp);
err_core:
	rina_agent_core_fini(&a->core);
err_free:
	free(a->txbuf);
	explicit_bzero(a->c.job.secret, sizeof(a->c.job.secret));
	explicit_bzero(a->c.mac_key, sizeof(a->c.mac_key));
	free(a);
	return ret;
}

void rina_agent_stop(struct rina_agent *a, bool linger)
{
	if (!a)
		return;
	if (!linger)
		a->abort = 1;
	a->stop = 1;
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->stats_cond);
	pthread_mutex_destroy(&a->stats_lock);
	a->c.tp->ops->destroy(a->c.tp);
	rina_agent_core_fini(&a->core);
	free(a->txbuf);
	explicit_bzero(a->c.job.secret, sizeof(a->c.job.secret));
	explicit_bzero(a->c.mac_key, sizeof(a->c.mac_key));
	free(a);
}

_Static_assert((int)RINA_AGENT_TOR_NONE == (int)RINA_TOR_NONE &&
	       (int)RINA_AGENT_TOR_WAIT == (int)RINA_TOR_ASKING &&
	       (int)RINA_AGENT_TOR_ON == (int)RINA_TOR_ON &&
	       (int)RINA_AGENT_TOR_OFF == (int)RINA_TOR_OFF &&
	       (int)RINA_AGENT_TOR_LOST == (int)RINA_TOR_LOST,
	       "rina_stats.agent_tor is the core's enum rina_agent_tor");

/*
 * Ask the agent thread for its counters and wait for them: it answers at
 * its next turn, within the core's longest wait (agent_step(), 5 ms).
 * Not for a timed path; rina_comm_get_stats() is called between calls.
 */
void rina_agent_get_stats(struct rina_agent *a, struct rina_agent_stats *st)
{
	struct timespec until;
	uint64_t gen;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&a->stats_lock);
	gen = a->stats_gen;
	if (!a->stats_final)
		atomic_store(&a->stats_asked, 1);
	while (!a->stats_final && a->stats_gen == gen &&
	       pthread_cond_timedwait(&a->stats_cond, &a->stats_lock,
				      &until) != ETIMEDOUT)
		;
	*st = a->stats;
	pthread_mutex_unlock(&a->stats_lock);
}
