// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent's control plane: control messages checked (ctrl_auth.h) and
 * acted on; HELLO and BYE with the rack's workers and both ring
 * neighbours, STALL reports and ABORT. The ToR's replies go to
 * agent_tor.c.
 */
#include "agent_int.h"

/*
 * The rack's workers may send data (see rina_agent_ctrl()) once the ring
 * is up on both sides of the rack: downstream answered our HELLO and
 * upstream greeted us. A plain member's data is acknowledged by its downstream
 * alone, so it may start before its upstream; a worker's contribution
 * only when its slot completes, which takes upstream's partial: started
 * before upstream's process, the workers' first timers fired for nothing
 * (net_tor_udp's first 4 KB call: 6 to 18 spurious retransmissions in 5
 * runs of 8, the call 35-86 ms instead of 13).
 */
static int workers_may_start(const struct rina_agent_core *a)
{
	return (a->cfg.L < 2 || (a->hello_next && a->hello_prev)) &&
	       a->tor_state != RINA_AGENT_TOR_WAIT;
}

/* HELLO_ACK to the workers that said HELLO while they had to wait. */
void rina_agent_answer_workers(struct rina_agent_core *a)
{
	__u32 j;

	if (!workers_may_start(a))
		return;
	for (j = 0; j < a->cfg.n_local; j++)
		if (a->hello_from & 1u << j)
			rina_agent_send_ctrl_arg(a, &a->cfg.local[j],
						 RINA_CTRL_HELLO_ACK,
						 a->worker_inc[j]);
}

/*
 * A local worker says it made no progress for a quarter of the timeout
 * (RINA_CTRL_STALL, every eighth while it lasts; timeout_ms its arg):
 * it is there and waiting. Reports less than half the timeout apart are
 * one stall of the rack (stall_silent()).
 */
static void worker_stalled(struct rina_agent_core *a, int k,
			   __u32 timeout_ms)
{
	__u64 now = a->ops->now_us(a->ctx);

	a->heard[k] = now;
	if (!a->stall_last ||
	    now - a->stall_last > (__u64)timeout_ms * 1000 / 2)
		a->stall_first = now;
	a->stall_last = now;
	a->st.stalls_in++;
}

/*
 * Whether a control message may act: it comes from a party the agent
 * talks to (its workers, its ring neighbours, its ToR), and in a job
 * with a secret it is signed, fresh and new (ctrl_auth.h).
 */
static int ctrl_trusted(struct rina_agent_core *a, const struct rina_hdr *h,
			const struct rina_agent_addr *from, int k)
{
	const __u8 *key = a->cfg.has_secret ? a->cfg.secret : NULL;
	enum rina_ctrl_verdict v;

	if (k < 0 && !addr_eq(from, &a->cfg.prev) &&
	    !addr_eq(from, &a->cfg.next) &&
	    !(a->cfg.tor.ip && addr_eq(from, &a->cfg.tor))) {
		a->st.ctrl_forged++;
		return 0;
	}
	v = rina_ctrl_check(a->ctrl_guard, h, key, a->ops->mac,
			    key ? a->ops->wall_us(a->ctx) : 0, a->cfg.self.ip,
			    a->cfg.self.port);
	if (v == RINA_CTRL_OK)
		return 1;
	if (v == RINA_CTRL_DUPLICATE)
		a->st.ctrl_duplicates++;
	else if (v == RINA_CTRL_BEFORE_START)
		a->st.ctrl_before_start++;
	else if (v == RINA_CTRL_STALE || v == RINA_CTRL_REPLAY)
		a->st.ctrl_replayed++;
	else
		a->st.ctrl_forged++;
	return 0;
}

void rina_agent_ctrl(struct rina_agent_core *a, const struct rina_hdr *h,
		     const struct rina_agent_addr *from)
{
	const struct rina_ctrl *m = (const struct rina_ctrl *)(h + 1);
	__u32 type = rina_ntohl(m->type);
	int k = rina_agent_local_index(a, from);

	if (!ctrl_trusted(a, h, from, k))
		return;

	if (type == RINA_CTRL_ABORT) {
		ev(a, RINA_AGENT_EV_ABORT, rina_ntohl(m->arg));
		return;
	}
	if (type == RINA_CTRL_TOR_REPLY) {
		rina_agent_tor_reply(a, h, from);
		return;
	}
	if ((type == RINA_CTRL_HELLO || type == RINA_CTRL_HELLO_ACK) &&
	    rina_get_be64(&m->hash) != a->cfg.job_hash) {
		a->st.bad++;
		ev(a, RINA_AGENT_EV_MISMATCH, rina_ntohs(h->src_id));
		return;
	}
	if (k >= 0 && type == RINA_CTRL_STALL) {
		worker_stalled(a, k, rina_ntohl(m->arg));
		return;
	}
	if (k >= 0 && (type == RINA_CTRL_HELLO || type == RINA_CTRL_BYE)) {
		/* the rack's own workers */
		__u32 bit = 1u << k, inc = rina_ntohl(m->arg);

		if (type == RINA_CTRL_HELLO) {
			int again = (a->hello_from & bit) &&
				    a->worker_inc[k] != inc;

			/* the worker's next communicator: not ours to serve */
			if (a->leaving || (a->cfg.single_session &&
					   (again || (a->data_from & bit)))) {
				a->st.stale++;
				return;
			}
			/* a worker that sent data says HELLO: new session */
			if ((a->data_from & bit) || again)
				rina_agent_core_reset(a);
			a->worker_inc[k] = inc;
			if (!a->active)
				ev(a, RINA_AGENT_EV_SESSION_START, k);
			a->active = 1;
			a->hello_from |= bit;
			a->bye_from &= ~bit;	/* a late BYE of before */
			/*
			 * Not before downstream answered ours (the rack's
			 * first partials would find no one listening there)
			 * nor while the ToR is asked (who adds the rack is
			 * not known); rina_agent_answer_workers() answers
			 * later.
			 */
			if (workers_may_start(a))
				rina_agent_send_ctrl_arg(a, from,
							 RINA_CTRL_HELLO_ACK,
							 inc);
			return;
		}
		rina_agent_send_ctrl(a, from, RINA_CTRL_BYE_ACK);
		a->active = 1;	/* a ring of one has no HELLO */
		if (!(a->bye_from & bit)) {
			a->bye_from |= bit;
			ev(a, RINA_AGENT_EV_WORKER_BYE, k);
			if (a->bye_from == a->local_mask)
				ev(a, RINA_AGENT_EV_WORKERS_LEFT, 0);
		}
		return;
	}
	switch (type) {
	case RINA_CTRL_HELLO:
		if (!addr_eq(from, &a->cfg.prev) || a->leaving)
			return;
		/* upstream's next incarnation: for our successor */
		if (a->cfg.single_session && a->hello_prev &&
		    a->prev_inc != rina_ntohl(m->arg)) {
			a->st.stale++;
			return;
		}
		/* upstream greets once it knows the session */
		if (!rina_ctrl_session(h)) {
			a->st.bad++;
			return;
		}
		if (!ring_head(a) && (!a->hello_prev || !a->session ||
				      a->prev_inc != rina_ntohl(m->arg)))
			rina_agent_session_learnt(a, rina_ctrl_session(h));
		a->prev_inc = rina_ntohl(m->arg);
		rina_agent_send_ctrl_arg(a, from, RINA_CTRL_HELLO_ACK,
					 a->prev_inc);
		if (!a->hello_prev) {
			a->hello_prev = 1;
			rina_agent_answer_workers(a);
		}
		return;
	case RINA_CTRL_HELLO_ACK:
		/* an answer to an earlier incarnation's HELLO is not ours */
		if (rina_ntohl(m->arg) != a->cfg.incarnation) {
			a->st.stale++;
			return;
		}
		if (addr_eq(from, &a->cfg.next) && !a->hello_next) {
			a->hello_next = 1;
			ev(a, RINA_AGENT_EV_NEXT_UP, 0);
			rina_agent_answer_workers(a);
		}
		return;
	case RINA_CTRL_BYE:
		if (addr_eq(from, &a->cfg.prev)) {
			rina_agent_send_ctrl(a, from, RINA_CTRL_BYE_ACK);
			/*
			 * Before upstream's HELLO, a BYE is its previous
			 * incarnation's, whose BYE_ACK was lost.
			 */
			if (a->hello_prev)
				a->prev_said_bye = 1;
		}
		return;
	case RINA_CTRL_BYE_ACK:
		if (addr_eq(from, &a->cfg.next))
			a->bye_next = 1;
		return;
	default:
		a->st.malformed++;
		return;
	}
}
