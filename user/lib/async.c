// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Asynchronous allreduce: a FIFO of requests per communicator and one
 * progress thread that runs the blocking rina_allreduce for each, in
 * the order they were started (the same on every rank, as the ring
 * needs). Completion wakes waiters, counts on the eventfd and runs the
 * request's callback. Threading rules: user/include/rina.h.
 * rina_iallreduce_fin (collectives.h) adds a finishing step that runs on
 * the progress thread before the request counts as complete: the
 * collectives built on allreduce (collectives.c) copy their results out
 * there, so that rina_wait returns with them in place. rina_icall_fin
 * queues a call of the collectives' own (a ring phase alone) instead.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "collectives.h"
#include "rina_int.h"

#define ERR_LEN	512

struct rina_request {
	struct rina_request	*next;		/* in the queue */
	struct rina_async	*as;
	const void		*sendbuf;
	void			*recvbuf;
	size_t			count;
	enum rina_dtype		dtype;
	enum rina_redop		op;
	rina_callback_t		cb;
	void			*arg;
	rina_fin_t		fin;		/* before completion, or NULL */
	void			*fin_arg;
	rina_run_t		run;		/* instead of the allreduce */
	int			result;
	bool			done;		/* result is final */
	bool			in_cb;		/* the callback runs */
	bool			freed;		/* rina_request_free'd */
	char			err[ERR_LEN];
};

struct rina_async {
	struct rina_comm	*c;
	pthread_t		thread;
	pthread_mutex_t		lock;
	pthread_cond_t		work;		/* queued, or stopping */
	pthread_cond_t		completed;	/* a request completed */
	struct rina_request	*head, *tail;
	unsigned int		refs;		/* comm + unfreed requests */
	int			failed;		/* sticky result, or 0 */
	char			failed_err[ERR_LEN];
	bool			stopping;
	int			efd;
};

/* First use on a communicator: only one thread may create its state. */
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

/* Drop a reference, as->lock held; unlocks it, frees as on the last. */
static void put_async(struct rina_async *as)
{
	bool last = --as->refs == 0;

	pthread_mutex_unlock(&as->lock);
	if (!last)
		return;
	pthread_mutex_destroy(&as->lock);
	pthread_cond_destroy(&as->work);
	pthread_cond_destroy(&as->completed);
	free(as);
}

/* Called with as->lock held; returns with it held (unless as is gone). */
static void complete(struct rina_async *as, struct rina_request *r,
		     int result, const char *err)
{
	char fin_err[ERR_LEN];
	uint64_t one = 1;
	int ret;

	if (r->fin) {
		/* the request is not done yet: nobody else touches it */
		pthread_mutex_unlock(&as->lock);
		ret = r->fin(result, r->fin_arg);
		if (ret && ret != result) {
			snprintf(fin_err, sizeof(fin_err), "%s",
				 rina_last_error());
			err = fin_err;
		}
		result = ret;
		r->fin = NULL;
		pthread_mutex_lock(&as->lock);
	}
	r->result = result;
	snprintf(r->err, sizeof(r->err), "%s", result ? err : "");
	r->done = true;
	r->in_cb = r->cb != NULL;
	pthread_cond_broadcast(&as->completed);
	/* a saturated counter still reads as POLLIN: nothing to do */
	if (as->efd >= 0 && write(as->efd, &one, sizeof(one)) < 0)
		errno = 0;
	if (r->cb) {
		pthread_mutex_unlock(&as->lock);
		r->cb(r, result, r->arg);
		pthread_mutex_lock(&as->lock);
		r->in_cb = false;
		pthread_cond_broadcast(&as->completed);
	}
	if (r->freed) {
		free(r);
		as->refs--;	/* the comm's reference keeps as alive */
	}
}

static void *progress_main(void *arg)
{
	struct rina_async *as = arg;
	struct rina_request *r;
	char err[ERR_LEN];
	int ret;

	pthread_mutex_lock(&as->lock);
	for (;;) {
		while (!as->head && !as->stopping)
			pthread_cond_wait(&as->work, &as->lock);
		r = as->head;
		if (!r)
			break;
		as->head = r->next;
		if (!as->head)
			as->tail = NULL;
		if (as->failed) {
			complete(as, r, as->failed, as->failed_err);
			continue;
		}
		pthread_mutex_unlock(&as->lock);
		ret = r->run ? r->run(as->c, r->fin_arg) :
		      rina_allreduce(r->sendbuf, r->recvbuf, r->count,
				     r->dtype, r->op, as->c);
		snprintf(err, sizeof(err), "%s", ret ? rina_last_error() : "");
		pthread_mutex_lock(&as->lock);
		/* rina_allreduce marks the communicator broken or not */
		if (ret && as->c->broken && !as->failed) {
			as->failed = ret;
			snprintf(as->failed_err, sizeof(as->failed_err), "%s",
				 err);
		}
		complete(as, r, ret, err);
	}
	pthread_mutex_unlock(&as->lock);
	return NULL;
}

static int start_thread(struct rina_async *as)
{
	sigset_t all, old;
	int ret;

	/* signals go to the application's threads, never to this one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&as->thread, NULL, progress_main, as);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return rina_fail(RINA_ERR_SYSTEM,
				 "cannot start the progress thread: %s",
				 strerror(ret));
	return RINA_OK;
}

static int get_async(struct rina_comm *c, struct rina_async **out)
{
	struct rina_async *as;
	int ret = RINA_OK;

	pthread_mutex_lock(&create_lock);
	as = c->async;
	if (as)
		goto out;
	as = calloc(1, sizeof(*as));
	if (!as) {
		ret = rina_fail(RINA_ERR_NOMEM, "out of memory");
		goto out;
	}
	as->c = c;
	as->refs = 1;
	as->efd = -1;
	pthread_mutex_init(&as->lock, NULL);
	pthread_cond_init(&as->work, NULL);
	pthread_cond_init(&as->completed, NULL);
	ret = start_thread(as);
	if (ret) {
		pthread_mutex_destroy(&as->lock);
		pthread_cond_destroy(&as->work);
		pthread_cond_destroy(&as->completed);
		free(as);
		as = NULL;
		goto out;
	}
	c->async = as;
out:
	pthread_mutex_unlock(&create_lock);
	*out = as;
	return ret;
}

int rina_check_req(rina_comm_t *c, rina_request_t **req)
{
	if (!req)
		return rina_fail(RINA_ERR_INVALID, "request pointer is NULL");
	*req = NULL;
	if (!c)
		return rina_fail(RINA_ERR_INVALID, "comm is NULL");
	return RINA_OK;
}

/* Queue a copy of tmpl for the progress thread. */
static int queue(rina_comm_t *c, struct rina_request *tmpl,
		 rina_request_t **req)
{
	struct rina_request *r;
	struct rina_async *as;
	int ret;

	ret = get_async(c, &as);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	*r = *tmpl;
	r->as = as;
	pthread_mutex_lock(&as->lock);
	if (as->stopping || as->failed) {
		ret = as->stopping ?
		      rina_fail(RINA_ERR_INVALID,
				"communicator is being destroyed") :
		      rina_fail(RINA_ERR_BROKEN,
				"communicator failed earlier (%s); destroy it",
				rina_strerror(as->failed));
		pthread_mutex_unlock(&as->lock);
		free(r);
		return ret;
	}
	as->refs++;
	if (as->tail)
		as->tail->next = r;
	else
		as->head = r;
	as->tail = r;
	pthread_cond_signal(&as->work);
	pthread_mutex_unlock(&as->lock);
	*req = r;
	return RINA_OK;
}

int rina_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
		    enum rina_dtype dtype, enum rina_redop op,
		    rina_comm_t *c, rina_callback_t cb, void *arg,
		    rina_request_t **req)
{
	return rina_iallreduce_fin(sendbuf, recvbuf, count, dtype, op, c,
				   NULL, NULL, cb, arg, req);
}

int rina_iallreduce_fin(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *c, rina_fin_t fin, void *fin_arg,
			rina_callback_t cb, void *arg, rina_request_t **req)
{
	struct rina_request t = {
		.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
		.dtype = dtype, .op = op, .cb = cb, .arg = arg, .fin = fin,
		.fin_arg = fin_arg,
	};
	int ret;

	ret = rina_check_req(c, req);
	if (ret)
		return ret;
	if (count && (!sendbuf || !recvbuf))
		return rina_fail(RINA_ERR_INVALID, "NULL buffer");
	if (!rina_dtype_size(dtype))
		return rina_fail(RINA_ERR_INVALID, "unknown dtype %d", dtype);
	return queue(c, &t, req);
}

int rina_icall_fin(rina_comm_t *c, rina_run_t run, rina_fin_t fin,
		   void *fin_arg, rina_callback_t cb, void *arg,
		   rina_request_t **req)
{
	struct rina_request t = {
		.run = run, .cb = cb, .arg = arg, .fin = fin,
		.fin_arg = fin_arg,
	};
	int ret = rina_check_req(c, req);

	if (ret)
		return ret;
	return queue(c, &t, req);
}

int rina_test(rina_request_t *r, int *result)
{
	bool done;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->as->lock);
	done = r->done;
	if (done && result)
		*result = r->result;
	if (done && r->result)
		rina_fail(r->result, "%s", r->err);
	pthread_mutex_unlock(&r->as->lock);
	return done;
}

int rina_wait(rina_request_t *r)
{
	int result;

	if (!r)
		return rina_fail(RINA_ERR_INVALID, "request is NULL");
	pthread_mutex_lock(&r->as->lock);
	while (!r->done)
		pthread_cond_wait(&r->as->completed, &r->as->lock);
	result = r->result;
	if (result)
		rina_fail(result, "%s", r->err);
	pthread_mutex_unlock(&r->as->lock);
	return result;
}

void rina_request_free(rina_request_t *r)
{
	struct rina_async *as;

	if (!r)
		return;
	as = r->as;
	pthread_mutex_lock(&as->lock);
	if (r->freed) {		/* a double free: leave it be */
		pthread_mutex_unlock(&as->lock);
		return;
	}
	if (!r->done || r->in_cb) {
		r->freed = true;	/* complete() frees it */
		pthread_mutex_unlock(&as->lock);
		return;
	}
	free(r);
	put_async(as);
}

int rina_comm_eventfd(rina_comm_t *c)
{
	struct rina_async *as;
	int ret, fd;

	if (!c) {
		rina_fail(RINA_ERR_INVALID, "comm is NULL");
		return -1;
	}
	ret = get_async(c, &as);
	if (ret)
		return -1;
	pthread_mutex_lock(&as->lock);
	if (as->efd < 0) {
		as->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (as->efd < 0)
			rina_fail(RINA_ERR_SYSTEM, "eventfd: %s",
				  strerror(errno));
	}
	fd = as->efd;
	pthread_mutex_unlock(&as->lock);
	return fd;
}

void rina_async_stop(struct rina_comm *c)
{
	struct rina_async *as = c->async;
	bool dropped;

	if (!as)
		return;
	pthread_mutex_lock(&as->lock);
	as->stopping = true;
	dropped = as->head != NULL;
	if (dropped && !as->failed) {
		as->failed = RINA_ERR_BROKEN;
		snprintf(as->failed_err, sizeof(as->failed_err),
			 "rank %d: communicator destroyed with the call pending",
			 c->rank);
	}
	pthread_cond_signal(&as->work);
	pthread_mutex_unlock(&as->lock);
	pthread_join(as->thread, NULL);
	/* calls the others started will never see this rank: tell them */
	if (dropped && !c->broken) {
		rina_session_abort(c, RINA_ERR_ABORTED);
		c->broken = RINA_ERR_ABORTED;
	}
	c->async = NULL;
	pthread_mutex_lock(&as->lock);
	if (as->efd >= 0)
		close(as->efd);
	as->efd = -1;
	put_async(as);		/* the comm's reference */
}
