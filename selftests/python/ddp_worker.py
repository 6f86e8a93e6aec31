# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""One rank of test_ddp.py's training runs (started by rina-run), and the
single-process reference: a small MLP, SGD, a fixed global batch split
evenly over the ranks. Writes OUT/rank<R>.pt (losses, parameters) or, if
training raised, OUT/rank<R>.exc.json.

usage: ddp_worker.py rina|gloo OUT  (env: KILL_RANK, KILL_STEP)
"""
import json
import os
import signal
import sys
import time

import torch

STEPS = 6
BATCH = 64
LR = 0.05
SIZES = (64, 512, 512, 16)	# ~304k parameters: 1 MiB + 0.1 MiB buckets


def make_model():
    torch.manual_seed(1234)
    layers = []
    for a, b in zip(SIZES, SIZES[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers[:-1])


def make_data():
    g = torch.Generator().manual_seed(99)
    x = torch.randn(STEPS, BATCH, SIZES[0], generator=g)
    y = torch.randn(STEPS, BATCH, SIZES[-1], generator=g)
    return x, y


def train(model, x, y, rank=0, world=1, on_step=None):
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    per = BATCH // world
    losses = []
    gmax = 0.0
    for step in range(STEPS):
        if on_step:
            on_step(step)
        xb = x[step, rank * per:(rank + 1) * per]
        yb = y[step, rank * per:(rank + 1) * per]
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        gmax = max([gmax] + [p.grad.abs().max().item()
                             for p in model.parameters()])
        opt.step()
        losses.append(loss.item())
    return losses, gmax


def reference():
    """Single-process training on the whole batch: losses, parameters and
    the largest gradient magnitude seen."""
    model = make_model()
    x, y = make_data()
    losses, gmax = train(model, x, y)
    return losses, [p.detach().clone() for p in model.parameters()], gmax


def main():
    import torch.distributed as dist
    import rina
    import rina.torch

    mode, out = sys.argv[1], sys.argv[2]
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    kill_rank = int(os.environ.get("KILL_RANK", "-1"))
    kill_step = int(os.environ.get("KILL_STEP", "-1"))
    dist.init_process_group("gloo")	# env://, as rina-run sets it
    model = make_model()
    # small buckets: several allreduces in flight per step
    ddp = torch.nn.parallel.DistributedDataParallel(model,
                                                    bucket_cap_mb=0.1)
    comm = rina.Communicator.from_env() if mode == "rina" else None
    if comm:
        ddp.register_comm_hook(comm, rina.torch.allreduce_hook)
    x, y = make_data()
    t_step = [0.0]

    def on_step(step):
        if rank == kill_rank and step == kill_step:
            os.kill(os.getpid(), signal.SIGKILL)
        t_step[0] = time.monotonic()

    try:
        losses, _ = train(ddp, x, y, rank, world, on_step)
    except Exception as e:
        with open(os.path.join(out, "rank%d.exc.json" % rank), "w") as f:
            json.dump({"type": type(e).__name__, "msg": str(e),
                       "seconds": time.monotonic() - t_step[0]}, f)
        sys.stdout.flush()
        os._exit(3)	# the job is dead: skip Gloo's and librina's goodbyes
    torch.save({"losses": losses,
                "params": [p.detach() for p in model.parameters()],
                "stats": comm.stats() if comm else {}},
               os.path.join(out, "rank%d.pt" % rank))
    if comm:
        comm.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
