#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# selftests/lib.sh itself: unique namespaces from setup_ns, deletion and
# deferred commands at exit, busywait and busywait_for_counter.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip

ktap_plan 6

tmp=$(mktemp -d /tmp/test_lib.XXXXXX)
defer rm -rf "$tmp"

# 1: setup_ns makes distinct namespaces with lo up
setup_ns a b
if [ -n "$a" ] && [ "$a" != "$b" ] && [ -e "/run/netns/$a" ] &&
   [ -e "/run/netns/$b" ] && [[ "$a" == rina-t-*-a ]] &&
   ip -n "$a" link show lo | grep -q 'state UNKNOWN\|UP'; then
	ktap_ok "setup_ns_unique_names_lo_up"
else
	ktap_fail "setup_ns_unique_names_lo_up" "a='$a' b='$b'"
fi

# 2: at exit a child shell deletes its namespaces, kills what runs in them
# and runs its deferred commands
bash -c '
	. "$1/selftests/lib.sh"
	setup_ns n
	echo "$n" >"$2/ns"
	ip netns exec "$n" sleep 300 &
	echo $! >"$2/pid"
	busywait 5000 test -n "$(ip netns pids "$n")"
	defer touch "$2/deferred"
	exit 0' sh "$top" "$tmp" 2>"$tmp/child.err"
n=$(cat "$tmp/ns" 2>/dev/null)
pid=$(cat "$tmp/pid" 2>/dev/null)
sleep 0.2
if [ -n "$n" ] && [ ! -e "/run/netns/$n" ] && [ -e "$tmp/deferred" ] &&
   ! kill -0 "$pid" 2>/dev/null; then
	ktap_ok "exit_deletes_ns_kills_procs_runs_deferred"
else
	ktap_fail "exit_deletes_ns_kills_procs_runs_deferred" "ns '$n'"
	cleanup_ns "$n"
fi

# 3-4: busywait succeeds as soon as the command does, fails at the timeout
( sleep 0.3; touch "$tmp/flag" ) &
start=$(date +%s%3N)
busywait 5000 test -e "$tmp/flag"
rc=$?
took=$(( $(date +%s%3N) - start ))
ktap_check "busywait_returns_when_true" test $rc -eq 0 -a $took -lt 3000
start=$(date +%s%3N)
busywait 300 false
rc=$?
took=$(( $(date +%s%3N) - start ))
ktap_check "busywait_times_out" test $rc -ne 0 -a $took -ge 300 -a $took -lt 3000

# 5-6: busywait_for_counter on a namespace's packet counter
count_rx() { ip -n "$a" -s link show lo | awk 'f { print $2; exit } /RX:/ { f = 1 }'; }
ip -n "$a" addr add 198.18.0.1/32 dev lo
ip netns exec "$a" ping -q -c 3 -i 0.2 198.18.0.1 >/dev/null 2>&1 &
busywait_for_counter 5000 6 count_rx
ktap_check "busywait_for_counter_reaches_target" test $? -eq 0
busywait_for_counter 300 1000000 count_rx
ktap_check "busywait_for_counter_times_out" test $? -ne 0

ktap_finish
