/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A small libmnl client of the "rina" generic netlink family: resolve the
 * family, send one request, collect replies and the extack of an error.
 * Used by the rinactl job/stats/monitor subcommands and the VM tests.
 */
#ifndef RINA_RGENL_H
#define RINA_RGENL_H

#include <stdint.h>
#include <stdio.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/rina.h>

#define RGENL_BUFSZ	(64 * 1024)

struct rgenl {
	struct mnl_socket	*nl;
	uint16_t		family;
	uint32_t		mcgrp_events;	/* 0: not found */
	uint32_t		seq;
	uint32_t		portid;
	char			errmsg[256];	/* extack message, "" if none */
	uint32_t		err_offs;	/* extack offset of the bad attr */
	uint32_t		miss_type;	/* extack missing attribute type */
	char			*buf;		/* RGENL_BUFSZ bytes */
};

/* 0, or -errno: -ENOENT when the family is absent (module not loaded). */
int rgenl_open(struct rgenl *g);
void rgenl_close(struct rgenl *g);

/* Start a request in g->buf; add attributes with mnl_attr_put_*(). */
struct nlmsghdr *rgenl_msg(struct rgenl *g, uint8_t cmd, uint16_t flags);

/*
 * Send nlh and read until the ACK, error or end of dump; cb (may be NULL)
 * sees every data message. Returns 0, or -errno with g->errmsg set from
 * the extack when the kernel gave one.
 */
int rgenl_talk(struct rgenl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
	       void *data);

/* Join the "events" multicast group. */
int rgenl_subscribe(struct rgenl *g);

/*
 * Output of the subcommands: rgenl_out() is stdout, or between
 * rgenl_json_begin(true) and rgenl_json_end() a buffer whose JSON is
 * printed indented at the end (iproute2's -p).
 */
FILE *rgenl_out(void);
void rgenl_json_begin(int pretty);
void rgenl_json_end(void);

#endif /* RINA_RGENL_H */
