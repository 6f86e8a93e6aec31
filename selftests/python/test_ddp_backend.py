# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""DDP over the torch.distributed backend "rina" under rina-run, with
Gloo made unavailable in every rank (ddp_backend_worker.py): on 2x2 and
2x4 plain racks, 2x2 INA racks with their ToRs, and torchrun (one per
emulated host, two processes each, c10d rendezvous), plain and with
every rack INA through its ToR (the job the backend builds is the one
rina-tor knows: its counters show it aggregated); parameters after the
steps within ddp_harness.py's bound of single-process training and
bitwise identical on every rank; then plain dist.* calls (all_reduce,
broadcast, all_gather, the _tensor forms, reduce_scatter, barrier, an
unsupported reduce) exact. Ranks that disagree on the job fail at init,
every one of them, with a clear error; a killed rank makes the others
raise within the job's timeout."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_harness as H  # noqa: E402


@unittest.skipIf(H.why_skip(True), H.why_skip(True) or "")
class Backend(H.DdpCase):
    WORKER = "ddp_backend_worker.py"

    def check(self, R):
        n = len(R)
        for r in range(n):
            self.assertEqual(R[r]["backend"], "rina")
            # plain dist.* calls after training (ddp_backend_worker.py)
            self.assertEqual(R[r]["dist_bad"], [], "rank %d" % r)
            # DDP's set-up (allgather, broadcasts) and one call a bucket
            self.assertGreaterEqual(R[r]["stats"]["calls"],
                                    3 + H.W.STEPS * 2)
        print("# %d calls" % R[0]["stats"]["calls"])
        self.check_run(R, self.rina_bound(n))

    def tor_aggregated(self, racks, calls):
        """Each INA rack's ToR (rina-tor --stats, rina-run --tor-stats)
        took the job (no request with another hash) and aggregated its
        workers' packets: at least one slot per call."""
        for k in range(racks):
            with open(os.path.join(self.out, "tor%d.json" % k)) as f:
                tor = json.load(f)
            self.assertEqual(len(tor["jobs"]), 1, "rack %d" % k)
            job = tor["jobs"][0]
            c = job["counters"]
            print("# ToR %d: contrib_in %d slot_done %d, control %s" % (
                k, c["contrib_in"], c["slot_done"], job["control"]))
            self.assertEqual(job["control"]["bad_hash"], 0, "rack %d" % k)
            self.assertGreater(job["control"]["ok"], 0, "rack %d" % k)
            self.assertGreaterEqual(c["slot_done"], calls, "rack %d" % k)
            self.assertGreater(c["contrib_in"], c["slot_done"],
                               "rack %d" % k)

    def test_ddp_2x2(self):
        R = self.trained("2x2", 4, "train")
        self.check(R)
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)

    def test_ddp_2x4(self):
        self.check(self.trained("2x4", 8, "train"))

    def test_ddp_2x2_ina_tor(self):
        R = self.trained("2x2", 4, "train", "--ina", "all", "--tor", "on")
        self.check(R)
        # rank 0 is rack 0's agent and its ToR aggregated
        self.assertEqual(R[0]["stats"]["agent_tor"], 2)	# RINA_TOR_ON

    def test_ddp_torchrun(self):
        """torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d,
        one per emulated host: ranks assigned by torchrun, two per
        address (ports 21056 and 21057)."""
        self.check(self.trained("2x1", 4, "train", "--torchrun", "2"))

    def check_tor_run(self, R, racks):
        self.check(R)
        n = len(R)
        # each rack's agent learnt that its ToR took the job
        # (RINA_TOR_ON), and no agent added its rack in software
        self.assertEqual([R[r]["stats"]["agent_tor"]
                          for r in range(n)].count(2), racks)
        self.assertEqual(sum(R[r]["stats"]["agent_contrib_in"]
                             for r in range(n)), 0)
        self.tor_aggregated(racks, R[0]["stats"]["calls"])

    def test_ddp_ina_tor_ranks_reversed(self):
        """torch's ranks the other way round from the job file's (as
        mpirun or srun may number them), every rack INA through
        rina-tor: the backend's job is the job file the ToRs know, its
        ranks mapped onto torch's; the ToRs take it and aggregate."""
        self.check_tor_run(self.trained(
            "2x2", 4, "reversed", "--ina", "all", "--tor", "on",
            "--tor-stats", "{OUT}"), 2)

    def test_ddp_torchrun_ina_tor(self):
        """torchrun with the c10d rendezvous on every host of 2x2, every
        rack INA through rina-tor: the ToRs take the job and aggregate."""
        self.check_tor_run(self.trained(
            "2x2", 4, "train", "--torchrun", "1", "--ina", "all",
            "--tor", "on", "--tor-stats", "{OUT}"), 2)

    def test_disagree_at_init(self):
        p, out = self.run_job("2x2", "disagree")
        self.assertNotEqual(p.returncode, 0)
        for r in range(4):
            path = os.path.join(out, "rank%d.exc.json" % r)
            self.assertTrue(os.path.exists(path), "rank %d raised nothing"
                            "\n%s" % (r, p.stderr[-2000:]))
            with open(path) as f:
                exc = json.load(f)
            print("# rank %d after %.2f s: %s" % (r, exc["seconds"],
                                                  exc["msg"][:160]))
            self.assertIn("ranks disagree on the job settings", exc["msg"])
            self.assertIn("ranks 3: RINA_JOB=", exc["msg"])
            self.assertLess(exc["seconds"], 30)

    def test_killed_rank_raises(self):
        p, out = self.run_job("2x2", "train", env={"KILL_RANK": "3",
                                                   "KILL_STEP": "2"})
        self.check_killed(p, out, 3, "rina backend")


if __name__ == "__main__":
    unittest.main()
