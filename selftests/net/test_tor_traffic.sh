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
# spine exactly what the other sent up (tor_traffic_check.py). Last, on
# a ToR one of whose ports has a smaller MTU: a Rina frame the model
# switches there above that MTU is dropped and counted, and the port's
# later frames still leave (it once wedged the port's transmit ring); a
# UDP GSO super-frame to a Rina port is counted whole as a giant.
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
ktap_plan $((${#CASES[@]} * ${#SPECS[@]} + 2))

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
	ktap_skip "a frame above a port's MTU: dropped, later ones leave" "$why"
	ktap_skip "a UDP GSO super-frame to a Rina port: a giant" "$why"
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

# A ToR as test_rina_tor.sh builds it (ports up0 h0 h1 h2, wired to t0..t3
# of a tester namespace, job 7 of job_rack1.txt), MTU 9000 but 1500 on
# h0 and its peer t1
setup_ns TOR TST || exit 1
ip -n "$TOR" link add br0 type bridge
ip -n "$TOR" link set br0 up
i=0
for p in up0 h0 h1 h2; do
	mtu=9000
	[ "$p" = h0 ] && mtu=1500
	ip link add "$p" netns "$TOR" mtu "$mtu" type veth \
		peer name "t$i" netns "$TST" mtu "$mtu"
	ip -n "$TOR" link set "$p" master br0 up
	ip -n "$TST" link set "t$i" up
	i=$((i + 1))
done
ip -n "$TST" addr add 198.18.1.12/15 dev t2
ip -n "$TST" neigh add 198.18.1.11 lladdr 02:00:00:00:01:0b dev t2
ip netns exec "$TOR" "${RINA_TOR:-$top/build/bin/rina-tor}" \
	--job "$top/selftests/tor/job_rack1.txt" --rack 1 --epoch 1 \
	--stats "$tmp/mtu.json" -j >"$tmp/mtu.out" 2>"$tmp/mtu.err" &
torpid=$!
defer "kill $torpid"
busywait 5000 test -s "$tmp/mtu.json" || sed 's/^/# /' "$tmp/mtu.err"
# from h1 (t2) to rank 1's MAC, on h0
traffic=$top/selftests/net/tor_traffic.py
out=$(ip netns exec "$TST" /usr/bin/python3 "$traffic" mtu t2 t1 2>&1)
echo "# $out"
ip netns exec "$TST" /usr/bin/python3 "$traffic" gso 198.18.1.11
sleep 0.5
kill -TERM "$torpid"
wait "$torpid"
ports=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in d["ports"]}
sw = d["switch"]
print(p["h0"].get("tx_drop"), sw["giant"], sw["bad_length"])
' "$tmp/mtu.out" 2>&1)
read -r tx_drop giant bad_length <<<"$ports"
echo "# h0 tx_drop $tx_drop, giant $giant, bad_length $bad_length"
what="a frame above a port's MTU: dropped and counted, later ones leave"
if [[ "$out" == "RESULT mtu ok"* ]] && [ "$tx_drop" = 1 ]; then
	ktap_ok "$what"
else
	ktap_fail "$what"
fi
what="a UDP GSO super-frame to a Rina port: counted whole as a giant"
if [ "$giant" = 1 ] && [ "$bad_length" = 0 ]; then
	ktap_ok "$what"
else
	ktap_fail "$what"
fi
ktap_finish
