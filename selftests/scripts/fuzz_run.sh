#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Time-bounded libFuzzer run of one target from its seed corpus in the
# tree (seeds and every regression input: run first, so a fixed bug that
# comes back fails at once). The corpus is copied: what the run finds
# stays out of the tree. Prints KTAP with libFuzzer's figures
# (executions, coverage: cov = edges, ft = features).
# Usage: fuzz_run.sh FUZZER CORPUS-DIR [SECONDS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
bin=$1 seeds=$2 secs=${3:-20}
name=$(basename "$bin")
ktap_plan 1
if [ ! -x "$bin" ]; then
	ktap_skip "$name ${secs}s" "$bin not built (clang with libFuzzer missing)"
	ktap_finish
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
cp "$seeds"/* "$work/corpus/"
"$bin" -max_total_time="$secs" -seed=1 -rss_limit_mb=1024 -timeout=10 \
	-print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" \
	>"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -1)
echo "# $name: $(ls "$seeds" | wc -l) seeds, ${runs:-?} runs in ${secs}s," \
	"${cov:-no coverage line}"
if [ $rc -eq 0 ]; then
	ktap_ok "$name ${secs}s: no crash, leak, over-read or failed check"
else
	grep -vE '^#[0-9]+' "$work/log" | tail -40 | sed 's/^/# /'
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$f" ] && echo "# input: $(base64 -w0 "$f")"
	done
	ktap_fail "$name ${secs}s" "fuzzer exit $rc"
fi
ktap_finish
