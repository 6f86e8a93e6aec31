#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# One emulated host of test_tor_traffic.sh, started by rina-run in every
# host namespace: while the job's allreduce runs (rina-bench -c 1), the
# host sends ordinary traffic to the next rank (rank + 1 mod n, in its
# rack or across the spine) and checks what the previous one sent it:
# iperf3 TCP bulk, a TCP stream and UDP datagrams checked byte for byte,
# ARP probes and pings answered exactly once. Then, once every host is
# done and the ToRs' counters are copied (TORDIR/phase1), a quiet
# allreduce as after any transfer in a job (the issue's 64K..1M).
# Prints one "RESULT NAME ok|fail DETAIL" line per check, the allreduce's
# JSON rows, "PHASE 2", the quiet allreduce's rows.
# Usage (by rina-run): tor_traffic_host.sh RINA-BENCH TCP_BYTES IPERF_SECS
#                      TORDIR
set -u
bench=$1 tcp_bytes=$2 iperf_secs=$3 tordir=$4
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
traffic=$here/tor_traffic.py
me=$RINA_RANK n=$RINA_NRANKS
next=$(((me + 1) % n))
prev=$(((me + n - 1) % n))
d=$RINA_RUN_DIR/traffic
mkdir -p "$d"
fail=0

ip_of()
{
	awk -v r="$1" '$1 == "rank" && $2 == r {
		split($3, a, ":"); print a[1] }' "$RINA_JOB"
}

result()
{
	echo "RESULT $1 $2 ${*:3}"
	[ "$2" = ok ] || fail=1
}

# wait_file FILE TENTHS: a peer's readiness, at most TENTHS / 10 s
wait_file()
{
	local i
	for ((i = 0; i < $2; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

myip=$(ip_of "$me")
nip=$(ip_of "$next")
cat "/sys/class/net/eth0/address" >"$d/mac.$me.tmp" &&
	mv "$d/mac.$me.tmp" "$d/mac.$me"

# the receivers of what the previous rank sends
iperf3 -s -1 -B "$myip" -p 5201 -J >"$d/iperf-srv.$me" 2>&1 &
srv_iperf=$!
timeout 60 "$py" "$traffic" serve "$me" "$prev" "$tcp_bytes" \
	"$d/listen.$me" >"$d/serve.$me" 2>&1 &
srv_py=$!
for ((i = 0; i < 100; i++)); do
	[ -e "$d/listen.$me" ] && [ -n "$(ss -Hltn 'sport = :5201')" ] && break
	sleep 0.1
done
touch "$d/ready.$me"
for ((r = 0; r < n; r++)); do
	wait_file "$d/ready.$r" 300 ||
		result setup fail "rank $r has no receivers after 30 s"
done

# every neighbour entry resolved anew, by ARP across the ToR(s)
ip neigh flush dev eth0

# the allreduce, exact (-c 1), and the bulk TCP flow at the same time
"$bench" --json -c 1 -b 4 -e 1M -f 4 -n 5 -w 0 >"$d/bench.$me" 2>&1 &
bench_pid=$!
timeout $((iperf_secs + 20)) iperf3 -c "$nip" -p 5201 -t "$iperf_secs" \
	-b 300M -J --connect-timeout 5000 >"$d/iperf.$me" 2>&1 &
iperf_pid=$!

timeout 10 "$py" "$traffic" arp "$nip" || fail=1

for size in 56 1472 8972 20000; do
	out=$(timeout 10 ping -q -n -c 3 -i 0.2 -W 2 -s "$size" "$nip" 2>&1)
	sum=$(echo "$out" | grep 'packets transmitted')
	want='^3 packets transmitted, 3 received, 0% packet loss'
	if [[ "$sum" =~ $want ]]; then
		result "icmp_$size" ok "$nip: $sum"
	else
		result "icmp_$size" fail "$nip: ${sum:-$out}"
	fi
done

timeout 30 "$py" "$traffic" send "$me" "$nip" "$tcp_bytes" ||
	result send fail "rank $me -> $next: could not send"
wait "$srv_py"
cat "$d/serve.$me"
grep -q "^RESULT udp ok" "$d/serve.$me" &&
	grep -q "^RESULT tcp ok" "$d/serve.$me" || fail=1

wait "$iperf_pid"
rc=$?
"$py" - "$d/iperf.$me" "$rc" "$nip" <<'EOF' || fail=1
import json, sys
path, rc, peer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    j = json.load(open(path))
except ValueError as e:
    print('RESULT iperf3 fail rc %d, no JSON (%s)' % (rc, e))
    sys.exit(1)
end = j.get('end', {})
sent = end.get('sum_sent', {}).get('bytes', 0)
rcvd = end.get('sum_received', {}).get('bytes', 0)
ok = rc == 0 and 'error' not in j and sent > 0 and rcvd > 0
print('RESULT iperf3 %s to %s: rc %d, %d bytes sent, %d received, '
      '%d retransmits%s' % ('ok' if ok else 'fail', peer, rc, sent, rcvd,
                            end.get('sum_sent', {}).get('retransmits', -1),
                            ', error: ' + j['error'] if 'error' in j else ''))
sys.exit(0 if ok else 1)
EOF
wait "$srv_iperf"

wait_file "$d/mac.$next" 10
lladdr=$(ip neigh show "$nip" dev eth0 | awk '{ for (i = 1; i < NF; i++)
	if ($i == "lladdr") print $(i + 1) }')
if [ -n "$lladdr" ] && [ "$lladdr" = "$(cat "$d/mac.$next" 2>/dev/null)" ]
then
	result arp_resolved ok "$nip is at $lladdr"
else
	result arp_resolved fail \
		"$nip: '$lladdr', host has $(cat "$d/mac.$next")"
fi

wait "$bench_pid"
rc=$?
cat "$d/bench.$me"
[ "$rc" -eq 0 ] || result allreduce fail "rina-bench exit status $rc"

# every host done: rank 0 copies the ToRs' counters once they were
# written after that (rina-tor writes them every second)
touch "$d/done1.$me"
for ((r = 0; r < n; r++)); do
	wait_file "$d/done1.$r" 600 ||
		result setup fail "rank $r not done after 60 s"
done
if [ "$me" -eq 0 ]; then
	t0=$(date +%s)
	for ((i = 0; i < 50; i++)); do
		fresh=1
		for f in "$tordir"/tor*.json; do
			[ "$(stat -c %Y "$f")" -gt "$t0" ] || fresh=0
		done
		[ "$fresh" -eq 1 ] && break
		sleep 0.1
	done
	mkdir -p "$tordir/phase1"
	cp "$tordir"/tor*.json "$tordir/phase1/"
	[ "$fresh" -eq 1 ] || result setup fail "ToR counters not written"
	touch "$d/snap"
fi
wait_file "$d/snap" 100 || result setup fail "no copy of the ToR counters"
"$bench" --json -c 1 -b 64K -e 1M -n 1 -w 0 >"$d/bench2.$me" 2>&1
rc=$?
echo "PHASE 2"
cat "$d/bench2.$me"
[ "$rc" -eq 0 ] || result allreduce2 fail "rina-bench exit status $rc"
exit "$fail"
