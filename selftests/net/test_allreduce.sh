#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Rina allreduce between emulated hosts (network namespaces, rina-run):
# 2, 3 and 6 ranks, int32 and float32 against a CPU reference (rina-bench
# -c 1 counts wrong elements) with identical bytes on every rank; loss and
# duplication through librina's fault knobs; a killed rank; a bad job file;
# ranks with different job files.
# Usage: test_allreduce.sh [TRANSPORT]   (udp by default)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

transport=${1:-udp}
run=$top/build/bin/rina-run
bench=$top/build/bin/rina-bench
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_root
require_cmd python3 ip

ktap_plan 9

# summarise rina-bench --json rows of all ranks: fails unless every row
# has wrong == 0, every size has one hash on all ranks and NRANKS rows;
# prints "retransmits duplicates" summed over ranks
check_json()
{
	python3 - "$1" "$2" <<'EOF'
import json, sys
rows = []
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        rows.append(json.loads(line))
n = int(sys.argv[2])
sizes = {}
for r in rows:
    sizes.setdefault(r['size'], []).append(r)
bad = []
if not sizes:
    bad.append('no results')
for size, rs in sorted(sizes.items()):
    if len(rs) != n:
        bad.append('size %d: %d ranks reported' % (size, len(rs)))
    if any(r['wrong'] for r in rs):
        bad.append('size %d: wrong elements %s' % (size, [r['wrong'] for r in rs]))
    if len({r['hash'] for r in rs}) != 1:
        bad.append('size %d: ranks differ' % size)
for b in bad:
    print('# ' + b)
print(sum(r['retransmits'] for r in rows), sum(r['duplicates'] for r in rows),
      len(sizes))
sys.exit(1 if bad else 0)
EOF
}

# run_bench NAME TOPO NRANKS [ENV=VAL...] -- BENCH ARGS
run_bench()
{
	local name=$1 topo=$2 n=$3 out=$tmp/$1.out envs=() sums
	shift 3
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$run" --topo "$topo" --timeout 120 -- \
		"$bench" --transport "$transport" --json -c 1 -n 2 -w 1 "$@" \
		>"$out" 2>&1
	local rc=$?
	if ! sums=$(check_json "$out" "$n"); then
		echo "$sums" | grep '^#'
		tail -5 "$out" | sed 's/^/# /'
		ktap_fail "$name" "rina-run exit $rc"
		return 1
	fi
	LAST_SUMS=$(echo "$sums" | tail -1)
	if [ "$rc" -ne 0 ]; then
		tail -5 "$out" | sed 's/^/# /'
		ktap_fail "$name" "rina-run exit $rc"
		return 1
	fi
	echo "# $name: sizes, retransmits, duplicates: $LAST_SUMS"
	return 0
}

run_bench "1x2 int32 sum, counts 1..262144" 1x2 2 -- \
	-d int32 -b 4 -e 1M -f 7 && ktap_ok "2 ranks int32 exact, identical"
run_bench "1x3 float32 sum, counts 1..262144" 1x3 3 -- \
	-d float32 -b 4 -e 1M -f 7 && ktap_ok "3 ranks float32 within bound, identical"
run_bench "2x3 int32 sum" 2x3 6 -- \
	-d int32 -b 12 -e 2M -f 13 && ktap_ok "6 ranks (2x3) int32 exact, identical"
run_bench "2x3 float32 avg" 2x3 6 -- \
	-d float32 -o avg -b 12 -e 2M -f 13 && ktap_ok "6 ranks (2x3) float32 avg within bound, identical"

# faults through librina's knobs: exact results, recovery counted
for spec in "10000 0 1%-loss" "100000 100000 10%-loss-10%-dup"; do
	set -- $spec
	name="2x2 int32 and float32 under $3"
	if run_bench "$name int32" 2x2 4 RINA_FAULT_DROP_PPM=$1 \
		RINA_FAULT_DUP_PPM=$2 -- -d int32 -b 4K -e 1M -f 16; then
		read -r retx dups _ <<<"$LAST_SUMS"
		if run_bench "$name float32" 2x2 4 RINA_FAULT_DROP_PPM=$1 \
			RINA_FAULT_DUP_PPM=$2 -- -d float32 -b 4K -e 1M -f 16; then
			if [ "$retx" -gt 0 ] && { [ "$2" -eq 0 ] || [ "$dups" -gt 0 ]; }; then
				ktap_ok "$name: exact, recovery counted"
			else
				ktap_fail "$name" "no recovery counted ($retx retransmits, $dups duplicates)"
			fi
		fi
	fi
done

# a rank killed mid-allreduce: every other rank fails, clearly, in time
start=$(date +%s)
"$run" --topo 1x3 --timeout 60 --job-opt 'timeout_ms 2000' -- sh -c '
	if [ "$RINA_RANK" = 1 ]; then
		exec timeout -s KILL 1.5 "$0" -d int32 -b 16M -e 16M -n 1000 -w 0
	fi
	exec "$0" -d int32 -b 16M -e 16M -n 1000 -w 0' "$bench" \
	>"$tmp/kill.out" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
sed 's/^/# /' "$tmp/kill.out" | grep -v '^# \[rank .\] ' | head -3
grep -E 'rank (0|2)\].*(timed out|aborted)' "$tmp/kill.out" | sed 's/^/# /'
if [ "$rc" -ne 0 ] &&
   grep -qE '\[rank 0\].*(timed out|aborted)' "$tmp/kill.out" &&
   grep -qE '\[rank 2\].*(timed out|aborted)' "$tmp/kill.out" &&
   [ "$secs" -lt 20 ]; then
	ktap_ok "killed rank: ranks 0 and 2 fail with a clear error in ${secs}s"
else
	tail -8 "$tmp/kill.out" | sed 's/^/# /'
	ktap_fail "killed rank" "exit $rc after ${secs}s"
fi

# a bad job file: a precise message, non-zero exit, no hang
printf 'job 3\nwindow 48\nrack 0 plain\n' >"$tmp/bad.job"
out=$(RINA_JOB=$tmp/bad.job RINA_RANK=0 timeout 10 "$bench" -b 4 -e 4 2>&1)
rc=$?
echo "# $out"
if [ "$rc" -eq 1 ] && echo "$out" | grep -q "bad.job:2: window: 48 is not a power of two"; then
	ktap_ok "bad job file: line, directive and reason reported"
else
	ktap_fail "bad job file" "exit $rc"
fi

# ranks whose job files differ are caught at init
"$run" --topo 1x3 --timeout 60 --job-opt 'timeout_ms 3000' -- sh -c '
	if [ "$RINA_RANK" = 2 ]; then
		sed "s/^window .*/window 16/" "$RINA_JOB" >"$RINA_JOB.2"
		echo "window 16" >>"$RINA_JOB.2"
		RINA_JOB=$RINA_JOB.2 exec "$0" -b 4 -e 4
	fi
	exec "$0" -b 4 -e 4' "$bench" >"$tmp/mismatch.out" 2>&1
rc=$?
grep -m2 "different job" "$tmp/mismatch.out" | sed 's/^/# /'
if [ "$rc" -ne 0 ] && grep -q "has a different job description" "$tmp/mismatch.out"; then
	ktap_ok "different job files: mismatch reported at init"
else
	tail -5 "$tmp/mismatch.out" | sed 's/^/# /'
	ktap_fail "different job files" "exit $rc"
fi

ktap_finish
