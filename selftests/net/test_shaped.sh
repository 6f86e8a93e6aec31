#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Shaped links in rina-run (--rate, --uplink-rate, --queue): the tbf
# qdiscs it prints are the ones on both ends of every host link and
# uplink, and traffic crosses them; plain RAR and INA racks stay exact at
# a 15-20 Mbit/s bottleneck with a small queue, with their retransmissions
# reported; rina-bench's efficiency, retx_bytes and link rate fields are
# consistent; --xdp auto works at the default MTU 9000; an iperf3 TCP flow
# sharing a shaped host link and Rina both finish, Rina exact; every
# rack INA at 25 Mbit/s with a 20 ms queue, 2 MiB: the workers' and
# agents' windows keep retransmitted bytes under 15% of what the ranks
# send (without them, 50-70%); --ecn marks CE on every shaped link, the
# receivers echo the marks and the senders' windows take them (DCTCP),
# and a job without the ECN signal sends nothing a marker can mark; in a
# mixed ring a plain member sends its own packets of a block before any
# of a younger block and, unless an INA rack feeds it, before anything
# it forwards of that block; the members next to an INA rack, driven by
# loss, bound what they queue on their host (txq_limit).
# Every run is bounded by rina-run --timeout. No speed is asserted.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip tc python3

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
TX_LOG_SO=$top/build/selftests/tx_log.so
for b in "$RUN" "$BENCH" "$TX_LOG_SO"; do
	[ -x "$b" ] || { ktap_plan 1; ktap_fail "build" "no $b (make)"; \
		ktap_finish; }
done
tmp=$(mktemp -d /tmp/test_shaped.XXXXXX)
defer rm -rf "$tmp"

# bench_rows OUT: the rina-bench --json rows of a run's output, one JSON
# object a line, without rina-run's "[rank N] " prefix
bench_rows()
{
	sed -n 's/^\[rank [0-9]*\] \({.*}\)$/\1/p' "$1"
}

# check_rows OUT NRANKS RATE_BPS [ina]: rina-bench --json rows of a run
# are exact, agree, and carry consistent efficiency/retx fields; with
# EFF_BOUND=0 the efficiency is not bounded by 1.05 (links of different
# rates: a rank whose hop is faster than the slowest link may exceed 1)
check_rows()
{
	local out=$1

	shift
	python3 - <(bench_rows "$out") "$@" <<'EOF'
import json, os, sys
n, bps = int(sys.argv[2]), sys.argv[3]
ina = len(sys.argv) > 4
bound = os.environ.get("EFF_BOUND", "1") == "1"
rows = [json.loads(l) for l in open(sys.argv[1])]
bad = []
if not rows:
    bad.append("no rows")
for size in sorted({r["size"] for r in rows}):
    rs = [r for r in rows if r["size"] == size]
    if sorted(r["rank"] for r in rs) != list(range(n)):
        bad.append("%d: ranks %s" % (size, sorted(r["rank"] for r in rs)))
    if len({r["hash"] for r in rs}) != 1:
        bad.append("%d: ranks disagree" % size)
retx = 0
for r in rows:
    for k in ("efficiency", "retx_bytes", "wire_tx_bytes", "link_rate_bps",
              "retransmits", "tx_bytes", "time_us", "hash"):
        if k not in r:
            bad.append("rank %d: no %s" % (r["rank"], k))
    if bad:
        break
    if r["wrong"]:
        bad.append("rank %d: %d wrong" % (r["rank"], r["wrong"]))
    nretx = r["retransmits"] + r["agent_retransmits"]
    retx += nretx
    # retx_bytes counts what went to another host: an agent's host's
    # worker resends to its agent over loopback, which may relay it
    if (r["retx_bytes"] > 0) != (nretx > 0) and \
       (r["role"] != "ina-agent" or r["retx_bytes"] > 0):
        bad.append("rank %d: retx_bytes %s with %d retransmits"
                   % (r["rank"], r["retx_bytes"], nretx))
    if bps == "null":
        if r["efficiency"] is not None or r["link_rate_bps"] is not None:
            bad.append("rank %d: efficiency without a link rate" % r["rank"])
        continue
    if r["link_rate_bps"] != float(bps):
        bad.append("rank %d: link_rate_bps %s" % (r["rank"],
                                                    r["link_rate_bps"]))
    e = r["efficiency"]
    want = r["wire_tx_bytes"] * 8 / float(bps) / (r["time_us"] / 1e6)
    if not (0 < e <= (1.05 if bound else 1e9)) or \
       abs(e - want) > 0.01 * want + 1e-4:
        bad.append("rank %d: efficiency %s (wire bytes say %.4f)"
                   % (r["rank"], e, want))
    if ina and r["role"] == "ina-agent" and r.get("tor") != "on":
        bad.append("rank %d: tor %s" % (r["rank"], r.get("tor")))
eff = [r["efficiency"] for r in rows if r["efficiency"] is not None]
print("# %d rows, retransmits %d, efficiency %s" % (
    len(rows), retx, "%.3f..%.3f" % (min(eff), max(eff)) if eff else "-"))
for b in bad[:8]:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}

report()
{
	local name=$1 rc=$2 out=$3
	if [ "$rc" -eq 0 ]; then
		ktap_ok "$name"
	else
		tail -15 "$out" | sed 's/^/#   /'
		ktap_fail "$name" "rc=$rc"
	fi
}

ktap_plan 22

# 1: the shaping printed is the shaping on both ends of every link (read
# back from tc -s qdisc in the kept namespaces), and traffic crossed each
out=$tmp/applied
"$RUN" --topo 2x2 --rate 20mbit --uplink-rate 15mbit --queue 32k --keep \
	--timeout 60 -- sh -c \
	'echo "NETNS $RINA_NETNS"; exec "$0" -b 64K -e 64K -n 1 -w 0 --json' \
	"$BENCH" >"$out" 2>"$out.err"
rc=$?
prefix=$(sed -n 's/.*NETNS \(rina-[a-z0-9]\{5\}\)-.*/\1/p' "$out" | head -1)
rundir=$(sed -n 's/.*kept namespaces rina-[a-z0-9]*-\* and \(.*\)$/\1/p' \
	"$out.err")
if [ -n "$prefix" ]; then
	nss=()
	for f in /run/netns/"$prefix"-*; do nss+=("${f##*/}"); done
	defer cleanup_ns "${nss[@]}"
fi
[ -n "$rundir" ] && defer rm -rf "$rundir"
ok=1
[ "$rc" -eq 0 ] && [ -n "$prefix" ] || ok=0
grep -q "shaping host links .*tbf rate 20mbit (20000000bit) .*limit 32768b" \
	"$out.err" || { ok=0; echo "# no host link line"; }
grep -q "shaping uplinks .*tbf rate 15mbit (15000000bit) .*limit 32768b" \
	"$out.err" || { ok=0; echo "# no uplink line"; }
[ "$(grep -c 'shaping' "$out.err")" -eq 2 ] || ok=0
if [ "$ok" -eq 1 ]; then
	: >"$tmp/qdiscs"
	for r in 0 1; do
		for i in 0 1; do
			echo "host $prefix-h$r-$i eth0 2500000" >>"$tmp/qdiscs"
			echo "host $prefix-tor$r h$i 2500000" >>"$tmp/qdiscs"
		done
		echo "up $prefix-tor$r up0 1875000" >>"$tmp/qdiscs"
		echo "up $prefix-spine tor$r 1875000" >>"$tmp/qdiscs"
	done
	while read -r cls ns dev rate; do
		echo "$cls $ns $dev $rate $(ip netns exec "$ns" tc -j -s \
			qdisc show dev "$dev" root)"
	done <"$tmp/qdiscs" >"$tmp/qdiscs.json"
	python3 - "$tmp/qdiscs.json" <<'EOF' || ok=0
import json, sys
bad = 0
for line in open(sys.argv[1]):
    cls, ns, dev, rate, js = line.split(" ", 4)
    q = json.loads(js)[0]
    o = q.get("options", {})
    # tc prints tbf's queue as the latency of (limit - burst) at the rate
    limit = o.get("rate", 0) * o.get("lat", 0) / 1e6 + o.get("burst", 0)
    why = []
    if q.get("kind") != "tbf":
        why.append("kind %s" % q.get("kind"))
    if o.get("rate") != int(rate):
        why.append("rate %s B/s, want %s" % (o.get("rate"), rate))
    if o.get("burst", 0) < 9014:
        why.append("burst %s below one 9014-byte frame" % o.get("burst"))
    if abs(limit - 32768) > 0.02 * 32768:
        why.append("limit %.0f, want 32768" % limit)
    if q.get("bytes", 0) <= 0:
        why.append("no traffic through it")
    if why:
        bad = 1
        print("# %s %s: %s" % (ns, dev, ", ".join(why)))
sys.exit(bad)
EOF
	grep -c . "$tmp/qdiscs.json" | grep -qx 12 || ok=0
fi
[ "$ok" -eq 1 ] && EFF_BOUND=0 check_rows "$out" 4 15000000 \
	>"$tmp/applied.chk" || ok=0
cat "$tmp/applied.chk" 2>/dev/null
report "shaping_applied_both_directions_and_printed" $((1 - ok)) "$out.err"

# 2: plain RAR exact at a 15 Mbit/s bottleneck with a 16 KiB queue
out=$tmp/rar
"$RUN" --topo 2x2 --rate 15mbit --queue 16k --timeout 120 -- \
	"$BENCH" -b 256K -e 256K -n 3 -w 1 --json >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && { check_rows "$out" 4 15000000 || rc=1; }
report "plain_rar_exact_15mbit_queue_16k_retx_reported" "$rc" "$out"

# 3: every rack INA through rina-tor, same bottleneck
out=$tmp/ina
"$RUN" --topo 2x2 --ina all --rate 15mbit --queue 16k --timeout 120 -- \
	"$BENCH" -b 256K -e 256K -n 3 -w 1 --json >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && { check_rows "$out" 4 15000000 ina || rc=1; }
report "ina_racks_exact_15mbit_queue_16k_retx_reported" "$rc" "$out"

# 4: --link-rate gives the rate without shaping; no rate: efficiency null
out=$tmp/flag
"$RUN" --topo 1x2 --timeout 60 -- sh -c \
	'exec "$0" -b 64K -e 64K -n 2 -w 1 --json --link-rate 100gbit' "$BENCH" \
	>"$out" 2>&1 && check_rows "$out" 2 100000000000 >"$out.chk" &&
	"$RUN" --topo 1x2 --timeout 60 -- "$BENCH" -b 64K -e 64K -n 2 -w 1 \
	--json >"$out.none" 2>&1 && check_rows "$out.none" 2 null >>"$out.chk"
rc=$?
cat "$out.chk"
report "rina_bench_link_rate_flag_and_no_rate" "$rc" "$out"

# 5: bad rates and queues are refused with a message
ok=1
for a in "--rate 25" "--rate fast" "--rate 0mbit" "--uplink-rate 1xbit" \
	 "--rate 10mbit --queue 10parsecs" "--queue 20ms" "--ecn 2ms" \
	 "--rate 10mbit --ecn fast" "--rate 10mbit --queue 20k --ecn 30k"; do
	# shellcheck disable=SC2086
	"$RUN" --topo 1x2 $a -- true >/dev/null 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "^rina-run: --[a-z-]* .*" "$tmp/bad.err"; then
		echo "# rina-run $a: rc $rc: $(cat "$tmp/bad.err")"
		ok=0
	fi
done
"$BENCH" --link-rate 25 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "link rate '25'" "$tmp/bad.err" ||
	{ echo "# rina-bench --link-rate 25: rc $rc"; ok=0; }
report "bad_rate_and_queue_refused" $((1 - ok)) "$tmp/bad.err"

# 6: tc's rate units (bit, k/m/g, ki/mi, bps = bytes) and queue times
ok=1
for spec in "8000bit 1s 8000 1000" "1.5mbit 100ms 1500000 18750" \
	    "10mibit 64k 10485760 65536" "3mbps 100000 24000000 100000"; do
	read -r r q bps lim <<<"$spec"
	"$RUN" --topo 1x1 --rate "$r" --queue "$q" -- true >/dev/null \
		2>"$tmp/units.err"
	# the queue is at least one 9014-byte frame
	[ "$lim" -lt 9014 ] && lim=9014
	grep -q "tbf rate $r (${bps}bit) burst [0-9]*b limit ${lim}b " \
		"$tmp/units.err" ||
		{ echo "# $r $q: $(cat "$tmp/units.err")"; ok=0; }
done
report "rate_and_queue_units" $((1 - ok)) "$tmp/units.err"

# 7: --xdp auto at the default MTU 9000 picks a mode that works
out=$tmp/xdp
"$RUN" --topo 1x2 --xdp auto --timeout 60 -- "$BENCH" --transport xdp \
	-b 64K -e 256K -f 4 -n 2 -w 1 --json >"$out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	grep -q "xdp: rina_xdp on every host's eth0, generic mode" "$out" &&
	[ "$(grep -c '"transport":"xdp"' "$out")" -eq 4 ] &&
	check_rows "$out" 2 null || rc=1
fi
report "xdp_auto_at_mtu_9000" "$rc" "$out"

# 8-9: an iperf3 TCP flow (h0-0 -> h1-1, 8 s) shares rank 0's shaped
# host link with Rina; both finish, Rina exact
if ! command -v iperf3 >/dev/null; then
	ktap_skip "iperf3_coexistence_rina_exact" "no iperf3"
	ktap_skip "iperf3_coexistence_tcp_finished" "no iperf3"
else
	out=$tmp/iperf
	rm -f "$tmp/iperf.json"
	"$RUN" --topo 2x2 --rate 20mbit --queue 64k --timeout 120 -- \
		bash -c '
		bench=$0 j=$1
		. "$2"
		case $RINA_RANK in
		3)	iperf_serve 198.18.1.2 ;;
		0)	iperf_await
			iperf3 -c 198.18.1.2 -t 8 -J >"$j" 2>&1 &
			sleep 1 ;;
		esac
		"$bench" -b 1M -e 1M -n 3 -w 0 --json || exit 1
		wait' "$BENCH" "$tmp/iperf.json" "$top/scripts/iperf_pair.sh" \
		>"$out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && { check_rows "$out" 4 20000000 || rc=1; }
	report "iperf3_coexistence_rina_exact" "$rc" "$out"
	python3 - "$tmp/iperf.json" <<'EOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    bps = j["end"]["sum_received"]["bits_per_second"]
    secs = j["end"]["sum_received"]["seconds"]
except (OSError, ValueError, KeyError) as e:
    print("# iperf3: no result (%s)" % e)
    sys.exit(1)
print("# iperf3: %.2f Mbit/s over %.1f s (%.0f%% of the 20 Mbit/s link)"
      % (bps / 1e6, secs, bps / 2e5))
sys.exit(0 if bps > 0 and secs > 7 else 1)
EOF
	report "iperf3_coexistence_tcp_finished" $? "$tmp/iperf.json"
fi

# retx_below OUT NRANKS [PCT]: the rina-bench --json rows of OUT, one per
# rank, retransmitted less than PCT% (default 15) of the ranks' payload
# per call
retx_below()
{
	python3 - <(bench_rows "$1") "$2" "${3:-15}" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, pct = int(sys.argv[2]), float(sys.argv[3])
retx = sum(r["retx_bytes"] for r in rows)
sent = sum(r["size"] for r in rows)
print("# retransmitted %.0f B per call over %d ranks: %.2f%% of %d B"
      % (retx, len(rows), 100.0 * retx / max(sent, 1), sent))
sys.exit(0 if len(rows) == n and retx < pct / 100 * sent else 1)
EOF
}

# ina_case NAME TOPO INA NRANKS [retx]: 2 MiB through 20 ms queues at
# 25 Mbit/s (bench's shaped setting) with INA racks INA, exact; with
# retx, retransmitting under 15% of the ranks' payload. With TX_LOG_RANKS
# (blank-separated) and TX_LOG set, each of those ranks logs the ring data
# it sends to TX_LOG<rank> (tx_log.so)
ina_case()
{
	local out=$tmp/$1 rc

	"$RUN" --topo "$2" --ina "$3" --rate 25mbit --queue 20ms \
		--timeout 120 -- sh -c \
		'case " $TX_LOG_RANKS " in *" $RINA_RANK "*)
			export LD_PRELOAD="$TX_LOG_SO" \
				TX_LOG="$TX_LOG$RINA_RANK" ;;
		esac
		exec "$0" "$@"' \
		"$BENCH" -b 2M -e 2M -n 2 -w 1 -c 1 --json >"$out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && { check_rows "$out" "$4" 25000000 ina || rc=1; }
	[ "$rc" -eq 0 ] && [ -n "$5" ] && { retx_below "$out" "$4" || rc=1; }
	report "$1" "$rc" "$out"
}

# 10: every rack INA: the INA workers' and agents' windows (protocol.md
# 6.1) keep the retransmitted bytes (workers' contributions, agents'
# allgather copies, the re-emissions they cause) under 15% of the ranks'
# 4 x 2 MiB per call; with a fixed window it was 50-70%, in every run
ina_case ina_racks_25mbit_queue_20ms_retx_below_15pct 2x2 all 4 retx

# 11: one INA rack beside plain members (a mixed ring): its workers
# window their contributions there too; with the fixed slot window of
# W = 256 they overran their 20 ms queue and retransmitted more than the
# payload (2.5 MB per worker per 2 MiB call, 61.6% over the ranks)
ina_case mixed_ring_25mbit_queue_20ms_retx_below_15pct 2x2 0 4 retx

# 12: one INA rack and six plain members. The member upstream of the rack
# windows by ordinal span (ring.c, pump_ordinals()); counting packets in
# flight instead, it sat on 49 partials of the next block, sent while its
# window was larger, and held back the oldest ones that the rack's
# windowed workers waited on: no progress for 10 s in the first call.
# Ranks 3 and 6 log the ring data they send for cases 14 and 21.
TX_LOG_RANKS="3 6" TX_LOG=$tmp/tx_log_rank TX_LOG_SO=$TX_LOG_SO \
	ina_case mixed_ring_4x2_windowed_workers_exact 4x2 0 8

# 13: in that ring (rack 0 INA, then ranks 2..7) the member right after
# the rack, rank 2, takes no delay cuts: its next member's ACKs reach it
# behind the rack's results, a queue that the rack's loss-driven feeders
# keep full (ring.c, rx_ack()). Ranks 3..6 keep the delay signal and use
# it; rank 7 windows towards the rack on loss alone. With the signal,
# the member after the rack of a mixed 2x4 ring cut its window 345-726
# times a run and held a backlog of 1000 packets
out=$tmp/mixed_ring_4x2_windowed_workers_exact
python3 - <(bench_rows "$out") <<'EOF' >"$tmp/after_rack" 2>&1
import json, sys
rows = {r["rank"]: r["cwnd_cuts_delay"] for r in
        map(json.loads, open(sys.argv[1]))}
print("# delay cuts per rank: %s" % rows)
ok = len(rows) == 8 and rows[2] == 0 and rows[7] == 0 and \
     all(rows[i] > 0 for i in range(3, 7))
sys.exit(0 if ok else 1)
EOF
report member_after_ina_rack_no_delay_cuts $? "$tmp/after_rack"

# own_order LOG L ME younger|forwarded: in tx_log.so's LOG of what a
# member sent (first transmissions only), every own step-0 packet of member
# ME (chunk ME) came before any packet of a younger block (younger), or
# before any forwarded packet of its own block (forwarded)
own_order()
{
	python3 - "$@" <<'EOF'
import collections, os, sys
log, L, me, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if not os.path.exists(log):
    sys.exit("# no send log %s (tx_log.so not preloaded?)" % log)
rounds = collections.defaultdict(list)
for line in open(log):
    rnd, seq, op, chunk, p, retx = map(int, line.split())
    if not retx:
        rounds[rnd].append((seq // (2 * L * p), op == 2 and chunk == me))
own = late = 0
for rnd, pkts in sorted(rounds.items()):
    youngest, forwarded = -1, set()
    for block, mine in pkts:
        own += mine
        if mode == "younger":
            late += mine and block < youngest
        else:
            late += mine and block in forwarded
        youngest = max(youngest, block)
        if not mine:
            forwarded.add(block)
print("# %s: %d rounds, %d own step-0 packets of member %d, %d after %s" %
      (os.path.basename(log), len(rounds), own, me, late,
       "a younger block's" if mode == "younger" else
       "a forwarded packet of their block"))
sys.exit(0 if own and not late else 1)
EOF
}

# 14: in that ring rank 3 (member 2: the rack is member 0) sends every
# packet of its own of a block (step 0, chunk 2) before any packet of a
# younger block (ring.c, next_send()), as it sent them (first
# transmissions). In arrival order upstream members sent younger blocks
# first and the rack waited for old ones, 100-550 ms at a time: 698 own
# packets came after a younger block's in one run (as rank 4 received
# them; the check is on the sender, as a shaped path between veths may
# reorder a frame or two, tx_log.c)
own_order "$tmp/tx_log_rank3" 7 2 younger >"$tmp/block_order" 2>&1
report plain_member_sends_oldest_block_first $? "$tmp/block_order"

# ecn_rows OUT NRANKS on|off|ina: rina-bench --json rows of OUT; on: every
# rank received CE-marked packets, was told of marks on its own (the
# echo: at most what its peers received marked) and cut its window for
# them; off: no rank saw a mark or cut for one; ina: as on, but an INA
# rack's agent rank receives its results from its own agent on the
# host, which nothing marks (the ToR's marks reach it as echoes only)
ecn_rows()
{
	local out=$1

	shift
	python3 - <(bench_rows "$out") "$@" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, on = int(sys.argv[2]), sys.argv[3] in ("on", "ina")
ina = sys.argv[3] == "ina"
bad = []
if sorted({r["rank"] for r in rows}) != list(range(n)):
    bad.append("ranks %s" % sorted({r["rank"] for r in rows}))
for r in rows:
    got = (r["rx_ce"], r["ce_acked"], r["cwnd_cuts_ecn"])
    print("# rank %d: rx_ce %d ce_acked %d cwnd_cuts_ecn %d (loss %d, "
          "delay %d), retransmits %d" % ((r["rank"],) + got +
          (r["cwnd_cuts_loss"], r["cwnd_cuts_delay"], r["retransmits"])))
    if ina and r["role"] == "ina-agent":
        got = got[1:]
    if on and min(got) == 0:
        bad.append("rank %d (%s): no marks, echo or cut" %
                   (r["rank"], r["role"]))
    if not on and max(got) != 0:
        bad.append("rank %d: marks without ECN" % r["rank"])
if on and not ina and \
        sum(r["ce_acked"] for r in rows) > sum(r["rx_ce"] for r in rows):
    bad.append("more marks echoed than received")
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}

# ecn_case NAME CC on|off|ina [INA]: 2x2 (racks INA as rina-run --ina
# INA, default none), 25 Mbit/s, 20 ms queues marking above 4 ms
# (12500 B), RINA_CC=CC, 2 MiB: exact, and the ECN counters as ecn_rows
# says
ecn_case()
{
	local out=$tmp/$1 rc

	"$RUN" --topo 2x2 --ina "${4:-none}" --rate 25mbit --queue 20ms \
		--ecn 4ms --timeout 120 \
		-- env RINA_CC="$2" \
		"$BENCH" -b 2M -e 2M -n 2 -w 1 --json >"$out" 2>&1
	rc=$?
	grep -q "ECN marks on host links .*CE above 12500b queued (4.0 ms)" \
		"$out" || { echo "# no ECN line"; rc=1; }
	[ "$rc" -eq 0 ] && { check_rows "$out" 4 25000000 || rc=1; }
	[ "$rc" -eq 0 ] && { ecn_rows "$out" 4 "$3" || rc=1; }
	report "$1" "$rc" "$out"
}

# 15: loss and ECN alone (no delay signal): marks reach every receiver,
# come back in the ACKs and cut the senders' windows
ecn_case ecn_marks_echoed_and_cut_windows_exact loss,ecn on

# 16: with the ECN signal off the ranks do not send ECN-capable packets:
# the marker leaves them alone, and nobody reacts to marks
ecn_case ecn_signal_off_nothing_marked loss,delay off

# 17: a mixed ring (rack 0 INA through rina-tor): the ToR marks a result
# whose contributions came marked, the downstream member echoes it, the
# ToR fans the echo out, and the INA workers cut their windows for it
# (without the ToR's marks and the workers' reaction their ECN counters
# stay 0: the ToR's results went out not ECN-capable)
ecn_case ecn_ina_workers_told_through_tor_exact loss,ecn ina 0

# 18: every rack INA, no ECN: the INA workers keep their host link's
# queue short of dropping, under 0.75% of the payload retransmitted
# (1.5-3.4% when loss alone drove them and filled the 20 ms queue until
# it dropped; performance-notes.md, "The workers' delay signal"). In a
# ring of INA racks only their window's floor is 2 (P + 1), 70 KB, more
# than that queue: every worker bounds what it queues on its host and
# held data back for it (txq_holds; 1000-1500 of a worker's
# contributions dropped there in 4 calls of a 4x2 ring without the
# bound). That bound, not the delay signal, keeps the queue short: in
# such a ring even a worker's lowest RTT sample holds the next rack's
# lag, and its delay cuts held 4x2 at 1.43x plain RAR (performance-
# notes.md, "The workers' delay cuts in a ring of INA racks"), so they
# take none (core/cc.h, qmin_lag_only)
out=$tmp/ina_delay
"$RUN" --topo 2x2 --ina all --rate 25mbit --queue 20ms --timeout 120 -- \
	"$BENCH" -b 2M -e 2M -n 2 -w 1 -c 1 --json >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && { check_rows "$out" 4 25000000 ina || rc=1; }
[ "$rc" -eq 0 ] && { retx_below "$out" 4 0.75 || rc=1; }
[ "$rc" -eq 0 ] && { python3 - <(bench_rows "$out") <<'EOF' || rc=1; }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cuts = [r["cwnd_cuts_delay"] for r in rows if r["role"].startswith("ina-")]
holds = [r["txq_holds"] for r in rows if r["role"].startswith("ina-")]
print("# INA ranks' delay cuts: %s, txq_holds: %s" % (cuts, holds))
sys.exit(0 if len(cuts) == 4 and sum(cuts) == 0 and min(holds) > 0 else 1)
EOF
report "ina_workers_bounded_host_queue_no_delay_cuts_retx_below_0.75pct" \
	"$rc" "$out"

# txq_holds OUT NRANKS HOLDERS: rina-bench --json rows of OUT; the ranks
# listed in HOLDERS (comma-separated, may be empty) held data back behind
# their host's queue (txq_holds > 0), no other rank did
txq_holds()
{
	local out=$1

	shift
	python3 - <(bench_rows "$out") "$@" <<'EOF'
import json, sys
rows = {r["rank"]: r["txq_holds"] for r in
        map(json.loads, open(sys.argv[1]))}
holders = {int(x) for x in sys.argv[3].split(",") if x}
print("# txq_holds per rank: %s" % rows)
ok = sorted(rows) == list(range(int(sys.argv[2]))) and \
     all((rows[i] > 0) == (i in holders) for i in rows)
sys.exit(0 if ok else 1)
EOF
}

# 19: in the mixed 4x2 ring of case 12 the two members next to the rack,
# which take no delay signal (rank 2 after it, rank 7 before it), keep
# at most txq_limit bytes queued on their host and held data back for
# it; the members driven by delay never reach it (ring.c, txq_check()).
# Without the limit rank 7 put 26-57 partials at a time into its 20 ms
# queue when the rack's slots completed, its ACKs to rank 6 waited
# behind them 9-20 ms, and rank 6 cut its window to one packet
out=$tmp/mixed_ring_4x2_windowed_workers_exact
txq_holds "$out" 8 2,7 >"$tmp/txq_4x2" 2>&1
report members_next_to_ina_rack_bound_their_host_queue $? "$tmp/txq_4x2"

# 20: the job's "txq_limit off" lifts it: the same members of a mixed
# 2x2 ring (rack 0 INA: rank 2 after it, rank 3 before it) never hold
# back, and the ring stays exact
out=$tmp/txq_off
"$RUN" --topo 2x2 --ina 0 --rate 25mbit --queue 20ms --timeout 120 \
	--job-opt 'txq_limit off' -- \
	"$BENCH" -b 2M -e 2M -n 2 -w 1 -c 1 --json >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && { check_rows "$out" 4 25000000 ina || rc=1; }
[ "$rc" -eq 0 ] && { txq_holds "$out" 4 "" || rc=1; }
report txq_limit_off_no_holds_exact "$rc" "$out"

# 21: in the mixed 4x2 ring of case 12 the plain members that no rack
# feeds (ranks 3-7; rank 2 forwards the rack's output) send all their own
# packets of a block (step 0) before anything they forward of it (ring.c,
# next_send(), inject_first): rank 3 (member 2, chunk 2) and rank 6
# (member 5, chunk 5), as they sent them (first transmissions; as ranks
# 4 and 7 received them, 2 of 936 were once out of that order, which
# the sender had not made: tx_log.c). The rack takes a block's chunks in
# step order and rank 7 windows by the rack's ordinals: forwarded first,
# the own chunks came after each block's later steps, and rank 7 sent
# nothing for them some 50 ms a block. Without the rule every block's
# own packets came after that block's forwarded ones.
own_order "$tmp/tx_log_rank3" 7 2 forwarded >"$tmp/inject_first" 2>&1
rc=$?
own_order "$tmp/tx_log_rank6" 7 5 forwarded >>"$tmp/inject_first" 2>&1 ||
	rc=1
report plain_members_send_own_block_before_forwarding_it "$rc" \
	"$tmp/inject_first"

# 22: in the mixed 4x2 ring of case 12 the member after the rack, rank 2,
# takes no late ACK of a resent packet's first copy for the resend's
# (ring.c, rx_ack(); core/rack.h): its next member's ACKs come behind the
# rack's output in its downlink's queue, its timer resends a packet whose
# ACK is on its way, and taking the resend's time judged every packet
# sent since lost. What RACK resent that rank 3 had got (rank 3's
# duplicates beyond rank 2's timer resends) was 107-212 a run before, all
# of rank 2's fast retransmissions; 0-43 when it took such an ACK from
# half an RTT after the resend (2 of 5 runs over 20, CI one at 31); with
# Karn's rule 0 in 6 runs, 0-11 in 4 beside two busy loops; at most 20
python3 - <(bench_rows "$tmp/mixed_ring_4x2_windowed_workers_exact") \
	<<'EOF' >"$tmp/late_acks" 2>&1
import json, sys
rows = {r["rank"]: r for r in
        map(json.loads, open(sys.argv[1]))}
if 2 not in rows or 3 not in rows:
    sys.exit("# no rows of ranks 2 and 3")
r2, r3 = rows[2], rows[3]
timer = r2["retransmits"] - r2["fast_retransmits"]
spurious = r3["duplicates"] - timer
print("# rank 2: %d resent (%d by RACK, %d by its timer); rank 3: %d "
      "duplicates, %d beyond the timer's" % (r2["retransmits"],
      r2["fast_retransmits"], timer, r3["duplicates"], spurious))
sys.exit(0 if spurious <= 20 else 1)
EOF
report member_after_rack_takes_no_late_ack_for_a_resend $? "$tmp/late_acks"

ktap_finish
