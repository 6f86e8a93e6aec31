#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Ordinary traffic across INA ToRs (rina-tor) while an allreduce runs, on
# every INA topology the other tests use. Each host sends to the next rank
# (in its rack and across the spine) iperf3 TCP bulk, an 8 MiB TCP stream
# and UDP datagrams of 8 bytes to 64 KiB (IPv4 fragments above the MTU)
# checked byte for byte and exactly once, ARP probes and pings of four
# sizes answered exactly once (tor_traffic_host.sh). It must cross the ToR
# as it crosses a plain bridge, and the ToR must see each Rina frame once
# and nothing else: no non-Rina frame and no giant reaches rina-tor, each
# Rina frame is given to it and kept from the bridge exactly once, no
# frame above the MTU is sent, the allreduce is exact; then, after the
# traffic, a quiet allreduce is exact with no duplicate contribution at
# any ToR, and on 2x2 with both racks INA each ToR receives from the
# spine exactly what the other sent up (tor_traffic_check.py).
# Usage: test_tor_traffic.sh [TOPO:INA]...   (default: every topology)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

run=$top/build/bin/rina-run
bench=$top/build/bin/rina-bench
host=$top/selftests/net/tor_traffic_host.sh
checker=$top/selftests/net/tor_traffic_check.py
tmp=$(mktemp -d)
defer rm -rf "$tmp"

SPECS=("1x2 0" "2x2 all" "2x2 0" "1x4 all" "3x2 0,2" "2x3 1")
[ $# -gt 0 ] && SPECS=("${@/:/ }")
TCP_BYTES=$((8 << 20))
IPERF_SECS=3
CASES=("traffic:TCP, UDP, ARP, ICMP cross the ToR exactly once"
       "ina:allreduce exact under traffic, ToR saw Rina frames only, once"
       "quiet:allreduce exact after the traffic, no duplicate at the ToR")

require_root
ktap_plan $((${#CASES[@]} * ${#SPECS[@]}))

why=
[ -x "$top/build/bin/rina-tor" ] && [ -x "$bench" ] ||
	why="build/bin/rina-tor not built"
for c in iperf3 ping ss ip /usr/bin/python3; do
	[ -n "$why" ] || command -v "$c" >/dev/null || why="$c not installed"
done
if [ -n "$why" ]; then
	for spec in "${SPECS[@]}"; do
		for c in "${CASES[@]}"; do
			ktap_skip "${spec/ /-ina-}: ${c#*:}" "$why"
		done
	done
	ktap_finish
fi

for spec in "${SPECS[@]}"; do
	read -r topo ina <<<"$spec"
	n=$((${topo%x*} * ${topo#*x}))
	name=${topo}-ina-$ina
	mkdir -p "$tmp/$name.tor"
	"$run" --topo "$topo" --ina "$ina" --timeout 90 \
		--tor-stats "$tmp/$name.tor" -- \
		"$host" "$bench" "$TCP_BYTES" "$IPERF_SECS" "$tmp/$name.tor" \
		>"$tmp/$name.out" 2>&1
	rc=$?
	chk=$("$checker" "$tmp/$name.out" "$tmp/$name.tor" "$n")
	echo "$chk" | grep '^#'
	[ "$rc" -eq 0 ] ||
		grep -v '^\[rank [0-9]*\] [{]' "$tmp/$name.out" | tail -20 |
			sed 's/^/#   /'
	# 1: a host's check failed (the checker says which); more: rina-run
	# or a rank stopped (timeout 124)
	for c in "${CASES[@]}"; do
		if [ "$rc" -le 1 ] && echo "$chk" | grep -qx "${c%%:*} ok"; then
			ktap_ok "$name: ${c#*:}"
		else
			ktap_fail "$name: ${c#*:}" "rina-run $rc"
		fi
	done
done
ktap_finish
