#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Time per training step, side by side in one run: Gloo DDP, DDP with
rina.torch.allreduce_hook (overlapping backward), and a manual Rina
allreduce of all gradients after backward. Run every rank under a
launcher, e.g.

    rina-run --topo 2x2 -- /usr/bin/python3 python/bench/ddp_bench.py \
        --params 1M --steps 30

Rank 0 prints one row per mode (median, min, max ms per step) and the
ratios to Gloo. A benchmark, not a test: figures depend on the machine's
load (every emulated host shares its cores).
"""
import argparse
import json
import statistics
import time

import torch
import torch.distributed as dist

import rina
import rina.torch


def parse_count(s):
    mult = {"k": 1e3, "M": 1e6}.get(s[-1], 1)
    return int(float(s.rstrip("kM")) * mult)


def make_model(params, width_in=256):
    # in -> h -> h -> 16 with h chosen for about `params` parameters
    h = 16
    while (width_in + 1) * h + (h + 1) * h + (h + 1) * 16 < params:
        h += 16
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(width_in, h), torch.nn.ReLU(),
        torch.nn.Linear(h, h), torch.nn.ReLU(), torch.nn.Linear(h, 16))


def step_times(mode, args, comm):
    model = make_model(args.params)
    n_params = sum(p.numel() for p in model.parameters())
    net = model
    if mode != "rina-manual":
        net = torch.nn.parallel.DistributedDataParallel(model)
        if mode == "rina-hook":
            net.register_comm_hook(comm, rina.torch.allreduce_hook)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    params = list(model.parameters())
    flat = torch.zeros(n_params)
    x = torch.randn(args.batch, 256)
    y = torch.randn(args.batch, 16)
    times = []
    for step in range(args.warmup + args.steps):
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        if mode == "rina-manual":
            torch.cat([p.grad.view(-1) for p in params], out=flat)
            comm.allreduce(flat, op="avg")
            off = 0
            for p in params:
                p.grad.view(-1).copy_(flat[off:off + p.numel()])
                off += p.numel()
        opt.step()
        if step >= args.warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    # every rank's figure: the step is as slow as its slowest rank
    t = torch.tensor(times, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return n_params, t.tolist()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=parse_count, default=parse_count("1M"))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--modes", default="gloo,rina-hook,rina-manual")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads per rank (ranks share the cores)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo")
    comm = rina.Communicator.from_env()
    rows = []
    for mode in args.modes.split(","):
        n, t = step_times(mode, args, comm)
        rows.append({"mode": mode, "params": n, "ranks": comm.size,
                     "ring": comm.ring_len, "steps": len(t),
                     "median_ms": statistics.median(t), "min_ms": min(t),
                     "max_ms": max(t)})
    if dist.get_rank() == 0:
        base = next((r["median_ms"] for r in rows if r["mode"] == "gloo"),
                    None)
        if args.json:
            print(json.dumps(rows))
        else:
            print("# %-12s %9s %5s %10s %9s %9s %8s" % (
                "mode", "params", "ranks", "median_ms", "min_ms", "max_ms",
                "vs_gloo"))
            for r in rows:
                print("  %-12s %9d %5d %10.2f %9.2f %9.2f %8s" % (
                    r["mode"], r["params"], r["ranks"], r["median_ms"],
                    r["min_ms"], r["max_ms"],
                    "%.2fx" % (base / r["median_ms"]) if base else "-"))
    comm.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
