/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent of an INA rack: the one implementation of the agent protocol
 * (Documentation/protocol-ina.md), run by librina's agent thread
 * (user/lib/agent_thread.c), by rina.ko's agent worker
 * (kmod/agent_kthread.c) and by rina-sim (sim/rina.cc). Its files:
 * agent_int.h.
 *
 *  - software aggregation with the ToR's slot rules (core/slot.h) for
 *    everything that reaches it, keyed by (round, seq): no collisions;
 *  - the allgather sender of record: it acknowledges allgather data to
 *    the upstream member once it holds a copy, and retransmits what the
 *    rack sent downstream until the downstream member acknowledges it
 *    (RACK-style loss detection plus one timer at a time);
 *  - allgather repair: NACKed data is sent again to the local worker;
 *  - downstream scatter-reduce ACKs fanned out to the local workers;
 *  - the rack's handshakes (HELLO, BYE) with both ring neighbours and
 *    its workers, and the end of a session (all of them said BYE).
 *
 * Plain C without libc or kernel calls: the host supplies memory, the
 * clock and a send function (struct rina_agent_ops) and drives the core
 * with rina_agent_core_rx() for every datagram to the agent port and
 * rina_agent_core_tick() when the time it asked for has passed. The core
 * is not thread-safe: one host thread drives it.
 */
#ifndef RINA_CORE_AGENT_H
#define RINA_CORE_AGENT_H

#include "compat.h"
#include "rtt.h"
#include "rack.h"
#include "cc.h"
#include <linux/rina.h>
#include "keymap.h"
#include "ctrl_auth.h"

#define RINA_AGENT_MAX_LOCAL	31	/* ranks of an INA rack */
#define RINA_AGENT_RTO_MAX_US	200000	/* timer cap before back-off */
#define RINA_AGENT_BACKOFF_MAX	8	/* the timer doubles at most to this */
#define RINA_AGENT_HELLO_US	10000	/* HELLO downstream period */
#define RINA_AGENT_BYE_US	5000	/* BYE downstream period */
#define RINA_AGENT_NO_WAIT	(~0ULL)
#define RINA_AGENT_TOR_RETRY_US	50000	/* TOR_INSTALL resent this often */
#define RINA_AGENT_TOR_TRIES	8	/* then the rack aggregates alone */
#define RINA_AGENT_TOR_SILENT	(~0U)	/* tor_status: no reply came */
/* EV_TOR_LOST's arg: it answered a probe, holding nothing of the job */
#define RINA_AGENT_TOR_FORGOT	(~0U - 1)
/*
 * While the ToR aggregates: nothing from it for RINA_AGENT_TOR_PROBE_US
 * (no allgather copy, no reply), probe it (TOR_INSTALL, idempotent) every
 * RINA_AGENT_TOR_RETRY_US; RINA_AGENT_TOR_TRIES probes unanswered, and
 * the rack's data reaching the agent past it, and it is lost: the rack
 * goes on in software (protocol-ina.md section 8).
 */
#define RINA_AGENT_TOR_PROBE_US	100000
/* A lost ToR: asked whether it is back (TOR_REMOVE) this often. */
#define RINA_AGENT_TOR_BACK_US	1000000
#define RINA_AGENT_ROUNDS_AHEAD	16384	/* window of rounds: agent_cache.c */

/*
 * The rack's ToR, as the agent sees it (protocol-ina.md section 9).
 * Values are the UAPI's RINA_AGENT_TOR_ST_* (linux/rina.h), so rina.ko
 * puts them in genl as they are.
 *  NONE: no ToR address, software only;
 *  WAIT: TOR_INSTALL sent, no reply yet;
 *  ON:   the ToR aggregates the rack;
 *  OFF:  refused or silent, software (a silent one asked again with
 *        cfg.tor_retry);
 *  LOST: went silent while it aggregated; software since (TOR_REMOVE
 *        resent until the ToR says it holds none).
 */
enum rina_agent_tor {
	RINA_AGENT_TOR_NONE = RINA_AGENT_TOR_ST_NONE,
	RINA_AGENT_TOR_WAIT = RINA_AGENT_TOR_ST_WAIT,
	RINA_AGENT_TOR_ON = RINA_AGENT_TOR_ST_ON,
	RINA_AGENT_TOR_OFF = RINA_AGENT_TOR_ST_OFF,
	RINA_AGENT_TOR_LOST = RINA_AGENT_TOR_ST_LOST,
};

/* An IPv4 UDP endpoint, network byte order. */
struct rina_agent_addr {
	__be32	ip;
	__be16	port;
	__u16	pad;
};

/* What the agent counts (software aggregation included). */
struct rina_agent_counters {
	__u64 contrib_in, partial_in, partial_out, slots_done;
	__u64 ag_in, ag_out, ag_retransmits, mcast_out;
	__u64 acks_out, ag_acks_in, nacks_in, repairs, reemit;
	__u64 dup, stale, collision, bad, malformed, foreign, nomem;
	/* control messages refused (ctrl_auth.h): forged, or replayed */
	__u64 ctrl_forged, ctrl_replayed;
	__u64 bad_tag;		/* data without the job's tag */
	/* data, NACKs ignored: rina_agent_round_admit() */
	__u64 far_round;
	__u64 tor_copies;	/* allgather copies the ToR sent us */
	__u64 host_relays;	/* of them, relayed to a worker on our host */
	__u64 tor_held;		/* data dropped while asking the ToR */
	__u64 stalls_in;	/* RINA_CTRL_STALL from local workers */
	__u64 tor_probes;	/* TOR_INSTALLs sent to a quiet ToR */
	__u64 tor_lost;		/* times the ToR went silent while on */
	__u64 tor_relays;	/* own-rank contributions passed to the ToR */
	__u64 tor_returns;	/* a lost ToR took the job again */
	/* contributions of a worker on our host sent back to the ToR */
	__u64 tor_redirects;
	/* partials asked of upstream again, and asked of us: ask_upstream() */
	__u64 asks_out, asks_in;
	/* local workers asked for a part a slot lacks: gap_nack() */
	__u64 gap_nacks;
	__u64 sessions;		/* sessions ended (all said BYE) */
	__u64 aborts;		/* jobs aborted by the host (member lost) */
	/* control messages refused as copies of one taken (ctrl_auth.h) */
	__u64 ctrl_duplicates;
	/* ... and as signed before the agent started (ctrl_auth.h) */
	__u64 ctrl_before_start;
};

/* State transitions reported to the host (tracepoints, logs). */
enum rina_agent_event {
	RINA_AGENT_EV_SESSION_START = 1, /* first HELLO of a session */
	RINA_AGENT_EV_NEXT_UP,		/* downstream answered HELLO */
	RINA_AGENT_EV_WORKER_BYE,	/* arg: local worker index */
	RINA_AGENT_EV_WORKERS_LEFT,	/* every local worker said BYE */
	RINA_AGENT_EV_SESSION_END,	/* state released for the next */
	RINA_AGENT_EV_ABORT,		/* arg: the result of an ABORT */
	RINA_AGENT_EV_MISMATCH,		/* a peer has another job hash */
	RINA_AGENT_EV_TOR,		/* arg: TOR_REPLY status, or
					 * RINA_AGENT_TOR_SILENT */
	RINA_AGENT_EV_TOR_LOST,		/* arg: ms since the ToR was heard,
					 * or RINA_AGENT_TOR_FORGOT */
};

struct rina_agent_ops {
	/* zeroed memory, or NULL */
	void	*(*zalloc)(void *ctx, __u32 size);
	void	(*free)(void *ctx, void *p);
	__u64	(*now_us)(void *ctx);	/* monotonic */
	/* Send one datagram; buf is the core's, copy it before returning. */
	void	(*send)(void *ctx, const struct rina_agent_addr *to,
			const void *buf, __u32 len);
	/*
	 * Required with cfg.relay_own: send one datagram to `to` as `from`
	 * sent it (its source address and port), since the ToR knows its
	 * workers by address and port. buf as for send.
	 */
	void	(*relay)(void *ctx, const struct rina_agent_addr *to,
			 const struct rina_agent_addr *from, const void *buf,
			 __u32 len);
	/* Optional: faster int32 kernels with core/agg.h's semantics. */
	int	(*add_be)(__s32 *acc, const __be32 *in, __u32 n);
	void	(*max_be)(__s32 *acc, const __be32 *in, __u32 n);
	void	(*load_be)(__s32 *acc, const __be32 *in, __u32 n);
	void	(*store_be)(__be32 *out, const __s32 *acc, __u32 n);
	/* Optional: state transitions. */
	void	(*event)(void *ctx, enum rina_agent_event ev, __u32 arg);
	/*
	 * For jobs with a secret (cfg.has_secret), required: SipHash-2-4,
	 * the wall clock in microseconds, and the host's next control
	 * stamp (ctrl_auth.h; unique over the host's senders).
	 */
	rina_mac_fn mac;
	__u64	(*wall_us)(void *ctx);
	__u64	(*ctrl_stamp)(void *ctx);
	/*
	 * Required for the ring's first member (cfg.member 0): 64 random
	 * bits, the session it draws (linux/rina.h, "The session").
	 */
	__u64	(*random_u64)(void *ctx);
	/*
	 * Optional, tagged jobs without per-packet MACs: the session's data
	 * tag is now tag. The host may drop the job's data, ACKs and NACKs
	 * to the agent port that do not end with it before they reach
	 * rina_agent_core_rx() (librina: the socket's filter), so that a
	 * flood of forgeries does not take the agent's time.
	 */
	void	(*tag_set)(void *ctx, __u16 job_id,
			   const __u8 tag[RINA_TAG_LEN]);
};

struct rina_agent_cfg {
	__u16	job_id;
	__u16	rank;		/* the agent rank: src_id it sends */
	__u16	elems;		/* E */
	__u16	n_local;	/* m: ranks of the rack, 1..31 */
	__u32	window;		/* W */
	__u32	L;		/* ring members */
	__u32	member;		/* the rack's member index */
	__u32	rto_us;		/* timer floor and start */
	/*
	 * Congestion control of the retransmissions downstream (core/cc.h;
	 * loss is the signal used): flags 0 leaves them unlimited.
	 */
	struct rina_cc_params cc;
	__u64	job_hash;	/* rina_job_hash() */
	/*
	 * This agent's incarnation, carried in its HELLO (protocol.md
	 * 6, Init); single_session: it serves one session of its workers
	 * and upstream (librina's agent lives as long as one communicator),
	 * so HELLOs of their later incarnations are left to its successor.
	 */
	__u32	incarnation;
	__u32	single_session;
	struct rina_agent_addr next, prev;	/* ring neighbours */
	struct rina_agent_addr self;	/* the rack's address (agent port) */
	struct rina_agent_addr tor;	/* ToR control address, ip 0: none */
	/*
	 * relay_own: the agent rank's worker sends its contributions to the
	 * agent port (rina.ko's agent: a datagram to the host's own address
	 * never leaves it); pass them on to the ToR while it aggregates.
	 */
	__u32	relay_own;
	/*
	 * tor_retry (fallback software): a ToR that never answered
	 * TOR_INSTALL is asked again once a second, as a lost one is
	 * (tor_release()), and may take the job at a call boundary
	 * (rina_agent_core_tor_may_return()). Without it, it stays off.
	 */
	__u32	tor_retry;
	struct rina_agent_addr local[RINA_AGENT_MAX_LOCAL];
	/* the job secret: control messages signed and checked with it */
	__u32	has_secret;
	__u8	secret[RINA_SECRET_LEN];
	/*
	 * tagged: every other datagram carries the session's tag
	 * (rina_session_tag()); auth_mac (job option `auth mac`): its MAC
	 * under the session's data key (rina_data_key()) instead.
	 */
	__u32	tagged;
	__u32	auth_mac;
};

struct rina_agent_ag;

/* Sequence numbers per "held" ACK to the workers (see ag_from_tor()). */
#define RINA_AGENT_HELD_MAX	64

/*
 * ACKs the agent sends for the ToR's allgather copies (to the workers,
 * to upstream) wait for company, as TCP's delayed ACKs do (RFC 1122
 * 4.2.3.2): until RINA_AGENT_ACK_BATCH seqs, the last packet of a chunk,
 * or a quarter of the smoothed round trip, at most
 * RINA_AGENT_ACK_DELAY_MAX_US (below the 2 ms after which a worker
 * probes: a millisecond of it may be the host's poll). One ACK per
 * result made them a tenth of the agent host's bytes (ag_from_tor()).
 */
#define RINA_AGENT_ACK_BATCH		16
/*
 * gap_nack(): a local worker's contribution to ordinal o says that its
 * parts of ordinals o - RINA_AGENT_GAP_DUPTHRESH and older, down to
 * RINA_AGENT_GAP_SPAN of them, were sent before it (a worker sends in
 * ordinal order); one a slot still lacks is asked for again, at most
 * every RINA_AGENT_GAP_REASK_US (a worker resends nothing it sent more
 * recently than that: user/lib/ina_worker.c, wrx_resend())
 */
#define RINA_AGENT_GAP_DUPTHRESH	3
#define RINA_AGENT_GAP_SPAN		8
#define RINA_AGENT_GAP_REASK_US		2000
#define RINA_AGENT_ACK_DELAY_MAX_US	1000

/*
 * An ACK being gathered: seqs of one round, for one destination; and the
 * last one sent, whose seqs the next one of the same round lists again.
 */
struct rina_agent_ackq {
	__u32	seq[RINA_AGENT_HELD_MAX];
	__u32	n;
	__u32	prev[RINA_AGENT_HELD_MAX];
	__u32	nprev;
	__u16	prev_round;
	__u16	round;
	__u8	flags;		/* of the ACK */
	__u8	to_workers;	/* else to the upstream member */
	__u64	t0;		/* when its first seq came */
};

struct rina_agent_core {
	struct rina_agent_cfg	cfg;
	const struct rina_agent_ops *ops;
	void			*ctx;
	struct rina_keymap_mem	mem;
	__u32			local_mask, up_bit;
	__u32			max_msg;

	struct rina_keymap	agg;	/* (round, seq) -> aggregation */
	struct rina_keymap	ag;	/* (round, seq) -> AG copy */
	struct rina_agent_ag	**fifo;	/* unACKed, send order */
	__u32			fifo_head, fifo_tail, fifo_cap;
	struct rina_rack	rack;	/* downstream (rack.h) */
	__u64			last_news;	/* last ACK that acked something */
	/*
	 * The retransmission timer last fired (0: never), and how often
	 * since an ACK last brought news: rina_agent_ag_retransmit()
	 */
	__u64			timer_fired;
	__u32			backoff;
	/*
	 * Sendings downstream so far; the first sending (in that count) of
	 * the latest timer's probe acknowledged, and when its ACK came:
	 * rina_agent_ag_retransmit()
	 */
	__u64			tx_no, probe_no, probe_at;
	struct rina_rtt		rtt;		/* downstream (rtt.h) */
	struct rina_cc		cc;		/* downstream (cc.h) */
	__u16			max_round;

	/* session */
	/*
	 * The ring's session (linux/rina.h), 0 until known: drawn here by
	 * the first member, else taken from upstream's HELLO; the data tag
	 * and key follow it (session_set()).
	 */
	__u64			session;
	__u8			tag[RINA_TAG_LEN];
	__u8			mac_key[RINA_SECRET_LEN];
	int			active;	/* a local worker spoke */
	int			hello_next;	/* HELLO answered */
	int			bye_next;	/* BYE answered */
	int			prev_said_bye;
	int			hello_prev;	/* upstream greeted us */
	__u32			prev_inc;	/* ... in this incarnation */
	__u32			worker_inc[RINA_AGENT_MAX_LOCAL];
	/*
	 * The host is done with this agent (librina: its communicator is
	 * destroyed): a HELLO now is a new incarnation of upstream greeting
	 * the agent that will follow us.
	 */
	int			leaving;
	/* bitmaps of local workers */
	__u32			hello_from, data_from, bye_from;
	__u64			last_hello, last_bye;
	__u64			heard[RINA_AGENT_MAX_LOCAL]; /* data, NACK, STALL */
	/* the rack's current stall: first and last STALL from a worker */
	__u64			stall_first, stall_last;

	/* the ToR */
	enum rina_agent_tor	tor_state;
	__u32			tor_status;	/* last TOR_REPLY status */
	__u32			tor_tries;	/* requests since its last word */
	__u64			tor_last;	/* last request sent */
	__u64			tor_heard;	/* last packet from it */
	__u64			tor_passed;	/* last data it let through */
	int			tor_back;	/* lost/unheard, answers now */
	int			tor_returning;	/* installing a lost one */
	int			tor_reinstall;	/* TOR_REMOVE, then INSTALL */
	__u64			last_data;	/* SR or AG data came */

	/* own-chunk ToR copies held, not yet told to the workers */
	struct rina_agent_ackq	held;
	/* the ToR's copies of upstream's chunks, not yet ACKed upstream */
	struct rina_agent_ackq	ag_up;

	__u8			*scratch;	/* datagram being built */
	struct rina_ctrl_guard	*ctrl_guard;	/* has_secret only */
	__u8			*tagged_tx;	/* a datagram and its tag */
	struct rina_agent_counters st;
};

/*
 * 0, or -1 without memory or with a configuration it cannot serve (a
 * secret without the ops that use it); nothing is left allocated.
 */
int rina_agent_core_init(struct rina_agent_core *a,
			 const struct rina_agent_cfg *cfg,
			 const struct rina_agent_ops *ops, void *ctx);
void rina_agent_core_fini(struct rina_agent_core *a);
/* One datagram received on the agent port. */
void rina_agent_core_rx(struct rina_agent_core *a, const void *buf,
			__u32 len, const struct rina_agent_addr *from);
/*
 * Timers: HELLO and BYE downstream, allgather retransmission; also sends
 * what rx batched for the workers, so hosts call it after each batch of
 * received datagrams. Returns
 * the microseconds after which it wants to run again (RINA_AGENT_NO_WAIT:
 * only when a packet comes).
 */
__u64 rina_agent_core_tick(struct rina_agent_core *a);
/*
 * The ring's session, as upstream's HELLO would tell it (linux/rina.h),
 * for hosts that model no HELLO (the simulator). A pending TOR_INSTALL
 * goes out.
 */
void rina_agent_core_set_session(struct rina_agent_core *a, __u64 session);
/*
 * Ask the rack's ToR to aggregate the job (TOR_INSTALL, resent by the
 * tick until a TOR_REPLY or RINA_AGENT_TOR_TRIES tries; once the session
 * is known). Without a ToR
 * address the state stays RINA_AGENT_TOR_NONE.
 */
void rina_agent_core_tor_install(struct rina_agent_core *a);
/* A ToR that never answered, to be asked again (cfg.tor_retry). */
int rina_agent_core_tor_unheard(const struct rina_agent_core *a);
/*
 * A lost ToR, or with cfg.tor_retry one that never answered, answers
 * again (it holds no job: restarted, started late, or it forgot them)
 * and the rack is between calls as far as the agent can tell: no
 * data for quiet_us, every slot it adds complete, everything it owes
 * downstream acknowledged. The host then re-installs the job
 * (rina_agent_core_tor_install()) when its own rank is between calls.
 */
int rina_agent_core_tor_may_return(const struct rina_agent_core *a,
				   __u64 quiet_us);
/* Release the job on the ToR (TOR_REMOVE, not waited for). */
void rina_agent_core_tor_remove(struct rina_agent_core *a);
/* The host is done with the agent: it only finishes the session. */
void rina_agent_core_leave(struct rina_agent_core *a);
/* Every local worker, upstream and downstream said BYE. */
int rina_agent_core_session_done(const struct rina_agent_core *a);
/* Forget the session: caches, rounds, handshakes (counters stay). */
void rina_agent_core_reset(struct rina_agent_core *a);
/*
 * The job is dead (the host saw a member go): tell the n peers at "to"
 * (every rank of the job) and both ring neighbours with ABORT carrying
 * "result" (librina's enum rina_result), three copies each, and forget
 * the session.
 */
void rina_agent_core_abort(struct rina_agent_core *a, __u32 result,
			   const struct rina_agent_addr *to, __u32 n);
/*
 * Say again that the job is dead (the same ABORT copies), to a rank that
 * started after it died and to whoever greets a dead job's agent; counts
 * and forgets nothing.
 */
void rina_agent_core_say_aborted(struct rina_agent_core *a, __u32 result,
				 const struct rina_agent_addr *to, __u32 n);
/*
 * Software aggregation: the rack's local workers (bit k: local index k)
 * that sent the agent nothing for quiet_us while a slot of the current
 * round, started that long ago by another local contribution, waits for
 * theirs: dead or stopped. 0 while the ToR aggregates (it holds the
 * slots). The host aborts the job naming them (core/abort.h).
 */
__u32 rina_agent_core_silent(const struct rina_agent_core *a, __u64 quiet_us);

#endif /* RINA_CORE_AGENT_H */
