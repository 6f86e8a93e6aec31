// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The engines' configuration from a job (core/engine_cfg.c), the one
 * derivation librina and rina-sim both call: for job files parsed as
 * librina parses them, every rank's ring member or INA worker gets its
 * place in the ring, the job's knobs, the padded schedule in any ring
 * with an INA member (also at a plain member: its schedule must match
 * the rack's), the contributions summed before each member, and a
 * windowed INA worker exactly when a congestion signal is on; an INA
 * rack's agent its place, the job's knobs and hash, and retransmissions
 * downstream under the senders' congestion control when it is on.
 */
#include <stdio.h>
#include <string.h>

#include "cc.h"
#include "engine_cfg.h"
#include "jobfile.h"
#include "../ktap.h"

/* 2x4, rack 0 INA: a mixed ring of the rack and rack 1's four ranks */
static const char mixed[] =
	"job 9\n"
	"elements 256\n"
	"window 128\n"
	"timeout_ms 7000\n"
	"rto_us 30000\n"
	"txq_limit 32768\n"
	"rack 0 ina tor 198.18.0.254\n"
	"rack 1 plain\n"
	"rank 0 198.18.0.1 rack 0\n"
	"rank 1 198.18.0.2 rack 0\n"
	"rank 2 198.18.0.3 rack 0\n"
	"rank 3 198.18.0.4 rack 0\n"
	"rank 4 198.18.1.1 rack 1\n"
	"rank 5 198.18.1.2 rack 1\n"
	"rank 6 198.18.1.3 rack 1\n"
	"rank 7 198.18.1.4 rack 1\n";

/* 2x2 plain, congestion control off */
static const char plain[] =
	"job 3\n"
	"cc off\n"
	"rack 0 plain\n"
	"rack 1 plain\n"
	"rank 0 198.18.0.1 rack 0\n"
	"rank 1 198.18.0.2 rack 0\n"
	"rank 2 198.18.1.1 rack 1\n"
	"rank 3 198.18.1.2 rack 1\n";

static struct rina_job_desc job;
static struct rina_ring ring;
static __u32 before[RINA_MAX_RANKS];

static int load(const char *text, int use_ina)
{
	char err[256];

	memset(&job, 0, sizeof(job));
	if (rina_jobfile_parse_text(text, "job", &job, err, sizeof(err))) {
		ktap_diag("%s", err);
		return -1;
	}
	rina_ring_build(&job, use_ina, &ring);
	rina_ring_contrib_before(&ring, before);
	return 0;
}

/* The fields every engine takes from the job as it is. */
static int job_knobs(__u32 n_ranks, __u16 job_id, __u32 elems,
		     __u32 window, __u32 txq_limit, __u64 rto_us)
{
	return n_ranks == job.n_ranks && job_id == job.job_id &&
	       elems == job.elems && window == job.window &&
	       txq_limit == job.txq_limit && rto_us == job.rto_us;
}

static void test_mixed(void)
{
	struct rina_agent_cfg ag;
	struct rina_cc_params cc;
	struct rina_rm_cfg rm;
	struct rina_iw_cfg iw;
	__u16 r;
	int ok;

	if (load(mixed, 1)) {
		ktap_result(0, "mixed_job_parses");
		return;
	}
	ktap_result(ring.L == 5 && ring.m[0].ina && ring.m[0].n_local == 4,
		    "mixed_ring_is_rack_and_four_members");
	ktap_result(rina_ring_has_ina(&ring), "mixed_ring_has_ina");
	ktap_result(before[0] == 0 && before[1] == 4 && before[2] == 5 &&
		    before[4] == 7, "contrib_before_counts_the_rack_as_four");
	ok = 1;
	for (r = 4; r < 8; r++) {
		rina_rm_cfg_job(&rm, &job, &ring, r, before);
		ok &= rm.ring == &ring && rm.contrib_before == before &&
		      rm.member == ring.member_of[r] && rm.member == r - 3u &&
		      rm.rank == r && rm.pad == 1 && rm.phases == 0 &&
		      !rm.path && !rm.txbuf && !rm.agg && !rm.max_msg &&
		      job_knobs(rm.n_ranks, rm.job_id, rm.elems, rm.window,
				rm.txq_limit, rm.rto_us);
	}
	ktap_result(ok && rm.elems == 256 && rm.window == 128 &&
		    rm.txq_limit == 32768 && rm.rto_us == 30000,
		    "plain_members_pad_and_take_the_job_knobs");
	rina_job_cc_params(&job, job.cc, &cc);
	ok = 1;
	for (r = 0; r < 4; r++) {
		rina_iw_cfg_job(&iw, &job, &ring, r, &cc);
		ok &= iw.ring == &ring && iw.member == 0 && iw.rank == r &&
		      iw.timeout_ms == 7000 && iw.windowed == 1 &&
		      !iw.path && !iw.txbuf && !iw.agg && !iw.max_msg &&
		      job_knobs(iw.n_ranks, iw.job_id, iw.elems, iw.window,
				iw.txq_limit, iw.rto_us);
	}
	ktap_result(ok, "ina_workers_windowed_with_cc_and_the_job_knobs");
	rina_job_cc_params(&job, RINA_JOB_CC_OFF, &cc);
	rina_iw_cfg_job(&iw, &job, &ring, 1, &cc);
	ktap_result(iw.windowed == 0, "ina_worker_unwindowed_with_cc_off");
	rina_job_cc_params(&job, RINA_CC_F_LOSS, &cc);
	rina_iw_cfg_job(&iw, &job, &ring, 1, &cc);
	ktap_result(iw.windowed == 1, "ina_worker_windowed_with_loss_only");

	/* the rack's agent: its place, and credit under the senders' cc */
	rina_job_cc_params(&job, job.cc, &cc);
	rina_agent_cfg_job(&ag, &job, &ring, ring.m[0].agent, &cc);
	ktap_result(ag.rank == ring.m[0].agent && ag.member == 0 &&
		    ag.n_local == 4 && ag.L == 5 && ag.elems == 256 &&
		    ag.window == 128 && ag.rto_us == 30000 &&
		    ag.job_id == 9 && ag.job_hash == rina_job_hash(&job) &&
		    !memcmp(&ag.cc, &cc, sizeof(cc)) && !ag.self.ip &&
		    !ag.incarnation, "agent_place_knobs_and_cc_credit");
	rina_job_cc_params(&job, RINA_JOB_CC_OFF, &cc);
	rina_agent_cfg_job(&ag, &job, &ring, ring.m[0].agent, &cc);
	ktap_result(ag.cc.flags == 0 && ag.cc.w_max == 0,
		    "agent_retransmits_unlimited_with_cc_off");

	/* RINA_NO_INA: the same job as a plain ring of eight */
	load(mixed, 0);
	rina_rm_cfg_job(&rm, &job, &ring, 2, before);
	ktap_result(ring.L == 8 && !rina_ring_has_ina(&ring) &&
		    rm.pad == 0 && rm.member == ring.member_of[2] &&
		    before[7] == 7, "mixed_job_without_ina_does_not_pad");
}

static void test_plain(void)
{
	struct rina_rm_cfg rm;
	__u16 r;
	int ok = 1;

	if (load(plain, 1)) {
		ktap_result(0, "plain_job_parses");
		return;
	}
	for (r = 0; r < 4; r++) {
		rina_rm_cfg_job(&rm, &job, &ring, r, before);
		ok &= rm.pad == 0 && rm.member == ring.member_of[r] &&
		      before[rm.member] == rm.member &&
		      job_knobs(rm.n_ranks, rm.job_id, rm.elems, rm.window,
				rm.txq_limit, rm.rto_us);
	}
	/* the job file's defaults reach the engine as they are */
	ktap_result(ok && job.cc == RINA_JOB_CC_OFF && rm.rto_us == 20000 &&
		    rm.window == job.window && rm.elems == job.elems,
		    "plain_ring_members_take_the_job_defaults");
}

int main(void)
{
	ktap_plan(11);
	test_mixed();
	test_plain();
	return ktap_finish();
}
