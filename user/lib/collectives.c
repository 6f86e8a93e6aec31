// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Broadcast, allgather, reduce-scatter and barrier.
 *
 * On a ring with no INA rack, allgather and reduce-scatter run the
 * ring's phase alone (core/ring_member.h, RINA_RM_AG, RINA_RM_RS): each
 * rank's segment is laid out where its ring member owns the data after
 * a reduce-scatter (own_copy(), from the call's schedule), so an
 * allgather moves each byte once around the ring, half the bytes of an
 * allreduce of the gathered buffer. A broadcast there is the allgather
 * phase with every chunk starting at the root (RINA_RM_BC): a pipelined
 * chain that carries the buffer once over every link but the one into
 * the root, after a small allreduce of every rank's root (bcast_run()).
 *
 * Otherwise (and for a zero-byte allgather, which must still meet the
 * others) each is one int32 SUM allreduce (reduce-scatter: one
 * allreduce of its dtype and op). int32 addition is exact and x + 0
 * wraps nowhere, so a rank that contributes its bytes, packed into
 * int32 words, in its own segment of a zeroed buffer gets every rank's
 * bytes back unchanged. Errors, timeouts and ordering are the
 * allreduce's; the cost is that of a full allreduce of the whole
 * buffer. An INA rack is one ring member whose own chunk would have to
 * hold the segments of all its ranks, which only its ToR and agent
 * know how to sum; it runs no phase alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "rina_int.h"
#include "ring_member.h"
#include "schedule.h"

/*
 * A native call's buffer: one or two ring calls (pieces), each holding
 * `words` words of every rank's segment from word `from` on. A chunk of
 * a block holds at most P packets; segments longer than a block's
 * chunk span several blocks, and the rest goes in a second call whose
 * chunks are as long as that rest (plan_pieces()).
 */
struct piece {
	struct rina_sched	s;
	size_t			from, words;
	int32_t			*acc;		/* s.count words */
};

struct coll {
	int32_t		*tmp;		/* the allreduce's buffer */
	size_t		words;
	/* nseg segments of len bytes at tmp + off + i stride, to dst + i len */
	void		*dst;
	size_t		off, len, stride, nseg;
	rina_comm_t	*comm;
	int		rank, size;
	int		root;		/* broadcast: slot check, else -1 */
	int		bc_member;	/* native broadcast's root, else -1 */
	int		barrier;	/* barrier: the sum must be size */
	/* a ring phase alone: its pieces, the call's type and op */
	struct piece	pc[2];
	int		npc;
	uint8_t		phases;
	enum rina_dtype	dtype;
	enum rina_redop	op;
	/* reduce-scatter of a dtype widened to float32: narrowed to it */
	bool		widened;
	enum rina_dtype	user_dtype;
};

static size_t words_of(size_t bytes)
{
	return bytes / 4 + (bytes % 4 != 0);
}

/* A collective of comm, with no buffer yet. */
static struct coll *coll_alloc(rina_comm_t *comm)
{
	struct coll *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->comm = comm;
	k->rank = rina_comm_rank(comm);
	k->size = rina_comm_size(comm);
	k->root = -1;
	k->bc_member = -1;
	return k;
}

static struct coll *coll_new(rina_comm_t *comm, size_t words)
{
	struct coll *k = coll_alloc(comm);

	if (!k)
		return NULL;
	/* at least one word: a zero-byte call still meets the others */
	k->words = words ? words : 1;
	k->tmp = calloc(k->words, sizeof(int32_t));
	if (!k->tmp) {
		free(k);
		return NULL;
	}
	return k;
}

static void coll_free(struct coll *k)
{
	int i;

	for (i = 0; i < k->npc; i++)
		free(k->pc[i].acc);
	free(k->tmp);
	free(k);
}

/*
 * Copy bytes bytes between buf and the words of acc that member owns
 * after a reduce-scatter of schedule s (its own chunk's packets, block
 * by block, in order): into acc (in) or out of it. Returns the bytes
 * copied, fewer when the member owns less.
 */
static size_t own_copy(const struct rina_sched *s, unsigned int member,
		       int32_t *acc, void *buf, size_t bytes, bool in)
{
	__u32 own = rina_own_chunk(member, s->L), p;
	size_t done = 0, n;
	char *a, *b = buf;
	__u64 blk;

	for (blk = 0; blk < s->nblocks && done < bytes; blk++)
		for (p = 0; p < s->P && done < bytes; p++) {
			n = (size_t)rina_pkt_len(s, blk, own, p) * 4;
			if (n > bytes - done)
				n = bytes - done;
			a = (char *)(acc + rina_pkt_off(s, blk, own, p));
			if (in)
				memcpy(a, b + done, n);
			else
				memcpy(b + done, a, n);
			done += n;
		}
	return done;
}

/*
 * A rank's segment of bytes bytes at buf, into the pieces where ring
 * member `member` owns it (in) or out of them: the one layout that
 * packing and unpacking follow.
 */
static int seg_copy(struct coll *k, unsigned int member, const void *buf,
		    size_t bytes, bool in)
{
	size_t off, n;
	int i;

	for (i = 0; i < k->npc; i++) {
		off = k->pc[i].from * 4;
		if (off >= bytes)
			break;
		n = bytes - off < k->pc[i].words * 4 ? bytes - off :
		    k->pc[i].words * 4;
		if (own_copy(&k->pc[i].s, member, k->pc[i].acc,
			     (char *)buf + off, n, in) != n)
			return rina_fail(RINA_ERR_INVALID,
					 "internal: member %u owns too little of call piece %d",
					 member, i);
	}
	return RINA_OK;
}

static int add_piece(struct coll *k, size_t from, size_t words,
		     size_t count)
{
	struct piece *pc = &k->pc[k->npc];
	int ret;

	ret = rina_call_sched(k->comm, &pc->s, count);
	if (ret)
		return ret;
	pc->acc = calloc(count, sizeof(int32_t));
	if (!pc->acc)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	pc->from = from;
	pc->words = words;
	k->npc++;
	return RINA_OK;
}

/*
 * The calls that carry every rank's segment of seg words (seg > 0): a
 * block's chunk is at most pmax packets of E words, and the chunks of
 * a call of several blocks are even only when every block is full. So
 * the whole blocks' worth goes in one call (count: L segments' worth),
 * the rest in a second of one block with chunks of q packets: its
 * count (L - 1) q E + rest makes the schedule's P q (rina_sched_init())
 * and its last chunk exactly rest long. Padding: under E words a member
 * (padding to whole blocks instead cost up to twice the bytes).
 */
static int plan_pieces(struct coll *k, size_t seg)
{
	struct rina_comm *c = k->comm;
	size_t L = c->L, E = c->job.elems, pmax, full, rest, q;
	struct rina_sched s;
	int ret;

	if (seg > SIZE_MAX / 4 / (L + 1) - E)
		return rina_fail(RINA_ERR_INVALID, "buffer too large");
	/* a call of more than W packets a chunk: its P is the cap */
	ret = rina_call_sched(c, &s, L * E * c->job.window);
	if (ret)
		return ret;
	pmax = s.P;
	full = seg / (pmax * E) * (pmax * E);
	rest = seg - full;
	if (full) {
		ret = add_piece(k, 0, full, full * L);
		if (ret)
			return ret;
	}
	if (!rest)
		return RINA_OK;
	q = (rest + E - 1) / E;
	return add_piece(k, full, rest, (L - 1) * q * E + rest);
}

/* A collective that runs a ring phase alone, in *out. */
static int phase_new(rina_comm_t *comm, size_t seg, uint8_t phases,
		     enum rina_dtype dtype, enum rina_redop op,
		     struct coll **out)
{
	struct coll *k = coll_alloc(comm);
	int ret;

	*out = NULL;
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->phases = phases;
	k->dtype = dtype;
	k->op = op;
	ret = plan_pieces(k, seg);
	if (ret) {
		coll_free(k);
		return ret;
	}
	*out = k;
	return RINA_OK;
}

/* The progress thread's part: every piece, the phase alone. */
static int phase_run(rina_comm_t *comm, void *arg)
{
	struct coll *k = arg;
	int i, ret;

	for (i = 0; i < k->npc; i++) {
		ret = rina_wire_phases(k->pc[i].acc, k->pc[i].acc,
				       k->pc[i].s.count, k->dtype, k->op, comm,
				       k->phases, 0);
		if (ret)
			return ret;
	}
	return RINA_OK;
}

/* A ring without INA racks: allgather and reduce-scatter run natively. */
static bool phases_alone(const struct rina_comm *c)
{
	return !c->pad && !c->ina_local;
}

/* A widened reduce-scatter's own segment, narrowed into dst. */
static int narrow_own(struct coll *k)
{
	size_t count = k->len / 4;
	float *tmp = calloc(k->len / 4, sizeof(*tmp));
	int ret;

	if (!tmp)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	ret = seg_copy(k, k->comm->ring.member_of[k->rank], tmp, k->len,
		       false);
	if (ret)
		goto out;
	ret = rina_dtype_narrow_result(k->comm, k->dst, tmp, count,
				       k->user_dtype);
out:
	free(tmp);
	return ret;
}

/* Every rank wrote root + 1 into its own slot: the same root? */
static int roots_agree(const struct coll *k)
{
	int r;

	for (r = 0; r < k->size; r++)
		if (k->tmp[r] != k->root + 1)
			return rina_fail(RINA_ERR_MISMATCH,
					 "broadcast: rank %d named root %d, rank %d root %d",
					 r, k->tmp[r] - 1, k->rank, k->root);
	return RINA_OK;
}

static int coll_fin(int result, void *arg)
{
	struct coll *k = arg;
	size_t i;
	int r;

	if (result)
		goto out;
	if (k->root >= 0) {
		result = roots_agree(k);
		if (result)
			goto out;
	}
	if (k->barrier && k->tmp[0] != k->size) {
		result = rina_fail(RINA_ERR_MISMATCH,
				   "barrier: %d of %d ranks counted",
				   k->tmp[0], k->size);
		goto out;
	}
	if (k->widened) {
		result = narrow_own(k);
		goto out;
	}
	/* a phase alone: allgather every rank's segment, else our own */
	for (i = 0; k->npc && k->len && i < k->nseg; i++) {
		r = k->nseg == 1 ? k->rank : (int)i;
		result = seg_copy(k, k->comm->ring.member_of[r],
				  (char *)k->dst + i * k->len, k->len, false);
		if (result)
			goto out;
	}
	for (i = 0; !k->npc && k->dst && k->len && i < k->nseg; i++)
		memcpy((char *)k->dst + i * k->len,
		       (char *)k->tmp + k->off + i * k->stride, k->len);
out:
	coll_free(k);
	return result;
}

static int coll_start(struct coll *k, rina_comm_t *comm, rina_callback_t cb,
		      void *arg, rina_request_t **req)
{
	int ret;

	ret = rina_iallreduce_fin(k->tmp, k->tmp, k->words, RINA_INT32,
				  RINA_SUM, comm, coll_fin, k, cb, arg, req);
	if (ret)
		coll_free(k);
	return ret;
}

/*
 * The progress thread's part of a plain ring's broadcast: the roots'
 * slots (a small allreduce), so that ranks that name different roots
 * fail alike and at once (a chain from a root that thinks it is none
 * would never start), then the root's words down the ring, once.
 */
static int bcast_run(rina_comm_t *comm, void *arg)
{
	struct coll *k = arg;
	size_t hdr = (size_t)k->size;
	int ret;

	ret = rina_wire_phases(k->tmp, k->tmp, hdr, RINA_INT32, RINA_SUM,
			       comm, 0, 0);
	if (!ret)
		ret = roots_agree(k);
	if (ret)
		return ret;
	return rina_wire_phases(k->tmp + hdr, k->tmp + hdr, k->words - hdr,
				RINA_INT32, RINA_SUM, comm, RINA_RM_BC,
				(uint32_t)k->bc_member);
}

static int phase_start(struct coll *k, rina_comm_t *comm, rina_callback_t cb,
		       void *arg, rina_request_t **req)
{
	int ret;

	ret = rina_icall_fin(comm, k->bc_member >= 0 ? bcast_run : phase_run,
			     coll_fin, k, cb, arg, req);
	if (ret)
		coll_free(k);
	return ret;
}

int rina_ibroadcast(void *buf, size_t bytes, int root, rina_comm_t *comm,
		    rina_callback_t cb, void *arg, rina_request_t **req)
{
	struct coll *k;
	size_t hdr;
	int ret;

	ret = rina_check_req(comm, req);
	if (ret)
		return ret;
	if (bytes && !buf)
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (root < 0 || root >= rina_comm_size(comm))
		return rina_fail(RINA_ERR_INVALID,
				 "broadcast root %d is not a rank (0..%d)",
				 root, rina_comm_size(comm) - 1);
	hdr = rina_comm_size(comm);	/* one word per rank: its root */
	if (bytes / 4 > SIZE_MAX / 4 - hdr - 1)
		return rina_fail(RINA_ERR_INVALID, "buffer too large");
	k = coll_new(comm, hdr + words_of(bytes));
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->root = root;
	k->tmp[k->rank] = root + 1;
	if (k->rank == root && bytes)
		memcpy(k->tmp + hdr, buf, bytes);
	k->dst = buf;
	k->off = hdr * 4;
	k->len = bytes;
	k->nseg = 1;
	if (bytes && phases_alone(comm)) {
		/* the root's words down the ring once, as a chain */
		k->bc_member = comm->ring.member_of[root];
		return phase_start(k, comm, cb, arg, req);
	}
	return coll_start(k, comm, cb, arg, req);
}

int rina_iallgather(const void *sendbuf, void *recvbuf, size_t bytes,
		    rina_comm_t *comm, rina_callback_t cb, void *arg,
		    rina_request_t **req)
{
	struct coll *k;
	size_t seg, n;
	int ret;

	ret = rina_check_req(comm, req);
	if (ret)
		return ret;
	if (bytes && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	n = rina_comm_size(comm);
	seg = words_of(bytes);
	/* zero bytes: a one-word allreduce still meets the others */
	if (bytes && phases_alone(comm)) {
		ret = phase_new(comm, seg, RINA_RM_AG, RINA_INT32, RINA_SUM,
				&k);
		if (ret)
			return ret;
		ret = seg_copy(k, comm->member, sendbuf, bytes, true);
		if (ret) {
			coll_free(k);
			return ret;
		}
		k->dst = recvbuf;
		k->len = bytes;
		k->nseg = n;
		return phase_start(k, comm, cb, arg, req);
	}
	if (seg && seg > SIZE_MAX / 4 / n)
		return rina_fail(RINA_ERR_INVALID, "buffer too large");
	k = coll_new(comm, seg * n);
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	if (bytes)
		memcpy(k->tmp + seg * k->rank, sendbuf, bytes);
	k->dst = recvbuf;
	k->len = bytes;
	k->stride = seg * 4;
	k->nseg = n;
	return coll_start(k, comm, cb, arg, req);
}

/* Every rank's segment of sendbuf where its member owns it, as float32. */
static int rs_pack(struct coll *k, const void *sendbuf, size_t count,
		   enum rina_dtype dtype)
{
	size_t n = k->size, i;
	const void *src = sendbuf;
	float *wide = NULL;
	int ret = RINA_OK;

	if (rina_dtype_converted(dtype)) {
		wide = malloc(n * count * sizeof(*wide));
		if (!wide)
			return rina_fail(RINA_ERR_NOMEM, "out of memory");
		rina_dtype_widen(wide, sendbuf, n * count, dtype);
		src = wide;
		k->widened = true;
		k->user_dtype = dtype;
	}
	for (i = 0; !ret && i < n; i++)
		ret = seg_copy(k, k->comm->ring.member_of[i],
			       (const char *)src + i * count * 4, count * 4,
			       true);
	free(wide);
	return ret;
}

int rina_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t count,
			 enum rina_dtype dtype, enum rina_redop op,
			 rina_comm_t *comm, rina_callback_t cb, void *arg,
			 rina_request_t **req)
{
	size_t es = rina_dtype_size(dtype), n;
	struct coll *k;
	int ret;

	ret = rina_check_req(comm, req);
	if (ret)
		return ret;
	if (count && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (!es)
		return rina_fail(RINA_ERR_INVALID, "unknown dtype %d", dtype);
	n = rina_comm_size(comm);
	if (count && count > SIZE_MAX / es / n)
		return rina_fail(RINA_ERR_INVALID, "buffer too large");
	/*
	 * The reduce-scatter phase alone leaves each member its own chunk
	 * reduced, where every rank put the segment of that member's rank.
	 * bfloat16, float16 and float64 are widened to float32 first, as
	 * the allreduce does (convert.c), and narrowed at the end.
	 */
	if (count && phases_alone(comm)) {
		ret = phase_new(comm, count, RINA_RM_RS,
				rina_dtype_converted(dtype) ? RINA_FLOAT32 :
				dtype, op, &k);
		if (ret)
			return ret;
		ret = rs_pack(k, sendbuf, count, dtype);
		if (ret) {
			coll_free(k);
			return ret;
		}
		k->dst = recvbuf;
		k->len = count * 4;
		k->nseg = 1;
		return phase_start(k, comm, cb, arg, req);
	}
	k = coll_alloc(comm);
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->words = count * n;
	k->tmp = malloc(count ? count * n * es : 4);
	if (!k->tmp) {
		free(k);
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	}
	if (count)
		memcpy(k->tmp, sendbuf, count * n * es);
	k->dst = recvbuf;
	k->off = k->rank * count * es;
	k->len = count * es;
	k->nseg = 1;
	ret = rina_iallreduce_fin(k->tmp, k->tmp, count * n, dtype, op, comm,
				  coll_fin, k, cb, arg, req);
	if (ret)
		coll_free(k);
	return ret;
}

int rina_ibarrier(rina_comm_t *comm, rina_callback_t cb, void *arg,
		  rina_request_t **req)
{
	struct coll *k;
	int ret;

	ret = rina_check_req(comm, req);
	if (ret)
		return ret;
	k = coll_new(comm, 1);
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->tmp[0] = 1;
	k->barrier = 1;
	return coll_start(k, comm, cb, arg, req);
}

/* The blocking forms: start, wait, free (rina_wait sets the message). */
static int finish(int ret, rina_request_t *req)
{
	if (ret)
		return ret;
	ret = rina_wait(req);
	rina_request_free(req);
	return ret;
}

int rina_broadcast(void *buf, size_t bytes, int root, rina_comm_t *comm)
{
	rina_request_t *req;
	int ret = rina_ibroadcast(buf, bytes, root, comm, NULL, NULL, &req);

	return finish(ret, req);
}

int rina_allgather(const void *sendbuf, void *recvbuf, size_t bytes,
		   rina_comm_t *comm)
{
	rina_request_t *req;
	int ret = rina_iallgather(sendbuf, recvbuf, bytes, comm, NULL, NULL,
				  &req);

	return finish(ret, req);
}

int rina_reduce_scatter(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *comm)
{
	rina_request_t *req;
	int ret = rina_ireduce_scatter(sendbuf, recvbuf, count, dtype, op,
				       comm, NULL, NULL, &req);

	return finish(ret, req);
}

int rina_barrier(rina_comm_t *comm)
{
	rina_request_t *req;
	int ret = rina_ibarrier(comm, NULL, NULL, &req);

	return finish(ret, req);
}
