#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Guest side of the XDP tests (busybox sh under qemu, run by the /init of
# run_guest_xdp.sh): the BPF_PROG_RUN unit tests on this kernel's
# verifier, ip link loading, rinactl through the libxdp dispatcher next
# to a second program, and the AF_XDP transport. Prints KTAP.
. /tests/ktap.sh
OBJ=/tests/rina_xdp.bpf.o
FILT=/tests/bpf/xdpfilt_alw_all.o
export LIBXDP_OBJECT_PATH=/tests/bpf
# iproute2, not busybox's applet (busybox sh prefers its applets)
IP=/usr/local/sbin/ip

# a nested KTAP program: its lines become diagnostics, its exit a result
nested() {
	name=$1; shift
	"$@" > /tmp/out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/out
	[ $rc = 0 ] && ktap_ok "$name" || ktap_fail "$name" "exit $rc"
}

ktap_plan 11
nested bpf_prog_run_unit_tests /tests/test_xdp_prog

$IP netns add b
$IP link add va type veth peer name vb netns b
$IP addr add 198.18.11.1/24 dev va
$IP -n b addr add 198.18.11.2/24 dev vb
$IP link set va up
$IP -n b link set vb up
$IP -n b link set lo up
pingb() { $IP netns exec b ping -c 2 -W 2 198.18.11.1 > /dev/null; }

$IP link set dev va xdpdrv obj $OBJ sec xdp &&
	$IP link show va | grep -q 'prog/xdp.*name rina_xdp' &&
	ktap_ok ip_link_xdpdrv || ktap_fail ip_link_xdpdrv
ktap_check ping_with_ip_link_xdpdrv pingb
$IP link set dev va xdpdrv off

# libxdp dispatcher: rina_xdp first, a second program next to it
rinactl xdp attach dev va
$IP link show va | grep -q 'name xdp_dispatcher' &&
	ktap_ok rinactl_attach_uses_dispatcher ||
	ktap_fail rinactl_attach_uses_dispatcher "$($IP link show va | grep prog)"
xdp-loader load va $FILT > /tmp/out 2>&1 &&
	ktap_ok second_program_next_to_rina_xdp ||
	ktap_fail second_program_next_to_rina_xdp "$(tail -n 2 /tmp/out)"
xdp-loader status va | sed 's/^/# /'
ktap_check ping_through_both_programs pingb
n=$(rinactl -j xdp status dev va | sed -n 's/.*"pass_other":\([0-9]*\).*/\1/p')
[ -n "$n" ] && [ "$n" -gt 0 ] && ktap_ok rinactl_status_in_dispatcher ||
	ktap_fail rinactl_status_in_dispatcher "pass_other '$n'"
rinactl xdp detach dev va
if xdp-loader status va | grep -q xdpfilt &&
   ! xdp-loader status va | grep -q rina_xdp; then
	ktap_ok detach_removes_only_rina_xdp
else
	ktap_fail detach_removes_only_rina_xdp
fi
xdp-loader unload va --all > /dev/null 2>&1
$IP link set dev va xdpgeneric off 2>/dev/null

# AF_XDP transport between the root namespace and b
$IP netns add a
$IP link set va netns a
$IP -n a addr add 198.18.11.1/24 dev va
$IP -n a link set va up
$IP -n a link set lo up
$IP -n a link set dev va xdpdrv obj $OBJ sec xdp
$IP -n b link set dev vb xdpdrv obj $OBJ sec xdp
nested xsk_transport_exchange /tests/test_xsk_transport a 198.18.11.1 b 198.18.11.2 200
$IP -n b link set dev vb xdpdrv off
$IP -n b link set dev vb xdpgeneric obj $OBJ sec xdp
$IP -n a link set dev va xdpdrv off
$IP -n a link set dev va xdpgeneric obj $OBJ sec xdp
nested xsk_transport_exchange_generic /tests/test_xsk_transport a 198.18.11.1 b 198.18.11.2 100
ktap_finish
