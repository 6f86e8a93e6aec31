#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""DDP's gradient buckets as bare dist.all_reduce calls: backend "rina"
against a Gloo group beside it, in one run, modes taking turns, so that
a DDP step's communication can be told from the rest of the step
(issue 46). Run every rank under rina-run, e.g.

    rina-run --topo 2x4 --rate 25mbit --queue 20ms -- \\
        /usr/bin/python3 python/bench/bucket_bench.py --params 1M

The bucket sizes are DDP's own: a DistributedDataParallel of
ddp_bench.py's MLP (same --params, --layers, --bucket-mb) on the Gloo
group takes 3 steps, and a comm hook records the sizes of the last (DDP
rebuilds its buckets after the first). Per repetition and backend, in
turn:

  one      the whole gradient in one call (the bytes of a step, no split)
  buckets  one call per bucket, all started at once (async_op) and then
           waited for, as DDP's reducer does once backward is over
  tiny     one float32 element: the fixed cost of a call

Rank 0 prints per shape and backend the slowest rank's time, median
[min..max] ms, the bytes every device but lo sent per call (the busiest
rank: headers, ACKs and retransmissions included, what a shaped link
carries), and, with --link-rate, the line-rate time of those bytes. For
"rina" also librina's counters of the last repetition's call (rank
0's). A benchmark, not a test.
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist

import rina.torch
from ddp_bench import make_model, parse_count, WIDTH_IN, WIDTH_OUT

COUNTERS = ("tx_data", "retransmits", "timeouts", "duplicates",
            "ack_tx_bytes", "cwnd_cuts_delay", "cwnd_cuts_loss")


def parse_rate(s):
    """25mbit, 1gbit -> bytes/s"""
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for u, m in units.items():
        if s.endswith(u):
            return float(s[:-len(u)]) * m / 8
    raise argparse.ArgumentTypeError("rate '%s': expected e.g. 25mbit" % s)


def wire_bytes():
    """bytes sent by every device of this namespace but lo"""
    tot = 0
    for dev in os.listdir("/sys/class/net"):
        if dev != "lo":
            with open("/sys/class/net/%s/statistics/tx_bytes" % dev) as f:
                tot += int(f.read())
    return tot


def bucket_sizes(args, group):
    """elements of each bucket DDP builds for the model, in its order"""
    model = make_model(args.params, args.layers)
    net = torch.nn.parallel.DistributedDataParallel(
        model, bucket_cap_mb=args.bucket_mb, process_group=group)
    sizes = []

    def hook(state, bucket):
        sizes.append(bucket.buffer().numel())
        fut = dist.all_reduce(bucket.buffer(), group=group,
                              async_op=True).get_future()
        return fut.then(lambda f: f.value()[0])

    net.register_comm_hook(None, hook)
    x = torch.randn(args.batch, WIDTH_IN)
    y = torch.randn(args.batch, WIDTH_OUT)
    for _ in range(3):
        sizes.clear()
        net.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
    return list(sizes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=parse_count, default=parse_count("1M"))
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shapes", default="one,buckets,tiny")
    ap.add_argument("--link-rate", type=parse_rate, default=None,
                    help="the shaped links' rate (25mbit): adds the "
                    "line-rate time of the bytes sent")
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("rina")
    rg = dist.distributed_c10d._get_default_group()
    gg = dist.new_group(backend="gloo")
    rank = dist.get_rank()
    sizes = bucket_sizes(args, gg)
    shapes = {"one": [sum(sizes)], "buckets": sizes, "tiny": [1]}
    res = {}
    for _ in range(args.reps):
        for shape in args.shapes.split(","):
            for name, g in (("rina", rg), ("gloo", gg)):
                ts = [torch.ones(n) for n in shapes[shape]]
                s0 = rina.torch.stats(rg)
                dist.barrier(group=gg)
                b0 = wire_bytes()
                t0 = time.perf_counter()
                works = [dist.all_reduce(t, group=g, async_op=True)
                         for t in ts]
                for w in works:
                    w.wait()
                v = torch.tensor([time.perf_counter() - t0,
                                  wire_bytes() - b0], dtype=torch.float64)
                s1 = rina.torch.stats(rg)
                dist.all_reduce(v, op=dist.ReduceOp.MAX, group=gg)
                d = {k: s1[k] - s0[k] for k in COUNTERS} \
                    if name == "rina" else {}
                res.setdefault((shape, name), []).append((v.tolist(), d))
    if rank == 0:
        n_params = sum(p.numel() for p in make_model(
            args.params, args.layers).parameters())
        print("# buckets (elements): %s of %d parameters, %d ranks" %
              (sizes, n_params, dist.get_world_size()))
        for (shape, name), rows in res.items():
            ms = [r[0][0] * 1e3 for r in rows]
            wire = statistics.median(r[0][1] for r in rows)
            line = ""
            if args.link_rate:
                line = " line-rate %.0f ms" % (wire / args.link_rate * 1e3)
            print("%-8s %-5s %8.1f ms [%.1f..%.1f] wire %.0f B/rank%s %s" % (
                shape, name, statistics.median(ms), min(ms), max(ms), wire,
                line, rows[-1][1] or ""), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
