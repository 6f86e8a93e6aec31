#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test (busybox sh, rina.ko loaded): an end-to-end Rina allreduce
# between network namespaces with rina.ko's in-kernel agent. Four hosts
# on a bridge, two racks of two; the job is added with rinactl in every
# host's namespace, the ranks run rina-bench (librina) attached through
# /dev/rina (RINA_KERNEL=1: the kernel is required), and the agent rank's
# librina starts no agent thread: the kernel worker owns the agent port
# and aggregates in software (no ToR). Checked: exact results on every
# rank (-c 1), identical across ranks and equal to librina's own agent
# thread (file-based mode after the job is deleted), the agent's counters
# in /proc/net/rina_agents, and recovery under tc netem loss, duplication
# and reordering on every link. Prints KTAP; cleans up after itself.
. /tests/ktap.sh
echo "TAP version 13"	# plan at the end: "1..N"
IP=/usr/bin/ip TC=/usr/bin/tc
BENCH=/usr/bin/rina-bench
sfx=$$
br=rbr$sfx
D=$(mktemp -d)
NH=4

ns() { echo "rh$sfx-$1"; }
in_ns() { h=$1; shift; $IP netns exec "$(ns $h)" "$@"; }

cleanup() {
	for h in 0 1 2 3; do
		in_ns $h rinactl job del 21 >/dev/null 2>&1
		in_ns $h rinactl job del 22 >/dev/null 2>&1
		in_ns $h rinactl job del 23 >/dev/null 2>&1
		in_ns $h rinactl job del 24 >/dev/null 2>&1
		in_ns $h rinactl job del 25 >/dev/null 2>&1
		in_ns $h rinactl job del 26 >/dev/null 2>&1
		$IP netns del "$(ns $h)" 2>/dev/null
	done
	$IP link del $br 2>/dev/null
	rm -rf $D
}
trap cleanup EXIT

# topology: hosts 198.19.21.1..4 on one bridge (a subnet no other guest
# test uses: an address of the bridge's own namespace would answer ARP)
setup() {
	$IP link add $br type bridge || return 1
	$IP link set $br up || return 1
	for h in 0 1 2 3; do
		$IP netns add "$(ns $h)" || return 1
		$IP link add rv$sfx-$h type veth peer name eth0 \
			netns "$(ns $h)" || return 1
		$IP link set rv$sfx-$h master $br up || return 1
		in_ns $h $IP link set lo up || return 1
		in_ns $h $IP addr add 198.19.21.$((h + 1))/24 dev eth0 || return 1
		in_ns $h $IP link set eth0 up || return 1
	done
}

# job ID RACK1: 2x2, rack 0 INA, rack 1 INA or plain
job() {
	cat <<JOB
job $1
elements 64
window 16
timeout_ms 30000
rto_us 5000
rack 0 ina
rack 1 $2
rank 0 198.19.21.1 rack 0
rank 1 198.19.21.2 rack 0
rank 2 198.19.21.3 rack 1
rank 3 198.19.21.4 rack 1
JOB
}

# run NAME JOBFILE KERNEL: rina-bench on every rank, exact results
run() {
	name=$1 jf=$2 kern=$3 pids=""
	for h in 0 1 2 3; do
		in_ns $h env RINA_JOB=$jf RINA_RANK=$h RINA_KERNEL=$kern \
			$BENCH --transport udp --json -c 1 -d int32 \
			-b 4 -e 65536 -f 16 -n 2 -w 1 \
			> $D/$name.$h 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do wait $p || rc=1; done
	if [ $rc != 0 ]; then
		tail -3 $D/$name.* | sed 's/^/# /'
		for h in 0 2; do in_ns $h cat /proc/net/rina_agents; done |
			sed 's/^/# /'
		grep 'rina_agent\|rina_attach' /sys/kernel/tracing/trace 2>/dev/null |
			tail -20 | sed 's/^/# /'
		return 1
	fi
	# every rank: 4 sizes (4 B .. 16 KiB), nothing wrong; one hash each
	rows=$(cat $D/$name.? | grep '^{' | wc -l)
	bad=$(cat $D/$name.? | grep '^{' | grep -vc '"wrong":0,')
	hashes=$(cat $D/$name.? | grep '^{' |
		 sed 's/.*"size":\([0-9]*\),.*"hash":"\([0-9a-f]*\)".*/\1 \2/' |
		 sort -u | wc -l)
	[ "$rows" = 16 ] && [ "$bad" = 0 ] && [ "$hashes" = 4 ] ||
		{ echo "# $name: rows $rows wrong $bad hashes $hashes"; return 1; }
	cat $D/$name.? | grep '^{' |
		sed 's/.*"size":\([0-9]*\),.*"hash":"\([0-9a-f]*\)".*/\1 \2/' |
		sort -u > $D/$name.hashes
}

# agent counter NAME of job JOB in host H's namespace
counter() {
	in_ns $1 cat /proc/net/rina_agents |
		awk -v j=$2 -v n=$3 '$2 == j { for (i = 1; i < NF; i++)
			if ($i == n) print $(i + 1) }'
}

T=/sys/kernel/tracing/events/rina
[ -d $T ] && echo 1 > $T/rina_agent/enable && echo 1 > $T/rina_attach/enable
if ! setup; then
	ktap_fail agent_e2e_topology
	echo "1..$ktap_n"
	ktap_finish
fi
ktap_ok agent_e2e_topology

# job 21: both racks INA (ring of 2): two kernel agents (hosts 0 and 2)
job 21 ina > $D/j21.txt
ok=1
for h in 0 1 2 3; do in_ns $h rinactl job add $D/j21.txt >/dev/null || ok=0; done
a0=$(in_ns 0 rinactl job show 21 | grep -o 'local_agents [0-9]*')
a1=$(in_ns 1 rinactl job show 21 | grep -o 'local_agents [0-9]*')
[ $ok = 1 ] && [ "$a0" = "local_agents 1" ] && [ "$a1" = "local_agents 0" ] &&
	ktap_ok agent_e2e_job_add_kernel_agents ||
	ktap_fail agent_e2e_job_add_kernel_agents "$a0 / $a1"

if run k21 $D/j21.txt 1; then
	ktap_ok agent_e2e_kernel_agent_2x2_all_ina_exact
else
	ktap_fail agent_e2e_kernel_agent_2x2_all_ina_exact
fi
ci=$(counter 0 21 contrib_in) sd=$(counter 0 21 slots_done)
ci2=$(counter 2 21 contrib_in)
[ "${ci:-0}" -gt 0 ] && [ "${sd:-0}" -gt 0 ] && [ "${ci2:-0}" -gt 0 ] &&
	ktap_ok agent_e2e_kernel_aggregated ||
	ktap_fail agent_e2e_kernel_aggregated "contrib_in $ci/$ci2 slots $sd"
# rank 0 says who runs its rack's agent; rank 1 (rack 0, host 1) cannot
# tell and says nothing
grep -q '"role":"ina-worker","agent":"kernel",' $D/k21.0 &&
grep -q '"role":"ina-worker",' $D/k21.1 && ! grep -q '"agent":' $D/k21.1 &&
	ktap_ok agent_e2e_no_agent_thread_in_librina ||
	ktap_fail agent_e2e_no_agent_thread_in_librina "$(grep -o '"role":"[a-z-]*"[^,]*' $D/k21.0 | head -1)"
s=$(counter 0 21 sessions)
[ "${s:-0}" -ge 1 ] && ktap_ok agent_e2e_session_end ||
	ktap_fail agent_e2e_session_end "sessions $s"

# the ranks detached explicitly at destroy: the jobs are not aborted
st=$(for h in 0 1 2 3; do in_ns $h rinactl job show 21; done |
     grep -o 'state [a-z]*' | sort -u)
[ "$st" = "state ready" ] && ktap_ok agent_e2e_explicit_detach ||
	ktap_fail agent_e2e_explicit_detach "$st"

# a second session on the same kernel agents
if run k21b $D/j21.txt 1 && cmp -s $D/k21.hashes $D/k21b.hashes; then
	ktap_ok agent_e2e_second_session
else
	ktap_fail agent_e2e_second_session
fi

# the agent rank's process is killed mid-run: its fd closes without a
# detach (member lost), the kernel agent sends ABORT to every rank, and
# the other ranks fail with that message long before the job timeout
# (ip netns exec and env exec: $! is rina-bench itself; bounded: 1000
# calls of 64 KiB if the abort did not work)
pids=""
for h in 0 1 2 3; do
	$IP netns exec "$(ns $h)" env RINA_JOB=$D/j21.txt RINA_RANK=$h \
		RINA_KERNEL=1 $BENCH --transport udp -c 0 -d int32 \
		-b 65536 -e 65536 -n 1000 -w 0 > $D/kill.$h 2>&1 &
	pids="$pids $!"
done
set -- $pids
sleep 5
kill -9 $1
t0=$(date +%s)
nfail=0
for p in $2 $3 $4; do wait $p || nfail=$((nfail + 1)); done
wait $1
secs=$(( $(date +%s) - t0 ))
nab=$(cat $D/kill.1 $D/kill.2 $D/kill.3 | grep -c 'aborted')
st=$(in_ns 0 rinactl job show 21 | grep -o 'state [a-z]*')
ab=$(counter 0 21 aborts)
echo "# killed the agent rank: $nfail of 3 failed in ${secs}s, $nab saw an abort, $st, agent aborts $ab"
if [ $nfail = 3 ] && [ $nab = 3 ] && [ $secs -lt 20 ] &&
   [ "$st" = "state aborted" ] && [ "${ab:-0}" -ge 1 ]; then
	ktap_ok agent_e2e_lost_member_kernel_abort
else
	cat $D/kill.? | tail -8 | sed 's/^/# /'
	ktap_fail agent_e2e_lost_member_kernel_abort
fi

# the same job file-based (job deleted: librina's own agent thread)
for h in 0 1 2 3; do in_ns $h rinactl job del 21 >/dev/null; done
if run f21 $D/j21.txt 0 && cmp -s $D/k21.hashes $D/f21.hashes &&
   grep -q '"role":"ina-agent","agent":"librina",' $D/f21.0; then
	ktap_ok agent_e2e_file_mode_identical
else
	ktap_fail agent_e2e_file_mode_identical
fi

# a silent worker of an INA rack is named by the kernel agent: rank 1
# (rack 0, agent on host 0) gets SIGNAL 3 s into 1000 calls of 64 KiB
# (bounded if nothing happens); every other rank's error must say "rank 1
# silent" within 10 s. Jobs 24 and 25 (timeout 2 s): killed, its fd
# closes on host 1, which has no agent to tell, so, as when stopped (fd
# open), host 0's agent names it by its silence at 3/4 of the timeout;
# a stopped victim is killed afterwards.
silent_run() { # NAME JOBFILE SIGNAL
	name=$1 jf=$2 sig=$3 pids=""
	for h in 0 1 2 3; do
		$IP netns exec "$(ns $h)" env RINA_JOB=$jf RINA_RANK=$h \
			RINA_KERNEL=1 $BENCH --transport udp -c 0 -d int32 \
			-b 65536 -e 65536 -n 1000 -w 0 > $D/$name.$h 2>&1 &
		pids="$pids $!"
	done
	set -- $pids
	sleep 3
	kill -$sig $2
	t0=$(date +%s)
	for p in $1 $3 $4; do wait $p; done
	secs=$(( $(date +%s) - t0 ))
	kill -9 $2 2>/dev/null
	wait $2
	named=$(cat $D/$name.0 $D/$name.2 $D/$name.3 | grep -c 'rank 1 silent')
	echo "# $name: $named of 3 ranks name rank 1, ${secs}s after SIG$sig"
	if [ "$named" = 3 ] && [ $secs -lt 10 ]; then
		ktap_ok agent_e2e_silent_worker_$name
	else
		cat $D/$name.0 $D/$name.2 $D/$name.3 | tail -6 | sed 's/^/# /'
		ktap_fail agent_e2e_silent_worker_$name
	fi
}
# one at a time: each job's kernel agent holds host 0's agent port
for j in 24 25; do
	job $j plain | sed 's/^timeout_ms .*/timeout_ms 2000/' > $D/j$j.txt
	for h in 0 1 2 3; do in_ns $h rinactl job add $D/j$j.txt >/dev/null; done
	if [ $j = 24 ]; then
		silent_run killed $D/j24.txt KILL
	else
		silent_run stopped $D/j25.txt STOP
	fi
	for h in 0 1 2 3; do in_ns $h rinactl job del $j >/dev/null; done
done

# job 23: job 21 with a secret (secret_file), added with rinactl: the
# kernel agents sign and check control messages and tag data with the
# kernel's siphash(), librina's ranks with libsodium, so an exact run
# proves both agree; forged unsigned HELLO/ABORT and untagged data from
# a worker's own address and port are refused and counted; the secret
# is in no output
sec=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
(umask 077; echo "$sec" > $D/secret)
{ job 23 ina; echo "secret_file $D/secret"; } > $D/j23.txt
ok=1
for h in 0 1 2 3; do in_ns $h rinactl job add $D/j23.txt >/dev/null || ok=0; done
show=$(in_ns 0 rinactl job show 23)
showj=$(in_ns 0 rinactl -j job show 23)
[ $ok = 1 ] && [ ${#sec} = 32 ] &&
echo "$show" | grep -q 'local_agents 1 signed yes' &&
echo "$showj" | grep -q '"signed":true' &&
	ktap_ok agent_e2e_secret_job_added_signed ||
	ktap_fail agent_e2e_secret_job_added_signed "$show"
W=21056 A=21071
in_ns 1 /tests/rina_forge 198.19.21.2 $W 198.19.21.1 $A 23 1 hello 500 &&
in_ns 1 /tests/rina_forge 198.19.21.2 $W 198.19.21.1 $A 23 1 abort 500 &&
in_ns 1 /tests/rina_forge 198.19.21.2 $W 198.19.21.1 $A 23 1 contrib 1000
rc=$?
# the agent thread takes them in its own time: wait (bounded) for it
i=0
while [ "$(counter 0 23 bad_tag)" != 1000 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
cf=$(counter 0 23 ctrl_forged) bt=$(counter 0 23 bad_tag)
ci=$(counter 0 23 contrib_in)
echo "# forged to the kernel agent: ctrl_forged $cf bad_tag $bt contrib_in $ci"
[ $rc = 0 ] && [ "$cf" = 1000 ] && [ "$bt" = 1000 ] && [ "$ci" = 0 ] &&
	ktap_ok agent_e2e_secret_forged_refused_and_counted ||
	ktap_fail agent_e2e_secret_forged_refused_and_counted "rc $rc"
if run k23 $D/j23.txt 1 && cmp -s $D/k21.hashes $D/k23.hashes &&
   grep -q '"role":"ina-worker"' $D/k23.0; then
	ktap_ok agent_e2e_secret_kernel_agent_signed_tagged_exact
else
	ktap_fail agent_e2e_secret_kernel_agent_signed_tagged_exact
fi
# nothing librina sent was refused: the same counts as before the run
cf=$(counter 0 23 ctrl_forged) bt=$(counter 0 23 bad_tag)
cr=$(counter 0 23 ctrl_replayed) ci=$(counter 0 23 contrib_in)
cf2=$(counter 2 23 ctrl_forged) bt2=$(counter 2 23 bad_tag)
[ "$cf" = 1000 ] && [ "$bt" = 1000 ] && [ "$cr" = 0 ] &&
[ "$cf2" = 0 ] && [ "$bt2" = 0 ] && [ "${ci:-0}" -gt 0 ] &&
	ktap_ok agent_e2e_secret_librina_accepted ||
	ktap_fail agent_e2e_secret_librina_accepted \
		"forged $cf/$cf2 bad_tag $bt/$bt2 replayed $cr contrib_in $ci"
leak=""
for h in 0 1 2 3; do
	in_ns $h rinactl -j job show | grep -qi "$sec" && leak="$leak show-j:$h"
	in_ns $h rinactl job show | grep -qi "$sec" && leak="$leak show:$h"
	in_ns $h cat /proc/net/rina_agents | grep -qi "$sec" && leak="$leak proc:$h"
done
grep -qi "$sec" /sys/kernel/tracing/trace 2>/dev/null && leak="$leak trace"
dmesg | grep -qi "$sec" && leak="$leak dmesg"
[ -z "$leak" ] && ktap_ok agent_e2e_secret_not_shown ||
	ktap_fail agent_e2e_secret_not_shown "$leak"
# a rank whose job has no secret attaching to the signed kernel job (and
# one with the secret attaching to an unsigned one, job 26): a clear
# RINA_ERR_MISMATCH at init, not a HELLO timeout
job 23 ina > $D/j23u.txt
{ job 26 ina; echo "secret_file $D/secret"; } > $D/j26s.txt
job 26 ina > $D/j26.txt
in_ns 1 rinactl job add $D/j26.txt >/dev/null
o1=$(in_ns 1 env RINA_JOB=$D/j23u.txt RINA_RANK=1 RINA_KERNEL=1 \
	$BENCH --transport udp -b 4 -e 4 -n 1 -w 0 2>&1)
o2=$(in_ns 1 env RINA_JOB=$D/j26s.txt RINA_RANK=1 RINA_KERNEL=1 \
	$BENCH --transport udp -b 4 -e 4 -n 1 -w 0 2>&1)
in_ns 1 rinactl job del 26 >/dev/null
echo "$o1" | grep -q 'job 23 in rina.ko has a secret and this rank has none' &&
echo "$o2" | grep -q 'job 26 in rina.ko has no secret and this rank has one' &&
	ktap_ok agent_e2e_secret_mismatch_clear ||
	ktap_fail agent_e2e_secret_mismatch_clear "$o1 / $o2"
for h in 0 1 2 3; do in_ns $h rinactl job del 23 >/dev/null; done

# job 27: job 23 with `auth mac`: the kernel agents MAC every data packet
# under the data key (kernel siphash()), librina's ranks check and MAC
# with libsodium's: a run with results equal to job 21's proves both keys
# and MACs agree (a tag-only agent's packets the ranks would refuse);
# untagged forged contributions are refused
{ job 27 ina; echo "secret_file $D/secret"; echo "auth mac"; } > $D/j27.txt
ok=1
for h in 0 1 2 3; do in_ns $h rinactl job add $D/j27.txt >/dev/null || ok=0; done
show=$(in_ns 0 rinactl job show 27)
showj=$(in_ns 0 rinactl -j job show 27)
in_ns 1 /tests/rina_forge 198.19.21.2 $W 198.19.21.1 $A 27 1 contrib 200
i=0
while [ "$(counter 0 27 bad_tag)" != 200 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
bt=$(counter 0 27 bad_tag)
if [ $ok = 1 ] && echo "$show" | grep -q 'signed yes auth mac' &&
   echo "$showj" | grep -q '"auth":"mac"' && [ "$bt" = 200 ] &&
   run k27 $D/j27.txt 1 && cmp -s $D/k21.hashes $D/k27.hashes &&
   [ "$(counter 0 27 bad_tag)" = 200 ] && [ "$(counter 2 27 bad_tag)" = 0 ]; then
	ktap_ok agent_e2e_auth_mac_kernel_agent_exact
else
	echo "# $show / bad_tag $bt" | head -3
	ktap_fail agent_e2e_auth_mac_kernel_agent_exact
fi
for h in 0 1 2 3; do in_ns $h rinactl job del 27 >/dev/null; done

# RINA_KERNEL=1 without the job in the kernel: a clear error at init
out=$(in_ns 1 env RINA_JOB=$D/j21.txt RINA_RANK=1 RINA_KERNEL=1 \
	$BENCH --transport udp -b 4 -e 4 -n 1 -w 0 2>&1)
echo "$out" | grep -q 'attach to job 21 through /dev/rina: No such file' &&
	ktap_ok agent_e2e_kernel_required_but_no_job ||
	ktap_fail agent_e2e_kernel_required_but_no_job "$out"

# the kernel's plan differs from the job file (window): RINA_ERR_MISMATCH
sed 's/^window 16/window 32/' $D/j21.txt > $D/j21w.txt
in_ns 1 rinactl job add $D/j21w.txt >/dev/null
out=$(in_ns 1 env RINA_JOB=$D/j21.txt RINA_RANK=1 \
	$BENCH --transport udp -b 4 -e 4 -n 1 -w 0 2>&1)
echo "$out" | grep -q "kernel's plan of job 21 .* is not the job file's" &&
	ktap_ok agent_e2e_plan_mismatch ||
	ktap_fail agent_e2e_plan_mismatch "$out"
in_ns 1 rinactl job del 21 >/dev/null

# job 22: rack 0 INA, rack 1 plain (ring of 3), netem on every link
job 22 plain > $D/j22.txt
ok=1
for h in 0 1 2 3; do
	in_ns $h rinactl job add $D/j22.txt >/dev/null || ok=0
	in_ns $h $TC qdisc add dev eth0 root netem delay 1ms \
		loss 3% duplicate 3% reorder 10% || ok=0
done
[ $ok = 1 ] && ktap_ok agent_e2e_netem_setup || ktap_fail agent_e2e_netem_setup
if run k22 $D/j22.txt 1; then
	ktap_ok agent_e2e_kernel_agent_mixed_netem_exact
else
	ktap_fail agent_e2e_kernel_agent_mixed_netem_exact
fi
dup=$(counter 0 22 dup) re=$(counter 0 22 reemit)
rtx=$(counter 0 22 ag_retransmits) rep=$(counter 0 22 repairs)
echo "# agent counters under netem: dup $dup reemit $re ag_retransmits $rtx repairs $rep"
[ $((${dup:-0} + ${re:-0} + ${rtx:-0} + ${rep:-0})) -gt 0 ] &&
	ktap_ok agent_e2e_netem_recovery_counted ||
	ktap_fail agent_e2e_netem_recovery_counted
for h in 0 1 2 3; do
	in_ns $h $TC qdisc del dev eth0 root 2>/dev/null
	in_ns $h rinactl job del 22 >/dev/null
done
if run f22 $D/j22.txt 0 && cmp -s $D/k22.hashes $D/f22.hashes; then
	ktap_ok agent_e2e_mixed_file_mode_identical
else
	ktap_fail agent_e2e_mixed_file_mode_identical
fi
echo "1..$ktap_n"
ktap_finish
