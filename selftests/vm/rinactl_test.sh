#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test of rinactl's job, stats and monitor subcommands against
# rina.ko (busybox sh in the VM, rina.ko loaded, run in a fresh netns by
# guest.sh so that it sees only its own jobs). Prints KTAP.
. /tests/ktap.sh
echo "TAP version 13"	# plan at the end: "1..N"
D=$(mktemp -d)
trap 'rm -rf $D' EXIT

cat > $D/job.txt <<'JOB'
job 7
elements 128
window 32
timeout_ms 5000
rto_us 2000
rack 0 ina tor 198.18.0.254
rack 1 plain
rank 0 198.18.0.1:21056 rack 0 mac 02:00:00:00:00:01
rank 1 198.18.0.2:21056 rack 0
rank 2 198.18.1.1:21057 rack 1
rank 3 198.18.1.2:21056 rack 1
JOB
sed 's/^job 7/job 8/; s/^window 32/window 48/' $D/job.txt > $D/badwin.txt
printf 'job 9\nrack 0 plain\nrank 0 198.18.0.1:80 rack 0\n' > $D/badport.txt
# a job with a secret (secret_file): sent to the kernel, never shown
sec=0123456789abcdeffedcba9876543210
(umask 077; echo $sec > $D/secret)
echo $sec > $D/open-secret
chmod 644 $D/open-secret
printf 'job 10\nrack 0 plain\nrank 0 198.18.2.1 rack 0\nsecret_file %s\n' \
	$D/secret > $D/signed.txt
printf 'job 11\nrack 0 plain\nrank 0 198.18.2.1 rack 0\nsecret_file %s\n' \
	$D/open-secret > $D/opensecret.txt

check() { # NAME WANT_RC GREP_PATTERN CMD...
	name=$1 want=$2 pat=$3; shift 3
	out=$("$@" 2>&1); rc=$?
	if [ $rc != $want ]; then
		ktap_fail $name "exit $rc, want $want: $out"
	elif [ -n "$pat" ] && ! echo "$out" | grep -q -- "$pat"; then
		ktap_fail $name "output lacks \"$pat\": $out"
	else
		ktap_ok $name
	fi
}

rinactl monitor count 4 > $D/monitor.out 2>&1 &
mon=$!
sleep 1
check rinactl_job_add 0 "job 7 added" rinactl job add $D/job.txt
check rinactl_job_show 0 "job 7 state ready elements 128 window 32 timeout_ms 5000 rto_us 2000 ring 3 agents 1" rinactl job show 7
check rinactl_job_show_ranks 0 "rank 2 198.18.1.1:21057 rack 1" rinactl job show
check rinactl_job_show_mac 0 "mac 02:00:00:00:00:01" rinactl job show 7
check rinactl_job_show_rack 0 "rack 0 ina tor 198.18.0.254:21071" rinactl job show 7
check rinactl_job_show_json 0 '^\[{"job":7,"state":"ready","elements":128,.*"racks":\[{"rack":0,"ina":true' rinactl -j job show
check rinactl_job_show_pretty 0 '^        "job": 7,$' rinactl -j -p job show
check rinactl_stats_pretty 0 '^    "jobs": 1,$' rinactl -j -p stats
check rinactl_job_add_duplicate 1 "File exists: job id already in use" rinactl job add $D/job.txt
check rinactl_job_add_bad_file 1 "badport.txt:3" rinactl job add $D/badport.txt
check rinactl_job_add_kernel_rejects 1 "power of two" rinactl job add $D/badwin.txt
check rinactl_job_add_missing_file 1 "" rinactl job add $D/nonexistent
check rinactl_job_del_unknown 1 "No such file or directory: no such job" rinactl job del 99
check rinactl_job_del_bad_id 2 "not a job id" rinactl job del abc
check rinactl_job_usage 2 "Usage" rinactl job add
check rinactl_unprivileged_del_denied 1 "Operation not permitted" su nobody -s /bin/sh -c "rinactl job del 7"
check rinactl_unprivileged_show 0 "job 7" su nobody -s /bin/sh -c "rinactl job show"
check rinactl_stats 0 "jobs_added" rinactl stats
check rinactl_stats_json 0 '^{"jobs":1,"jobs_added":' rinactl -j stats
check rinactl_stats_percpu 0 "cpu1:" rinactl stats percpu
check rinactl_job_del 0 "" rinactl job del 7
check rinactl_job_gone 1 "no such job" rinactl job show 7
# monitor saw: added 7, deleted 7 (the rejected adds sent nothing); add
# and delete one more so that it can exit after 4 events
rinactl job add $D/job.txt >/dev/null && rinactl job del 7
i=0
while kill -0 $mon 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $mon 2>/dev/null; then
	kill $mon
	ktap_fail rinactl_monitor "did not see 4 events: $(cat $D/monitor.out)"
elif [ "$(sed -n 1p $D/monitor.out)" = "job_added job 7 state ready" ] &&
     [ "$(sed -n 2p $D/monitor.out)" = "job_deleted job 7 state ready" ] &&
     [ "$(wc -l < $D/monitor.out)" = 4 ]; then
	ktap_ok rinactl_monitor
else
	ktap_fail rinactl_monitor "$(cat $D/monitor.out)"
fi
# after the monitor (which counts events): a job with a secret
rinactl job add $D/job.txt >/dev/null
check rinactl_job_show_unsigned 0 "local_agents 0 signed no" rinactl job show 7
check rinactl_job_add_secret 0 "job 10 added" rinactl job add $D/signed.txt
check rinactl_job_show_signed 0 "job 10 .* signed yes" rinactl job show 10
check rinactl_job_show_signed_json 0 '"job":10,.*"signed":true' rinactl -j job show 10
check rinactl_job_show_unsigned_json 0 '"job":7,.*"signed":false' rinactl -j job show
out=$(rinactl job show; rinactl -j job show; rinactl -j -p job show)
echo "$out" | grep -qi $sec && ktap_fail rinactl_job_show_no_secret "$out" ||
	ktap_ok rinactl_job_show_no_secret
check rinactl_job_add_secret_readable_by_others 1 "readable by others" rinactl job add $D/opensecret.txt
# "secret PATH": made when absent (mode 0600, 32 hex digits), read when not
printf 'job 12\nrack 0 plain\nrank 0 198.18.2.1 rack 0\n' > $D/j12.txt
sed 's/^job 12/job 13/' $D/j12.txt > $D/j13.txt
check rinactl_job_add_secret_new 0 "secret $D/new-secret made (mode 0600)" rinactl job add $D/j12.txt secret $D/new-secret
check rinactl_secret_new_mode 0 "^-rw------- " ls -l $D/new-secret
check rinactl_secret_new_format 0 "^[0-9a-f]\{32\}$" cat $D/new-secret
check rinactl_job_show_new_signed 0 "job 12 .* signed yes" rinactl job show 12
check rinactl_job_add_secret_existing 0 "job 13 added" rinactl job add $D/j13.txt secret $D/new-secret
out=$(rinactl job show; rinactl -j job show)
echo "$out" | grep -qi "$(cat $D/new-secret)" &&
	ktap_fail rinactl_job_show_no_new_secret "$out" ||
	ktap_ok rinactl_job_show_no_new_secret
# a rack's agent_port goes to the kernel and back
sed 's/^job 7/job 14/; s/^rack 0 ina tor 198.18.0.254$/& agent_port 21070/' \
	$D/job.txt > $D/j14.txt
check rinactl_job_add_agent_port 0 "job 14 added" rinactl job add $D/j14.txt
check rinactl_job_show_agent_port 0 "rack 0 ina tor 198.18.0.254:21071 agent_port 21070" rinactl job show 14
check rinactl_job_show_agent_port_json 0 '"rack":0,"ina":true,"tor":"198.18.0.254","tor_port":21071,"agent_port":21070}' rinactl -j job show 14
# Prometheus (after the monitor, which counts events): every number of
# -j stats under its name (Documentation/metrics.md), a local agent's
# with job, rank and rack labels (job 15: rank 0's address is here, so
# rina.ko runs its rack's agent)
/usr/bin/ip link set lo up
/usr/bin/ip addr add 198.18.9.1/32 dev lo
printf 'job 15\nrack 0 ina\nrank 0 198.18.9.1 rack 0\nrank 1 198.18.9.2 rack 0\n' > $D/j15.txt
rinactl job add $D/j15.txt > /dev/null
rinactl -j stats > $D/stats.json
rinactl stats -f prometheus > $D/stats.prom
prom_bad=""
for kv in $(sed 's/,"agents".*//; s/[{}"]//g; s/,/ /g' $D/stats.json); do
	k=${kv%%:*} v=${kv#*:}
	case $k in
	jobs) m=rina_jobs ;;
	agent_rx) m=rina_agent_rx_packets_total ;;
	agent_drop_*) m="rina_agent_dropped_packets_total{reason=\"${k#agent_drop_}\"}" ;;
	*) m=rina_${k}_total ;;
	esac
	grep -qxF "$m $v" $D/stats.prom || prom_bad="$prom_bad $m=$v"
done
agent=$(sed 's/.*"agents":\[//; s/}.*//; s/[{"]//g; s/,/ /g' $D/stats.json)
for kv in $agent; do
	k=${kv%%:*} v=${kv#*:}
	case $k in job|rank|rack|tor_status) continue ;; esac
	if [ $k = tor ]; then
		m="rina_agent_tor_state{job=\"15\",rank=\"0\",rack=\"0\",state=\"$v\"}" v=1
	else
		m="rina_agent_${k}_total{job=\"15\",rank=\"0\",rack=\"0\"}"
	fi
	grep -qxF "$m $v" $D/stats.prom || prom_bad="$prom_bad $m=$v"
done
# every sample's metric has its TYPE; counters end in _total
for m in $(grep -v '^#' $D/stats.prom | sed 's/[{ ].*//' | sort -u); do
	t=$(sed -n "s/^# TYPE $m //p" $D/stats.prom)
	grep -q "^# HELP $m " $D/stats.prom || prom_bad="$prom_bad no-HELP:$m"
	case "$t:$m" in
	counter:*_total|gauge:*) ;;
	*) prom_bad="$prom_bad type-$t:$m" ;;
	esac
done
n=$(grep -c '^rina_' $D/stats.prom)
if [ -z "$prom_bad" ] && [ "$n" -ge 30 ] && echo "$agent" | grep -q contrib_in; then
	ktap_ok rinactl_stats_prometheus_matches_json
else
	ktap_fail rinactl_stats_prometheus_matches_json "$n samples, wrong:$prom_bad"
fi
check rinactl_stats_textfile 0 "" rinactl stats --textfile $D/rina.prom
[ -s $D/rina.prom ] && [ ! -e $D/rina.prom.tmp ] &&
	grep -q '^rina_agent_contrib_in_total{job="15",rank="0",rack="0"} ' $D/rina.prom &&
	ktap_ok rinactl_stats_textfile_written ||
	ktap_fail rinactl_stats_textfile_written "$(ls $D)"
check rinactl_stats_textfile_unwritable 1 "$D/no/rina.prom.tmp: No such file or directory" rinactl stats --textfile $D/no/rina.prom
check rinactl_stats_prometheus_percpu 2 "percpu has no Prometheus form" rinactl stats percpu -f prometheus
rinactl job del 15
rinactl job del 14
rinactl job del 13
rinactl job del 12
rinactl job del 10
rinactl job del 7
echo "1..$ktap_n"
ktap_finish
