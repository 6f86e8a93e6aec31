#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Time per training step, side by side in one run: Gloo DDP, DDP over
the torch.distributed backend "rina" (mode "rina-backend"), DDP with
rina.torch.allreduce_hook (overlapping backward), a manual Rina
allreduce of all gradients after backward, and (mode "local") the same
step without any communication. Run every rank under a launcher, e.g.

    rina-run --topo 2x2 -- /usr/bin/python3 python/bench/ddp_bench.py \
        --params 1M --steps 30

--init picks the default process group. "rina" (what a user of the
backend runs): dist.init_process_group("rina") on the job's own ports,
so that INA ToRs that know the job file take it, and Gloo a
new_group(backend="gloo") beside it for mode "gloo"; the hook's and the
manual modes need a communicator of their own on the same ports and are
refused. "gloo" (the default): Gloo's default group, the hook's and the
manual modes' rina.Communicator on the job's ports, and mode
"rina-backend" a new_group(backend="rina") on ports from RINA_PORT
(21060 unless set), which ToRs do not know (its INA racks aggregate in
their agents).

Every mode trains the same model (an MLP of --layers hidden layers of
equal width, seeded identically) on the same batch; the first --warmup
steps of each mode (DDP builds its buckets after the first) are not
timed. A step is timed from a barrier to the end of opt.step(), and is
as slow as its slowest rank (the maximum over the ranks). With
--rounds R the modes take turns R times, steps/R timed steps each, so
that a change of the machine's load hits every mode alike.

Rank 0 prints one row per mode (median, min, max ms per step, the
median speed-up over Gloo: Gloo's median over the mode's) or, with
--json, one JSON object per line. Per mode also the medians of the
forward and backward phases (backward includes DDP's wait for its
buckets' allreduces), the explicit allreduce of rina-manual, and the
number of buckets the hook saw per step. A benchmark, not a test:
figures depend on the machine's load (every emulated host shares its
cores).
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist

import rina
import rina._lib
import rina.torch

MODES = ("local", "gloo", "rina-backend", "rina-hook", "rina-manual")
WIDTH_IN = 256
WIDTH_OUT = 16


def parse_count(s):
    mult = {"k": 1e3, "M": 1e6}.get(s[-1], 1)
    return int(float(s.rstrip("kM")) * mult)


def model_params(h, layers):
    return (WIDTH_IN + 1) * h + (layers - 1) * (h + 1) * h + \
        (h + 1) * WIDTH_OUT


def make_model(params, layers):
    """in -> h (-> h) x (layers - 1) -> out, h the smallest multiple of
    16 reaching `params` parameters: gradients become ready layer by
    layer during backward, so DDP's buckets can overlap it."""
    h = 16
    while model_params(h, layers) < params:
        h += 16
    torch.manual_seed(0)
    mods = [torch.nn.Linear(WIDTH_IN, h), torch.nn.ReLU()]
    for _ in range(layers - 1):
        mods += [torch.nn.Linear(h, h), torch.nn.ReLU()]
    mods.append(torch.nn.Linear(h, WIDTH_OUT))
    return torch.nn.Sequential(*mods)


def step_times(mode, args, comm, steps, groups):
    """Per timed step: (step, forward, backward, explicit allreduce) ms,
    and the buckets the hook saw in the last step. groups: the process
    group of each DDP mode (None: the default group)."""
    model = make_model(args.params, args.layers)
    net = model
    buckets = [0]
    if mode in ("gloo", "rina-hook", "rina-backend"):
        net = torch.nn.parallel.DistributedDataParallel(
            model, bucket_cap_mb=args.bucket_mb,
            process_group=groups.get(mode))
    if mode == "rina-hook":
        def hook(state, bucket):
            buckets[0] += 1
            return rina.torch.allreduce_hook(state, bucket)
        net.register_comm_hook(comm, hook)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    params = list(model.parameters())
    flat = torch.zeros(sum(p.numel() for p in params))
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(args.batch, WIDTH_IN, generator=gen)
    y = torch.randn(args.batch, WIDTH_OUT, generator=gen)
    rows = []
    for step in range(args.warmup + steps):
        buckets[0] = 0
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        if mode == "rina-manual":
            torch.cat([p.grad.view(-1) for p in params], out=flat)
            comm.allreduce(flat, op="avg")
            off = 0
            for p in params:
                p.grad.view(-1).copy_(flat[off:off + p.numel()])
                off += p.numel()
        t3 = time.perf_counter()
        opt.step()
        t4 = time.perf_counter()
        if step >= args.warmup:
            rows.append([(t4 - t0) * 1e3, (t1 - t0) * 1e3,
                         (t2 - t1) * 1e3, (t3 - t2) * 1e3])
    # every rank's figure: a step is as slow as its slowest rank
    t = torch.tensor(rows, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.tolist(), buckets[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=parse_count, default=parse_count("1M"))
    ap.add_argument("--layers", type=int, default=6,
                    help="hidden layers of the MLP (default 6)")
    ap.add_argument("--steps", type=int, default=30,
                    help="timed steps per mode, over all rounds")
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed steps per mode and round")
    ap.add_argument("--rounds", type=int, default=1,
                    help="the modes take turns this many times")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket-mb", type=float, default=25.0,
                    help="DDP's bucket_cap_mb (gloo, rina-backend and "
                    "rina-hook)")
    ap.add_argument("--modes", default="gloo,rina-hook,rina-manual")
    ap.add_argument("--init", choices=("gloo", "rina"), default="gloo",
                    help="the default process group's backend")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads per rank (ranks share the cores)")
    ap.add_argument("--tag", action="append", default=[],
                    metavar="KEY=VALUE", help="add to every JSON row")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    modes = args.modes.split(",")
    for m in modes:
        if m not in MODES:
            ap.error("unknown mode %r (modes: %s)" % (m, ", ".join(MODES)))
    if args.steps < args.rounds or args.rounds < 1 or args.layers < 1:
        ap.error("need layers >= 1 and steps >= rounds >= 1")
    if args.init == "rina" and set(modes) & {"rina-hook", "rina-manual"}:
        ap.error("modes rina-hook and rina-manual need --init gloo (their "
                 "communicator would share the backend's ports)")
    tags = dict(t.split("=", 1) for t in args.tag)
    torch.set_num_threads(args.threads)
    comm = None
    groups = {}
    if args.init == "rina":
        dist.init_process_group("rina")
        rina_group = dist.distributed_c10d._get_default_group()
        groups["gloo"] = dist.new_group(backend="gloo")
    else:
        dist.init_process_group("gloo")
        comm = rina.Communicator.from_env()
        rina_group = None
        if "rina-backend" in modes:
            os.environ.setdefault("RINA_PORT", "21060")
            rina_group = groups["rina-backend"] = \
                dist.new_group(backend="rina")
    ring = comm.ring_len if comm else None
    if rina_group is not None:
        ring = rina._lib.rina_comm_ring_len(rina_group._rina_handle())
    times = {m: [] for m in modes}
    buckets = {}
    for r in range(args.rounds):
        n = args.steps // args.rounds + (r < args.steps % args.rounds)
        for mode in modes:
            t, buckets[mode] = step_times(mode, args, comm, n, groups)
            times[mode] += t
    # whether the backend's INA racks had their ToR aggregate (2: on)
    tor = rina.torch.stats(rina_group)["agent_tor"] if rina_group else None
    n_params = sum(p.numel() for p in make_model(args.params,
                                                 args.layers).parameters())
    rows = []
    for mode in modes:
        cols = list(zip(*times[mode]))
        med = [statistics.median(c) for c in cols]
        row = dict(tags)
        row.update({
            "mode": mode, "params": n_params, "layers": args.layers,
            "batch": args.batch, "ranks": dist.get_world_size(),
            "ring": ring, "init": args.init,
            "bucket_mb": args.bucket_mb, "steps": len(cols[0]),
            "rounds": args.rounds, "median_ms": med[0],
            "min_ms": min(cols[0]), "max_ms": max(cols[0]),
            "fwd_ms": med[1], "bwd_ms": med[2], "allreduce_ms": med[3]})
        if mode == "rina-hook":
            row["buckets"] = buckets[mode]
        if mode == "rina-backend":
            row["agent_tor"] = tor
        rows.append(row)
    base = next((r["median_ms"] for r in rows if r["mode"] == "gloo"), None)
    for r in rows:
        r["speedup_vs_gloo"] = base / r["median_ms"] if base else None
    if dist.get_rank() == 0:
        if args.json:
            for r in rows:
                print(json.dumps(r), flush=True)
        else:
            print("# %-12s %9s %5s %10s %9s %9s %8s %8s %8s %8s" % (
                "mode", "params", "ranks", "median_ms", "min_ms", "max_ms",
                "vs_gloo", "fwd_ms", "bwd_ms", "ar_ms"))
            for r in rows:
                print("  %-12s %9d %5d %10.2f %9.2f %9.2f %8s %8.2f %8.2f "
                      "%8.2f" % (
                          r["mode"], r["params"], r["ranks"], r["median_ms"],
                          r["min_ms"], r["max_ms"],
                          "%.2fx" % r["speedup_vs_gloo"] if base else "-",
                          r["fwd_ms"], r["bwd_ms"], r["allreduce_ms"]))
    if comm:
        comm.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
