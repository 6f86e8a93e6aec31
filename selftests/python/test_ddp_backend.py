# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""DDP over the torch.distributed backend "rina" under rina-run, with
Gloo made unavailable in every rank (ddp_backend_worker.py): on 2x2 and
2x4 plain racks, 2x2 INA racks with their ToRs, and torchrun (one per
emulated host, two processes each, c10d rendezvous); parameters after
the steps within float32 tolerance of single-process training (the
bound of test_ddp.py) and bitwise identical on every rank; then plain
dist.* calls (all_reduce, broadcast, all_gather, the _tensor forms,
reduce_scatter, barrier, an unsupported reduce) right. Ranks that
disagree on the job fail at init, every one of them, with a clear
error; a killed rank makes the others raise within the job's timeout."""
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

FLOAT_NOISE = 1e-6
TIMEOUT_MS = 2000


def why_skip():
    if torch is None:
        return "python3-torch not installed"
    if os.geteuid() != 0:
        return "rina-run needs root (network namespaces)"
    if not os.access(RINA_RUN, os.X_OK):
        return "build/bin/rina-run missing (make)"
    if not os.path.exists(os.path.join(TOP, "build", "python",
                                       "rina_c10d.stamp")):
        return "the rina_c10d extension is not built (libtorch-dev)"
    return None


@unittest.skipIf(why_skip(), why_skip() or "")
class Backend(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref_losses, cls.ref_params, cls.gmax = W.reference()
        cls.pmax = max(p.abs().max().item() for p in cls.ref_params)

    def run_job(self, topo, mode, *args, env=None):
        out = tempfile.mkdtemp(prefix="rina-ddp-backend.")
        self.addCleanup(shutil.rmtree, out, True)
        # no PYTHONPATH: rina-run puts the tree's python/ and build/python
        e = dict(os.environ, **(env or {}))
        e.pop("PYTHONPATH", None)
        worker = os.path.join(HERE, "ddp_backend_worker.py")
        cmd = [RINA_RUN, "--topo", topo, "--timeout", "150",
               "--job-opt", "timeout_ms %d" % TIMEOUT_MS, *args, "--"]
        cmd += [worker, mode, out] if "--torchrun" in args else \
            [sys.executable, worker, mode, out]
        p = subprocess.run(cmd, env=e, capture_output=True, text=True,
                           timeout=200, cwd=HERE)
        return p, out

    def trained(self, topo, n, *args):
        p, out = self.run_job(topo, "train", *args)
        self.assertEqual(p.returncode, 0, (p.stdout + p.stderr)[-3000:])
        return [torch.load(os.path.join(out, "rank%d.pt" % r))
                for r in range(n)]

    def check(self, R):
        n = len(R)
        for r in range(n):
            self.assertEqual(R[r]["backend"], "rina")
            # plain dist.* calls after training (ddp_backend_worker.py)
            self.assertEqual(R[r]["dist_bad"], [], "rank %d" % r)
            # DDP's set-up (allgather, broadcasts) and one call a bucket
            self.assertGreaterEqual(R[r]["stats"]["calls"],
                                    3 + W.STEPS * 2)
        for r in range(1, n):
            for a, b in zip(R[0]["params"], R[r]["params"]):
                self.assertTrue(torch.equal(a, b), "rank %d differs" % r)
        bound = (W.STEPS * W.LR * (n * self.gmax * 2 ** -31 +
                                   self.gmax * 2 ** -24) +
                 FLOAT_NOISE * self.pmax)
        dp = max((a - b).abs().max().item()
                 for a, b in zip(R[0]["params"], self.ref_params))
        print("# %d ranks: max |param - single-process| %.3g (bound %.3g),"
              " %d calls" % (n, dp, bound, R[0]["stats"]["calls"]))
        self.assertLessEqual(dp, bound)
        for s in range(W.STEPS):
            loss = sum(R[r]["losses"][s] for r in range(n)) / n
            self.assertAlmostEqual(loss, self.ref_losses[s],
                                   delta=abs(self.ref_losses[s]) *
                                   FLOAT_NOISE)

    def test_ddp_2x2(self):
        R = self.trained("2x2", 4)
        self.check(R)
        self.assertEqual(R[0]["stats"]["agent_tor"], 0)

    def test_ddp_2x4(self):
        self.check(self.trained("2x4", 8))

    def test_ddp_2x2_ina_tor(self):
        R = self.trained("2x2", 4, "--ina", "all", "--tor", "on")
        self.check(R)
        # rank 0 is rack 0's agent and its ToR aggregated
        self.assertEqual(R[0]["stats"]["agent_tor"], 2)	# RINA_TOR_ON

    def test_ddp_torchrun(self):
        """torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d,
        one per emulated host: ranks assigned by torchrun, two per
        address (ports 21056 and 21057)."""
        self.check(self.trained("2x1", 4, "--torchrun", "2"))

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
        self.assertNotEqual(p.returncode, 0)
        for r in range(3):
            path = os.path.join(out, "rank%d.exc.json" % r)
            self.assertTrue(os.path.exists(path),
                            "rank %d raised nothing\n%s" % (r, p.stderr))
            with open(path) as f:
                exc = json.load(f)
            print("# rank %d: %s after %.2f s: %s" % (
                r, exc["type"], exc["seconds"],
                exc["msg"].splitlines()[0][:150]))
            self.assertIn("rina backend", exc["msg"])
            self.assertTrue("timed out" in exc["msg"] or
                            "aborted" in exc["msg"], exc["msg"])
            self.assertLess(exc["seconds"], 2 * TIMEOUT_MS / 1000)
        self.assertFalse(os.path.exists(os.path.join(out, "rank3.pt")))


if __name__ == "__main__":
    unittest.main()
