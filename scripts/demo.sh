#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina demo: an emulated cluster of 2 racks x 2 hosts in network
# namespaces runs a small data-parallel training job whose gradients are
# averaged with Rina allreduce, then an allreduce benchmark with result
# checking. Needs root; `make demo` installs and builds what is missing.
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
echo "== 3. the same racks with INA: each rack is one ring member (ring of 2"
echo "==    instead of 4) and each worker moves the tensor once each way"
echo "==    (tx/rank against the ring's theory, with 64-element packets);"
echo "==    rina-tor, the software ToR of each rack, adds the contributions"
echo "==    (\"tor: on\"); it is a user process here, a P4 switch in a cluster"
"$bin/rina-run" --topo "$topo" --ina all --timeout 300 -- \
	"$bin/rina-bench" -b 64K -e 4M -f 4 -n 3 -w 1 -c 1 -d float32
echo
echo "== done: see README.md for the API, the job file and real hosts"
