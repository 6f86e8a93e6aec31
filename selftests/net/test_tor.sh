#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina ring through the software ToR: rina-run starts rina-tor on every
# INA rack, the rack's agent installs the job on it (TOR_INSTALL), the ToR
# adds the rack's contributions and the upstream partial. Results equal
# the CPU reference and plain RAR bit for bit; the ToR's counters match
# the schedule exactly (m contributions per slot, one partial out per
# slot, the owned chunk multicast once to the m - 1 workers off the agent's
# host, whose worker the agent relays to); the ToR's drop
# simulator at 1% and 10%, and on its allgather copies (an own-chunk
# result lost to the agent and downstream); a ToR out of slots and one not
# running leave the rack to its agent (software aggregation, counted); a
# killed worker fails every rank clearly and the ToR releases the job.
# Usage: test_tor.sh [TRANSPORT]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
. "$top/selftests/net/two_jobs.sh"
. "$top/selftests/net/tor_bench.sh"
TOR_RUN_OPTS=()
TOR_BENCH_ITERS=(-n 2 -w 1)

transport=${1:-udp}
run=$top/build/bin/rina-run
bench=$top/build/bin/rina-bench
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_root
require_cmd python3 ip ethtool

ktap_plan 20

if [ ! -x "$top/build/bin/rina-tor" ] || [ ! -x "$bench" ]; then
	for j in $(seq 19); do
		ktap_skip "rina-tor case $j" "build/bin/rina-tor not built"
	done
	ktap_finish
fi

# check NAME NRANKS L [TOR] [MIN_SLOTS]: every JSON row exact, one hash
# per size, ring of L, every agent row reporting the ToR state TOR
# ("on": each ToR's counters show aggregation, no collision, nothing
# bypassed; else the agents added at least MIN_SLOTS slots in software)
check()
{
	python3 - "$tmp/$1.out" "$2" "$3" "${4:-on}" "${5:-1}" \
		"$tmp/$1.tor" <<'EOF'
import glob, json, os, sys
out, n, L, tor, min_slots, tordir = sys.argv[1:]
n, L, min_slots = int(n), int(L), int(min_slots)
rows, bad = [], []
for line in open(out):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        rows.append(json.loads(line))
sizes = {}
for r in rows:
    sizes.setdefault(r['size'], []).append(r)
    if r['ring_len'] != L or r['wrong']:
        bad.append('rank %d size %d: ring %d wrong %d' %
                   (r['rank'], r['size'], r['ring_len'], r['wrong']))
    if r['role'] == 'ina-agent' and r.get('tor') != tor.split(':')[0]:
        bad.append('rank %d: ToR %s' % (r['rank'], r.get('tor')))
if not rows:
    bad.append('no rows')
for s, xs in sizes.items():
    if len(xs) != n or len({x['hash'] for x in xs}) != 1:
        bad.append('size %d: %d rows, %d hashes' %
                   (s, len(xs), len({x['hash'] for x in xs})))
agents = [r for r in rows if r['role'] == 'ina-agent']
sw = sum(r['agent_slots_done'] for r in agents)
if tor == 'on':
    files = glob.glob(os.path.join(tordir, 'tor*.json'))
    if not files:
        bad.append('no ToR counters')
    for f in files:
        for j in json.load(open(f))['jobs']:
            c = j['counters']
            if (c['slot_done'] == 0 or c['collision'] or c['bypass_in'] or
                    c['too_long']):
                bad.append('%s: %s' % (os.path.basename(f), c))
            print('# %s: contrib_in %d slot_done %d partial_out %d '
                  'ag_mcast %d ag_agent %d drop_sim %d reemit %d' %
                  (os.path.basename(f), c['contrib_in'], c['slot_done'],
                   c['partial_out'], c['ag_mcast'], c['ag_agent'],
                   c['drop_sim'], c['reemit']))
    if sw:
        bad.append('agents added %d slots in software' % sw)
else:
    st = {r.get('tor_status') for r in agents}
    want = int(tor.split(':')[1]) if ':' in tor else None
    if sw < min_slots or (want is not None and st != {want}):
        bad.append('software slots %d, ToR status %s' % (sw, st))
    print('# agents: ToR %s (status %s), %d slots added in software' %
          (tor, sorted(st), sw))
print('# %d rows, %d sizes, retransmits %d' %
      (len(rows), len(sizes), sum(r['retransmits'] for r in rows)))
for b in bad[:5]:
    print('# ' + b)
sys.exit(1 if bad else 0)
EOF
}

# tor_sum NAME COUNTER: COUNTER summed over every ToR's stats of run NAME
tor_sum()
{
	cat "$tmp/$1.tor"/tor*.json 2>/dev/null | grep -o "\"$2\":[0-9]*" |
		awk -F: '{s += $2} END {print s + 0}'
}

# 1-5: topologies and INA patterns, float32 equal to plain RAR
for spec in "1x4 all 1 int32" "2x2 all 2 float32" "2x2 0 3 int32" \
	    "3x2 0,2 4 float32" "2x3 1 4 int32"; do
	set -- $spec
	topo=$1 ina=$2 L=$3 dt=$4 n=$(( ${1%x*} * ${1#*x} ))
	name="tor-$topo-$ina"
	bench "$name" "$topo" "$ina" -- -d "$dt" -b 4 -e 256K -f 8
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$dt" = float32 ]; then
		# same job file, so the same E: only the ring differs
		bench "$name-plain" "$topo" "$ina" RINA_NO_INA=1 -- \
			-d "$dt" -b 4 -e 256K -f 8
		a=$(grep -o '"size":[0-9]*\|"hash":"[0-9a-f]*"' \
			"$tmp/$name.out" | paste - - | sort -u)
		b=$(grep -o '"size":[0-9]*\|"hash":"[0-9a-f]*"' \
			"$tmp/$name-plain.out" | paste - - | sort -u)
		[ -n "$a" ] && [ "$a" = "$b" ] || rc=99
	fi
	extra=
	[ "$dt" = float32 ] && extra=", equal to plain RAR"
	report "$name" "$rc" \
		"$topo INA racks $ina through rina-tor: ring of $L, $dt exact, identical$extra" \
		"$name" "$n" "$L"
done

# 6: the ToR's counters for one int32 call of 1000 elements on 2x2, rack
# 0 INA (m = 2, L = 3): E = 256, P = 2 (334 elements a chunk), one block,
# 6 slot ordinals (the last one of each chunk part padding: every ordinal
# exists). Nothing is lost on these links, so the counts are exact; the
# job's timer is 5 s, so that a loaded host's stall cannot fire one
# before the first round trip was sampled (every timer of the one call
# then waits for its cap, 50 ms and more, instead of the 20 ms default).
# After a sample, a worker's tail probe fires 2 ms after the last
# delivery (RINA_PTO_MIN_US): the ranks and rina-tor run in the
# real-time class, so that the suite's other load (or a helper's) cannot
# hold one of them that long and make the probe resend a contribution
# the ToR then counts twice (seen once under a load of 10)
rt=(chrt -f 5)
chrt -f 5 true 2>/dev/null || rt=()
mkdir -p "$tmp/ctr.tor"
"${rt[@]}" "$run" --topo 2x2 --ina 0 --timeout 60 --tor-stats "$tmp/ctr.tor" \
	--job-opt 'rto_us 5000000' -- \
	"$bench" --transport "$transport" --json -c 1 -n 1 -w 0 \
	-d int32 -b 4000 -e 4000 >"$tmp/ctr.out" 2>&1
rc=$?
python3 - "$tmp/ctr.out" "$tmp/ctr.tor/tor0.json" <<'EOF' >"$tmp/ctr.chk"
import json, sys
rows = [json.loads(l.split('] ', 1)[-1]) for l in open(sys.argv[1])
        if l.split('] ', 1)[-1].startswith('{')]
c = json.load(open(sys.argv[2]))['jobs'][0]['counters']
m, L, P = 2, 3, 2
slots = L * P
want = {'contrib_in': m * slots, 'slot_done': slots,
        'partial_in': (L - 1) * P, 'partial_out': (L - 1) * P,
        'ag_in': (L - 1) * P, 'ag_agent': slots,
        # not to the agent's host (rw_host): its agent relays its copy
        'ag_mcast': (m - 1) * slots,
        'dup': 0, 'reemit': 0, 'collision': 0, 'bypass_in': 0}
got = {k: c[k] for k in want}
retx = sum(r['retransmits'] for r in rows)
relays = [r['agent_host_relays'] for r in rows if 'agent_host_relays' in r]
print('# ToR rack 0: %s' % ' '.join('%s %d' % kv for kv in got.items()))
print('# retransmissions %d, rows %d, agent relays %s' %
      (retx, len(rows), relays))
ok = len(rows) == 4 and not any(r['wrong'] for r in rows)
got['relays'], want['relays'] = relays, [slots]
sys.exit(0 if ok and got == want and not retx else 1)
EOF
crc=$?
cat "$tmp/ctr.chk"
if [ "$rc" -eq 0 ] && [ "$crc" -eq 0 ]; then
	ktap_ok "ToR counters: contributions = m x slots, one partial out per slot, owned chunk multicast to the m - 1 workers off the agent's host once, the agent relays every copy to its host's"
else
	tail -5 "$tmp/ctr.out" | sed 's/^/# /'
	ktap_fail "ToR counters" "rina-run $rc, check $crc"
fi

# 7-8: the ToR's ingress drop simulator on contributions, partials,
# allgather data and ACKs (ver_op 0x11..0x14), rate in 1/65536
# (10% loss stalls the ring for a timer period per lost packet: small)
for spec in "655 int32 1% 64K 256K" "6554 float32 10% 16K 32K"; do
	set -- $spec
	drops=""
	for op in 0x11 0x12 0x13 0x14; do
		drops="$drops --drop $op:$1"
	done
	name="drop-$3"
	bench "$name" 2x2 all --opt --tor-opt --opt "$drops" -- \
		-d "$2" -b "$4" -e "$5" -f 4
	rc=$?
	d=$(tor_sum "$name" drop_sim)
	[ "$d" -gt 0 ] || rc=98
	report "$name" "$rc" \
		"ToR drop simulator at $3 on every Rina opcode: exact, identical, $d dropped and recovered" \
		"$name" 4 2
done

# 9: the ToR's egress drop simulator drops each replica on its own: at 30%
# on AG_DATA, the agent's and the next member's copies of an own-chunk
# result are both lost about once in eleven. The workers complete an
# own-chunk ordinal only when the agent says it holds the result; their
# retransmission makes the ToR re-emit it to the agent (without that
# rule: "63 of 64 allgather packets" at the next member, then timeout)
name=drop-out-ag
bench "$name" 2x2 all --opt --tor-opt --opt "--drop-out 0x13:19661" -- \
	-d int32 -b 16K -e 64K -f 4
rc=$?
d=$(tor_sum "$name" drop_sim_out)
[ "$d" -gt 0 ] || rc=98
report "$name" "$rc" \
	"ToR egress drop simulator at 30% on AG_DATA copies: exact, identical, $d dropped and recovered" \
	"$name" 4 2

# 10-11: librina's fault knobs on every rank and agent (sends dropped or sent
# twice): contributions, partials, allgather data and ACKs of all roles
for spec in "2x2 0 3 10000 10000 int32 1%-loss-1%-dup" \
	    "3x2 all 3 50000 0 float32 5%-loss"; do
	set -- $spec
	name="knob-$7-$1"
	bench "$name" "$1" "$2" RINA_FAULT_DROP_PPM=$4 RINA_FAULT_DUP_PPM=$5 \
		-- -d "$6" -b 16K -e 64K -f 4
	rc=$?
	r=$(grep -o '"retransmits":[0-9]*' "$tmp/$name.out" |
		awk -F: '{s += $2} END {print s + 0}')
	[ "$r" -gt 0 ] || rc=97
	report "$name" "$rc" \
		"librina knobs $7 on $1 INA $2 through rina-tor: exact, identical, $r retransmissions" \
		"$name" "$(( ${1%x*} * ${1#*x} ))" "$3"
done

# 12-13: AF_XDP workers (rina-run --xdp): through the ToR, and with the agents
# adding in software (--tor off; the agent rank's worker reaches its own
# agent through the kernel, AF_XDP frames cannot loop back)
saved_transport=$transport
transport=xdp
for spec in "on through rina-tor" "off with software agents"; do
	set -- $spec
	name="xdp-tor-$1"
	bench "$name" 2x2 all --opt --tor --opt "$1" --opt --xdp \
		--opt generic --opt --mtu --opt 3500 -- \
		-d float32 -b 4K -e 256K -f 8
	rc=$?
	grep -q '"transport":"xdp"' "$tmp/$name.out" || rc=96
	want=on
	[ "$1" = off ] && want=none
	report "$name" "$rc" \
		"2x2 all INA over AF_XDP ${spec#* }: exact, identical" \
		"$name" 4 2 "$want" 1
done
transport=$saved_transport

# 14: a ToR out of slots: a window of 4096 needs 2 x 4096 slots of the
# ToR's 4096, so it refuses (status 2) and the agent adds the rack
bench noslots 2x2 0 --opt --job-opt --opt 'window 4096' -- \
	-d int32 -b 4K -e 64K -f 4
report noslots $? \
	"ToR out of slots: refused (no slots left), the agent adds in software, exact" \
	noslots 4 3 off:2 1

# 15: no ToR running (RINA_TOR is a program that exits at once): the agent
# gets no answer and adds in software
bench notor 2x2 0 RINA_TOR=/bin/true -- -d float32 -b 4K -e 64K -f 4
report notor $? \
	"ToR not running: no answer, the agent adds in software, exact" \
	notor 4 3 off:4294967295 1

# 16: bytes on the wire through the ToR: 2x3, rack 0 INA (m = 3, L = 4),
# S = 2 MiB int32, 3 calls. Data: INA-rack worker S each way, ring member
# and rack uplinks 2(L-1)/L S each way, padding packets included. ACK
# frames are subtracted as the ranks count them (rina-bench's
# ack_tx_bytes/ack_rx_bytes; the ToR's and the agent's ACKs arrive at
# the upstream member, the downstream member's leave it); retransmissions
# (counted by their senders) added. The agent host gets the agent's copy
# (its worker's comes from the agent over the host, rw_host) and the
# downstream's allgather ACKs, and sends the agent's ACKs; what it
# receives twice is the agent's duplicates (rina-bench's
# agent_duplicates), not its worker's: a repair the worker asked for
# that crosses the relay of the same copy never was on the link.
S=$((2 << 20)); calls=3
measure_bytes()
{
iface_bytes "$tmp/bytes.out" "$S" "$calls"
rc=$?
python3 - "$tmp/bytes.out" "$S" "$calls" <<'EOF' >"$tmp/bytes.chk"
import json, sys
S, calls = int(sys.argv[2]), int(sys.argv[3])
E, L, W = 256, 4, 256                     # rina-run's E with ToRs
# headers, and the data tag: rina-run's jobs have a secret, and every
# data packet and ACK carries its tag, through the ToR too (protocol 6.3)
H = 70 + 8
# with INA members a chunk holds at most W/4 packets and 32 KiB
# (user/lib/sched.c, RINA_INA_CHUNK_BYTES), and P is one less
P = min(-(-S // 4 // (L * E)), min(W // 4, (32 << 10) // (4 * E)) - 1)
blocks = -(-S // 4 // (L * P * E))
pkts = S // (4 * E)
pad = blocks * L * P - pkts               # empty packets: one zero word
F = 4 * E + H                             # one full data packet
one = S + pkts * H + pad * (H + 4)        # the tensor once, with headers
ring = 2 * (L - 1) / L * one
# the agent ACKs each allgather packet from upstream: one H + 4 frame
agent_acks = (L - 1) / L * (pkts + pad) * (H + 4)
rows, ifs = {}, []
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        r = json.loads(line)
        rows[r['rank']] = r
        continue
    f = line.split()
    if len(f) == 4 and f[0] in ('eth0', 'up'):
        ifs.append(f)
bad = len(ifs) != 8 or len(rows) != 6
r0 = rows.get(0, {})
# sent again, less what the local stack refused (never on the wire), both
# as framed: bytes a call
retx = {k: r['retx_bytes'] - r['tx_refused_bytes'] for k, r in rows.items()}
# data received twice, as framed, a call; the worker on the agent's host
# gets its copies over the host's loopback (relays, repairs), so on that
# host's link it is what the agent received twice
dups = {k: r['agent_duplicates' if k == 0 else 'duplicates'] * F / calls
        for k, r in rows.items()}
atx = {k: r['ack_tx_bytes'] for k, r in rows.items()}
arx = {k: r['ack_rx_bytes'] for k, r in rows.items()}
for f in ifs:
    tx, rx = int(f[2]) / calls, int(f[3]) / calls
    if f[0] == 'eth0':
        k = int(f[1])
        etx, erx = retx[k] + atx[k], dups[k] + arx[k]
        want = one if k < 3 else ring
        label = 'rank %d (%s)' % (k, 'INA-rack worker' if k < 3
                                  else 'ring member')
        if k == 0:
            # the agent's ACKs as it counted them (upstream's allgather,
            # the workers' held results), else one per allgather packet
            etx += r0.get('agent_ack_tx_bytes', agent_acks)
            label = 'rank 0 (worker + agent)'
    else:
        want, label = ring, 'rack %s uplink' % f[1]
        a = dups[3] + arx[5]              # member 0 -> rank 3, ACKs -> 5
        b = retx[5] + atx[3]              # rank 5 -> member 0, 3's ACKs
        etx, erx = (a, b) if f[1] == '0' else (b, a)
    rxv = (rx - erx) / want
    ok = abs((tx - etx) / want - 1) < 0.02
    if label.startswith('rank 0'):
        # its worker's copies come from the agent over the host (rw_host),
        # so the link carries each result once (it was 2 S): the agent's
        # copy, plus downstream's allgather ACKs, which nobody counts
        ok = ok and 0.98 < rxv < 1.0 + 1.5 * agent_acks / want
    else:
        ok = ok and abs(rxv - 1) < 0.02
    bad |= not ok
    print('# %-26s tx %.4f rx %s of %.0f B (ACKs, retransmissions: +%.1f%%/+%.1f%%) %s' %
          (label, (tx - etx) / want, '%.4f' % rxv, want,
           100 * etx / want, 100 * erx / want, 'ok' if ok else 'OUT OF 2%'))
sys.exit(bad)
EOF
brc=$?
cat "$tmp/bytes.chk"
echo "# rina-run $rc, check $brc"
[ "$rc" -eq 0 ] && [ "$brc" -eq 0 ]
}
measure measure_bytes "$tmp/bytes.out" "bytes on the wire through the ToR" \
	"bytes per interface through the ToR within 2%: INA worker S, member and uplinks 2(L-1)/L S"

# 17: two concurrent jobs on the same ToRs (two_jobs.sh)
if two_jobs_on_tor "$tmp" "-b 16K -e 256K -f 4 -n 2 -w 1 -c 1" ""; then
	ktap_ok "two concurrent jobs on the same ToR: both aggregated by it, exact, isolated"
else
	grep -v '^\[rank .\] {' "$tmp/two.out" | tail -6 | sed 's/^/# /'
	ktap_fail "two concurrent jobs on the same ToR" "see above"
fi

# 18: a worker of the INA rack killed mid-allreduce: every other rank
# fails clearly within the deadline, and the agent removes the job from
# the ToR on its way out
read -r rc secs errs < <(kill_ina_worker "$tmp/kill.out" 256K)
removed=$(grep -c '\[tor 0\].*removed' "$tmp/kill.out")
grep -E '\[rank (0|2|3)\].*(timed out|aborted)|\[tor 0\].*removed' \
	"$tmp/kill.out" | head -4 | sed 's/^/# /'
if [ "$rc" -ne 0 ] && [ "$errs" -eq 3 ] && [ "$secs" -lt 25 ] &&
   [ "$removed" -ge 1 ]; then
	ktap_ok "killed INA-rack worker: 3 ranks fail clearly in ${secs}s, ToR job removed"
else
	tail -6 "$tmp/kill.out" | sed 's/^/# /'
	ktap_fail "killed INA-rack worker" \
		"exit $rc, $errs clear errors, ${secs}s, removed $removed"
fi

# 19: the member upstream of an INA rack loses 3% of what it sends (its
# partials, its allgather forwards): it finds those losses from the
# rack's later ACKs of the same chunk (RACK per chunk and phase, ring.c),
# not only from its timer, which after a burst resent one partial per
# period. Exact, and that rank's fast_retransmits > 0 (there were none
# towards an INA member before). 2x2, rack 0 INA: the ring is rack 0,
# rank 2, rank 3, so rank 3 is upstream of the rack.
printf '#!/bin/sh\n[ "$RINA_RANK" = 3 ] && export RINA_FAULT_DROP_PPM=30000\nexec %s "$@"\n' \
	"$bench" >"$tmp/drop3.sh"
chmod +x "$tmp/drop3.sh"
saved_bench=$bench
bench=$tmp/drop3.sh
bench upstream-drop 2x2 0 -- -d int32 -b 64K -e 1M -f 4
rc=$?
bench=$saved_bench
fr=$(grep '^\[rank 3\] {' "$tmp/upstream-drop.out" |
	grep -o '"fast_retransmits":[0-9]*' |
	awk -F: '{s += $2} END {print s + 0}')
[ "$fr" -gt 0 ] || rc=95
report upstream-drop "$rc" \
	"member upstream of an INA rack at 3% loss: exact, its losses found by RACK ($fr fast retransmits)" \
	upstream-drop 4 3

# 20: two concurrent jobs on the same ToRs whose agents share a host,
# job B's on agent port 21070 (the ToR's tables take the job's port)
if TWO_JOBS_AGENT_PORT=21070 two_jobs_on_tor "$tmp" \
	"-b 16K -e 256K -f 4 -n 2 -w 1 -c 1" "" &&
   grep -q '^rack 0 ina tor 198.18.0.254 agent_port 21070$' "$tmp/jobB" &&
   grep -q '^rank 0 198.18.0.1:21057 rack 0$' "$tmp/jobB"; then
	ktap_ok "two jobs on the same ToR, their agents on one host (agent_port 21070): both aggregated by it, exact"
else
	grep -v '^\[rank .\] {' "$tmp/two.out" | tail -6 | sed 's/^/# /'
	ktap_fail "two jobs' agents on one host behind one ToR" "see above"
fi

ktap_finish
