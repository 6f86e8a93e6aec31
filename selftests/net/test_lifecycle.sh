#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Back-to-back communicators: every rank destroys its communicator and
# creates the next one on the same job and ports at once, 100 times, on
# plain and INA topologies (software agents, and rina-tor). Neighbours then meet each
# other's previous and next incarnations (a BYE of the old one reaching
# the new, a HELLO of the new one reaching the old); every cycle must
# pass, exact, and no descriptor may leak.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip

RUN=$top/build/bin/rina-run
PROG=$top/build/selftests/lifecycle
[ -x "$PROG" ] || { echo "1..0 # SKIP $PROG not built (make)"; exit 4; }
tmp=$(mktemp -d /tmp/test_lifecycle.XXXXXX)
defer rm -rf "$tmp"

cases=(
	"1x2 plain|--topo 1x2"
	"2x2 plain|--topo 2x2"
	"2x2 rack 0 INA, software agent|--topo 2x2 --ina 0 --tor off"
	"2x2 both racks INA, software agents|--topo 2x2 --ina all --tor off"
	"2x2 both racks INA through rina-tor|--topo 2x2 --ina all"
)
# With ToRs: a communicator's rounds start at 0 again, and a ToR may
# still hold the previous session's slots (or see its late copies) when
# the next one's packets arrive; and the new agent, on the old one's
# port, may read the ToR's answer to the old one's TOR_REMOVE. Each
# session installs the job anew with its own tag, and the ToR's answer
# names the request's session (protocol-ina.md, "The ToR control
# protocol"). Before, 2 of 3 runs stalled (at cycles 13 and 78).
ktap_plan ${#cases[@]}
for c in "${cases[@]}"; do
	name=${c%%|*}
	read -ra opts <<<"${c#*|}"
	out=$tmp/out
	"$RUN" "${opts[@]}" --timeout 120 --job-opt 'timeout_ms 3000' -- \
		"$PROG" 100 >"$out" 2>&1
	rc=$?
	n=$(grep -c 'lifecycle: 100 cycles ok' "$out")
	ranks=$(grep -c '^\[rank [0-9]*\] lifecycle:' "$out")
	if [ "$rc" -eq 0 ] && [ "$n" -eq 4 ] || { [ "$n" -eq 2 ] &&
	   [ "${opts[1]}" = 1x2 ] && [ "$rc" -eq 0 ]; }; then
		ktap_ok "$name: 100 back-to-back init/allreduce/destroy cycles"
	else
		grep '^\[rank [0-9]*\]' "$out" | grep -v 'cycles ok' |
			head -4 | sed 's/^/# /'
		ktap_fail "$name: 100 back-to-back cycles" \
			"rina-run $rc, $n of $ranks ranks done"
	fi
done
ktap_finish
