/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Signed control messages (protocol.md 6.2), one implementation for
 * librina, the agent core (kernel and userspace) and the ToR: in a job
 * with a secret, HELLO, ABORT, BYE and the ToR's install, remove and
 * reply carry a freshness stamp and a MAC, and a receiver takes only
 * those whose MAC is right, whose stamp is recent and that it has not
 * taken before.
 *
 * The MAC is SipHash-2-4, which the host provides (the kernel's
 * siphash(), libsodium's crypto_shorthash() in userspace): core/ holds
 * no cryptography of its own.
 */
#ifndef RINA_CORE_CTRL_AUTH_H
#define RINA_CORE_CTRL_AUTH_H

#include "compat.h"
#include "plan.h"
#include <linux/rina.h>

#define RINA_MAC_LEN		8

/*
 * A stamp further than this from the receiver's clock is refused: a
 * recorded message replays at most this long, and hosts' clocks must
 * agree this well (NTP does, by far).
 */
#define RINA_CTRL_WINDOW_US	(30ull * 1000000)

/*
 * Accepted stamps remembered per sender, against replays: a message
 * delivered behind this many newer ones of its sender cannot be told
 * from a replay of a forgotten one, and is refused as one. A sender's
 * retries and several messages in flight (HELLOs queued behind data on
 * a slow link, an agent's ACKs and ToR status) must fit: 64, as IPsec's
 * anti-replay window (RFC 4303 3.4.3, Linux's default for ESN). 160 KiB a
 * guard, scanned once per control message, which are few.
 */
#define RINA_CTRL_GUARD_DEPTH	64

/* SipHash-2-4 of in under key: the 8 output bytes in reference order. */
typedef void (*rina_mac_fn)(const __u8 key[RINA_SECRET_LEN], const void *in,
			    __u32 len, __u8 out[RINA_MAC_LEN]);

/* One sender's recent stamps; index: src_id (ranks, then ToRs' racks). */
struct rina_ctrl_guard {
	__u64	start_us;	/* not_before_us of rina_ctrl_guard_init() */
	__u64	seen[RINA_MAX_RANKS + RINA_MAX_RACKS][RINA_CTRL_GUARD_DEPTH];
};

enum rina_ctrl_verdict {
	RINA_CTRL_OK = 0,
	RINA_CTRL_UNSIGNED,	/* no MAC in a job with a secret */
	RINA_CTRL_NO_KEY,	/* a MAC in a job without a secret */
	RINA_CTRL_FORGED,	/* the MAC is wrong */
	RINA_CTRL_STALE,	/* the stamp is outside the window */
	RINA_CTRL_REPLAY,	/* taken before, or older than all taken */
	RINA_CTRL_BAD_SENDER,	/* src_id names no rank nor ToR */
	/*
	 * A copy of one taken (its stamp, its MAC): what a network that
	 * duplicates a datagram delivers. Refused like a replay, and as
	 * harmless, but no sign of one: counted apart.
	 */
	RINA_CTRL_DUPLICATE,
	/*
	 * Signed before the receiver started (rina_ctrl_guard_init()): sent
	 * while it did not exist yet and delivered late, from a sender whose
	 * clock lags, or recorded from an earlier receiver of the job and
	 * replayed. Refused; the first two are no attack: counted apart.
	 */
	RINA_CTRL_BEFORE_START,
	__RINA_CTRL_VERDICT_MAX,
};

#define RINA_CTRL_VERDICT_NAMES {			\
	[RINA_CTRL_OK]		= "ok",			\
	[RINA_CTRL_UNSIGNED]	= "unsigned",		\
	[RINA_CTRL_NO_KEY]	= "signed_without_key",	\
	[RINA_CTRL_FORGED]	= "forged",		\
	[RINA_CTRL_STALE]	= "stale",		\
	[RINA_CTRL_REPLAY]	= "replayed",		\
	[RINA_CTRL_BAD_SENDER]	= "bad_sender",		\
	[RINA_CTRL_DUPLICATE]	= "duplicate",		\
	[RINA_CTRL_BEFORE_START] = "before_start",	\
}

/* A signed control message as built and checked here. */
struct rina_ctrl_msg {
	struct rina_hdr		h;
	struct rina_ctrl	c;
	struct rina_ctrl_auth	a;
} __attribute__((packed));

/*
 * Bytes on the wire of a control message: RINA_CTRL_AUTH_WORDS words
 * after the header when key is set, RINA_CTRL_WORDS otherwise. m holds
 * the header and struct rina_ctrl; with a key this sets n_elem, the
 * stamp and the MAC for the destination to_ip:to_port (network order).
 */
__u32 rina_ctrl_seal(struct rina_ctrl_msg *m, const __u8 *key,
		     rina_mac_fn mac, __u64 stamp, __be32 to_ip,
		     __be16 to_port);

/*
 * A receiver's guard at its start: every sender's stamps up to
 * not_before_us (the receiver's wall clock then) count as taken. The
 * guards live in memory, so without it a message recorded less than
 * RINA_CTRL_WINDOW_US before a receiver restarts could be replayed once
 * after it; a sender's retries carry new stamps and pass. A sender whose
 * clock lags the receiver's is refused for that lag after the start, and
 * a message sent before the start that arrives after it (queued on a
 * slow link) is refused: RINA_CTRL_BEFORE_START, which a receiver
 * counts apart from replays.
 */
void rina_ctrl_guard_init(struct rina_ctrl_guard *g, __u64 not_before_us);

/*
 * Check a control message that passed rina_hdr_check(), received on
 * self_ip:self_port; key NULL: the job has no secret. On RINA_CTRL_OK the
 * stamp is remembered in g (NULL only without a key).
 */
enum rina_ctrl_verdict rina_ctrl_check(struct rina_ctrl_guard *g,
				       const struct rina_hdr *h,
				       const __u8 *key, rina_mac_fn mac,
				       __u64 now_us, __be32 self_ip,
				       __be16 self_port);

/* The session a CTRL carries (linux/rina.h): 0 when none. */
static inline __u64 rina_ctrl_session(const struct rina_hdr *h)
{
	return (__u64)rina_ntohl(h->seq) << 32 |
	       (__u32)rina_ntohs(h->chunk) << 16 | rina_ntohs(h->slot);
}

static inline void rina_ctrl_set_session(struct rina_hdr *h, __u64 session)
{
	h->seq = rina_htonl((__u32)(session >> 32));
	h->chunk = rina_htons((__u16)(session >> 16));
	h->slot = rina_htons((__u16)session);
}

/*
 * The session's data tag (protocol.md 6.3): SipHash-2-4 under the secret
 * of a fixed label, the job id and the session (linux/rina.h). Every
 * data packet, ACK and NACK of a tagged job carries it after its
 * payload; a packet without it is not the session's. Unguessable without
 * the secret, but a bearer token: an on-path observer reads it
 * (Documentation/security.md).
 */
void rina_session_tag(const __u8 key[RINA_SECRET_LEN], rina_mac_fn mac,
		      __u16 job_id, __u64 session, __u8 tag[RINA_TAG_LEN]);

/*
 * Put tag after the packet's len bytes (the buffer has RINA_TAG_LEN
 * bytes more) and mark the header: the new length. CTRL is left as it
 * is (it is signed instead).
 */
__u32 rina_tag_seal(void *pkt, __u32 len, const __u8 tag[RINA_TAG_LEN]);

/*
 * A packet that passed rina_hdr_check(): its length without the tag when
 * it carries the job's tag (tag NULL: the job is untagged, and a packet
 * may carry none), 0 when it is not the job's. CTRL passes as it is.
 */
__u32 rina_tag_open(const void *pkt, __u32 len, const __u8 *tag);

/*
 * Per-packet MACs (job option `auth mac`, protocol.md 6.4): instead of
 * the session's tag, every data packet, ACK and NACK between two hosts
 * carries SipHash-2-4 of its header (rsvd RINA_X_MAC) and payload under
 * the session's data key, so that an on-path observer who reads the tag
 * still cannot forge or alter a packet.
 *
 * The data key: two SipHash-2-4 outputs under the secret of a label, the
 * job id, the session and the half's number; never the secret itself, so
 * that no data packet's MAC is a control message's, and a new one every
 * session, so that no packet of one session passes in another.
 */
void rina_data_key(const __u8 secret[RINA_SECRET_LEN], rina_mac_fn mac,
		   __u16 job_id, __u64 session, __u8 key[RINA_SECRET_LEN]);

/*
 * Mark the header and put the MAC of the packet's len bytes after them
 * (the buffer has RINA_TAG_LEN bytes more): the new length. CTRL is left
 * as it is.
 */
__u32 rina_mac_seal(void *pkt, __u32 len, const __u8 key[RINA_SECRET_LEN],
		    rina_mac_fn mac);

/*
 * A packet that passed rina_hdr_check(): its length without the MAC when
 * its MAC is right, 0 otherwise (no MAC, or a tag instead). CTRL passes
 * as it is.
 */
__u32 rina_mac_open(const void *pkt, __u32 len,
		    const __u8 key[RINA_SECRET_LEN], rina_mac_fn mac);

/*
 * A job's data protection, as every sender and receiver (librina, the
 * agent core) applies it: mac_key set, a per-packet MAC (auth mac); else
 * tag set, the job's tag; else none. Seal returns the new length, open
 * the length without the trailer or 0 when the packet is refused.
 */
__u32 rina_data_seal(void *pkt, __u32 len, const __u8 *tag,
		     const __u8 *mac_key, rina_mac_fn mac);
__u32 rina_data_open(const void *pkt, __u32 len, const __u8 *tag,
		     const __u8 *mac_key, rina_mac_fn mac);

#endif /* RINA_CORE_CTRL_AUTH_H */
