#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Time-bounded libFuzzer run of the header validator and job-file parser.
# Usage: fuzz.sh SECONDS
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
secs=${1:-15}
fuzzer=$top/build/selftests/fuzz_hdr
ktap_plan 1
if [ ! -x "$fuzzer" ]; then
	ktap_skip "fuzz_hdr ${secs}s" "fuzzer not built (clang with libFuzzer missing)"
	ktap_finish
fi
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# seeds: a valid data header, a control message, a job file
printf '\x12\x00\x00\x07\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x01\x00\x01\x00\x01\x80\x10\x00\x00\x00\x00\x00\x2a' > "$corpus/data"
printf 'job 7\nrack 0 ina\nrank 0 198.18.0.1:21056 rack 0\n' > "$corpus/job"
out=$(cd "$corpus" && "$fuzzer" -max_total_time="$secs" -rss_limit_mb=1024 \
	-print_final_stats=1 "$corpus" 2>&1)
rc=$?
echo "$out" | grep -E 'stat::number_of_executed_units|ERROR|SUMMARY' | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	ktap_ok "fuzz_hdr ${secs}s: no crash, no over-read, no invalid job accepted"
else
	echo "$out" | tail -30 | sed 's/^/# /'
	ktap_fail "fuzz_hdr ${secs}s" "fuzzer exit $rc"
fi
ktap_finish
