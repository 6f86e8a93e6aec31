#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# librina on a host without rina.ko (the build host): file-based mode by
# default, and a clear error when RINA_KERNEL=1 requires the module. The
# module side runs in the VM (selftests/vm/agent_e2e.sh). One rank in a
# private network namespace (unshare -n: gone when the test ends).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
B=$top/build/bin/rina-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_plan 3
if [ ! -x "$B" ]; then
	for i in 1 2 3; do ktap_skip "kernel_nomod_$i" "no build/bin/rina-bench"; done
	ktap_finish
fi
if [ -e /dev/rina ]; then
	for i in 1 2 3; do ktap_skip "kernel_nomod_$i" "rina.ko is loaded here"; done
	ktap_finish
fi
if ! unshare -n true 2>/dev/null; then
	for i in 1 2 3; do ktap_skip "kernel_nomod_$i" "cannot create a network namespace"; done
	ktap_finish
fi
printf 'job 5\nelements 16\nrack 0 ina\nrank 0 198.18.77.1 rack 0\n' > "$tmp/job.txt"
# one INA rack of one rank: the rank runs its own agent thread
run() {
	unshare -n sh -c 'ip link set lo up &&
		ip addr add 198.18.77.1/32 dev lo && "$@"' sh \
		env RINA_JOB="$tmp/job.txt" RINA_RANK=0 "$@" \
		"$B" --transport udp --json -c 1 -b 4 -e 4096 -f 32 -n 1 -w 0
}
out=$(run 2>&1); rc=$?
if [ $rc = 0 ] && grep -q '"role":"ina-agent"' <<<"$out" &&
   ! grep -q '"wrong":[1-9]' <<<"$out"; then
	ktap_ok kernel_nomod_file_mode
else
	ktap_fail kernel_nomod_file_mode "exit $rc: $(tail -2 <<<"$out")"
fi
out=$(run RINA_KERNEL=0 2>&1); rc=$?
[ $rc = 0 ] && grep -q '"role":"ina-agent"' <<<"$out" &&
	ktap_ok kernel_nomod_kernel_0 ||
	ktap_fail kernel_nomod_kernel_0 "exit $rc: $(tail -2 <<<"$out")"
out=$(run RINA_KERNEL=1 2>&1); rc=$?
if [ $rc != 0 ] && grep -q 'RINA_KERNEL=1 but /dev/rina: No such file or directory (is rina.ko loaded?)' <<<"$out"; then
	ktap_ok kernel_nomod_kernel_1_fails_clearly
else
	ktap_fail kernel_nomod_kernel_1_fails_clearly "exit $rc: $out"
fi
ktap_finish
