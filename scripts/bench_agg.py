#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Aggregate the --json rows of rina-bench and mpi-bench runs for bench.sh.

Input: JSON lines, each a benchmark row (rank, size, time_us, wrong, ...)
tagged by bench.sh with "topo", "variant" and "rep". Lines that are not
JSON objects are ignored.

One run = (topo, variant, rep); its time for a size is the slowest rank's
time_us (an allreduce is over when the last rank has its result), and its
busbw = size / time * 2 (n - 1) / n with n the run's rank count. Across
repetitions: median, min and max. The ratio rina/OpenMPI compares busbw of
the rina variant and an MPI variant of the same repetition (the runs are
interleaved), then takes median, min and max of those ratios. Rows that
carry tx_bytes (rina-bench) show, in the ratio column, the median of the
largest per-rank tx_bytes over the size, against a plain ring's 2(n - 1)/n.

Shaped runs (--rate RATE, the links' tc rate): per run also the largest
per-rank wire_tx_bytes (what a rank's devices sent per call) and
retx_bytes, and the efficiency: that largest wire_tx_bytes at RATE over
the run's time (the slowest rank's); every variant's busbw ratio to
mpi-ring of the same repetition ("vs_ring"); the busiest rank's cpu_util
(share of a core during the timed calls, max over repetitions); the
table shows those.

usage: bench_agg.py [--json] [--rate RATE] [FILE...]   (stdin without FILE)
       bench_agg.py --tag TOPO VARIANT REP < rina-run.log >> rows.jsonl
  --tag: keep the JSON rows of one run's output, strip rina-run's
  "[rank N] " / "[mpirun] " prefixes and tag them with topo, variant, rep.
"""
import json
import re
import statistics
import sys

PREFIX = re.compile(r"^\[(rank [0-9]+|mpirun)\] ")


def tag(lines, topo, variant, rep, f=sys.stdout):
    n = 0
    for line in lines:
        line = PREFIX.sub("", line.rstrip("\n"))
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict) or "size" not in row:
            continue
        row.update({"topo": topo, "variant": variant, "rep": int(rep)})
        print(json.dumps(row, sort_keys=True), file=f)
        n += 1
    return n


def human(size):
    for unit, mul in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= mul and size % mul == 0:
            return "%d%s" % (size // mul, unit)
    return str(size)


def load(lines):
    runs = {}  # (topo, variant, size, rep) -> list of rows
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
            key = (str(row["topo"]), str(row["variant"]), int(row["size"]),
                   int(row["rep"]))
            float(row["time_us"])
        except (ValueError, KeyError, TypeError):
            print("bench_agg: ignoring malformed row: %s" % line[:80],
                  file=sys.stderr)
            continue
        runs.setdefault(key, []).append(row)
    return runs


def run_stats(rows):
    """The slowest rank's time, the rank count and busbw of one run."""
    ranks = {r.get("rank") for r in rows}
    n = max([int(r.get("nranks", 0)) for r in rows] + [len(ranks)])
    t = max(float(r["time_us"]) for r in rows)
    size = int(rows[0]["size"])
    algbw = size / t / 1e3 if t > 0 else 0.0
    busbw = algbw * 2 * (n - 1) / n if n > 1 else algbw
    wrong = sum(int(r.get("wrong", 0)) for r in rows)
    tx = max([int(r["tx_bytes"]) for r in rows if "tx_bytes" in r] or [0])
    wire = max([float(r["wire_tx_bytes"]) for r in rows
                if r.get("wire_tx_bytes") is not None] or [0])
    retx = max([float(r["retx_bytes"]) for r in rows
                if r.get("retx_bytes") is not None] or [0])
    cpu = max([float(r["cpu_util"]) for r in rows
               if r.get("cpu_util") is not None] or [0])
    return {"time_us": t, "busbw": busbw, "nranks": n, "wrong": wrong,
            "tx_bytes": tx, "wire_tx_bytes": wire, "retx_bytes": retx,
            "cpu_util": cpu}


def parse_rate(s):
    """tc rate syntax (25mbit, 1gbit, 3mbps) -> bit/s"""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(|[kmgt]i?)(bit|bps)",
                     s.lower())
    if not m:
        raise ValueError("bad rate '%s'" % s)
    mul = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "ki": 1024,
           "mi": 1024 ** 2, "gi": 1024 ** 3, "ti": 1024 ** 4}[m.group(2)]
    return float(m.group(1)) * mul * (8 if m.group(3) == "bps" else 1)


def mmm(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


def aggregate(runs):
    """-> {(topo, variant, size): {rep: run_stats}}"""
    per = {}
    for (topo, variant, size, rep), rows in runs.items():
        per.setdefault((topo, variant, size), {})[rep] = run_stats(rows)
    return per


def summarize(per, rate_bps=None):
    out = []
    for (topo, variant, size) in sorted(per, key=lambda k: (k[0], k[2], k[1])):
        reps = per[(topo, variant, size)]
        s = {"topo": topo, "variant": variant, "size": size,
             "nranks": max(r["nranks"] for r in reps.values()),
             "reps": len(reps),
             "time_us": mmm([r["time_us"] for r in reps.values()]),
             "busbw_GBps": mmm([r["busbw"] for r in reps.values()]),
             "wrong": sum(r["wrong"] for r in reps.values())}
        tx = [r["tx_bytes"] / size for r in reps.values() if r["tx_bytes"]]
        if tx:
            # bytes one rank put on the wire per allreduce, over the size;
            # a plain ring needs 2(n-1)/n (plus headers)
            s["tx_per_size"] = mmm(tx)
        if variant.startswith("mpi"):
            for rv in sorted({k[1] for k in per if k[0] == topo and
                              k[2] == size and k[1].startswith("rina")}):
                rina = per[(topo, rv, size)]
                ratios = [rina[rep]["busbw"] / reps[rep]["busbw"]
                          for rep in sorted(reps)
                          if rep in rina and reps[rep]["busbw"] > 0]
                if ratios:
                    s.setdefault("ratio", {})[rv] = mmm(ratios)
        if rate_bps:
            wire = [r["wire_tx_bytes"] for r in reps.values()]
            s["wire_tx_bytes"] = mmm(wire)
            s["retx_bytes"] = mmm([r["retx_bytes"] for r in reps.values()])
            s["cpu_util_max"] = max(r["cpu_util"] for r in reps.values())
            if all(wire):
                s["efficiency"] = mmm([r["wire_tx_bytes"] * 8 / rate_bps /
                                       (r["time_us"] / 1e6)
                                       for r in reps.values()])
            ring = per.get((topo, "mpi-ring", size))
            if ring:
                ratios = [reps[rep]["busbw"] / ring[rep]["busbw"]
                          for rep in sorted(reps)
                          if rep in ring and ring[rep]["busbw"] > 0]
                if ratios:
                    s["vs_ring"] = mmm(ratios)
        base = per.get((topo, "rina-udp", size))
        if variant.startswith(("rina-ina", "rina-agent")) and base:
            # INA against plain Rina RAR on the same topology, same rep
            ratios = [reps[rep]["busbw"] / base[rep]["busbw"]
                      for rep in sorted(reps)
                      if rep in base and base[rep]["busbw"] > 0]
            if ratios:
                s["vs_rar"] = mmm(ratios)
        out.append(s)
    return out


def fmt(m, prec):
    return "%.*f [%.*f..%.*f]" % (prec, m["median"], prec, m["min"],
                                  prec, m["max"])


def print_table(summary, f=sys.stdout):
    topos = sorted({s["topo"] for s in summary})
    for topo in topos:
        rows = [s for s in summary if s["topo"] == topo]
        nr = max(s["nranks"] for s in rows)
        variants = sorted({s["variant"] for s in rows})
        rina = [v for v in variants if v.startswith("rina")]
        print("# topo %s, %d ranks; median [min..max] over repetitions"
              % (topo, nr), file=f)
        print("# %6s  %-12s %4s  %-30s %-24s %s" %
              ("size", "variant", "reps", "time_us", "busbw_GBps",
               "busbw ratio " + ",".join(r + "/this" for r in rina)
               if rina else "busbw ratio rina/this"), file=f)
        for s in rows:
            ratio = "-"
            if "ratio" in s:
                ratio = "  ".join(fmt(s["ratio"][r], 2)
                                  for r in sorted(s["ratio"]))
            elif s["variant"].startswith("mpi") and not rina:
                ratio = "n/a (no rina runs)"
            elif "tx_per_size" in s:
                n = s["nranks"]
                ratio = "wire tx/size %.2f (ring %.2f)" % (
                    s["tx_per_size"]["median"], 2 * (n - 1) / n)
                if "vs_rar" in s:
                    ratio += "  busbw/rina-udp %s" % fmt(s["vs_rar"], 2)
            wrong = "" if not s["wrong"] else "  WRONG %d" % s["wrong"]
            print("  %6s  %-12s %4d  %-30s %-24s %s%s" %
                  (human(s["size"]), s["variant"], s["reps"],
                   fmt(s["time_us"], 1), fmt(s["busbw_GBps"], 3), ratio,
                   wrong), file=f)
        print(file=f)


def human_bytes(b):
    for unit, mul in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= mul:
            return "%.2f%s" % (b / mul, unit)
    return "%.0f" % b


def print_shaped_table(summary, rate, f=sys.stdout):
    for topo in sorted({s["topo"] for s in summary}):
        rows = [s for s in summary if s["topo"] == topo]
        nr = max(s["nranks"] for s in rows)
        print("# topo %s, %d ranks, links shaped at %s; median [min..max] "
              "over repetitions" % (topo, nr, rate), file=f)
        print("# %6s  %-13s %4s  %-26s %-24s %-20s %9s %9s %5s  %s" %
              ("size", "variant", "reps", "time_us", "busbw_GBps",
               "efficiency", "wire/rank", "retx/rank", "cpu",
               "busbw/mpi-ring"), file=f)
        for s in rows:
            eff = fmt(s["efficiency"], 3) if "efficiency" in s else "-"
            wire = human_bytes(s["wire_tx_bytes"]["median"]) \
                if "wire_tx_bytes" in s else "-"
            retx = human_bytes(s["retx_bytes"]["median"]) \
                if "retx_bytes" in s else "-"
            ring = fmt(s["vs_ring"], 2) if "vs_ring" in s else "-"
            wrong = "" if not s["wrong"] else "  WRONG %d" % s["wrong"]
            cpu = "%.2f" % s["cpu_util_max"] if "cpu_util_max" in s else "-"
            print("  %6s  %-13s %4d  %-26s %-24s %-20s %9s %9s %5s  %s%s" %
                  (human(s["size"]), s["variant"], s["reps"],
                   fmt(s["time_us"], 0), fmt(s["busbw_GBps"], 4), eff,
                   wire, retx, cpu, ring, wrong), file=f)
        print(file=f)


def main(argv):
    if argv[:1] == ["--tag"]:
        if len(argv) != 4:
            print(__doc__, file=sys.stderr)
            return 2
        return 0 if tag(sys.stdin, argv[1], argv[2], argv[3]) else 1
    rate = None
    if "--rate" in argv:
        i = argv.index("--rate")
        if i + 1 >= len(argv):
            print(__doc__, file=sys.stderr)
            return 2
        rate = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    lines = []
    if not files:
        lines = sys.stdin.readlines()
    for name in files:
        with open(name) as fh:
            lines += fh.readlines()
    summary = summarize(aggregate(load(lines)),
                        parse_rate(rate) if rate else None)
    if as_json:
        for s in summary:
            print(json.dumps(s, sort_keys=True))
    elif rate:
        print_shaped_table(summary, rate)
    else:
        print_table(summary)
    return 0 if summary else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
