#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""torch.distributed Gloo all_reduce benchmark, the make bench baseline.

Run once per rank under rina-run (it sets RINA_RANK, RINA_NRANKS and
RINA_JOB; rank 0's address, the rendezvous, is read from the job file);
flags and --json rows as rina-bench's, where they apply:

  gloo_bench.py [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]
                [-c 0|1] [-d float32|int32] [-o sum] [--json]
                [--link-rate RATE] [--port PORT]

Gloo talks TCP on GLOO_SOCKET_IFNAME (default here: eth0, rina-run's
host device). time_us is this rank's mean per call; wire_tx_bytes the
bytes its devices sent per call (/sys/class/net, not lo), retransmits the
TCP segments its namespace retransmitted (/proc/net/snmp), retx_bytes
those at one MSS each per call; efficiency the line-rate time of
wire_tx_bytes at RATE (--link-rate or RINA_LINK_RATE) over time_us;
cpu_util the share of a core the process used during the timed calls.
Inputs are small integers, so float32 sums are exact.
"""
import argparse
import datetime
import json
import os
import re
import resource
import sys
import time
import zlib

UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12,
         "ki": 1024, "mi": 1024 ** 2, "gi": 1024 ** 3, "ti": 1024 ** 4}


def parse_rate(s):
    """tc rate syntax (25mbit, 1gbit, 3mbps) -> bit/s, like rina-bench."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(|[kmgt]i?)(bit|bps)", s.lower())
    if not m or float(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(
            "link rate '%s': expected a tc rate such as 25mbit" % s)
    v = float(m.group(1)) * UNITS[m.group(2)]
    return v * 8 if m.group(3) == "bps" else v


def parse_size(s):
    m = re.fullmatch(r"([0-9]+)([kKmMgG]?)", s)
    if not m:
        raise argparse.ArgumentTypeError("bad size '%s'" % s)
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20,
                               "g": 30}[m.group(2).lower()]


def wire():
    """(bytes sent by every device but lo, TCP RetransSegs, largest MTU)"""
    tx, mtu = 0, 0
    for dev in os.listdir("/sys/class/net"):
        if dev == "lo":
            continue
        try:
            with open("/sys/class/net/%s/statistics/tx_bytes" % dev) as f:
                tx += int(f.read())
            with open("/sys/class/net/%s/mtu" % dev) as f:
                mtu = max(mtu, int(f.read()))
        except (OSError, ValueError):
            pass
    retx = 0
    with open("/proc/net/snmp") as f:
        lines = [l.split() for l in f if l.startswith("Tcp:")]
    if len(lines) >= 2 and "RetransSegs" in lines[0]:
        retx = int(lines[1][lines[0].index("RetransSegs")])
    return tx, retx, mtu


def cpu():
    """CPU seconds of this process, all threads (Gloo's included)"""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def rank0_addr(job):
    with open(job) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == "rank" and w[1] == "0":
                return w[2].rsplit(":", 1)[0]
    raise SystemExit("gloo_bench: no 'rank 0' line in %s" % job)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-b", type=parse_size, default=1024)
    ap.add_argument("-e", type=parse_size, default=16 << 20)
    ap.add_argument("-f", type=float, default=2.0)
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("-w", type=int, default=5)
    ap.add_argument("-c", type=int, default=1)
    ap.add_argument("-d", choices=("float32", "float", "int32"),
                    default="float32")
    ap.add_argument("-o", choices=("sum",), default="sum")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--link-rate",
                    default=os.environ.get("RINA_LINK_RATE") or None)
    ap.add_argument("--port", type=int, default=29500)
    a = ap.parse_args()
    rate_s = a.link_rate
    try:
        a.link_rate = parse_rate(rate_s) if rate_s else None
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))

    import torch
    import torch.distributed as dist

    rank = int(os.environ["RINA_RANK"])
    n = int(os.environ["RINA_NRANKS"])
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "eth0")
    master = rank0_addr(os.environ["RINA_JOB"])
    dist.init_process_group("gloo", init_method="tcp://%s:%d" %
                            (master, a.port), rank=rank, world_size=n,
                            timeout=datetime.timedelta(seconds=120))
    dt = torch.int32 if a.d == "int32" else torch.float32
    tname = "int32" if a.d == "int32" else "float"
    tri = n * (n + 1) // 2
    size = a.b
    total_wrong = 0
    if rank == 0 and not a.json:
        print("# gloo_bench: torch %s Gloo all_reduce, %d ranks%s" %
              (torch.__version__, n, ", link rate %s" % rate_s
               if rate_s else ""))
        print("# %10s %12s %10s %8s %8s %7s %6s" % ("size", "count", "time",
              "algbw", "busbw", "#wrong", "effic"))
    while size <= a.e:
        count = size // 4
        pattern = (torch.arange(count, dtype=torch.int64) % 13 + 1)
        src = (pattern * (rank + 1)).to(dt)
        buf = src.clone()
        for _ in range(a.w):
            buf.copy_(src)
            dist.all_reduce(buf)
        dist.barrier()
        times = []
        w0 = wire()
        c0, wall0 = cpu(), time.monotonic()
        for _ in range(a.n):
            if a.c:
                buf.copy_(src)
            t0 = time.monotonic()
            dist.all_reduce(buf)
            times.append(time.monotonic() - t0)
        cpu_util = (cpu() - c0) / (time.monotonic() - wall0)
        w1 = wire()
        wrong = int((buf != (pattern * tri).to(dt)).sum()) if a.c else 0
        total_wrong += wrong
        t = sum(times) / len(times)
        times.sort()
        algbw = size / t / 1e9
        busbw = algbw * 2 * (n - 1) / n
        wtx = (w1[0] - w0[0]) / a.n
        retx = w1[1] - w0[1]
        eff = wtx * 8 / a.link_rate / t if a.link_rate else None
        row = {"rank": rank, "size": size, "count": count, "dtype": tname,
               "op": a.o, "n_ranks": n, "nranks": n, "ring_len": n,
               "role": "member", "transport": "gloo",
               "time_us": round(t * 1e6, 2),
               "time_min_us": round(times[0] * 1e6, 2),
               "time_med_us": round(times[len(times) // 2] * 1e6, 2),
               "time_max_us": round(times[-1] * 1e6, 2),
               "algbw_GBps": round(algbw, 4), "busbw_GBps": round(busbw, 4),
               "wrong": wrong, "tx_bytes": round(wtx),
               "wire_tx_bytes": round(wtx), "retransmits": retx,
               "retx_bytes": round(retx * max(w1[2] - 52, 0) / a.n),
               "link_rate": rate_s, "link_rate_bps": a.link_rate,
               "efficiency": round(eff, 4) if eff is not None else None,
               "cpu_util": round(cpu_util, 3),
               "hash": "%08x" % zlib.crc32(buf.numpy().tobytes())}
        if a.json:
            print(json.dumps(row), flush=True)
        elif rank == 0:
            print("  %10d %12d %10.1f %8.3f %8.3f %7d %6s" %
                  (size, count, t * 1e6, algbw, busbw, wrong,
                   "%.3f" % eff if eff is not None else "-"), flush=True)
        nxt = int(size * a.f)
        if a.f <= 1 or nxt <= size:
            break
        size = nxt
    dist.destroy_process_group()
    if rank == 0 and not a.json:
        print("# Out of bounds values : %d %s" %
              (total_wrong, "FAILED" if total_wrong else "OK"))
    return 1 if total_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
