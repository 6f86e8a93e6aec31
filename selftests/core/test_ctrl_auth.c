// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Unit tests of signed control messages (core/ctrl_auth.c) and of the
 * userspace secret (user/common/secret.c): SipHash-2-4 matches the
 * reference vectors, a sealed message checks, every altered byte, a
 * wrong key or destination is forged, replays and stale stamps are
 * refused, unsigned messages are refused where a secret is set, and the
 * secret file is read only when its owner alone can read it.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctrl_auth.h"
#include "secret.h"
#include "wire.h"
#include "../ktap.h"

#define NOW	1700000000000000ull	/* us: some wall clock */
#define SELF_IP	htonl(0xc6120001)	/* 198.18.0.1 */
#define SELF_PORT htons(0x5200)

static const __u8 key[RINA_SECRET_LEN] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

static void build(struct rina_ctrl_msg *m, __u16 src, __u32 type)
{
	memset(m, 0, sizeof(*m));
	m->h.ver_op = RINA_VERSION << 4 | RINA_OP_CTRL;
	m->h.job_id = htons(7);
	m->h.src_id = htons(src);
	m->h.exp = RINA_EXP_NONE;
	m->c.type = htonl(type);
	m->c.arg = htonl(0x1234);
}

static __u32 seal(struct rina_ctrl_msg *m, __u64 stamp)
{
	return rina_ctrl_seal(m, key, rina_siphash24, stamp, SELF_IP,
			      SELF_PORT);
}

static enum rina_ctrl_verdict check(struct rina_ctrl_guard *g,
				    const struct rina_ctrl_msg *m,
				    const __u8 *k)
{
	return rina_ctrl_check(g, &m->h, k, rina_siphash24, NOW, SELF_IP,
			       SELF_PORT);
}

/* The SipHash paper's vectors: key 00..0f, messages 00..len-1. */
static void test_siphash(void)
{
	static const __u64 want[] = {
		0x726fdb47dd0e0e31ull,	/* len 0 */
		0x74f839c593dc67fdull,	/* len 1 */
		0xa129ca6149be45e5ull,	/* len 15 */
	};
	static const unsigned int lens[] = { 0, 1, 15 };
	__u8 in[16], out[8];
	unsigned int i, j;
	bool ok = true;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (__u8)i;
	for (i = 0; i < 3; i++) {
		__u64 v = 0;

		rina_siphash24(key, in, lens[i], out);
		for (j = 0; j < 8; j++)
			v |= (__u64)out[j] << (8 * j);
		ok &= v == want[i];
	}
	ktap_result(ok, "siphash: libsodium's SipHash-2-4 gives the reference vectors");
}

static void test_seal_check(void)
{
	struct rina_ctrl_guard *g = calloc(1, sizeof(*g));
	struct rina_ctrl_msg m, x;
	__u8 other[RINA_SECRET_LEN];
	unsigned int i, forged = 0;
	__u32 len;

	build(&m, 3, RINA_CTRL_ABORT);
	len = seal(&m, NOW);
	ktap_result(len == sizeof(m) && !rina_hdr_check(&m.h, len) &&
		    ntohs(m.h.n_elem) == RINA_CTRL_AUTH_WORDS,
		    "seal: a signed control message is %u bytes and valid on the wire",
		    len);
	ktap_result(check(g, &m, key) == RINA_CTRL_OK,
		    "check: a sealed message from a rank checks");
	ktap_result(check(g, &m, key) == RINA_CTRL_DUPLICATE,
		    "check: the same message again is a copy of one taken (refused; not counted as a replay)");

	/* every byte of header, body, stamp and MAC is covered */
	for (i = 0; i < sizeof(m); i++) {
		x = m;
		((__u8 *)&x)[i] ^= 0x01;
		if (rina_ctrl_check(g, &x.h, key, rina_siphash24, NOW,
				    SELF_IP, SELF_PORT) != RINA_CTRL_OK)
			forged++;
	}
	ktap_result(forged == sizeof(m),
		    "check: each of the %zu bytes altered is refused (%u refused)",
		    sizeof(m), forged);

	build(&x, 3, RINA_CTRL_ABORT);
	rina_ctrl_seal(&x, key, rina_siphash24, NOW + 1, SELF_IP,
		       htons(0x5201));
	ktap_result(check(g, &x, key) == RINA_CTRL_FORGED,
		    "check: a message sealed for another destination is forged");

	memcpy(other, key, sizeof(other));
	other[0] ^= 0x80;
	build(&x, 3, RINA_CTRL_ABORT);
	rina_ctrl_seal(&x, other, rina_siphash24, NOW + 2, SELF_IP,
		       SELF_PORT);
	ktap_result(check(g, &x, key) == RINA_CTRL_FORGED,
		    "check: a message sealed with another secret is forged");

	build(&x, 3, RINA_CTRL_ABORT);
	len = rina_ctrl_seal(&x, NULL, NULL, 0, 0, 0);
	ktap_result(len == RINA_HDR_LEN + 16 && !rina_hdr_check(&x.h, len) &&
		    check(g, &x, key) == RINA_CTRL_UNSIGNED &&
		    check(NULL, &x, NULL) == RINA_CTRL_OK &&
		    check(NULL, &m, NULL) == RINA_CTRL_NO_KEY,
		    "check: unsigned refused with a secret, taken without; signed refused without");

	build(&x, 300, RINA_CTRL_HELLO);
	seal(&x, NOW + 3);
	ktap_result(check(g, &x, key) == RINA_CTRL_BAD_SENDER,
		    "check: a src_id that is no rank nor ToR is refused");
	free(g);
}

static void test_freshness(void)
{
	struct rina_ctrl_guard *g = calloc(1, sizeof(*g));
	struct rina_ctrl_msg m[RINA_CTRL_GUARD_DEPTH + 2];
	bool ok;
	int i;

	build(&m[0], 1, RINA_CTRL_HELLO);
	seal(&m[0], NOW - RINA_CTRL_WINDOW_US - 1);
	build(&m[1], 1, RINA_CTRL_HELLO);
	seal(&m[1], NOW + RINA_CTRL_WINDOW_US + 1);
	ktap_result(check(g, &m[0], key) == RINA_CTRL_STALE &&
		    check(g, &m[1], key) == RINA_CTRL_STALE,
		    "freshness: stamps beyond the %llu s window, either way, are stale",
		    RINA_CTRL_WINDOW_US / 1000000);

	/*
	 * reordered within the guard's memory: taken, even the oldest
	 * delivered last, behind DEPTH - 1 newer ones of its sender (a
	 * HELLO retry queued on a slow link)
	 */
	for (i = 0; i < RINA_CTRL_GUARD_DEPTH + 2; i++) {
		build(&m[i], 1, RINA_CTRL_HELLO);
		seal(&m[i], NOW - 1000 + i);
	}
	ok = true;
	for (i = 1; i < RINA_CTRL_GUARD_DEPTH; i++)
		ok &= check(g, &m[i], key) == RINA_CTRL_OK;
	ok &= check(g, &m[0], key) == RINA_CTRL_OK;
	ktap_result(ok, "freshness: a message delivered behind %d newer of its sender is taken",
		    RINA_CTRL_GUARD_DEPTH - 1);
	/*
	 * m[DEPTH] pushes out m[0]; m[0] then is older than all remembered:
	 * a replay; m[1], remembered, is a copy of one taken (refused too)
	 */
	ok = check(g, &m[RINA_CTRL_GUARD_DEPTH], key) == RINA_CTRL_OK &&
	     check(g, &m[0], key) == RINA_CTRL_REPLAY &&
	     check(g, &m[1], key) == RINA_CTRL_DUPLICATE;
	ktap_result(ok, "freshness: a message older than all remembered is a replay, one remembered a duplicate");
	/* another sender's stamps are its own */
	build(&m[RINA_CTRL_GUARD_DEPTH + 1], 2, RINA_CTRL_HELLO);
	seal(&m[RINA_CTRL_GUARD_DEPTH + 1], NOW - 1000);
	ktap_result(check(g, &m[RINA_CTRL_GUARD_DEPTH + 1], key) ==
		    RINA_CTRL_OK,
		    "freshness: each sender has its own memory");
	free(g);
}

/*
 * A receiver started at NOW - 500 us: what was signed before is
 * refused as such (a message sent while it did not exist and delivered
 * late is no replay), what was signed after is taken; one older than a
 * sender's last RINA_CTRL_GUARD_DEPTH taken since is a replay still.
 */
static void test_before_start(void)
{
	struct rina_ctrl_guard *g = calloc(1, sizeof(*g));
	struct rina_ctrl_msg m[RINA_CTRL_GUARD_DEPTH + 3];
	const int n = RINA_CTRL_GUARD_DEPTH + 3;
	bool ok;
	int i;

	rina_ctrl_guard_init(g, NOW - 500);
	for (i = 0; i < n; i++)
		build(&m[i], 3, RINA_CTRL_HELLO);
	seal(&m[0], NOW - 600);
	seal(&m[1], NOW - 500);
	ok = check(g, &m[0], key) == RINA_CTRL_BEFORE_START &&
	     check(g, &m[1], key) == RINA_CTRL_BEFORE_START;
	ktap_result(ok, "before start: signed before or at the receiver's start, refused as before_start");
	for (i = 2; i < n; i++)
		seal(&m[i], NOW - 400 + i);
	ok = true;
	for (i = 3; i < n; i++)
		ok &= check(g, &m[i], key) == RINA_CTRL_OK;
	ok &= check(g, &m[2], key) == RINA_CTRL_REPLAY;
	ktap_result(ok, "before start: signed after it, taken; older than the sender's last %d since, a replay",
		    RINA_CTRL_GUARD_DEPTH);
	free(g);
}

/* A data packet of n words with room for the tag. */
static __u32 data_pkt(__u8 *buf, __u16 n)
{
	struct rina_hdr *h = (struct rina_hdr *)buf;

	memset(buf, 0, RINA_HDR_LEN + 4u * n + RINA_TAG_LEN);
	h->ver_op = RINA_VERSION << 4 | RINA_OP_SR_PARTIAL;
	h->job_id = htons(7);
	h->n_elem = htons(n);
	h->exp = RINA_EXP_NONE;
	h->dtype_op = RINA_DTYPE_OP(RINA_WIRE_INT32, 0);
	return RINA_HDR_LEN + 4u * n;
}

static void test_tag(void)
{
	__u8 tag[RINA_TAG_LEN], other[RINA_TAG_LEN], buf[256];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct rina_ctrl_msg m;
	__u32 len, n;
	bool ok;

	rina_session_tag(key, rina_siphash24, 7, 1, tag);
	rina_session_tag(key, rina_siphash24, 8, 1, other);
	ktap_result(memcmp(tag, other, sizeof(tag)) != 0,
		    "tag: each job has its own");
	rina_session_tag(key, rina_siphash24, 7, 2, other);
	ok = memcmp(tag, other, sizeof(tag)) != 0;
	rina_session_tag(key, rina_siphash24, 7, 1ull << 32 | 1, other);
	ok &= memcmp(tag, other, sizeof(tag)) != 0;
	ktap_result(ok, "tag: each session of a job has its own (every bit of the session counts)");

	len = data_pkt(buf, 4);
	n = rina_tag_seal(buf, len, tag);
	ok = n == len + RINA_TAG_LEN && ntohs(h->rsvd) == RINA_X_TAG &&
	     rina_hdr_check(h, n) == RINA_PARSE_OK &&
	     rina_hdr_check(h, len) == RINA_PARSE_BAD_LENGTH &&
	     rina_tag_open(buf, n, tag) == len &&
	     rina_tag_open(buf, n, other) == 0 &&
	     rina_tag_open(buf, n, NULL) == 0;
	ktap_result(ok, "tag: a tagged packet is valid with its 8 bytes, opens with its job's tag only");

	len = data_pkt(buf, 4);
	ok = rina_tag_open(buf, len, tag) == 0 &&
	     rina_tag_open(buf, len, NULL) == len;
	h->rsvd = htons(RINA_X_TAG | 1);
	ok &= rina_hdr_check(h, len + RINA_TAG_LEN) == RINA_PARSE_BAD_LENGTH &&
	      rina_hdr_check(h, len) == RINA_PARSE_BAD_FIELD;
	ktap_result(ok, "tag: an untagged packet is refused where the job tags, other rsvd bits stay invalid");

	/* X_MAC: an 8-byte trailer like the tag, but never the job's tag */
	len = data_pkt(buf, 4);
	n = rina_tag_seal(buf, len, tag);
	h->rsvd = htons(RINA_X_MAC);
	ok = rina_hdr_check(h, n) == RINA_PARSE_OK &&
	     rina_hdr_check(h, len) == RINA_PARSE_BAD_LENGTH &&
	     rina_tag_open(buf, n, tag) == 0 &&
	     rina_tag_open(buf, n, NULL) == 0;
	h->rsvd = htons(RINA_X_MAC | RINA_X_TAG);
	ok &= rina_hdr_check(h, n) == RINA_PARSE_BAD_LENGTH &&
	      rina_hdr_check(h, len) == RINA_PARSE_BAD_FIELD;
	ktap_result(ok, "tag: an X_MAC trailer is 8 bytes, and never opens as the job's tag (not even with its bytes)");

	build(&m, 1, RINA_CTRL_HELLO);
	len = rina_ctrl_seal(&m, NULL, NULL, 0, 0, 0);
	ok = rina_tag_seal(&m, len, tag) == len && !m.h.rsvd &&
	     rina_tag_open(&m, len, tag) == len;
	m.h.rsvd = htons(RINA_X_TAG);
	ok &= rina_hdr_check(&m.h, len + RINA_TAG_LEN) == RINA_PARSE_BAD_FIELD;
	ktap_result(ok, "tag: control messages carry none (they are signed) and may not");
}

/*
 * auth mac: a MAC of header and payload under a key derived from the
 * secret; any changed bit, another job's key, the tag in its place or a
 * missing MAC is refused, and a MAC'd packet is not a tagged one.
 */
static void test_mac(void)
{
	__u8 k7[RINA_SECRET_LEN], k8[RINA_SECRET_LEN], tag[RINA_TAG_LEN];
	__u8 buf[256], copy[256];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	struct rina_ctrl_msg m;
	__u32 len, n;
	bool ok;
	int i;

	rina_data_key(key, rina_siphash24, 7, 1, k7);
	rina_data_key(key, rina_siphash24, 8, 1, k8);
	rina_session_tag(key, rina_siphash24, 7, 1, tag);
	ok = memcmp(k7, k8, sizeof(k7)) && memcmp(k7, key, sizeof(k7)) &&
	     memcmp(k7, tag, sizeof(tag)) &&
	     memcmp(k7 + RINA_MAC_LEN, k7, RINA_MAC_LEN);
	ktap_result(ok, "mac: the data key is the job's own, neither the secret nor the tag, two distinct halves");
	rina_data_key(key, rina_siphash24, 7, 2, k8);
	ktap_result(memcmp(k7, k8, sizeof(k7)) != 0,
		    "mac: each session of a job has its own data key");

	len = data_pkt(buf, 8);
	for (i = 0; i < 32; i++)
		buf[RINA_HDR_LEN + i] = (__u8)(i * 37 + 1);
	n = rina_mac_seal(buf, len, k7, rina_siphash24);
	ok = n == len + RINA_TAG_LEN && ntohs(h->rsvd) == RINA_X_MAC &&
	     rina_hdr_check(h, n) == RINA_PARSE_OK &&
	     rina_mac_open(buf, n, k7, rina_siphash24) == len &&
	     rina_mac_open(buf, n, k8, rina_siphash24) == 0 &&
	     rina_tag_open(buf, n, tag) == 0 && rina_tag_open(buf, n, NULL) == 0;
	ktap_result(ok, "mac: a sealed packet is valid, opens under its job's key only, never as tagged");

	memcpy(copy, buf, n);
	ok = true;
	for (i = 0; i < (int)n; i++) {	/* every byte: header, payload, MAC */
		buf[i] ^= 0x10;
		if (rina_hdr_check(h, n) == RINA_PARSE_OK &&
		    rina_mac_open(buf, n, k7, rina_siphash24))
			ok = false;
		memcpy(buf, copy, n);
	}
	ktap_result(ok, "mac: a change to any of its %u bytes is refused", n);

	len = data_pkt(buf, 8);
	ok = rina_mac_open(buf, len, k7, rina_siphash24) == 0;
	n = rina_tag_seal(buf, len, tag);
	ok &= rina_mac_open(buf, n, k7, rina_siphash24) == 0;
	build(&m, 1, RINA_CTRL_HELLO);
	len = rina_ctrl_seal(&m, key, rina_siphash24, 1, 0, 0);
	ok &= rina_mac_seal(&m, len, k7, rina_siphash24) == len && !m.h.rsvd &&
	      rina_mac_open(&m, len, k7, rina_siphash24) == len;
	h->rsvd = htons(RINA_X_MAC | RINA_X_TAG);
	ok &= rina_hdr_check(h, n) == RINA_PARSE_BAD_LENGTH;
	ktap_result(ok, "mac: untagged and tagged packets are refused where the job MACs; control is signed instead; X_MAC|X_TAG is no trailer");
}

static int write_secret(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	fchmod(fd, mode);
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void test_secret_file(void)
{
	char dir[] = "/tmp/rina-secret.XXXXXX", path[64], err[256];
	__u8 k[RINA_SECRET_LEN];
	bool ok;

	if (!mkdtemp(dir)) {
		ktap_result(0, "secret file: mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/secret", dir);
	ok = !write_secret(path, "000102030405060708090a0b0c0d0e0f\n",
			   0600) &&
	     !rina_secret_load(path, k, err, sizeof(err)) &&
	     !memcmp(k, key, sizeof(k));
	ktap_result(ok, "secret file: 32 hex digits and a newline, mode 0600, read");
	ok = !write_secret(path, "000102030405060708090a0b0c0d0e0f", 0644) &&
	     rina_secret_load(path, k, err, sizeof(err)) &&
	     strstr(err, "readable by others") &&
	     !strstr(err, "0001020304");
	ktap_result(ok, "secret file: mode 0644 refused, contents not shown: %s",
		    err);
	ok = !write_secret(path, "000102030405060708090a0b0c0d0e0", 0600) &&
	     rina_secret_load(path, k, err, sizeof(err)) &&
	     !write_secret(path, "000102030405060708090a0b0c0d0e0g", 0600) &&
	     rina_secret_load(path, k, err, sizeof(err)) &&
	     !write_secret(path, "000102030405060708090a0b0c0d0e0f00", 0600) &&
	     rina_secret_load(path, k, err, sizeof(err));
	ktap_result(ok, "secret file: short, long or non-hex contents refused");
	unlink(path);
	rmdir(dir);
}

/*
 * The session a HELLO or TOR_INSTALL carries: 64 bits in the header's
 * seq, chunk and slot, under the MAC like the rest of the header.
 */
static void test_session_field(void)
{
	const __u64 s = 0x0123456789abcdefull;
	static struct rina_ctrl_guard g;	/* 160 KiB: not on the stack */
	struct rina_ctrl_msg m;
	bool ok;

	build(&m, 1, RINA_CTRL_HELLO);
	ok = rina_ctrl_session(&m.h) == 0;
	rina_ctrl_set_session(&m.h, s);
	ok &= rina_ctrl_session(&m.h) == s && ntohl(m.h.seq) == 0x01234567 &&
	      ntohs(m.h.chunk) == 0x89ab && ntohs(m.h.slot) == 0xcdef;
	ktap_result(ok, "session: 64 bits in seq, chunk and slot of a control message, 0 when none");

	rina_ctrl_guard_init(&g, 0);
	seal(&m, 1000);
	m.h.slot ^= htons(1);
	ok = rina_ctrl_check(&g, &m.h, key, rina_siphash24, 1000, SELF_IP,
			     SELF_PORT) == RINA_CTRL_FORGED;
	m.h.slot ^= htons(1);
	ok &= rina_ctrl_check(&g, &m.h, key, rina_siphash24, 1000, SELF_IP,
			      SELF_PORT) == RINA_CTRL_OK;
	ktap_result(ok, "session: signed with the message (one bit changed: forged)");
}

int main(void)
{
	ktap_plan(31);
	test_siphash();
	test_seal_check();
	test_freshness();
	test_before_start();
	test_tag();
	test_session_field();
	test_mac();
	test_secret_file();
	return ktap_finish();
}
