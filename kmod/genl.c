// SPDX-License-Identifier: GPL-2.0
/*
 * The "rina" generic netlink family (Documentation/netlink/rina.yaml):
 * job add/del/get/dump with the rank and rack tables, stats get/dump, and
 * job events on the "events" multicast group. One job table per netns.
 */
#include <linux/etherdevice.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "rina_kmod.h"

enum { RINA_MCGRP_EVENTS };

/* 6.2 moved the parsed attributes of a dump into a struct genl_info. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define RINA_DUMP_ATTRS(di)	((di)->info.attrs)
#else
#define RINA_DUMP_ATTRS(di)	((di)->attrs)
#endif

static struct netlink_range_validation rina_window_range = {
	.min = RINA_MIN_WINDOW, .max = RINA_MAX_WINDOW,
};
static struct netlink_range_validation rina_timeout_range = {
	.min = 10, .max = 3600000,
};
static struct netlink_range_validation rina_rto_range = {
	.min = 50, .max = 10000000,
};

static const struct nla_policy rina_rank_policy[RINA_A_RANK_MAX + 1] = {
	[RINA_A_RANK_ID]	= NLA_POLICY_MAX(NLA_U16, RINA_MAX_RANKS - 1),
	[RINA_A_RANK_IPV4]	= { .type = NLA_BE32 },
	[RINA_A_RANK_MAC]	= NLA_POLICY_ETH_ADDR,
	[RINA_A_RANK_PORT]	= NLA_POLICY_RANGE(NLA_U16, RINA_UDP_PORT_MIN,
						   RINA_UDP_PORT_AGENT_MIN - 1),
	[RINA_A_RANK_RACK]	= { .type = NLA_U16 },
};

static const struct nla_policy rina_rack_policy[RINA_A_RACK_MAX + 1] = {
	[RINA_A_RACK_ID]	= { .type = NLA_U16 },
	[RINA_A_RACK_INA]	= { .type = NLA_FLAG },
	[RINA_A_RACK_TOR_IPV4]	= { .type = NLA_BE32 },
	[RINA_A_RACK_TOR_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
	[RINA_A_RACK_AGENT_PORT] = NLA_POLICY_RANGE(NLA_U16,
						    RINA_UDP_PORT_AGENT_MIN,
						    RINA_UDP_PORT_AGENT),
};

static const struct nla_policy rina_job_add_policy[RINA_A_JOB_FALLBACK + 1] = {
	[RINA_A_JOB_ID]		= NLA_POLICY_MIN(NLA_U16, 1),
	[RINA_A_JOB_ELEMS]	= NLA_POLICY_RANGE(NLA_U16, 1, RINA_MAX_ELEMS),
	[RINA_A_JOB_WINDOW]	= NLA_POLICY_FULL_RANGE(NLA_U16,
							&rina_window_range),
	[RINA_A_JOB_TIMEOUT_MS]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&rina_timeout_range),
	[RINA_A_JOB_RTO_US]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&rina_rto_range),
	[RINA_A_JOB_RANKS]	= NLA_POLICY_NESTED_ARRAY(rina_rank_policy),
	[RINA_A_JOB_RACKS]	= NLA_POLICY_NESTED_ARRAY(rina_rack_policy),
	/*
	 * The output attributes in between have no policy: strict
	 * validation refuses them as unsupported.
	 */
	[RINA_A_JOB_SECRET]	= NLA_POLICY_EXACT_LEN(RINA_SECRET_LEN),
	[RINA_A_JOB_AUTH]	= NLA_POLICY_MAX(NLA_U8, RINA_JOB_AUTH_MAC),
	[RINA_A_JOB_FALLBACK]	= NLA_POLICY_MAX(NLA_U8, RINA_FALLBACK_RING),
};

static const struct nla_policy rina_job_id_policy[RINA_A_JOB_ID + 1] = {
	[RINA_A_JOB_ID]		= NLA_POLICY_MIN(NLA_U16, 1),
};

static struct genl_family rina_genl_family;

static struct rina_net *rina_info_net(struct genl_info *info)
{
	return rina_pernet(genl_info_net(info));
}

static int rina_nl_missing(struct genl_info *info, const struct nlattr *nest,
			   int type, const char *msg)
{
	info->extack->_msg = msg;
	NL_SET_ERR_ATTR_MISS(info->extack, nest, type);
	return -EINVAL;
}

static int rina_nl_parse_racks(struct genl_info *info,
			       struct rina_job_desc *desc)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[RINA_A_RACK_MAX + 1];
	struct rina_rack_desc *rk;
	const struct nlattr *nest;
	int rem, err;

	nla_for_each_nested(nest, info->attrs[RINA_A_JOB_RACKS], rem) {
		if (nla_type(nest) != RINA_A_JOB_RACK) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "racks holds only rack entries");
			return -EINVAL;
		}
		if (desc->n_racks >= RINA_MAX_RACKS) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "too many racks");
			return -E2BIG;
		}
		err = nla_parse_nested(tb, RINA_A_RACK_MAX, nest,
				       rina_rack_policy, extack);
		if (err)
			return err;
		if (!tb[RINA_A_RACK_ID])
			return rina_nl_missing(info, nest, RINA_A_RACK_ID,
					       "rack entry without an id");
		rk = &desc->racks[desc->n_racks++];
		rk->id = nla_get_u16(tb[RINA_A_RACK_ID]);
		rk->ina = nla_get_flag(tb[RINA_A_RACK_INA]);
		if (tb[RINA_A_RACK_TOR_IPV4])
			rk->tor_ip = nla_get_in_addr(tb[RINA_A_RACK_TOR_IPV4]);
		rk->tor_port = htons(tb[RINA_A_RACK_TOR_PORT] ?
				     nla_get_u16(tb[RINA_A_RACK_TOR_PORT]) :
				     RINA_UDP_PORT_AGENT);
		if (tb[RINA_A_RACK_AGENT_PORT])
			rk->agent_port =
				htons(nla_get_u16(tb[RINA_A_RACK_AGENT_PORT]));
	}
	if (!desc->n_racks) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[RINA_A_JOB_RACKS],
				    "a job needs at least one rack");
		return -EINVAL;
	}
	return 0;
}

static int rina_nl_parse_ranks(struct genl_info *info,
			       struct rina_job_desc *desc)
{
	DECLARE_BITMAP(seen, RINA_MAX_RANKS) = { 0 };
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[RINA_A_RANK_MAX + 1];
	struct rina_rank_desc *r;
	const struct nlattr *nest;
	unsigned int n = 0;
	int rem, err;
	u16 id;

	nla_for_each_nested(nest, info->attrs[RINA_A_JOB_RANKS], rem) {
		if (nla_type(nest) != RINA_A_JOB_RANK) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "ranks holds only rank entries");
			return -EINVAL;
		}
		err = nla_parse_nested(tb, RINA_A_RANK_MAX, nest,
				       rina_rank_policy, extack);
		if (err)
			return err;
		if (!tb[RINA_A_RANK_ID])
			return rina_nl_missing(info, nest, RINA_A_RANK_ID,
					       "rank entry without an id");
		if (!tb[RINA_A_RANK_IPV4])
			return rina_nl_missing(info, nest, RINA_A_RANK_IPV4,
					       "rank entry without an address");
		if (!tb[RINA_A_RANK_RACK])
			return rina_nl_missing(info, nest, RINA_A_RANK_RACK,
					       "rank entry without a rack");
		id = nla_get_u16(tb[RINA_A_RANK_ID]);
		if (test_and_set_bit(id, seen)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RINA_A_RANK_ID],
					    "rank id given twice");
			return -EINVAL;
		}
		r = &desc->ranks[id];
		r->ip = nla_get_in_addr(tb[RINA_A_RANK_IPV4]);
		r->port = htons(tb[RINA_A_RANK_PORT] ?
				nla_get_u16(tb[RINA_A_RANK_PORT]) :
				RINA_UDP_PORT_WORKER);
		r->rack = nla_get_u16(tb[RINA_A_RANK_RACK]);
		if (tb[RINA_A_RANK_MAC])
			nla_memcpy(r->mac, tb[RINA_A_RANK_MAC], ETH_ALEN);
		n++;
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[RINA_A_JOB_RANKS],
				    "a job needs at least one rank");
		return -EINVAL;
	}
	if (find_first_zero_bit(seen, RINA_MAX_RANKS) != n) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[RINA_A_JOB_RANKS],
				    "rank ids must be 0..N-1 without gaps");
		return -EINVAL;
	}
	desc->n_ranks = n;
	return 0;
}

/* Point extack at the rank or rack entry the shared validator blamed. */
static const struct nlattr *rina_nl_blame(struct genl_info *info,
					  enum rina_job_err err, int what)
{
	struct nlattr *tb[RINA_A_RANK_MAX + 1];
	bool rack = rina_job_err_is_rack(err);
	const struct nlattr *nest, *list;
	int rem, i = 0;

	if (what < 0)
		return NULL;
	list = info->attrs[rack ? RINA_A_JOB_RACKS : RINA_A_JOB_RANKS];
	nla_for_each_nested(nest, list, rem) {
		if (rack) {
			if (i++ == what)
				return nest;
			continue;
		}
		if (nla_parse_nested(tb, RINA_A_RANK_MAX, nest,
				     rina_rank_policy, NULL))
			continue;
		if (nla_get_u16(tb[RINA_A_RANK_ID]) == what)
			return nest;
	}
	return NULL;
}

static u16 rina_nl_u16(struct genl_info *info, int type, int dflt)
{
	return info->attrs[type] ? nla_get_u16(info->attrs[type]) : dflt;
}

static u32 rina_nl_u32(struct genl_info *info, int type, int dflt)
{
	return info->attrs[type] ? nla_get_u32(info->attrs[type]) : dflt;
}

static int rina_nl_job_add(struct sk_buff *skb, struct genl_info *info)
{
	struct rina_net *rn = rina_info_net(info);
	struct netlink_ext_ack *extack = info->extack;
	struct rina_job_verdict v;
	struct rina_job_desc *desc;
	struct rina_job *job;
	int err;

	if (!info->attrs[RINA_A_JOB_ID]) {
		err = rina_nl_missing(info, NULL, RINA_A_JOB_ID,
				      "missing job id");
		goto err_count;
	}
	if (!info->attrs[RINA_A_JOB_RANKS]) {
		err = rina_nl_missing(info, NULL, RINA_A_JOB_RANKS,
				      "missing rank table");
		goto err_count;
	}
	if (!info->attrs[RINA_A_JOB_RACKS]) {
		err = rina_nl_missing(info, NULL, RINA_A_JOB_RACKS,
				      "missing rack table");
		goto err_count;
	}
	job = rina_job_alloc();
	if (!job)
		return -ENOMEM;
	desc = &job->desc;
	desc->job_id = nla_get_u16(info->attrs[RINA_A_JOB_ID]);
	desc->elems = rina_nl_u16(info, RINA_A_JOB_ELEMS,
				  READ_ONCE(rn->sysctl.default_elems));
	desc->window = rina_nl_u16(info, RINA_A_JOB_WINDOW,
				   READ_ONCE(rn->sysctl.default_window));
	desc->timeout_ms = rina_nl_u32(info, RINA_A_JOB_TIMEOUT_MS,
				       READ_ONCE(rn->sysctl.timeout_ms));
	desc->rto_us = rina_nl_u32(info, RINA_A_JOB_RTO_US,
				   READ_ONCE(rn->sysctl.rto_us));
	/* write-only: kept for the agents, never put in a reply or log */
	if (info->attrs[RINA_A_JOB_SECRET]) {
		nla_memcpy(desc->secret, info->attrs[RINA_A_JOB_SECRET],
			   sizeof(desc->secret));
		desc->has_secret = 1;
	}
	if (info->attrs[RINA_A_JOB_AUTH])
		desc->auth = nla_get_u8(info->attrs[RINA_A_JOB_AUTH]);
	err = rina_nl_parse_racks(info, desc);
	if (err)
		goto err_free;
	err = rina_nl_parse_ranks(info, desc);
	if (err)
		goto err_free;
	v = rina_job_validate(desc);
	if (v.err != RINA_JOB_OK) {
		extack->_msg = rina_job_err_names[v.err];
		extack->bad_attr = rina_nl_blame(info, v.err, v.what);
		err = -EINVAL;
		goto err_free;
	}
	rina_ring_build(desc, 1, &job->ring);
	job->fallback = info->attrs[RINA_A_JOB_FALLBACK] ?
			nla_get_u8(info->attrs[RINA_A_JOB_FALLBACK]) :
			READ_ONCE(rn->sysctl.fallback);
	if (job->fallback == RINA_FALLBACK_RING && rina_job_has_tor(desc)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[RINA_A_JOB_FALLBACK],
				    "fallback 2 (the rack joins the plain ring) is not implemented by rina.ko's agents: use 0 (abort) or 1 (software), in the job or net.rina.fallback");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	err = rina_agents_start(rn, job, extack);
	if (err)
		goto err_free;

	mutex_lock(&rn->lock);
	err = rina_job_insert(rn, job);
	if (err) {
		mutex_unlock(&rn->lock);
		if (err == -EEXIST)
			NL_SET_ERR_MSG_ATTR(extack, info->attrs[RINA_A_JOB_ID],
					    "job id already in use");
		else
			NL_SET_ERR_MSG(extack, "too many jobs in this netns");
		goto err_free;
	}
	rina_stat_inc(rn, RINA_STAT_JOBS_ADDED);
	rina_genl_event(rn, job, RINA_EVENT_JOB_ADDED, -1);
	mutex_unlock(&rn->lock);
	return 0;

err_free:
	rina_agents_stop(job);
	rina_job_put(job);
err_count:
	rina_stat_inc(rn, RINA_STAT_JOB_REJECTS);
	return err;
}

static int rina_nl_job_del(struct sk_buff *skb, struct genl_info *info)
{
	struct rina_net *rn = rina_info_net(info);
	struct rina_job *job;
	int err = 0;

	if (!info->attrs[RINA_A_JOB_ID]) {
		err = rina_nl_missing(info, NULL, RINA_A_JOB_ID,
				      "missing job id");
		goto out_count;
	}
	mutex_lock(&rn->lock);
	job = rina_job_find(rn, nla_get_u16(info->attrs[RINA_A_JOB_ID]));
	if (!job) {
		mutex_unlock(&rn->lock);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINA_A_JOB_ID],
				    "no such job");
		err = -ENOENT;
		goto out_count;
	}
	rina_genl_event(rn, job, RINA_EVENT_JOB_DELETED, -1);
	rina_dev_notify(job, RINA_EVENT_JOB_DELETED, -1);
	rina_job_unlink(rn, job);
	rina_stat_inc(rn, RINA_STAT_JOBS_DELETED);
	mutex_unlock(&rn->lock);
	return 0;

out_count:
	rina_stat_inc(rn, RINA_STAT_JOB_REJECTS);
	return err;
}

static int rina_nl_put_ranks(struct sk_buff *skb, const struct rina_job *job)
{
	const struct rina_job_desc *d = &job->desc;
	struct nlattr *list, *e;
	unsigned int i;

	list = nla_nest_start(skb, RINA_A_JOB_RANKS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < d->n_ranks; i++) {
		const struct rina_rank_desc *r = &d->ranks[i];

		e = nla_nest_start(skb, RINA_A_JOB_RANK);
		if (!e ||
		    nla_put_u16(skb, RINA_A_RANK_ID, i) ||
		    nla_put_in_addr(skb, RINA_A_RANK_IPV4, r->ip) ||
		    nla_put_u16(skb, RINA_A_RANK_PORT, ntohs(r->port)) ||
		    nla_put_u16(skb, RINA_A_RANK_RACK, r->rack) ||
		    (!is_zero_ether_addr(r->mac) &&
		     nla_put(skb, RINA_A_RANK_MAC, ETH_ALEN, r->mac)))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int rina_nl_put_racks(struct sk_buff *skb, const struct rina_job *job)
{
	const struct rina_job_desc *d = &job->desc;
	struct nlattr *list, *e;
	unsigned int i;

	list = nla_nest_start(skb, RINA_A_JOB_RACKS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < d->n_racks; i++) {
		const struct rina_rack_desc *rk = &d->racks[i];

		e = nla_nest_start(skb, RINA_A_JOB_RACK);
		if (!e ||
		    nla_put_u16(skb, RINA_A_RACK_ID, rk->id) ||
		    (rk->ina && nla_put_flag(skb, RINA_A_RACK_INA)) ||
		    (rk->tor_ip &&
		     nla_put_in_addr(skb, RINA_A_RACK_TOR_IPV4, rk->tor_ip)) ||
		    nla_put_u16(skb, RINA_A_RACK_TOR_PORT,
				ntohs(rk->tor_port)) ||
		    (rk->agent_port &&
		     nla_put_u16(skb, RINA_A_RACK_AGENT_PORT,
				 ntohs(rk->agent_port))))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);
	return 0;
}

static u32 rina_ring_agents(const struct rina_ring *ring)
{
	u32 i, n = 0;

	for (i = 0; i < ring->L; i++)
		n += ring->m[i].ina;
	return n;
}

static int rina_nl_fill_job(struct sk_buff *skb, const struct rina_job *job,
			    u32 portid, u32 seq, int flags, u8 cmd)
{
	const struct rina_job_desc *d = &job->desc;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rina_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u16(skb, RINA_A_JOB_ID, d->job_id) ||
	    nla_put_u16(skb, RINA_A_JOB_ELEMS, d->elems) ||
	    nla_put_u16(skb, RINA_A_JOB_WINDOW, d->window) ||
	    nla_put_u32(skb, RINA_A_JOB_TIMEOUT_MS, d->timeout_ms) ||
	    nla_put_u32(skb, RINA_A_JOB_RTO_US, d->rto_us) ||
	    nla_put_u8(skb, RINA_A_JOB_STATE, job->state) ||
	    nla_put_u32(skb, RINA_A_JOB_N_ATTACHED, job->n_attached) ||
	    nla_put_u32(skb, RINA_A_JOB_RING_LEN, job->ring.L) ||
	    nla_put_u32(skb, RINA_A_JOB_AGENTS, rina_ring_agents(&job->ring)) ||
	    nla_put_u32(skb, RINA_A_JOB_LOCAL_AGENTS, job->n_agents) ||
	    nla_put_u8(skb, RINA_A_JOB_SIGNED, !!d->has_secret) ||
	    nla_put_u8(skb, RINA_A_JOB_AUTH, (u8)d->auth) ||
	    nla_put_u8(skb, RINA_A_JOB_FALLBACK, job->fallback) ||
	    rina_nl_put_ranks(skb, job) || rina_nl_put_racks(skb, job) ||
	    rina_agents_nl_put(skb, job))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static size_t rina_job_msg_size(void)
{
	/*
	 * generous: every rank and rack with all attributes, and an agent
	 * worker per rack with its counters
	 */
	return NLMSG_GOODSIZE + RINA_MAX_RANKS * 48 + RINA_MAX_RACKS * 40 +
	       RINA_MAX_RACKS * nla_total_size(RINA_A_AGENT_MAX * 12);
}

static int rina_nl_job_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rina_net *rn = rina_info_net(info);
	struct rina_job *job;
	struct sk_buff *msg;
	int err;

	if (!info->attrs[RINA_A_JOB_ID])
		return rina_nl_missing(info, NULL, RINA_A_JOB_ID,
				       "missing job id");
	msg = genlmsg_new(rina_job_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rn->lock);
	job = rina_job_find(rn, nla_get_u16(info->attrs[RINA_A_JOB_ID]));
	if (!job) {
		mutex_unlock(&rn->lock);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINA_A_JOB_ID],
				    "no such job");
		err = -ENOENT;
		goto err_free;
	}
	err = rina_nl_fill_job(msg, job, info->snd_portid, info->snd_seq, 0,
			       RINA_CMD_JOB_GET);
	mutex_unlock(&rn->lock);
	if (err)
		goto err_free;
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int rina_nl_job_dump_start(struct netlink_callback *cb)
{
	/* one job (up to 256 ranks) must fit a dump skb */
	cb->min_dump_alloc = rina_job_msg_size();
	return 0;
}

static int rina_nl_job_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *di = genl_dumpit_info(cb);
	struct rina_net *rn = rina_pernet(sock_net(skb->sk));
	struct nlattr *id_attr = RINA_DUMP_ATTRS(di)[RINA_A_JOB_ID];
	struct rina_job *job;
	int err = 0;

	mutex_lock(&rn->lock);
	list_for_each_entry(job, &rn->jobs, node) {
		if (job->desc.job_id < cb->args[0])
			continue;
		if (id_attr && job->desc.job_id != nla_get_u16(id_attr))
			continue;
		err = rina_nl_fill_job(skb, job, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       RINA_CMD_JOB_GET);
		if (err)
			break;
		cb->args[0] = job->desc.job_id + 1;
	}
	mutex_unlock(&rn->lock);
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int rina_nl_fill_stats(struct sk_buff *skb, struct rina_net *rn,
			      int cpu, u32 portid, u32 seq, int flags)
{
	u64 v[RINA_STAT_N];
	void *hdr;
	int i;

	hdr = genlmsg_put(skb, portid, seq, &rina_genl_family, flags,
			  RINA_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	BUILD_BUG_ON(RINA_STAT_N !=
		     RINA_A_STATS_MAX - RINA_A_STATS_JOBS_ADDED + 1);
	rina_stats_sum(rn, cpu, v);
	if (cpu >= 0 ? nla_put_u32(skb, RINA_A_STATS_CPU, cpu) :
		       nla_put_u32(skb, RINA_A_STATS_JOBS, rn->n_jobs))
		goto cancel;
	for (i = 0; i < RINA_STAT_N; i++)
		if (nla_put_u64_64bit(skb, RINA_A_STATS_JOBS_ADDED + i, v[i],
				      RINA_A_STATS_PAD))
			goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int rina_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rina_net *rn = rina_info_net(info);
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rn->lock);
	err = rina_nl_fill_stats(msg, rn, -1, info->snd_portid, info->snd_seq,
				 0);
	mutex_unlock(&rn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int rina_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rina_net *rn = rina_pernet(sock_net(skb->sk));
	int cpu;

	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		if (rina_nl_fill_stats(skb, rn, cpu, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = cpu;
	return skb->len;
}

static const struct genl_ops rina_genl_ops[] = {
	{
		.cmd	= RINA_CMD_JOB_ADD,
		.flags	= GENL_ADMIN_PERM,
		.doit	= rina_nl_job_add,
		.policy	= rina_job_add_policy,
		.maxattr = ARRAY_SIZE(rina_job_add_policy) - 1,
	},
	{
		.cmd	= RINA_CMD_JOB_DEL,
		.flags	= GENL_ADMIN_PERM,
		.doit	= rina_nl_job_del,
		.policy	= rina_job_id_policy,
		.maxattr = ARRAY_SIZE(rina_job_id_policy) - 1,
	},
	{
		.cmd	= RINA_CMD_JOB_GET,
		.doit	= rina_nl_job_get,
		.start	= rina_nl_job_dump_start,
		.dumpit	= rina_nl_job_dump,
		.policy	= rina_job_id_policy,
		.maxattr = ARRAY_SIZE(rina_job_id_policy) - 1,
	},
	{
		.cmd	= RINA_CMD_STATS_GET,
		.doit	= rina_nl_stats_get,
		.dumpit	= rina_nl_stats_dump,
		/* no policy: the core rejects every attribute */
	},
};

static const struct genl_multicast_group rina_genl_mcgrps[] = {
	[RINA_MCGRP_EVENTS] = { .name = RINA_GENL_MCGRP_EVENTS },
};

static struct genl_family rina_genl_family __ro_after_init = {
	.name		= RINA_GENL_NAME,
	.version	= RINA_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= rina_genl_ops,
	.n_ops		= ARRAY_SIZE(rina_genl_ops),
	.resv_start_op	= 0,	/* strict everywhere: a new family */
	.mcgrps		= rina_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rina_genl_mcgrps),
};

/* Tell the "events" group about a job; rank < 0 when none applies. */
void rina_genl_event(struct rina_net *rn, const struct rina_job *job,
		     u8 event, int rank)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &rina_genl_family, 0, RINA_CMD_JOB_EVENT);
	if (!hdr)
		goto err_free;
	if (nla_put_u16(msg, RINA_A_JOB_ID, job->desc.job_id) ||
	    nla_put_u8(msg, RINA_A_JOB_EVENT, event) ||
	    nla_put_u8(msg, RINA_A_JOB_STATE, job->state) ||
	    (rank >= 0 && nla_put_u16(msg, RINA_A_JOB_EVENT_RANK, rank)))
		goto err_free;
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&rina_genl_family, rn->net, msg, 0,
				RINA_MCGRP_EVENTS, GFP_KERNEL);
	return;

err_free:
	nlmsg_free(msg);
}

/* The job table's events (job.c) that the "events" group hears of. */
static int rina_genl_job_event(struct notifier_block *nb,
			       unsigned long action, void *data)
{
	const struct rina_job_note *n = data;

	if (action == RINA_EVENT_MEMBER_LOST ||
	    action == RINA_EVENT_JOB_ABORTED)
		rina_genl_event(n->rn, n->job, action, n->rank);
	return NOTIFY_DONE;
}

static struct notifier_block rina_genl_job_nb = {
	.notifier_call	= rina_genl_job_event,
	.priority	= RINA_JOB_NB_GENL,
};

int rina_genl_init(void)
{
	int err;

	err = genl_register_family(&rina_genl_family);
	if (err)
		return err;
	err = rina_job_notifier_register(&rina_genl_job_nb);
	if (err)
		goto err_family;
	return 0;

err_family:
	genl_unregister_family(&rina_genl_family);
	return err;
}

void rina_genl_exit(void)
{
	rina_job_notifier_unregister(&rina_genl_job_nb);
	genl_unregister_family(&rina_genl_family);
}
