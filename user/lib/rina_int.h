/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina internals shared by its files: the communicator, the ring
 * engine entry point, reduce kernels and error reporting.
 */
#ifndef RINA_INT_H
#define RINA_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <linux/rina.h>

#include "rina.h"
#include "plan.h"
#include "agg.h"
#include "engine.h"
#include "ctrl_auth.h"
#include "transport.h"
#include "endpoint.h"
#include "session.h"

#define RINA_BATCH		64	/* messages per send/recv call */
#define RINA_STASH_MAX		1024	/* early packets kept for the next call */

struct rina_stash_ent {
	uint32_t	len;
	struct rina_addr addr;
	uint8_t		ecn;
	uint8_t		*buf;
};

struct rina_agent;

/* What the agent of an INA rack counts (software aggregation included). */
struct rina_agent_stats {
	uint64_t contrib_in, partial_in, partial_out, slots_done;
	uint64_t ag_in, ag_out, ag_retransmits, mcast_out;
	uint64_t acks_out, ag_acks_in, nacks_in, repairs, reemit;
	uint64_t dup, stale, collision, bad, malformed, foreign;
	uint64_t tor_copies;
	uint64_t host_relays;
	uint64_t ctrl_forged, ctrl_replayed, bad_tag;
	uint64_t far_round;	/* outside the window of rounds */
	uint64_t ack_tx_bytes;	/* its ACK frames' bytes */
	uint64_t asks_out, asks_in;	/* partials asked again: agent_thread.c */
	uint64_t gap_nacks;		/* local workers asked for a gap */
	/* its own datagrams: rina_stats.retx_tx_bytes, tx_refused_bytes */
	uint64_t retx_tx_bytes, tx_refused_bytes;
	/* what the kernel dropped at its socket (the tag filter's too) */
	uint64_t rx_kernel_drops;
	uint32_t tor_state, tor_status;	/* core/agent.h */
	uint64_t ctrl_duplicates, ctrl_before_start;
};

struct rina_comm {
	int			rank;
	unsigned int		N;		/* ranks */
	unsigned int		L;		/* ring members */
	unsigned int		member;		/* my member index */
	struct rina_job_desc	job;
	struct rina_ring	ring;
	uint64_t		job_hash;
	struct rina_addr	self, next, prev;	/* who this rank talks to */
	struct rina_addr	member_next, member_prev; /* ring neighbours */
	int			next_rank, prev_rank;
	bool			ina_local;	/* a worker of an INA rack */
	/*
	 * its agent found the ToR lost (RINA_CTRL_TOR_LOST): the worker's
	 * backed-off timers start over (ina_worker.c, wrestart())
	 */
	bool			tor_lost_told;
	/*
	 * a worker on its agent's host, not the agent's rank: the agent
	 * said the ToR aggregates (RINA_CTRL_TOR_ON), and no TOR_LOST since
	 */
	bool			tor_on_told;
	/* the ring has INA members: struct rina_sched.pad */
	bool			pad;
	/* where contributions go: the agent's or the ToR's address */
	struct rina_addr	contrib_to;
	/* the ToR's, once installed; from the start on the agent's host */
	struct rina_addr	tor_to;
	struct rina_agent	*agent;		/* this rank is its rack's agent */
	int			kfd;		/* /dev/rina attached, or -1 */
	uint64_t		kev_next;	/* rina_session_events(): next read */
	bool			kernel_agent;	/* rina.ko runs our rack's agent */
	/* ... and any rank of the rack on its host: RINA_PLAN_F_KERNEL_AGENT */
	bool			kernel_rack_agent;
	uint32_t		contrib_before[RINA_MAX_RANKS];	/* see ring.c */

	struct rina_transport	*tp;
	uint32_t		max_msg;	/* header + E words */
	uint32_t		timeout_ms;
	uint32_t		rto_us;		/* timer floor and start, job's */
	struct rina_cc_params	cc_params;	/* the job's cc_* knobs */
	struct rina_path	to_next;	/* ring data downstream */
	struct rina_path	to_agg;		/* contributions, INA worker */
	/* control messages seen during calls: the session layer's */
	int (*ctrl_rx)(struct rina_comm *c, const struct rina_hdr *h,
		       const struct rina_addr *from);
	/* news from outside the ring, looked at every receive: likewise */
	int (*events)(struct rina_comm *c);
	uint32_t		drop_ppm, dup_ppm, rx_drop_ppm;
	uint64_t		rng;

	/*
	 * The ring phases (RINA_RM_RS, RINA_RM_AG) the next calls run
	 * alone, 0 for both, or a broadcast from ring member bc_root
	 * (RINA_RM_BC): set for one collective on a plain ring only
	 * (rina_wire_phases(), collectives.c).
	 */
	uint8_t			phases;
	uint32_t		bc_root;
	uint16_t		round;		/* next call's round number */
	uint32_t		slot_base;
	int			broken;		/* enum rina_result, sticky */
	/*
	 * The rank this one gave up on in its last failed call (ring.c,
	 * dead_next()), or -1: its ABORT names it (core/abort.h).
	 */
	int			dead_peer;
	bool			prev_said_bye;	/* upstream left the ring */
	uint8_t			session;	/* enum rina_session_phase */
	/* this communicator's incarnation, in HELLO (session.c) */
	uint32_t		incarnation;
	uint32_t		prev_inc;	/* upstream's, once greeted */
	bool			prev_greeted;
	/* signed control messages: stamps taken (job.has_secret only) */
	struct rina_ctrl_guard	*ctrl_guard;
	/* the ring's session (session.c), 0 until known */
	uint64_t		session_id;
	/* every data packet, ACK and NACK carries the session's tag */
	bool			tagged;
	uint8_t			tag[RINA_TAG_LEN];
	/* job option `auth mac`: a MAC per packet under mac_key instead */
	bool			auth_mac;
	uint8_t			mac_key[RINA_SECRET_LEN];

	struct rina_stats	st;

	struct rina_stash_ent	stash[RINA_STASH_MAX];
	unsigned int		nstash;

	/* this rank's data-path engine, made at its first call: */
	struct rina_rm		*rm;		/* a plain member's (ring.c) */
	struct rina_iw		*iw;		/* an INA worker's */
	struct rina_agg_ops	engine_agg;	/* rina_reduce's, for them */
	/* scratch kept across calls, grown on demand */
	int32_t			*work;
	size_t			work_cap;
	uint8_t			*txbuf;		/* RINA_BATCH x max_msg */

	struct rina_async	*async;		/* async.c, or NULL */
};

/* Error reporting: sets the thread's last error and returns result. */
int rina_fail(int result, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A received ABORT (arg: core/abort.h) as this rank's error: who aborted,
 * why, and the silent workers an agent named (abort.c).
 */
int rina_abort_fail(const struct rina_comm *c, unsigned int src,
		    uint32_t arg);

/* Monotonic microseconds (clock.c). */
uint64_t rina_now_us(void);

/*
 * Destroy: whether an endpoint that still waits for its neighbours' BYE
 * may leave. A peer still in the last call retries at least every
 * RINA_RTO_SLOT_MAX_US, so leave once nothing of the job arrived for 3 s
 * (many lost retries, or a peer descheduled for a while) or for the
 * job's timeout, if shorter; never later than three timeouts. A
 * neighbour that already left after our BYE reached it (its BYE_ACK
 * lost) ends here too.
 */
#define RINA_LINGER_IDLE_US	3000000
/*
 * Destroy, once the BYE handshakes are done: go on answering BYE this
 * long (many of a neighbour's BYE periods), so that a lost BYE_ACK of
 * ours does not leave the neighbour waiting for RINA_LINGER_IDLE_US.
 */
#define RINA_LINGER_TIMEWAIT_US	50000

static inline bool rina_linger_over(uint32_t timeout_ms, uint64_t start,
				    uint64_t last_rx, uint64_t now)
{
	uint64_t t = (uint64_t)timeout_ms * 1000;
	uint64_t idle = t < RINA_LINGER_IDLE_US ? t : RINA_LINGER_IDLE_US;

	return now - last_rx > idle || now - start > 3 * t;
}

/* What librina gives the core's engines (engine_host.c). */
extern const struct rina_engine_ops rina_engine_host_ops;
/* The RINA_PEER_* that address a is, as the engines take a source. */
__u8 rina_peer_of(const struct rina_comm *c, const struct rina_addr *a);
/* An engine's counters (rina_*_take_stats()) into the communicator's. */
void rina_engine_add_stats(struct rina_comm *c,
			   const struct rina_engine_stats *s);

/* Ring allreduce of int32 words in place (wire dtype and op given). */
int rina_ring_run(struct rina_comm *c, int32_t *acc, size_t count,
		  uint8_t dtype_op);
/* Free the ring member engine (rina_ring_run()). */
void rina_ring_free(struct rina_comm *c);
struct rina_sched;
/* The schedule of a call of count elements on this ring (sched.c). */
int rina_call_sched(const struct rina_comm *c, struct rina_sched *s,
		    size_t count);
/* A local worker of an INA rack for one call (ina_worker.c). */
int rina_ina_worker_run(struct rina_comm *c, int32_t *acc, size_t count,
			uint8_t dtype_op);
/* Free the INA worker engine (rina_ina_worker_run()). */
void rina_ina_worker_free(struct rina_comm *c);
/* One call in whichever role this rank has (call.c). */
int rina_run_call(struct rina_comm *c, int32_t *acc, size_t count,
		  uint8_t dtype_op);
/* The agent thread of an INA rack (agent_thread.c). */
int rina_agent_start(struct rina_comm *c, struct rina_agent **out);
void rina_agent_stop(struct rina_agent *a, bool linger);
/*
 * The rack's ToR aggregates (agent_thread.c): the agent rank's contributions go
 * to it, else to the agent port (lost mid-job, or being asked again).
 */
bool rina_agent_tor_on(const struct rina_agent *a);
/* The agent's rank is in a call: a lost ToR is not re-installed now. */
void rina_agent_rank_busy(struct rina_agent *a, bool busy);
/*
 * The agent's counters, as its thread copies them when asked (it answers
 * within its longest wait, 5 ms): not for a timed path.
 */
void rina_agent_get_stats(struct rina_agent *a, struct rina_agent_stats *st);
/* /dev/rina when rina.ko has the job (kernel.c); file-based otherwise. */
int rina_kernel_attach(struct rina_comm *c);
void rina_kernel_detach(struct rina_comm *c);
/*
 * rina.ko's events of the attached job (member lost, job aborted or
 * deleted): RINA_ERR_ABORTED with the kernel's reason, if one came;
 * never blocks. The session layer tells the other ranks
 * (rina_session_events()).
 */
int rina_kernel_events(struct rina_comm *c);

/* Reduce kernels, vectorised where the CPU allows (reduce.c). */
struct rina_reduce_ops {
	const char *name;
	int  (*add_be)(int32_t *acc, const __be32 *in, uint32_t n);
	void (*max_be)(int32_t *acc, const __be32 *in, uint32_t n);
	void (*store_be)(__be32 *out, const int32_t *acc, uint32_t n);
	void (*load_be)(int32_t *acc, const __be32 *in, uint32_t n);
	void (*quantize)(int32_t *q, const float *x, uint32_t n, double f);
	void (*dequantize)(float *y, const int32_t *q, uint32_t n, double div);
};
extern const struct rina_reduce_ops *rina_reduce;
void rina_reduce_select(const char *force);	/* "scalar", "avx2", NULL */

/* The kernels chosen, as the core's engines take them. */
static inline const struct rina_agg_ops *
rina_engine_agg(struct rina_comm *c)
{
	c->engine_agg.add_be = rina_reduce->add_be;
	c->engine_agg.max_be = rina_reduce->max_be;
	c->engine_agg.store_be = rina_reduce->store_be;
	c->engine_agg.load_be = rina_reduce->load_be;
	return &c->engine_agg;
}

/* float32 support (quant.c). */
int rina_float_allreduce(struct rina_comm *c, const float *in, float *out,
			 size_t count, bool avg);

/* Open a transport by name: auto, udp, xdp, inproc (transport.c). */
int rina_transport_open(const char *want, const struct rina_transport_cfg *tc,
			struct rina_transport **out);

int rina_inproc_transport_create(const struct rina_transport_cfg *cfg,
				 struct rina_transport **out,
				 char *err, size_t errlen);

/* int32 or float32, as the wire carries them (wire_allreduce.c). */
int rina_wire_allreduce(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *c);
/*
 * The same running only the ring's phases (RINA_RM_RS, RINA_RM_AG; 0
 * both) on a plain ring: the buffer laid out by the schedule
 * (collectives.c); float32's exponents still take a whole allreduce.
 * RINA_RM_BC: int32 words broadcast from ring member root (its
 * recvbuf's, by the allgather phase alone; core/ring_member.h).
 */
int rina_wire_phases(const void *sendbuf, void *recvbuf, size_t count,
		     enum rina_dtype dtype, enum rina_redop op,
		     rina_comm_t *c, uint8_t phases, uint32_t root);

/* bfloat16, float16, float64 through the float32 path (convert.c). */
bool rina_dtype_converted(enum rina_dtype dtype);
void rina_dtype_widen(float *dst, const void *src, size_t n,
		      enum rina_dtype dtype);
/* Narrow float32 results; the number of them float16 cannot hold. */
size_t rina_dtype_narrow(void *dst, const float *src, size_t n,
			 enum rina_dtype dtype);
/*
 * A call's float32 results narrowed into dst: RINA_ERR_OVERFLOW (counted
 * in c's overflows) when float16 cannot hold some, else RINA_OK.
 */
int rina_dtype_narrow_result(rina_comm_t *c, void *dst, const float *src,
			     size_t n, enum rina_dtype dtype);
int rina_convert_allreduce(const void *sendbuf, void *recvbuf, size_t count,
			   enum rina_dtype dtype, enum rina_redop op,
			   rina_comm_t *c);
float rina_bf16_to_float(uint16_t h);
uint16_t rina_float_to_bf16(float f);

/* The asynchronous calls' progress thread and queue (async.c). */
struct rina_async;
/* Destroy: finish or fail every pending request, stop the thread. */
void rina_async_stop(struct rina_comm *c);

/*
 * INA workers and agents send within a congestion window (core/cc.h,
 * protocol.md 6.1) whenever the job has congestion control, in mixed
 * rings too: there the member sending towards an INA rack windows by
 * ordinal span (ring.c, pump_ordinals()), so its oldest ordinals, which
 * the rack's workers wait on, can always go.
 */
static inline bool rina_ina_cc(const struct rina_comm *c)
{
	return c->cc_params.flags != 0;
}

#endif /* RINA_INT_H */
