#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""PNG plots of a shaped make bench (Debian's python3-matplotlib).

  bench_plot.py SUMMARY.jsonl OUTDIR RATE

SUMMARY.jsonl is bench_agg.py --rate RATE --json output. Writes
OUTDIR/busbw_vs_size.png (one panel per topology, busbw of every variant
against the size, median with min..max bars) and
OUTDIR/busbw_vs_ina_racks.png (busbw at the largest size against the
number of INA racks, x = 0 being plain RAR, one line per topology, with
OpenMPI's ring on the same links as a dashed line).
"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(size):
    for unit, mul in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= mul and size % mul == 0:
            return "%d%s" % (size // mul, unit)
    return str(size)


def errbar(ax, xs, rows, **kw):
    med = [r["busbw_GBps"]["median"] * 1e3 for r in rows]
    lo = [m - r["busbw_GBps"]["min"] * 1e3 for m, r in zip(med, rows)]
    hi = [r["busbw_GBps"]["max"] * 1e3 - m for m, r in zip(med, rows)]
    ax.errorbar(xs, med, yerr=[lo, hi], capsize=3, marker="o", **kw)


def ina_racks(variant):
    if variant == "rina-udp":
        return 0
    if variant.startswith("rina-ina-x") and variant[-4:] != "-e64":
        return int(variant[len("rina-ina-x"):])
    return None


def main(path, outdir, rate):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    topos = sorted({r["topo"] for r in rows})
    # one colour per variant in every panel
    colors = {v: "C%d" % (i % 10) for i, v in
              enumerate(sorted({r["variant"] for r in rows}))}
    fig, axes = plt.subplots(1, len(topos), figsize=(5 * len(topos), 4),
                             squeeze=False)
    for ax, topo in zip(axes[0], topos):
        tr = [r for r in rows if r["topo"] == topo]
        for v in sorted({r["variant"] for r in tr}):
            vr = sorted((r for r in tr if r["variant"] == v),
                        key=lambda r: r["size"])
            errbar(ax, [r["size"] for r in vr], vr, label=v,
                   color=colors[v],
                   linestyle="--" if v.startswith(("mpi", "gloo")) else "-")
        ax.set_xscale("log", base=2)
        sizes = sorted({r["size"] for r in tr})
        ax.set_xticks(sizes)
        ax.set_xticklabels([label(x) for x in sizes])
        ax.set_title("%s, links at %s" % (topo, rate))
        ax.set_xlabel("allreduce size (float32)")
        ax.set_ylabel("busbw (MB/s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig("%s/busbw_vs_size.png" % outdir, dpi=100)

    fig, ax = plt.subplots(figsize=(6, 4))
    for i, topo in enumerate(topos):
        tr = [r for r in rows if r["topo"] == topo]
        big = max(r["size"] for r in tr)
        pts = sorted(((ina_racks(r["variant"]), r) for r in tr
                      if r["size"] == big and
                      ina_racks(r["variant"]) is not None),
                     key=lambda p: p[0])
        if not pts:
            continue
        color = "C%d" % i
        errbar(ax, [p[0] for p in pts], [p[1] for p in pts], color=color,
               label="%s Rina, %s" % (topo, label(big)))
        ring = [r for r in tr if r["size"] == big and
                r["variant"] == "mpi-ring"]
        if ring:
            ax.axhline(ring[0]["busbw_GBps"]["median"] * 1e3, color=color,
                       linestyle="--", linewidth=1,
                       label="%s OpenMPI ring" % topo)
    ax.set_xlabel("INA racks (0: plain RAR)")
    ax.set_ylabel("busbw (MB/s)")
    ax.set_title("busbw vs INA racks, links at %s" % rate)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig("%s/busbw_vs_ina_racks.png" % outdir, dpi=100)
    print("# plots: %s/busbw_vs_size.png %s/busbw_vs_ina_racks.png"
          % (outdir, outdir))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
