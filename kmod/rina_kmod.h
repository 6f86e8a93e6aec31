/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rina.ko internals shared by its files: the per-netns state, the job
 * table, per-CPU statistics and the entry points of each part.
 */
#ifndef RINA_KMOD_H
#define RINA_KMOD_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/u64_stats_sync.h>
#include <net/net_namespace.h>
#include <linux/rina.h>

#include "compat.h"
#include "wire.h"
#include "plan.h"
#include "ctrl_auth.h"

#define RINA_MAX_JOBS		64	/* jobs per network namespace */
#define RINA_IOC_MAX_SIZE	PAGE_SIZE

/* Counters, in the order of their netlink attributes (RINA_A_STATS_*). */
enum rina_stat {
	RINA_STAT_JOBS_ADDED,
	RINA_STAT_JOBS_DELETED,
	RINA_STAT_JOB_REJECTS,
	RINA_STAT_ATTACHES,
	RINA_STAT_DETACHES,
	RINA_STAT_IOCTL_REJECTS,
	RINA_STAT_MEMBERS_LOST,
	RINA_STAT_JOBS_ABORTED,
	RINA_STAT_AGENT_RX,
	RINA_STAT_AGENT_DROP,		/* + enum rina_parse_err - 1 */
	RINA_STAT_N = RINA_STAT_AGENT_DROP + __RINA_PARSE_MAX - 1,
};

struct rina_pcpu_stats {
	u64_stats_t		cnt[RINA_STAT_N];
	struct u64_stats_sync	syncp;
};

struct rina_sysctl_vals {
	int	timeout_ms;
	int	rto_us;
	int	default_window;
	int	default_elems;
	int	fallback;
	int	debug;
};

/*
 * net.rina.debug: LEVEL and above is logged (1 job lifecycle, 2 ranks and
 * agent workers, 3 every agent packet dropped). Rate-limited per call
 * site, so that a flood of drops cannot flood the log.
 */
#define rina_dbg(rn, level, fmt, ...)					\
do {									\
	if (READ_ONCE((rn)->sysctl.debug) >= (level))			\
		pr_info_ratelimited("rina: " fmt, ##__VA_ARGS__);	\
} while (0)

struct rina_net {
	struct net		*net;
	struct mutex		lock;		/* jobs, attachments */
	struct list_head	jobs;		/* by ascending id */
	unsigned int		n_jobs;
	struct rina_pcpu_stats __percpu *stats;
	struct rina_sysctl_vals	sysctl;
	struct ctl_table_header	*sysctl_hdr;
	struct ctl_table	*sysctl_tbl;
};

struct rina_job {
	struct list_head	node;		/* in rina_net.jobs */
	struct kref		ref;		/* table + attached fds */
	u8			state;		/* enum rina_job_state */
	bool			deleted;	/* unlinked from the table */
	unsigned int		n_attached;
	DECLARE_BITMAP(attached, RINA_MAX_RANKS);
	struct list_head	files;		/* attached fds (chrdev.c) */
	struct list_head	agents;		/* local agent workers */
	unsigned int		n_agents;
	u8			fallback;	/* enum rina_fallback */
	struct rina_job_desc	desc;
	struct rina_ring	ring;
};

struct rina_net *rina_pernet(const struct net *net);

/*
 * job.c: the job table; callers hold rn->lock. The job table calls none
 * of the parts above it: what happens to a job goes out on a notifier
 * chain (rina_job_notifier_register()) that genl.c, chrdev.c and
 * agent_kthread.c subscribe to, with rn->lock held. Its actions are the
 * UAPI's job events (RINA_EVENT_MEMBER_LOST with the rank, then
 * RINA_EVENT_JOB_ABORTED) and RINA_JOB_UNLINKED: the job left the table,
 * its agents stop.
 */
#define RINA_JOB_UNLINKED	0x100	/* above every enum rina_event */

struct rina_job_note {
	struct rina_net		*rn;
	struct rina_job		*job;
	int			rank;	/* < 0: none applies */
};

/*
 * Subscribers' priorities: the "events" group hears first, then the
 * attached fds, then the agents, as before the chain, whatever the order
 * in which they registered.
 */
#define RINA_JOB_NB_GENL	2
#define RINA_JOB_NB_CHRDEV	1
#define RINA_JOB_NB_AGENTS	0

int rina_job_notifier_register(struct notifier_block *nb);
void rina_job_notifier_unregister(struct notifier_block *nb);
struct rina_job *rina_job_alloc(void);
void rina_job_put(struct rina_job *job);
struct rina_job *rina_job_find(struct rina_net *rn, u16 id);
int rina_job_insert(struct rina_net *rn, struct rina_job *job);
void rina_job_unlink(struct rina_net *rn, struct rina_job *job);
void rina_jobs_flush(struct rina_net *rn);
int rina_job_attach(struct rina_net *rn, struct rina_job *job, u16 rank);
bool rina_job_abort_by_agent(struct rina_net *rn, u16 id);
void rina_job_detach(struct rina_net *rn, struct rina_job *job, u16 rank,
		     bool lost);
void rina_obj_get(void);
void rina_obj_put(void);
bool rina_objs_leaked(void);

struct netlink_ext_ack;

/* agent_kthread.c: a kthread per INA rack whose agent address is local */
int rina_agents_init(void);	/* subscribes to the job notifier */
void rina_agents_exit(void);
int rina_agents_start(struct rina_net *rn, struct rina_job *job,
		      struct netlink_ext_ack *extack);
void rina_agents_stop(struct rina_job *job);
bool rina_job_has_tor(const struct rina_job_desc *d);
bool rina_agents_serve(const struct rina_job *job, u16 rank);
struct sk_buff;
int rina_agents_nl_put(struct sk_buff *skb, const struct rina_job *job);
int rina_agents_net_init(struct rina_net *rn);		/* /proc/net/rina_agents */
void rina_agents_net_exit(struct rina_net *rn);

/* secret.c: the job secret's MAC (SipHash-2-4), clock and stamps */
void rina_kmac(const __u8 key[RINA_SECRET_LEN], const void *in, __u32 len,
	       __u8 out[RINA_MAC_LEN]);
u64 rina_kwall_us(void);
u64 rina_kctrl_stamp(void);
int rina_kmac_selftest(void);	/* 0, or -EINVAL: refuse to load */

/* genl.c */
int rina_genl_init(void);
void rina_genl_exit(void);
void rina_genl_event(struct rina_net *rn, const struct rina_job *job,
		     u8 event, int rank);

/* chrdev.c */
int rina_chrdev_init(void);
void rina_chrdev_exit(void);
void rina_dev_notify(struct rina_job *job, u8 event, int rank);

/* sysctl.c */
int rina_sysctl_net_init(struct rina_net *rn);
void rina_sysctl_net_exit(struct rina_net *rn);

/* stats.c */
int rina_stats_net_init(struct rina_net *rn);
void rina_stats_net_exit(struct rina_net *rn);
void rina_stat_inc(struct rina_net *rn, enum rina_stat s);
void rina_stats_sum(struct rina_net *rn, int cpu, u64 *out);

#endif /* RINA_KMOD_H */
