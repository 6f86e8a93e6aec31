// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * tor_ring's network on a virtual clock: frames in flight in a heap by
 * time, each hop lost, duplicated or delayed by jitter as the case asks;
 * hosts' sends (to themselves, into their ToR, or over the spine), the
 * spine's routing by IPv4 destination, and the framing. It delivers
 * nothing itself: tor_ring.c pops what is due and hands it to a ToR
 * model or a host, so neither half calls the other through here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tor_ring.h"

__u32 net_rnd(struct world *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (__u32)w->rng;
}

void world_error(struct world *w, const char *msg)
{
	if (!w->errors++)
		snprintf(w->why, sizeof(w->why), "%s", msg);
}

/* ---- frames in flight: a heap by (delivery time, order sent) ---- */

static int ev_before(const struct frame *a, const struct frame *b)
{
	return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void heap_push(struct world *w, struct frame *f)
{
	unsigned int i = w->qn++, up;

	while (i) {
		up = (i - 1) / 2;
		if (!ev_before(f, &w->q[up]))
			break;
		w->q[i] = w->q[up];
		i = up;
	}
	w->q[i] = *f;
}

struct frame net_pop(struct world *w)
{
	struct frame top = w->q[0], last = w->q[--w->qn];
	unsigned int i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= w->qn)
			break;
		if (c + 1 < w->qn && ev_before(&w->q[c + 1], &w->q[c]))
			c++;
		if (!ev_before(&w->q[c], &last))
			break;
		w->q[i] = w->q[c];
		i = c;
	}
	if (w->qn)
		w->q[i] = last;
	return top;
}

/* A contribution into its ToR's recirculation: no fault, no jitter. */
void net_recirculate(struct world *w, int tor,
			const struct rina_tor_recirc *rc)
{
	struct frame g = { .to_tor = 1, .tor = tor, .recirc = 1,
			   .len = sizeof(*rc) };

	if (w->qn == QCAP) {
		world_error(w, "queue overflow");
		return;
	}
	g.data = malloc(sizeof(*rc));
	if (!g.data) {
		world_error(w, "out of memory");
		return;
	}
	memcpy(g.data, rc, sizeof(*rc));
	g.t = w->now + w->recirc_us;
	g.order = w->sent++;
	heap_push(w, &g);
	w->recirc_n[tor]++;
	w->recirculated++;
}

/* One hop of f: lost, or delivered once or twice after its delay. */
void net_push(struct world *w, const struct frame *f, unsigned int us)
{
	int copies = 1;
	struct frame g;

	if (w->loss_pct && (int)(net_rnd(w) % 100) < w->loss_pct)
		return;
	if (w->dup_pct && (int)(net_rnd(w) % 100) < w->dup_pct)
		copies = 2;
	while (copies--) {
		if (w->qn == QCAP) {
			world_error(w, "queue overflow");
			return;
		}
		g = *f;
		g.data = malloc(f->len);
		if (!g.data) {
			world_error(w, "out of memory");
			return;
		}
		memcpy(g.data, f->data, f->len);
		g.t = w->now + us + (w->reorder ? net_rnd(w) % JITTER_US : 0);
		g.order = w->sent++;
		heap_push(w, &g);
	}
}

struct host *net_host_by_ip(struct world *w, __u32 ip)
{
	int i;

	for (i = 0; i < w->n_hosts; i++)
		if (w->h[i].ip == ip)
			return &w->h[i];
	return NULL;
}

__u32 net_frame_dip(const __u8 *d)
{
	return (__u32)d[30] << 24 | d[31] << 16 | d[32] << 8 | d[33];
}

/* The spine: to the ToR of an INA rack, else straight to the host. */
void net_route(struct world *w, struct frame *f)
{
	struct host *h = net_host_by_ip(w, net_frame_dip(f->data));

	if (!h) {
		world_error(w, "frame to an unknown address");
		return;
	}
	f->to_tor = h->ina;
	f->tor = h->tor;
	f->port = 0;
	f->host = h->rank;
	net_push(w, f, LINK_US);
}

void net_host_send(struct world *w, struct host *h, __u8 *data,
		   unsigned int len)
{
	struct frame f = { .data = data, .len = (__u16)len };

	if (net_frame_dip(data) == h->ip) {
		/* the kernel delivers it; it never reaches the link */
		f.host = h->rank;
		net_push(w, &f, LOCAL_US);
	} else if (h->ina) {
		f.to_tor = 1;
		f.tor = h->tor;
		f.port = 1 + h->idx;
		net_push(w, &f, LINK_US);
	} else {
		net_route(w, &f);
	}
}

unsigned int net_wrap(__u8 *d, const struct net_addr *src,
		      const struct net_addr *dst, const void *dgram,
		      unsigned int len)
{
	unsigned int i, sum = 0;
	__u8 *x = d + 14;

	memcpy(d, dst->mac, 6);
	memcpy(d + 6, src->mac, 6);
	put16(d + 12, 0x0800);
	memset(x, 0, 28);
	x[0] = 0x45;
	put16(x + 2, 28 + len);
	put16(x + 6, 0x4000);
	x[8] = 64;
	x[9] = 17;
	put32(x + 12, src->ip);
	put32(x + 16, dst->ip);
	for (i = 0; i < 20; i += 2)
		sum += get16(x + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(x + 10, ~sum & 0xffff);
	put16(x + 20, src->port);
	put16(x + 22, dst->port);
	put16(x + 24, 8 + len);
	memcpy(d + RINA_TOR_RINA_OFF, dgram, len);
	return RINA_TOR_RINA_OFF + len;
}

__u32 net_tor_ip(int rack)
{
	return 198u << 24 | 18u << 16 | (__u32)rack << 8 | 1;
}

struct net_addr net_addr_of(struct world *w, __u32 ip, __u16 port)
{
	struct host *h = net_host_by_ip(w, ip);
	struct net_addr a = { ip, port, { 2, 0, 0, 0, (__u8)(ip >> 8), 1 } };

	if (h)
		memcpy(a.mac, h->mac, 6);
	return a;
}
