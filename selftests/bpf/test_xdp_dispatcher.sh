#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina_xdp in a libxdp dispatcher next to another XDP program: rinactl
# attaches through libxdp (XDP_RUN_CONFIG priority 10, chain on PASS),
# xdp-loader adds an allow-all filter, both run, rinactl status and
# detach find and remove only rina_xdp. Kernels without freplace for root
# (the 6.18 host: EPERM) get one program only: the test SKIPs there and
# runs in the qemu guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

CTL=$top/build/bin/rinactl
FILT=/usr/lib/$(gcc -dumpmachine)/bpf/xdpfilt_alw_all.o
PY=$top/selftests/bpf/rina_udp.py

require_root
require_cmd ip xdp-loader python3 ping nsenter
mountpoint -q /sys/fs/bpf || { ktap_plan 1; ktap_skip xdp_dispatcher "no bpffs on /sys/fs/bpf"; exit 4; }
for f in "$CTL" "$FILT"; do
	[ -e "$f" ] || { ktap_plan 1; ktap_skip xdp_dispatcher "no $f"; exit 4; }
done

setup_ns A B || exit 1
ip -n "$A" link add va type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.10.1/24 dev va
ip -n "$B" addr add 198.18.10.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up

# Everything in B runs in the root mount namespace (nsenter, not ip netns
# exec) so that libxdp finds its dispatcher pins in the one bpffs.
inb() { nsenter --net=/run/netns/"$B" bash -c "$*"; }
ctr() { inb "$CTL -j xdp status dev vb" | python3 -c "import json,sys; print(json.load(sys.stdin)['counters']['$1'])"; }

ktap_plan 7
if ! inb "$CTL xdp attach dev vb"; then
	ktap_fail "rinactl attach"
	ktap_finish
fi
if ! ip -n "$B" link show vb | grep -q 'name xdp_dispatcher'; then
	for t in attach second_program both_run ping status_finds_rina rina_drops detach_keeps_other; do
		ktap_skip "$t" "no libxdp dispatcher on this kernel (freplace not permitted), rina_xdp attached alone"
	done
	exit 4
fi
ktap_ok "attach: rina_xdp inside the libxdp dispatcher"
ktap_check "second_program: xdp-loader adds a filter" \
	inb "xdp-loader load vb $FILT >/dev/null 2>&1"
n=$(inb "xdp-loader status vb" | grep -cE 'rina_xdp|xdpfilt')
[ "$n" -ge 2 ] && ktap_ok "both_run: both programs listed" ||
	ktap_fail "both_run: both programs listed" "$(inb "xdp-loader status vb")"
before=$(ctr pass_other)
ktap_check "ping through both programs" \
	ip netns exec "$A" ping -c 3 -i 0.2 -W 2 -q 198.18.10.2
after=$(ctr pass_other)
[ -n "$before" ] && [ "$after" -gt "$before" ] &&
	ktap_ok "status_finds_rina: counters move" ||
	ktap_fail "status_finds_rina: counters move" "$before -> $after"
before=$(ctr drop_bad_version)
ip netns exec "$A" python3 "$PY" send 198.18.10.2 $((0x5240)) bad_version 5
after=$(ctr drop_bad_version)
[ $((after - before)) -eq 5 ] && ktap_ok "rina_drops: malformed dropped in the chain" ||
	ktap_fail "rina_drops: malformed dropped in the chain" "$before -> $after"
inb "$CTL xdp detach dev vb"
if inb "xdp-loader status vb" | grep -q xdpfilt &&
   ! inb "xdp-loader status vb" | grep -q rina_xdp; then
	ktap_ok "detach_keeps_other: only rina_xdp removed"
else
	ktap_fail "detach_keeps_other: only rina_xdp removed"
fi
ktap_finish
