/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * librina's session layer: a communicator's life with its peers, around
 * the calls. HELLO at init (same job, both neighbours alive), BYE at
 * destroy (linger until nobody needs us), ABORT when the job is dead,
 * and the answers to those control messages whenever they come.
 */
#ifndef RINA_SESSION_H
#define RINA_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/rina.h>

#include "transport.h"

struct rina_comm;

/*
 * Where the communicator's session stands. A rank that destroys its
 * communicator and creates a new one on the same job and port meets its
 * neighbours' old and new incarnations: the old one of upstream may
 * still say BYE to the new one of ours, the new one of upstream greets
 * the old one of ours while it lingers. Each phase answers only what
 * belongs to it.
 */
enum rina_session_phase {
	RINA_SESSION_HELLO = 0,	/* greeting the neighbours */
	RINA_SESSION_OPEN,	/* calls */
	RINA_SESSION_LINGER,	/* leaving: answer the last call, say BYE */
};

/* What a control message told us, for the handshakes that wait on it. */
struct rina_ctrl_seen {
	bool	hello_prev;	/* HELLO from upstream (answered) */
	bool	hello_next;	/* HELLO_ACK from downstream */
	bool	bye_next;	/* BYE_ACK from downstream */
};

/*
 * The ring's session number (linux/rina.h, "The session"; 0: not known
 * yet) and the data tag and key derived from it, in a job with a secret.
 */
void rina_session_set(struct rina_comm *c, uint64_t session);

/* HELLO, BYE, ABORT handling shared by every role; seen may be NULL. */
int rina_session_ctrl(struct rina_comm *c, const struct rina_hdr *h,
		      const struct rina_addr *from,
		      struct rina_ctrl_seen *seen);
/* The same, as the endpoint layer's handler during calls. */
int rina_session_ctrl_rx(struct rina_comm *c, const struct rina_hdr *h,
			 const struct rina_addr *from);
/*
 * rina.ko's events of the attached job, read at most every
 * RINA_KEV_POLL_US, so that every receive can ask (rina_comm.events):
 * the kernel knows of a dead rank at once, its ring neighbours only
 * after timeout_ms without progress. RINA_ERR_ABORTED, the other ranks
 * told, if one came; never blocks.
 */
#define RINA_KEV_POLL_US	2000
int rina_session_events(struct rina_comm *c);
/* Handshake with both ring neighbours: same job, both alive. */
int rina_session_hello(struct rina_comm *c);
/* Answer late retransmissions of the last call, then return. */
void rina_session_linger(struct rina_comm *c);
/* Tell every other rank this job is dead (best effort). */
void rina_session_abort(struct rina_comm *c, int result);
/* The same from a failed init, repeated while the others may still bind. */
void rina_session_abort_init(struct rina_comm *c, int result);

#endif /* RINA_SESSION_H */
