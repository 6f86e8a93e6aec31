/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Internal: an asynchronous allreduce with a finishing step, or a call
 * of the caller's own, for the collectives (collectives.c) and async.c.
 */
#ifndef RINA_COLLECTIVES_H
#define RINA_COLLECTIVES_H

#include <rina.h>

/*
 * Runs on the progress thread once the allreduce is over (result is its
 * enum rina_result, or the sticky failure of the communicator), before
 * the request completes: waiters, the eventfd and the callback see the
 * request only after it. Returns the request's final result (a failure
 * it reports with rina_fail). Called exactly once for every request
 * rina_iallreduce_fin started; never when that returned an error.
 */
typedef int (*rina_fin_t)(int result, void *fin_arg);

int rina_iallreduce_fin(const void *sendbuf, void *recvbuf, size_t count,
			enum rina_dtype dtype, enum rina_redop op,
			rina_comm_t *comm, rina_fin_t fin, void *fin_arg,
			rina_callback_t cb, void *arg, rina_request_t **req);

/*
 * The same with run(comm, fin_arg) on the progress thread in place of
 * the allreduce: a collective's own calls (collectives.c, a ring phase
 * alone); returns an enum rina_result as rina_allreduce does.
 */
typedef int (*rina_run_t)(rina_comm_t *comm, void *fin_arg);

int rina_icall_fin(rina_comm_t *comm, rina_run_t run, rina_fin_t fin,
		   void *fin_arg, rina_callback_t cb, void *arg,
		   rina_request_t **req);

/* A call's request pointer (cleared) and communicator, checked. */
int rina_check_req(rina_comm_t *comm, rina_request_t **req);

#endif /* RINA_COLLECTIVES_H */
