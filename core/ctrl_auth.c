// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Signed control messages: sealing and checking (ctrl_auth.h).
 */
#include "ctrl_auth.h"
#include "wire.h"

/* header, struct rina_ctrl, stamp, then the destination it was sent to */
#define MAC_IN_LEN	(sizeof(struct rina_hdr) + sizeof(struct rina_ctrl) + \
			 8 + 4 + 2)

/* where the stamp sits in struct rina_ctrl_msg */
#define STAMP_OFF	(sizeof(struct rina_hdr) + sizeof(struct rina_ctrl))

static void mac_of(const struct rina_ctrl_msg *m, const __u8 *key,
		   rina_mac_fn mac, __be32 ip, __be16 port,
		   __u8 out[RINA_MAC_LEN])
{
	__u8 in[MAC_IN_LEN];
	__u32 off = STAMP_OFF + 8;

	rina_memcpy(in, m, off);
	rina_memcpy(in + off, &ip, 4);
	rina_memcpy(in + off + 4, &port, 2);
	mac(key, in, sizeof(in), out);
}

__u32 rina_ctrl_seal(struct rina_ctrl_msg *m, const __u8 *key,
		     rina_mac_fn mac, __u64 stamp, __be32 to_ip,
		     __be16 to_port)
{
	if (!key) {
		m->h.n_elem = rina_htons(RINA_CTRL_WORDS);
		return sizeof(m->h) + sizeof(m->c);
	}
	m->h.n_elem = rina_htons(RINA_CTRL_AUTH_WORDS);
	rina_put_be64((__u8 *)m + STAMP_OFF, stamp);
	mac_of(m, key, mac, to_ip, to_port, m->a.mac);
	return sizeof(*m);
}

/* constant time, as for any MAC comparison */
static int mac_equal(const __u8 *a, const __u8 *b)
{
	__u8 d = 0;
	int i;

	for (i = 0; i < RINA_MAC_LEN; i++)
		d |= a[i] ^ b[i];
	return !d;
}

static int guard_index(__u16 src)
{
	if ((src & RINA_SRC_SWITCH) == RINA_SRC_SWITCH)
		return RINA_MAX_RANKS + (src & 0x0fff) % RINA_MAX_RACKS;
	return src < RINA_MAX_RANKS ? src : -1;
}

/*
 * Not taken before, and newer than the oldest remembered when all slots
 * are full (so that an old message cannot come back once forgotten):
 * taken into the oldest slot. Else the verdict: a copy of one taken,
 * one signed before the guard started, or a replay.
 */
static enum rina_ctrl_verdict guard_take(__u64 *seen, __u64 start_us,
					 __u64 stamp)
{
	int i, oldest = 0;

	/* nothing at or before the start was taken: no copy of one either */
	if (stamp <= start_us)
		return RINA_CTRL_BEFORE_START;
	for (i = 0; i < RINA_CTRL_GUARD_DEPTH; i++) {
		if (seen[i] == stamp)
			return RINA_CTRL_DUPLICATE;
		if (seen[i] < seen[oldest])
			oldest = i;
	}
	if (stamp <= seen[oldest])
		return RINA_CTRL_REPLAY;
	seen[oldest] = stamp;
	return RINA_CTRL_OK;
}

void rina_ctrl_guard_init(struct rina_ctrl_guard *g, __u64 not_before_us)
{
	__u32 k, i;

	g->start_us = not_before_us;
	for (k = 0; k < RINA_MAX_RANKS + RINA_MAX_RACKS; k++)
		for (i = 0; i < RINA_CTRL_GUARD_DEPTH; i++)
			g->seen[k][i] = not_before_us;
}

enum rina_ctrl_verdict rina_ctrl_check(struct rina_ctrl_guard *g,
				       const struct rina_hdr *h,
				       const __u8 *key, rina_mac_fn mac,
				       __u64 now_us, __be32 self_ip,
				       __be16 self_port)
{
	const struct rina_ctrl_msg *m = (const struct rina_ctrl_msg *)h;
	int signed_msg = rina_ntohs(h->n_elem) == RINA_CTRL_AUTH_WORDS;
	__u8 want[RINA_MAC_LEN];
	__u64 stamp;
	int k;

	if (!key)
		return signed_msg ? RINA_CTRL_NO_KEY : RINA_CTRL_OK;
	if (!signed_msg)
		return RINA_CTRL_UNSIGNED;
	k = guard_index(rina_ntohs(h->src_id));
	if (k < 0)
		return RINA_CTRL_BAD_SENDER;
	mac_of(m, key, mac, self_ip, self_port, want);
	if (!mac_equal(want, m->a.mac))
		return RINA_CTRL_FORGED;
	stamp = rina_get_be64((const __u8 *)m + STAMP_OFF);
	if (stamp + RINA_CTRL_WINDOW_US < now_us ||
	    stamp > now_us + RINA_CTRL_WINDOW_US)
		return RINA_CTRL_STALE;
	return guard_take(g->seen[k], g->start_us, stamp);
}

/* label, job id and session, big-endian: what tag and data key hash */
static __u32 session_input(__u8 *in, const char *label, __u32 label_len,
			   __u16 job_id, __u64 session)
{
	int i;

	rina_memcpy(in, label, label_len);
	in[label_len] = (__u8)(job_id >> 8);
	in[label_len + 1] = (__u8)job_id;
	for (i = 0; i < 8; i++)
		in[label_len + 2 + i] = (__u8)(session >> (56 - 8 * i));
	return label_len + 10;
}

void rina_session_tag(const __u8 key[RINA_SECRET_LEN], rina_mac_fn mac,
		      __u16 job_id, __u64 session, __u8 tag[RINA_TAG_LEN])
{
	static const char label[] = "rina data tag v2";
	__u8 in[sizeof(label) - 1 + 10];

	mac(key, in, session_input(in, label, sizeof(label) - 1, job_id,
				   session), tag);
}

__u32 rina_tag_seal(void *pkt, __u32 len, const __u8 tag[RINA_TAG_LEN])
{
	struct rina_hdr *h = pkt;

	if (rina_hdr_opcode(h) == RINA_OP_CTRL)
		return len;
	h->rsvd = rina_htons(RINA_X_TAG);
	rina_memcpy((__u8 *)pkt + len, tag, RINA_TAG_LEN);
	return len + RINA_TAG_LEN;
}

__u32 rina_tag_open(const void *pkt, __u32 len, const __u8 *tag)
{
	const struct rina_hdr *h = pkt;
	const __u8 *t;
	__u8 d = 0;
	int i;

	if (rina_hdr_opcode(h) == RINA_OP_CTRL)
		return len;
	if (!rina_hdr_trailer(h))
		return tag ? 0 : len;
	/* an X_MAC trailer is no tag, even if it holds the tag's bytes */
	if (!tag || rina_ntohs(h->rsvd) != RINA_X_TAG)
		return 0;
	t = (const __u8 *)pkt + len - RINA_TAG_LEN;
	for (i = 0; i < RINA_TAG_LEN; i++)
		d |= t[i] ^ tag[i];
	return d ? 0 : len - RINA_TAG_LEN;
}

void rina_data_key(const __u8 secret[RINA_SECRET_LEN], rina_mac_fn mac,
		   __u16 job_id, __u64 session, __u8 key[RINA_SECRET_LEN])
{
	static const char label[] = "rina data key v2";
	__u8 in[sizeof(label) - 1 + 11];
	__u32 n = session_input(in, label, sizeof(label) - 1, job_id, session);
	int half;

	for (half = 0; half < 2; half++) {
		in[n] = (__u8)half;
		mac(secret, in, n + 1, key + half * RINA_MAC_LEN);
	}
	rina_memzero_explicit(in, sizeof(in));
}

__u32 rina_mac_seal(void *pkt, __u32 len, const __u8 key[RINA_SECRET_LEN],
		    rina_mac_fn mac)
{
	struct rina_hdr *h = pkt;

	if (rina_hdr_opcode(h) == RINA_OP_CTRL)
		return len;
	h->rsvd = rina_htons(RINA_X_MAC);
	mac(key, pkt, len, (__u8 *)pkt + len);
	return len + RINA_TAG_LEN;
}

__u32 rina_mac_open(const void *pkt, __u32 len,
		    const __u8 key[RINA_SECRET_LEN], rina_mac_fn mac)
{
	const struct rina_hdr *h = pkt;
	__u8 want[RINA_MAC_LEN];

	if (rina_hdr_opcode(h) == RINA_OP_CTRL)
		return len;
	if (rina_ntohs(h->rsvd) != RINA_X_MAC)
		return 0;
	len -= RINA_TAG_LEN;
	mac(key, pkt, len, want);
	return mac_equal(want, (const __u8 *)pkt + len) ? len : 0;
}

__u32 rina_data_seal(void *pkt, __u32 len, const __u8 *tag,
		     const __u8 *mac_key, rina_mac_fn mac)
{
	if (mac_key)
		return rina_mac_seal(pkt, len, mac_key, mac);
	if (tag)
		return rina_tag_seal(pkt, len, tag);
	return len;
}

__u32 rina_data_open(const void *pkt, __u32 len, const __u8 *tag,
		     const __u8 *mac_key, rina_mac_fn mac)
{
	if (mac_key)
		return rina_mac_open(pkt, len, mac_key, mac);
	return rina_tag_open(pkt, len, tag);
}
