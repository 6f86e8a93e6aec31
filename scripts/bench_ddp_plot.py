#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Summary table and PNG plot of scripts/bench_ddp.sh's DDP step times.

  bench_ddp_plot.py ROWS.jsonl OUTDIR

ROWS.jsonl: python/bench/ddp_bench.py --json rows tagged with topo
(KxM, or KxM-ina: every rack INA through its ToR), rate ("none":
unshaped) and load1. Prints a Markdown table (median [min..max] ms per
step, the speed-up over Gloo DDP: Gloo's median over the mode's), then
the backend "rina" against Gloo per setting with issue 46's targets on
shaped links (all-INA at least 1.5x Gloo, plain at least 1.0x) and
whether the INA racks' ToRs aggregated (agent_tor 2 on rank 0, rack 0's
agent), and when the hook ran, issue 11's targets (the hook at least as
fast as the manual allreduce, and faster than Gloo). Writes
OUTDIR/ddp_step_time.png (Debian's python3-matplotlib; no plot without
it): one panel per model and link kind, a group of bars per topology,
one bar per mode, min..max as error bars; on shaped links a dashed line
marks the gradients' allreduce at the link rate (headers not counted):
a ring's 2(n-1)/n * 4 * params * 8 / rate, and with every rack INA a
host's 4 * params * 8 / rate (its gradients up to the ToR, the sum
back, both at once).
"""
import json
import re
import sys

MODE_ORDER = ("local", "gloo", "rina-backend", "rina-hook", "rina-manual")
TARGET_INA = 1.5		# issue 46, shaped links, every rack INA
TARGET_PLAIN = 1.0


def settings(rows):
    """(params, rate, topo) in the order of the run."""
    seen = []
    for r in rows:
        k = (r["params"], r["rate"], r["topo"])
        if k not in seen:
            seen.append(k)
    return seen


def rate_bps(rate):
    """tc's rate syntax as rina-run takes it (50mbit, 1gbit) -> bit/s."""
    m = re.fullmatch(r"([0-9.]+)([kmg]?)bit", rate.lower())
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6,
                                "g": 1e9}[m.group(2)]


def mega(n):
    return "%.1fM" % (n / 1e6)


def table(rows):
    by = {(r["params"], r["rate"], r["topo"], r["mode"]): r for r in rows}
    print("| params | topo | links | load | mode | ms per step | "
          "vs gloo | fwd | bwd | allreduce | buckets |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    backend = []
    for p, rate, topo in settings(rows):
        for m in MODE_ORDER:
            r = by.get((p, rate, topo, m))
            if not r:
                continue
            sp = r.get("speedup_vs_gloo")
            print("| %s | %s | %s | %s | %s | %.0f [%.0f..%.0f] | %s | "
                  "%.0f | %.0f | %.0f | %s |" % (
                      mega(p), topo, rate, r.get("load1", "-"), m,
                      r["median_ms"], r["min_ms"], r["max_ms"],
                      "%.2f" % sp if sp else "-", r["fwd_ms"],
                      r["bwd_ms"], r["allreduce_ms"],
                      r.get("buckets", "")))
        be = by.get((p, rate, topo, "rina-backend"))
        gloo = by.get((p, rate, topo, "gloo"))
        if be and gloo:
            backend.append((mega(p), topo, rate, be, gloo))
        hook = by.get((p, rate, topo, "rina-hook"))
        man = by.get((p, rate, topo, "rina-manual"))
        gloo = by.get((p, rate, topo, "gloo"))
        if hook and man and gloo:
            verdicts.append((mega(p), topo, rate,
                             man["median_ms"] / hook["median_ms"],
                             gloo["median_ms"] / hook["median_ms"]))
    if backend:
        backend_table(backend)
    if verdicts:
        print()
        print("| params | topo | links | hook vs manual | hook vs gloo | "
              "targets |")
        print("|---|---|---|---|---|---|")
        for p, topo, rate, vm, vg in verdicts:
            ok = []
            ok.append("manual: %s" % ("met" if vm >= 1 else "missed"))
            ok.append("gloo: %s" % ("met" if vg > 1 else "missed"))
            print("| %s | %s | %s | %.2f | %.2f | %s |" % (
                p, topo, rate, vm, vg, ", ".join(ok)))
        print("(speed-ups: the other's median over the hook's; > 1: the "
              "hook is faster)")


def backend_table(backend):
    """Backend "rina" against Gloo, one line per setting."""
    print()
    print("| params | topo | links | rina-backend ms | gloo ms | "
          "gloo / rina | ToR aggregated | target |")
    print("|---|---|---|---|---|---|---|---|")
    for p, topo, rate, be, gloo in backend:
        ratio = gloo["median_ms"] / be["median_ms"]
        lo = gloo["min_ms"] / be["max_ms"]
        hi = gloo["max_ms"] / be["min_ms"]
        ina = topo.endswith("-ina")
        tor = be.get("agent_tor")
        tor_s = "-" if not ina else ("yes" if tor == 2 else
                                     "NO (agent_tor %s)" % tor)
        target = "-"
        if rate != "none":
            want = TARGET_INA if ina else TARGET_PLAIN
            target = ">= %.1f: %s" % (want,
                                      "met" if ratio >= want else "MISSED")
        print("| %s | %s | %s | %.0f [%.0f..%.0f] | %.0f [%.0f..%.0f] | "
              "%.2f [%.2f..%.2f] | %s | %s |" % (
                  p, topo, rate, be["median_ms"], be["min_ms"],
                  be["max_ms"], gloo["median_ms"], gloo["min_ms"],
                  gloo["max_ms"], ratio, lo, hi, tor_s, target))
    print("(gloo / rina: medians, in brackets the extremes, Gloo's "
          "fastest over rina's slowest and the other way; > 1: the "
          "backend is faster)")


def pyplot():
    """matplotlib.pyplot without a display, or None (and a word) when
    Debian's python3-matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        print("# no python3-matplotlib: no plot", file=sys.stderr)
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(rows, outdir):
    plt = pyplot()
    if not plt:
        return
    params = sorted({r["params"] for r in rows})
    kinds = ["none", "shaped"]
    fig, axes = plt.subplots(len(params), 2, figsize=(11, 3.6 * len(params)),
                             squeeze=False)
    modes = [m for m in MODE_ORDER if any(r["mode"] == m for r in rows)]
    width = 0.8 / max(len(modes), 1)
    for i, p in enumerate(params):
        for j, kind in enumerate(kinds):
            ax = axes[i][j]
            pr = [r for r in rows if r["params"] == p and
                  (r["rate"] == "none") == (kind == "none")]
            topos = []
            for r in pr:
                if r["topo"] not in topos:
                    topos.append(r["topo"])
            rate = next((r["rate"] for r in pr), "none")
            for k, m in enumerate(modes):
                xs, med, lo, hi = [], [], [], []
                for t, topo in enumerate(topos):
                    r = next((r for r in pr if r["topo"] == topo and
                              r["mode"] == m), None)
                    if not r:
                        continue
                    xs.append(t + (k - (len(modes) - 1) / 2) * width)
                    med.append(r["median_ms"])
                    lo.append(r["median_ms"] - r["min_ms"])
                    hi.append(r["max_ms"] - r["median_ms"])
                ax.bar(xs, med, width, yerr=[lo, hi], capsize=3,
                       label=m, color="C%d" % MODE_ORDER.index(m))
            bps = rate_bps(rate) if kind == "shaped" else None
            for t, topo in enumerate(topos):
                r = next((r for r in pr if r["topo"] == topo), None)
                if not bps or not r:
                    continue
                n = r["ranks"]
                share = 1 if topo.endswith("-ina") else 2 * (n - 1) / n
                ideal = share * 4 * p * 8 / bps * 1e3
                ax.hlines(ideal, t - 0.45, t + 0.45, colors="k",
                          linestyles="--", linewidth=1,
                          label="allreduce at line rate" if t == 0
                          else None)
            ax.set_xticks(range(len(topos)))
            ax.set_xticklabels(topos)
            ax.set_ylabel("ms per training step")
            ax.set_title("%s parameters, %s" % (
                mega(p), "unshaped links (CPU-bound)" if kind == "none"
                else "links shaped to %s" % rate))
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = "%s/ddp_step_time.png" % outdir
    fig.savefig(path, dpi=100)
    print("# plot: %s" % path)


def cli(doc, name, table_fn, plot_fn):
    """NAME ROWS.jsonl OUTDIR: the table of ROWS, its plot in OUTDIR
    (this script's and bench_allreduce_plot.py's command line)."""
    if len(sys.argv) != 3:
        print(doc, file=sys.stderr)
        sys.exit(2)
    path, outdir = sys.argv[1:]
    rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    if not rows:
        print("%s: no rows in %s" % (name, path), file=sys.stderr)
        sys.exit(1)
    table_fn(rows)
    plot_fn(rows, outdir)


if __name__ == "__main__":
    cli(__doc__, "bench_ddp_plot", table, plot)
