#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# A silent worker of an INA rack is named: with the rack aggregated in
# software by its agent (--tor off), a worker that is killed (SIGKILL)
# or stopped (SIGSTOP) mid-run makes the agent abort the job naming it;
# with the rack aggregated by rina-tor (the agent sees no contributions)
# the same from the stalled workers' STALL reports (protocol-ina.md),
# and every other rank's error says "rank R silent", soon after (the
# agent gives up at 3/4 of the job's 2 s timeout, before the others'
# own timeouts). Before, every rank blamed the agent's rank ("rank 0
# aborted the job: timed out waiting for a peer").
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip awk

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
tmp=$(mktemp -d /tmp/test_ina_silent.XXXXXX)
defer rm -rf "$tmp"
ktap_plan 3

# silent NAME TOPO VICTIM SIGNAL [TOR]: rack 0 INA (TOR: rina-run's --tor,
# off unless given), job timeout 2 s; rank
# VICTIM gets SIGNAL 1.5 s into 1000 calls of 1 MiB (a stopped one is
# killed 8 s later, so the run ends by itself); every rank writes the
# time its rina-bench ended, the victim the time of the signal. Prints
# "NAMED OTHERS LAST": how many of the other ranks' errors name the
# victim, how many there are, and the seconds from the signal to the
# last of their ends.
silent()
{
	local name=$1 topo=$2 victim=$3 sig=$4 tor=${5:-off} n dir=$tmp/$1 named
	n=$(( ${topo%x*} * ${topo#*x} ))
	mkdir -p "$dir"
	"$RUN" --tor "$tor" --topo "$topo" --ina 0 --timeout 60 \
		--job-opt 'timeout_ms 2000' -- sh -c '
		b="$0 --transport udp -d int32 -b 1M -e 1M -n 1000 -w 0"
		if [ "$RINA_RANK" = "$1" ]; then
			$b &
			p=$!
			sleep 1.5
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
	named=$(grep -E "^\[rank [0-9]+\] rina-bench: rank [0-9]+: .*rank $victim silent" \
		"$dir/out" | grep -vc "^\[rank $victim\]")
	echo "$named" $((n - 1)) "$(cat "$dir"/end.* 2>/dev/null |
		awk -v s="$(cat "$dir/signal" 2>/dev/null || echo 0)" \
		'{ d = $1 - s; if (d > m) m = d } END { printf "%.1f", m }')"
}

# expect NAME WHAT NAMED OTHERS LAST
expect()
{
	local name=$1 what=$2 named=$3 others=$4 last=$5
	if [ "$named" -eq "$others" ] &&
	   awk -v s="$last" 'BEGIN { exit !(s > 0 && s < 5) }'; then
		ktap_ok "$what: all $others other ranks name it, ${last}s after"
	else
		grep 'rina-bench: rank' "$tmp/$name/out" | head -6 |
			sed 's/^/# /'
		ktap_fail "$what" "$named of $others ranks name it, ${last}s"
	fi
}

read -r named others last < <(silent kill 2x2 1 KILL)
expect kill "2x2, rack 0 INA, worker rank 1 killed" "$named" "$others" "$last"
# a stopped process keeps its sockets: its silence alone tells
read -r named others last < <(silent stop 2x3 2 STOP)
expect stop "2x3, rack 0 INA, worker rank 2 stopped" "$named" "$others" \
	"$last"
read -r named others last < <(silent tor 2x2 1 KILL on)
expect tor "2x2, rack 0 INA through rina-tor, worker rank 1 killed" \
	"$named" "$others" "$last"
ktap_finish
