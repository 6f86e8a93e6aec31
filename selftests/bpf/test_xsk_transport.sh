#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Two namespaces joined by a veth pair, rina_xdp attached to both ends
# (native mode by default, "generic" as $1), then test_xsk_transport
# drives librina's AF_XDP transport between them.
# Usage: test_xsk_transport.sh [native|generic] [MSGS_PER_SIZE]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

OBJ=$top/build/bpf/rina_xdp.bpf.o
BIN=$top/build/selftests/bpf/test_xsk_transport
mode=xdpdrv
[ "${1:-native}" = generic ] && mode=xdpgeneric

require_root
require_cmd ip
for f in "$OBJ" "$BIN"; do
	[ -e "$f" ] || { ktap_plan 1; ktap_skip xsk_transport "no $f"; exit 4; }
done

setup_ns A B || exit 1
ip -n "$A" link add va type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.8.1/24 dev va
ip -n "$B" addr add 198.18.8.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip -n "$A" link set dev va $mode obj "$OBJ" sec xdp || exit 1
ip -n "$B" link set dev vb $mode obj "$OBJ" sec xdp || exit 1

"$BIN" "$A" 198.18.8.1 "$B" 198.18.8.2 "${2:-1000}"
