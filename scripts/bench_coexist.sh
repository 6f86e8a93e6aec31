#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench, part 5: Rina beside a TCP flow on a shaped link (issue 13:
# each should keep 35-65% of the link). On 2x2 with every host link
# shaped (BENCH_COEXIST_RATE [25mbit], 20 ms queues), every rank runs
# back-to-back checked 1 MiB allreduces; once they run, rank 0 starts
# Debian's iperf3 (TCP, the kernel's default congestion control) to rank
# 3 for BENCH_COEXIST_SECS [10] seconds. The flow crosses rank 0's
# uplink, which carries Rina's ring hop 0 -> 1, and rank 3's downlink
# (hop 2 -> 3). Over the flow's interval, on rank 0's uplink:
#   tcp share  = iperf3's bytes on the wire / (rate x seconds)
#   rina share = (eth0's bytes sent - TCP's) / (rate x seconds)
# TCP's bytes on the wire: its payload plus 66 header bytes per
# MSS-sized segment (Ethernet 14, IPv4 20, TCP 32 with timestamps).
# BENCH_REPS [3] repetitions, rows to BENCH_OUT/coexist.jsonl; the ranks
# must finish exact (rina-bench -c 1) or the run counts as failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
out=${BENCH_OUT:-$top/build/bench}
reps=${BENCH_REPS:-3}
rate=${BENCH_COEXIST_RATE:-25mbit}
secs=${BENCH_COEXIST_SECS:-10}
mkdir -p "$out"
rows=$out/coexist.jsonl
: >"$rows"
if ! command -v iperf3 >/dev/null; then
	echo "bench_coexist: no iperf3 (apt-get install iperf3): skipped" >&2
	exit 0
fi

for ((rep = 0; rep < reps; rep++)); do
	log=$out/coexist.last.log
	# 1 MiB calls take about 0.5 s alone at 25 Mbit/s on 2x2: enough of
	# them to outlast a second of warm-up and the flow at any share
	timeout $((secs * 12 + 120)) "$RUN" --topo 2x2 --rate "$rate" \
		--queue 20ms --timeout $((secs * 12 + 60)) -- \
		bash -c '
		bench=$0 secs=$1 calls=$2 d=$RINA_RUN_DIR
		. "$3"
		case $RINA_RANK in
		3)	iperf_serve 198.18.1.2 ;;
		0)	(iperf_await
			 sleep 1	# the ranks greet each other and start
			 tx0=$(cat /sys/class/net/eth0/statistics/tx_bytes)
			 iperf3 -c 198.18.1.2 -t "$secs" -J >"$d/iperf.json" 2>&1
			 tx1=$(cat /sys/class/net/eth0/statistics/tx_bytes)
			 echo "$tx0 $tx1" >"$d/eth0.tx") &
			;;
		esac
		"$bench" -b 1M -e 1M -n "$calls" -w 0 -c 1 --json || exit 1
		wait
		if [ "$RINA_RANK" = 0 ]; then
			echo "coexist-eth0 $(cat "$d/eth0.tx")"
			echo "coexist-iperf $(tr -d "\n" <"$d/iperf.json")"
		fi' "$BENCH" "$secs" $((secs * 3 + 6)) "$top/scripts/iperf_pair.sh" \
		>"$log" 2>&1
	rc=$?
	/usr/bin/python3 - "$log" "$rate" "$secs" "$rep" "$rc" >>"$rows" <<'PY'
import json, re, sys
log, rate, secs, rep, rc = sys.argv[1:]
units = {"k": 1e3, "m": 1e6, "g": 1e9}
m = re.match(r"([0-9.]+)([kmg]?)bit$", rate)
bps = float(m.group(1)) * units.get(m.group(2), 1)
tx = ip = None
wrong = rows = 0
for line in open(log):
    line = line.split("] ", 1)[-1].strip()
    if line.startswith("coexist-eth0 "):
        tx = [int(x) for x in line.split()[1:3]]
    elif line.startswith("coexist-iperf "):
        ip = json.loads(line.split(" ", 1)[1])
    elif line.startswith("{"):
        r = json.loads(line)
        rows += 1
        wrong += r["wrong"]
row = {"rep": int(rep), "rate_bps": bps, "secs": int(secs),
       "rc": int(rc), "rina_rows": rows, "wrong": wrong}
if tx and ip and "end" in ip:
    s = ip["end"]["sum_sent"]
    mss = ip["start"].get("tcp_mss_default") or 1448
    tcp_wire = s["bytes"] * (mss + 66) / mss
    cap = bps / 8 * s["seconds"]
    row.update(tcp_share=tcp_wire / cap,
               rina_share=max(tx[1] - tx[0] - tcp_wire, 0) / cap,
               tcp_mbps=s["bytes"] * 8 / s["seconds"] / 1e6,
               tcp_retransmits=s.get("retransmits", 0))
print(json.dumps(row))
PY
done

/usr/bin/python3 - "$rows" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if "tcp_share" in r and r["rc"] == 0 and
      not r["wrong"]]
def fmt(v):
    return "%.2f [%.2f..%.2f]" % (statistics.median(v), min(v), max(v))
print("# Rina beside an iperf3 TCP flow on 2x2, rank 0's shaped uplink;"
      " shares of the link over the flow's seconds, median [min..max]")
print("# %d of %d runs finished exact with an iperf3 result" %
      (len(ok), len(rows)))
if ok:
    print("  tcp share   %s  (%s Mbit/s, %d retransmits median)" % (
        fmt([r["tcp_share"] for r in ok]),
        fmt([r["tcp_mbps"] for r in ok]),
        statistics.median([r["tcp_retransmits"] for r in ok])))
    print("  rina share  %s" % fmt([r["rina_share"] for r in ok]))
    print("  sum         %s" % fmt([r["tcp_share"] + r["rina_share"]
                                    for r in ok]))
PY
