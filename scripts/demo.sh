#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina demo: an emulated cluster of 2 racks x 2 hosts in network
# namespaces runs a small data-parallel training job whose gradients are
# averaged with Rina allreduce, an allreduce benchmark with result
# checking, then, on links shaped to RINA_DEMO_RATE (25mbit), INA racks
# beside plain RAR and OpenMPI's ring, with their busbw ratios. Needs root;
# `make demo` installs and builds what is missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/bin
topo=${RINA_DEMO_TOPO:-2x2}
ina=${RINA_DEMO_INA:-none}

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (it creates network namespaces)" >&2
	exit 1
fi

echo "== Rina demo: topology $topo (racks x hosts), INA racks: $ina"
echo "== 1. data-parallel training, gradients averaged by rina_allreduce"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin/rina-run" --topo "$topo" --ina "$ina" --timeout 300 -- \
	"$bin/rina-train-demo" 60 20000 | tee "$out"
hashes=$(grep -o 'final weights hash [0-9a-f]*' "$out" | sort -u | wc -l)
ranks=$(grep -c 'final weights hash' "$out")
if [ "$hashes" -eq 1 ]; then
	echo "== all $ranks ranks hold bitwise-identical weights"
else
	echo "== ranks disagree on the weights" >&2
	exit 1
fi

echo
echo "== 2. rina-bench: float32 sum, checked against a CPU reference"
"$bin/rina-run" --topo "$topo" --ina "$ina" --timeout 300 -- \
	"$bin/rina-bench" -b 64K -e 16M -f 4 -n 5 -w 2 -c 1 -d float32
echo
rate=${RINA_DEMO_RATE:-25mbit}
echo "== 3. what INA is for: the network as the bottleneck. Every link shaped"
echo "==    to $rate (rina-run --rate), the same 1 MiB allreduce by plain RAR,"
echo "==    by both racks INA (each rack is one ring member, each worker moves"
echo "==    the tensor once each way; rina-tor, the software ToR, adds) and by"
echo "==    OpenMPI's ring over TCP; busbw/mpi-ring > 1 means faster than MPI"
rows=$(mktemp)
trap 'rm -f "$out" "$rows"' EXIT
demo_run()
{
	local v=$1; shift
	"$bin/rina-run" --topo "$topo" --rate "$rate" --timeout 120 "$@" \
		>"$out" 2>&1 || { tail -5 "$out" >&2; return 1; }
	python3 "$top/scripts/bench_agg.py" --tag "$topo" "$v" 0 <"$out" \
		>>"$rows"
}
sz=(-b 1M -e 1M -n 2 -w 1 -c 1 -d float32 --json)
demo_run rina-udp -- "$bin/rina-bench" "${sz[@]}"
demo_run rina-ina-all --ina all -- "$bin/rina-bench" "${sz[@]}"
if [ -x "$bin/mpi-bench" ] && command -v mpirun >/dev/null; then
	demo_run mpi-ring --mpi --mpi-args \
		"--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4" \
		-- "$bin/mpi-bench" "${sz[@]}"
fi
python3 "$top/scripts/bench_agg.py" --rate "$rate" "$rows"
python3 "$top/scripts/bench_agg.py" --rate "$rate" --json "$rows" |
	python3 -c 'import json, sys
r = {s["variant"]: s for s in map(json.loads, sys.stdin)}
bw = lambda v: r[v]["busbw_GBps"]["median"] if v in r else 0
ring = bw("mpi-ring")
for v, name in (("rina-ina-all", "Rina INA (both racks)"),
                ("rina-udp", "Rina plain RAR")):
    if v in r and ring:
        print("== %s: %.2fx the busbw of OpenMPI'"'"'s ring at the same rate"
              % (name, bw(v) / ring))'
echo "== (efficiency: a rank's wire bytes at $rate over its time. Ring members"
echo "==  and INA workers adapt a congestion window to the path (INA ones"
echo "==  never below P + 1 packets, 2 (P + 1) when every rack is INA,"
echo "==  Documentation/protocol.md 6.1); INA"
echo "==  packets carry 256 elements, 1024 data bytes per 1102-byte frame:"
echo "==  Documentation/performance.md)"
echo
echo "== done: see README.md for the API, the job file and real hosts"
