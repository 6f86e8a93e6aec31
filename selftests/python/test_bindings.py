# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""python/rina over librina's in-process transport (every rank a thread):
library discovery, allreduce on numpy arrays, torch tensors and buffers
(contiguous or not, every dtype), asynchronous requests, stats, errors,
from_env, and the DDP hook's Future."""
import array
import itertools
import os
import subprocess
import sys
import threading
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PYDIR)
import rina  # noqa: E402

try:
    import torch
except ImportError:		# python3-torch absent: its cases skip
    torch = None

_net = itertools.count(1)


def job_text(n, timeout_ms=3000, ina=False):
    net = next(_net)
    lines = ["job 21", "elements 64", "window 8",
             "timeout_ms %d" % timeout_ms, "rto_us 1000",
             "rack 0 %s" % ("ina" if ina else "plain"),
             "rack 1 %s" % ("ina" if ina else "plain")]
    for r in range(n):
        a = 8192 + net * 16 + r + 1
        lines.append("rank %d 198.%d.%d.%d:21056 rack %d" % (
            r, 18 + a // 65536, a // 256 % 256, a % 256, r * 2 // n))
    return "\n".join(lines) + "\n"


def run_ranks(n, fn, timeout_ms=3000, ina=False):
    """fn(comm) on n ranks at once; their return values (or exceptions)."""
    job = job_text(n, timeout_ms, ina)
    out = [None] * n

    def main(r):
        try:
            with rina.Communicator(job, r, "inproc") as comm:
                out[r] = fn(comm)
        except Exception as e:
            out[r] = e
    th = [threading.Thread(target=main, args=(r,)) for r in range(n)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    return out


def values(rank, n, dtype=np.float32):
    j = np.arange(n)
    return (((j * 2654435761 + rank * 977) % 61) - 30).astype(dtype)


class Library(unittest.TestCase):
    def test_found_without_naming_it(self):
        self.assertTrue(os.path.exists(rina.library_path()),
                        rina.library_path())

    def test_override(self):
        env = dict(os.environ, RINA_LIBRARY="/nonexistent/librina.so.1",
                   PYTHONPATH=PYDIR)
        p = subprocess.run([sys.executable, "-c", "import rina"], env=env,
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("/nonexistent/librina.so.1", p.stderr)


class Allreduce(unittest.TestCase):
    def test_numpy_sum_avg_every_dtype(self):
        def fn(comm):
            res = {}
            for dt in (np.float32, np.int32, np.float16, np.float64):
                a = values(comm.rank, 1000, dt)
                self.assertIs(comm.allreduce(a), a)
                b = values(comm.rank, 1000, dt) * 4
                comm.allreduce(b, op="avg")
                res[np.dtype(dt).name] = (a, b)
            return res
        out = run_ranks(4, fn)
        for name in ("float32", "int32", "float16", "float64"):
            ref = sum(values(r, 1000, np.float64) for r in range(4))
            for r in range(4):
                self.assertNotIsInstance(out[r], Exception, out[r])
                a, b = out[r][name]
                # integer sums: exact in every dtype (fixed point, then
                # rounding to the nearest representable value)
                np.testing.assert_array_equal(a.astype(np.float64), ref)
                np.testing.assert_array_equal(b.astype(np.float64), ref)
                self.assertEqual(a.tobytes(), out[0][name][0].tobytes())

    @unittest.skipIf(torch is None, "python3-torch not installed")
    def test_torch_dtypes_and_noncontiguous(self):
        def fn(comm):
            res = []
            for dt in (torch.float32, torch.bfloat16, torch.float16,
                       torch.int32, torch.float64):
                base = torch.from_numpy(values(comm.rank, 600, np.float64))
                t = base.to(dt).reshape(20, 30).t()	# non-contiguous
                self.assertFalse(t.is_contiguous())
                comm.allreduce(t)
                res.append(t)
            return res
        out = run_ranks(3, fn)
        ref = sum(torch.from_numpy(values(r, 600, np.float64))
                  for r in range(3)).reshape(20, 30).t()
        for r in range(3):
            self.assertNotIsInstance(out[r], Exception, out[r])
            for t, t0 in zip(out[r], out[0]):
                self.assertTrue(torch.equal(t.double(), ref), t.dtype)
                self.assertTrue(torch.equal(t, t0))

    def test_buffers(self):
        def fn(comm):
            a = array.array("f", values(comm.rank, 100).tolist())
            comm.allreduce(a)
            raw = bytearray(values(comm.rank, 100, np.int32).tobytes())
            comm.allreduce(raw, dtype=rina.DType.INT32)
            return a, raw
        out = run_ranks(2, fn)
        ref = values(0, 100) + values(1, 100)
        for a, raw in out:
            np.testing.assert_array_equal(np.array(a, dtype=np.float32),
                                          ref)
            np.testing.assert_array_equal(
                np.frombuffer(raw, dtype=np.int32), ref)

    def test_bad_arguments(self):
        def fn(comm):
            errs = []
            for bad in (np.zeros(4, dtype=np.int8), b"read-only",
                        np.zeros(4, dtype=np.float32)[::-1].copy()
                        .setflags(write=False)):
                try:
                    comm.allreduce(bad)
                except (TypeError, ValueError, AttributeError) as e:
                    errs.append(e)
            try:
                comm.allreduce(np.zeros(4, np.float32), op="median")
            except ValueError as e:
                errs.append(e)
            return len(errs)
        self.assertEqual(run_ranks(1, fn), [4])


class Async(unittest.TestCase):
    def test_many_in_flight_waited_out_of_order(self):
        def fn(comm):
            arrs = [values(comm.rank, 100 + 37 * k) for k in range(12)]
            called = []
            reqs = [comm.allreduce_async(a, op="sum",
                                         callback=called.append)
                    for a in arrs]
            for q in reversed(reqs):
                self.assertIs(q.wait(), q.result)
            self.assertTrue(all(q.is_completed() for q in reqs))
            return arrs, len(called), comm.stats()
        out = run_ranks(4, fn)
        for arrs, ncalled, st in out:
            self.assertEqual(ncalled, 12)
            self.assertEqual(st["calls"], 12)	# user calls, not passes
            self.assertGreater(st["tx_packets"], 0)
            for k, a in enumerate(arrs):
                ref = sum(values(r, 100 + 37 * k) for r in range(4))
                np.testing.assert_array_equal(a, ref)


    def test_rack_agent(self):
        def fn(comm):
            comm.allreduce(values(comm.rank, 100))
            return comm.role, comm.stats()["rack_agent"]
        # two INA racks of two: ranks 0 and 2 run their rack's agent
        self.assertEqual(run_ranks(4, fn, ina=True), [
            (rina.Role.INA_AGENT, rina.RackAgent.LIBRINA),
            (rina.Role.INA_WORKER, rina.RackAgent.UNKNOWN),
            (rina.Role.INA_AGENT, rina.RackAgent.LIBRINA),
            (rina.Role.INA_WORKER, rina.RackAgent.UNKNOWN)])
        self.assertEqual([r for _, r in run_ranks(2, fn)],
                         [rina.RackAgent.UNKNOWN] * 2)

    def test_eventfd_counts_completions(self):
        def fn(comm):
            fd = comm.eventfd()
            reqs = [comm.allreduce_async(values(comm.rank, 50))
                    for _ in range(5)]
            for q in reqs:
                q.wait()
            n = int.from_bytes(os.read(fd, 8), sys.byteorder)
            return n
        self.assertEqual(run_ranks(2, fn), [5, 5])


class Errors(unittest.TestCase):
    def test_bad_job(self):
        with self.assertRaises(rina.RinaError) as cm:
            rina.Communicator("job 1\nbogus line\n", 0, "inproc")
        e = cm.exception
        self.assertEqual(e.code, rina.Result.ERR_JOBFILE)
        self.assertEqual(e.strerror, "bad job description")
        self.assertTrue(e.detail)

    def test_dead_rank_fails_every_pending_request(self):
        job = job_text(3, timeout_ms=1000)
        res = {}

        def live(r):
            comm = rina.Communicator(job, r, "inproc")
            reqs = [comm.allreduce_async(values(r, 500)) for _ in range(5)]
            errs = []
            for q in reqs:
                try:
                    q.wait(timeout=30)
                except rina.RinaError as e:
                    errs.append(e)
            res[r] = errs
            comm.close()
        dead = []

        def vanish():		# joins the ring, then is gone
            dead.append(rina.Communicator(job, 2, "inproc"))
        th = [threading.Thread(target=live, args=(r,)) for r in (0, 1)]
        th.append(threading.Thread(target=vanish))
        for t in th:
            t.start()
        for t in th:
            t.join()
        for r in (0, 1):
            self.assertEqual(len(res[r]), 5)
            codes = {e.code for e in res[r]}
            self.assertEqual(len(codes), 1, codes)
            self.assertIn(codes.pop(), (rina.Result.ERR_TIMEOUT,
                                        rina.Result.ERR_ABORTED))
        # never destroyed, like a killed process's
        dead[0]._finalizer.detach()

    def test_from_env(self):
        job = job_text(1)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                            "rina-test-%d.job" % os.getpid())
        with open(path, "w") as f:
            f.write(job)
        old = dict(os.environ)
        try:
            os.environ.pop("RINA_RANK", None)
            os.environ.update(RINA_JOB=path, RANK="0", WORLD_SIZE="1",
                              RINA_TRANSPORT="inproc")
            with rina.Communicator.from_env() as comm:
                self.assertEqual((comm.rank, comm.size), (0, 1))
            os.environ["WORLD_SIZE"] = "2"
            with self.assertRaises(rina.RinaError) as cm:
                rina.Communicator.from_env()
            self.assertEqual(cm.exception.code, rina.Result.ERR_MISMATCH)
            os.environ.pop("RINA_JOB")
            with self.assertRaises(rina.RinaError):
                rina.Communicator.from_env()
        finally:
            os.environ.clear()
            os.environ.update(old)
            os.unlink(path)


@unittest.skipIf(torch is None, "python3-torch not installed")
class Hook(unittest.TestCase):
    def test_allreduce_hook_future(self):
        import rina.torch

        class Bucket:		# what DDP hands a comm hook
            def __init__(self, t):
                self.t = t

            def buffer(self):
                return self.t

        def fn(comm):
            t = torch.from_numpy(values(comm.rank, 300)) * 2
            fut = rina.torch.allreduce_hook(comm, Bucket(t))
            self.assertIsInstance(fut, torch._C.Future)	# DDP's type
            return fut.wait(), t
        out = run_ranks(2, fn)
        ref = torch.from_numpy(values(0, 300) + values(1, 300))
        for got, t in out:
            self.assertIs(got, t)
            self.assertTrue(torch.equal(got, ref))	# averaged: 2x / 2

    def test_hook_error_raises(self):
        import rina.torch

        def fn(comm):
            t = torch.zeros(10)
            t[3] = float("nan")
            try:
                rina.torch.allreduce(comm, t).wait()
            except RuntimeError as e:
                return str(e)
        out = run_ranks(2, fn)
        for msg in out:
            self.assertIn("NaN or infinity", msg)


if __name__ == "__main__":
    unittest.main()
