// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel agent workers: for every INA rack of a job whose agent rank's
 * address is local to the job's network namespace, a kthread owns a kernel
 * UDP socket on the agent port of that address for the life of the job,
 * independent of the training processes. It validates every packet with
 * the shared rina_hdr_check() and counts it, per reason when it is
 * dropped. The agent protocol itself (ToR install, software aggregation,
 * repairs) is not here yet: well-formed packets are counted and dropped.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/inet_sock.h>
#include <net/route.h>
#include <net/sock.h>

#include "rina_kmod.h"
#include "trace.h"

struct rina_agent {
	struct list_head	node;		/* in job->agents */
	struct rina_net		*rn;
	u16			job_id;
	u16			rank;
	struct socket		*sock;
	struct task_struct	*task;
	void			*buf;
};

#define RINA_AGENT_BUF	(RINA_HDR_LEN + RINA_MAX_PAYLOAD)

static void rina_agent_rx(struct rina_agent *a, int len, bool trunc)
{
	const struct rina_hdr *h = a->buf;
	enum rina_parse_err err;

	err = trunc ? RINA_PARSE_OVERSIZE : rina_hdr_check(h, len);
	if (err == RINA_PARSE_OK && ntohs(h->job_id) != a->job_id)
		err = RINA_PARSE_UNKNOWN_JOB;
	if (err != RINA_PARSE_OK) {
		rina_stat_inc(a->rn, RINA_STAT_AGENT_DROP + err - 1);
		return;
	}
	rina_stat_inc(a->rn, RINA_STAT_AGENT_RX);
}

static int rina_agent_fn(void *arg)
{
	struct rina_agent *a = arg;

	while (!kthread_should_stop()) {
		struct kvec iov = { .iov_base = a->buf, .iov_len = RINA_AGENT_BUF };
		struct msghdr msg = { };
		int n;

		n = kernel_recvmsg(a->sock, &msg, &iov, 1, RINA_AGENT_BUF, 0);
		if (n < 0)
			continue;	/* timeout, signal or shutdown: recheck */
		if (n == 0 && (a->sock->sk->sk_shutdown & RCV_SHUTDOWN))
			break;
		rina_agent_rx(a, n, msg.msg_flags & MSG_TRUNC);
	}
	/* wait for kthread_stop() so that the task outlives no one */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void rina_agent_free(struct rina_agent *a)
{
	if (a->task) {
		kernel_sock_shutdown(a->sock, SHUT_RDWR);
		kthread_stop(a->task);
	}
	if (a->sock)
		sock_release(a->sock);
	kfree(a->buf);
	kfree(a);
	rina_obj_put();
}

static int rina_agent_start(struct rina_net *rn, struct rina_job *job,
			    u16 rank, struct netlink_ext_ack *extack)
{
	const struct rina_rank_desc *r = &job->desc.ranks[rank];
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_addr	= { .s_addr = r->ip },
		.sin_port	= htons(RINA_UDP_PORT_AGENT),
	};
	struct rina_agent *a;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	rina_obj_get();
	a->rn = rn;
	a->job_id = job->desc.job_id;
	a->rank = rank;
	a->buf = kmalloc(RINA_AGENT_BUF, GFP_KERNEL);
	if (!a->buf) {
		err = -ENOMEM;
		goto err_free;
	}
	err = sock_create_kern(rn->net, PF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       &a->sock);
	if (err)
		goto err_free;
	a->sock->sk->sk_rcvtimeo = HZ;	/* recheck for stop at least 1/s */
	err = kernel_bind(a->sock, (struct sockaddr *)&sin, sizeof(sin));
	if (err) {
		NL_SET_ERR_MSG(extack, "the agent port of a local agent address is in use");
		goto err_free;
	}
	a->task = kthread_run(rina_agent_fn, a, "rina-agent/%u",
			      job->desc.job_id);
	if (IS_ERR(a->task)) {
		err = PTR_ERR(a->task);
		a->task = NULL;
		goto err_free;
	}
	list_add_tail(&a->node, &job->agents);
	job->n_agents++;
	trace_rina_attach(a->job_id, rank, RINA_TR_AGENT_START);
	return 0;

err_free:
	rina_agent_free(a);
	return err;
}

/* Start a worker for every INA member whose agent address is ours. */
int rina_agents_start(struct rina_net *rn, struct rina_job *job,
		      struct netlink_ext_ack *extack)
{
	const struct rina_ring *ring = &job->ring;
	unsigned int i;
	int err;

	for (i = 0; i < ring->L; i++) {
		const struct rina_member *m = &ring->m[i];

		if (!m->ina || inet_addr_type(rn->net,
					      job->desc.ranks[m->agent].ip) !=
			       RTN_LOCAL)
			continue;
		err = rina_agent_start(rn, job, m->agent, extack);
		if (err) {
			rina_agents_stop(job);
			return err;
		}
	}
	return 0;
}

void rina_agents_stop(struct rina_job *job)
{
	struct rina_agent *a, *tmp;

	list_for_each_entry_safe(a, tmp, &job->agents, node) {
		list_del(&a->node);
		trace_rina_attach(a->job_id, a->rank, RINA_TR_AGENT_STOP);
		rina_agent_free(a);
	}
	job->n_agents = 0;
}
