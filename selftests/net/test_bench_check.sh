#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-bench -c checks every call, not only a size's last: an on-path
# corrupter (rx_corrupt.so, preloaded into rank 1) changes one value of
# one partial of an early timed call of a 3-rank ring; the wrong call is
# reported on every rank (#wrong > 0, "FAILED", exit status 1) although
# the last call's result is right (its hash equals a clean run's).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
SHIM=$top/build/selftests/rx_corrupt.so
tmp=$(mktemp -d /tmp/test_bench_check.XXXXXX)
defer rm -rf "$tmp"
ktap_plan 4

# bench OUT ROUND DTYPE [ARGS...]: 1x3, rank 1 corrupts the first partial
# of a sum it receives from round ROUND on (none if ROUND is empty); 1
# warm-up call and 4 timed calls: rounds 0-4 for int32, so round 2 is the
# second timed call; float32 calls take two rounds (exponents, then sum):
# rounds 0-9, and round 3 is the first timed call's sum
bench()
{
	local out=$1 round=$2 dt=$3
	shift 3
	"$RUN" --topo 1x3 --timeout 60 -- sh -c '
		if [ "$RINA_RANK" = 1 ] && [ -n "$2" ]; then
			export LD_PRELOAD="$1" RX_CORRUPT_ROUND="$2"
		fi
		shift 2
		exec "$@"' sh "$SHIM" "$round" "$BENCH" --transport udp \
		-d "$dt" -b 256K -e 256K -n 4 -w 1 -c 1 "$@" >"$out" 2>&1
}

# fields OUT: "wrong hash" of every JSON row
fields()
{
	sed -n 's/.*"wrong":\([0-9]*\).*"hash":"\([0-9a-f]*\)".*/\1 \2/p' "$1"
}

bench "$tmp/clean.out" "" int32 --json
rc=$?
clean=$(fields "$tmp/clean.out")
ref=$(echo "$clean" | awk 'NR == 1 { print $2 }')
if [ "$rc" -eq 0 ] && [ "$(echo "$clean" | grep -c '^0 ')" -eq 3 ]; then
	ktap_ok "clean run: -c passes on every rank"
else
	tail -5 "$tmp/clean.out" | sed 's/^/# /'
	ktap_fail "clean run: -c passes on every rank" "rc $rc"
fi

bench "$tmp/bad.out" 2 int32 --json
rc=$?
bad=$(fields "$tmp/bad.out")
hits=$(grep -c 'rx_corrupt: changed' "$tmp/bad.out")
nwrong=$(echo "$bad" | awk '$1 > 0' | grep -c .)
nlast=$(echo "$bad" | awk -v h="$ref" '$2 == h' | grep -c .)
if [ "$hits" -eq 1 ] && [ "$nlast" -eq 3 ]; then
	ktap_ok "one partial of an early timed call changed; the last call is right"
else
	grep 'rx_corrupt\|rina-bench' "$tmp/bad.out" | head -3 | sed 's/^/# /'
	ktap_fail "one partial of an early timed call changed; the last call is right" \
		"$hits changed, $nlast of 3 last hashes right"
fi
if [ "$rc" -ne 0 ] && [ "$nwrong" -eq 3 ]; then
	ktap_ok "int32: the wrong early call fails -c on every rank (--json)"
else
	echo "$bad" | sed 's/^/# wrong hash: /'
	ktap_fail "int32: the wrong early call fails -c on every rank" \
		"rc $rc, $nwrong of 3 ranks counted it"
fi

# the table (rank 0) for float32: a nonzero #wrong, FAILED, exit status 1
bench "$tmp/badf.out" 2 float32
rc=$?
line=$(grep '# Out of bounds values' "$tmp/badf.out")
if [ "$rc" -ne 0 ] && grep -q 'rx_corrupt: changed' "$tmp/badf.out" &&
   echo "$line" | grep -Eq ': [1-9][0-9]* FAILED$'; then
	ktap_ok "float32: the table reports the wrong early call (FAILED)"
else
	grep 'rx_corrupt\|Out of bounds\|rina-bench' "$tmp/badf.out" |
		head -3 | sed 's/^/# /'
	ktap_fail "float32: the table reports the wrong early call" "rc $rc"
fi
ktap_finish
