#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench, part 3: what a job secret costs (protocol.md 6.2-6.4):
# signed control messages and the 8-byte data tag on every packet
# ("signed"), and with `auth mac` a MAC per packet instead of the tag
# ("mac"), A/B/C against the same job without a secret, runs interleaved
# in one sweep on the unshaped (CPU-bound) emulation, where the extra
# work would show. Prints per topology and size the busbw of each as
# median [min..max] over repetitions and the ratios signed/unsigned and
# mac/unsigned of each repetition's runs (median [min..max]); rows go to
# BENCH_OUT/auth.jsonl.
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
			for v in signed mac unsigned; do
				opt=(--job-opt "secret_file $secret")
				[ $v = mac ] && opt+=(--job-opt "auth mac")
				[ $v = unsigned ] && opt=(--no-secret)
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

def ratios(topo, size, reps, v):
    return [runs[(topo, size, v, r)] / runs[(topo, size, "unsigned", r)]
            for r in reps if (topo, size, v, r) in runs and
            (topo, size, "unsigned", r) in runs]

print("# job secret cost: busbw GB/s median [min..max]; ratios to unsigned")
print("%-8s %6s %22s %22s %22s %22s %22s" % (
    "topo", "size", "signed", "mac", "unsigned", "signed/unsigned",
    "mac/unsigned"))
for topo, size in sorted({(k[0], k[1]) for k in runs}):
    reps = sorted({k[3] for k in runs if k[:2] == (topo, size)})
    col = {v: [runs[(topo, size, v, r)] for r in reps
               if (topo, size, v, r) in runs]
           for v in ("signed", "mac", "unsigned")}
    rs, rm = ratios(topo, size, reps, "signed"), ratios(topo, size, reps,
                                                         "mac")
    if all(col.values()) and rs and rm:
        print("%-8s %5dK %22s %22s %22s %22s %22s" % (
            topo, size // 1024, fmt(col["signed"]), fmt(col["mac"]),
            fmt(col["unsigned"]), fmt(rs), fmt(rm)))
PY
