// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent and its rack's ToR (protocol-ina.md sections 8 and 9): the
 * job installed on it, its replies, its liveness while it aggregates,
 * the rack in software once it is lost, and its return.
 */
#include "agent_int.h"
#include "schedule.h"

/*
 * A ToR that never answered TOR_INSTALL, with cfg.tor_retry: asked again
 * as a lost one is (tor_release()), since it may only have started
 * after the agent (rina-tor started late, a switch rebooting).
 */
int rina_agent_core_tor_unheard(const struct rina_agent_core *a)
{
	return a->cfg.tor_retry && a->tor_state == RINA_AGENT_TOR_OFF &&
	       a->tor_status == RINA_AGENT_TOR_SILENT;
}

/* The ToR spoke: it is there (tor_watch()). */
void rina_agent_tor_heard(struct rina_agent_core *a)
{
	a->tor_heard = a->ops->now_us(a->ctx);
	a->tor_tries = 0;
}

/*
 * TOR_INSTALL, resent by rina_agent_tor_tick(): it carries the session,
 * from which the ToR derives the tag it checks and writes, so it waits
 * for it (tor_tries 0; rina_agent_session_learnt() sends it).
 */
void rina_agent_tor_ask_install(struct rina_agent_core *a)
{
	a->tor_tries = 0;
	if (!a->session)
		return;
	a->tor_tries = 1;
	a->tor_last = a->ops->now_us(a->ctx);
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_INSTALL);
}

/*
 * rina.ko's agent (cfg.relay_own): the workers on its host (its rank's,
 * and those of other processes there, torchrun's --nproc-per-node 2)
 * send contributions to the agent port like every local worker, since a
 * datagram to the host's own address would loop back instead of
 * reaching the ToR (librina's agent tells them to send to the ToR's
 * address instead, TOR_ON). Pass them on, unchanged and as checked, from
 * the worker's own address and port, while the ToR aggregates; once it
 * is lost they are added here with the rest of the rack. Data the
 * workers flag for software (SW_BYPASS) stays here.
 */
int rina_agent_relay_to_tor(struct rina_agent_core *a, const struct rina_hdr *h,
			    __u32 wire_len, const struct rina_agent_addr *from)
{
	struct rina_agent_addr to = {
		.ip = a->cfg.tor.ip,
		.port = rina_htons(RINA_UDP_PORT_AGENT),
	};

	if (!a->cfg.relay_own || !a->ops->relay ||
	    a->tor_state != RINA_AGENT_TOR_ON ||
	    from->ip != a->cfg.self.ip ||
	    rina_agent_local_index(a, from) < 0 ||
	    (h->flags & RINA_F_SW_BYPASS))
		return 0;
	a->ops->relay(a->ctx, &to, from, h, wire_len);
	a->st.tor_relays++;
	return 1;
}

/*
 * A worker on the agent's own host in another process (torchrun's
 * --nproc-per-node 2) sends to the agent's address over the host's
 * loopback, where the ToR never sees it: while the ToR aggregates, it
 * must send to the ToR's address, as librina's agent rank does
 * (user/lib/ina_worker.c, contrib_dest()). TOR_ON tells it so; k < 0:
 * every worker on our host, the agent's rank's too (which reads our
 * state instead, and ignores it). rina.ko's agent relays theirs
 * instead (relay_own) and tells no one.
 */
static void tell_host_workers(struct rina_agent_core *a, int k)
{
	__u32 j;

	if (a->cfg.relay_own || a->tor_state != RINA_AGENT_TOR_ON)
		return;
	for (j = 0; j < a->cfg.n_local; j++)
		if ((k < 0 || (__u32)k == j) &&
		    a->cfg.local[j].ip == a->cfg.self.ip)
			rina_agent_send_ctrl(a, &a->cfg.local[j],
					     RINA_CTRL_TOR_ON);
}

/*
 * A contribution of such a worker that came here while the ToR
 * aggregates: adding it here would split its slot between the ToR and
 * the agent. Dropped; the worker, told again, resends it to the ToR.
 */
int rina_agent_redirect_to_tor(struct rina_agent_core *a,
			       const struct rina_hdr *h,
			       const struct rina_agent_addr *from)
{
	int k;

	if (a->cfg.relay_own || a->tor_state != RINA_AGENT_TOR_ON ||
	    from->ip != a->cfg.self.ip || (h->flags & RINA_F_SW_BYPASS))
		return 0;
	k = rina_agent_local_index(a, from);
	if (k < 0)
		return 0;
	tell_host_workers(a, k);
	a->st.tor_redirects++;
	return 1;
}

static void tor_lost(struct rina_agent_core *a, __u64 now, int forgot);

/* OK either way: held already, or installed by the request */
static int tor_st_ok(__u32 st)
{
	return st == RINA_TOR_ST_OK || st == RINA_TOR_ST_INSTALLED;
}

/*
 * TOR_REPLY, a trusted control message from the rack's ToR
 * (ctrl_trusted()): an answer to TOR_INSTALL, TOR_REMOVE or a probe.
 */
void rina_agent_tor_reply(struct rina_agent_core *a, const struct rina_hdr *h,
			  const struct rina_agent_addr *from)
{
	const struct rina_ctrl *m = (const struct rina_ctrl *)(h + 1);
	__u32 st = rina_ntohl(m->arg);

	if (!a->cfg.tor.ip || from->ip != a->cfg.tor.ip ||
	    rina_get_be64(&m->hash) != a->cfg.job_hash) {
		a->st.bad++;
		return;
	}
	/*
	 * The ToR echoes the request's session: an answer to the
	 * last session's TOR_REMOVE (librina's agent of the last
	 * communicator, on the same port) is not ours. Taken as the
	 * answer to our install, its "unknown job" had the rack
	 * aggregate in software while the ToR installed the job:
	 * split slots, the call stalled (net_lifecycle with ToRs).
	 */
	if (rina_ctrl_session(h) != a->session) {
		a->st.stale++;
		return;
	}
	if (a->tor_state == RINA_AGENT_TOR_ON) {
		/*
		 * A probe installed the job: the ToR had lost it while
		 * alive (rina-tor away TOR_FORGET_MS forgets its jobs;
		 * killed and restarted before our probes counted it
		 * lost), and with it every slot it held. Its fresh slots
		 * cannot take the place of those: while it was away the
		 * rack's data passed it and we added it (tor_passed),
		 * and what comes now would go to it, slots split between
		 * the two until the call times out. So lost, as if it
		 * had gone silent (the workers resend what it held,
		 * upstream is asked, it is told to let go), and it is
		 * given the job back between calls. An INSTALLED with
		 * no probe out is a late copy of the answer that put us
		 * ON (our retry's OK came first): the ToR holds it.
		 */
		if (st == RINA_TOR_ST_INSTALLED && a->tor_tries) {
			tor_lost(a, a->ops->now_us(a->ctx), 1);
			return;
		}
		rina_agent_tor_heard(a);	/* a probe answered */
		return;
	}
	if (a->tor_state == RINA_AGENT_TOR_LOST) {
		/*
		 * "Not installed" ends the TOR_REMOVEs and says the
		 * ToR is there; an OK may be a late probe's, or the
		 * removal: ask once more.
		 */
		if (st == RINA_TOR_ST_UNKNOWN_JOB)
			a->tor_back = 1;
		return;
	}
	if (rina_agent_core_tor_unheard(a) && st == RINA_TOR_ST_UNKNOWN_JOB) {
		/* there now, holding nothing: as a lost one back */
		a->tor_back = 1;
		return;
	}
	if (a->tor_state == RINA_AGENT_TOR_OFF &&
	    a->tor_status == RINA_AGENT_TOR_SILENT && tor_st_ok(st)) {
		/*
		 * Installed after we gave up on it: the ToR would
		 * take contributions the agent now adds itself.
		 */
		rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
		return;
	}
	if (a->tor_state != RINA_AGENT_TOR_WAIT)
		return;	/* a late copy */
	if (a->tor_reinstall) {
		/* the last session's slots are gone: install anew */
		a->tor_reinstall = 0;
		rina_agent_tor_ask_install(a);
		return;
	}
	/* the listeners and the counters know OK only: the same here */
	a->tor_status = tor_st_ok(st) ? RINA_TOR_ST_OK : st;
	a->tor_state = a->tor_status == RINA_TOR_ST_OK ?
		       RINA_AGENT_TOR_ON : RINA_AGENT_TOR_OFF;
	if (a->tor_returning && a->tor_state == RINA_AGENT_TOR_ON)
		a->st.tor_returns++;
	rina_agent_tor_heard(a);
	/* the listener may read tor_returning */
	ev(a, RINA_AGENT_EV_TOR, a->tor_status);
	a->tor_returning = 0;
	/* before HELLO_ACK: a worker told after it might send here first */
	tell_host_workers(a, -1);
	rina_agent_answer_workers(a);
}

void rina_agent_core_tor_install(struct rina_agent_core *a)
{
	if (!a->cfg.tor.ip)
		return;
	a->tor_returning = a->tor_state == RINA_AGENT_TOR_LOST ||
			   rina_agent_core_tor_unheard(a);
	a->tor_reinstall = 0;
	a->tor_state = RINA_AGENT_TOR_WAIT;
	a->tor_back = 0;
	rina_agent_tor_ask_install(a);
}

int rina_agent_core_tor_may_return(const struct rina_agent_core *a,
				   __u64 quiet_us)
{
	__u64 now = a->ops->now_us(a->ctx);
	__u32 j;

	if ((a->tor_state != RINA_AGENT_TOR_LOST &&
	     !rina_agent_core_tor_unheard(a)) ||
	    !a->tor_back ||
	    now - a->last_data < quiet_us || !rina_agent_ag_drained(a) ||
	    a->held.n)
		return 0;
	for (j = 0; j < a->agg.cap; j++) {
		const struct rina_agent_agg *sl = a->agg.tab[j].val;

		if (sl && !(sl->s.state & RINA_SLOT_ST_DONE))
			return 0;
	}
	return 1;
}

void rina_agent_core_tor_remove(struct rina_agent_core *a)
{
	if (a->tor_state != RINA_AGENT_TOR_ON)
		return;
	/* two copies: nothing waits for the reply */
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	a->tor_state = RINA_AGENT_TOR_OFF;
	a->tor_status = RINA_TOR_ST_OK;
}

/*
 * Upstream resends what the ToR took and never acknowledged one packet
 * per timeout: towards an INA member its RACK goes by first
 * transmissions only (user/lib/ring.c, rx_ack()), so the ACK of a
 * retransmission finds no other loss. Ask it, once per round in the
 * window, with a request of one seq: a request from its INA member says
 * that ACKs were lost, not a queue, and it sends every overdue packet
 * of that round at once (rx_ask(), "asked"). Without it a mixed ring's
 * upstream member, a call behind the rack, took 3-5 s to finish after
 * a ToR was killed in full flight.
 */
static void ask_upstream(struct rina_agent_core *a, __u16 round)
{
	struct {
		struct rina_hdr h;
		__be32 seq;
	} __attribute__((packed)) p;

	rina_agent_hdr_init(a, &p.h, RINA_OP_NACK, round);
	p.h.n_elem = rina_htons(1);
	p.seq = 0;
	rina_agent_xmit(a, &a->cfg.prev, &p, sizeof(p));
	a->st.asks_out++;
}

/*
 * The ToR that aggregated the rack is gone (killed, stopped, its program
 * reloaded): what it held is lost, and what the rack sends reaches the
 * agent again only where the switch forwards it as a plain bridge would
 * (rina-tor does once its lease ran out; protocol-ina.md section 9). Go
 * on in software: the workers' and upstream's retransmissions bring the
 * rack's slots here. The ToR is told to let go (TOR_REMOVE until it
 * says it holds nothing): one that was only slow to answer would
 * otherwise go on taking contributions the agent now adds itself.
 */
static void tor_lost(struct rina_agent_core *a, __u64 now, int forgot)
{
	__u32 k;

	if (a->cfg.L > 1) {
		ask_upstream(a, (__u16)(a->max_round - 1));
		ask_upstream(a, a->max_round);
	}
	/*
	 * Every rank of the rack, ours too: what a worker sent and has not
	 * seen delivered may have died with the ToR, and its timers, backed
	 * off in the silence and restarted by each delivery that now comes
	 * through us, would resend it seconds later. Told, it takes all of
	 * that for lost and resends it (user/lib/ina_worker.c, wrestart()).
	 */
	for (k = 0; k < a->cfg.n_local; k++)
		rina_agent_send_ctrl(a, &a->cfg.local[k], RINA_CTRL_TOR_LOST);
	/*
	 * tor_status stays the ToR's last answer (ok): the state says it
	 * went silent. RINA_AGENT_TOR_SILENT is "never answered", which
	 * every stats reader printed as 4294967295 after a ToR died.
	 */
	a->tor_state = RINA_AGENT_TOR_LOST;
	a->st.tor_lost++;
	a->tor_tries = 1;
	a->tor_last = now;
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	ev(a, RINA_AGENT_EV_TOR_LOST, forgot ? RINA_AGENT_TOR_FORGOT :
	   (__u32)((now - a->tor_heard) / 1000));
}

/*
 * While the ToR aggregates, it sends the agent a copy of every
 * allgather packet; when nothing came for RINA_AGENT_TOR_PROBE_US (a
 * lull between calls, or a dead ToR), ask it (TOR_INSTALL of an
 * installed job changes nothing: OK; INSTALLED says it had lost it,
 * rina_agent_tor_reply()), every RINA_AGENT_TOR_RETRY_US. Lost
 * after RINA_AGENT_TOR_TRIES unanswered probes (counted in probes, not
 * in time, so that an agent thread that was not scheduled for a while
 * reads the replies waiting for it before it decides) once the rack's
 * data reaches the agent past the ToR.
 */
static __u64 tor_watch(struct rina_agent_core *a, __u64 now)
{
	if (now - a->tor_heard < RINA_AGENT_TOR_PROBE_US)
		return a->tor_heard + RINA_AGENT_TOR_PROBE_US - now;
	if (a->tor_tries && now - a->tor_last < RINA_AGENT_TOR_RETRY_US)
		return a->tor_last + RINA_AGENT_TOR_RETRY_US - now;
	/*
	 * Silence alone is not enough: a slow switch (bmv2) may answer
	 * late while it still takes the rack's data, and adding that data
	 * here too would split slots. Lost once the rack's data comes to
	 * the agent past it (a switch forwarding as a plain bridge would).
	 */
	if (a->tor_tries >= RINA_AGENT_TOR_TRIES &&
	    a->tor_passed > a->tor_heard) {
		tor_lost(a, now, 0);
		return RINA_AGENT_TOR_RETRY_US;
	}
	a->tor_tries++;
	a->tor_last = now;
	a->st.tor_probes++;
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_INSTALL);
	return RINA_AGENT_TOR_RETRY_US;
}

/*
 * TOR_REMOVE to a lost ToR until it says "not installed", or give up;
 * then once a second (RINA_AGENT_TOR_BACK_US), a question that changes
 * nothing there, until it answers: it is back (tor_back). An unheard
 * one (rina_agent_core_tor_unheard()) is asked once a second from the
 * start.
 */
static __u64 tor_release(struct rina_agent_core *a, __u64 now)
{
	__u64 period = a->tor_tries < RINA_AGENT_TOR_TRIES ?
		       RINA_AGENT_TOR_RETRY_US : RINA_AGENT_TOR_BACK_US;

	if (a->tor_back)
		return RINA_AGENT_NO_WAIT;
	if (now - a->tor_last < period)
		return a->tor_last + period - now;
	if (a->tor_tries < RINA_AGENT_TOR_TRIES)
		a->tor_tries++;
	a->tor_last = now;
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
	return period;
}

/* TOR_INSTALL again until the ToR answers or we give up on it. */
__u64 rina_agent_tor_tick(struct rina_agent_core *a, __u64 now)
{
	if (a->tor_state == RINA_AGENT_TOR_ON)
		return tor_watch(a, now);
	if (a->tor_state == RINA_AGENT_TOR_LOST ||
	    rina_agent_core_tor_unheard(a))
		return tor_release(a, now);
	if (a->tor_state != RINA_AGENT_TOR_WAIT ||
	    (!a->tor_reinstall && !a->tor_tries))	/* no session yet */
		return RINA_AGENT_NO_WAIT;
	if (now - a->tor_last >= RINA_AGENT_TOR_RETRY_US) {
		if (a->tor_tries >= RINA_AGENT_TOR_TRIES) {
			a->tor_state = RINA_AGENT_TOR_OFF;
			a->tor_status = RINA_AGENT_TOR_SILENT;
			a->tor_reinstall = 0;
			/* tor_retry: the next question a second from now */
			a->tor_last = now;
			ev(a, RINA_AGENT_EV_TOR, RINA_AGENT_TOR_SILENT);
			rina_agent_answer_workers(a);
			return a->cfg.tor_retry ? RINA_AGENT_TOR_BACK_US :
			       RINA_AGENT_NO_WAIT;
		}
		a->tor_tries++;
		a->tor_last = now;
		rina_agent_send_ctrl(a, &a->cfg.tor, a->tor_reinstall ?
				     RINA_CTRL_TOR_REMOVE :
				     RINA_CTRL_TOR_INSTALL);
	}
	return a->tor_last + RINA_AGENT_TOR_RETRY_US - now;
}

/*
 * An agent of many sessions (rina.ko's): the ToR still holds the ended
 * session's slots, which the next one's first rounds would meet as done.
 * Remove the job and, once the ToR answered, install it again
 * (tor_reinstall, see rina_agent_ctrl()); the workers wait for their HELLO_ACK
 * meanwhile (workers_may_start()). A lost ToR comes back by the host's
 * rina_agent_core_tor_may_return() as before.
 */
void rina_agent_tor_session_reset(struct rina_agent_core *a)
{
	if (a->cfg.single_session || a->tor_state != RINA_AGENT_TOR_ON)
		return;
	a->tor_state = RINA_AGENT_TOR_WAIT;
	a->tor_reinstall = 1;
	a->tor_tries = 1;
	a->tor_last = a->ops->now_us(a->ctx);
	rina_agent_send_ctrl(a, &a->cfg.tor, RINA_CTRL_TOR_REMOVE);
}
