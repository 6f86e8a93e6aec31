# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The bare dist.all_reduce sweep of BENCH_DDP=1 make bench
(python/bench/allreduce_bench.py) and its summary
(scripts/bench_allreduce_plot.py): under rina-run, both backends take
turns at every size, every call exact, one row per size and backend
with the turn-by-turn ratio; with every rack INA the rows say the
ToR aggregated; the summary judges issue 46's targets from the rows
(met and MISSED both) and writes the PNG."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ddp_harness as H  # noqa: E402

BENCH = os.path.join(H.TOP, "python", "bench", "allreduce_bench.py")
PLOT = os.path.join(H.TOP, "scripts", "bench_allreduce_plot.py")


def rows_of(stdout):
    """rank 0's JSON rows in rina-run's output"""
    return [json.loads(l.split("] ", 1)[1]) for l in stdout.splitlines()
            if l.startswith("[rank 0] {")]


@unittest.skipIf(H.why_skip(True), H.why_skip(True) or "")
class Sweep(unittest.TestCase):
    def sweep(self, topo, *args):
        cmd = [H.RINA_RUN, "--topo", topo.split("-")[0], "--timeout", "120",
               *args,
               "--", sys.executable, BENCH, "-b", "4K", "-e", "16K",
               "-n", "2", "--json", "--tag", "topo=" + topo]
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=170)
        self.assertEqual(p.returncode, 0, (p.stdout + p.stderr)[-3000:])
        rows = rows_of(p.stdout)
        got = sorted((r["size"], r["backend"]) for r in rows)
        self.assertEqual(got, [(s, b) for s in (4096, 8192, 16384)
                               for b in ("gloo", "rina")])
        for r in rows:
            self.assertEqual(r["wrong"], 0, r)
            self.assertEqual(r["calls"], 2)
            self.assertEqual(r["topo"], topo)
            self.assertLessEqual(r["time_min_ms"], r["time_med_ms"])
            self.assertLessEqual(r["time_med_ms"], r["time_max_ms"])
            if r["backend"] == "rina":
                self.assertLessEqual(r["vs_gloo_min"], r["vs_gloo_med"])
                self.assertLessEqual(r["vs_gloo_med"], r["vs_gloo_max"])
                self.assertGreater(r["vs_gloo_min"], 0)
        return rows

    def test_plain_1x3(self):
        rows = self.sweep("1x3")
        self.assertEqual({r["n_ranks"] for r in rows}, {3})
        self.assertEqual({r["agent_tor"] for r in rows}, {0})

    def test_ina_tor_2x2(self):
        rows = self.sweep("2x2-ina", "--ina", "all", "--tor", "on")
        # rank 0, rack 0's agent: its ToR took the job (RINA_TOR_ON)
        self.assertEqual({r["agent_tor"] for r in rows}, {2})


def row(topo, backend, size, med, ratio=None):
    r = {"topo": topo, "rate": "25mbit", "backend": backend,
         "size": size, "n_ranks": 8, "time_med_ms": med,
         "time_min_ms": med * 0.9, "time_max_ms": med * 1.1, "wrong": 0,
         "agent_tor": 2 if topo.endswith("-ina") else 0}
    if ratio is not None:
        r.update(vs_gloo_med=ratio, vs_gloo_min=ratio - 0.1,
                 vs_gloo_max=ratio + 0.1)
    return r


class Summary(unittest.TestCase):
    def test_targets_and_plot(self):
        """The verdicts come from the largest size's ratio: all-INA 1.6
        meets 1.5, plain 0.9 misses 1.0 (its 2.0 at a smaller size does
        not count)."""
        rows = [row("2x4", "gloo", 1 << 20, 100),
                row("2x4", "rina", 1 << 20, 50, 2.0),
                row("2x4", "gloo", 4 << 20, 400),
                row("2x4", "rina", 4 << 20, 444, 0.9),
                row("2x4-ina", "gloo", 4 << 20, 400),
                row("2x4-ina", "rina", 4 << 20, 250, 1.6)]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rows.jsonl")
            with open(path, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
            p = subprocess.run([sys.executable, PLOT, path, d],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            out = p.stdout
            self.assertRegex(out, r"\| 2x4 \| 25mbit \| 4096 KiB \| 0\.90 "
                             r"\[0\.80\.\.1\.00\] \| - \| >= 1\.0: MISSED \|")
            self.assertRegex(out, r"\| 2x4-ina \| 25mbit \| 4096 KiB \| "
                             r"1\.60 \[1\.50\.\.1\.70\] \| yes \| >= 1\.5: "
                             r"met \|")
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                return
            png = os.path.join(d, "allreduce_sweep.png")
            self.assertGreater(os.path.getsize(png), 1000)

    def test_no_rows(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
            p = subprocess.run([sys.executable, PLOT, f.name, "/tmp"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no rows", p.stderr)


if __name__ == "__main__":
    unittest.main()
