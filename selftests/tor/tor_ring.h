/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * tor_ring's parts: the ToR models, the event loop and the cases
 * (tor_ring.c), the hosts of core's engines (tor_ring_hosts.c), and the
 * network both send into (tor_ring_net.c), which calls neither.
 */
#ifndef TOR_RING_H
#define TOR_RING_H

#include "rina_tor_model.h"
#include "plan.h"
#include "schedule.h"
#include "path.h"

#define MAX_HOSTS	16
#define MAX_TORS	4
#define QCAP		(1 << 16)	/* frames in flight */
#define NO_WAKE		(~0ULL)
#define LINK_US		5	/* one hop: host-ToR, ToR-spine-ToR, ... */
#define JITTER_US	16	/* reordering: up to this much more */
#define LOCAL_US	1	/* a datagram to the host's own address */

/*
 * A frame in flight: to a ToR's port or to a host, at time t; or
 * (recirc) a contribution between a ToR's two passes, its data a struct
 * rina_tor_recirc.
 */
struct frame {
	__u64	t, order;
	int	to_tor, tor, port, host, recirc;
	__u16	len;
	__u8	*data;
};

struct world;

struct host {
	struct world *w;
	int	rank, rack, idx, member, ina, agent, tor;
	__u32	ip;			/* host order */
	__u8	mac[6];
	__s32	*in, *out;		/* out: the engine reduces in place */
	/* the engine this rank hosts, and the agent if it is one */
	struct rina_rm *rm;
	struct rina_iw *iw;
	struct rina_agent_core *ag;
	struct rina_path path;		/* kept across calls, as librina's */
	__u8	*txbuf;
	__u64	wake, ag_wake;		/* when they asked to run, or NO_WAKE */
	int	in_call;		/* the engine has a call started */
	int	woken, ag_woken;	/* a packet came for them */
	int	tor_on;			/* agent: its ToR aggregates the rack */
	int	tor_lost_told;		/* INA worker: the agent said so */
	__u32	agg_ip;			/* INA worker: where contributions go */
	__u64	timeouts, retransmits, malformed;	/* engine's counts */
	/* agent: the ToR's allgather copies at its port this call, by seq */
	__u8	*aga_have;
	__u64	aga_got;
};

struct world {
	struct rina_job_desc job;
	struct rina_ring ring;
	struct rina_sched s;		/* what every engine runs */
	__u32	contrib_before[RINA_MAX_RANKS];
	__u64	count;
	__u32	nord, slot_base;
	__u16	round;			/* allreduce call number */
	int	n_hosts, n_tors;
	struct host h[MAX_HOSTS];
	struct rina_tor *tor[MAX_TORS];
	int	tor_rack[MAX_TORS];
	struct frame *q;		/* a heap by (t, order) */
	unsigned int qn;
	__u64	now, sent;		/* the virtual clock (us); frames sent */
	__u64	rng;
	int	loss_pct, dup_pct, reorder;
	__s64	*ref;
	int	rounds;
	int	errors;
	unsigned long frames;
	unsigned long agent_copies;	/* AG_DATA from a ToR at an agent port */
	unsigned long host_relays;	/* ... relayed to the agent's rank */
	/* the ToRs in two passes: a contribution recirculates this long */
	int	two_pass;
	unsigned int recirc_us;
	unsigned int recirc_n[MAX_TORS];	/* in the recirculation */
	unsigned long recirculated;
	unsigned long overtook;	/* AG_DATA, ACK, NACK past one of them */
	char	why[256];
};

/* What the engines and agents counted over a run. */
struct engine_totals {
	__u64	timeouts, retransmits, malformed;
	__u64	host_relays, tor_copies;
};

static inline void put16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static inline void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static inline __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 get32(const __u8 *p)
{
	return (__u32)get16(p) << 16 | get16(p + 2);
}

/* ---- tor_ring_net.c: the network ---- */

struct net_addr {
	__u32	ip;
	__u16	port;
	__u8	mac[6];
};

void world_error(struct world *w, const char *msg);
/* The address ip:port with the MAC of its host (or of the ToR). */
struct net_addr net_addr_of(struct world *w, __u32 ip, __u16 port);
/* The control address of rack's ToR. */
__u32 net_tor_ip(int rack);
/* Ethernet, IPv4 and UDP around a datagram in d; returns the length. */
unsigned int net_wrap(__u8 *d, const struct net_addr *src,
		      const struct net_addr *dst, const void *dgram,
		      unsigned int len);
/* h transmits a frame (copied): to itself, into its ToR, or the spine. */
void net_host_send(struct world *w, struct host *h, __u8 *data,
		   unsigned int len);
/* The next random number of the world's generator. */
__u32 net_rnd(struct world *w);
/* One hop of f (copied): lost, or delivered once or twice after us. */
void net_push(struct world *w, const struct frame *f, unsigned int us);
/* The spine: f to the ToR of an INA rack, else straight to the host. */
void net_route(struct world *w, struct frame *f);
/* A contribution into tor's recirculation: no fault, no jitter. */
void net_recirculate(struct world *w, int tor,
		     const struct rina_tor_recirc *rc);
/* The earliest frame in flight (the caller frees its data). */
struct frame net_pop(struct world *w);
/* The host at ip, or NULL. */
struct host *net_host_by_ip(struct world *w, __u32 ip);
/* A frame's IPv4 destination, host order. */
__u32 net_frame_dip(const __u8 *d);

/* ---- tor_ring_hosts.c: the engines' hosts ---- */

/* Each rank's engine, and the agents; 0 or -1. */
int hosts_init(struct world *w, __u64 count);
void hosts_free(struct world *w);
/* Every agent asks its ToR to aggregate the rack. */
void hosts_tor_install(struct world *w);
/* Done waiting for that: every agent's ToR said yes. */
int hosts_tors_on(struct world *w);
/* Start h's part of call w->round. */
void hosts_start(struct host *h, __u64 count);
/* Every rank has its result and every ACK it waited for. */
int hosts_all_done(struct world *w);
/* End the call at every rank, its result in h->out. */
void hosts_finish(struct world *w);
/* A frame for h. */
void hosts_rx(struct host *h, const __u8 *frame, unsigned int len);
/* After the frames of an instant: what came, and the timers due. */
void hosts_batch_end(struct host *h);
void hosts_totals(struct world *w, struct engine_totals *t);
void hosts_dump(struct host *h);

#endif /* TOR_RING_H */
