#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# librina's UDP and AF_XDP transports on the same veth pair: round-trip
# time and one-way message rate (bench_transport). UDP runs before
# rina_xdp is attached, AF_XDP after. Prints figures, asserts nothing.
# Usage: bench_transport.sh [MSGS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
BIN=$top/build/selftests/bpf/bench_transport
OBJ=$top/build/bpf/rina_xdp.bpf.o
require_root
[ -x "$BIN" ] || { ktap_plan 1; ktap_skip bench_transport "no $BIN"; exit 4; }
setup_ns A B || exit 1
ip -n "$A" link add va type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.12.1/24 dev va
ip -n "$B" addr add 198.18.12.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up
echo "TAP version 13"
echo "1..2"
"$BIN" udp "$A" 198.18.12.1 "$B" 198.18.12.2 "${1:-200000}" |
	grep -v -e '^TAP' -e '^1\.\.' -e '^# Totals' | sed 's/^ok 1/ok 1/'
rc1=${PIPESTATUS[0]}
ip -n "$A" link set dev va xdpdrv obj "$OBJ" sec xdp
ip -n "$B" link set dev vb xdpdrv obj "$OBJ" sec xdp
"$BIN" xdp "$A" 198.18.12.1 "$B" 198.18.12.2 "${1:-200000}" 2>&1 |
	grep -v -e '^TAP' -e '^1\.\.' -e '^# Totals' | sed 's/^\(not \)\{0,1\}ok 1/&/; s/^ok 1 /ok 2 /; s/^not ok 1 /not ok 2 /'
rc2=${PIPESTATUS[0]}
[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
