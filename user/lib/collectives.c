// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Broadcast, allgather, reduce-scatter and barrier, each one int32 SUM
 * allreduce (reduce-scatter: one allreduce of its dtype and op). int32
 * addition is exact and x + 0 wraps nowhere, so a rank that contributes
 * its bytes, packed into int32 words, in its own segment of a zeroed
 * buffer gets every rank's bytes back unchanged. Errors, timeouts and
 * ordering are the allreduce's; the cost is that of a full allreduce of
 * the whole buffer (an allgather moves about twice the bytes of a ring
 * allgather; native phases would need the ring engine).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "rina_int.h"

struct coll {
	int32_t		*tmp;		/* the allreduce's buffer */
	size_t		words;
	/* nseg segments of len bytes at tmp + off + i stride, to dst + i len */
	void		*dst;
	size_t		off, len, stride, nseg;
	int		rank, size;
	int		root;		/* broadcast: slot check, else -1 */
	int		barrier;	/* barrier: the sum must be size */
};

static size_t words_of(size_t bytes)
{
	return bytes / 4 + (bytes % 4 != 0);
}

static struct coll *coll_new(rina_comm_t *comm, size_t words)
{
	struct coll *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	/* at least one word: a zero-byte call still meets the others */
	k->words = words ? words : 1;
	k->tmp = calloc(k->words, sizeof(int32_t));
	if (!k->tmp) {
		free(k);
		return NULL;
	}
	k->rank = rina_comm_rank(comm);
	k->size = rina_comm_size(comm);
	k->root = -1;
	return k;
}

static void coll_free(struct coll *k)
{
	free(k->tmp);
	free(k);
}

static int coll_fin(int result, void *arg)
{
	struct coll *k = arg;
	size_t i;
	int r;

	if (result)
		goto out;
	if (k->root >= 0) {
		/* every rank wrote root + 1 into its own slot */
		for (r = 0; r < k->size; r++) {
			if (k->tmp[r] == k->root + 1)
				continue;
			result = rina_fail(RINA_ERR_MISMATCH,
					   "broadcast: rank %d named root %d, rank %d root %d",
					   r, k->tmp[r] - 1, k->rank, k->root);
			goto out;
		}
	}
	if (k->barrier && k->tmp[0] != k->size) {
		result = rina_fail(RINA_ERR_MISMATCH,
				   "barrier: %d of %d ranks counted",
				   k->tmp[0], k->size);
		goto out;
	}
	for (i = 0; k->dst && k->len && i < k->nseg; i++)
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

static int check_args(rina_comm_t *comm, rina_request_t **req)
{
	if (!req)
		return rina_fail(RINA_ERR_INVALID, "request pointer is NULL");
	*req = NULL;
	if (!comm)
		return rina_fail(RINA_ERR_INVALID, "comm is NULL");
	return RINA_OK;
}

int rina_ibroadcast(void *buf, size_t bytes, int root, rina_comm_t *comm,
		    rina_callback_t cb, void *arg, rina_request_t **req)
{
	struct coll *k;
	size_t hdr;
	int ret;

	ret = check_args(comm, req);
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
	return coll_start(k, comm, cb, arg, req);
}

int rina_iallgather(const void *sendbuf, void *recvbuf, size_t bytes,
		    rina_comm_t *comm, rina_callback_t cb, void *arg,
		    rina_request_t **req)
{
	struct coll *k;
	size_t seg, n;
	int ret;

	ret = check_args(comm, req);
	if (ret)
		return ret;
	if (bytes && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	n = rina_comm_size(comm);
	seg = words_of(bytes);
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

int rina_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t count,
			 enum rina_dtype dtype, enum rina_redop op,
			 rina_comm_t *comm, rina_callback_t cb, void *arg,
			 rina_request_t **req)
{
	size_t es = rina_dtype_size(dtype), n;
	struct coll *k;
	int ret;

	ret = check_args(comm, req);
	if (ret)
		return ret;
	if (count && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (!es)
		return rina_fail(RINA_ERR_INVALID, "unknown dtype %d", dtype);
	n = rina_comm_size(comm);
	if (count && count > SIZE_MAX / es / n)
		return rina_fail(RINA_ERR_INVALID, "buffer too large");
	k = calloc(1, sizeof(*k));
	if (!k)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	k->rank = rina_comm_rank(comm);
	k->size = n;
	k->root = -1;
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

	ret = check_args(comm, req);
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
