// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * librina and rina.ko: when the module is loaded and the job was added in
 * this network namespace (rinactl job add), a rank attaches to (job, rank)
 * through /dev/rina for the life of the communicator, reads the kernel's
 * plan and checks that it is librina's own ring, and learns whether the
 * kernel runs the agent of its INA rack (then librina starts no agent
 * thread: the kernel owns the agent port). Without the module, or without
 * the job in the kernel, librina runs file-based as before, with the same
 * results. While attached, the calls read the job's events from the fd:
 * a lost rank or a deleted job ends them at once, not at their timeout.
 *
 * RINA_KERNEL=0 never uses the module; RINA_KERNEL=1 requires it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "rina_int.h"

/* The kernel's ring must be librina's, member for member. */
static int plan_check(const struct rina_comm *c, const struct rina_plan *p,
		      const struct rina_ring_member *m)
{
	unsigned int i;

	if (p->ring_len != c->L || p->member != c->member ||
	    p->n_ranks != c->N || p->elems != c->job.elems ||
	    p->window != c->job.window)
		return rina_fail(RINA_ERR_MISMATCH,
				 "rank %d: the kernel's plan of job %u (ring of %u, member %u, E %u, W %u) is not the job file's (ring of %u, member %u, E %u, W %u)",
				 c->rank, c->job.job_id, p->ring_len,
				 p->member, p->elems, p->window, c->L,
				 c->member, c->job.elems, c->job.window);
	for (i = 0; i < c->L; i++) {
		const struct rina_member *r = &c->ring.m[i];
		const struct rina_rank_desc *d = &c->job.ranks[r->agent];

		if (m[i].rank != r->agent || m[i].rack != r->rack ||
		    m[i].ina != r->ina || m[i].ipv4 != d->ip ||
		    m[i].port != ntohs(r->ina ?
				       rina_rack_agent_port(&c->job, r->rack) :
				       d->port))
			return rina_fail(RINA_ERR_MISMATCH,
					 "rank %d: ring member %u differs between the kernel's plan of job %u (rank %u) and the job file (rank %u)",
					 c->rank, i, c->job.job_id,
					 m[i].rank, r->agent);
	}
	return RINA_OK;
}

int rina_kernel_attach(struct rina_comm *c)
{
	const char *env = getenv("RINA_KERNEL");
	bool need = env && !strcmp(env, "1");
	struct rina_attach at = { .size = sizeof(at) };
	struct rina_plan p = { .size = sizeof(p) };
	struct rina_ring_member *m;
	int fd, ret;

	c->kfd = -1;
	c->kev_next = 0;
	c->kernel_agent = false;
	c->kernel_rack_agent = false;
	if ((env && !strcmp(env, "0")) || !strcmp(c->tp->ops->name, "inproc") ||
	    (getenv("RINA_NO_INA") && strcmp(getenv("RINA_NO_INA"), "0")))
		return RINA_OK;
	/* non-blocking: rina_kernel_events() reads it from the call loops */
	fd = open("/dev/" RINA_DEV_NAME, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (need)
			return rina_fail(RINA_ERR_SYSTEM,
					 "RINA_KERNEL=1 but /dev/rina: %s (is rina.ko loaded?)",
					 strerror(errno));
		return RINA_OK;		/* no module: file-based */
	}
	at.job_id = c->job.job_id;
	at.rank = (uint16_t)c->rank;
	if (ioctl(fd, RINA_IOC_ATTACH, &at)) {
		ret = errno;
		close(fd);
		if (!need && ret == ENOENT)
			return RINA_OK;	/* job not in the kernel here */
		if (ret == ESHUTDOWN)
			return rina_fail(RINA_ERR_ABORTED,
					 "rank %d: job %u is aborted in rina.ko (rinactl job show %u); add it again to run it",
					 c->rank, c->job.job_id,
					 c->job.job_id);
		return rina_fail(ret == EBUSY ? RINA_ERR_INVALID :
				 RINA_ERR_SYSTEM,
				 "rank %d: attach to job %u through /dev/rina: %s",
				 c->rank, c->job.job_id, strerror(ret));
	}
	m = calloc(c->L, sizeof(*m));
	if (!m) {
		close(fd);
		return rina_fail(RINA_ERR_NOMEM, "out of memory");
	}
	p.ring = (uint64_t)(uintptr_t)m;
	p.ring_cap = c->L;
	if (ioctl(fd, RINA_IOC_GET_PLAN, &p)) {
		ret = rina_fail(RINA_ERR_SYSTEM,
				"rank %d: plan of job %u from /dev/rina: %s",
				c->rank, c->job.job_id, strerror(errno));
		goto err;
	}
	ret = plan_check(c, &p, m);
	if (ret)
		goto err;
	/* else the kernel's agent and this rank would drop each other's data */
	if (!(p.flags & RINA_PLAN_F_SIGNED) != !c->job.has_secret) {
		ret = rina_fail(RINA_ERR_MISMATCH,
				"rank %d: job %u in rina.ko %s and this rank %s (rinactl job add FILE secret PATH, the job file's secret_file or RINA_SECRET_FILE)",
				c->rank, c->job.job_id,
				p.flags & RINA_PLAN_F_SIGNED ? "has a secret" :
				"has no secret",
				c->job.has_secret ? "has one" : "has none");
		goto err;
	}
	free(m);
	c->kfd = fd;
	/*
	 * rina.ko runs the agent of every INA rack whose agent address is
	 * local to the job's namespace, and says so: its socket holds the
	 * agent port, so this rank starts no agent thread.
	 */
	c->kernel_agent = p.is_agent && p.agent == c->rank &&
			  (p.flags & RINA_PLAN_F_KERNEL_AGENT);
	c->kernel_rack_agent = !!(p.flags & RINA_PLAN_F_KERNEL_AGENT);
	return RINA_OK;
err:
	free(m);
	close(fd);
	return ret;
}

int rina_kernel_events(struct rina_comm *c)
{
	struct rina_dev_event ev[RINA_DEV_EVENT_QUEUE];
	bool aborted = false, deleted = false;
	int lost = -1;
	ssize_t n;
	int i;

	n = read(c->kfd, ev, sizeof(ev));
	if (n < (ssize_t)sizeof(ev[0]))
		return RINA_OK;		/* EAGAIN: nothing queued */
	for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
		if (ev[i].job_id != c->job.job_id)
			continue;
		switch (ev[i].type) {
		case RINA_EVENT_MEMBER_LOST:
			if (ev[i].rank != RINA_NO_RANK)
				lost = ev[i].rank;
			aborted = true;
			break;
		case RINA_EVENT_JOB_ABORTED:
			aborted = true;
			break;
		case RINA_EVENT_JOB_DELETED:
			deleted = true;
			break;
		}
	}
	if (!aborted && !deleted)
		return RINA_OK;
	if (lost >= 0)
		return rina_fail(RINA_ERR_ABORTED,
				 "rank %d: rina.ko aborted job %u: rank %d was lost (its /dev/rina fd closed without a detach)",
				 c->rank, c->job.job_id, lost);
	/* aborted without a lost member: its agent gave up on the ToR */
	if (aborted)
		return rina_fail(RINA_ERR_ABORTED,
				 "rank %d: rina.ko's agent aborted job %u (its rack's ToR failed and the job says fallback abort; dmesg)",
				 c->rank, c->job.job_id);
	return rina_fail(RINA_ERR_ABORTED,
			 "rank %d: job %u was deleted from rina.ko (rinactl job del)",
			 c->rank, c->job.job_id);
}

void rina_kernel_detach(struct rina_comm *c)
{
	if (c->kfd < 0)
		return;
	/* an explicit detach: the kernel does not report a lost member */
	ioctl(c->kfd, RINA_IOC_DETACH, 0);
	close(c->kfd);
	c->kfd = -1;
}
