#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench, part 3: what a job secret costs (protocol.md 6.2-6.3):
# signed control messages and the 8-byte data tag on every packet, A/B
# against the same job without a secret, runs interleaved in one sweep on
# the unshaped (CPU-bound) emulation, where the extra work would show.
# Prints per topology and size the busbw of both as median [min..max]
# over repetitions and the ratio signed/unsigned of each repetition's pair
# (median [min..max]); rows go to BENCH_OUT/auth.jsonl.
#
#   BENCH_AUTH_TOPOS ["2x2 2x2-ina"] (-ina: every rack INA, software
#   agents; -tor: every rack INA behind the software ToR, rina-tor, which
#   checks and writes the tag)  BENCH_AUTH_SIZES ["1M 16M"]  BENCH_REPS [5]  BENCH_ITERS [10]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
out=${BENCH_OUT:-$top/build/bench}
reps=${BENCH_REPS:-5}
iters=${BENCH_ITERS:-10}
mkdir -p "$out"
rows=$out/auth.jsonl
: >"$rows"
secret=$(mktemp /tmp/rina-bench-secret.XXXXXX)
trap 'rm -f "$secret"' EXIT
od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$secret"

for ((rep = 0; rep < reps; rep++)); do
	for t in ${BENCH_AUTH_TOPOS:-2x2 2x2-ina}; do
		args=(--topo "${t%-*}")
		case $t in
		*-ina) args+=(--ina all --tor off) ;;
		*-tor) args+=(--ina all --tor on) ;;
		*) args=(--topo "$t") ;;
		esac
		for size in ${BENCH_AUTH_SIZES:-1M 16M}; do
			for v in signed unsigned; do
				opt=(--no-secret)
				[ $v = signed ] && opt=(--job-opt "secret_file $secret")
				"$RUN" "${args[@]}" "${opt[@]}" -- "$BENCH" \
					-b "$size" -e "$size" -n "$iters" -w 2 \
					--json 2>/dev/null |
				sed -n 's/^\[rank [0-9]*\] \({.*}\)$/\1/p' |
				/usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    r.update(topo=sys.argv[1], variant=sys.argv[2], rep=int(sys.argv[3]))
    print(json.dumps(r))' "$t" "$v" "$rep" >>"$rows"
			done
		done
	done
done

/usr/bin/python3 - "$rows" <<'PY'
import collections, json, statistics, sys

# a run's busbw: its slowest rank's (the call ends when the last has it)
runs = collections.defaultdict(lambda: float("inf"))
for line in open(sys.argv[1]):
    r = json.loads(line)
    k = (r["topo"], r["size"], r["variant"], r["rep"])
    runs[k] = min(runs[k], r["busbw_GBps"])

def fmt(v):
    return "%.3f [%.3f..%.3f]" % (statistics.median(v), min(v), max(v))

print("# job secret cost: busbw GB/s median [min..max], signed/unsigned")
print("%-8s %6s %26s %26s %24s" % ("topo", "size", "signed", "unsigned",
                                   "ratio"))
for topo, size in sorted({(k[0], k[1]) for k in runs}):
    reps = sorted({k[3] for k in runs if k[:2] == (topo, size)})
    s = [runs[(topo, size, "signed", r)] for r in reps
         if (topo, size, "signed", r) in runs]
    u = [runs[(topo, size, "unsigned", r)] for r in reps
         if (topo, size, "unsigned", r) in runs]
    ratio = [runs[(topo, size, "signed", r)] / runs[(topo, size,
             "unsigned", r)] for r in reps
             if (topo, size, "signed", r) in runs and
             (topo, size, "unsigned", r) in runs]
    if s and u and ratio:
        print("%-8s %5dK %26s %26s %24s" % (topo, size // 1024, fmt(s),
                                            fmt(u), fmt(ratio)))
PY
