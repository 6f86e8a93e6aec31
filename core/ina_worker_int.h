/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The INA worker engine's state, shared by its two files only:
 * ina_worker.c (the call's life, what it receives) and ina_worker_tx.c
 * (contributions, their repair, NACKs and stall reports).
 */
#ifndef RINA_CORE_INA_WORKER_INT_H
#define RINA_CORE_INA_WORKER_INT_H

#include "ina_worker.h"
#include "rack.h"
#include "txq.h"

struct iw_contrib {
	__u32	seq;		/* reduce-scatter seq */
	__u64	ordinal;
	__u64	t_sent;
	__u64	rto;
	__u64	deadline;
	__u32	tries;
	__u32	step;		/* of the member's schedule */
	__u8	sent, done;
	__u8	orphaned;	/* its ToR went away: resend (iw_restart()) */
	/*
	 * Our contribution, kept while acc holds its result and it may
	 * still go again (rx_ag(), keep_contrib())
	 */
	__s32	*kept;
};

struct iw_call {
	struct rina_iw	*w;
	struct rina_sched s;
	__s32		*acc;
	__u8		dtype_op;
	__u32		i;		/* member index */
	__u16		round;
	__u32		slot_base;

	struct iw_contrib *ct;		/* in ordinal order */
	__u32		nct, first_open, next_send;
	__u32		inflight;	/* sent, not yet delivered */
	__u32		retx_pos;	/* where the last resend pass stopped */
	struct rina_rack *rack;		/* per step: see iw_retransmit() */
	__u32		*probed;	/* per step: last probe pass that sent */
	__u32		probes;		/* probe passes since a delivery */
	__u32		probe_gen;	/* probe passes in all */
	__u64		last_done, last_probe;
	int		windowed;	/* congestion window (cfg) */
	/*
	 * A ring of INA members only: the window's floor is 2 (P + 1)
	 * (rina_cc_ina_window_only()), and what that puts on our host's
	 * queue is bounded (core/txq.h)
	 */
	int		only_ina;
	struct rina_txq	txq;
	__u32		*ct_of_seq;	/* SR seq -> index + 1 */
	__u64		*agmap;		/* allgather seqs received */
	__u64		*ovfmap;
	__u32		ovf_words;
	__u64		expect_ag, got_ag, got_done;
	__u32		nacks;		/* sent since allgather data last came */
	__u64		last_progress, last_nack, last_stall;

	struct rina_engine_msg tx[RINA_ENGINE_BATCH];
	int		ntx;
};

struct rina_iw {
	struct rina_iw_cfg	cfg;
	const struct rina_engine_ops *ops;
	void			*ctx;
	struct rina_engine_stats	st;
	int			xmit_errno;
	struct iw_call		*k;		/* the call, or NULL */
	__u8			nackbuf[RINA_HDR_LEN + RINA_MAX_PAYLOAD +
					RINA_TAG_LEN];
};

static inline __u64 iw_now(const struct rina_iw *w)
{
	return w->ops->now_us(w->ctx);
}

/* ina_worker_tx.c */
int iw_flush(struct iw_call *k);
__u64 iw_first_rto(const struct rina_iw *w);
int iw_send_contrib(struct iw_call *k, struct iw_contrib *x, int retx);
void iw_contrib_done(struct iw_call *k, __u32 idx, int ce);
int iw_pump(struct iw_call *k);
int iw_retransmit(struct iw_call *k, __u64 *wait_us);
void iw_nack_and_stall(struct iw_call *k, __u64 *wait_us);

#endif /* RINA_CORE_INA_WORKER_INT_H */
