// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * In-process transport: ranks that are threads of one process exchange
 * messages through per-address queues. Unit tests run the real ring
 * engine with it, loss and duplication included, without a network.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rina_int.h"

struct inproc_msg {
	struct inproc_msg	*next;
	uint32_t		len;
	struct rina_addr	from;
	uint8_t			data[];
};

struct inproc_ep {
	struct rina_transport	t;
	struct inproc_ep	*next_ep;
	struct rina_addr	addr;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	struct inproc_msg	*head, *tail;
	unsigned int		queued;
	struct inproc_msg	*held[RINA_BATCH];	/* handed to recv() */
	int			nheld;
	struct rina_transport_stats st;
};

#define INPROC_QUEUE_MAX	65536	/* like a socket buffer: then drop */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct inproc_ep *registry;

static struct inproc_ep *lookup(const struct rina_addr *a)
{
	struct inproc_ep *e;

	for (e = registry; e; e = e->next_ep)
		if (e->addr.ip == a->ip && e->addr.port == a->port)
			return e;
	return NULL;
}

static int inproc_send(struct rina_transport *t, const struct rina_msg *msgs,
		       int n)
{
	struct inproc_ep *self = (struct inproc_ep *)t, *dst;
	int i;

	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < n; i++) {
		struct inproc_msg *m;

		self->st.tx_packets++;
		self->st.tx_bytes += msgs[i].len + RINA_FRAME_OVERHEAD;
		dst = lookup(&msgs[i].addr);
		if (!dst)
			continue;	/* nobody listens: lost */
		m = malloc(sizeof(*m) + msgs[i].len);
		if (!m)
			continue;
		m->next = NULL;
		m->len = msgs[i].len;
		m->from = self->addr;
		memcpy(m->data, msgs[i].buf, msgs[i].len);
		pthread_mutex_lock(&dst->lock);
		if (dst->queued >= INPROC_QUEUE_MAX) {
			dst->st.rx_dropped++;
			free(m);
		} else {
			if (dst->tail)
				dst->tail->next = m;
			else
				dst->head = m;
			dst->tail = m;
			dst->queued++;
			pthread_cond_signal(&dst->cond);
		}
		pthread_mutex_unlock(&dst->lock);
	}
	pthread_mutex_unlock(&registry_lock);
	return n;
}

static int inproc_recv(struct rina_transport *t, struct rina_msg *msgs,
		       int max, int timeout_ms)
{
	struct inproc_ep *e = (struct inproc_ep *)t;
	struct timespec ts;
	int n = 0;

	while (e->nheld)
		free(e->held[--e->nheld]);
	if (max > RINA_BATCH)
		max = RINA_BATCH;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&e->lock);
	while (!e->head && timeout_ms > 0)
		if (pthread_cond_timedwait(&e->cond, &e->lock, &ts) ==
		    ETIMEDOUT)
			break;
	while (e->head && n < max) {
		struct inproc_msg *m = e->head;

		e->head = m->next;
		if (!e->head)
			e->tail = NULL;
		e->queued--;
		e->held[e->nheld++] = m;
		msgs[n].buf = m->data;
		msgs[n].len = m->len;
		msgs[n].addr = m->from;
		msgs[n].ecn = IPTOS_ECN_NOT_ECT;
		e->st.rx_packets++;
		e->st.rx_bytes += m->len + RINA_FRAME_OVERHEAD;
		n++;
	}
	pthread_mutex_unlock(&e->lock);
	return n;
}

/*
 * The counters as their writers keep them: tx under registry_lock (send,
 * from the agent's or the caller's thread), rx under the endpoint's
 * lock; taken in send's order.
 */
static void inproc_get_stats(struct rina_transport *t,
			     struct rina_transport_stats *st)
{
	struct inproc_ep *e = (struct inproc_ep *)t;

	pthread_mutex_lock(&registry_lock);
	pthread_mutex_lock(&e->lock);
	*st = e->st;
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&registry_lock);
}

static void inproc_destroy(struct rina_transport *t)
{
	struct inproc_ep *e = (struct inproc_ep *)t, **pp;
	struct inproc_msg *m;

	pthread_mutex_lock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->next_ep) {
		if (*pp == e) {
			*pp = e->next_ep;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	while (e->nheld)
		free(e->held[--e->nheld]);
	while ((m = e->head)) {
		e->head = m->next;
		free(m);
	}
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e);
}

static const struct rina_transport_ops inproc_ops = {
	.name		= "inproc",
	.send		= inproc_send,
	.recv		= inproc_recv,
	.get_stats	= inproc_get_stats,
	.destroy	= inproc_destroy,
};

int rina_inproc_transport_create(const struct rina_transport_cfg *cfg,
				 struct rina_transport **out,
				 char *err, size_t errlen)
{
	struct inproc_ep *e;

	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->t.ops = &inproc_ops;
	e->addr = cfg->local;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	pthread_mutex_lock(&registry_lock);
	if (lookup(&e->addr)) {
		pthread_mutex_unlock(&registry_lock);
		snprintf(err, errlen, "address already in use");
		pthread_mutex_destroy(&e->lock);
		pthread_cond_destroy(&e->cond);
		free(e);
		return -EADDRINUSE;
	}
	e->next_ep = registry;
	registry = e;
	pthread_mutex_unlock(&registry_lock);
	*out = &e->t;
	return 0;
}
