#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test (busybox sh, rina.ko loaded): rina.ko's agent in front of
# rina-tor. Rack 0 (hosts 0, 1) hangs off a ToR namespace whose bridge
# br0 has ports h0, h1 and up0 (to the spine bridge), with rina-tor
# --on-demand on it and the ToR's control address on br0; rack 1 (hosts
# 2, 3) is plain, on the spine. The job is in rina.ko on every host, so
# host 0's kernel agent installs it on rina-tor (TOR_INSTALL), relays its
# own rank's contributions to it and removes the job at the end.
# Checked:
#  - exact results, the ToR's counters showing the rack added in the
#    switch, rinactl job show naming the ToR "on", the job removed from
#    rina-tor when deleted;
#  - rina-tor SIGKILLed between two calls of a run (calls 500 ms apart,
#    a training step's compute): every call exact, the agent says "lost";
#    rina-tor started again: the job goes back to it (tor_returns 1,
#    state "on", the new rina-tor adding the rack);
#  - rina-tor SIGKILLed in full flight of a call (back-to-back calls):
#    the agent tells the rack's workers (RINA_CTRL_TOR_LOST), they resend
#    what the dead switch held (rina-bench's resent_orphaned, rank 1's
#    too, whose agent is on host 0), and every call is exact;
#  - rinactl stats (-j "agents") lists the kernel agent with job show's
#    counters; rina-bench on rank 0 says its rack's agent is rina.ko
#    ("agent":"kernel");
#  - no ToR answering: "fallback abort" ends every rank with the agent's
#    abort ("job aborted: ..."), a rank started after that too (within
#    5 s, not its 20 s timeout); the default (software) runs exact with
#    the ToR "off";
#  - rina-tor started only after the job: a call in software, then the
#    agent, asking once a second, installs the job on it between calls
#    (tor_returns 1, state "on") and the next calls are added in it;
#  - two jobs whose rack-0 agents are both host 0's kernel, the second
#    on agent_port 21070, on one rina-tor at once: both exact, both
#    added in the switch;
#  - a second process on the agent's host (rank 4, port 21057, rack 0):
#    the kernel agent relays its contributions too, the ToR adds the
#    rack's three ranks, exact.
# Prints KTAP; cleans up after itself; each run bounded by a watchdog.
. /tests/ktap.sh
. /tests/guest_lib.sh
echo "TAP version 13"	# plan at the end: "1..N"
IP=/usr/bin/ip
BENCH=/usr/bin/rina-bench
TOR_BIN=/usr/bin/rina-tor
# A switch's control plane is not starved by the hosts; here four ranks
# and the kernel agent share two emulated CPUs with rina-tor, which
# forgets its jobs when it is away 400 ms (rina-tor(8)): once, in a
# guest of a loaded host, it forgot job 48 in mid-call, the agent put it
# back, and the call made no progress until its 20 s timeout (the agent
# never saw the ToR lost, so no worker was told). Real-time, as
# tor_rina_tor runs it on the host.
TOR_RT=
command -v chrt >/dev/null && TOR_RT="chrt -f 5"
sfx=$$
sp=rsp$sfx
D=$(mktemp -d)
NET=198.19.41
WATCHDOG_S=90

ns() { echo "rt$sfx-$1"; }	# host namespaces 0..3, and "tor"
in_ns() { _n=$1; shift; $IP netns exec "$(ns $_n)" "$@"; }

tor_pid=""
cleanup() {
	[ -n "$tor_pid" ] && kill -9 $tor_pid 2>/dev/null
	[ -n "${wd:-}" ] && kill $wd 2>/dev/null
	for h in 0 1 2 3; do
		for j in 41 42 43 44 45 46 47 48; do
			in_ns $h rinactl job del $j >/dev/null 2>&1
		done
	done
	for h in 0 1 2 3 tor; do $IP netns del "$(ns $h)" 2>/dev/null; done
	$IP link del $sp 2>/dev/null
	rm -rf $D
}
trap cleanup EXIT

setup() {
	$IP link add $sp type bridge || return 1
	$IP link set $sp up || return 1
	$IP netns add "$(ns tor)" || return 1
	in_ns tor $IP link set lo up || return 1
	in_ns tor $IP link add br0 type bridge || return 1
	in_ns tor $IP link set br0 up || return 1
	in_ns tor $IP addr add $NET.254/24 dev br0 || return 1
	$IP link add rtu$sfx type veth peer name up0 netns "$(ns tor)" ||
		return 1
	$IP link set rtu$sfx master $sp up || return 1
	in_ns tor $IP link set up0 master br0 up || return 1
	for h in 0 1 2 3; do
		$IP netns add "$(ns $h)" || return 1
		if [ $h -lt 2 ]; then	# rack 0: behind the ToR
			in_ns tor $IP link add h$h type veth peer name eth0 \
				netns "$(ns $h)" || return 1
			in_ns tor $IP link set h$h master br0 up || return 1
			# the ToR sends the agent host's copies from the
			# agent's own address (protocol-ina.md section 8)
			in_ns $h sh -c 'echo 1 > /proc/sys/net/ipv4/conf/all/accept_local' ||
				return 1
		else
			$IP link add rth$sfx-$h type veth peer name eth0 \
				netns "$(ns $h)" || return 1
			$IP link set rth$sfx-$h master $sp up || return 1
		fi
		in_ns $h $IP link set lo up || return 1
		in_ns $h $IP addr add $NET.$((h + 1))/24 dev eth0 || return 1
		in_ns $h $IP link set eth0 up || return 1
		# a ToR sees frames as a wire carries them: no UDP GSO
		# super-frames (librina sends runs as one)
		in_ns $h ethtool -K eth0 tx-udp-segmentation off \
			>/dev/null 2>&1 || return 1
	done
}

# job ID [EXTRA LINE]: rack 0 INA with the ToR, rack 1 plain
job() {
	cat <<JOB
job $1
elements 256
window 16
timeout_ms 20000
rto_us 5000
rack 0 ina tor $NET.254
rack 1 plain
rank 0 $NET.1 rack 0
rank 1 $NET.2 rack 0
rank 2 $NET.3 rack 1
rank 3 $NET.4 rack 1
JOB
	[ -n "$2" ] && echo "$2"
}

add_job() { # ID [EXTRA LINE]: in every host's namespace
	job $1 "$2" > $D/j$1.txt
	for h in 0 1 2 3; do
		in_ns $h rinactl job add $D/j$1.txt >/dev/null || return 1
	done
}
del_job() {
	for h in 0 1 2 3; do in_ns $h rinactl job del $1 >/dev/null; done
}

# start_tor N ID...: rina-tor in the ToR namespace with the files of
# jobs ID... (it installs a job on its agent's TOR_INSTALL only), ready
# once it has written its counters
start_tor() {
	_out=$D/tor.out.$1 _jobs=""
	shift
	for _j in "$@"; do _jobs="$_jobs --job $D/j$_j.txt"; done
	rm -f $D/tor.json
	$IP netns exec "$(ns tor)" $TOR_RT $TOR_BIN $_jobs --rack 0 \
		--bridge br0 --on-demand --stats $D/tor.json \
		> $_out 2>&1 &
	tor_pid=$!
	i=0
	while [ ! -s $D/tor.json ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ -s $D/tor.json ]
}

# tor_ctr JOB NAME: a counter of JOB in rina-tor's last stats (written
# every second)
tor_ctr() {
	sed 's/{"job":/\n&/g' $D/tor.json | grep "^{\"job\":$1," |
		grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2
}

# the kernel agent of host 0: its ToR state, and a counter
agent_line() { in_ns 0 rinactl job show $1 | grep 'agent rank 0 rack 0'; }
agent_tor() { agent_line $1 | sed 's/.* tor \([a-z]*\) .*/\1/'; }
agent_ctr() {
	agent_line $1 | awk -v n=$2 '{ for (i = 1; i < NF; i++)
		if ($i == n) print $(i + 1) }'
}

# start NAME ID ARGS...: rina-bench on every rank in the background,
# rank r on the host that is word r of $rank_hosts, pids in $pids, a
# watchdog that ends them should a run hang
rank_hosts="0 1 2 3"
start() {
	name=$1 id=$2 pids="" r=0
	shift 2
	for h in $rank_hosts; do
		$IP netns exec "$(ns $h)" env RINA_JOB=$D/j$id.txt \
			RINA_RANK=$r RINA_KERNEL=1 $BENCH --transport udp \
			--json -d int32 "$@" > $D/$name.$r 2>&1 &
		pids="$pids $!"
		r=$((r + 1))
	done
	(sleep $WATCHDOG_S; kill -9 $pids) 2>/dev/null &
	wd=$!
}
# reap: $nfail ranks failed
reap() {
	nfail=0
	for p in $pids; do wait $p || nfail=$((nfail + 1)); done
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	wd=""
}
# exact NAME ROWS: every rank printed ROWS rows, none wrong, one result
# hash per size across ranks
exact() {
	rows=$(cat $D/$1.? | grep -c '^{')
	bad=$(cat $D/$1.? | grep '^{' | grep -vc '"wrong":0,')
	sizes=$(cat $D/$1.? | grep '^{' | grep -o '"size":[0-9]*' | sort -u |
		wc -l)
	hashes=$(cat $D/$1.? | grep '^{' |
		 sed 's/.*"size":\([0-9]*\),.*"hash":"\([0-9a-f]*\)".*/\1 \2/' |
		 sort -u | wc -l)
	echo "# $1: $nfail ranks failed, rows $rows, wrong $bad, sizes $sizes, hashes $hashes"
	[ $nfail = 0 ] && [ "$rows" = $(( $(echo $rank_hosts | wc -w) * $2 )) ] &&
		[ "$bad" = 0 ] &&
		[ "$hashes" = "$sizes" ]
}
diag() {
	tail -3 $D/$1.? | sed 's/^/# /'
	agent_line $2 | sed 's/^/# /'
	cat $D/tor.out.* 2>/dev/null | tail -5 | sed 's/^/# /'
	sed 's/^/# /' $D/tor.json 2>/dev/null
}

if [ ! -x $TOR_BIN ] || ! command -v ethtool >/dev/null; then
	ktap_skip tor_agent_e2e "rina-tor or ethtool not in the guest"
	echo "1..$ktap_n"
	ktap_finish
fi
if ! setup; then
	ktap_fail tor_agent_e2e_topology
	echo "1..$ktap_n"
	ktap_finish
fi
ktap_ok tor_agent_e2e_topology

# 1. the rack aggregated in rina-tor, installed by rina.ko's agent
job 41 > $D/j41.txt
job 42 > $D/j42.txt
start_tor 1 41 42 && add_job 41 && ktap_ok tor_agent_e2e_job_and_tor_up ||
	ktap_fail tor_agent_e2e_job_and_tor_up
start k41 41 -c 1 -b 4 -e 262144 -f 16 -n 3 -w 1
reap
if exact k41 5; then
	ktap_ok tor_agent_e2e_kernel_agent_tor_exact
else
	diag k41 41
	ktap_fail tor_agent_e2e_kernel_agent_tor_exact
fi
sleep 1.2	# rina-tor's stats, written every second
ci=$(tor_ctr 41 contrib_in) sd=$(tor_ctr 41 slot_done)
st=$(agent_tor 41) rl=$(agent_ctr 41 tor_relays)
cp=$(agent_ctr 41 tor_copies) asd=$(agent_ctr 41 slots_done)
echo "# ToR job 41: contrib_in $ci slot_done $sd; kernel agent: tor $st tor_relays $rl tor_copies $cp slots_done $asd"
# the rack's two ranks' contributions reach the switch (rank 0's through
# the kernel agent's relay), the switch completes the slots
[ "${sd:-0}" -gt 0 ] && [ "${ci:-0}" -ge $(( 2 * sd )) ] &&
[ "$st" = on ] && [ "${rl:-0}" -gt 0 ] &&
	ktap_ok tor_agent_e2e_rack_added_in_the_switch ||
	{ diag k41 41; ktap_fail tor_agent_e2e_rack_added_in_the_switch; }
j=$(in_ns 0 rinactl -j job show 41)
echo "$j" | grep -q '"local_agent":\[{"rank":0,"rack":0,"tor":"on","tor_status":0,' &&
echo "$j" | grep -q '"fallback":"software"' &&
	ktap_ok tor_agent_e2e_job_show_json ||
	ktap_fail tor_agent_e2e_job_show_json "$j"
# rank 0's agent is rina.ko's: rina-bench says so, rank 1 (host 1) cannot
grep -q '"role":"ina-worker","agent":"kernel",' $D/k41.0 &&
grep -q '"role":"ina-worker",' $D/k41.1 && ! grep -q '"agent":' $D/k41.1 &&
	ktap_ok tor_agent_e2e_bench_rack_agent_kernel ||
	ktap_fail tor_agent_e2e_bench_rack_agent_kernel \
		"$(grep -o '"role":"[a-z-]*"[^,]*' $D/k41.0 | head -1)"

# rinactl stats: the same agent, its counters those of job show, read
# before and after (a quiet ToR's probes go on counting: in between)
kv() { echo "$1" | tr ',' '\n' | tr -d '"' | tr ':' ' '; }
j1=$(in_ns 0 rinactl -j job show 41)
sj=$(in_ns 0 rinactl -j stats)
st_txt=$(in_ns 0 rinactl stats)
j2=$(in_ns 0 rinactl -j job show 41)
kv "$(echo "$j1" | sed -n 's/.*"local_agent":\[{\([^]]*\)}\].*/\1/p')" > $D/a1
kv "$(echo "$sj" | sed -n 's/.*"agents":\[{"job":41,\([^]]*\)}\].*/\1/p')" > $D/as
kv "$(echo "$j2" | sed -n 's/.*"local_agent":\[{\([^]]*\)}\].*/\1/p')" > $D/a2
cmp=$(awk 'FNR == 1 { f++ } { k[f, FNR] = $1; v[f, FNR] = $2; n[f] = FNR }
	END {
		bad = n[1] < 20 || n[1] != n[2] || n[2] != n[3]
		for (i = 1; i <= n[1]; i++) {
			if (k[1, i] != k[2, i] || k[2, i] != k[3, i])
				bad++
			else if (v[1, i] ~ /^[0-9]+$/) {
				if (v[2, i] + 0 < v[1, i] + 0 ||
				    v[2, i] + 0 > v[3, i] + 0)
					bad++
			} else if (v[1, i] != v[2, i] || v[2, i] != v[3, i])
				bad++
			if (k[2, i] == "tor_relays") relays = v[2, i]
			if (k[2, i] == "tor") tor = v[2, i]
		}
		print bad + 0, n[2] + 0, relays + 0, tor
	}' $D/a1 $D/as $D/a2)
echo "# rinactl -j stats, agent of job 41 (bad, fields, tor_relays, tor): $cmp"
none=$(in_ns 2 rinactl -j stats | grep -c '"agents":\[\]}$')
set -- $cmp
[ "$1" = 0 ] && [ "$3" -gt 0 ] && [ "$4" = on ] && [ "$none" = 1 ] &&
echo "$st_txt" | grep -q '^agent job 41 rank 0 rack 0 tor on contrib_in ' &&
	ktap_ok tor_agent_e2e_stats_agents_as_job_show ||
	{ sed 's/^/# /' $D/as; echo "$st_txt" | grep agent | sed 's/^/# /'
	  ktap_fail tor_agent_e2e_stats_agents_as_job_show "$cmp"; }
# deleting the job takes it off the ToR (TOR_REMOVE)
in_ns 0 rinactl job del 41 >/dev/null
i=0
while ! grep -q 'job 41 removed' $D/tor.out.1 && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
grep -q 'job 41 removed' $D/tor.out.1 &&
	ktap_ok tor_agent_e2e_job_removed_from_tor ||
	ktap_fail tor_agent_e2e_job_removed_from_tor "$(tail -2 $D/tor.out.1)"
for h in 1 2 3; do in_ns $h rinactl job del 41 >/dev/null; done

# 2. rina-tor killed between two calls, then started again: 12 calls of
# 64 KiB, 1.5 s apart. The kill waits for a quiet agent (its relay
# counter still for 200 ms: between calls), as in a training step's
# compute; read from rank 0's /proc/PID/net (host 0's namespace) at no
# cost of a process in it.
add_job 42
start fo 42 -c 1 -b 65536 -e 65536 -n 12 -w 0 --gap-ms 1500
set -- $pids
# agent_proc PID JOB NAME: a counter of host 0's kernel agent of JOB
agent_proc() {
	awk -v j=$2 -v n=$3 '$2 == j { for (i = 1; i < NF; i++)
		if ($i == n) print $(i + 1) }' /proc/$1/net/rina_agents 2>/dev/null
}
i=0 last=x quiet=0
while [ $i -lt 400 ]; do	# bounded: 20 s
	v=$(agent_proc $1 42 tor_relays)
	if [ "${v:-0}" -gt 0 ] && [ "$v" = "$last" ]; then
		quiet=$((quiet + 1))
		[ $quiet -ge 4 ] && break
	else
		quiet=0
	fi
	last=$v
	sleep 0.05; i=$((i + 1))
done
echo "# killing rina-tor after $v relays, quiet $quiet"
kill -9 $tor_pid
wait $tor_pid 2>/dev/null
t_kill=$(now_ms)
# lost (the agent's ToR state 4): the next call's data reaches the
# agent past the dead ToR
i=0
while [ "$(agent_proc $1 42 tor)" != 4 ] && [ $i -lt 200 ]; do	# 10 s
	sleep 0.05; i=$((i + 1))
done
st_lost=$(agent_tor 42) ms=$(( $(now_ms) - t_kill ))
tl=$(agent_ctr 42 tor_lost)
echo "# rina-tor killed: agent says $st_lost after $ms ms, tor_lost $tl"
[ "$st_lost" = lost ] && [ "$tl" = 1 ] &&
	ktap_ok tor_agent_e2e_tor_killed_agent_notices ||
	ktap_fail tor_agent_e2e_tor_killed_agent_notices
start_tor 2 41 42	# the agent asks a lost ToR once a second
reap
if exact fo 1; then
	ktap_ok tor_agent_e2e_failover_every_call_exact
else
	diag fo 42
	ktap_fail tor_agent_e2e_failover_every_call_exact
fi
slow=$(grep -o '"time_max_us":[0-9.]*' $D/fo.0 | cut -d: -f2)
med=$(grep -o '"time_med_us":[0-9.]*' $D/fo.0 | cut -d: -f2)
echo "# failover run, rank 0: median call $med us, slowest $slow us"
sleep 1.2
st=$(agent_tor 42) tr=$(agent_ctr 42 tor_returns)
sd=$(tor_ctr 42 slot_done)
echo "# rina-tor started again: agent says $st, tor_returns $tr; new rina-tor slot_done $sd"
[ "$st" = on ] && [ "$tr" = 1 ] && [ "${sd:-0}" -gt 0 ] &&
	ktap_ok tor_agent_e2e_tor_back_reinstalled ||
	ktap_fail tor_agent_e2e_tor_back_reinstalled "$(agent_line 42)"
del_job 42
kill $tor_pid
wait $tor_pid 2>/dev/null
tor_pid=""

# 3. rina-tor killed in full flight of a call: 4 back-to-back calls of
# 512 KiB (some 515-580 relays of rank 0's contributions a call), the
# kill once the agent relayed 650, early in the second call, so that
# both workers have contributions out whatever the poll's lag (calls of
# 256 KiB, killed at 1000 relays, were once at a call's end in a slow
# guest: rank 0's contributions all delivered, nothing to resend). The
# agent finds the ToR silent, takes the rack over and tells both
# workers, which resend what they had out (resent_orphaned); every call
# exact. The slowest call less the median is what the switch-over cost.
job 48 > $D/j48.txt
if start_tor 5 48 && add_job 48; then
	start mid 48 -c 1 -b 524288 -e 524288 -n 4 -w 0
	set -- $pids
	i=0
	while [ $i -lt 1000 ]; do	# bounded: 20 s
		v=$(agent_proc $1 48 tor_relays)
		[ "${v:-0}" -ge 650 ] && break
		sleep 0.02; i=$((i + 1))
	done
	kill -9 $tor_pid
	wait $tor_pid 2>/dev/null
	tor_pid=""
	echo "# killing rina-tor in full flight after $v relays"
	reap
	st=$(agent_tor 48) tl=$(agent_ctr 48 tor_lost)
	o0=$(grep -o '"resent_orphaned":[0-9]*' $D/mid.0 | cut -d: -f2)
	o1=$(grep -o '"resent_orphaned":[0-9]*' $D/mid.1 | cut -d: -f2)
	slow=$(grep -o '"time_max_us":[0-9.]*' $D/mid.0 | cut -d: -f2)
	med=$(grep -o '"time_med_us":[0-9.]*' $D/mid.0 | cut -d: -f2)
	echo "# in full flight: agent says $st, tor_lost $tl; resent_orphaned rank 0 $o0, rank 1 $o1; rank 0: median call $med us, slowest $slow us"
	if exact mid 1 && [ "$st" = lost ] && [ "$tl" = 1 ] &&
	   [ "${o0:-0}" -gt 0 ] && [ "${o1:-0}" -gt 0 ]; then
		ktap_ok tor_agent_e2e_killed_in_flight_workers_told_exact
	else
		diag mid 48
		ktap_fail tor_agent_e2e_killed_in_flight_workers_told_exact
	fi
else
	ktap_fail tor_agent_e2e_killed_in_flight_workers_told_exact \
		"rina-tor or job 48 not up"
fi
del_job 48

# 4. no ToR answers (rina-tor gone; its programs stay attached but
# unleased, so the bridge forwards): fallback abort ends every rank with
# the agent's abort; software (the default) aggregates in the kernel
add_job 43 "fallback abort"
t0=$(now_ms)
start ab 43 -c 1 -b 4096 -e 4096 -n 3 -w 0
reap
ms=$(( $(now_ms) - t0 ))
# ranks 0 and 1 hear it from rina.ko (at attach, or as an event), ranks
# 2 and 3 from the agent's ABORT
said=$(cat $D/ab.? | grep -c 'job aborted: ')
st=$(in_ns 0 rinactl job show 43 | grep -o 'state [a-z]*')
fb=$(in_ns 0 rinactl job show 43 | grep -o 'fallback [a-z]*')
echo "# fallback abort, no ToR: $nfail of 4 failed in $ms ms, $said say aborted, host 0: $st, $fb"
sed 's/^/#   /' $D/ab.?
if [ $nfail = 4 ] && [ "$said" = 4 ] && [ "$st" = "state aborted" ] &&
   [ "$fb" = "fallback abort" ] && [ $ms -lt 15000 ]; then
	ktap_ok tor_agent_e2e_fallback_abort
else
	diag ab 43
	ktap_fail tor_agent_e2e_fallback_abort
fi
# a rank that starts after the job died, and greets only downstream (a
# plain member after the INA rack), hears it from the agent's repeated
# ABORT, not from its own 20 s timeout
t0=$(now_ms)
$IP netns exec "$(ns 2)" env RINA_JOB=$D/j43.txt RINA_RANK=2 RINA_KERNEL=1 \
	timeout 30 $BENCH --transport udp --json -d int32 -c 1 -b 4096 \
	-e 4096 -n 1 -w 0 > $D/late.2 2>&1
ms=$(( $(now_ms) - t0 ))
echo "# rank 2 started after the abort: failed in $ms ms: $(tail -1 $D/late.2)"
if grep -q 'job aborted: rank 0 aborted the job' $D/late.2 &&
   [ $ms -lt 5000 ]; then
	ktap_ok tor_agent_e2e_fallback_abort_late_rank_told
else
	ktap_fail tor_agent_e2e_fallback_abort_late_rank_told
fi
del_job 43
add_job 44
start sw 44 -c 1 -b 4 -e 65536 -f 16 -n 2 -w 0
reap
st=$(agent_tor 44)
if exact sw 4 && [ "$st" = off ]; then
	ktap_ok tor_agent_e2e_fallback_software_exact
else
	diag sw 44
	ktap_fail tor_agent_e2e_fallback_software_exact "tor $st"
fi
del_job 44

# 5. rina-tor started after the job was added: the agent gives up on it
# (8 tries) and aggregates the first call in software; then, asking once
# a second, it finds the new rina-tor and installs the job between calls
add_job 45
i=0
while [ "$(agent_tor 45)" != off ] && [ $i -lt 100 ]; do	# 10 s
	sleep 0.1; i=$((i + 1))
done
start late1 45 -c 1 -b 65536 -e 65536 -n 1 -w 0
reap
st=$(agent_tor 45) asd=$(agent_ctr 45 slots_done)
echo "# job 45, no rina-tor yet: agent says $st, slots_done $asd"
if exact late1 1 && [ "$st" = off ] && [ "${asd:-0}" -gt 0 ] &&
   grep -q '"agent":"kernel"' $D/late1.0; then
	ktap_ok tor_agent_e2e_late_tor_first_call_in_software
else
	diag late1 45
	ktap_fail tor_agent_e2e_late_tor_first_call_in_software "tor $st"
fi
start_tor 3 45
t0=$(now_ms) i=0
while [ "$(agent_tor 45)" != on ] && [ $i -lt 100 ]; do	# 10 s
	sleep 0.1; i=$((i + 1))
done
ms=$(( $(now_ms) - t0 ))
st=$(agent_tor 45) tr=$(agent_ctr 45 tor_returns)
said=$(dmesg | grep -c 'job 45 rack 0: the ToR .* is back and aggregates the rack again')
echo "# rina-tor started: agent says $st after $ms ms, tor_returns $tr, logged $said"
[ "$st" = on ] && [ "$tr" = 1 ] && [ "$said" = 1 ] &&
grep -q 'job 45 installed' $D/tor.out.3 &&
	ktap_ok tor_agent_e2e_late_tor_takes_the_job ||
	ktap_fail tor_agent_e2e_late_tor_takes_the_job "$(agent_line 45)"
start late2 45 -c 1 -b 65536 -e 65536 -n 3 -w 0
reap
sleep 1.2	# rina-tor's stats, written every second
sd=$(tor_ctr 45 slot_done) ci=$(tor_ctr 45 contrib_in)
st=$(agent_tor 45) rl=$(agent_ctr 45 tor_relays)
echo "# job 45 after rina-tor came: ToR contrib_in $ci slot_done $sd; agent: tor $st tor_relays $rl"
if exact late2 1 && [ "${sd:-0}" -gt 0 ] && [ "${ci:-0}" -ge $(( 2 * sd )) ] &&
   [ "$st" = on ] && [ "${rl:-0}" -gt 0 ]; then
	ktap_ok tor_agent_e2e_late_tor_aggregates_next_calls
else
	diag late2 45
	ktap_fail tor_agent_e2e_late_tor_aggregates_next_calls
fi
del_job 45
kill $tor_pid
wait $tor_pid 2>/dev/null
tor_pid=""

# 6. two jobs at once on one rina-tor whose rack-0 agents are both host
# 0's kernel: job 47's ranks on port 21057 and its agent on agent port
# 21070 (rina.ko binds the job's agent port, the ToR's tables take it)
job 46 > $D/j46.txt
job 47 | sed -e "s/^\(rank [0-9] $NET\.[0-9]*\) /\1:21057 /" \
	-e 's/^rack 0 ina tor .*/& agent_port 21070/' > $D/j47.txt
added=0	# the ToR first: each agent installs its job when it is added
if start_tor 4 46 47; then
	for h in 0 1 2 3; do
		in_ns $h rinactl job add $D/j46.txt >/dev/null &&
		in_ns $h rinactl job add $D/j47.txt >/dev/null &&
		added=$((added + 1))
	done
fi
start two46 46 -c 1 -b 4096 -e 262144 -f 8 -n 3 -w 1
p46=$pids w46=$wd
start two47 47 -c 1 -b 4096 -e 262144 -f 8 -n 3 -w 1
pids="$pids $p46"
reap
kill $w46 2>/dev/null
wait $w46 2>/dev/null
sleep 1.2	# rina-tor's stats, written every second
sd46=$(tor_ctr 46 slot_done) sd47=$(tor_ctr 47 slot_done)
st46=$(agent_tor 46) st47=$(agent_tor 47)
port=$(in_ns 0 rinactl job show 47 | grep -o 'agent_port [0-9]*')
echo "# jobs 46, 47 added on $added hosts ($port); ToR slot_done $sd46, $sd47; host 0's agents: tor $st46, $st47"
if [ $added = 4 ] && exact two46 3 && exact two47 3 &&
   [ "${sd46:-0}" -gt 0 ] && [ "${sd47:-0}" -gt 0 ] &&
   [ "$st46" = on ] && [ "$st47" = on ] && [ "$port" = "agent_port 21070" ]; then
	ktap_ok tor_agent_e2e_two_jobs_agents_on_one_host
else
	diag two46 46
	diag two47 47
	ktap_fail tor_agent_e2e_two_jobs_agents_on_one_host
fi
del_job 46
del_job 47
kill $tor_pid
wait $tor_pid 2>/dev/null
tor_pid=""

# 7. a second process on the agent's host (torchrun's --nproc-per-node
# 2): rank 4 on host 0's address, port 21057, in rack 0. Its
# contributions come to the agent port over the host's loopback like
# rank 0's, and the kernel agent relays them to the ToR from rank 4's
# address and port; the ToR adds the three ranks of the rack, the agent
# none (contrib_in 0)
job 49 "rank 4 $NET.1:21057 rack 0" > $D/j49.txt
if start_tor 5 49 && add_job 49 "rank 4 $NET.1:21057 rack 0"; then
	rank_hosts="0 1 2 3 0"
	start two_on_host 49 -c 1 -b 4096 -e 65536 -f 16 -n 3 -w 1
	reap
	sleep 1.2	# rina-tor's stats, written every second
	sd=$(tor_ctr 49 slot_done) ci=$(tor_ctr 49 contrib_in)
	relays=$(agent_ctr 49 tor_relays) added=$(agent_ctr 49 contrib_in)
	echo "# job 49: ToR slot_done $sd contrib_in $ci; host 0's agent: tor $(agent_tor 49), relays $relays, added $added"
	if exact two_on_host 2 && [ "${sd:-0}" -gt 0 ] &&
	   [ "${ci:-0}" -ge $((3 * sd)) ] && [ "$added" = 0 ] &&
	   [ "${relays:-0}" -gt 0 ] && [ "$(agent_tor 49)" = on ]; then
		ktap_ok tor_agent_e2e_second_process_on_agent_host
	else
		diag two_on_host 49
		ktap_fail tor_agent_e2e_second_process_on_agent_host
	fi
	rank_hosts="0 1 2 3"
else
	ktap_fail tor_agent_e2e_second_process_on_agent_host "no job or ToR"
fi
del_job 49
kill $tor_pid
wait $tor_pid 2>/dev/null
tor_pid=""
echo "1..$ktap_n"
ktap_finish
