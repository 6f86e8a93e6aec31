#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench, part 4: INA under loss (issue 14 section 5). Every rack INA
# behind the software ToR ("tor"), every rack INA with software agents
# ("agents", --tor off) and plain RAR ("rar") at librina's drop knob
# (RINA_FAULT_DROP_PPM: each rank drops that share of what it sends),
# runs interleaved in one sweep on the unshaped emulation. Prints per
# variant and loss the slowest rank's median call time as median
# [min..max] over repetitions, and the ratio of each repetition's time to
# the same variant's lossless time in that repetition (median
# [min..max]); rows go to BENCH_OUT/loss.jsonl.
#
#   BENCH_LOSS_TOPO [2x3]  BENCH_LOSS_SIZE [1M]  BENCH_LOSS_PPM ["0 10000
#   100000"]  BENCH_LOSS_VARIANTS ["tor agents rar"]  BENCH_REPS [3]
#   BENCH_ITERS [5]  BENCH_LOSS_BASE [unset]: another tree's build/bin
#   (e.g. a worktree of an older commit); its rina-bench, with the librina
#   it links, runs every variant too, interleaved ("tor@base" ...), for a
#   before/after in one run
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
out=${BENCH_OUT:-$top/build/bench}
reps=${BENCH_REPS:-3}
iters=${BENCH_ITERS:-5}
topo=${BENCH_LOSS_TOPO:-2x3}
size=${BENCH_LOSS_SIZE:-1M}
mkdir -p "$out"
rows=$out/loss.jsonl
: >"$rows"

for ((rep = 0; rep < reps; rep++)); do
	for ppm in ${BENCH_LOSS_PPM:-0 10000 100000}; do
		vs=${BENCH_LOSS_VARIANTS:-tor agents rar}
		for v in $vs; do
			[ -n "${BENCH_LOSS_BASE:-}" ] && vs+=" $v@base"
		done
		for v in $vs; do
			bench=$BENCH
			[ "${v#*@}" = base ] && bench=$BENCH_LOSS_BASE/rina-bench
			case ${v%@*} in
			tor) args=(--ina all --tor on) ;;
			agents) args=(--ina all --tor off) ;;
			*) args=() ;;
			esac
			timeout 600 "$RUN" --topo "$topo" "${args[@]}" -- \
				env RINA_FAULT_DROP_PPM="$ppm" "$bench" \
				-b "$size" -e "$size" -n "$iters" -w 1 \
				-d float32 --json 2>/dev/null |
			sed -n 's/^\[rank [0-9]*\] \({.*}\)$/\1/p' |
			/usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    r.update(variant=sys.argv[1], ppm=int(sys.argv[2]), rep=int(sys.argv[3]))
    print(json.dumps(r))' "$v" "$ppm" "$rep" >>"$rows"
		done
	done
done

/usr/bin/python3 - "$rows" "$topo" "$size" "$out/loss.png" <<'PY'
import collections, json, statistics, sys

# a run's time: its slowest rank's median call (the call ends when the
# last rank has the result); retransmissions summed over the ranks
runs = collections.defaultdict(float)
retx = collections.defaultdict(int)
wrong = collections.defaultdict(int)
for line in open(sys.argv[1]):
    r = json.loads(line)
    k = (r["variant"], r["ppm"], r["rep"])
    runs[k] = max(runs[k], r["time_med_us"] / 1000)
    retx[k] += r["retransmits"]
    wrong[k] += r["wrong"]

def fmt(v, f="%.1f"):
    return (f + " [" + f + ".." + f + "]") % (statistics.median(v), min(v),
                                              max(v))

print("# INA under loss, %s, %s float32: call time ms median [min..max];"
      " ratio to the variant's lossless time in the same repetition"
      % (sys.argv[2], sys.argv[3]))
print("%-8s %6s %26s %24s %10s %6s" % ("variant", "loss", "time_ms",
                                      "x_lossless", "retx/run", "wrong"))
for v, ppm in sorted({k[:2] for k in runs}, key=lambda k: (k[0], k[1])):
    reps = sorted(k[2] for k in runs if k[:2] == (v, ppm))
    t = [runs[(v, ppm, r)] for r in reps]
    x = [runs[(v, ppm, r)] / runs[(v, 0, r)] for r in reps
         if (v, 0, r) in runs and runs[(v, 0, r)] > 0]
    print("%-8s %5.1f%% %26s %24s %10d %6d" % (
        v, ppm / 1e4, fmt(t), fmt(x, "%.2f") if x else "-",
        statistics.median([retx[(v, ppm, r)] for r in reps]),
        sum(wrong[(v, ppm, r)] for r in reps)))

# the figure: time / lossless time per variant and loss, median with
# min..max as error bars, log scale (the ratios span 1 to 100)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
variants = sorted({k[0] for k in runs})
losses = sorted({k[1] for k in runs if k[1]})
fig, ax = plt.subplots(figsize=(7, 4))
width = 0.8 / max(len(variants), 1)
for i, v in enumerate(variants):
    med, lo, hi = [], [], []
    for ppm in losses:
        x = [runs[(v, ppm, r)] / runs[(v, 0, r)] for r in
             sorted(k[2] for k in runs if k[:2] == (v, ppm))
             if runs.get((v, 0, r))]
        m = statistics.median(x) if x else float("nan")
        med.append(m)
        lo.append(m - min(x) if x else 0)
        hi.append(max(x) - m if x else 0)
    ax.bar([j + i * width for j in range(len(losses))], med, width,
           yerr=[lo, hi], capsize=3, label=v)
ax.set_xticks([j + width * (len(variants) - 1) / 2
               for j in range(len(losses))])
ax.set_xticklabels(["%g%% loss" % (p / 1e4) for p in losses])
ax.set_yscale("log")
ax.set_ylabel("call time / lossless time")
ax.axhline(2, color="grey", lw=0.5, ls="--")
ax.axhline(5, color="grey", lw=0.5, ls="--")
ax.set_title("INA under loss, %s, %s float32" % (sys.argv[2], sys.argv[3]))
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[4])
print("# figure:", sys.argv[4])
PY
