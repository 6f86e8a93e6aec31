/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina's endpoint layer: how every role (ring member, INA worker,
 * agent thread, session handshakes) talks to its peers. Sending through
 * the fault knobs, receiving a checked batch, early packets kept for the
 * next call, batched ACKs, and one path per peer: its RTT estimate and
 * congestion window (core/rtt.h, core/cc.h). Below it: the transports.
 */
#ifndef RINA_ENDPOINT_H
#define RINA_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/rina.h>

#include "transport.h"
#include "cc.h"
#include "rtt.h"

struct rina_comm;

/*
 * Retransmission timer cap while the path's RTT is short: a timer only
 * catches tail losses (RACK the rest), so it backs off no further than
 * this. A longer path (a queue at a slow link) raises it with the RTO.
 */
#define RINA_RTO_MAX_US		50000
/* What no RTO exceeds, however slow the path. */
#define RINA_RTO_CEIL_US	2000000

/*
 * One peer as a sender sees it: RTT estimate, congestion window, and
 * when a loss was last found on it (RACK; an INA worker's probe hurries
 * while the path loses, in the next call too).
 */
struct rina_path {
	struct rina_rtt	rtt;
	struct rina_cc	cc;
	uint64_t	last_loss_us;
};

void rina_path_init(const struct rina_comm *c, struct rina_path *p);
/* A first transmission's round trip (Karn's rule). */
void rina_path_rtt(struct rina_path *p, uint64_t rtt_us, uint64_t now_us);
/* RFC 6298's timeout, at least the job's timer. */
uint64_t rina_path_rto(const struct rina_comm *c, const struct rina_path *p);
/*
 * The same where an ACK comes when an aggregator's slot completes (an
 * INA worker's contributions, a member's partials to an INA member):
 * those round trips wait for the ring and for every repair of it, so
 * they would raise the timer without bound as losses slow the ring;
 * capped at RINA_RTO_MAX_US, as before congestion control.
 */
uint64_t rina_path_rto_slot(const struct rina_comm *c,
			    const struct rina_path *p);
/* How far a packet's timer backs off on this path. */
uint64_t rina_path_rto_cap(const struct rina_comm *c,
			   const struct rina_path *p);
/* Packets this sender may have in flight on the path now. */
static inline uint32_t rina_path_window(const struct rina_path *p)
{
	return rina_cc_window(&p->cc);
}

/*
 * ACKs are batched per destination, round, phase and CE mark: an ACK
 * with RINA_F_ECN_ECHO says that every seq it lists arrived CE-marked.
 */
struct rina_ack_batch {
	struct rina_addr addr;
	uint16_t	round;
	uint8_t		flags;	/* RINA_F_AG_PHASE, ECN_ECHO */
	uint32_t	n;
	__be32		seqs[RINA_MAX_ELEMS];
};

/* ecn: the data packet's IP ECN field (struct rina_msg.ecn) */
void rina_ack_queue(struct rina_comm *c, struct rina_ack_batch *a,
		    const struct rina_addr *to, const struct rina_hdr *data,
		    uint8_t ecn);

void rina_ack_flush(struct rina_comm *c, struct rina_ack_batch *a);

/* Fault injection and sending through the transport. */
int rina_xmit(struct rina_comm *c, struct rina_msg *msgs, int n);
/*
 * Bytes of socket memory that what we sent still holds in this host's
 * queues, or -1 where the transport cannot tell (AF_XDP, in-process).
 */
int rina_tx_queued(struct rina_comm *c);

/*
 * A sender whose own signals let it fill its host's queue bounds what it
 * queues there instead (protocol.md 6.1), as Linux's TCP small queues:
 * at most limit bytes of socket memory (rina_tx_queued()), looked at
 * every RINA_TXQ_GROUP packets, the rest held until the device takes
 * what is queued. Per pass of a sender's pump:
 *	rina_txq_start(&q);
 *	for each packet: if (rina_txq_due(&q)) { flush what is built;
 *		rina_txq_look(c, &q); } if (q.full) stop; send;
 *		rina_txq_sent(&q);
 * and while q.full wait at most RINA_TXQ_WAIT_US: the device drains the
 * queue without telling us.
 */
#define RINA_TXQ_GROUP		4
#define RINA_TXQ_WAIT_US	1000

struct rina_txq {
	uint32_t	limit;		/* bytes; 0: no bound */
	uint32_t	unchecked;	/* packets sent since we last looked */
	bool		full;		/* the queue held limit bytes then */
};

/* The job's bound (txq_limit) for a sender that needs one, or 0. */
uint32_t rina_txq_limit(const struct rina_comm *c, bool bounded);

static inline void rina_txq_start(struct rina_txq *q)
{
	q->full = false;
	q->unchecked = RINA_TXQ_GROUP;	/* look before the first */
}

static inline bool rina_txq_due(const struct rina_txq *q)
{
	return q->limit && !q->full && q->unchecked >= RINA_TXQ_GROUP;
}

static inline void rina_txq_sent(struct rina_txq *q)
{
	q->unchecked++;
}

/* Look at the queue (what was built is flushed); counts txq_holds. */
void rina_txq_look(struct rina_comm *c, struct rina_txq *q);

void rina_hdr_init(struct rina_comm *c, struct rina_hdr *h, uint8_t op,
		   uint16_t round);
bool rina_addr_eq(const struct rina_addr *a, const struct rina_addr *b);
void rina_send_ctrl(struct rina_comm *c, const struct rina_addr *to,
		    uint32_t type, uint32_t arg);

/* A role's handler of one received message (stashed: replayed). */
typedef int (*rina_rx_fn)(void *k, const struct rina_msg *m, bool stashed);
int rina_replay_stash(struct rina_comm *c, rina_rx_fn fn, void *k);
/*
 * Whether a received datagram is this job's: a valid header, the job id,
 * and the job's data tag where it has one (then stripped: m->len and the
 * header read as sent without it). Counts what it refuses.
 */
bool rina_rx_accept(struct rina_comm *c, struct rina_msg *m);
/*
 * Wait up to wait_us and receive a batch: count it, drop what is malformed
 * or of another job, hand CTRL to the session layer (rina_comm.ctrl_rx),
 * the rest to fn.
 */
int rina_recv_batch(struct rina_comm *c, uint64_t wait_us, rina_rx_fn fn,
		    void *k);
/* Keep a packet of the next call until it starts. */
void rina_stash(struct rina_comm *c, const struct rina_msg *m);

#endif /* RINA_ENDPOINT_H */
