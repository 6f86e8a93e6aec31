// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libmnl client of the "rina" generic netlink family (see rgenl.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rina.h>

#include "rgenl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct rgenl_family_info {
	uint16_t	id;
	uint32_t	events;
};

static int mcgrp_cb(const struct nlattr *grp, struct rgenl_family_info *fi)
{
	const struct nlattr *a, *id = NULL, *name = NULL;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = a;
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = a;
	}
	if (id && name && mnl_attr_get_payload_len(id) == 4 &&
	    !strcmp(mnl_attr_get_str(name), RINA_GENL_MCGRP_EVENTS))
		fi->events = mnl_attr_get_u32(id);
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rgenl_family_info *fi = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			fi->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a)
				mcgrp_cb(g, fi);
			break;
		}
	}
	return MNL_CB_OK;
}

struct nlmsghdr *rgenl_msg(struct rgenl *g, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(g->buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = g->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++g->seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = RINA_GENL_VERSION;
	return nlh;
}

/* Parse the extack TLVs of an NLMSG_ERROR (sent with NETLINK_CAP_ACK). */
static void parse_extack(struct rgenl *g, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*e);
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	mnl_attr_for_each(a, nlh, off) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(g->errmsg, sizeof(g->errmsg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_get_payload_len(a) == 4)
				g->err_offs = mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_get_payload_len(a) == 4)
				g->miss_type = mnl_attr_get_u32(a);
			break;
		}
	}
}

int rgenl_talk(struct rgenl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
	       void *data)
{
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;

	g->errmsg[0] = 0;
	g->err_offs = 0;
	g->miss_type = 0;
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *m;
		int len;

		n = mnl_socket_recvfrom(g->nl, g->buf, RGENL_BUFSZ);
		if (n < 0)
			return -errno;
		len = (int)n;
		for (m = (const struct nlmsghdr *)g->buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq)
				continue;	/* stale or a notification */
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e;

				if (m->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
					return -EBADMSG;
				e = mnl_nlmsg_get_payload(m);
				parse_extack(g, m);
				return e->error;
			}
			if (m->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb && cb(m, data) < MNL_CB_OK)
				return -EBADMSG;
		}
	}
}

int rgenl_open(struct rgenl *g)
{
	struct rgenl_family_info fi = { 0 };
	struct nlmsghdr *nlh;
	int one = 1, err;

	memset(g, 0, sizeof(*g));
	g->buf = malloc(RGENL_BUFSZ);
	g->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!g->buf || !g->nl)
		goto err;
	if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err;
	mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	g->portid = mnl_socket_get_portid(g->nl);
	g->seq = (uint32_t)getpid() << 8;

	g->family = GENL_ID_CTRL;
	nlh = mnl_nlmsg_put_header(g->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++g->seq;
	{
		struct genlmsghdr *gh;

		gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
		gh->cmd = CTRL_CMD_GETFAMILY;
		gh->version = 1;
	}
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RINA_GENL_NAME);
	err = rgenl_talk(g, nlh, family_cb, &fi);
	if (err) {
		rgenl_close(g);
		return err;
	}
	if (!fi.id) {
		rgenl_close(g);
		return -ENOENT;
	}
	g->family = fi.id;
	g->mcgrp_events = fi.events;
	return 0;
err:
	err = -errno;
	rgenl_close(g);
	return err ? err : -ENOMEM;
}

void rgenl_close(struct rgenl *g)
{
	if (g->nl)
		mnl_socket_close(g->nl);
	free(g->buf);
	g->nl = NULL;
	g->buf = NULL;
}

int rgenl_subscribe(struct rgenl *g)
{
	int grp = (int)g->mcgrp_events;

	if (!grp)
		return -ENOENT;
	if (mnl_socket_setsockopt(g->nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0)
		return -errno;
	return 0;
}

static FILE *json_mem;
static char *json_buf;
static size_t json_len;

FILE *rgenl_out(void)
{
	return json_mem ? json_mem : stdout;
}

void rgenl_json_begin(int pretty)
{
	if (pretty && !json_mem)
		json_mem = open_memstream(&json_buf, &json_len);
}

static void indent(int depth)
{
	putchar('\n');
	while (depth-- > 0)
		fputs("    ", stdout);
}

/* Re-print compact JSON with one member per line, four spaces a level. */
static void json_pretty(const char *s)
{
	int depth = 0, in_str = 0, esc = 0;

	for (; *s; s++) {
		char c = *s;

		if (in_str) {
			putchar(c);
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			putchar(c);
			break;
		case '{':
		case '[':
			putchar(c);
			if (s[1] == '}' || s[1] == ']') {
				putchar(*++s);
				break;
			}
			indent(++depth);
			break;
		case '}':
		case ']':
			indent(--depth);
			putchar(c);
			break;
		case ',':
			putchar(c);
			indent(depth);
			break;
		case ':':
			fputs(": ", stdout);
			break;
		case '\n':
			putchar(c);
			break;
		default:
			putchar(c);
		}
	}
}

void rgenl_json_end(void)
{
	if (!json_mem)
		return;
	fclose(json_mem);
	json_mem = NULL;
	if (json_buf)
		json_pretty(json_buf);
	free(json_buf);
	json_buf = NULL;
	fflush(stdout);
}
