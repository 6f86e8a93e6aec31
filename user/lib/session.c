// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The session layer (session.h): HELLO, BYE and ABORT, and the linger
 * at destroy. It sits on the endpoint layer; comm.c drives it.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rina_int.h"
#include "wire.h"
#include "secret.h"
#include "schedule.h"
#include "abort.h"

/*
 * The address a rank's control messages come from: its own port, or the
 * agent port when it is an INA rack's agent. The ABORT of a rank whose
 * port could not be bound leaves from another port of its host: taken
 * only when signed (unsigned, it would let any user of that host stop
 * the job; without a secret the others learn of the failure from their
 * timeout).
 */
static bool ctrl_from_rank(const struct rina_comm *c, const struct rina_hdr *h,
			   const struct rina_addr *from, bool signed_job)
{
	unsigned int src = ntohs(h->src_id);
	const struct rina_member *mb;

	if (src >= c->N || from->ip != c->job.ranks[src].ip)
		return false;
	if (signed_job || from->port == c->job.ranks[src].port)
		return true;
	mb = &c->ring.m[c->ring.member_of[src]];
	return mb->ina && mb->agent == src &&
	       from->port == rina_rack_agent_port(&c->job, mb->rack);
}

/*
 * Whether a control message may act (protocol.md 6.2): in a job with a
 * secret, only signed, fresh and new ones; in any job, a message from a
 * rank only from that rank's address (an ABORT from elsewhere would
 * blame a rank that said nothing).
 */
static bool ctrl_trusted(struct rina_comm *c, const struct rina_hdr *h,
			 const struct rina_addr *from)
{
	const uint8_t *key = c->job.has_secret ? c->job.secret : NULL;
	enum rina_ctrl_verdict v;

	if (!ctrl_from_rank(c, h, from, key)) {
		c->st.ctrl_forged++;
		return false;
	}
	v = rina_ctrl_check(c->ctrl_guard, h, key, rina_siphash24,
			    key ? rina_wall_us() : 0, c->self.ip, c->self.port);
	if (v == RINA_CTRL_OK)
		return true;
	if (v == RINA_CTRL_DUPLICATE)
		c->st.ctrl_duplicates++;
	else if (v == RINA_CTRL_BEFORE_START)
		c->st.ctrl_before_start++;
	else if (v == RINA_CTRL_STALE || v == RINA_CTRL_REPLAY)
		c->st.ctrl_replayed++;
	else
		c->st.ctrl_forged++;
	return false;
}

/*
 * rina.ko's word on the job, if it has one. Only this host's ranks hear
 * from its rina.ko: tell the others, who would otherwise wait out their
 * timeout. They fail with RINA_ERR_ABORTED and tell no one in turn.
 */
static int kernel_events(struct rina_comm *c)
{
	int ret = rina_kernel_events(c);

	if (ret)
		rina_session_abort(c, RINA_ERR_ABORTED);
	return ret;
}

int rina_session_events(struct rina_comm *c)
{
	uint64_t now;

	if (c->kfd < 0)		/* file-based: not even the clock */
		return RINA_OK;
	now = rina_now_us();
	if (now < c->kev_next)
		return RINA_OK;
	c->kev_next = now + RINA_KEV_POLL_US;
	return kernel_events(c);
}

void rina_session_set(struct rina_comm *c, uint64_t session)
{
	c->session_id = session;
	if (c->tagged)
		rina_session_tag(c->job.secret, rina_siphash24, c->job.job_id,
				 session, c->tag);
	/*
	 * forged data can now be dropped before it reaches us (a flood
	 * slows the rank that reads it, udp_transport.c); a new session
	 * replaces the filter at once, or its data would be dropped too.
	 * Not with per-packet MACs: the MAC takes the tag's place, and
	 * classic BPF cannot check it.
	 */
	if (c->tagged && !c->auth_mac && session && c->tp &&
	    c->tp->ops->rx_tag_filter)
		c->tp->ops->rx_tag_filter(c->tp, (uint16_t)c->job.job_id,
					  c->tag);
	if (c->auth_mac)
		rina_data_key(c->job.secret, rina_siphash24, c->job.job_id,
			      session, c->mac_key);
}

/*
 * The ring's first member draws the session; the others learn it from
 * upstream's HELLO, an INA rack's workers from their agent's HELLO_ACK.
 * Until then no data passes (rina_rx_accept()).
 */
static bool session_head(const struct rina_comm *c)
{
	return c->member == 0 && !c->ina_local;
}

int rina_session_ctrl(struct rina_comm *c, const struct rina_hdr *h,
		      const struct rina_addr *from,
		      struct rina_ctrl_seen *seen)
{
	const struct rina_ctrl *m = (const struct rina_ctrl *)(h + 1);
	uint32_t type = ntohl(m->type);
	uint64_t hash = be64toh(m->hash);
	unsigned int src = ntohs(h->src_id);

	if (!ctrl_trusted(c, h, from))
		return 0;
	switch (type) {
	case RINA_CTRL_HELLO:
	case RINA_CTRL_HELLO_ACK:
		if (hash != c->job_hash)
			return rina_fail(RINA_ERR_MISMATCH,
					 "rank %u has a different job description than rank %d (hash %016llx, ours %016llx)",
					 src, c->rank,
					 (unsigned long long)hash,
					 (unsigned long long)c->job_hash);
		/*
		 * A HELLO while we leave is upstream's next incarnation
		 * greeting ours: answering it would tell it we are there.
		 */
		if (type == RINA_CTRL_HELLO && c->session == RINA_SESSION_LINGER)
			return 0;
		if (type == RINA_CTRL_HELLO && rina_addr_eq(from, &c->prev)) {
			uint32_t inc = ntohl(m->arg);

			/* upstream's next incarnation: for our successor */
			if (c->prev_greeted && inc != c->prev_inc) {
				c->st.rx_stale++;
				return 0;
			}
			/* upstream greets once it knows the session */
			if (!rina_ctrl_session(h)) {
				c->st.rx_malformed++;
				return 0;
			}
			if (!c->prev_greeted && !session_head(c))
				rina_session_set(c, rina_ctrl_session(h));
			c->prev_inc = inc;
			c->prev_greeted = true;
			rina_send_ctrl(c, from, RINA_CTRL_HELLO_ACK, inc);
			if (seen)
				seen->hello_prev = true;
		} else if (type == RINA_CTRL_HELLO_ACK &&
			   rina_addr_eq(from, &c->next) && seen) {
			/* an answer to our previous incarnation's HELLO */
			if (ntohl(m->arg) != c->incarnation) {
				c->st.rx_stale++;
				return 0;
			}
			/* an INA worker's agent tells it the session */
			if (c->ina_local && !seen->hello_next) {
				if (!rina_ctrl_session(h)) {
					c->st.rx_malformed++;
					return 0;
				}
				rina_session_set(c, rina_ctrl_session(h));
			}
			seen->hello_next = true;
		}
		return 0;
	case RINA_CTRL_BYE:
		if (rina_addr_eq(from, &c->prev)) {
			/* may come while we still finish the last call */
			rina_send_ctrl(c, from, RINA_CTRL_BYE_ACK, 0);
			/*
			 * ... or before our first: then it is upstream's
			 * previous incarnation, whose BYE_ACK was lost
			 */
			if (c->session != RINA_SESSION_HELLO)
				c->prev_said_bye = true;
		}
		return 0;
	case RINA_CTRL_BYE_ACK:
		if (rina_addr_eq(from, &c->next) && seen)
			seen->bye_next = true;
		return 0;
	case RINA_CTRL_TOR_LOST:
		if (c->ina_local && rina_addr_eq(from, &c->next)) {
			c->tor_lost_told = true;
			c->tor_on_told = false;
		} else {
			c->st.rx_malformed++;
		}
		return 0;
	case RINA_CTRL_TOR_ON:
		/*
		 * To every worker on the agent's host: the agent's rank
		 * reads the agent's state instead (ina_worker.c)
		 */
		if (c->ina_local && rina_addr_eq(from, &c->next))
			c->tor_on_told = true;
		else
			c->st.rx_malformed++;
		return 0;
	case RINA_CTRL_ABORT:
		/*
		 * A rank of this host that heard from rina.ko may tell us
		 * before our next poll: the kernel's reason is the better one
		 * (when leaving, the answer goes nowhere: no need to ask).
		 */
		if (c->kfd >= 0 && c->session != RINA_SESSION_LINGER &&
		    kernel_events(c))
			return RINA_ERR_ABORTED;
		return rina_abort_fail(c, src, ntohl(m->arg));
	default:
		c->st.rx_malformed++;
		return 0;
	}
}

int rina_session_ctrl_rx(struct rina_comm *c, const struct rina_hdr *h,
			 const struct rina_addr *from)
{
	return rina_session_ctrl(c, h, from, NULL);
}

int rina_session_hello(struct rina_comm *c)
{
	struct rina_msg msgs[RINA_BATCH];
	struct rina_ctrl_seen seen = { 0 };
	uint64_t start = rina_now_us(), last_tx = 0;
	uint64_t limit = (uint64_t)c->timeout_ms * 1000;
	int n, j, ret;

	/* the job may be gone already: deleted or aborted since attach */
	ret = rina_session_events(c);
	if (ret)
		return ret;
	if (session_head(c)) {
		uint64_t s = 0;

		while (!s)	/* 0 is "not known" */
			s = rina_random_u64();
		rina_session_set(c, s);
	}
	/* a worker of an INA rack greets its agent only, in any ring */
	if (c->ina_local)
		seen.hello_prev = true;
	else if (c->L < 2)
		return RINA_OK;
	while (!seen.hello_prev || !seen.hello_next) {
		uint64_t now = rina_now_us();

		if (now - start > limit)
			return rina_fail(RINA_ERR_TIMEOUT,
					 "rank %d: ring neighbours did not answer within %u ms (%s rank %d, %s rank %d)%s",
					 c->rank, c->timeout_ms,
					 seen.hello_prev ? "heard" : "no word from",
					 c->prev_rank,
					 seen.hello_next ? "heard" : "no word from",
					 c->next_rank,
					 c->st.ctrl_forged ?
					 "; control messages that failed authentication came: do all ranks have the job's secret?" :
					 "");
		/*
		 * Downstream learns the session from our HELLO; an INA
		 * worker learns it from its agent's answer.
		 */
		if (!seen.hello_next && (c->session_id || c->ina_local) &&
		    now - last_tx >= 10000) {
			rina_send_ctrl(c, &c->next, RINA_CTRL_HELLO,
				       c->incarnation);
			last_tx = now;
		}
		ret = rina_session_events(c);
		if (ret)
			return ret;
		n = c->tp->ops->recv(c->tp, msgs, RINA_BATCH, 10);
		if (n < 0)
			return rina_fail(RINA_ERR_TRANSPORT, "receive failed: %s",
					 strerror(-n));
		for (j = 0; j < n; j++) {
			const struct rina_hdr *h = msgs[j].buf;

			c->st.rx_packets++;
			c->st.rx_bytes += msgs[j].len + RINA_FRAME_OVERHEAD;
			if (!rina_rx_accept(c, &msgs[j]))
				continue;
			if (rina_hdr_opcode(h) == RINA_OP_CTRL) {
				ret = rina_session_ctrl(c, h, &msgs[j].addr, &seen);
				if (ret)
					return ret;
			} else if (rina_hdr_opcode(h) != RINA_OP_ACK &&
				   rina_round_cmp(ntohs(h->round),
						  c->round) == 0) {
				/* a neighbour already started call 0 */
				rina_stash(c, &msgs[j]);
			}
		}
	}
	return RINA_OK;
}


/*
 * Leave the ring without stranding anyone: upstream may still be
 * retransmitting our last call's packets because an ACK was lost (an
 * INA rack's worker that lags behind its agent waits on our ACK of the
 * partial its retry made the agent re-emit). Keep acknowledging until
 * upstream says BYE (all its sends are acked), and say BYE downstream
 * until it answers; rina_linger_over() bounds it, and a short time-wait
 * answers upstream's BYE again should our BYE_ACK have been lost.
 */
void rina_session_linger(struct rina_comm *c)
{
	struct rina_msg msgs[RINA_BATCH];
	struct rina_ack_batch acks = { .q.n = 0 };
	struct rina_ctrl_seen seen = { 0 };
	uint64_t start = rina_now_us(), last_rx = start, last_tx = 0, now;
	uint64_t done_at = 0;
	int n, j;

	c->session = RINA_SESSION_LINGER;
	if ((c->L < 2 && !c->ina_local) || c->broken)
		return;
	if (c->ina_local)	/* the agent serves the rack's neighbours */
		c->prev_said_bye = true;
	for (;;) {
		now = rina_now_us();
		if (c->prev_said_bye && seen.bye_next) {
			/* upstream may not have our BYE_ACK: time-wait */
			if (!done_at)
				done_at = now;
			if (c->ina_local ||
			    now - done_at > RINA_LINGER_TIMEWAIT_US)
				break;
		} else if (rina_linger_over(c->timeout_ms, start, last_rx,
					    now)) {
			break;
		}
		if (!seen.bye_next && now - last_tx >= 5000) {
			rina_send_ctrl(c, &c->next, RINA_CTRL_BYE, 0);
			last_tx = now;
		}
		n = c->tp->ops->recv(c->tp, msgs, RINA_BATCH, 5);
		for (j = 0; j < n; j++) {
			const struct rina_hdr *h = msgs[j].buf;
			unsigned int op;

			if (!rina_rx_accept(c, &msgs[j]))
				continue;
			last_rx = rina_now_us();
			op = rina_hdr_opcode(h);
			if (op == RINA_OP_CTRL)
				rina_session_ctrl(c, h, &msgs[j].addr, &seen);
			else if ((op == RINA_OP_SR_PARTIAL ||
				  op == RINA_OP_AG_DATA) && !c->ina_local &&
				 rina_addr_eq(&msgs[j].addr, &c->prev))
				rina_ack_queue(c, &acks, &msgs[j].addr, h,
					       msgs[j].ecn);
		}
		rina_ack_flush(c, &acks);
	}
}

/*
 * A rank whose init fails tells the others at once, but ranks start at
 * about the same time, and one that has not bound its port yet misses
 * every copy sent now: it would learn of the failure only from its own
 * timeout (net_ports saw it under load). So the copies go again at
 * doubling gaps, 50 ms to 800 ms, for 1.55 s in all: a rank that starts
 * up to that late still hears it. Only at init, where the process is
 * on its way out and the others are starting; a call that fails has
 * bound peers, which the copies of rina_session_abort() reach.
 */
#define RINA_ABORT_INIT_ROUNDS	5
#define RINA_ABORT_INIT_GAP_MS	50

void rina_session_abort_init(struct rina_comm *c, int result)
{
	unsigned int round, gap_ms = RINA_ABORT_INIT_GAP_MS;
	struct timespec ts;

	rina_session_abort(c, result);
	for (round = 0; round < RINA_ABORT_INIT_ROUNDS; round++) {
		ts.tv_sec = gap_ms / 1000;
		ts.tv_nsec = (long)(gap_ms % 1000) * 1000000L;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		rina_session_abort(c, result);
		gap_ms *= 2;
	}
}

void rina_session_abort(struct rina_comm *c, int result)
{
	uint32_t arg = c->dead_peer >= 0 ?
		       rina_abort_arg_peer((uint32_t)result,
					   (uint32_t)c->dead_peer) :
		       (uint32_t)result;
	unsigned int r, copies;

	for (copies = 0; copies < 3; copies++)
		for (r = 0; r < c->N; r++) {
			struct rina_addr a = { 0 };

			if ((int)r == c->rank)
				continue;
			a.ip = c->job.ranks[r].ip;
			a.port = c->job.ranks[r].port;
			rina_send_ctrl(c, &a, RINA_CTRL_ABORT, arg);
		}
}
