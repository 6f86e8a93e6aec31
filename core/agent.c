// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent protocol of an INA rack on the shared core (agent.h,
 * Documentation/protocol-ina.md): each datagram to its role's handler,
 * the ring's session, the timers, and the agent's life cycle. What each
 * role does is in agent_int.h's list of files.
 */
#include "agent_int.h"

/*
 * The ring's session is s (0: not known yet): the data tag and key are
 * its. Until it is known, rx refuses all data of a tagged job.
 */
static void session_set(struct rina_agent_core *a, __u64 s)
{
	a->session = s;
	if (a->cfg.tagged)
		rina_session_tag(a->cfg.secret, a->ops->mac, a->cfg.job_id, s,
				 a->tag);
	/* a MAC takes the tag's place: nothing for a host to filter on */
	if (a->cfg.tagged && !a->cfg.auth_mac && s && a->ops->tag_set)
		a->ops->tag_set(a->ctx, a->cfg.job_id, a->tag);
	if (a->cfg.auth_mac)
		rina_data_key(a->cfg.secret, a->ops->mac, a->cfg.job_id, s,
			      a->mac_key);
}

/*
 * A new session's number: the ring's first member draws it (never 0,
 * "not known"), the others wait for upstream's HELLO to tell it.
 */
static void session_start(struct rina_agent_core *a)
{
	__u64 s = 0;

	while (ring_head(a) && !s)
		s = a->ops->random_u64(a->ctx);
	session_set(a, s);
}

/* Upstream's HELLO told the session: a ToR may be asked now. */
void rina_agent_session_learnt(struct rina_agent_core *a, __u64 s)
{
	session_set(a, s);
	if (a->tor_state == RINA_AGENT_TOR_WAIT && !a->tor_reinstall &&
	    !a->tor_tries)
		rina_agent_tor_ask_install(a);
}

void rina_agent_core_rx(struct rina_agent_core *a, const void *buf,
			__u32 len, const struct rina_agent_addr *from)
{
	const struct rina_hdr *h = buf;
	__u32 wire_len = len;	/* the tag included */
	unsigned int op;

	if (rina_hdr_check(h, len)) {
		a->st.malformed++;
		return;
	}
	if (rina_ntohs(h->job_id) != a->cfg.job_id) {
		a->st.foreign++;
		return;
	}
	/* before the session is known no data is the session's */
	if (!a->session && (a->cfg.tagged || a->cfg.auth_mac) &&
	    rina_hdr_opcode(h) != RINA_OP_CTRL)
		len = 0;
	else
		len = rina_data_open(h, len, a->cfg.tagged ? a->tag : NULL,
				     a->cfg.auth_mac ? a->mac_key : NULL,
				     a->ops->mac);
	if (!len) {
		a->st.bad_tag++;
		return;
	}
	op = rina_hdr_opcode(h);
	if (op == RINA_OP_SR_CONTRIB || op == RINA_OP_SR_PARTIAL ||
	    op == RINA_OP_AG_DATA)
		a->last_data = a->ops->now_us(a->ctx);
	/*
	 * data moves the window of rounds, once checked:
	 * rina_agent_round_admit()
	 */
	switch (op) {
	case RINA_OP_SR_CONTRIB:
	case RINA_OP_SR_PARTIAL:
		if (op == RINA_OP_SR_CONTRIB &&
		    (rina_agent_relay_to_tor(a, h, wire_len, from) ||
		     rina_agent_redirect_to_tor(a, h, from)))
			break;
		/*
		 * Who adds the rack is not decided yet: adding here what
		 * the ToR may add too would split slots between the two.
		 * The senders retry.
		 */
		if (a->tor_state == RINA_AGENT_TOR_WAIT) {
			a->st.tor_held++;
			break;
		}
		/* the ToR takes the rack's data unless told to pass it */
		if (a->tor_state == RINA_AGENT_TOR_ON &&
		    !(h->flags & RINA_F_SW_BYPASS))
			a->tor_passed = a->ops->now_us(a->ctx);
		rina_agent_aggregate(a, h, from);
		break;
	case RINA_OP_AG_DATA:
		/*
		 * Upstream's allgather data is the ToR's to take too (it
		 * replicates all of it, p4/allgather.p4; our copy comes from
		 * our own address): from upstream itself, it came past the
		 * ToR. In a mixed ring it may be all that comes: a rack whose
		 * contributions the ToR had all taken waits for allgather
		 * data and sends none, and its agent took 5-7 s to find the
		 * ToR gone, until a retry of upstream's came (tor_watch()).
		 */
		if (a->tor_state == RINA_AGENT_TOR_ON &&
		    !(h->flags & RINA_F_SW_BYPASS) &&
		    addr_eq(from, &a->cfg.prev))
			a->tor_passed = a->ops->now_us(a->ctx);
		rina_agent_ag_from_upstream(a, h, len, from);
		break;
	case RINA_OP_ACK:
		rina_agent_ack_from_downstream(a, h, len, from);
		break;
	case RINA_OP_NACK:
		if (!(h->flags & RINA_F_AG_PHASE) &&
		    addr_eq(from, &a->cfg.next))
			rina_agent_ask_from_downstream(a, h, len);
		else if (addr_eq(from, &a->cfg.prev))
			rina_agent_ask_from_upstream(a, h, from);
		else
			rina_agent_nack_from_worker(a, h, from);
		break;
	case RINA_OP_CTRL:
		rina_agent_ctrl(a, h, from);
		break;
	}
}

void rina_agent_core_leave(struct rina_agent_core *a)
{
	a->leaving = 1;
}

int rina_agent_core_session_done(const struct rina_agent_core *a)
{
	return a->bye_from == a->local_mask && rina_agent_ag_drained(a) &&
	       (a->cfg.L < 2 || (a->prev_said_bye && a->bye_next));
}

void rina_agent_core_set_session(struct rina_agent_core *a, __u64 session)
{
	rina_agent_session_learnt(a, session);
}

__u64 rina_agent_core_tick(struct rina_agent_core *a)
{
	__u64 now = a->ops->now_us(a->ctx), wait, w2;

	wait = rina_agent_ackq_due(a, &a->held, now);
	w2 = rina_agent_ackq_due(a, &a->ag_up, now);
	if (w2 < wait)
		wait = w2;
	w2 = rina_agent_ag_retransmit(a);
	if (w2 < wait)
		wait = w2;
	w2 = rina_agent_tor_tick(a, now);
	if (w2 < wait)
		wait = w2;
	if (!a->active || a->cfg.L < 2)
		return wait;
	if (!a->hello_next && a->session) {
		if (now - a->last_hello >= RINA_AGENT_HELLO_US) {
			rina_agent_send_ctrl_arg(a, &a->cfg.next,
						 RINA_CTRL_HELLO,
						 a->cfg.incarnation);
			a->last_hello = now;
		}
		w2 = a->last_hello + RINA_AGENT_HELLO_US - now;
		if (w2 < wait)
			wait = w2;
	}
	/*
	 * The rack is done with the ring: tell downstream, once downstream
	 * has everything we owe it (BYE means "all my sends are acked").
	 */
	if (a->bye_from == a->local_mask && !a->bye_next &&
	    rina_agent_ag_drained(a)) {
		if (now - a->last_bye >= RINA_AGENT_BYE_US) {
			rina_agent_send_ctrl(a, &a->cfg.next, RINA_CTRL_BYE);
			a->last_bye = now;
		}
		w2 = a->last_bye + RINA_AGENT_BYE_US - now;
		if (w2 < wait)
			wait = w2;
	}
	return wait;
}

void rina_agent_core_reset(struct rina_agent_core *a)
{
	rina_keymap_filter(&a->ag, NULL, rina_agent_drop_val, a);
	rina_keymap_filter(&a->agg, NULL, rina_agent_drop_val, a);
	a->fifo_head = a->fifo_tail = 0;
	a->held.n = 0;
	a->ag_up.n = 0;
	a->rack.ts = 0;
	a->last_news = 0;
	a->timer_fired = 0;
	a->backoff = 0;
	a->tx_no = a->probe_no = a->probe_at = 0;
	a->max_round = 0;
	if (a->active)
		a->st.sessions++;
	a->active = 0;
	a->hello_next = a->bye_next = a->prev_said_bye = a->hello_prev = 0;
	a->hello_from = a->data_from = a->bye_from = 0;
	a->last_hello = a->last_bye = 0;
	a->stall_first = a->stall_last = 0;
	session_start(a);
	rina_agent_tor_session_reset(a);
	ev(a, RINA_AGENT_EV_SESSION_END, 0);
}

void rina_agent_core_say_aborted(struct rina_agent_core *a, __u32 result,
				 const struct rina_agent_addr *to, __u32 n)
{
	__u32 copy, j;

	for (copy = 0; copy < 3; copy++) {
		for (j = 0; j < n; j++)
			rina_agent_send_ctrl_arg(a, &to[j], RINA_CTRL_ABORT,
						 result);
		if (a->cfg.L > 1) {
			rina_agent_send_ctrl_arg(a, &a->cfg.next,
						 RINA_CTRL_ABORT, result);
			rina_agent_send_ctrl_arg(a, &a->cfg.prev,
						 RINA_CTRL_ABORT, result);
		}
	}
}

void rina_agent_core_abort(struct rina_agent_core *a, __u32 result,
			   const struct rina_agent_addr *to, __u32 n)
{
	rina_agent_core_say_aborted(a, result, to, n);
	a->st.aborts++;
	rina_agent_core_reset(a);
}

static void *mem_zalloc(void *ctx, __u32 size)
{
	struct rina_agent_core *a = ctx;

	return a->ops->zalloc(a->ctx, size);
}

static void mem_free(void *ctx, void *p)
{
	struct rina_agent_core *a = ctx;

	a->ops->free(a->ctx, p);
}

int rina_agent_core_init(struct rina_agent_core *a,
			 const struct rina_agent_cfg *cfg,
			 const struct rina_agent_ops *ops, void *ctx)
{
	rina_memset(a, 0, sizeof(*a));
	if (!cfg->n_local || cfg->n_local > RINA_AGENT_MAX_LOCAL ||
	    !cfg->L || !cfg->window || cfg->elems > RINA_MAX_ELEMS ||
	    (cfg->has_secret &&
	     (!ops->mac || !ops->wall_us || !ops->ctrl_stamp)) ||
	    ((cfg->auth_mac || cfg->tagged) && !cfg->has_secret) ||
	    (cfg->member == 0 && !ops->random_u64))
		return -1;
	a->cfg = *cfg;
	a->ops = ops;
	a->ctx = ctx;
	rina_cc_init(&a->cc, &cfg->cc);
	a->mem.zalloc = mem_zalloc;
	a->mem.free = mem_free;
	a->mem.ctx = a;
	a->local_mask = (1u << cfg->n_local) - 1;
	a->up_bit = 1u << cfg->n_local;
	a->held.flags = RINA_F_AG_PHASE | RINA_F_OWN_FINAL;
	a->held.to_workers = 1;
	a->ag_up.flags = RINA_F_AG_PHASE;
	a->max_msg = RINA_HDR_LEN + 4u * (cfg->elems > RINA_CTRL_AUTH_WORDS ?
					  cfg->elems : RINA_CTRL_AUTH_WORDS);
	a->fifo_cap = 4096;
	a->fifo = zalloc(a, a->fifo_cap * (__u32)sizeof(*a->fifo));
	a->scratch = zalloc(a, a->max_msg);
	if (cfg->has_secret)
		a->ctrl_guard = zalloc(a, sizeof(*a->ctrl_guard));
	if (a->ctrl_guard)	/* nothing signed before we started */
		rina_ctrl_guard_init(a->ctrl_guard, ops->wall_us(ctx));
	if (cfg->tagged || cfg->auth_mac)
		a->tagged_tx = zalloc(a, TAGGED_TX_LEN);
	session_start(a);
	if (!a->fifo || !a->scratch ||
	    (cfg->has_secret && !a->ctrl_guard) ||
	    ((cfg->tagged || cfg->auth_mac) && !a->tagged_tx) ||
	    rina_keymap_init(&a->ag, 4096, &a->mem) ||
	    rina_keymap_init(&a->agg, 4096, &a->mem)) {
		rina_agent_core_fini(a);
		return -1;
	}
	return 0;
}

void rina_agent_core_fini(struct rina_agent_core *a)
{
	rina_keymap_free(&a->ag, rina_agent_drop_val, a);
	rina_keymap_free(&a->agg, rina_agent_drop_val, a);
	afree(a, a->fifo);
	afree(a, a->scratch);
	afree(a, a->ctrl_guard);
	afree(a, a->tagged_tx);
	a->fifo = NULL;
	a->scratch = NULL;
	a->ctrl_guard = NULL;
	a->tagged_tx = NULL;
	rina_memzero_explicit(a->cfg.secret, sizeof(a->cfg.secret));
	rina_memzero_explicit(a->mac_key, sizeof(a->mac_key));
	rina_memzero_explicit(a->tag, sizeof(a->tag));
}
