#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Summary table and PNG plot of bench_ddp.sh's bare dist.all_reduce
sweep (python/bench/allreduce_bench.py, the backend "rina" against
Gloo, call by call).

  bench_allreduce_plot.py ROWS.jsonl OUTDIR

ROWS.jsonl: allreduce_bench.py --json rows of rank 0, tagged with topo
(KxM, or KxM-ina: every rack INA through its ToR) and rate ("none":
unshaped). Prints a Markdown table (ms a call, median [min..max] over
the calls, each call as slow as its slowest rank; gloo / rina, the
ratio of each turn, median [min..max]), then per setting on shaped
links the largest size against issue 46's targets (every rack INA at
least 1.5x Gloo, plain at least 1.0x). Writes OUTDIR/allreduce_sweep.png
(Debian's python3-matplotlib; no plot without it): one panel per link
kind, time a call against size for each topology and backend, min..max
as error bars; on shaped links a dotted line per topology marks the
allreduce at the link rate (headers not counted), as in
bench_ddp_plot.py.
"""

from bench_ddp_plot import TARGET_INA, TARGET_PLAIN, cli, pyplot, rate_bps


def settings(rows):
    """(rate, topo) in the order of the run."""
    seen = []
    for r in rows:
        if (r["rate"], r["topo"]) not in seen:
            seen.append((r["rate"], r["topo"]))
    return seen


def line_rate_ms(topo, n, size, bps):
    """A ring's 2(n-1)/n S a link; every rack INA: a host's S each way."""
    share = 1 if topo.endswith("-ina") else 2 * (n - 1) / n
    return share * size * 8 / bps * 1e3


def table(rows):
    by = {(r["rate"], r["topo"], r["size"], r["backend"]): r for r in rows}
    print("| topo | links | size | gloo ms | rina ms | gloo / rina | "
          "wrong |")
    print("|---|---|---|---|---|---|---|")
    verdicts = []
    for rate, topo in settings(rows):
        sizes = sorted({r["size"] for r in rows
                        if (r["rate"], r["topo"]) == (rate, topo)})
        for size in sizes:
            g = by.get((rate, topo, size, "gloo"))
            r = by.get((rate, topo, size, "rina"))
            if not g or not r:
                continue
            print("| %s | %s | %d KiB | %.1f [%.1f..%.1f] | "
                  "%.1f [%.1f..%.1f] | %.2f [%.2f..%.2f] | %d |" % (
                      topo, rate, size >> 10, g["time_med_ms"],
                      g["time_min_ms"], g["time_max_ms"],
                      r["time_med_ms"], r["time_min_ms"],
                      r["time_max_ms"], r["vs_gloo_med"],
                      r["vs_gloo_min"], r["vs_gloo_max"],
                      g["wrong"] + r["wrong"]))
        if rate != "none" and sizes:
            verdicts.append((topo, rate, by.get((rate, topo, sizes[-1],
                                                 "rina"))))
    if not verdicts:
        return
    print()
    print("| topo | links | size | gloo / rina | ToR aggregated | target |")
    print("|---|---|---|---|---|---|")
    for topo, rate, r in verdicts:
        if not r:
            continue
        ina = topo.endswith("-ina")
        want = TARGET_INA if ina else TARGET_PLAIN
        tor = "-" if not ina else ("yes" if r.get("agent_tor") == 2 else
                                   "NO (agent_tor %s)" % r.get("agent_tor"))
        print("| %s | %s | %d KiB | %.2f [%.2f..%.2f] | %s | >= %.1f: %s |"
              % (topo, rate, r["size"] >> 10, r["vs_gloo_med"],
                 r["vs_gloo_min"], r["vs_gloo_max"], tor, want,
                 "met" if r["vs_gloo_med"] >= want else "MISSED"))
    print("(gloo / rina: Gloo's time over rina's, turn by turn; > 1: the "
          "backend is faster)")


def plot(rows, outdir):
    plt = pyplot()
    if not plt:
        return
    kinds = [k for k in ("none", "shaped")
             if any((r["rate"] == "none") == (k == "none") for r in rows)]
    fig, axes = plt.subplots(1, len(kinds), figsize=(6 * len(kinds), 4.2),
                             squeeze=False)
    for j, kind in enumerate(kinds):
        ax = axes[0][j]
        rate = "none"
        for t, (rt, topo) in enumerate(settings(rows)):
            if (rt == "none") != (kind == "none"):
                continue
            rate = rt
            for b, style in (("gloo", "--"), ("rina", "-")):
                pts = sorted((r["size"], r) for r in rows
                             if (r["rate"], r["topo"], r["backend"]) ==
                             (rt, topo, b))
                if not pts:
                    continue
                xs = [s >> 10 for s, _ in pts]
                med = [r["time_med_ms"] for _, r in pts]
                lo = [r["time_med_ms"] - r["time_min_ms"] for _, r in pts]
                hi = [r["time_max_ms"] - r["time_med_ms"] for _, r in pts]
                ax.errorbar(xs, med, yerr=[lo, hi], capsize=3,
                            linestyle=style, marker="o", markersize=3,
                            color="C%d" % t, label="%s %s" % (topo, b))
            bps = rate_bps(rt) if kind == "shaped" else None
            if bps and pts:
                n = pts[0][1]["n_ranks"]
                ax.plot(xs, [line_rate_ms(topo, n, s, bps)
                             for s, _ in pts], ":", color="C%d" % t,
                        linewidth=1,
                        label="%s at line rate" % topo)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("all_reduce size (KiB, float32)")
        ax.set_ylabel("ms a call (slowest rank)")
        ax.set_title("unshaped links (CPU-bound)" if kind == "none"
                     else "links shaped to %s" % rate)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = "%s/allreduce_sweep.png" % outdir
    fig.savefig(path, dpi=100)
    print("# plot: %s" % path)


if __name__ == "__main__":
    cli(__doc__, "bench_allreduce_plot", table, plot)
