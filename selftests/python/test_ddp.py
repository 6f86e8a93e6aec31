# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""DDP training on rina-run --topo 2x2 with rina.torch.allreduce_hook, as a
user would run it (torch's env:// rendezvous from rina-run's exports, no
GLOO_SOCKET_IFNAME): plain racks and INA racks with their ToRs on, against
single-process training (within the bound below) and Gloo DDP (float32
noise); every rank's parameters bitwise identical; a killed rank makes
the others raise within the job timeout.

The bound: an averaged gradient element is off by at most
N 2^e / (2 (2^31 - 1)) + |g| 2^-24 (Documentation/protocol.md section 7,
divided by N), 2^e <= 2 max|g|; over STEPS SGD steps of rate LR the
parameters move by at most STEPS LR (N max|g| 2^-31 + max|g| 2^-24) from
where exact gradients take them, plus the float32 rounding of the
training itself, which Gloo has too (FLOAT_NOISE, relative)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
RINA_RUN = os.path.join(TOP, "build", "bin", "rina-run")
sys.path.insert(0, HERE)

try:
    import torch
    import ddp_worker as W
except ImportError:
    torch = None

N = 4
FLOAT_NOISE = 1e-6
TIMEOUT_MS = 2000


def why_skip():
    if torch is None:
        return "python3-torch not installed"
    if os.geteuid() != 0:
        return "rina-run needs root (network namespaces)"
    if not os.access(RINA_RUN, os.X_OK):
        return "build/bin/rina-run missing (make)"
    return None


@unittest.skipIf(why_skip(), why_skip() or "")
class DDP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref_losses, cls.ref_params, cls.gmax = W.reference()
        cls.pmax = max(p.abs().max().item() for p in cls.ref_params)
        cls.runs = {}

    def run_job(self, mode, *args, env=None):
        out = tempfile.mkdtemp(prefix="rina-ddp.")
        self.addCleanup(shutil.rmtree, out, True)
        e = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"),
                 **(env or {}))
        p = subprocess.run(
            [RINA_RUN, "--topo", "2x2", "--timeout", "120",
             "--job-opt", "timeout_ms %d" % TIMEOUT_MS, *args, "--",
             sys.executable, os.path.join(HERE, "ddp_worker.py"), mode,
             out], env=e, capture_output=True, text=True, timeout=180)
        return p, out

    def trained(self, mode, *args):
        p, out = self.run_job(mode, *args)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return [torch.load(os.path.join(out, "rank%d.pt" % r))
                for r in range(N)]

    def check_run(self, R, bound):
        for r in range(1, N):
            for a, b in zip(R[0]["params"], R[r]["params"]):
                self.assertTrue(torch.equal(a, b), "rank %d differs" % r)
        dp = max((a - b).abs().max().item()
                 for a, b in zip(R[0]["params"], self.ref_params))
        print("# max |param - single-process| %.3g (bound %.3g)"
              % (dp, bound))
        self.assertLessEqual(dp, bound)
        for s in range(W.STEPS):
            loss = sum(R[r]["losses"][s] for r in range(N)) / N
            self.assertAlmostEqual(loss, self.ref_losses[s],
                                   delta=abs(self.ref_losses[s]) *
                                   FLOAT_NOISE)

    def rina_bound(self):
        return (W.STEPS * W.LR * (N * self.gmax * 2 ** -31 +
                                  self.gmax * 2 ** -24) +
                FLOAT_NOISE * self.pmax)

    def gloo(self):
        if "gloo" not in self.runs:
            self.runs["gloo"] = self.trained("gloo")
        return self.runs["gloo"]

    def test_gloo_baseline(self):
        self.check_run(self.gloo(), FLOAT_NOISE * self.pmax)

    def check_rina(self, R):
        self.check_run(R, self.rina_bound())
        # every bucket of every step was a Rina call, several a step
        # once DDP rebuilt its buckets after the first
        self.assertEqual(R[0]["stats"]["calls"], 1 + (W.STEPS - 1) * 2)
        dg = max((a - b).abs().max().item()
                 for a, b in zip(R[0]["params"], self.gloo()[0]["params"]))
        self.assertLessEqual(dg, self.rina_bound())

    def test_rina_hook_plain(self):
        R = self.trained("rina")
        self.check_rina(R)
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)

    def test_rina_hook_ina_agents(self):
        R = self.trained("rina", "--ina", "all", "--tor", "off")
        self.check_rina(R)
        # rank 0 is rack 0's agent, aggregating its rack in software
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)
        self.assertGreater(R[0]["stats"]["agent_contrib_in"], 0)

    def test_rina_hook_ina_tor(self):
        R = self.trained("rina", "--ina", "all", "--tor", "on")
        self.check_rina(R)
        # rank 0 is rack 0's agent and its ToR aggregated
        self.assertEqual(R[0]["stats"]["agent_tor"], 2)	# RINA_TOR_ON

    def test_killed_rank_raises(self):
        p, out = self.run_job("rina", env={"KILL_RANK": "3",
                                           "KILL_STEP": "2"})
        self.assertNotEqual(p.returncode, 0)
        for r in range(N - 1):
            path = os.path.join(out, "rank%d.exc.json" % r)
            self.assertTrue(os.path.exists(path),
                            "rank %d raised nothing\n%s" % (r, p.stderr))
            with open(path) as f:
                exc = json.load(f)
            print("# rank %d: %s after %.2f s: %s" % (
                r, exc["type"], exc["seconds"],
                exc["msg"].splitlines()[0][:150]))
            self.assertIn("RinaError", exc["msg"])
            self.assertTrue("timed out" in exc["msg"] or
                            "aborted" in exc["msg"], exc["msg"])
            # within the timeout (and the abort that follows it)
            self.assertLess(exc["seconds"], 2 * TIMEOUT_MS / 1000)
        self.assertFalse(os.path.exists(os.path.join(out, "rank3.pt")))


if __name__ == "__main__":
    unittest.main()
