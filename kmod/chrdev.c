// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rina: a training process attaches its fd to (job, rank) and reads
 * its ring plan. The attachment lives as long as the fd; an fd closed
 * while attached (no RINA_IOC_DETACH first) is a lost member.
 *
 * read() and poll() deliver the events of the attached job.
 *
 * Every ioctl struct starts with its size; see include/uapi/linux/rina.h.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/uaccess.h>

#include "rina_kmod.h"

struct rina_file {
	struct net		*net;	/* netns of the opener, held */
	struct rina_job		*job;	/* attached job, held; rn->lock */
	u16			rank;
	struct list_head	node;	/* in job->files; rn->lock */
	spinlock_t		qlock;	/* the event queue */
	wait_queue_head_t	wq;
	unsigned int		qhead, qlen, dropped;
	struct rina_dev_event	q[RINA_DEV_EVENT_QUEUE];
};

static_assert(sizeof(struct rina_attach) == RINA_ATTACH_SIZE_VER0);
static_assert(sizeof(struct rina_plan) == RINA_PLAN_SIZE_VER0);

static int rina_dev_open(struct inode *inode, struct file *file)
{
	struct rina_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->net = get_net(current->nsproxy->net_ns);
	INIT_LIST_HEAD(&f->node);
	spin_lock_init(&f->qlock);
	init_waitqueue_head(&f->wq);
	file->private_data = f;
	return 0;
}

/* Queue an event for every fd attached to job; rn->lock held. */
void rina_dev_notify(struct rina_job *job, u8 event, int rank)
{
	struct rina_dev_event ev = {
		.type	= event,
		.job_id	= job->desc.job_id,
		.rank	= rank < 0 ? RINA_NO_RANK : rank,
		.state	= job->state,
	};
	struct rina_file *f;

	list_for_each_entry(f, &job->files, node) {
		spin_lock(&f->qlock);
		if (f->qlen == RINA_DEV_EVENT_QUEUE) {
			f->dropped++;
		} else {
			ev.dropped = f->dropped;
			f->dropped = 0;
			f->q[(f->qhead + f->qlen) % RINA_DEV_EVENT_QUEUE] = ev;
			f->qlen++;
		}
		spin_unlock(&f->qlock);
		wake_up_interruptible(&f->wq);
	}
}

static ssize_t rina_dev_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct rina_dev_event ev[RINA_DEV_EVENT_QUEUE];
	struct rina_file *f = file->private_data;
	unsigned int n;
	int err;

	if (count < sizeof(ev[0]))
		return -EINVAL;
	for (;;) {
		spin_lock(&f->qlock);
		for (n = 0; f->qlen && n < count / sizeof(ev[0]) &&
			    n < ARRAY_SIZE(ev); n++) {
			ev[n] = f->q[f->qhead];
			f->qhead = (f->qhead + 1) % RINA_DEV_EVENT_QUEUE;
			f->qlen--;
		}
		spin_unlock(&f->qlock);
		if (n)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(f->wq, READ_ONCE(f->qlen));
		if (err)
			return err;
	}
	if (copy_to_user(buf, ev, n * sizeof(ev[0])))
		return -EFAULT;
	return n * sizeof(ev[0]);
}

static __poll_t rina_dev_poll(struct file *file, poll_table *wait)
{
	struct rina_file *f = file->private_data;

	poll_wait(file, &f->wq, wait);
	return READ_ONCE(f->qlen) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int rina_dev_release(struct inode *inode, struct file *file)
{
	struct rina_file *f = file->private_data;
	struct rina_net *rn = rina_pernet(f->net);

	mutex_lock(&rn->lock);
	if (f->job) {
		list_del_init(&f->node);
		rina_job_detach(rn, f->job, f->rank, true);
		rina_job_put(f->job);
		f->job = NULL;
	}
	mutex_unlock(&rn->lock);
	put_net(f->net);
	kfree(f);
	return 0;
}

/* Copy a size-prefixed struct in: ver0 <= size <= page, unknown tail 0. */
static int rina_copy_in(void *dst, size_t ksize, size_t ver0,
			void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < ver0 || *usize > RINA_IOC_MAX_SIZE)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, uarg, *usize);
}

static int rina_ioc_attach(struct rina_file *f, void __user *uarg)
{
	struct rina_net *rn = rina_pernet(f->net);
	struct rina_attach a;
	struct rina_job *job;
	u32 usize;
	int err;

	err = rina_copy_in(&a, sizeof(a), RINA_ATTACH_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (a.flags || a.rsvd)
		return -EINVAL;
	mutex_lock(&rn->lock);
	if (f->job) {
		err = -EISCONN;
		goto out;
	}
	job = rina_job_find(rn, a.job_id);
	if (!job) {
		err = -ENOENT;
		goto out;
	}
	err = rina_job_attach(rn, job, a.rank);
	if (err)
		goto out;
	kref_get(&job->ref);
	f->job = job;
	f->rank = a.rank;
	list_add_tail(&f->node, &job->files);
out:
	mutex_unlock(&rn->lock);
	return err;
}

static int rina_ioc_detach(struct rina_file *f, unsigned long arg)
{
	struct rina_net *rn = rina_pernet(f->net);
	int err = 0;

	if (arg)
		return -EINVAL;
	mutex_lock(&rn->lock);
	if (!f->job) {
		err = -ENOTCONN;
		goto out;
	}
	list_del_init(&f->node);
	rina_job_detach(rn, f->job, f->rank, false);
	rina_job_put(f->job);
	f->job = NULL;
out:
	mutex_unlock(&rn->lock);
	return err;
}

static void rina_fill_member(const struct rina_job *job, unsigned int idx,
			     struct rina_ring_member *m)
{
	const struct rina_member *rm = &job->ring.m[idx];
	const struct rina_rank_desc *r = &job->desc.ranks[rm->agent];

	memset(m, 0, sizeof(*m));
	m->rank = rm->agent;
	m->rack = rm->rack;
	m->ina = rm->ina;
	/* an INA rack is addressed by its agent's address and agent port */
	m->port = rm->ina ? ntohs(rina_rack_agent_port(&job->desc, rm->rack)) :
		  ntohs(r->port);
	m->ipv4 = r->ip;
	memcpy(m->mac, r->mac, ETH_ALEN);
}

static int rina_ioc_get_plan(struct rina_file *f, void __user *uarg)
{
	struct rina_net *rn = rina_pernet(f->net);
	struct rina_ring_member rm;
	struct rina_ring_member __user *uring;
	const struct rina_ring *ring;
	struct rina_job *job;
	struct rina_plan p;
	unsigned int i, n;
	u32 usize;
	int err;

	err = rina_copy_in(&p, sizeof(p), RINA_PLAN_SIZE_VER0, uarg, &usize);
	if (err)
		return err;
	if (p.flags || p.rsvd)
		return -EINVAL;
	if (p.ring_cap && !p.ring)
		return -EFAULT;
	mutex_lock(&rn->lock);
	job = f->job;
	if (job)
		kref_get(&job->ref);
	err = !job ? -ENOTCONN : job->deleted ? -ENOENT : 0;
	mutex_unlock(&rn->lock);
	if (err)
		goto out;

	/* desc and ring never change once the job is in the table */
	ring = &job->ring;
	uring = u64_to_user_ptr(p.ring);
	n = min_t(unsigned int, p.ring_cap, ring->L);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);	/* tells a newer caller what was filled */
	p.flags = job->desc.has_secret ? RINA_PLAN_F_SIGNED : 0;
	mutex_lock(&rn->lock);	/* the job's agent list */
	if (rina_agents_serve(job, f->rank))
		p.flags |= RINA_PLAN_F_KERNEL_AGENT;
	mutex_unlock(&rn->lock);
	p.ring = (uintptr_t)uring;
	p.ring_cap = n;
	p.ring_len = ring->L;
	p.job_id = job->desc.job_id;
	p.rank = f->rank;
	p.member = ring->member_of[f->rank];
	p.agent = ring->m[p.member].ina ? ring->m[p.member].agent :
					   RINA_NO_AGENT;
	p.is_agent = p.agent == f->rank;
	p.elems = job->desc.elems;
	p.window = job->desc.window;
	p.timeout_ms = job->desc.timeout_ms;
	p.rto_us = job->desc.rto_us;
	p.n_ranks = job->desc.n_ranks;
	rina_fill_member(job, rina_ring_prev(ring, p.member), &p.prev);
	rina_fill_member(job, rina_ring_next(ring, p.member), &p.next);

	for (i = 0; i < n; i++) {
		rina_fill_member(job, i, &rm);
		if (copy_to_user(&uring[i], &rm, sizeof(rm))) {
			err = -EFAULT;
			goto out;
		}
	}
	if (copy_to_user(uarg, &p, min_t(size_t, usize, sizeof(p))))
		err = -EFAULT;
out:
	if (job)
		rina_job_put(job);
	return err;
}

static long rina_dev_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct rina_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long err;

	switch (cmd) {
	case RINA_IOC_ATTACH:
		err = rina_ioc_attach(f, uarg);
		break;
	case RINA_IOC_DETACH:
		err = rina_ioc_detach(f, arg);
		break;
	case RINA_IOC_GET_PLAN:
		err = rina_ioc_get_plan(f, uarg);
		break;
	default:
		err = -ENOTTY;
		break;
	}
	if (err)
		rina_stat_inc(rina_pernet(f->net), RINA_STAT_IOCTL_REJECTS);
	return err;
}

static const struct file_operations rina_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= rina_dev_open,
	.release	= rina_dev_release,
	.read		= rina_dev_read,
	.poll		= rina_dev_poll,
	.unlocked_ioctl	= rina_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice rina_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RINA_DEV_NAME,
	.fops	= &rina_dev_fops,
};

/* The job table's events (job.c) that attached fds read. */
static int rina_dev_job_event(struct notifier_block *nb,
			      unsigned long action, void *data)
{
	const struct rina_job_note *n = data;

	if (action == RINA_EVENT_MEMBER_LOST ||
	    action == RINA_EVENT_JOB_ABORTED)
		rina_dev_notify(n->job, action, n->rank);
	return NOTIFY_DONE;
}

static struct notifier_block rina_dev_job_nb = {
	.notifier_call	= rina_dev_job_event,
	.priority	= RINA_JOB_NB_CHRDEV,
};

int rina_chrdev_init(void)
{
	int err;

	err = misc_register(&rina_miscdev);
	if (err)
		return err;
	err = rina_job_notifier_register(&rina_dev_job_nb);
	if (err)
		goto err_misc;
	return 0;

err_misc:
	misc_deregister(&rina_miscdev);
	return err;
}

void rina_chrdev_exit(void)
{
	rina_job_notifier_unregister(&rina_dev_job_nb);
	misc_deregister(&rina_miscdev);
}
