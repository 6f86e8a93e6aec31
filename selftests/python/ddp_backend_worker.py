# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""One rank of test_ddp_backend.py's runs (under rina-run, or torchrun
under rina-run): ddp_worker.py's training with
dist.init_process_group("rina") and Gloo made unavailable in this
process, so that a silent fallback to Gloo fails. Writes OUT/rank<R>.pt
(losses, parameters, backend, librina's counters, what plain dist.*
calls after training got wrong) or, if init or training raised,
OUT/rank<R>.exc.json.

usage: ddp_backend_worker.py train|reversed|disagree OUT  (env:
KILL_RANK, KILL_STEP; reversed: trains with torch's ranks the other way
round from the job file's, as a launcher that numbers the processes its
own way does, the rendezvous on the job file's last rank's address;
disagree: the last rank reads a job file with one more line)
"""
import datetime
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

import ddp_worker as W


def no_gloo():
    def refuse(*args, **kwargs):
        raise RuntimeError("Gloo is unavailable in this test")
    c10d._GLOO_AVAILABLE = False
    c10d.ProcessGroupGloo = refuse
    c10d.is_gloo_available = dist.is_gloo_available = lambda: False
    if hasattr(dist, "ProcessGroupGloo"):
        dist.ProcessGroupGloo = refuse


def dist_checks(rank, world):
    """Plain torch.distributed calls on the default ("rina") group, as
    unchanged user code makes them: a list of what went wrong."""
    bad = []

    def expect(what, got, want):
        if not torch.equal(got, want):
            bad.append("%s: %s, expected %s" % (what, got, want))
    x = torch.arange(5, dtype=torch.int64) + rank
    dist.all_reduce(x)
    expect("all_reduce int64", x, torch.arange(5) * world +
           world * (world - 1) // 2)
    f = torch.full((3,), float(rank + 1))
    w = dist.all_reduce(f, op=dist.ReduceOp.MAX, async_op=True)
    w.wait()
    expect("all_reduce MAX async", f, torch.full((3,), float(world)))
    b = torch.full((4,), rank, dtype=torch.int32)
    dist.broadcast(b, src=world - 1)
    expect("broadcast", b, torch.full((4,), world - 1, dtype=torch.int32))
    ts = [torch.empty(2, dtype=torch.float64) for _ in range(world)]
    dist.all_gather(ts, torch.tensor([rank, -rank], dtype=torch.float64))
    expect("all_gather", torch.stack(ts), torch.tensor(
        [[r, -r] for r in range(world)], dtype=torch.float64))
    out = torch.empty(world * 3, dtype=torch.bfloat16)
    dist.all_gather_into_tensor(out, torch.full((3,), rank,
                                                dtype=torch.bfloat16))
    expect("all_gather_into_tensor", out, torch.arange(world).repeat_interleave(
        3).to(torch.bfloat16))
    inp = torch.arange(world * 2, dtype=torch.int32) * (rank + 1)
    rs = torch.empty(2, dtype=torch.int32)
    dist.reduce_scatter_tensor(rs, inp)
    expect("reduce_scatter_tensor", rs, torch.arange(
        rank * 2, rank * 2 + 2, dtype=torch.int32) * (world * (world + 1) // 2))
    rl = torch.empty(2, dtype=torch.int64)
    dist.reduce_scatter(rl, [torch.full((2,), r * 10 + rank)
                             for r in range(world)])
    expect("reduce_scatter", rl, torch.full(
        (2,), rank * 10 * world + world * (world - 1) // 2))
    dist.barrier()
    try:
        dist.reduce(torch.ones(2), dst=0)
        bad.append("reduce: no error")
    except RuntimeError as e:
        if "not supported by the rina backend" not in str(e):
            bad.append("reduce: %s" % e)
    return bad


def reverse_ranks(world):
    """RANK the other way round; MASTER_ADDR where torch's rank 0 now is
    (the job file's rank world-1)."""
    rank = world - 1 - int(os.environ["RANK"])
    with open(os.environ["RINA_JOB"]) as f:
        for line in f:
            w = line.split()
            if w[:2] == ["rank", str(world - 1)]:
                os.environ["MASTER_ADDR"] = w[2].rsplit(":", 1)[0]
    os.environ["RANK"] = str(rank)
    return rank


def main():
    mode, out = sys.argv[1], sys.argv[2]
    world = int(os.environ["WORLD_SIZE"])
    rank = reverse_ranks(world) if mode == "reversed" else \
        int(os.environ["RANK"])
    kill_rank = int(os.environ.get("KILL_RANK", "-1"))
    kill_step = int(os.environ.get("KILL_STEP", "-1"))
    no_gloo()
    import rina.torch
    if mode == "disagree" and rank == world - 1:
        path = os.path.join(out, "job.other")
        with open(os.environ["RINA_JOB"]) as f, open(path, "w") as g:
            g.write(f.read() + "window 16\n")
        os.environ["RINA_JOB"] = path
    t = [time.monotonic()]

    def failed(e):
        with open(os.path.join(out, "rank%d.exc.json" % rank), "w") as f:
            json.dump({"type": type(e).__name__, "msg": str(e),
                       "seconds": time.monotonic() - t[0]}, f)
        sys.stdout.flush()
        os._exit(3)	# the job is dead: no goodbyes

    try:
        dist.init_process_group("rina",
                                timeout=datetime.timedelta(seconds=60))
    except Exception as e:
        failed(e)
    assert dist.get_backend() == "rina"
    model = W.make_model()
    ddp = torch.nn.parallel.DistributedDataParallel(model,
                                                    bucket_cap_mb=0.1)
    x, y = W.make_data()

    def on_step(step):
        if rank == kill_rank and step == kill_step:
            os.kill(os.getpid(), signal.SIGKILL)
        t[0] = time.monotonic()

    try:
        losses, _ = W.train(ddp, x, y, rank, world, on_step)
    except Exception as e:
        failed(e)
    bad = dist_checks(rank, world)
    torch.save({"losses": losses,
                "params": [p.detach() for p in model.parameters()],
                "backend": dist.get_backend(), "dist_bad": bad,
                "stats": rina.torch.stats()},
               os.path.join(out, "rank%d.pt" % rank))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
