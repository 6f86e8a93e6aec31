#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina ring with abstracted members between emulated hosts: INA racks
# collapse to one ring member (L = x + m(k - x)); results equal the CPU
# reference and plain RAR bit for bit on every rank; bytes on each host
# interface and rack uplink match the theory (INA-rack worker S each way,
# ring member and uplink 2(L-1)/L S); loss and duplication; a killed
# worker. Without a ToR process (--tor off) the agent aggregates in
# software; test_tor.sh runs the same ring through rina-tor.
# Usage: test_ina.sh [TRANSPORT]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

transport=${1:-udp}
run=$top/build/bin/rina-run
bench=$top/build/bin/rina-bench
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_root
require_cmd python3 ip

ktap_plan 10

# rows FILE: "ring_len role hash wrong" per JSON row, all ranks
rows()
{
	python3 - "$1" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        r = json.loads(line)
        print(r['size'], r['ring_len'], r['role'], r['hash'], r['wrong'],
              r['retransmits'])
EOF
}

# bench NAME TOPO INA [ENV=VAL...] -- ARGS: run rina-bench on every rank
bench()
{
	local name=$1 topo=$2 ina=$3 envs=()
	shift 3
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$run" --tor off --topo "$topo" --ina "$ina" --timeout 150 -- \
		"$bench" --transport "$transport" --json -c 1 -n 2 -w 1 "$@" \
		>"$tmp/$name.out" 2>&1
}

# expect_ok NAME NRANKS L: every row right, one hash per size, ring of L
expect_ok()
{
	local name=$1 n=$2 L=$3 r
	r=$(rows "$tmp/$name.out")
	if [ -z "$r" ]; then
		tail -5 "$tmp/$name.out" | sed 's/^/# /'
		return 1
	fi
	echo "$r" | awk -v n="$n" -v L="$L" '
		{ cnt[$1]++; h[$1" "$4] = 1; if ($2 != L || $5 != 0) bad = 1 }
		END {
			for (s in cnt) if (cnt[s] != n) bad = 1
			nh = 0; for (k in h) nh++
			ns = 0; for (s in cnt) ns++
			exit (bad || nh != ns)
		}'
}

# correctness over topologies and INA patterns; float32 hashes equal to
# plain RAR (RINA_NO_INA=1) on the same topology
for spec in "1x4 all 1 int32" "2x2 0 3 float32" "2x2 all 2 int32" \
	    "3x2 0,2 4 float32" "2x3 1 4 int32"; do
	set -- $spec
	topo=$1 ina=$2 L=$3 dt=$4 n=$(( ${1%x*} * ${1#*x} ))
	name="ina-$topo-$ina"
	bench "$name" "$topo" "$ina" -- -d "$dt" -b 4 -e 1M -f 11
	if ! expect_ok "$name" "$n" "$L"; then
		ktap_fail "$topo INA racks $ina: ring of $L, $dt exact/identical"
		continue
	fi
	if [ "$dt" = float32 ]; then
		bench "$name-plain" "$topo" "$ina" RINA_NO_INA=1 -- \
			-d "$dt" -b 4 -e 1M -f 11
		a=$(rows "$tmp/$name.out" | awk '{print $1, $4}' | sort -u)
		b=$(rows "$tmp/$name-plain.out" | awk '{print $1, $4}' | sort -u)
		if [ "$a" != "$b" ]; then
			ktap_fail "$topo INA racks $ina: float32 equal to plain RAR" \
				"hashes differ"
			continue
		fi
	fi
	extra=
	[ "$dt" = float32 ] && extra=", equal to plain RAR"
	ktap_ok "$topo INA racks $ina: ring of $L, $dt exact, identical$extra"
done

# bytes on the wire: 2x3, rack 0 INA (L = 4), S = 8 MiB, 3 calls. The
# protocol's volume must match the theory; retransmissions (counted by
# their senders, spurious ones included on a loaded host) are added to it.
S=$((8 << 20)); calls=3
measure_bytes()
{
iface_bytes "$tmp/bytes.out" "$S" "$calls" --tor off
rc=$?
python3 - "$tmp/bytes.out" "$S" "$calls" <<'EOF' >"$tmp/bytes.chk"
import json, sys
S, calls = int(sys.argv[2]), int(sys.argv[3])
E, H, L = 1024, 70, 4                     # rina-run's jumbo default E
P = 4 * E + H                             # one full data packet
pkts = S // (4 * E)
one = S + pkts * H                        # the tensor once, with headers
ring = 2 * (L - 1) / L * one
# the agent (like a ToR) acknowledges every upstream packet on its own:
# one 74-byte frame per reduce-scatter and allgather packet from rank 5
agent_acks = 2 * (L - 1) / L * pkts * (H + 4)
retx, dups, ifs = {}, {}, []
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        r = json.loads(line)
        # sent again, less what the local stack refused (never on the
        # wire), both as framed: bytes a call
        retx[r['rank']] = r['retx_bytes'] - r['tx_refused_bytes']
        dups[r['rank']] = r['duplicates']
        continue
    f = line.split()
    if len(f) == 4 and f[0] in ('eth0', 'up'):
        ifs.append(f)
bad = len(ifs) != 8 or len(retx) != 6
for f in ifs:
    tx, rx = int(f[2]) / calls, int(f[3]) / calls
    if f[0] == 'eth0':
        rank = int(f[1])
        if rank == 0:
            continue                      # the agent also aggregates
        want = one if rank < 3 else ring
        label = 'rank %d (%s)' % (rank, 'INA-rack worker' if rank < 3
                                  else 'ring member')
        etx = retx[rank]                  # retransmitted by this rank
        erx = dups[rank] * P / calls      # received twice
        if rank == 5:
            erx += agent_acks
    else:
        want, label = ring, 'rack %s uplink' % f[1]
        # ring edges across racks: agent (rack 0) -> rank 3, rank 5 ->
        # agent; what the agent sent twice is what rank 3 got twice
        a = dups[3] * P / calls + agent_acks
        b = retx[5]
        etx, erx = (a, b) if f[1] == '0' else (b, a)
    ok = abs((tx - etx) / want - 1) < 0.02 and abs((rx - erx) / want - 1) < 0.02
    bad |= not ok
    print('# %-26s tx %.4f rx %.4f of %.0f B (+%.1f%%/+%.1f%% retransmissions, agent ACKs) %s' %
          (label, (tx - etx) / want, (rx - erx) / want, want,
           100 * etx / want, 100 * erx / want, 'ok' if ok else 'OUT OF 2%'))
sys.exit(bad)
EOF
brc=$?
cat "$tmp/bytes.chk"
echo "# rina-run $rc, check $brc"
[ "$rc" -eq 0 ] && [ "$brc" -eq 0 ]
}
measure measure_bytes "$tmp/bytes.out" "bytes on the wire" \
	"bytes per interface within 2%: INA worker S, member and uplinks 2(L-1)/L S (retransmissions counted)"

# jsum FILE FIELD: a JSON field summed over every row of every rank
jsum() {
	grep -o "\"$2\":[0-9]*" "$1" | awk -F: '{s += $2} END {print s + 0}'
}

# loss and duplication through librina's knobs, INA and autonomous ranks;
# at 10% the software agent asks its remote worker for the gaps it sees
# (gap NACKs, protocol-ina.md 8), and the worker resends what it asked
for spec in "10000 0 int32 1%-loss 0" "100000 100000 float32 10%-loss-10%-dup 1"; do
	set -- $spec
	bench "fault-$4" 2x2 0 RINA_FAULT_DROP_PPM=$1 RINA_FAULT_DUP_PPM=$2 -- \
		-d "$3" -b 64K -e 1M -f 4
	retx=$(rows "$tmp/fault-$4.out" | awk '{s += $6} END {print s + 0}')
	gaps=$(jsum "$tmp/fault-$4.out" agent_gap_nacks)
	asked=$(jsum "$tmp/fault-$4.out" resent_asked)
	if expect_ok "fault-$4" 4 3 && [ "$retx" -gt 0 ] &&
	   { [ "$5" = 0 ] || { [ "$gaps" -gt 0 ] && [ "$asked" -gt 0 ]; }; }; then
		ktap_ok "2x2 rack 0 INA under $4: exact, identical, $retx retransmissions, $gaps gap NACKs, $asked resent as asked"
	else
		ktap_fail "2x2 rack 0 INA under $4" "retransmissions $retx, gap NACKs $gaps, resent as asked $asked"
	fi
done

# two jobs at once on the same hosts and racks: job B numbers the ranks of
# each rack the other way round, so its INA agent is another host; both
# must be exact and identical, each counting only its own traffic (every
# rank writes its own copy of job B's file: they run concurrently)
"$run" --tor off --topo 2x2 --ina 0 --timeout 150 -- sh -c '
	m=2 r=$((RINA_RANK / m)) i=$((RINA_RANK % m))
	awk -v m=$m "
		/^job / { print \"job \" (\$2 % 65535) + 1; next }
		/^rank / { split(\$3, a, \":\"); rk = \$2; rr = int(rk / m);
			   print \"rank \" rr * m + (m - 1 - rk % m) \" \" a[1] \":21057 rack \" \$5; next }
		{ print }" "$RINA_JOB" >"$RINA_JOB.b$RINA_RANK"
	RINA_JOB=$RINA_JOB.b$RINA_RANK RINA_RANK=$((r * m + m - 1 - i)) \
		"$0" -d int32 -b 64K -e 4M -f 8 -n 3 -w 1 -c 1 --json |
		sed "s/^{/{\"job\":\"B\",/" &
	"$0" -d float32 -b 64K -e 4M -f 8 -n 3 -w 1 -c 1 --json |
		sed "s/^{/{\"job\":\"A\",/"
	wait' "$bench" >"$tmp/twojobs.out" 2>&1
rc=$?
python3 - "$tmp/twojobs.out" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        r = json.loads(line)
        rows.setdefault(r['job'], []).append(r)
bad = sorted(rows) != ['A', 'B']
for job, rs in sorted(rows.items()):
    sizes = {}
    for r in rs:
        sizes.setdefault(r['size'], []).append(r)
    agents = {r['rank'] for r in rs if r['role'] == 'ina-agent'}
    for size, xs in sizes.items():
        if (len(xs) != 4 or any(x['wrong'] for x in xs) or
                len({x['hash'] for x in xs}) != 1):
            bad = True
        # each job's own traffic only: near its own theory, far from
        # the sum of both jobs (small sizes split chunks unevenly)
        for x in xs:
            if size >= 1 << 20 and not (
                    0.9 < x['tx_bytes'] / x['theory_bytes'] < 1.3):
                bad = True
    print('# job %s: %d rows, agent rank %s, tx/theory %.3f..%.3f' % (
        job, len(rs), sorted(agents),
        min(r['tx_bytes'] / r['theory_bytes'] for r in rs),
        max(r['tx_bytes'] / r['theory_bytes'] for r in rs)))
sys.exit(bad)
EOF
brc=$?
if [ "$rc" -eq 0 ] && [ "$brc" -eq 0 ]; then
	ktap_ok "two concurrent jobs on the same racks: both exact, isolated counters"
else
	grep -v '^\[rank .\] {' "$tmp/twojobs.out" | tail -6 | sed 's/^/# /'
	ktap_fail "two concurrent jobs" "rina-run $rc, check $brc"
fi

# a worker of the INA rack killed mid-allreduce
read -r rc secs errs < <(kill_ina_worker "$tmp/kill.out" 1M --tor off)
grep -E '\[rank (0|2|3)\].*(timed out|aborted)' "$tmp/kill.out" | head -3 | sed 's/^/# /'
if [ "$rc" -ne 0 ] && [ "$errs" -eq 3 ] && [ "$secs" -lt 25 ]; then
	ktap_ok "killed INA-rack worker: the other 3 ranks fail clearly in ${secs}s"
else
	tail -6 "$tmp/kill.out" | sed 's/^/# /'
	ktap_fail "killed INA-rack worker" "exit $rc, $errs clear errors, ${secs}s"
fi

ktap_finish
