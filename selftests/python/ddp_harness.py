# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""What test_ddp.py and test_ddp_backend.py share: running a worker
(ddp_worker.py, ddp_backend_worker.py) on every rank under rina-run,
loading the ranks' results, and checking them against single-process
training (ddp_worker.reference()) and against each other; a killed
rank's survivors checked for a clear error within the job's timeout.

The bound of Rina's training: an averaged gradient element is off by
at most N 2^e / (2 (2^31 - 1)) + |g| 2^-24 (Documentation/protocol.md
section 7, divided by N), 2^e <= 2 max|g|; over STEPS SGD steps of rate
LR the parameters move by at most STEPS LR (N max|g| 2^-31 + max|g|
2^-24) from where exact gradients take them, plus the float32 rounding
of the training itself, which Gloo has too (FLOAT_NOISE, relative)."""
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
    torch = W = None

FLOAT_NOISE = 1e-6
TIMEOUT_MS = 2000


def why_skip(extension=False):
    """Why the DDP tests cannot run here, or None. extension: they need
    the rina_c10d extension (backend "rina")."""
    if torch is None:
        return "python3-torch not installed"
    if os.geteuid() != 0:
        return "rina-run needs root (network namespaces)"
    if not os.access(RINA_RUN, os.X_OK):
        return "build/bin/rina-run missing (make)"
    if extension and not os.path.exists(
            os.path.join(TOP, "build", "python", "rina_c10d.stamp")):
        return "the rina_c10d extension is not built (libtorch-dev)"
    return None


class DdpCase(unittest.TestCase):
    """A test class whose runs train ddp_worker's model; WORKER is the
    script every rank runs, PYTHONPATH what it gets (None: rina-run's
    own, the tree's python/ and build/python)."""
    WORKER = "ddp_worker.py"
    PYTHONPATH = None

    @classmethod
    def setUpClass(cls):
        cls.ref_losses, cls.ref_params, cls.gmax = W.reference()
        cls.pmax = max(p.abs().max().item() for p in cls.ref_params)

    def run_job(self, topo, mode, *args, env=None, timeout=150):
        """rina-run --topo TOPO ARGS -- WORKER MODE OUT: (the completed
        process, OUT). With --torchrun, torchrun runs the worker."""
        out = tempfile.mkdtemp(prefix="rina-ddp.")
        self.addCleanup(shutil.rmtree, out, True)
        # the job's timeout is not the rina backend's: its calls take
        # the process group's (ddp_backend_worker.py: 60 s, for a
        # rendezvous of slow-starting ranks) unless RINA_TIMEOUT_MS says
        e = dict(os.environ, RINA_TIMEOUT_MS=str(TIMEOUT_MS))
        e.update(env or {})
        e.pop("PYTHONPATH", None)
        if self.PYTHONPATH:
            e["PYTHONPATH"] = self.PYTHONPATH
        worker = os.path.join(HERE, self.WORKER)
        cmd = [RINA_RUN, "--topo", topo, "--timeout", str(timeout),
               "--job-opt", "timeout_ms %d" % TIMEOUT_MS,
               *[a.replace("{OUT}", out) for a in args], "--"]
        cmd += [worker, mode, out] if "--torchrun" in args else \
            [sys.executable, worker, mode, out]
        p = subprocess.run(cmd, env=e, capture_output=True, text=True,
                           timeout=timeout + 50, cwd=HERE)
        return p, out

    def trained(self, topo, n, mode, *args):
        """Each of the n ranks' results of a run that must succeed; ARGS
        may name the run's directory as {OUT}."""
        p, out = self.run_job(topo, mode, *args)
        self.assertEqual(p.returncode, 0, (p.stdout + p.stderr)[-3000:])
        self.out = out
        return [torch.load(os.path.join(out, "rank%d.pt" % r))
                for r in range(n)]

    def rina_bound(self, n):
        return (W.STEPS * W.LR * (n * self.gmax * 2 ** -31 +
                                  self.gmax * 2 ** -24) +
                FLOAT_NOISE * self.pmax)

    def check_run(self, R, bound):
        """Parameters bitwise identical on every rank, within bound of
        single-process training; the mean loss of each step its loss."""
        n = len(R)
        for r in range(1, n):
            for a, b in zip(R[0]["params"], R[r]["params"]):
                self.assertTrue(torch.equal(a, b), "rank %d differs" % r)
        dp = max((a - b).abs().max().item()
                 for a, b in zip(R[0]["params"], self.ref_params))
        print("# %d ranks: max |param - single-process| %.3g (bound %.3g)"
              % (n, dp, bound))
        self.assertLessEqual(dp, bound)
        for s in range(W.STEPS):
            loss = sum(R[r]["losses"][s] for r in range(n)) / n
            self.assertAlmostEqual(loss, self.ref_losses[s],
                                   delta=abs(self.ref_losses[s]) *
                                   FLOAT_NOISE)

    def check_killed(self, p, out, alive, needle):
        """A run whose last rank was killed: ranks 0..alive-1 raised an
        error holding needle, naming a timeout or an abort, within twice
        the job's timeout; the killed rank wrote no result."""
        self.assertNotEqual(p.returncode, 0)
        for r in range(alive):
            path = os.path.join(out, "rank%d.exc.json" % r)
            self.assertTrue(os.path.exists(path),
                            "rank %d raised nothing\n%s" % (r, p.stderr))
            with open(path) as f:
                exc = json.load(f)
            print("# rank %d: %s after %.2f s: %s" % (
                r, exc["type"], exc["seconds"],
                exc["msg"].splitlines()[0][:150]))
            self.assertIn(needle, exc["msg"])
            self.assertTrue("timed out" in exc["msg"] or
                            "aborted" in exc["msg"], exc["msg"])
            # within the timeout (and the abort that follows it)
            self.assertLess(exc["seconds"], 2 * TIMEOUT_MS / 1000)
        self.assertFalse(os.path.exists(os.path.join(out, "rank%d.pt"
                                                     % alive)))
