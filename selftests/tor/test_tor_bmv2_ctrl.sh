#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The bmv2 ToR's CPU (p4/bmv2/rina-tor-bmv2) answers the ToR control
# protocol as rina-tor does: the cases of ctrl_cases.sh (uniform "unknown
# job" answers, signed requests and replies, replays refused, refusals
# counted) against simple_switch running build/p4/rina_tor.json, its
# ports up0 h0 h1 h2 wired to a tester namespace and its CPU port cpu0 to
# cpu1, which holds the ToR's address 198.18.1.254.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

tor=$top/build/bin/rina-tor-bmv2
replay=$top/build/selftests/tor/tor_replay
ctrl=$top/build/selftests/tor/tor_ctrl
job7=$top/selftests/tor/job_rack1.txt
vec=$top/selftests/tor/vectors
. "$top/selftests/tor/ctrl_cases.sh"
N=$((CTRL_CASES_UNSIGNED + CTRL_CASES_SIGNED + CTRL_CASES_CYCLES))

require_root
require_cmd ip ethtool python3
ktap_plan $N
why=$("$top/selftests/tor/bmv2_vectors.py" --missing)
if [ -z "$why" ] && { [ ! -x "$tor" ] || [ ! -x "$replay" ] ||
		      [ ! -x "$ctrl" ]; }; then
	why="build/bin/rina-tor-bmv2 or a test tool not built"
fi
if [ -n "$why" ]; then
	for ((i = 0; i < N; i++)); do
		ktap_skip "bmv2 ToR control" "$why"
	done
	ktap_finish
fi
tmp=$(mktemp -d)
defer rm -rf "$tmp"

setup_ns TOR TST || exit 1
for ns in "$TOR" "$TST"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
# bmv2 forwards frames as they are: no partial checksums into it
off="tx off sg off tso off gso off gro off"
i=0
for p in up0 h0 h1 h2; do
	ip link add "$p" netns "$TOR" type veth peer name "t$i" netns "$TST"
	ip -n "$TOR" link set "$p" up
	ip -n "$TST" link set "t$i" up
	ip netns exec "$TOR" ethtool -K "$p" $off >/dev/null 2>&1
	ip netns exec "$TST" ethtool -K "t$i" $off >/dev/null 2>&1
	i=$((i + 1))
done
ip -n "$TOR" link add cpu0 type veth peer name cpu1
ip -n "$TOR" addr add 198.18.1.254/15 dev cpu1
ip -n "$TOR" link set cpu0 up
ip -n "$TOR" link set cpu1 up
ip netns exec "$TOR" ethtool -K cpu1 $off >/dev/null 2>&1
ip -n "$TST" link set t2 address 02:00:00:00:01:0c
ip -n "$TST" addr add 198.18.1.12/15 dev t2

ctrl_start()
{
	rm -f "$tmp/stats.json"
	ip netns exec "$TOR" "$tor" --job "$tjob" --rack 1 --epoch 1 \
		--stats "$tmp/stats.json" -j >"$tmp/tor.out" \
		2>"$tmp/tor.err" </dev/null &
	torpid=$!
	if ! busywait 30000 test -s "$tmp/stats.json"; then
		sed 's/^/# /' "$tmp/tor.err"
	fi
}
defer 'kill $torpid 2>/dev/null'

ctrl_job_with_secret
ctrl_cases_unsigned
ctrl_cases_signed
# a few: bmv2 is slow, and gives a destroyed node's handle again
ctrl_cases_cycles 10
ktap_finish
