#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# A dead rank of a plain ring is named: a rank killed (SIGKILL) or
# stopped (SIGSTOP) mid-run leaves the member upstream of it with
# packets that nothing acknowledges; at its timeout that member aborts
# the job naming the rank (core/abort.h, RINA_ABORT_F_PEER) and every
# survivor's error says "rank R (ADDR:PORT) acknowledged nothing".
# Before, they said "rank U aborted the job: timed out waiting for a
# peer" or counted packets. INA racks: test_ina_silent.sh.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip awk

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
tmp=$(mktemp -d /tmp/test_dead_rank.XXXXXX)
defer rm -rf "$tmp"
ktap_plan 3

# dead NAME TOPO VICTIM SIGNAL: a plain ring, job timeout 5 s (init
# included, on a loaded host); rank VICTIM gets SIGNAL 5 s into a run of
# 100000 calls of 1 MiB, which no machine ends first (1000 ended in 3.7 s
# on a quiet one, before the signal); a stopped one is killed 8 s later,
# so the run ends by itself. Prints "NAMED OTHERS
# LAST": how many of the other ranks' errors name the victim and its
# address, how many there are, and the seconds from the signal to the
# last of their ends.
dead()
{
	local name=$1 topo=$2 victim=$3 sig=$4 n dir=$tmp/$1 named addr
	n=$(( ${topo%x*} * ${topo#*x} ))
	# rina-run's addresses: rank r*M+i at 198.18.r.(i+1)
	addr="198.18.$((victim / ${topo#*x})).$((victim % ${topo#*x} + 1))"
	mkdir -p "$dir"
	"$RUN" --topo "$topo" --timeout 120 --job-opt 'timeout_ms 5000' -- \
		sh -c '
		b="$0 --transport udp -d int32 -b 1M -e 1M -n 100000 -w 0"
		if [ "$RINA_RANK" = "$1" ]; then
			$b &
			p=$!
			sleep 5
			kill -"$2" $p
			date +%s.%N >"$3/signal"
			[ "$2" = STOP ] && { sleep 8; kill -KILL $p; }
			wait $p
			exit 1
		fi
		$b
		rc=$?
		date +%s.%N >"$3/end.$RINA_RANK"
		exit $rc' "$BENCH" "$victim" "$sig" "$dir" >"$dir/out" 2>&1
	named=$(grep -E "^\[rank [0-9]+\] rina-bench: .*rank $victim \($addr:[0-9]+\) acknowledged nothing" \
		"$dir/out" | grep -v "^\[rank $victim\]" |
		sed 's/^\[rank \([0-9]*\)\].*/\1/' | sort -u | grep -c .)
	echo "$named" $((n - 1)) "$(cat "$dir"/end.* 2>/dev/null |
		awk -v s="$(cat "$dir/signal" 2>/dev/null || echo 0)" \
		'{ d = $1 - s; if (d > m) m = d } END { printf "%.1f", m }')"
}

# expect NAME WHAT NAMED OTHERS LAST
expect()
{
	local name=$1 what=$2 named=$3 others=$4 last=$5
	if [ "$named" -eq "$others" ] &&
	   awk -v s="$last" 'BEGIN { exit !(s > 0 && s < 15) }'; then
		grep -m 2 'acknowledged nothing' "$tmp/$name/out" |
			sed 's/^/# /'
		ktap_ok "$what: all $others other ranks name it, ${last}s after"
	else
		grep 'rina-bench: ' "$tmp/$name/out" | head -6 | sed 's/^/# /'
		ktap_fail "$what" "$named of $others ranks name it, ${last}s"
	fi
}

read -r named others last < <(dead kill13 1x3 1 KILL)
expect kill13 "1x3 plain, rank 1 killed" "$named" "$others" "$last"
read -r named others last < <(dead kill22 2x2 3 KILL)
expect kill22 "2x2 plain, rank 3 killed" "$named" "$others" "$last"
# a stopped process keeps its sockets: its silence alone tells
read -r named others last < <(dead stop22 2x2 2 STOP)
expect stop22 "2x2 plain, rank 2 stopped" "$named" "$others" "$last"
ktap_finish
