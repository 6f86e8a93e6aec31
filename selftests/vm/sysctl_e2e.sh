#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test (busybox sh, rina.ko loaded): every net.rina.* sysctl changes
# what a user sees. Two hosts (netns) on a veth pair, jobs of one rack of
# two (plain, or INA with rina.ko's agent on host 0). Checked: rinactl job add leaves what the
# job file leaves out to the module (default_elems, default_window,
# timeout_ms, rto_us, fallback show in job show), librina takes the same
# defaults from /proc/sys/net/rina (a 1x2 allreduce through /dev/rina with
# E and W from the sysctls; with the sysctl directory hidden from it
# librina keeps its built-in ones and the kernel's plan disagrees), and
# debug 0..3 logs nothing, the job lifecycle, attaches and agent workers,
# then every dropped agent packet. Prints KTAP; cleans up after itself.
. /tests/ktap.sh
echo "TAP version 13"	# plan at the end: "1..N"
IP=/usr/bin/ip
BENCH=/usr/bin/rina-bench
FORGE=/tests/rina_forge
sfx=$$
D=$(mktemp -d)

ns() { echo "rs$sfx-$1"; }
in_ns() { h=$1; shift; $IP netns exec "$(ns $h)" "$@"; }
set_ctl() { in_ns $1 sh -c "echo $3 > /proc/sys/net/rina/$2"; }

cleanup() {
	$IP netns del "$(ns 0)" 2>/dev/null
	$IP netns del "$(ns 1)" 2>/dev/null
	rm -rf $D
}
trap cleanup EXIT

# hosts 198.19.51.1 and .2 (a subnet no other guest test uses)
setup() {
	$IP netns add "$(ns 0)" && $IP netns add "$(ns 1)" || return 1
	$IP link add rs$sfx type veth peer name eth0 netns "$(ns 1)" ||
		return 1
	$IP link set rs$sfx netns "$(ns 0)" || return 1
	in_ns 0 $IP link set rs$sfx name eth0 || return 1
	for h in 0 1; do
		in_ns $h $IP link set lo up || return 1
		in_ns $h $IP addr add 198.19.51.$((h + 1))/24 dev eth0 ||
			return 1
		in_ns $h $IP link set eth0 up || return 1
	done
}

# job ID RACK [EXTRA]: one rack ("plain", "ina agent_port 21070"...) of
# two ranks, every tunable left out but EXTRA. Only job 41 (plain: no
# agent) is on both hosts; the INA ones, on host 0 only, come one at a
# time on agent port 21070, whose worker rina.ko runs there
job() {
	printf 'job %s\nrack 0 %s\n' $1 "$2"
	printf 'rank 0 198.19.51.1 rack 0\nrank 1 198.19.51.2 rack 0\n'
	[ -n "$3" ] && printf '%s\n' "$3"
}
AG="ina agent_port 21070"

if ! setup; then
	ktap_fail sysctl_e2e_topology
	echo "1..$ktap_n"
	ktap_finish
fi
ktap_ok sysctl_e2e_topology

for h in 0 1; do
	set_ctl $h default_elems 32
	set_ctl $h default_window 8
	set_ctl $h timeout_ms 4000
	set_ctl $h rto_us 3000
done

# rinactl job add sends only what the file gives
job 41 plain > $D/j41.txt
job 42 "$AG" "window 16" > $D/j42.txt
in_ns 0 rinactl job add $D/j41.txt > /dev/null
in_ns 0 rinactl job add $D/j42.txt > /dev/null
s41=$(in_ns 0 rinactl job show 41 | head -1)
s42=$(in_ns 0 rinactl job show 42 | head -1)
echo "$s41" | grep -q 'elements 32 window 8 timeout_ms 4000 rto_us 3000' &&
	ktap_ok sysctl_job_add_module_defaults ||
	ktap_fail sysctl_job_add_module_defaults "$s41"
echo "$s42" | grep -q 'elements 32 window 16 timeout_ms 4000 rto_us 3000' &&
	ktap_ok sysctl_job_add_file_wins ||
	ktap_fail sysctl_job_add_file_wins "$s42"
in_ns 0 rinactl job del 42 > /dev/null

# fallback: a job with a ToR and no "fallback" line takes net.rina.fallback
set_ctl 0 fallback 0
job 43 "ina tor 198.19.51.254 agent_port 21070" > $D/j43.txt
in_ns 0 rinactl job add $D/j43.txt > /dev/null
f0=$(in_ns 0 rinactl job show 43 | grep -o 'fallback [a-z]*')
in_ns 0 rinactl job del 43 > /dev/null
set_ctl 0 fallback 1
in_ns 0 rinactl job add $D/j43.txt > /dev/null
f1=$(in_ns 0 rinactl job show 43 | grep -o 'fallback [a-z]*')
in_ns 0 rinactl job del 43 > /dev/null
[ "$f0" = "fallback abort" ] && [ "$f1" = "fallback software" ] &&
	ktap_ok sysctl_fallback_default || ktap_fail sysctl_fallback_default "$f0 / $f1"

# debug 0 logs nothing, 1 the lifecycle
job 44 "$AG" > $D/j44.txt
job 45 "$AG" > $D/j45.txt
set_ctl 0 debug 0
in_ns 0 rinactl job add $D/j44.txt > /dev/null
in_ns 0 rinactl job del 44 > /dev/null
set_ctl 0 debug 1
in_ns 0 rinactl job add $D/j45.txt > /dev/null
in_ns 0 rinactl job del 45 > /dev/null
if dmesg | grep -q 'rina: job 44 '; then
	ktap_fail sysctl_debug_0_quiet "$(dmesg | grep 'rina: job 44 ')"
else
	ktap_ok sysctl_debug_0_quiet
fi
dmesg | grep -q 'rina: job 45 added: 2 ranks, 1 racks, E 32 W 8' &&
dmesg | grep -q 'rina: job 45 deleted' && ! dmesg | grep -q 'rina: job 45 rank' &&
	ktap_ok sysctl_debug_1_lifecycle ||
	ktap_fail sysctl_debug_1_lifecycle "$(dmesg | grep 'rina: job 45' | head -3)"

# librina: E and W of job 41 from the sysctls on both hosts, so that the
# kernel's plan agrees (debug 2: attaches logged)
in_ns 1 rinactl job add $D/j41.txt > /dev/null
set_ctl 0 debug 2
bench() { # H [ENV...]
	h=$1; shift
	in_ns $h env RINA_JOB=$D/j41.txt RINA_RANK=$h RINA_KERNEL=1 "$@" \
		$BENCH --transport udp -c 1 -d int32 -b 4096 -e 4096 -n 2 -w 1
}
bench 0 > $D/b0 2>&1 & p0=$!
bench 1 > $D/b1 2>&1 & p1=$!
rc=0
wait $p0 || rc=1
wait $p1 || rc=1
if [ $rc = 0 ]; then
	ktap_ok sysctl_librina_takes_module_defaults
else
	tail -3 $D/b0 $D/b1 | sed 's/^/# /'
	ktap_fail sysctl_librina_takes_module_defaults
fi
dmesg | grep -q 'rina: job 41 rank 0 attached' &&
	ktap_ok sysctl_debug_2_attach ||
	ktap_fail sysctl_debug_2_attach "$(dmesg | grep 'rina: job 41' | head -3)"
# the same with the sysctls hidden from librina: built-in E 256, W 256
out=$(bench 0 RINA_SYSCTL_DIR=/nonexistent 2>&1)
echo "$out" | grep -q "kernel's plan of job 41 (.*E 32, W 8) is not the job file's (.*E 256, W 256)" &&
	ktap_ok sysctl_librina_without_defaults_mismatch ||
	ktap_fail sysctl_librina_without_defaults_mismatch "$(echo "$out" | tail -2)"

for h in 0 1; do in_ns $h rinactl job del 41 > /dev/null; done

# debug 3: a packet job 46's agent drops (another job's id) is logged
job 46 "$AG" > $D/j46.txt
in_ns 0 rinactl job add $D/j46.txt > /dev/null
set_ctl 0 debug 3
if [ -x $FORGE ]; then
	in_ns 1 $FORGE 198.19.51.2 21056 198.19.51.1 21070 99 1 hello 1 \
		> /dev/null 2>&1
	sleep 1
	dmesg | grep -q 'rina: job 46 agent: dropped a [0-9]*-byte packet: unknown_job' &&
		ktap_ok sysctl_debug_3_drops ||
		ktap_fail sysctl_debug_3_drops "$(dmesg | grep 'rina: job 46' | tail -2)"
else
	ktap_skip sysctl_debug_3_drops "rina_forge not built"
fi
set_ctl 0 debug 0
in_ns 0 rinactl job del 46 > /dev/null

echo "1..$ktap_n"
ktap_finish
