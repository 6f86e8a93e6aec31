# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""DDP training on rina-run --topo 2x2 with rina.torch.allreduce_hook, as a
user would run it (torch's env:// rendezvous from rina-run's exports, no
GLOO_SOCKET_IFNAME): plain racks and INA racks with their ToRs on, against
single-process training (within ddp_harness.py's bound) and Gloo DDP
(float32 noise); every rank's parameters bitwise identical; a killed rank
makes the others raise within the job timeout."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_harness as H  # noqa: E402

N = 4


@unittest.skipIf(H.why_skip(), H.why_skip() or "")
class DDP(H.DdpCase):
    PYTHONPATH = os.path.join(H.TOP, "python")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.runs = {}

    def gloo(self):
        if "gloo" not in self.runs:
            self.runs["gloo"] = self.trained("2x2", N, "gloo")
        return self.runs["gloo"]

    def test_gloo_baseline(self):
        self.check_run(self.gloo(), H.FLOAT_NOISE * self.pmax)

    def check_rina(self, R):
        self.check_run(R, self.rina_bound(N))
        # every bucket of every step was a Rina call, several a step
        # once DDP rebuilt its buckets after the first
        self.assertEqual(R[0]["stats"]["calls"], 1 + (H.W.STEPS - 1) * 2)
        dg = max((a - b).abs().max().item()
                 for a, b in zip(R[0]["params"], self.gloo()[0]["params"]))
        self.assertLessEqual(dg, self.rina_bound(N))

    def test_rina_hook_plain(self):
        R = self.trained("2x2", N, "rina")
        self.check_rina(R)
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)

    def test_rina_hook_ina_agents(self):
        R = self.trained("2x2", N, "rina", "--ina", "all", "--tor", "off")
        self.check_rina(R)
        # rank 0 is rack 0's agent, aggregating its rack in software
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)
        self.assertGreater(R[0]["stats"]["agent_contrib_in"], 0)

    def test_rina_hook_ina_tor(self):
        R = self.trained("2x2", N, "rina", "--ina", "all", "--tor", "on")
        self.check_rina(R)
        # rank 0 is rack 0's agent and its ToR aggregated
        self.assertEqual(R[0]["stats"]["agent_tor"], 2)	# RINA_TOR_ON

    def test_killed_rank_raises(self):
        p, out = self.run_job("2x2", "rina", env={"KILL_RANK": "3",
                                                  "KILL_STEP": "2"})
        self.check_killed(p, out, N - 1, "RinaError")


if __name__ == "__main__":
    unittest.main()
