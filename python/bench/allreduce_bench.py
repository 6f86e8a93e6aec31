#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""A bare dist.all_reduce sweep, backend "rina" against backend "gloo"
in one run: the part of issue 46's benchmark that DDP's step time hides
(its compute, its buckets). Run every rank under a launcher, e.g.

    rina-run --topo 2x4 --rate 25mbit -- \\
        /usr/bin/python3 python/bench/allreduce_bench.py -b 256K -e 4M

The default process group is dist.init_process_group("rina") on the
job's own ports (so that the INA racks' ToRs, which know the job file,
aggregate it) and Gloo a new_group(backend="gloo") beside it. For each
size the two backends take turns call by call (gloo, rina, gloo, ...),
each call timed from a barrier to its end, so that a change of the
machine's load hits both alike; a call is as slow as its slowest rank
(the maximum over the ranks). Inputs are small integers, so float32
sums are exact: every call of both backends is checked against the
known sum.

Rank 0 prints per size and backend the median, min and max time of a
call and the ratio of each turn (gloo's time over rina's: above 1, rina
is faster), median [min..max], or with --json one JSON object per line
(tags from --tag KEY=VALUE added). Exit status 1 when any call was
wrong. A benchmark, not a test: figures depend on the machine's load.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.distributed as dist

import rina.torch  # registers the backend  # noqa: F401

BACKENDS = ("gloo", "rina")


def parse_size(s):
    units = {"": 0, "k": 10, "m": 20, "g": 30}
    num = s.rstrip("kKmMgG")
    unit = s[len(num):].lower()
    if not num.isdigit() or unit not in units or int(num) <= 0:
        raise argparse.ArgumentTypeError("bad size %r (e.g. 256K, 4M)" % s)
    return int(num) << units[unit]


def timed_call(buf, src, group):
    """One all_reduce from a barrier, as slow as the slowest rank."""
    buf.copy_(src)
    dist.barrier(group=group)
    t0 = time.monotonic()
    dist.all_reduce(buf, group=group)
    return time.monotonic() - t0


def slowest(times):
    """Per call, the maximum over the ranks (every rank gets them all)."""
    t = torch.tensor(times, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.tolist()


def spread(vals):
    return statistics.median(vals), min(vals), max(vals)


def sweep_size(size, args, groups, rank, n):
    count = size // 4
    pattern = torch.arange(count, dtype=torch.int64) % 13 + 1
    src = (pattern * (rank + 1)).to(torch.float32)
    want = (pattern * (n * (n + 1) // 2)).to(torch.float32)
    buf = torch.empty_like(src)
    times = {b: [] for b in BACKENDS}
    wrong = {b: 0 for b in BACKENDS}
    for i in range(args.w + args.n):
        for b in BACKENDS:
            t = timed_call(buf, src, groups[b])
            wrong[b] += int((buf != want).sum())
            if i >= args.w:
                times[b].append(t)
    for b in BACKENDS:
        times[b] = slowest(times[b])
    ratios = [g / r for g, r in zip(times["gloo"], times["rina"])]
    rows = []
    for b in BACKENDS:
        med, lo, hi = spread(times[b])
        row = {"backend": b, "size": size, "count": count,
               "dtype": "float32", "n_ranks": n, "calls": args.n,
               "time_med_ms": round(med * 1e3, 3),
               "time_min_ms": round(lo * 1e3, 3),
               "time_max_ms": round(hi * 1e3, 3), "wrong": wrong[b]}
        if b == "rina":
            med, lo, hi = spread(ratios)
            row.update(vs_gloo_med=round(med, 3),
                       vs_gloo_min=round(lo, 3),
                       vs_gloo_max=round(hi, 3))
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-b", type=parse_size, default=256 << 10,
                    help="smallest size in bytes [256K]")
    ap.add_argument("-e", type=parse_size, default=4 << 20,
                    help="largest size in bytes [4M]")
    ap.add_argument("-n", type=int, default=5,
                    help="timed calls per size and backend [5]")
    ap.add_argument("-w", type=int, default=1,
                    help="untimed calls per size and backend first [1]")
    ap.add_argument("--tag", action="append", default=[],
                    metavar="KEY=VALUE", help="add to every JSON row")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.b > args.e or args.n < 1 or args.w < 0:
        ap.error("need -b <= -e, -n >= 1 and -w >= 0")
    try:
        tags = dict(t.split("=", 1) for t in args.tag)
    except ValueError:
        ap.error("--tag wants KEY=VALUE")

    dist.init_process_group("rina")
    groups = {"rina": dist.distributed_c10d._get_default_group(),
              "gloo": dist.new_group(backend="gloo")}
    rank, n = dist.get_rank(), dist.get_world_size()
    tor = rina.torch.stats(groups["rina"])["agent_tor"]
    total_wrong = 0
    if rank == 0 and not args.json:
        print("# allreduce_bench: torch %s, %d ranks, float32 sum,"
              " %d calls a size and backend, taking turns"
              % (torch.__version__, n, args.n))
        print("# %10s %8s %28s %26s %7s" % ("size", "backend",
              "ms a call: median [min..max]", "gloo/rina: med [min..max]",
              "#wrong"))
    size = args.b
    while size <= args.e:
        for row in sweep_size(size, args, groups, rank, n):
            total_wrong += row["wrong"]
            if rank != 0:
                continue
            if args.json:
                row.update(tags)
                row["agent_tor"] = tor
                print(json.dumps(row), flush=True)
                continue
            ratio = ""
            if "vs_gloo_med" in row:
                ratio = "%.2f [%.2f..%.2f]" % (row["vs_gloo_med"],
                                               row["vs_gloo_min"],
                                               row["vs_gloo_max"])
            print("  %10d %8s %10.1f [%7.1f..%7.1f] %26s %7d" %
                  (size, row["backend"], row["time_med_ms"],
                   row["time_min_ms"], row["time_max_ms"], ratio,
                   row["wrong"]), flush=True)
        size *= 2
    dist.destroy_process_group()
    if total_wrong:
        print("allreduce_bench: rank %d: %d wrong values" %
              (rank, total_wrong), file=sys.stderr)
    return 1 if total_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
