# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""One rank of test_ddp_backend.py's runs (under rina-run, or torchrun
under rina-run): ddp_worker.py's training with
dist.init_process_group("rina") and Gloo made unavailable in this
process, so that a silent fallback to Gloo fails. Writes OUT/rank<R>.pt
(losses, parameters, backend, librina's counters) or, if init or
training raised, OUT/rank<R>.exc.json.

usage: ddp_backend_worker.py train|disagree OUT  (env: KILL_RANK,
KILL_STEP; disagree: the last rank reads a job file with one more line)
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


def main():
    mode, out = sys.argv[1], sys.argv[2]
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
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
    torch.save({"losses": losses,
                "params": [p.detach() for p in model.parameters()],
                "backend": dist.get_backend(),
                "stats": rina.torch.stats()},
               os.path.join(out, "rank%d.pt" % rank))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
