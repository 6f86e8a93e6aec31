#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# run_tests.sh, the runner CI's last line comes from, on programs made up
# for it: a program that runs fewer or more cases than its plan fails
# (one that exits 0 half-way looked like a pass), one that keeps its
# plan passes, and the closing line counts the cases.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# prog NAME PLAN OKS: a program that plans PLAN cases and passes OKS
prog()
{
	printf '#!/bin/sh\necho "TAP version 13"; echo "1..%d"\n' "$2" \
		>"$tmp/$1"
	for ((i = 1; i <= $3; i++)); do
		echo "echo 'ok $i case $i'" >>"$tmp/$1"
	done
	chmod +x "$tmp/$1"
	echo "$1 10 $tmp/$1" >>"$tmp/list"
}

ktap_plan 4
prog kept 3 3
prog stopped_early 3 2
prog ran_more 2 3
"$top/selftests/run_tests.sh" -l "$tmp/list" >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out" | grep -v '^# # '
ktap_check "a program that keeps its plan passes" \
	grep -qx 'ok 1 kept # [0-9]*s' "$tmp/out"
ktap_check "a program that stops before its plan's count fails" \
	grep -qx 'not ok 2 stopped_early (planned 3, ran 2) # [0-9]*s' \
	"$tmp/out"
ktap_check "a program that runs more than its plan fails" \
	grep -qx 'not ok 3 ran_more (planned 2, ran 3) # [0-9]*s' "$tmp/out"
if [ "$rc" -ne 0 ] && [ "$(tail -1 "$tmp/out")" = \
	"8 passed, 2 failed, 0 skipped" ]; then
	ktap_ok "the runner fails, its last line counts 8 cases passed and 2 failed"
else
	ktap_fail "the runner's status and last line" \
		"exit $rc, $(tail -1 "$tmp/out")"
fi
ktap_finish
