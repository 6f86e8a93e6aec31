/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina's endpoint layer: how every role (ring member, INA worker,
 * agent thread, session handshakes) talks to its peers. Sending through
 * the fault knobs, receiving a checked batch, early packets kept for the
 * next call, batched ACKs, and one path per peer: its RTT estimate and
 * congestion window (core/path.h). Below it: the transports.
 */
#ifndef RINA_ENDPOINT_H
#define RINA_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/rina.h>

#include "transport.h"
#include "ackq.h"
#include "path.h"
#include "txq.h"

struct rina_comm;

/* ACKs to one destination at a time (core/ackq.h). */
struct rina_ack_batch {
	struct rina_addr addr;
	struct rina_ackq q;
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
