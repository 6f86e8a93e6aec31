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

usage: bench_agg.py [--json] [FILE...]   (stdin without FILE)
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
    return {"time_us": t, "busbw": busbw, "nranks": n, "wrong": wrong,
            "tx_bytes": tx}


def mmm(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


def aggregate(runs):
    """-> {(topo, variant, size): {rep: run_stats}}"""
    per = {}
    for (topo, variant, size, rep), rows in runs.items():
        per.setdefault((topo, variant, size), {})[rep] = run_stats(rows)
    return per


def summarize(per):
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


def main(argv):
    if argv[:1] == ["--tag"]:
        if len(argv) != 4:
            print(__doc__, file=sys.stderr)
            return 2
        return 0 if tag(sys.stdin, argv[1], argv[2], argv[3]) else 1
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    lines = []
    if not files:
        lines = sys.stdin.readlines()
    for name in files:
        with open(name) as fh:
            lines += fh.readlines()
    summary = summarize(aggregate(load(lines)))
    if as_json:
        for s in summary:
            print(json.dumps(s, sort_keys=True))
    else:
        print_table(summary)
    return 0 if summary else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
