#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Two namespaces joined by a veth pair, rina_xdp attached to both ends
# (native or generic mode), then test_xsk_transport drives librina's
# AF_XDP transport between them. "multiqueue": a 4-queue veth, one
# transport receiving what kernel sockets spread over the queues.
# Usage: test_xsk_transport.sh native|generic [MSGS_PER_SIZE]
#        test_xsk_transport.sh multiqueue [native|generic]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

OBJ=$top/build/bpf/rina_xdp.bpf.o
BIN=$top/build/selftests/bpf/test_xsk_transport
what=${1:-native}
mode=xdpdrv
[ "$what" = generic ] && mode=xdpgeneric
[ "$what" = multiqueue ] && [ "${2:-native}" = generic ] && mode=xdpgeneric

require_root
require_cmd ip python3 ethtool
for f in "$OBJ" "$BIN"; do
	[ -e "$f" ] || { ktap_plan 1; ktap_skip xsk_transport "no $f"; exit 4; }
done

multiqueue()
{
	setup_ns C D || exit 1
	ip -n "$C" link add vc numtxqueues 4 numrxqueues 4 type veth \
		peer name vd numtxqueues 4 numrxqueues 4 netns "$D"
	ip -n "$C" addr add 198.18.9.1/24 dev vc
	ip -n "$D" addr add 198.18.9.2/24 dev vd
	ip -n "$C" link set vc up
	ip -n "$D" link set vd up
	ip -n "$D" link set dev vd $mode obj "$OBJ" sec xdp || exit 1
	out=$(mktemp)
	defer rm -f "$out"
	"$BIN" rx "$D" 198.18.9.2 200 >"$out" 2>&1 &
	pid=$!
	busywait 5000 grep -q ready "$out"
	ip netns exec "$C" python3 "$top/selftests/bpf/rina_udp.py" send \
		198.18.9.2 $((0x5240)) spread 200
	wait $pid
	rc=$?
	grep -v '^ready' "$out"
	queues=$(ip netns exec "$D" ethtool -S vd 2>/dev/null |
		awk '/rx_queue_[0-9]+_xdp_packets/ && $2 > 0 { n++ } END { print n + 0 }')
	echo "# rx queues that saw traffic: $queues"
	if [ "$queues" -gt 1 ]; then
		echo "ok 3 traffic_spread_over_queues"
	else
		echo "not ok 3 traffic_spread_over_queues"
		rc=1
	fi
	exit $rc
}

if [ "$what" = multiqueue ]; then
	multiqueue
fi

setup_ns A B || exit 1
ip -n "$A" link add va type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.8.1/24 dev va
ip -n "$B" addr add 198.18.8.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip -n "$A" link set dev va $mode obj "$OBJ" sec xdp || exit 1
ip -n "$B" link set dev vb $mode obj "$OBJ" sec xdp || exit 1

"$BIN" "$A" 198.18.8.1 "$B" 198.18.8.2 "${2:-1000}"
