// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Unit tests of the shared protocol core: header validation, ring plan
 * (L = x + m(k - x), rack-contiguous order, agents), schedule arithmetic
 * (every element covered once, seq encode/decode, P <= W - 1, slot
 * ordinals distinct inside a window), int32 aggregation with overflow
 * detection, the AVX2 kernels against the reference.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "plan.h"
#include "schedule.h"
#include "bitmap.h"
#include "agg.h"
#include "../ktap.h"

int rina_agg_add_be_avx2(__s32 *acc, const __be32 *in, __u32 n);
void rina_agg_store_be_avx2(__be32 *out, const __s32 *acc, __u32 n);

static void good_hdr(struct rina_hdr *h, unsigned int op, unsigned int n)
{
	memset(h, 0, sizeof(*h));
	h->ver_op = (__u8)(RINA_VERSION << 4 | op);
	h->n_elem = htons((__u16)n);
}

static void test_wire(void)
{
	__u8 buf[RINA_HDR_LEN + 4 * 300];
	struct rina_hdr *h = (struct rina_hdr *)buf;
	bool ok = true;
	unsigned int len;

	good_hdr(h, RINA_OP_SR_PARTIAL, 64);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 256) == RINA_PARSE_OK;
	for (len = 0; len < RINA_HDR_LEN; len++)
		ok &= rina_hdr_check(h, len) == RINA_PARSE_RUNT;
	ktap_result(ok, "wire: valid header accepted, every runt length refused");

	ok = rina_hdr_check(h, RINA_HDR_LEN + 252) == RINA_PARSE_BAD_LENGTH &&
	     rina_hdr_check(h, RINA_HDR_LEN + 260) == RINA_PARSE_BAD_LENGTH;
	h->ver_op = (__u8)(2 << 4 | RINA_OP_SR_PARTIAL);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 256) == RINA_PARSE_BAD_VERSION;
	h->ver_op = (__u8)(RINA_VERSION << 4 | 0);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 256) == RINA_PARSE_BAD_OPCODE;
	h->ver_op = (__u8)(RINA_VERSION << 4 | 15);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 256) == RINA_PARSE_BAD_OPCODE;
	good_hdr(h, RINA_OP_AG_DATA, RINA_MAX_ELEMS + 1);
	ok &= rina_hdr_check(h, 65535) == RINA_PARSE_OVERSIZE;
	good_hdr(h, RINA_OP_AG_DATA, 0);
	ok &= rina_hdr_check(h, RINA_HDR_LEN) == RINA_PARSE_BAD_LENGTH;
	good_hdr(h, RINA_OP_AG_DATA, 1);
	h->dtype_op = RINA_DTYPE_OP(7, 0);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 4) == RINA_PARSE_BAD_DTYPE;
	good_hdr(h, RINA_OP_AG_DATA, 1);
	h->rsvd = htons(1);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 4) == RINA_PARSE_BAD_FIELD;
	good_hdr(h, RINA_OP_CTRL, 3);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 12) == RINA_PARSE_BAD_LENGTH;
	good_hdr(h, RINA_OP_CTRL, RINA_CTRL_WORDS);
	ok &= rina_hdr_check(h, RINA_HDR_LEN + 16) == RINA_PARSE_OK;
	good_hdr(h, RINA_OP_ACK, 0);
	ok &= rina_hdr_check(h, RINA_HDR_LEN) == RINA_PARSE_BAD_LENGTH;
	ktap_result(ok, "wire: bad version, opcode, lengths, oversize, dtype, reserved refused");

	ok = rina_port_match(0x5240) && rina_port_match(0x524f) &&
	     !rina_port_match(0x523f) && !rina_port_match(0x5250) &&
	     !rina_port_match(53);
	ktap_result(ok, "wire: port range 0x5240..0x524f");
}

static void make_job(struct rina_job_desc *job, int k, int m,
		     unsigned int ina_mask)
{
	int r, i;

	memset(job, 0, sizeof(*job));
	job->job_id = 1;
	job->elems = 64;
	job->window = 16;
	job->timeout_ms = 1000;
	job->rto_us = 1000;
	job->n_racks = (__u16)k;
	for (r = 0; r < k; r++) {
		/* declare racks in reverse: the plan must sort them */
		job->racks[r].id = (__u16)(k - 1 - r);
		job->racks[r].ina = !!(ina_mask & (1u << (k - 1 - r)));
	}
	job->n_ranks = (__u16)(k * m);
	for (r = 0; r < k; r++)
		for (i = 0; i < m; i++) {
			struct rina_rank_desc *d = &job->ranks[r * m + i];

			d->ip = htonl(0xc6120000u | (unsigned int)(r << 8) |
				      (unsigned int)(i + 1));
			d->port = htons(RINA_UDP_PORT_WORKER);
			d->rack = (__u16)r;
		}
}

static void test_plan(void)
{
	static struct rina_job_desc job;
	static struct rina_ring ring;
	bool ok = true;
	int k, m, x;
	unsigned int mask, j;

	for (k = 1; k <= 4; k++)
		for (m = 1; m <= 4; m++)
			for (mask = 0; mask < (1u << k); mask++) {
				x = __builtin_popcount(mask);
				make_job(&job, k, m, mask);
				if (rina_job_validate(&job).err) {
					ok = false;
					continue;
				}
				rina_ring_build(&job, 1, &ring);
				/* only INA members: every rack INA */
				if (rina_ring_only_ina(&ring) != (x == k))
					ok = false;
				if (ring.L != x + m * (k - x)) {
					ktap_diag("k %d m %d x %d: L %u", k, m,
						  x, ring.L);
					ok = false;
				}
				for (j = 0; j < ring.L; j++) {
					const struct rina_member *mb = &ring.m[j];

					/* agent is the lowest rank */
					if (mb->agent != ring.order[mb->first])
						ok = false;
					if (mb->ina != !!(mask & (1u << mb->rack)))
						ok = false;
					/* rack-contiguous: racks ascend */
					if (j && ring.m[j - 1].rack > mb->rack)
						ok = false;
				}
				rina_ring_build(&job, 0, &ring);
				if (ring.L != k * m || rina_ring_only_ina(&ring))
					ok = false;
			}
	ktap_result(ok, "plan: L = x + m(k - x) for k, m = 1..4 and every INA pattern; agents lowest; racks in order; a ring of INA members only exactly when every rack is");

	make_job(&job, 2, 3, 1);
	rina_ring_build(&job, 1, &ring);
	ok = ring.L == 4 && ring.m[0].ina && ring.m[0].n_local == 3 &&
	     ring.m[0].agent == 0 && ring.member_of[2] == 0 &&
	     ring.member_of[3] == 1 && ring.member_of[5] == 3 &&
	     rina_ring_next(&ring, 3) == 0 && rina_ring_prev(&ring, 0) == 3;
	ktap_result(ok, "plan: 2x3 with rack 0 INA is a ring of 4, ranks 0-2 one member");

	make_job(&job, 2, 2, 0);
	job.window = 24;
	ok = rina_job_validate(&job).err == RINA_JOB_BAD_WINDOW;
	make_job(&job, 2, 2, 0);
	job.ranks[3].port = htons(80);
	ok &= rina_job_validate(&job).err == RINA_JOB_BAD_PORT &&
	      rina_job_validate(&job).what == 3;
	make_job(&job, 2, 2, 0);
	job.ranks[2].ip = job.ranks[1].ip;
	ok &= rina_job_validate(&job).err == RINA_JOB_DUP_ADDR;
	make_job(&job, 2, 2, 0);
	job.ranks[2].rack = 9;
	ok &= rina_job_validate(&job).err == RINA_JOB_UNKNOWN_RACK;
	make_job(&job, 2, 2, 0);
	job.elems = 0;
	ok &= rina_job_validate(&job).err == RINA_JOB_BAD_ELEMS;
	ktap_result(ok, "plan: bad window, port, duplicate address, unknown rack, elements refused");

	/* a pipeline computes no MAC per packet: auth mac and a ToR refused */
	make_job(&job, 2, 2, 0);
	job.auth = RINA_JOB_AUTH_MAC;
	ok = rina_job_validate(&job).err == RINA_JOB_OK;
	job.racks[1].tor_ip = htonl(0xc612fffe);
	ok &= rina_job_validate(&job).err == RINA_JOB_MAC_WITH_TOR &&
	      rina_job_validate(&job).what == 1;
	job.auth = RINA_JOB_AUTH_TAG;
	ok &= rina_job_validate(&job).err == RINA_JOB_OK;
	ktap_result(ok, "plan: auth mac with a ToR refused, naming the rack; auth tag with one accepted");

	make_job(&job, 2, 2, 0);
	{
		__u64 h = rina_job_hash(&job);

		job.window = 32;
		ok = h != rina_job_hash(&job);
	}
	ktap_result(ok, "plan: job hash changes with a parameter");
}

/* rina_seq_is_ag() and rina_block_seqs() on packet (b, c, p)'s two seqs. */
static bool seq_helpers_agree(const struct rina_sched *s, __u64 b, __u32 c,
			      __u32 p)
{
	__u32 sr = rina_seq(s, b, c, p, 0), ag = rina_seq(s, b, c, p, 1);

	return !rina_seq_is_ag(s, sr) && rina_seq_is_ag(s, ag) &&
	       sr / rina_block_seqs(s) == b && ag / rina_block_seqs(s) == b;
}

static void test_schedule(void)
{
	static const __u64 counts[] = { 0, 1, 5, 63, 64, 65, 1000, 12345,
					100000 };
	bool ok = true;
	unsigned int ci, L, W;

	for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++)
		for (L = 1; L <= 6; L++)
			for (W = 2; W <= 16; W *= 2) {
				struct rina_sched s;
				__u8 *seen;
				__u64 b, covered = 0;
				__u32 c, p;

				if (rina_sched_init(&s, counts[ci], L, 16, W)) {
					ok = false;
					continue;
				}
				if (s.P > W - 1 || s.P < 1)
					ok = false;
				seen = calloc(counts[ci] + 1, 1);
				for (b = 0; b < s.nblocks; b++)
					for (c = 0; c < L; c++)
						for (p = 0; p < s.P; p++) {
							__u64 off = rina_pkt_off(&s, b, c, p);
							__u32 n = rina_pkt_len(&s, b, c, p), e;
							struct rina_pkt_id id;
							__u32 seq = rina_seq(&s, b, c, p, 1);

							rina_seq_decode(&s, seq, &id);
							if (id.block != b || id.chunk != c ||
							    id.pkt != p || !id.ag ||
							    seq >= s.seqs)
								ok = false;
							ok &= seq_helpers_agree(&s, b, c, p);
							for (e = 0; e < n; e++)
								seen[off + e]++;
							covered += n;
						}
				for (b = 0; b < counts[ci]; b++)
					if (seen[b] != 1)
						ok = false;
				if (covered != counts[ci])
					ok = false;
				free(seen);
			}
	ktap_result(ok, "schedule: every element in exactly one packet; seq round-trips; rina_seq_is_ag(), rina_block_seqs() agree; 1 <= P <= W-1");

	ok = true;
	for (L = 1; L <= 7; L++) {
		unsigned int i, t;

		for (i = 0; i < L; i++) {
			__u32 used = 0;

			for (t = 0; t + 1 < L; t++) {
				__u32 c = rina_sr_chunk(i, t, L);

				used |= 1u << c;
				if (rina_chunk_step(i, c, L) != t)
					ok = false;
				/* what i sends at t, i+1 handles at t+1 */
				if (rina_chunk_step((i + 1) % L, c, L) != t + 1)
					ok = false;
			}
			if (L > 1 && (used & (1u << rina_own_chunk(i, L))))
				ok = false;	/* own chunk is never sent in SR */
			if (rina_chunk_step(i, rina_own_chunk(i, L), L) !=
			    (L > 1 ? L - 1 : 0))
				ok = false;
		}
	}
	ktap_result(ok, "schedule: member i sends chunk (i-t) mod L at step t, owns (i+1) mod L");

	ok = true;
	{
		struct rina_sched s;
		unsigned int i;

		rina_sched_init(&s, 64 * 4 * 7 * 3, 4, 64, 8);
		for (i = 0; i < 4; i++) {
			__u8 used[1024] = { 0 };
			__u64 b;
			__u32 c, p;

			for (b = 0; b < s.nblocks; b++)
				for (c = 0; c < 4; c++)
					for (p = 0; p < s.P; p++) {
						__u64 o = rina_ordinal(&s, i, b, c, p);
						__u32 seq = rina_seq(&s, b, c, p, 0);
						struct rina_pkt_id id;

						if (o >= 1024 || used[o]++)
							ok = false;
						/* and seq <-> ordinal both ways */
						if (rina_seq_ordinal(&s, i, seq) != o ||
						    rina_ordinal_seq(&s, i, o, &id) != seq ||
						    id.block != b || id.chunk != c ||
						    id.pkt != p || id.ag)
							ok = false;
					}
		}
		ok &= rina_slot(65530, 10) == 4;
		ok &= rina_round_cmp(1, 65535) > 0 && rina_round_cmp(65535, 1) < 0 &&
		      rina_round_cmp(7, 7) == 0;
	}
	ktap_result(ok, "schedule: ordinals distinct per member, seq <-> ordinal both ways; slot and round wrap around");
}

static void test_agg(void)
{
	__s32 acc[300], acc2[300];
	__be32 in[300], out1[300], out2[300];
	bool have_avx2 = __builtin_cpu_supports("avx2");
	bool ok = true;
	unsigned int j;

	for (j = 0; j < 300; j++) {
		acc[j] = acc2[j] = (__s32)(j * 1000003u) - 150000000;
		in[j] = htonl((__u32)((__s32)(j * 7919u) - 1000000));
	}
	/* the vector kernels are only run where the CPU has them */
	if (!have_avx2) {
		ktap_skip_reason("agg: add from network order, scalar and AVX2 agree",
				 "no AVX2 on this CPU");
	} else {
		ok &= !rina_agg_add_be(acc, in, 300);
		ok &= !rina_agg_add_be_avx2(acc2, in, 300);
		ok &= !memcmp(acc, acc2, sizeof(acc));
		for (j = 0; j < 300; j++)
			ok &= acc[j] == (__s32)(j * 1000003u) - 150000000 +
				       (__s32)(j * 7919u) - 1000000;
		rina_agg_store_be(out1, acc, 300);
		rina_agg_store_be_avx2(out2, acc, 300);
		ok &= !memcmp(out1, out2, sizeof(out1)) &&
		      ntohl(out1[5]) == (__u32)acc[5];
		ktap_result(ok, "agg: add from network order, scalar and AVX2 agree");
	}

	acc[0] = INT32_MAX;
	in[0] = htonl(1);
	ok = rina_agg_add_be(acc, in, 1) == 1;
	acc[0] = INT32_MIN;
	in[0] = htonl((__u32)-1);
	ok &= rina_agg_add_be(acc, in, 1) == 1;
	acc[0] = INT32_MIN;
	in[0] = htonl((__u32)INT32_MAX);
	ok &= rina_agg_add_be(acc, in, 1) == 0 && acc[0] == -1;
	if (!have_avx2) {
		ktap_skip_reason("agg: wrap-around detected at both ends, in the vector kernel too",
				 "no AVX2 on this CPU");
	} else {
		acc2[257] = INT32_MAX - 3;
		for (j = 0; j < 300; j++)
			in[j] = htonl(j == 257 ? 4 : 0);
		ok &= rina_agg_add_be_avx2(acc2, in, 300) == 1;
		ktap_result(ok, "agg: wrap-around detected at both ends, in the vector kernel too");
	}

	{
		__u64 map[2] = { 0, 0 };

		ok = !rina_bit_test_and_set(map, 70) &&
		     rina_bit_test_and_set(map, 70) && rina_bit_test(map, 70) &&
		     !rina_bit_test(map, 69);
		rina_bit_clear(map, 70);
		ok &= !rina_bit_test(map, 70);
	}
	ktap_result(ok, "bitmap: test-and-set reports duplicates");
}

int main(void)
{
	ktap_plan(3 + 5 + 3 + 3);
	test_wire();
	test_plan();
	test_schedule();
	test_agg();
	return ktap_finish();
}
