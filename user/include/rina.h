/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina: the API training processes link to run Rina allreduce.
 *
 *	struct rina_config cfg = RINA_CONFIG_INIT;
 *	rina_comm_t *comm;
 *
 *	cfg.job_file = "job.txt";
 *	cfg.rank = 3;
 *	if (rina_comm_init(&comm, &cfg))	// or rina_comm_init_env()
 *		errx(1, "%s", rina_last_error());
 *	rc = rina_allreduce(grad, grad, n, RINA_FLOAT32, RINA_SUM, comm);
 *	rina_comm_destroy(comm);
 *
 * The ABI is append-only: struct rina_config and struct rina_stats carry
 * their size, new fields go at the end.
 */
#ifndef RINA_H
#define RINA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RINA_API_VERSION	1
#define RINA_CONFIG_MAGIC	0x52494e41u	/* "RINA" */

enum rina_result {
	RINA_OK			= 0,
	RINA_ERR_INVALID	= 1,	/* bad argument */
	RINA_ERR_JOBFILE	= 2,	/* job description unreadable or invalid */
	RINA_ERR_SYSTEM		= 3,	/* a system call failed */
	RINA_ERR_NOMEM		= 4,
	RINA_ERR_TIMEOUT	= 5,	/* a peer stopped answering */
	RINA_ERR_ABORTED	= 6,	/* a rank or rina.ko ended the job */
	RINA_ERR_MISMATCH	= 7,	/* ranks disagree on the job */
	RINA_ERR_OVERFLOW	= 8,	/* int32 sum wrapped around */
	RINA_ERR_NONFINITE	= 9,	/* NaN or Inf in a float32 input */
	RINA_ERR_TRANSPORT	= 10,	/* transport unavailable or failed */
	RINA_ERR_BROKEN		= 11,	/* communicator failed earlier */
	__RINA_RESULT_MAX,
};

enum rina_dtype {
	RINA_INT32	= 0,
	RINA_FLOAT32	= 1,
	/*
	 * Converted to float32 and back (round to nearest even) around the
	 * float32 path: same exponent pass, same bitwise identity on every
	 * rank; error bound in Documentation/protocol.md section 7. float64
	 * is reduced at float32 precision (inputs beyond float32's range are
	 * RINA_ERR_NONFINITE); float16 sums beyond 65504 are
	 * RINA_ERR_OVERFLOW (the buffer then holds +-Inf there).
	 */
	RINA_BFLOAT16	= 2,
	RINA_FLOAT16	= 3,
	RINA_FLOAT64	= 4,
};

enum rina_redop {
	RINA_SUM	= 0,
	RINA_AVG	= 1,	/* SUM, divided by the rank count at the end */
	RINA_MAX	= 2,	/* int32 only */
};

struct rina_config {
	uint32_t	size;		/* sizeof(struct rina_config) */
	uint32_t	magic;		/* RINA_CONFIG_MAGIC */
	uint32_t	version;	/* RINA_API_VERSION */
	int		rank;
	const char	*job_file;	/* path, or NULL with job_text */
	const char	*job_text;	/* the job description itself */
	const char	*transport;	/* "auto", "udp", "xdp", "inproc" */
	uint32_t	timeout_ms;	/* 0: the job's */
	uint32_t	drop_ppm;	/* fault injection on send: drop ... */
	uint32_t	dup_ppm;	/* ... and duplicate, per million */
	uint32_t	flags;		/* reserved, 0 */
	uint32_t	rx_drop_ppm;	/* fault injection on receive: drop */
};

#define RINA_CONFIG_INIT {					\
	.size = sizeof(struct rina_config),			\
	.magic = RINA_CONFIG_MAGIC,				\
	.version = RINA_API_VERSION,				\
	.rank = -1,						\
	.transport = "auto",					\
}

/* Monotonic counters of one communicator. */
struct rina_stats {
	uint32_t	size;		/* set by the caller: sizeof(struct rina_stats) */
	uint32_t	pad;
	uint64_t	calls;
	uint64_t	tx_packets, tx_bytes;	/* bytes framed on the wire */
	uint64_t	rx_packets, rx_bytes;
	uint64_t	tx_data, rx_data;	/* data packets */
	uint64_t	tx_acks, rx_acks;
	uint64_t	retransmits;
	uint64_t	fast_retransmits;	/* lost: a later packet was acked */
	uint64_t	duplicates;	/* data packets received twice */
	uint64_t	timeouts;	/* retransmission timer expiries */
	uint64_t	rx_malformed;	/* failed rina_hdr_check */
	uint64_t	rx_foreign;	/* other job, or unknown sender */
	uint64_t	rx_stale;	/* from an earlier call */
	uint64_t	rx_early;	/* from the next call, kept for it */
	uint64_t	fault_dropped, fault_duplicated;
	uint64_t	overflows;	/* calls that returned RINA_ERR_OVERFLOW */
	/* transport */
	uint64_t	xdp_rx_dropped, xdp_rx_ring_full;
	uint64_t	xdp_fill_ring_empty, xdp_invalid_descs;
	uint64_t	nacks;		/* allgather repairs asked for */
	/* the agent of an INA rack (zero on other ranks) */
	uint64_t	agent_contrib_in, agent_partial_in, agent_partial_out;
	uint64_t	agent_slots_done, agent_ag_in, agent_ag_out;
	uint64_t	agent_ag_retransmits, agent_repairs, agent_reemit;
	uint64_t	agent_dup, agent_stale, agent_bad;
	/* the host XDP program on this rank's device (AF_XDP transport) */
	uint64_t	xdp_prog_redirected, xdp_prog_passed;
	uint64_t	xdp_prog_dropped, xdp_prog_fault_dropped;
	/* the agent and its ToR (zero on other ranks) */
	uint64_t	agent_tor;		/* enum rina_tor_state */
	uint64_t	agent_tor_status;	/* its refusal, see below */
	uint64_t	agent_tor_copies;	/* allgather copies it sent */
	/* ACK frames' share of tx_bytes / rx_bytes (this rank's ring role) */
	uint64_t	ack_tx_bytes, ack_rx_bytes;
	uint64_t	fault_rx_dropped;	/* rx_drop_ppm's */
	/*
	 * Control messages refused (protocol.md 6.2): without a valid MAC
	 * or from an address that is not the sender's (ctrl_forged); with
	 * a stamp outside the window or older than every one remembered
	 * (ctrl_replayed). A copy of one taken, as a network that
	 * duplicates datagrams delivers, is ctrl_duplicates (at the end).
	 */
	uint64_t	ctrl_forged, ctrl_replayed;
	/* packets without the job's data tag (protocol.md 6.3), dropped */
	uint64_t	rx_bad_tag;
	/*
	 * the agent: data and NACKs of rounds outside its window of rounds
	 * (a forgery, or a sender of another life), ignored
	 */
	uint64_t	agent_far_round;
	/* the agent's ACK frames' bytes (part of the host's traffic) */
	uint64_t	agent_ack_tx_bytes;
	/*
	 * the agent: allgather copies from the ToR it relayed to the
	 * worker on its own host (which the ToR does not send them to)
	 */
	uint64_t	agent_host_relays;
	/*
	 * who runs this rank's rack's agent, as far as this rank can tell
	 * (enum rina_rack_agent): this rank's thread, rina.ko on this host
	 * (which has its counters: rinactl job show, rinactl stats), or
	 * neither that it knows of
	 */
	uint64_t	rack_agent;
	/*
	 * After a ToR went (protocol-ina.md 8, "A ToR that goes away"):
	 * packets this rank sent again because an agent asked (a worker's
	 * contributions, its own agent's request; a plain member's partials
	 * or results, a neighbouring rack's agent's), and the agent's
	 * requests to its neighbours and from them
	 */
	uint64_t	resent_asked;
	uint64_t	agent_asks_out, agent_asks_in;
	/*
	 * ECN (Documentation/protocol.md, "Congestion control"): data
	 * packets this rank received CE-marked, its own packets the
	 * receiver said were (the ACKs' echo), and the window cuts of this
	 * rank's senders (to the next member, to its aggregator) by signal
	 */
	uint64_t	rx_ce, ce_acked;
	uint64_t	cwnd_cuts_loss, cwnd_cuts_delay, cwnd_cuts_ecn;
	/*
	 * An INA worker's contributions sent again because its agent said
	 * the ToR that held them went away (protocol-ina.md 8)
	 */
	uint64_t	resent_orphaned;
	/*
	 * The agent, while it adds the rack in software: NACKs to a local
	 * worker for a part a slot lacks once that worker's later parts
	 * came (protocol-ina.md 8); the worker's answers count in
	 * resent_asked
	 */
	uint64_t	agent_gap_nacks;
	/*
	 * Bytes as framed on the wire, the tag and the Ethernet, IPv4 and
	 * UDP headers included, this rank's agent's too: data (a
	 * contribution, partial or result) sent again to another host
	 * (not what the agent and its host's worker send each other), and
	 * datagrams the local stack refused (a full socket buffer: lost
	 * as on a wire, and sent again)
	 */
	uint64_t	retx_tx_bytes;
	uint64_t	tx_refused_bytes;
	/*
	 * A ring member that takes no delay signal (next to an INA rack),
	 * or an INA worker of a ring of INA racks only, held data back
	 * because its host's queue held the job's txq_limit bytes already
	 * (protocol.md 6.1): times it did
	 */
	uint64_t	txq_holds;
	/*
	 * Control messages refused as a copy of one taken (its stamp and
	 * MAC): a datagram the network duplicated, or one recorded and sent
	 * again at once, which is as harmless (ctrl_replayed is the rest)
	 */
	uint64_t	ctrl_duplicates;
	/*
	 * Control messages refused as signed before the receiving
	 * communicator or agent started: sent before it existed and
	 * delivered late (a HELLO queued on a slow link), from a host whose
	 * clock lags, or an earlier communicator's message replayed. The
	 * sender's retries get through; not counted in ctrl_replayed.
	 */
	uint64_t	ctrl_before_start;
	/*
	 * Datagrams the kernel dropped at this rank's UDP sockets (its
	 * own, and its INA agent's port where it runs the agent), before
	 * librina saw them: the job's data, ACKs and NACKs without its tag,
	 * refused by the socket's filter (a forgery, or a packet of an
	 * earlier session), and those that found the receive buffer full.
	 * The kernel counts both in one counter (SO_MEMINFO); the namespace's
	 * UdpRcvbufErrors tells the second apart. 0 on other transports.
	 */
	uint64_t	rx_kernel_drops;
};

enum rina_rack_agent {
	RINA_RACK_AGENT_UNKNOWN	= 0,	/* plain, or another host's */
	RINA_RACK_AGENT_LIBRINA	= 1,	/* this rank's own thread */
	RINA_RACK_AGENT_KERNEL	= 2,	/* rina.ko on this host */
};

/*
 * Who aggregates an INA rack (agent_tor). The agent asks the rack's ToR
 * (the job file's "tor" address) to install the job; when it refuses
 * (agent_tor_status, enum rina_tor_status of linux/rina.h: 1 unknown
 * job, 2 no slots left, 3 bad parameters, e.g. elements above 64) or does
 * not answer (status 0xffffffff), the agent aggregates the rack in
 * software: same results, more host CPU. A ToR that goes silent while it
 * aggregates (no word for 500 ms, probes unanswered) is lost: the call
 * in flight and the later ones go on in software. The job file's
 * "fallback abort" makes each of these an error instead.
 */
enum rina_tor_state {
	RINA_TOR_NONE		= 0,	/* no ToR address, or RINA_NO_TOR=1 */
	RINA_TOR_ASKING		= 1,
	RINA_TOR_ON		= 2,	/* the ToR aggregates */
	RINA_TOR_OFF		= 3,	/* refused or silent: software */
	RINA_TOR_LOST		= 4,	/* went silent mid-job: software since */
};

typedef struct rina_comm rina_comm_t;

/* Create a communicator; on failure *comm is NULL, see rina_last_error(). */
int rina_comm_init(rina_comm_t **comm, const struct rina_config *cfg);
/*
 * The same from the environment launchers set: RINA_JOB (job file),
 * RINA_RANK, and optionally RINA_TRANSPORT, RINA_TIMEOUT_MS,
 * RINA_FAULT_DROP_PPM, RINA_FAULT_DUP_PPM, RINA_FAULT_RX_DROP_PPM.
 * RINA_SECRET_FILE (any init) names the job secret's file, over the job
 * file's secret_file (Documentation/security.md).
 */
int rina_comm_init_env(rina_comm_t **comm);
/*
 * Leave the ring. It may wait for the neighbours, and on the lowest rank
 * of an INA rack for the rack's other workers, to finish their last call
 * (up to the job's timeout after they fall silent): they may still need
 * this rank's acknowledgements or its agent's results.
 */
int rina_comm_destroy(rina_comm_t *comm);

/*
 * Allreduce count elements of sendbuf into recvbuf on every rank
 * (in place when sendbuf == recvbuf). Every rank gets bitwise-identical
 * results. Blocking; returns enum rina_result.
 */
int rina_allreduce(const void *sendbuf, void *recvbuf, size_t count,
		   enum rina_dtype dtype, enum rina_redop op,
		   rina_comm_t *comm);

int rina_comm_rank(const rina_comm_t *comm);
int rina_comm_size(const rina_comm_t *comm);
int rina_comm_ring_len(const rina_comm_t *comm);	/* L */
int rina_comm_elems(const rina_comm_t *comm);		/* E */

enum rina_role {
	RINA_ROLE_MEMBER	= 0,	/* autonomous ring member */
	RINA_ROLE_INA_WORKER	= 1,	/* worker of an INA rack */
	RINA_ROLE_INA_AGENT	= 2,	/* worker and agent of an INA rack */
};
int rina_comm_role(const rina_comm_t *comm);
const char *rina_comm_transport(const rina_comm_t *comm);
int rina_comm_get_stats(rina_comm_t *comm, struct rina_stats *st);

const char *rina_strerror(int result);
/* Detail of the last failure in this thread (init or allreduce). */
const char *rina_last_error(void);

/*
 * Asynchronous allreduce.
 *
 *	rina_request_t *req[2];
 *
 *	rina_iallreduce(g0, g0, n0, RINA_FLOAT32, RINA_AVG, comm,
 *			NULL, NULL, &req[0]);
 *	rina_iallreduce(g1, g1, n1, RINA_BFLOAT16, RINA_AVG, comm,
 *			on_done, ctx, &req[1]);
 *	...
 *	rc = rina_wait(req[1]);		// any order
 *	rina_request_free(req[1]);
 *
 * How it works: the first rina_iallreduce on a communicator starts one
 * progress thread for it, which runs the blocking rina_allreduce for
 * each queued request in call order (FIFO). Every rank must start the
 * same calls in the same order, as with the blocking call (DDP's
 * buckets are); completion is in call order too. The buffers belong to
 * librina from rina_iallreduce until the request completes.
 *
 * Errors are those of rina_allreduce. One that breaks the communicator
 * (timeout, abort, transport, mismatch: every result except INVALID,
 * NONFINITE and OVERFLOW) fails its request and every later pending
 * one with the same result and message; calls started afterwards fail
 * at once with RINA_ERR_BROKEN, as blocking calls do. INVALID, NONFINITE
 * and OVERFLOW fail only their request (the last two happen on every
 * rank alike).
 *
 * Threading rules:
 * - rina_iallreduce, rina_test, rina_wait and rina_request_free may be
 *   called from any thread, concurrently; requests are started in the
 *   order the rina_iallreduce calls return.
 * - Do not call rina_allreduce on a communicator while it has requests
 *   pending, nor from two threads at once: wait for them first (or use
 *   only the asynchronous calls; a blocking call is iallreduce + wait).
 * - rina_comm_get_stats while requests are pending reads counters that
 *   the progress thread is updating: each is a recent value.
 * - rina_comm_destroy with requests pending never hangs: it waits for
 *   the call in progress (at most the job's timeout), completes the
 *   queued ones with RINA_ERR_BROKEN ("destroyed with the call
 *   pending"), tells the other ranks (they get RINA_ERR_ABORTED), runs
 *   their callbacks and frees what rina_request_free already released.
 *   Requests not yet freed stay valid (completed) until freed.
 * - The callback runs once per request, on the progress thread, after
 *   the request is complete (rina_test reports it done there already).
 *   It may call rina_iallreduce, rina_test, rina_wait and
 *   rina_request_free (also on its own request), but must not call
 *   rina_allreduce or rina_comm_destroy, and should be short: the next
 *   call waits for it.
 */
typedef struct rina_request rina_request_t;
typedef void (*rina_callback_t)(rina_request_t *req, int result, void *arg);

/*
 * Start an allreduce (arguments as rina_allreduce); cb(req, result,
 * arg) when it completes (cb may be NULL). Returns RINA_OK and *req,
 * or an error (*req NULL; nothing started).
 */
int rina_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
		    enum rina_dtype dtype, enum rina_redop op,
		    rina_comm_t *comm, rina_callback_t cb, void *arg,
		    rina_request_t **req);
/*
 * 1 and *result (enum rina_result) when req is complete, 0 while it is
 * pending. A failed request's message becomes this thread's
 * rina_last_error().
 */
int rina_test(rina_request_t *req, int *result);
/* Block until req completes; its result (rina_last_error() as above). */
int rina_wait(rina_request_t *req);
/*
 * Release req. A pending request completes on its own (its callback
 * still runs) and is freed then.
 */
void rina_request_free(rina_request_t *req);
/*
 * An eventfd (EFD_NONBLOCK) that counts completed requests of comm: poll
 * it for POLLIN, read(2) the number completed since the last read, then
 * rina_test the requests. Owned by comm (closed by rina_comm_destroy);
 * -1 with rina_last_error() on failure.
 */
int rina_comm_eventfd(rina_comm_t *comm);
/* Bytes of one element of dtype, 0 if unknown. */
size_t rina_dtype_size(enum rina_dtype dtype);

/*
 * Collectives built on the ring (user/lib/collectives.c). On a ring
 * without INA racks, allgather runs the ring's allgather phase alone
 * and reduce-scatter its reduce-scatter phase alone (bfloat16, float16
 * and float64 widened to float32 first, as allreduce does),
 * each rank's segment placed where its ring member owns the data: about
 * half the bytes of an allreduce of the whole buffer. A reduce-scatter
 * alone reports RINA_ERR_OVERFLOW on the ranks whose own elements
 * wrapped (an allreduce: on every rank). There a (non-empty) broadcast
 * is a pipelined chain from the root along the ring (the allgather
 * phase alone with every chunk starting at the root), after a small
 * allreduce of the ranks' roots: the buffer crosses every link but the
 * one into the root once, half the bytes of an allreduce. Otherwise
 * each is one allreduce: broadcast and allgather an int32 SUM in which
 * every rank contributes its bytes, packed into int32 words, in its
 * own segment and zeros elsewhere (int32 addition is exact, x + 0
 * never wraps), so the bytes arrive unchanged, whatever they hold;
 * reduce-scatter an allreduce of its dtype and op of which each rank
 * keeps its segment;
 * barrier an allreduce of one int32. Results, errors, timeouts, the
 * call order and the threading rules are those of rina_iallreduce (the
 * request completes once the result is in place). The cost of those is
 * that of an allreduce of the whole buffer: an allgather or a broadcast
 * on a ring with INA racks moves about twice the bytes of a ring
 * allgather or a pipeline.
 *
 * rina_ibroadcast: bytes of buf from rank root into buf on every rank;
 *   ranks that name different roots all fail with RINA_ERR_MISMATCH.
 * rina_iallgather: bytes of each rank's sendbuf into recvbuf at
 *   rank * bytes (recvbuf holds size * bytes).
 * rina_ireduce_scatter: sendbuf holds size * count elements; recvbuf
 *   gets the reduced elements rank * count .. rank * count + count - 1.
 * rina_ibarrier: completes once every rank has started it.
 * The blocking forms start the call and wait for it.
 */
int rina_ibroadcast(void *buf, size_t bytes, int root, rina_comm_t *comm,
		    rina_callback_t cb, void *arg, rina_request_t **req);
int rina_iallgather(const void *sendbuf, void *recvbuf, size_t bytes,
		    rina_comm_t *comm, rina_callback_t cb, void *arg,
		    rina_request_t **req);
int rina_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t count,
			 enum rina_dtype dtype, enum rina_redop op,
			 rina_comm_t *comm, rina_callback_t cb, void *arg,
			 rina_request_t **req);
int rina_ibarrier(rina_comm_t *comm, rina_callback_t cb, void *arg,
		  rina_request_t **req);
int rina_broadcast(void *buf, size_t bytes, int root, rina_comm_t *comm);
int rina_allgather(const void *sendbuf, void *recvbuf, size_t bytes,
		   rina_comm_t *comm);
int rina_reduce_scatter(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *comm);
int rina_barrier(rina_comm_t *comm);

#ifdef __cplusplus
}
#endif

#endif /* RINA_H */
