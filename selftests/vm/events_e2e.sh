#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test (busybox sh, rina.ko loaded): librina reads rina.ko's events
# on its /dev/rina fd, so a job the kernel aborts or an admin deletes ends
# every rank's call at once instead of at its timeout. Two hosts on a
# bridge, two ranks on each (one namespace per host, ports 21056 and
# 21057), a plain ring: no INA rack, so no kernel agent whose own ABORT
# could tell the ranks; only the events can. The ranks run long
# rina-bench loops with a 20 s timeout (RINA_TIMEOUT_MS) and must fail
# within FAST_MS:
#  - rank 1 is killed (its fd closes without a detach): rank 0, on the
#    same host, names the lost rank from rina.ko's event and tells the
#    other host's ranks, which fail with its ABORT;
#  - `rinactl job del` on host 0 mid-run: ranks 0 and 1 say so;
#  - the job deleted while rank 0 waits in rina_comm_init() for the
#    others: init fails with the same message.
# Prints KTAP; cleans up after itself; bounded by a watchdog per run.
. /tests/ktap.sh
. /tests/guest_lib.sh
echo "TAP version 13"	# plan at the end: "1..N"
IP=/usr/bin/ip
BENCH=/usr/bin/rina-bench
sfx=$$
br=rbe$sfx
D=$(mktemp -d)
FAST_MS=3000		# well under the ranks' 20 s timeout
WATCHDOG_S=40		# a run that ignores the events is ended here

ns() { echo "re$sfx-$1"; }
in_ns() { h=$1; shift; $IP netns exec "$(ns $h)" "$@"; }

cleanup() {
	[ -n "${wd:-}" ] && kill $wd 2>/dev/null
	for h in 0 1; do
		for j in 31 32 33; do
			in_ns $h rinactl job del $j >/dev/null 2>&1
		done
		$IP netns del "$(ns $h)" 2>/dev/null
	done
	$IP link del $br 2>/dev/null
	rm -rf $D
}
trap cleanup EXIT

# topology: hosts 198.19.31.1 and .2 on one bridge (a subnet no other
# guest test uses)
setup() {
	$IP link add $br type bridge || return 1
	$IP link set $br up || return 1
	for h in 0 1; do
		$IP netns add "$(ns $h)" || return 1
		$IP link add rev$sfx-$h type veth peer name eth0 \
			netns "$(ns $h)" || return 1
		$IP link set rev$sfx-$h master $br up || return 1
		in_ns $h $IP link set lo up || return 1
		in_ns $h $IP addr add 198.19.31.$((h + 1))/24 dev eth0 ||
			return 1
		in_ns $h $IP link set eth0 up || return 1
	done
}

# job ID: ranks 0, 1 on host 0, ranks 2, 3 on host 1, no INA
job() {
	cat <<JOB
job $1
elements 64
window 16
timeout_ms 20000
rto_us 5000
rack 0 plain
rack 1 plain
rank 0 198.19.31.1:21056 rack 0
rank 1 198.19.31.1:21057 rack 0
rank 2 198.19.31.2:21056 rack 1
rank 3 198.19.31.2:21057 rack 1
JOB
}

add_job() { # ID: in both hosts' namespaces
	job $1 > $D/j$1.txt
	in_ns 0 rinactl job add $D/j$1.txt >/dev/null &&
		in_ns 1 rinactl job add $D/j$1.txt >/dev/null
}

# start NAME ID RANKS...: a long rina-bench loop per rank, in the
# background (ip netns exec and env exec: the pid is rina-bench's own),
# pids in $pids; a watchdog ends them should the events be ignored
start() {
	name=$1 id=$2 pids=""
	shift 2
	for r in "$@"; do
		$IP netns exec "$(ns $((r / 2)))" env RINA_JOB=$D/j$id.txt \
			RINA_RANK=$r RINA_KERNEL=1 RINA_TIMEOUT_MS=20000 \
			$BENCH --transport udp -c 0 -d int32 -b 65536 \
			-e 65536 -n 1000000 -w 0 > $D/$name.$r 2>&1 &
		pids="$pids $!"
	done
	(sleep $WATCHDOG_S; kill -9 $pids) 2>/dev/null &
	wd=$!
}

# the job's state in host H's namespace
state() {
	in_ns $1 rinactl job show $2 | grep -o 'state [a-z]*'
}

# wait_attached H ID: both of host H's ranks attached (bounded, 10 s)
wait_attached() {
	i=0
	while [ "$(state $1 $2)" != "state active" ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ "$(state $1 $2)" = "state active" ]
}

# reap PIDS...: wait for each; $nfail of them failed, $ms after $t0
reap() {
	nfail=0
	for p in "$@"; do wait $p || nfail=$((nfail + 1)); done
	ms=$(( $(now_ms) - t0 ))
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	wd=""
}

if ! setup; then
	ktap_fail events_e2e_topology
	echo "1..$ktap_n"
	ktap_finish
fi
ktap_ok events_e2e_topology

# 1. rank 1 killed mid-run
if add_job 31; then
	ktap_ok events_e2e_job_add
else
	ktap_fail events_e2e_job_add
fi
start kill 31 0 1 2 3
set -- $pids
wait_attached 0 31 && wait_attached 1 31 && sleep 2
kill -9 $2
t0=$(now_ms)
reap $1 $3 $4
wait $2
lost=$(grep -c 'job aborted: rank 0: rina.ko aborted job 31: rank 1 was lost (its /dev/rina fd closed without a detach)' $D/kill.0)
told=$(cat $D/kill.2 $D/kill.3 |
       grep -c 'job aborted: rank 0 aborted the job: the job ended there (rina.ko on its host')
echo "# rank 1 killed: $nfail of 3 failed in $ms ms; rank 0 named it: $lost, host 1's ranks told: $told, host 0: $(state 0 31)"
if [ $nfail = 3 ] && [ $ms -lt $FAST_MS ] && [ "$lost" = 1 ]; then
	ktap_ok events_e2e_member_lost_ends_calls
else
	tail -2 $D/kill.? | sed 's/^/# /'
	ktap_fail events_e2e_member_lost_ends_calls
fi
# rank 0 heard rina.ko, its ABORT told the other host, not a timeout
if [ $nfail = 3 ] && [ $ms -lt $FAST_MS ] && [ "$told" = 2 ]; then
	ktap_ok events_e2e_member_lost_other_host_told
else
	ktap_fail events_e2e_member_lost_other_host_told
fi
for h in 0 1; do in_ns $h rinactl job del 31 >/dev/null; done

# 2. the job deleted on host 0 mid-run
add_job 32
start del 32 0 1 2 3
set -- $pids
wait_attached 0 32 && wait_attached 1 32 && sleep 2
t0=$(now_ms)
in_ns 0 rinactl job del 32 >/dev/null
reap $1 $2 $3 $4
said=$(cat $D/del.0 $D/del.1 |
       grep -c 'job aborted: rank [01]: job 32 was deleted from rina.ko (rinactl job del)')
told=$(cat $D/del.2 $D/del.3 |
       grep -c 'job aborted: rank [01] aborted the job: the job ended there')
echo "# job 32 deleted on host 0: $nfail of 4 failed in $ms ms; host 0's ranks said so: $said, host 1's told: $told"
if [ $nfail = 4 ] && [ $ms -lt $FAST_MS ] && [ "$said" = 2 ] &&
   [ "$told" = 2 ]; then
	ktap_ok events_e2e_job_deleted_ends_calls
else
	tail -2 $D/del.? | sed 's/^/# /'
	ktap_fail events_e2e_job_deleted_ends_calls
fi
in_ns 1 rinactl job del 32 >/dev/null

# 3. the job deleted while rank 0 waits in init for its neighbours
add_job 33
start init 33 0
set -- $pids
i=0	# attached: rank 0 is in its HELLO loop (bounded, 10 s)
until in_ns 0 rinactl job show 33 | grep -q 'state active' ||
      [ $i -ge 100 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.5
t0=$(now_ms)
in_ns 0 rinactl job del 33 >/dev/null
reap $1
said=$(grep -c 'job aborted: rank 0: job 33 was deleted from rina.ko' $D/init.0)
echo "# job 33 deleted during rank 0's init: failed $nfail in $ms ms, said so: $said"
if [ $nfail = 1 ] && [ $ms -lt $FAST_MS ] && [ "$said" = 1 ]; then
	ktap_ok events_e2e_job_deleted_during_init
else
	sed 's/^/# /' $D/init.0 | tail -3
	ktap_fail events_e2e_job_deleted_during_init
fi
in_ns 1 rinactl job del 33 >/dev/null
echo "1..$ktap_n"
ktap_finish
