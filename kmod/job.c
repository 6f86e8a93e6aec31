// SPDX-License-Identifier: GPL-2.0
/*
 * The job table of a network namespace and the attachment of ranks to
 * jobs. Every function here runs with rina_net.lock held. What happens
 * to a job, the parts above (genl.c, chrdev.c, agent_kthread.c) hear on
 * one notifier chain: the table calls none of them.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "rina_kmod.h"
#include "trace.h"

/*
 * Blocking: the subscribers sleep (a genl message allocated, an agent's
 * kthread stopped). Called with rn->lock held, which no subscriber takes.
 */
static BLOCKING_NOTIFIER_HEAD(rina_job_chain);

int rina_job_notifier_register(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&rina_job_chain, nb);
}

void rina_job_notifier_unregister(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&rina_job_chain, nb);
}

/* Tell the subscribers; action: enum rina_event or RINA_JOB_UNLINKED. */
static void rina_job_notify(struct rina_net *rn, struct rina_job *job,
			    unsigned long action, int rank)
{
	struct rina_job_note note = { .rn = rn, .job = job, .rank = rank };

	blocking_notifier_call_chain(&rina_job_chain, action, &note);
}

/*
 * Jobs and agent workers allocated and not yet freed, over all
 * namespaces: 0 at unload.
 */
static atomic_t rina_objs_live = ATOMIC_INIT(0);

void rina_obj_get(void)
{
	atomic_inc(&rina_objs_live);
}

void rina_obj_put(void)
{
	atomic_dec(&rina_objs_live);
}

bool rina_objs_leaked(void)
{
	return atomic_read(&rina_objs_live) != 0;
}

struct rina_job *rina_job_alloc(void)
{
	struct rina_job *job = kvzalloc(sizeof(*job), GFP_KERNEL);

	if (!job)
		return NULL;
	rina_obj_get();
	INIT_LIST_HEAD(&job->node);
	INIT_LIST_HEAD(&job->files);
	INIT_LIST_HEAD(&job->agents);
	kref_init(&job->ref);
	job->state = RINA_JOB_READY;
	return job;
}

/* The job secret lives no longer than the job's entry in the table. */
static void rina_job_wipe_secret(struct rina_job *job)
{
	memzero_explicit(job->desc.secret, sizeof(job->desc.secret));
	job->desc.has_secret = 0;
}

static void rina_job_release(struct kref *ref)
{
	struct rina_job *job = container_of(ref, struct rina_job, ref);

	rina_job_wipe_secret(job);	/* a job that never made the table */
	kvfree(job);
	rina_obj_put();
}

void rina_job_put(struct rina_job *job)
{
	kref_put(&job->ref, rina_job_release);
}

struct rina_job *rina_job_find(struct rina_net *rn, u16 id)
{
	struct rina_job *job;

	lockdep_assert_held(&rn->lock);
	list_for_each_entry(job, &rn->jobs, node)
		if (job->desc.job_id == id)
			return job;
	return NULL;
}

/* Insert in id order; the table takes over the caller's reference. */
int rina_job_insert(struct rina_net *rn, struct rina_job *job)
{
	struct rina_job *pos;

	lockdep_assert_held(&rn->lock);
	if (rn->n_jobs >= RINA_MAX_JOBS)
		return -ENOSPC;
	list_for_each_entry(pos, &rn->jobs, node) {
		if (pos->desc.job_id == job->desc.job_id)
			return -EEXIST;
		if (pos->desc.job_id > job->desc.job_id)
			break;
	}
	list_add_tail(&job->node, &pos->node);
	rn->n_jobs++;
	trace_rina_job(job->desc.job_id, job->state, RINA_TR_ADD);
	rina_dbg(rn, 1, "job %u added: %u ranks, %u racks, E %u W %u timeout %u ms rto %u us\n",
		 job->desc.job_id, job->desc.n_ranks, job->desc.n_racks,
		 job->desc.elems, job->desc.window, job->desc.timeout_ms,
		 job->desc.rto_us);
	return 0;
}

/* Remove from the table and drop its reference; attached fds keep theirs. */
void rina_job_unlink(struct rina_net *rn, struct rina_job *job)
{
	lockdep_assert_held(&rn->lock);
	list_del_init(&job->node);
	job->deleted = true;
	rina_job_notify(rn, job, RINA_JOB_UNLINKED, -1);
	/* attached fds may keep the job a while: not its secret */
	rina_job_wipe_secret(job);
	rn->n_jobs--;
	trace_rina_job(job->desc.job_id, job->state, RINA_TR_DELETE);
	rina_dbg(rn, 1, "job %u deleted\n", job->desc.job_id);
	rina_job_put(job);
}

void rina_jobs_flush(struct rina_net *rn)
{
	struct rina_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, &rn->jobs, node)
		rina_job_unlink(rn, job);
}

static void rina_job_set_state(struct rina_job *job, u8 state)
{
	if (job->state == state)
		return;
	job->state = state;
	trace_rina_job(job->desc.job_id, state, RINA_TR_STATE);
}

int rina_job_attach(struct rina_net *rn, struct rina_job *job, u16 rank)
{
	lockdep_assert_held(&rn->lock);
	if (job->deleted)
		return -ENOENT;
	if (job->state == RINA_JOB_ABORTED)
		return -ESHUTDOWN;
	if (rank >= job->desc.n_ranks)
		return -ERANGE;
	if (test_and_set_bit(rank, job->attached))
		return -EBUSY;
	job->n_attached++;
	rina_job_set_state(job, RINA_JOB_ACTIVE);
	rina_stat_inc(rn, RINA_STAT_ATTACHES);
	trace_rina_attach(job->desc.job_id, rank, RINA_TR_ATTACH);
	rina_dbg(rn, 2, "job %u rank %u attached\n", job->desc.job_id, rank);
	return 0;
}

/*
 * An agent's fallback abort (its rack's ToR refused, was silent or was
 * lost): the job ends as when a member is lost, so that its ranks,
 * attached or attaching later, hear it from rina.ko. Called by the
 * agent's thread, which a job deletion stops holding the lock: false if
 * the lock is taken, to be tried again.
 */
bool rina_job_abort_by_agent(struct rina_net *rn, u16 id)
{
	struct rina_job *job;

	if (!mutex_trylock(&rn->lock))
		return false;
	job = rina_job_find(rn, id);
	if (job && !job->deleted && job->state != RINA_JOB_ABORTED) {
		rina_stat_inc(rn, RINA_STAT_JOBS_ABORTED);
		rina_job_set_state(job, RINA_JOB_ABORTED);
		rina_job_notify(rn, job, RINA_EVENT_JOB_ABORTED, -1);
		rina_dbg(rn, 1, "job %u aborted by its agent (fallback abort)\n",
			 id);
	}
	mutex_unlock(&rn->lock);
	return true;
}

/*
 * Release a rank. A rank whose fd is closed without a detach first is a
 * lost member: its job aborts, and both events go to the "events" group.
 */
void rina_job_detach(struct rina_net *rn, struct rina_job *job, u16 rank,
		     bool lost)
{
	lockdep_assert_held(&rn->lock);
	if (!test_and_clear_bit(rank, job->attached))
		return;
	job->n_attached--;
	rina_stat_inc(rn, RINA_STAT_DETACHES);
	trace_rina_attach(job->desc.job_id, rank,
			  lost ? RINA_TR_LOST : RINA_TR_DETACH);
	rina_dbg(rn, 2, "job %u rank %u %s\n", job->desc.job_id, rank,
		 lost ? "lost (closed without detach)" : "detached");
	if (job->deleted)
		return;
	if (lost && job->state != RINA_JOB_ABORTED) {
		rina_stat_inc(rn, RINA_STAT_MEMBERS_LOST);
		rina_stat_inc(rn, RINA_STAT_JOBS_ABORTED);
		rina_job_set_state(job, RINA_JOB_ABORTED);
		rina_job_notify(rn, job, RINA_EVENT_MEMBER_LOST, rank);
		rina_job_notify(rn, job, RINA_EVENT_JOB_ABORTED, -1);
		rina_dbg(rn, 1, "job %u aborted: rank %u lost\n",
			 job->desc.job_id, rank);
	} else if (!job->n_attached && job->state == RINA_JOB_ACTIVE) {
		rina_job_set_state(job, RINA_JOB_READY);
	}
}
