// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Communicator life cycle: parse and check the job, find this rank's
 * place in the ring, open the transport, shake hands with the
 * neighbours; its counters. Calls go through allreduce.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "rina_int.h"
#include "engine_cfg.h"
#include "jobfile.h"
#include "sysctl_dflt.h"
#include "secret.h"
#include "schedule.h"

static int open_transport(struct rina_comm *c, const char *want)
{
	struct rina_transport_cfg tc = {
		.local = c->self,
		.max_msg_len = c->max_msg,
		.window = c->job.window,
		/* a full window can land at once; skbs take ~2x the bytes */
		.rcvbuf = c->job.window * c->max_msg * 4 > (8 << 20) ?
			  c->job.window * c->max_msg * 4 : (8 << 20),
		.ecn = !!(c->cc_params.flags & RINA_CC_F_ECN),
	};

	return rina_transport_open(want, &tc, &c->tp);
}

/*
 * Our own port could not be opened (held by another process, say): tell
 * the other ranks from any port of ours, so that they do not wait for
 * their timeout. Best effort; the error message stays the first one.
 */
static void abort_unbound(struct rina_comm *c, const char *want, int result)
{
	char saved[512];
	uint16_t port = c->self.port;

	if (want && !strcmp(want, "inproc"))
		return;
	snprintf(saved, sizeof(saved), "%s", rina_last_error());
	c->self.port = 0;	/* any free port */
	if (!open_transport(c, "udp")) {
		rina_session_abort_init(c, result);
		c->tp->ops->destroy(c->tp);
	}
	c->tp = NULL;
	c->self.port = port;
	rina_fail(result, "%s", saved);
}

/* The address a ring member is reached at: its agent's port if INA. */
static void member_addr(const struct rina_comm *c, unsigned int member,
			struct rina_addr *a)
{
	const struct rina_member *m = &c->ring.m[member];

	memset(a, 0, sizeof(*a));
	a->ip = c->job.ranks[m->agent].ip;
	a->port = m->ina ? rina_rack_agent_port(&c->job, m->rack) :
		  c->job.ranks[m->agent].port;
	if (!m->ina)
		memcpy(a->mac, c->job.ranks[m->agent].mac, 6);
}

/*
 * A worker on its agent's host, in another process: its contributions
 * go to its ToR's address while the agent says the ToR aggregates
 * (ina_worker.c, contrib_dest()). The agent's rank learns the address
 * from its agent (agent_thread.c).
 */
static void host_worker_tor(struct rina_comm *c, const struct rina_member *me)
{
	const struct rina_rack_desc *r = rina_job_rack(&c->job, me->rack);

	if (me->agent == c->rank || !r || !r->tor_ip ||
	    c->job.ranks[me->agent].ip != c->job.ranks[c->rank].ip)
		return;
	c->tor_to.ip = r->tor_ip;
	c->tor_to.port = htons(RINA_UDP_PORT_AGENT);
}

static void place_in_ring(struct rina_comm *c, bool use_ina)
{
	const struct rina_member *me;

	rina_ring_build(&c->job, use_ina, &c->ring);
	c->N = c->job.n_ranks;
	c->L = c->ring.L;
	c->member = c->ring.member_of[c->rank];
	rina_ring_contrib_before(&c->ring, c->contrib_before);
	me = &c->ring.m[c->member];
	member_addr(c, rina_ring_next(&c->ring, c->member), &c->member_next);
	member_addr(c, rina_ring_prev(&c->ring, c->member), &c->member_prev);
	c->next_rank = c->ring.m[rina_ring_next(&c->ring, c->member)].agent;
	c->prev_rank = c->ring.m[rina_ring_prev(&c->ring, c->member)].agent;
	c->ina_local = me->ina;
	c->pad = rina_ring_has_ina(&c->ring);
	if (c->ina_local) {
		/* everything goes through the rack's ToR / agent */
		member_addr(c, c->member, &c->next);
		c->prev = c->next;
		c->contrib_to = c->next;	/* the ToR's once installed */
		c->next_rank = c->prev_rank = me->agent;
		host_worker_tor(c, me);
	} else {
		c->next = c->member_next;
		c->prev = c->member_prev;
	}
	c->self.ip = c->job.ranks[c->rank].ip;
	c->self.port = c->job.ranks[c->rank].port;
}

/* The first struct rina_config (up to flags); later fields are optional. */
#define RINA_CONFIG_SIZE_V1	(offsetof(struct rina_config, flags) + 4)

/*
 * The congestion controller's knobs: the job's cc_* directives over the
 * defaults; RINA_CC (off, all, or loss,delay,ecn) overrides the job's
 * signals for this rank, for comparisons.
 */
static int cc_setup(struct rina_comm *c)
{
	struct rina_cc_params *p = &c->cc_params;
	const struct rina_job_desc *j = &c->job;
	const char *env = getenv("RINA_CC");
	unsigned int cc = j->cc;

	if (env && *env) {
		__u16 v;

		if (rina_jobfile_cc(env, &v))
			return rina_fail(RINA_ERR_INVALID,
					 "RINA_CC=%s: expected off, all, or signals from loss,delay,ecn",
					 env);
		cc = v;
	}
	rina_job_cc_params(j, (__u16)cc, p);
	rina_path_init(&c->to_next, &c->cc_params);
	rina_path_init(&c->to_agg, &c->cc_params);
	return RINA_OK;
}

/*
 * The job secret: the job file's secret_file, or RINA_SECRET_FILE (which
 * wins, so that a launcher can hand each job its own without rewriting
 * a shared job file). With one, control messages are signed and only
 * signed ones are taken (session.c).
 */
static int secret_setup(struct rina_comm *c)
{
	const char *path = getenv("RINA_SECRET_FILE");
	char err[512];

	if (path && *path) {
		if (rina_secret_load(path, c->job.secret, err, sizeof(err)))
			return rina_fail(RINA_ERR_INVALID, "RINA_SECRET_FILE: %s",
					 err);
		c->job.has_secret = 1;
	}
	if (!c->job.has_secret) {
		if (c->job.auth == RINA_JOB_AUTH_MAC)
			return rina_fail(RINA_ERR_INVALID,
					 "auth mac needs the job secret (secret_file or RINA_SECRET_FILE)");
		return RINA_OK;
	}
	c->ctrl_guard = malloc(sizeof(*c->ctrl_guard));
	if (!c->ctrl_guard)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	/* nothing signed before this communicator existed is for it */
	rina_ctrl_guard_init(c->ctrl_guard, rina_wall_us());
	/*
	 * Data is tagged, through a ToR too: the P4 program checks the tag
	 * of what it adds and tags what it emits (p4/tag_check.p4).
	 */
	c->tagged = true;
	c->auth_mac = c->job.auth == RINA_JOB_AUTH_MAC;
	/* the session's tag and key once HELLO told it (session.c) */
	rina_session_set(c, 0);
	return RINA_OK;
}

static uint32_t config_rx_drop_ppm(const struct rina_config *cfg)
{
	return cfg->size >= offsetof(struct rina_config, rx_drop_ppm) + 4 ?
	       cfg->rx_drop_ppm : 0;
}

/*
 * The reduction kernels, chosen once per process (RINA_REDUCE read at the
 * first init): rina_reduce is read by every communicator's threads, and
 * choosing again at each init wrote it while other ranks' threads of the
 * same process read it (a data race ThreadSanitizer reports).
 */
static pthread_once_t reduce_once = PTHREAD_ONCE_INIT;

static void reduce_select_env(void)
{
	rina_reduce_select(getenv("RINA_REDUCE"));
}

int rina_comm_init(rina_comm_t **out, const struct rina_config *cfg)
{
	struct rina_comm *c;
	char err[512];
	int ret;

	if (!out)
		return rina_fail(RINA_ERR_INVALID, "comm pointer is NULL");
	*out = NULL;
	if (!cfg || cfg->magic != RINA_CONFIG_MAGIC ||
	    cfg->size < RINA_CONFIG_SIZE_V1 ||
	    cfg->version != RINA_API_VERSION)
		return rina_fail(RINA_ERR_INVALID,
				 "config not initialised with RINA_CONFIG_INIT (or built against another librina)");
	if (cfg->flags)
		return rina_fail(RINA_ERR_INVALID, "unknown config flags 0x%x",
				 cfg->flags);
	if (!cfg->job_file == !cfg->job_text)
		return rina_fail(RINA_ERR_INVALID,
				 "give exactly one of job_file and job_text");
	if (cfg->drop_ppm > 1000000 || cfg->dup_ppm > 1000000 ||
	    config_rx_drop_ppm(cfg) > 1000000)
		return rina_fail(RINA_ERR_INVALID,
				 "fault rates are per million (0..1000000)");
	c = calloc(1, sizeof(*c));
	if (!c)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	c->dead_peer = -1;
	/* what the job leaves out comes from rina.ko's net.rina.*, if loaded */
	if (cfg->job_file)
		ret = rina_jobfile_parse_host(cfg->job_file, NULL, NULL,
					      &c->job, err, sizeof(err));
	else
		ret = rina_jobfile_parse_host("job_text", cfg->job_text, NULL,
					      &c->job, err, sizeof(err));
	if (ret) {
		ret = rina_fail(RINA_ERR_JOBFILE, "%s", err);
		goto err_free;
	}
	ret = secret_setup(c);
	if (ret)
		goto err_free;
	if (cfg->rank < 0 || cfg->rank >= c->job.n_ranks) {
		ret = rina_fail(RINA_ERR_INVALID,
				"rank %d is not in the job (ranks 0..%u)",
				cfg->rank, c->job.n_ranks - 1);
		goto err_free;
	}
	c->rank = cfg->rank;
	c->job_hash = rina_job_hash(&c->job);
	c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : c->job.timeout_ms;
	c->rto_us = c->job.rto_us;
	c->ctrl_rx = rina_session_ctrl_rx;
	c->events = rina_session_events;
	ret = cc_setup(c);
	if (ret)
		goto err_free;
	c->drop_ppm = cfg->drop_ppm;
	c->dup_ppm = cfg->dup_ppm;
	c->rx_drop_ppm = config_rx_drop_ppm(cfg);
	c->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(c->rank + 1) ^
		 rina_now_us();
	/* tells this communicator's HELLOs from its predecessor's */
	if (getrandom(&c->incarnation, sizeof(c->incarnation), 0) !=
	    sizeof(c->incarnation))
		c->incarnation = (uint32_t)(c->rng >> 17);
	c->max_msg = RINA_HDR_LEN + (uint32_t)c->job.elems * 4 +
		     (c->tagged || c->auth_mac ? RINA_TAG_LEN : 0);
	if (c->max_msg < sizeof(struct rina_ctrl_msg))
		c->max_msg = sizeof(struct rina_ctrl_msg);
	/* RINA_NO_INA=1: INA racks run as plain racks (for comparisons) */
	place_in_ring(c, !(getenv("RINA_NO_INA") &&
			   strcmp(getenv("RINA_NO_INA"), "0")));
	c->txbuf = malloc((size_t)RINA_BATCH * c->max_msg);
	if (!c->txbuf) {
		ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
		goto err_free;
	}
	pthread_once(&reduce_once, reduce_select_env);
	ret = open_transport(c, cfg->transport);
	if (ret) {
		abort_unbound(c, cfg->transport, ret);
		goto err_free;
	}
	ret = rina_kernel_attach(c);
	if (ret)
		goto err_tp;
	if (c->ina_local && c->ring.m[c->member].agent == c->rank &&
	    !c->kernel_agent) {
		ret = rina_agent_start(c, &c->agent);
		if (ret)
			goto err_tp;
	}
	ret = rina_session_hello(c);
	if (ret)
		goto err_agent;
	c->session = RINA_SESSION_OPEN;
	*out = c;
	return RINA_OK;

err_agent:
	rina_agent_stop(c->agent, false);
err_tp:
	/*
	 * The others would wait for us until their timeout: tell them now,
	 * unless they told us (or disagree with us about the job anyway).
	 */
	if (ret != RINA_ERR_ABORTED && ret != RINA_ERR_MISMATCH)
		rina_session_abort_init(c, ret);
	rina_kernel_detach(c);
	c->tp->ops->destroy(c->tp);
err_free:
	free(c->txbuf);
	free(c->ctrl_guard);
	explicit_bzero(c->job.secret, sizeof(c->job.secret));
	explicit_bzero(c->mac_key, sizeof(c->mac_key));
	free(c);
	return ret;
}

static int env_uint(const char *name, uint32_t *v, unsigned long max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long x;

	if (!s)
		return 0;
	errno = 0;
	x = strtoul(s, &end, 10);
	/* strtoul takes "", blanks and a sign: "-1" would be 4294967295 */
	if (!*s || *s < '0' || *s > '9' || errno || *end || x > max)
		return rina_fail(RINA_ERR_INVALID,
				 "%s=\"%s\" is not a number in 0..%lu", name, s,
				 max);
	*v = (uint32_t)x;
	return 0;
}

int rina_comm_init_env(rina_comm_t **comm)
{
	struct rina_config cfg = RINA_CONFIG_INIT;
	uint32_t rank = UINT32_MAX;
	int ret;

	if (comm)
		*comm = NULL;
	cfg.job_file = getenv("RINA_JOB");
	if (!cfg.job_file || !*cfg.job_file)
		return rina_fail(RINA_ERR_INVALID, "RINA_JOB is not set");
	if (!getenv("RINA_RANK"))
		return rina_fail(RINA_ERR_INVALID, "RINA_RANK is not set");
	/* the job file's ranges (Documentation/job-file.md) */
	ret = env_uint("RINA_RANK", &rank, RINA_MAX_RANKS - 1);
	if (!ret)
		ret = env_uint("RINA_TIMEOUT_MS", &cfg.timeout_ms, 3600000);
	if (!ret)
		ret = env_uint("RINA_FAULT_DROP_PPM", &cfg.drop_ppm, 1000000);
	if (!ret)
		ret = env_uint("RINA_FAULT_DUP_PPM", &cfg.dup_ppm, 1000000);
	if (!ret)
		ret = env_uint("RINA_FAULT_RX_DROP_PPM", &cfg.rx_drop_ppm,
			       1000000);
	if (ret)
		return ret;
	if (rank > RINA_MAX_RANKS)
		return rina_fail(RINA_ERR_INVALID, "RINA_RANK=%u out of range",
				 rank);
	cfg.rank = (int)rank;
	if (getenv("RINA_TRANSPORT"))
		cfg.transport = getenv("RINA_TRANSPORT");
	return rina_comm_init(comm, &cfg);
}

int rina_comm_destroy(rina_comm_t *c)
{
	unsigned int j;

	if (!c)
		return RINA_ERR_INVALID;
	rina_async_stop(c);
	rina_session_linger(c);
	rina_agent_stop(c->agent, !c->broken);
	rina_kernel_detach(c);
	c->tp->ops->destroy(c->tp);
	for (j = 0; j < RINA_STASH_MAX; j++)
		free(c->stash[j].buf);
	rina_ring_free(c);
	rina_ina_worker_free(c);
	free(c->work);
	free(c->txbuf);
	free(c->ctrl_guard);
	explicit_bzero(c->job.secret, sizeof(c->job.secret));
	explicit_bzero(c->mac_key, sizeof(c->mac_key));
	free(c);
	return RINA_OK;
}

int rina_comm_rank(const rina_comm_t *c)
{
	return c ? c->rank : -1;
}

int rina_comm_size(const rina_comm_t *c)
{
	return c ? (int)c->N : -1;
}

int rina_comm_ring_len(const rina_comm_t *c)
{
	return c ? (int)c->L : -1;
}

int rina_comm_elems(const rina_comm_t *c)
{
	return c ? (int)c->job.elems : -1;
}

int rina_comm_role(const rina_comm_t *c)
{
	if (!c)
		return -1;
	if (!c->ina_local)
		return RINA_ROLE_MEMBER;
	return c->agent ? RINA_ROLE_INA_AGENT : RINA_ROLE_INA_WORKER;
}

const char *rina_comm_transport(const rina_comm_t *c)
{
	return c ? c->tp->ops->name : NULL;
}

int rina_comm_get_stats(rina_comm_t *c, struct rina_stats *st)
{
	struct rina_transport_stats ts = { 0 };
	struct rina_stats tmp;
	uint32_t size;

	if (!c || !st || st->size < offsetof(struct rina_stats, calls))
		return rina_fail(RINA_ERR_INVALID,
				 "set stats.size = sizeof(struct rina_stats)");
	size = st->size < sizeof(tmp) ? st->size : sizeof(tmp);
	tmp = c->st;
	c->tp->ops->get_stats(c->tp, &ts);
	tmp.tx_packets = ts.tx_packets;
	tmp.tx_bytes = ts.tx_bytes;
	tmp.tx_refused_bytes = ts.tx_error_bytes;
	tmp.xdp_rx_dropped = ts.rx_dropped;
	tmp.xdp_rx_ring_full = ts.rx_ring_full;
	tmp.xdp_fill_ring_empty = ts.rx_fill_ring_empty;
	tmp.xdp_invalid_descs = ts.rx_invalid_descs + ts.tx_invalid_descs;
	tmp.xdp_prog_redirected = ts.prog_redirected;
	tmp.xdp_prog_passed = ts.prog_passed;
	tmp.xdp_prog_dropped = ts.prog_dropped;
	tmp.xdp_prog_fault_dropped = ts.prog_fault_dropped;
	tmp.rx_kernel_drops = ts.rx_kernel_drops;
	tmp.cwnd_cuts_loss = c->to_next.cc.st.cuts_loss +
			     c->to_agg.cc.st.cuts_loss;
	tmp.cwnd_cuts_delay = c->to_next.cc.st.cuts_delay +
			      c->to_agg.cc.st.cuts_delay;
	tmp.cwnd_cuts_ecn = c->to_next.cc.st.cuts_ecn +
			    c->to_agg.cc.st.cuts_ecn;
	if (c->ina_local)
		tmp.rack_agent = c->agent ? RINA_RACK_AGENT_LIBRINA :
				 c->kernel_rack_agent ? RINA_RACK_AGENT_KERNEL :
				 RINA_RACK_AGENT_UNKNOWN;
	if (c->agent) {
		struct rina_agent_stats as;

		rina_agent_get_stats(c->agent, &as);
		tmp.agent_contrib_in = as.contrib_in;
		tmp.agent_partial_in = as.partial_in;
		tmp.agent_partial_out = as.partial_out;
		tmp.agent_slots_done = as.slots_done;
		tmp.agent_ag_in = as.ag_in;
		tmp.agent_ag_out = as.ag_out;
		tmp.agent_ag_retransmits = as.ag_retransmits;
		tmp.agent_repairs = as.repairs;
		tmp.agent_reemit = as.reemit;
		tmp.agent_dup = as.dup;
		tmp.agent_stale = as.stale;
		tmp.agent_bad = as.bad + as.malformed + as.collision;
		tmp.agent_tor = as.tor_state;
		tmp.agent_tor_status = as.tor_status;
		tmp.agent_tor_copies = as.tor_copies;
		tmp.agent_host_relays = as.host_relays;
		/* one rank's refusals, whichever of its ports they came to */
		tmp.ctrl_forged += as.ctrl_forged;
		tmp.ctrl_replayed += as.ctrl_replayed;
		tmp.ctrl_duplicates += as.ctrl_duplicates;
		tmp.ctrl_before_start += as.ctrl_before_start;
		tmp.rx_bad_tag += as.bad_tag;
		tmp.agent_far_round = as.far_round;
		tmp.agent_ack_tx_bytes = as.ack_tx_bytes;
		tmp.agent_asks_out = as.asks_out;
		tmp.agent_asks_in = as.asks_in;
		tmp.agent_gap_nacks = as.gap_nacks;
		tmp.retx_tx_bytes += as.retx_tx_bytes;
		tmp.tx_refused_bytes += as.tx_refused_bytes;
		tmp.rx_kernel_drops += as.rx_kernel_drops;
	}
	tmp.size = size;
	memcpy(st, &tmp, size);
	return RINA_OK;
}
