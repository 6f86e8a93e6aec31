# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The torch.distributed backend "rina" (python/csrc/rina_c10d.cpp,
python/rina/torch.py) over librina's in-process transport, every rank a
thread with its own ProcessGroupRina (no root, no network):

- every collective against a reference computed here, on 1..8 ranks,
  counts below the rank count and not divisible by it, every dtype,
  contiguous and not, blocking and asynchronous (several calls in
  flight, their Futures): exact where the backend says so, within
  Documentation/protocol.md section 7's bound otherwise, and bitwise
  identical on every rank;
- bad input: sizes, dtypes or broadcast roots that differ between
  ranks, a rank that never joins, unsupported ops and reductions, a
  tensor on another device: a clear error on every rank within the
  job's timeout, and the process group still destroyable;
- the Store rendezvous (rina.torch._create over a HashStore): the job
  text every rank builds, ranks that disagree on the job or never
  join: an error on every rank, never a hang;
- the process group's timeout (init_process_group(timeout=)) is every
  collective's: ranks 12 s late (past librina's 10 s default) with a
  60 s timeout are waited for; with a 3 s one every rank fails with a
  clear error, the late ones as soon as they call; RINA_TIMEOUT_MS
  wins;
- librina's blocking rina_broadcast, rina_allgather, rina_reduce_scatter
  and rina_barrier (ctypes; the backend uses the rina_i... forms); its
  allgather and reduce-scatter on plain rings of 2..6 ranks (the ring's
  phases alone) byte-exact at odd sizes and at about half the bytes an
  allreduce of the whole buffer sends, and exact on INA rings; its
  broadcast on a plain ring a chain from the root, byte-exact, under
  3/4 of an allreduce's bytes a rank."""
import datetime
import os
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..",
                                                 "python")))

try:
    import torch
    import torch.distributed as dist
    import rina.torch as rt
    EXT = rt._extension()
    WHY = None
except ImportError as e:
    torch = EXT = None
    WHY = "python3-torch not installed (%s)" % e
except RuntimeError as e:		# the extension is not built
    EXT = None
    WHY = str(e)

from test_bindings import job_text  # noqa: E402

TIMEOUT_MS = 1500
RO = None if torch is None else dist.ReduceOp
DTYPES = [] if torch is None else [torch.float32, torch.bfloat16,
                                   torch.float16, torch.float64,
                                   torch.int32, torch.int64]
COUNTS = (1, 3, 7, 1037)	# below the rank count, odd, not divisible


def comm_ranks(job, n, fn, join_s=60):
    """fn(comm, r) on rank r's inproc rina.Communicator of job, every rank
    in a thread; their return values (or exceptions). A rank still
    running after join_s fails the test."""
    import rina
    out = [None] * n

    def main(r):
        try:
            with rina.Communicator(job, r, "inproc") as comm:
                out[r] = fn(comm, r)
        except Exception as e:
            out[r] = e
    th = [threading.Thread(target=main, args=(r,)) for r in range(n)]
    for t in th:
        t.start()
    for t in th:
        t.join(join_s)
        assert not t.is_alive(), "a rank hangs"
    return out


def run_pgs(n, fn, timeout_ms=3000, ranks=None, ring_of=None):
    """fn(pg, rank) on a ProcessGroupRina per rank, each in a thread; their
    return values (or exceptions). ring_of: each torch rank's rank in the
    job (the job's ranks in another order), None for the same."""
    job = job_text(n, timeout_ms)
    out = [None] * n

    def main(r):
        pg = None
        try:
            pg = EXT.ProcessGroupRina(r, n, job, "inproc", 0,
                                      ring_of or [])
            out[r] = fn(pg, r)
        except Exception as e:
            out[r] = e
        finally:
            if pg is not None:
                pg.shutdown()
    th = [threading.Thread(target=main, args=(r,))
          for r in (range(n) if ranks is None else ranks)]
    for t in th:
        t.start()
    for t in th:
        t.join(60)
        assert not t.is_alive(), "a rank hangs"
    return out


def data(r, count, dtype, small=False):
    """Rank r's input: small integers where products must stay exact."""
    g = torch.Generator().manual_seed(1000 * r + count)
    if dtype.is_floating_point:
        if small:
            x = torch.randint(1, 4, (count,), generator=g).double() * \
                torch.tensor([1.0, -1.0]).repeat(count)[:count].double()
            return x.to(dtype)
        return (torch.randn(count, generator=g, dtype=torch.float64) *
                (r + 1)).to(dtype)
    if small:
        return torch.randint(-3, 4, (count,), generator=g).to(dtype)
    return torch.randint(-100000, 100000, (count,), generator=g).to(dtype)


def opts(op):
    o = dist.AllreduceOptions()
    o.reduceOp = op
    return o


def seq_reduce(xs, op):
    """What the backend's exact paths give: a reduction in rank order."""
    acc = xs[0].clone()
    for x in xs[1:]:
        if op in (RO.SUM, RO.AVG):
            acc = acc + x
        elif op == RO.PRODUCT:
            acc = acc * x
        elif op == RO.MAX:
            acc = torch.maximum(acc, x)
        elif op == RO.MIN:
            acc = torch.minimum(acc, x)
        elif op == RO.BAND:
            acc = acc & x
        elif op == RO.BOR:
            acc = acc | x
        elif op == RO.BXOR:
            acc = acc ^ x
    if op == RO.AVG:
        acc = acc / len(xs)
    return acc


def exact(dtype, op):
    """Whether the backend promises the exact, rank-order result."""
    return not (op in (RO.SUM, RO.AVG) and dtype in
                (torch.float32, torch.bfloat16, torch.float16))


def bound(xs, ref, dtype, op):
    """Documentation/protocol.md section 7, per element (AVG: / N)."""
    n = len(xs)
    m = max(x.double().abs().max().item() for x in xs)
    b32 = n * n * 2 * m / (2 * (2 ** 31 - 1))
    p = {torch.float32: 24, torch.bfloat16: 8, torch.float16: 11}[dtype]
    b = (b32 / n if op == RO.AVG else b32) + ref.abs() * 2.0 ** -p
    if dtype == torch.float16:
        b = b + 2.0 ** -25
    return b * 1.0001 + 1e-300


def allreduce_cases():
    """(dtype, op, small inputs) of every allreduce the backend takes."""
    cases = []
    for dt in DTYPES:
        ops = [RO.SUM, RO.MAX, RO.MIN, RO.PRODUCT]
        if dt.is_floating_point:
            ops.append(RO.AVG)
        else:
            ops += [RO.BAND, RO.BOR, RO.BXOR]
        cases += [(dt, op, op == RO.PRODUCT) for op in ops]
    return cases


@unittest.skipIf(WHY, WHY or "")
class Collectives(unittest.TestCase):
    """Each collective against its reference on 1..8 ranks."""

    def check_same(self, outs, what):
        for r, o in enumerate(outs[1:], 1):
            for a, b in zip(outs[0], o):
                self.assertTrue(torch.equal(a, b),
                                "%s: rank %d differs from rank 0" % (what, r))

    def check_allreduce(self, n, asynchronous, ring_of=None):
        cases = [(dt, op, small, c) for dt, op, small in allreduce_cases()
                 for c in COUNTS]

        def body(pg, r):
            ts, works = [], []
            for dt, op, small, c in cases:
                x = data(r, c, dt, small)
                if c % 2:	# not contiguous: every other element
                    t = torch.stack([x, torch.zeros_like(x)], 1)[:, 0]
                else:
                    t = x.clone()
                w = pg.allreduce([t], opts(op))
                if not asynchronous:
                    w.wait()
                ts.append(t)
                works.append(w)
            for w, t in zip(works, ts):
                fut = w.get_future().wait()
                assert fut[0] is t or torch.equal(fut[0], t)
            return [t.clone() for t in ts]

        outs = run_pgs(n, body, ring_of=ring_of)
        for o in outs:
            if isinstance(o, Exception):
                raise o
        self.check_same(outs, "allreduce on %d ranks" % n)
        for i, (dt, op, small, c) in enumerate(cases):
            xs = [data(r, c, dt, small) for r in range(n)]
            got = outs[0][i]
            what = "%s %s count %d on %d ranks" % (dt, op, c, n)
            if exact(dt, op):
                ref = seq_reduce(xs, op)
                self.assertTrue(torch.equal(got, ref.to(dt)), what)
            else:
                ref = seq_reduce([x.double() for x in xs], RO.SUM)
                if op == RO.AVG:
                    ref = ref / n
                err = (got.double() - ref).abs()
                self.assertTrue(bool((err <= bound(xs, ref, dt, op)).all()),
                                "%s: error %g" % (what, err.max().item()))

    def test_allreduce_sync(self):
        for n in range(1, 9):
            self.check_allreduce(n, False)

    def test_allreduce_async(self):
        for n in (2, 3, 5, 8):
            self.check_allreduce(n, True)

    def check_moves(self, n, asynchronous, ring_of=None):
        """broadcast, allgather, _allgather_base, reduce_scatter,
        _reduce_scatter_base, barrier; ring_of as run_pgs takes it."""
        dts = DTYPES + [torch.uint8, torch.bool]

        def body(pg, r):
            res, works = [], []

            def go(w, out):
                if not asynchronous:
                    w.wait()
                works.append(w)
                res.append(out)
            for dt in dts:
                for c in COUNTS:
                    x = data(r, c, torch.int64).to(dt)
                    root = (c + 1) % n
                    b = torch.stack([x, x], 1)[:, 1]	# not contiguous
                    o = dist.BroadcastOptions()
                    o.rootRank = root
                    go(pg.broadcast([b], o), [b])
                    outs = [torch.empty(c, dtype=dt) for _ in range(n)]
                    go(pg.allgather([outs], [x]), outs)
                    flat = torch.empty(n * c, dtype=dt)
                    go(pg._allgather_base(flat, x), [flat])
            go(pg.barrier(dist.BarrierOptions()), [])
            for dt in DTYPES:
                for op in (RO.SUM, RO.MIN):
                    for c in COUNTS[:3]:
                        ins = [data(r, c, dt) for _ in range(n)]
                        ins = [i * (j + 1) if dt.is_floating_point else i + j
                               for j, i in enumerate(ins)]
                        out = torch.empty(c, dtype=dt)
                        o = dist.ReduceScatterOptions()
                        o.reduceOp = op
                        go(pg.reduce_scatter([out], [ins], o), [out])
                        out2 = torch.empty(c, dtype=dt)
                        go(pg._reduce_scatter_base(out2, torch.cat(ins), o),
                           [out2])
            for w in works:
                w.wait()
            return [[t.clone() for t in ts] for ts in res]

        outs = run_pgs(n, body, ring_of=ring_of)
        for o in outs:
            if isinstance(o, Exception):
                raise o
        moved = 3 * len(dts) * len(COUNTS)	# the same on every rank
        for r in range(1, n):
            for a, b in zip(outs[0][:moved], outs[r][:moved]):
                for x, y in zip(a, b):
                    self.assertTrue(torch.equal(x, y), "rank %d differs" % r)
        i = 0
        for dt in dts:
            for c in COUNTS:
                xs = [data(r, c, torch.int64).to(dt) for r in range(n)]
                what = "%s count %d on %d ranks" % (dt, c, n)
                self.assertTrue(torch.equal(outs[0][i][0], xs[(c + 1) % n]),
                                "broadcast " + what)
                for r in range(n):
                    self.assertTrue(torch.equal(outs[0][i + 1][r], xs[r]),
                                    "allgather " + what)
                self.assertTrue(torch.equal(outs[0][i + 2][0],
                                            torch.cat(xs)),
                                "_allgather_base " + what)
                i += 3
        i += 1		# the barrier
        for dt in DTYPES:
            for op in (RO.SUM, RO.MIN):
                for c in COUNTS[:3]:
                    for r in range(n):
                        ins = [[data(q, c, dt) * (j + 1)
                                if dt.is_floating_point
                                else data(q, c, dt) + j
                                for j in range(n)] for q in range(n)]
                        xs = [ins[q][r] for q in range(n)]
                        ex = exact(dt, op)
                        for k in (0, 1):
                            got = outs[r][i + k][0]
                            what = "reduce_scatter %s %s count %d rank %d/%d" \
                                % (dt, op, c, r, n)
                            if ex:
                                self.assertTrue(torch.equal(
                                    got, seq_reduce(xs, op).to(dt)), what)
                            else:
                                ref = seq_reduce([x.double() for x in xs],
                                                 RO.SUM)
                                err = (got.double() - ref).abs()
                                # one packet holds every segment: its
                                # exponent is the whole input's
                                whole = [torch.cat(i) for i in ins]
                                self.assertTrue(bool(
                                    (err <= bound(whole, ref, dt, op)).all()),
                                    "%s: error %g" % (what, err.max()))
                    i += 2

    def test_moves_sync(self):
        for n in range(1, 9):
            self.check_moves(n, False)

    def test_moves_async(self):
        for n in (3, 8):
            self.check_moves(n, True)

    def test_moves_ranks_permuted(self):
        """torch's ranks are not the job's (a job file a ToR knows):
        roots, blocks and results are still torch's ranks', reductions
        of gathered tensors still in torch's rank order."""
        self.check_allreduce(4, False, [2, 3, 0, 1])
        self.check_moves(4, False, [2, 3, 0, 1])
        self.check_moves(5, True, [4, 0, 3, 1, 2])

    def test_not_a_permutation(self):
        for bad in ([0, 0, 1], [0, 1], [0, 1, 3]):
            with self.assertRaisesRegex(RuntimeError,
                                        "ring_of (is not a permutation|"
                                        "maps 2 ranks)"):
                EXT.ProcessGroupRina(0, 3, job_text(3), "inproc", 0, bad)


# what every rank's error says when ranks call differently: the rank that
# saw it, and the others through its abort (in their call, or in their
# communicator's init when they were still starting)
DISAGREE = "ranks disagree on the job or the call"


def all_fail(test, outs, needle, seconds=None):
    test.assertTrue(outs)
    for r, o in enumerate(outs):
        test.assertIsInstance(o, Exception, "rank %d did not fail" % r)
        test.assertIn("rina backend", str(o), "rank %d: %s" % (r, o))
        test.assertIn(needle, str(o), "rank %d: %s" % (r, o))
        print("# rank %d: %s" % (r, str(o).splitlines()[0][:160]))


@unittest.skipIf(WHY, WHY or "")
class BadInput(unittest.TestCase):
    def timed(self, n, fn, ranks=None):
        t0 = time.monotonic()
        outs = run_pgs(n, fn, TIMEOUT_MS, ranks)
        dt = time.monotonic() - t0
        print("# %.2f s" % dt)
        # the timeout, the abort that follows, shutdown (the job's)
        self.assertLess(dt, 3 * TIMEOUT_MS / 1000 + 2)
        return [outs[r] for r in (range(n) if ranks is None else ranks)]

    def test_sizes_differ(self):
        def body(pg, r):
            pg.allreduce([torch.ones(5 + (r == 1))],
                         dist.AllreduceOptions()).wait()
        all_fail(self, self.timed(3, body), DISAGREE)

    def test_dtypes_differ(self):
        def body(pg, r):
            t = torch.ones(8, dtype=torch.int32 if r == 2 else torch.float32)
            pg.allreduce([t], dist.AllreduceOptions()).wait()
        all_fail(self, self.timed(3, body), DISAGREE)

    def test_roots_differ(self):
        def body(pg, r):
            o = dist.BroadcastOptions()
            o.rootRank = r % 2
            pg.broadcast([torch.ones(4)], o).wait()
        all_fail(self, self.timed(3, body), "named root")

    def test_allgather_sizes_differ(self):
        def body(pg, r):
            c = 3 + r
            out = torch.empty(3 * c)
            pg._allgather_base(out, torch.ones(c)).wait()
        all_fail(self, self.timed(3, body), DISAGREE)

    def test_rank_never_joins(self):
        def body(pg, r):
            pg.allreduce([torch.ones(4)], dist.AllreduceOptions()).wait()
        outs = self.timed(3, body, ranks=(0, 1))
        # the communicator's init waits for the ring neighbours
        all_fail(self, outs, "rina_comm_init")
        for o in outs:
            self.assertTrue("timed out" in str(o) or
                            "did not answer" in str(o), str(o))

    def test_after_failure_broken_and_destroyable(self):
        def body(pg, r):
            try:
                pg.allreduce([torch.ones(5 + r)],
                             dist.AllreduceOptions()).wait()
            except RuntimeError:
                pass
            try:
                pg.barrier(dist.BarrierOptions()).wait()
            except RuntimeError as e:
                t0 = time.monotonic()
                pg.shutdown()
                pg.shutdown()		# twice: harmless
                assert time.monotonic() - t0 < 2 * TIMEOUT_MS / 1000
                return RuntimeError("then: " + str(e))
        all_fail(self, self.timed(2, body), "then: rina backend:")

    def test_unsupported(self):
        def body(pg, r):
            t = torch.ones(4)
            errs = []
            calls = {
                "reduce": lambda: pg.reduce([t], dist.ReduceOptions()),
                "gather": lambda: pg.gather([[t]], [t],
                                            dist.GatherOptions()),
                "scatter": lambda: pg.scatter([t], [[t]],
                                              dist.ScatterOptions()),
                "alltoall": lambda: pg.alltoall([t], [t],
                                                dist.AllToAllOptions()),
                "send": lambda: pg.send([t], 0, 0),
                "recv": lambda: pg.recv([t], 0, 0),
                "allreduce_coalesced": lambda: pg.allreduce_coalesced(
                    [t], dist.AllreduceCoalescedOptions()),
            }
            for name, f in calls.items():
                try:
                    f()
                    errs.append("%s: no error" % name)
                except RuntimeError as e:
                    if "%s is not supported by the rina backend" % name \
                            not in str(e):
                        errs.append("%s: %s" % (name, e))
            for dt, op, why in ((torch.int32, RO.AVG, "AVG of Int"),
                                (torch.float32, RO.BAND, "BAND of floating"),
                                (torch.complex64, RO.SUM, "ComplexFloat")):
                try:
                    pg.allreduce([torch.ones(3, dtype=dt)], opts(op))
                    errs.append("%s %s: no error" % (dt, op))
                except RuntimeError as e:
                    if why not in str(e):
                        errs.append(str(e))
            # the group still works
            x = torch.ones(3)
            pg.allreduce([x], dist.AllreduceOptions()).wait()
            if not torch.equal(x, torch.full((3,), 2.0)):
                errs.append("allreduce after the errors: %s" % x)
            return errs
        for r, o in enumerate(run_pgs(2, body)):
            self.assertEqual(o, [], "rank %d" % r)

    def test_other_device(self):
        """CUDA is not built into Debian's torch: a "meta" tensor takes the
        same check, which names the device."""
        def body(pg, r):
            with torch.inference_mode():	# no autograd key: to the PG
                return check(pg)

        def check(pg):
            t = torch.empty(4, device="meta")
            for f in (lambda: pg.allreduce([t], dist.AllreduceOptions()),
                      lambda: pg.broadcast([t], dist.BroadcastOptions()),
                      lambda: pg._allgather_base(torch.empty(8), t)):
                try:
                    f()
                    return "no error"
                except RuntimeError as e:
                    if "tensor on meta" not in str(e) or "CPU" not in str(e):
                        return str(e)
            return None
        for r, o in enumerate(run_pgs(2, body)):
            self.assertIsNone(o, "rank %d" % r)


def sum_of_ranks(pg, r):
    x = torch.full((3,), float(r + 1))
    pg.allreduce([x], dist.AllreduceOptions()).wait()
    return x


def create_all(n, envs, ranks=None, timeout=5, body=sum_of_ranks):
    """rina.torch._create on n ranks through one HashStore (what
    init_process_group does), each with its own environment; body(pg,
    rank)'s values (by default an allreduce of rank + 1)."""
    store = dist.HashStore()
    out = [None] * n

    def main(r):
        try:
            pg = rt._create(store, r, n, datetime.timedelta(seconds=timeout),
                            env=envs[r])
            out[r] = body(pg, r)
            pg.shutdown()
        except Exception as e:
            out[r] = e
    th = [threading.Thread(target=main, args=(r,))
          for r in (range(n) if ranks is None else ranks)]
    for t in th:
        t.start()
    for t in th:
        t.join(60)
        assert not t.is_alive(), "a rank hangs"
    return out


def env_for(r, **kw):
    e = {"RINA_TRANSPORT": "inproc", "RINA_ADDR": "198.19.%d.1" % (r // 2),
         "RINA_JOB_OPTS": "elements 64", "RINA_TIMEOUT_MS": "1500"}
    e.update(kw)
    return e


@unittest.skipIf(WHY, WHY or "")
class Rendezvous(unittest.TestCase):
    def test_job_text(self):
        text = rt.build_job_text(
            ["elements 64", "rack 1 ina tor 198.18.1.254"],
            [{"addr": "198.18.0.1", "rack": 0}, {"addr": "198.18.0.1",
                                                 "rack": 0},
             {"addr": "198.18.1.1", "rack": 1}], 7, "/tmp/s")
        self.assertEqual(text, "job 7\nelements 64\n"
                         "rack 1 ina tor 198.18.1.254\nrack 0 plain\n"
                         "rank 0 198.18.0.1:21056 rack 0\n"
                         "rank 1 198.18.0.1:21057 rack 0\n"
                         "rank 2 198.18.1.1:21056 rack 1\n"
                         "secret_file /tmp/s\n")

    def test_store_rendezvous(self):
        n = 4
        envs = [env_for(r, RINA_RACK=str(r // 2),
                        RINA_INA_RACKS="1") for r in range(n)]
        outs = create_all(n, envs)
        for r, o in enumerate(outs):
            if isinstance(o, Exception):
                raise o
            self.assertTrue(torch.equal(o, torch.full((3,), 10.0)))

    def test_settings_disagree(self):
        n = 3
        envs = [env_for(r) for r in range(n)]
        envs[2]["RINA_INA_RACKS"] = "0"
        all_fail(self, create_all(n, envs),
                 "ranks disagree on the job settings")

    def test_racks_disagree(self):
        n = 2			# one address, two racks
        envs = [env_for(0, RINA_RACK=str(r)) for r in range(n)]
        all_fail(self, create_all(n, envs), "share address 198.19.0.1 "
                 "but name racks 0 (RINA_RACK),1 (RINA_RACK)")

    def test_rank_never_joins(self):
        n = 3
        t0 = time.monotonic()
        outs = create_all(n, [env_for(r) for r in range(n)], ranks=(0, 1),
                          timeout=2)
        self.assertLess(time.monotonic() - t0, 10)
        all_fail(self, outs[:2], "rank(s) 2 did not join within")

    def test_job_file_rank_lines(self):
        """RINA_JOB with rank lines that list the world: the job is the
        file's (a ToR that knows it takes it), every torch rank the
        file's rank of its address and port, in whatever order the file
        lists them; collectives still in torch's rank order."""
        n = 4
        lines = ["job 77", "elements 64", "timeout_ms 1500",
                 "rack 0 plain", "rack 1 plain"]
        # torch ranks 0, 1 on 198.19.0.1, 2, 3 on 198.19.1.1 (env_for)
        lines += ["rank 0 198.19.1.1:21056 rack 1",
                  "rank 1 198.19.1.1:21057 rack 1",
                  "rank 2 198.19.0.1:21057 rack 0",
                  "rank 3 198.19.0.1:21056 rack 0"]
        path = os.path.join(self.tmp(), "job")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        envs = [{"RINA_TRANSPORT": "inproc", "RINA_JOB": path,
                 "RINA_ADDR": "198.19.%d.1" % (r // 2)} for r in range(n)]

        def body(pg, r):
            from rina import _lib
            h = pg._rina_handle()
            outs = [torch.empty(2, dtype=torch.int32) for _ in range(n)]
            pg.allgather([outs], [torch.tensor([r, -r],
                                               dtype=torch.int32)]).wait()
            b = torch.tensor([r], dtype=torch.int64)
            o = dist.BroadcastOptions()
            o.rootRank = 1
            pg.broadcast([b], o).wait()
            rs = torch.empty(1, dtype=torch.int32)
            pg._reduce_scatter_base(rs, torch.arange(
                n, dtype=torch.int32) * (r + 1),
                dist.ReduceScatterOptions()).wait()
            return (_lib.rina_comm_rank(h), torch.stack(outs).tolist(),
                    b.item(), rs.item())
        outs = create_all(n, envs, body=body)
        for r, o in enumerate(outs):
            if isinstance(o, Exception):
                raise o
            ring, gathered, b, rs = o
            self.assertEqual(ring, [3, 2, 0, 1][r], "rank %d" % r)
            self.assertEqual(gathered, [[q, -q] for q in range(n)])
            self.assertEqual(b, 1)
            self.assertEqual(rs, r * n * (n + 1) // 2)

    def test_job_file_other_world(self):
        """Rank lines that do not list the world (one rank an address,
        two processes on it): the backend's own rank lines, ports from
        21056 by rank on each address."""
        n = 2
        path = os.path.join(self.tmp(), "job")
        with open(path, "w") as f:
            f.write("job 78\nelements 64\ntimeout_ms 1500\n"
                    "rank 0 198.19.0.1:21056 rack 0\n")
        envs = [{"RINA_TRANSPORT": "inproc", "RINA_JOB": path,
                 "RINA_ADDR": "198.19.0.1"} for r in range(n)]
        for r, o in enumerate(create_all(n, envs)):
            if isinstance(o, Exception):
                raise o
            self.assertTrue(torch.equal(o, torch.full((3,), 3.0)))

    def tmp(self):
        import shutil
        import tempfile
        d = tempfile.mkdtemp(prefix="rina-torch-backend.")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_init_fails_everywhere(self):
        """One rank's communicator cannot start: all ranks say so."""
        n = 3
        envs = [env_for(r) for r in range(n)]
        envs[1]["RINA_TRANSPORT"] = "bogus"
        all_fail(self, create_all(n, envs), "rank 1: rina backend: rank 1")


def rack_env(r, **kw):
    """Two racks of two ranks, rack 1 INA (rank 2 its agent, aggregating
    in software), no timeout_ms line: the job's would be librina's
    default, 10 s."""
    e = {"RINA_TRANSPORT": "inproc", "RINA_ADDR": "198.19.%d.1" % (r // 2),
         "RINA_RACK": str(r // 2), "RINA_INA_RACKS": "1",
         "RINA_JOB_OPTS": "elements 64"}
    e.update(kw)
    return e


LATE = (1, 3)		# a plain rack's member, an INA rack's worker
LATE_S = 12		# past librina's default timeout (10 s)


@unittest.skipIf(WHY, WHY or "")
class Timeout(unittest.TestCase):
    """The process group's timeout (init_process_group(timeout=)) is
    every collective's, as with Gloo, unless RINA_TIMEOUT_MS says."""

    def test_call_timeout_ms(self):
        td = datetime.timedelta
        f = rt.call_timeout_ms
        self.assertEqual(f(td(minutes=30), {}), 1800000)	# torch's default
        self.assertEqual(f(td(seconds=60), {"RINA_TIMEOUT_MS": ""}), 60000)
        self.assertEqual(f(td(microseconds=1500), {}), 2)	# rounded up
        self.assertEqual(f(td(0), {}), 1)		# 0 is "the job's"
        self.assertEqual(f(td(hours=2), {}), 7200000)
        self.assertEqual(f(td(days=100), {}), 0xffffffff)
        self.assertEqual(f(td(seconds=60), {"RINA_TIMEOUT_MS": "2500"}),
                         2500)
        self.assertEqual(f(td(seconds=60), {"RINA_TIMEOUT_MS": "0"}), 0)
        for bad in ("-1", "1e3", " 5", "3600001", "99999999999"):
            with self.assertRaisesRegex(RuntimeError, "RINA_TIMEOUT_MS"):
                f(td(seconds=60), {"RINA_TIMEOUT_MS": bad})

    def test_init_process_group_timeout(self):
        """torch hands init_process_group's timeout to the creator, and
        the process group to librina; RINA_TIMEOUT_MS wins."""
        saved = dict(os.environ)
        try:
            for env, want in (({}, 42000),
                              ({"RINA_TIMEOUT_MS": "2500"}, 2500)):
                os.environ.update(rack_env(0, **env))
                dist.init_process_group(
                    "rina", store=dist.HashStore(), rank=0, world_size=1,
                    timeout=datetime.timedelta(seconds=42))
                try:
                    # no reference kept: destroy_process_group frees it
                    self.assertEqual(dist.distributed_c10d.
                                     _get_default_group()._rina_timeout_ms(),
                                     want)
                    x = torch.ones(3)
                    dist.all_reduce(x)
                    self.assertTrue(torch.equal(x, torch.ones(3)))
                finally:
                    dist.destroy_process_group()
                os.environ.clear()
                os.environ.update(saved)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_init_fails_everywhere(self):
        """One rank's communicator cannot start (and cannot tell the
        others): theirs wait for their neighbours for the whole group
        timeout, and still every rank says why, not "did not join"."""
        n = 3
        envs = [rack_env(r) for r in range(n)]
        envs[1]["RINA_TRANSPORT"] = "bogus"
        t0 = time.monotonic()
        all_fail(self, create_all(n, envs, timeout=2),
                 "rank 1: rina backend: rank 1")
        self.assertLess(time.monotonic() - t0, 10)

    def late_run(self, timeout, late_until, done=lambda r: None):
        """Ranks LATE call an allreduce late_until() seconds after init,
        the others at once: each rank's (result or exception, seconds
        from its call to its end, seconds its shutdown took); done(r)
        as rank r's call ends."""
        def body(pg, r):
            if r in LATE:
                late_until()
            t0 = time.monotonic()
            try:
                res = sum_of_ranks(pg, r)
            except RuntimeError as e:
                res = e
            t1 = time.monotonic()
            done(r)
            pg.shutdown()
            return res, t1 - t0, time.monotonic() - t1
        return create_all(4, [rack_env(r) for r in range(4)],
                          timeout=timeout, body=body)

    def test_late_rank_within_timeout(self):
        """Ranks 12 s late, within the group's 60 s: everyone waits for
        them and gets the exact sum; librina's 10 s default no longer
        fails them (the INA rack's agent waits too)."""
        t0 = time.monotonic()
        outs = self.late_run(60, lambda: time.sleep(LATE_S))
        for r, o in enumerate(outs):
            if isinstance(o, Exception):
                raise o
            res, dt, _ = o
            print("# rank %d: call %.2f s" % (r, dt))
            self.assertIsInstance(res, torch.Tensor, "rank %d: %s" % (r, res))
            self.assertTrue(torch.equal(res, torch.full((3,), 10.0)),
                            "rank %d: %s" % (r, res))
            if r not in LATE:
                self.assertGreater(dt, LATE_S - 1, "rank %d" % r)
        self.assertLess(time.monotonic() - t0, LATE_S + 30)

    def test_late_rank_past_timeout(self):
        """The same with a 3 s group timeout: the ranks that came in time
        fail with a clear error within the timeout (and the grace librina
        gives an abort naming the late ones to come), the late ones as
        soon as they call, after the others failed (not 12 s: the test
        need not wait); every process group shuts down at once."""
        timeout = 3
        ontime = {r for r in range(4) if r not in LATE}
        ended, lock = set(), threading.Lock()
        all_ended = threading.Event()

        def done(r):
            with lock:
                ended.add(r)
                if ontime <= ended:
                    all_ended.set()
        outs = self.late_run(timeout, lambda: all_ended.wait(LATE_S), done)
        for r, o in enumerate(outs):
            if isinstance(o, Exception):
                raise o
            err, dt, down = o
            print("# rank %d: %.2f s, shutdown %.2f s: %s" % (
                r, dt, down, str(err).splitlines()[0][:200]))
            self.assertIsInstance(err, RuntimeError, "rank %d" % r)
            self.assertIn("rina backend: allreduce failed", str(err))
            self.assertTrue("timed out" in str(err) or
                            "aborted" in str(err), str(err))
            self.assertLess(dt, 2 * timeout, "rank %d" % r)
            self.assertLess(down, 1, "rank %d" % r)


# reduce-scatter (dtype, op): int32 sum and max, float32 sum, float64 sum
RS_CASES = ((0, 0), (0, 2), (1, 0), (4, 0))


class CApi(unittest.TestCase):
    """The blocking forms of rina.h's collectives, 5 ranks, odd sizes."""

    def test_blocking_forms(self):
        import ctypes
        from rina import _lib
        lib = _lib.lib
        vp, sz, c = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        lib.rina_broadcast.argtypes = [vp, sz, c, vp]
        lib.rina_allgather.argtypes = [vp, vp, sz, vp]
        lib.rina_reduce_scatter.argtypes = [vp, vp, sz, c, c, vp]
        lib.rina_barrier.argtypes = [vp]
        n, nbytes = 5, 13
        job = job_text(n, 3000)

        def main(comm, r):
            h = comm._h()
            b = (ctypes.c_ubyte * nbytes)(*([r + 1] * nbytes))
            rc1 = lib.rina_broadcast(b, nbytes, 3, h)
            src = (ctypes.c_ubyte * nbytes)(*(
                (r * 16 + i) % 256 for i in range(nbytes)))
            dst = (ctypes.c_ubyte * (n * nbytes))()
            rc2 = lib.rina_allgather(src, dst, nbytes, h)
            rs_in = (ctypes.c_int32 * (n * 3))(*(
                r * 100 + i for i in range(n * 3)))
            rs_out = (ctypes.c_int32 * 3)()
            rc3 = lib.rina_reduce_scatter(rs_in, rs_out, 3, 0, 0, h)
            rc4 = lib.rina_barrier(h)
            bad = lib.rina_broadcast(b, nbytes, n, h)	# no rank n
            return ((rc1, rc2, rc3, rc4), bytes(b), bytes(dst),
                    list(rs_out), bad)
        out = comm_ranks(job, n, main)
        gathered = bytes((q * 16 + i) % 256 for q in range(n)
                         for i in range(nbytes))
        for r, o in enumerate(out):
            self.assertNotIsInstance(o, Exception, str(o))
            rcs, b, dst, rs, bad = o
            self.assertEqual(rcs, (0, 0, 0, 0), "rank %d" % r)
            self.assertEqual(b, bytes([4] * nbytes), "broadcast, rank %d" % r)
            self.assertEqual(dst, gathered, "allgather, rank %d" % r)
            self.assertEqual(rs, [sum(q * 100 + r * 3 + i for q in range(n))
                                  for i in range(3)], "rank %d" % r)
            self.assertEqual(bad, 1, "root out of range: RINA_ERR_INVALID")

    def lib(self):
        import ctypes
        from rina import _lib
        lib = _lib.lib
        vp, sz, c = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        lib.rina_allgather.argtypes = [vp, vp, sz, vp]
        lib.rina_reduce_scatter.argtypes = [vp, vp, sz, c, c, vp]
        lib.rina_allreduce.argtypes = [vp, vp, sz, c, c, vp]
        return lib

    def gather_scatter(self, n, ina, sizes, counts, measure=0):
        """rina_allgather of each of sizes bytes and rina_reduce_scatter
        (RS_CASES) of each of counts on every rank
        of an n-rank job, all racks INA or none; their results, checked
        byte for byte. measure: the tx_bytes of one allgather and one
        reduce-scatter of measure bytes a rank, and of an int32
        allreduce of the same total size, in [ag, rs, ar]."""
        import ctypes
        lib = self.lib()
        job = job_text(n, 3000, ina)

        def src_of(q, nbytes):
            return bytes((q * 37 + i * 11 + nbytes) % 256
                         for i in range(nbytes))

        def rs_in(q, cnt):
            return [(q * 7919 + i * 104729) % 2000003 - 1000001
                    for i in range(n * cnt)]

        def main(comm, r):
            res = []
            h = comm._h()
            for nbytes in sizes:
                src = ctypes.create_string_buffer(
                    src_of(r, nbytes), max(nbytes, 1))
                dst = ctypes.create_string_buffer(
                    max(n * nbytes, 1))
                rc = lib.rina_allgather(src, dst, nbytes, h)
                res.append((rc, dst.raw[:n * nbytes]))
            for cnt in counts:
                x = rs_in(r, cnt)
                for dt, op in RS_CASES:
                    t = {0: ctypes.c_int32, 1: ctypes.c_float,
                         4: ctypes.c_double}[dt]
                    i = (t * max(n * cnt, 1))(*x)
                    o = (t * max(cnt, 1))()
                    rc = lib.rina_reduce_scatter(i, o, cnt, dt, op,
                                                 h)
                    res.append((rc, list(o)[:cnt]))
            if measure:
                tx = []
                src = ctypes.create_string_buffer(measure)
                dst = ctypes.create_string_buffer(n * measure)
                big = (ctypes.c_int32 * (n * measure // 4))()
                small = (ctypes.c_int32 * (measure // 4))()
                for call in (
                        lambda: lib.rina_allgather(src, dst,
                                                   measure, h),
                        lambda: lib.rina_reduce_scatter(
                            big, small, measure // 4, 0, 0, h),
                        lambda: lib.rina_allreduce(
                            big, big, n * measure // 4, 0, 0, h)):
                    before = comm.stats()["tx_bytes"]
                    self.assertEqual(call(), 0)
                    tx.append(comm.stats()["tx_bytes"] - before)
                res.append(tx)
            return res
        out = comm_ranks(job, n, main, 120)
        for r, o in enumerate(out):
            self.assertNotIsInstance(o, Exception, str(o))
            i = 0
            for nbytes in sizes:
                what = "allgather %d bytes, rank %d/%d%s" % (
                    nbytes, r, n, " ina" if ina else "")
                self.assertEqual(o[i][0], 0, what)
                self.assertEqual(o[i][1], b"".join(
                    src_of(q, nbytes) for q in range(n)), what)
                i += 1
            for cnt in counts:
                ins = [rs_in(q, cnt)[r * cnt:(r + 1) * cnt]
                       for q in range(n)]
                for dt, op in RS_CASES:
                    what = "reduce_scatter count %d dtype %d op %d, " \
                        "rank %d/%d%s" % (cnt, dt, op, r, n,
                                          " ina" if ina else "")
                    self.assertEqual(o[i][0], 0, what)
                    ref = [(max if op else sum)(v) for v in zip(*ins)] \
                        if cnt else []
                    if dt == 0:
                        self.assertEqual(o[i][1], ref, what)
                    else:	# float32 in fixed point: protocol.md 7
                        # (float64 widened to float32 first)
                        for g, e in zip(o[i][1], ref):
                            self.assertLessEqual(abs(g - e),
                                                 1e-6 * n * 1000001, what)
                    i += 1
        return [o[-1] for o in out] if measure else None

    def test_gather_scatter_plain_rings(self):
        """Plain rings of 2..6 ranks (the ring's allgather and
        reduce-scatter phases alone): byte-exact, odd sizes, 0 bytes,
        sizes not divisible by the ring, and (elements 64, window 8:
        7 packets of a chunk a block) segments of whole blocks, of
        several blocks and a rest, and below one block."""
        for n in range(2, 7):
            self.gather_scatter(n, False, (0, 1, 3, 13, 257, 1037, 1792,
                                           5003),
                                (0, 1, 3, 7, 449, 1000))

    def test_gather_scatter_ina_rings(self):
        """Rings of INA racks keep the allreduce of segments: exact."""
        for n in (2, 4):
            self.gather_scatter(n, True, (0, 13, 5003), (0, 7, 1000))

    def test_allgather_moves_half(self):
        """A rank's bytes sent for an allgather and a reduce-scatter are
        about half those of an allreduce of the gathered size (the
        allreduce of zero-padded segments sent as many as the
        allreduce); ACKs and headers included."""
        for n in (3, 4):
            for r, (ag, rs, ar) in enumerate(
                    self.gather_scatter(n, False, (), (), 40000)):
                what = "rank %d/%d: allgather %d, reduce_scatter %d, " \
                    "allreduce %d bytes" % (r, n, ag, rs, ar)
                self.assertLess(ag, 0.7 * ar, what)
                self.assertLess(rs, 0.7 * ar, what)
                self.assertGreater(ag, 0.3 * ar, what)

    def test_broadcast_chain(self):
        """On a plain ring a broadcast is a chain from the root: every
        rank gets the root's bytes exactly (odd size, every root);
        each rank sends under 3/4 of the bytes of an allreduce of the
        buffer (a chain carries it once a link, an allreduce 2(N-1)/N
        times: 2/3 on 4 ranks), the root's upstream rank only ACKs."""
        import ctypes
        lib = self.lib()
        vp, sz, c = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        lib.rina_broadcast.argtypes = [vp, sz, c, vp]
        n, size = 4, 200003

        def src(root):
            return bytes((i * 7 + root * 13) % 251 for i in range(size))

        def main(comm, r):
            h = comm._h()
            out = []
            for root in range(n):
                buf = ctypes.create_string_buffer(
                    src(root) if r == root else b"", size)
                big = (ctypes.c_int32 * (size // 4))()
                tx = []
                for call in (lambda: lib.rina_broadcast(buf, size, root,
                                                        h),
                             lambda: lib.rina_allreduce(big, big,
                                                        size // 4, 0, 0,
                                                        h)):
                    before = comm.stats()["tx_bytes"]
                    self.assertEqual(call(), 0)
                    tx.append(comm.stats()["tx_bytes"] - before)
                out.append((buf.raw[:size] == src(root), tx))
            return out
        for r, o in enumerate(comm_ranks(job_text(n, 3000), n, main, 120)):
            self.assertNotIsInstance(o, Exception, str(o))
            for root, (same, (bc, ar)) in enumerate(o):
                what = "rank %d, root %d: broadcast %d, allreduce %d " \
                    "bytes" % (r, root, bc, ar)
                print("# " + what)
                self.assertTrue(same, what)
                # job_text's ring is in rank order
                if r == (root - 1) % n:
                    self.assertLess(bc, 0.1 * ar, what)
                else:
                    self.assertLess(bc, 0.75 * ar, what)
                    self.assertGreater(bc, 0.5 * ar, what)


if __name__ == "__main__":
    unittest.main()
