#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Control messages the network duplicates are no replays: a 1x3 plain
# ring with the job secret (rina-run's default) where every datagram is
# sent twice (RINA_FAULT_DUP_PPM=1000000), HELLOs and BYEs included.
# Every copy of a signed control message taken is refused and counted in
# ctrl_duplicates; ctrl_replayed (a stamp too old or outside the window)
# stays 0, as it must in a run with no forgery. Before, each copy
# counted as a replay.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip awk

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
tmp=$(mktemp -d /tmp/test_ctrl_dup.XXXXXX)
defer rm -rf "$tmp"
ktap_plan 1

"$RUN" --topo 1x3 --timeout 60 -- env RINA_FAULT_DUP_PPM=1000000 \
	"$BENCH" -d int32 -b 64K -e 64K -n 3 -w 0 >"$tmp/out" 2>&1
rc=$?
# counter NAME: its values, one per rank, from rina-bench's counters line
counter()
{
	sed -n "s/.* counters: .* $1 \([0-9]*\).*/\1/p" "$tmp/out"
}
ranks=$(counter ctrl_replayed | grep -c .)
replayed=$(counter ctrl_replayed | awk '{ s += $1 } END { print s + 0 }')
dups=$(counter ctrl_duplicates | awk '{ s += $1 } END { print s + 0 }')
if [ "$rc" -eq 0 ] && [ "$ranks" -eq 3 ] && [ "$replayed" -eq 0 ] &&
   [ "$dups" -gt 0 ] && grep -q 'Out of bounds values : 0 OK' "$tmp/out"; then
	ktap_ok "every datagram twice: exact, $dups control copies counted as duplicates, none as replayed"
else
	grep -E 'counters|rina-bench: ' "$tmp/out" | head -6 | sed 's/^/# /'
	ktap_fail "duplicated control messages" \
		"rc $rc, $ranks ranks, replayed $replayed, duplicates $dups"
fi
ktap_finish
