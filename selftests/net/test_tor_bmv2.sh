#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina ring through the compiled P4 program: rina-run --tor bmv2 makes
# every INA rack's ToR simple_switch running build/p4/rina_tor.json, which
# switches every frame of the rack; rina-tor-bmv2, its control plane,
# installs the job the rack's agent asks for (TOR_INSTALL) with
# rina-p4cfg's commands. Results are exact and, for float32, bit-identical
# to plain RAR; the ToR aggregates (its counters, read from the switch)
# and the agents add nothing in software; the drop simulator at 3%; two
# jobs on one ToR; and the switch's counters equal the C model's for the
# same run (every frame the switch took, replayed on p4/model), with and
# without drops. bmv2 moves
# a few thousand frames a second at best: tensors of 16-64 KiB.
# Usage: test_tor_bmv2.sh [TRANSPORT]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
. "$top/selftests/net/two_jobs.sh"
. "$top/selftests/net/tor_bench.sh"
TOR_RUN_OPTS=(--tor bmv2)
TOR_BENCH_ITERS=(-n 1 -w 0)

transport=${1:-udp}
run=$top/build/bin/rina-run
bench=$top/build/bin/rina-bench
tmp=$(mktemp -d)
defer rm -rf "$tmp"
N=9

require_root
require_cmd ip ethtool

ktap_plan $N
why=$("$top/selftests/tor/bmv2_vectors.py" --missing)
if [ -n "$why" ] || [ ! -x "$bench" ]; then
	[ -n "$why" ] || why="rina-bench not built"
	for j in $(seq $N); do
		ktap_skip "bmv2 ToR case $j" "$why"
	done
	ktap_finish
fi

# check NAME NRANKS [MIN_DROPS]: every row exact, one hash per size, every
# agent on its ToR with nothing added in software, every ToR aggregating
# (slots done, no collision, nothing bypassed), at least MIN_DROPS frames
# dropped by its drop simulator
check()
{
	/usr/bin/python3 - "$tmp/$1.out" "$2" "${3:-0}" "$tmp/$1.tor" <<'EOF'
import glob, json, os, sys
out, n, min_drops, tordir = sys.argv[1], int(sys.argv[2]), \
    int(sys.argv[3]), sys.argv[4]
rows, bad = [], []
for line in open(out):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        rows.append(json.loads(line))
sizes = {}
for r in rows:
    sizes.setdefault(r['size'], []).append(r)
    if r['wrong']:
        bad.append('rank %d size %d: wrong %d' % (r['rank'], r['size'],
                                                   r['wrong']))
    if r['role'] == 'ina-agent' and (r.get('tor') != 'on' or
                                     r['agent_slots_done']):
        bad.append('rank %d: ToR %s, %d slots in software' %
                   (r['rank'], r.get('tor'), r['agent_slots_done']))
if not rows:
    bad.append('no rows')
for s, xs in sizes.items():
    if len(xs) != n or len({x['hash'] for x in xs}) != 1:
        bad.append('size %d: %d rows, %d hashes' %
                   (s, len(xs), len({x['hash'] for x in xs})))
files = sorted(glob.glob(os.path.join(tordir, 'tor*.json')))
if not files:
    bad.append('no ToR counters')
drops = 0
for f in files:
    for j in json.load(open(f))['jobs']:
        c = j['counters']
        drops += c['drop_sim']
        if c['slot_done'] == 0 or c['collision'] or c['bypass_in']:
            bad.append('%s: %s' % (os.path.basename(f), c))
        print('# %s job %d: contrib_in %d slot_done %d partial_in %d '
              'partial_out %d ag_mcast %d ag_agent %d dup %d drop_sim %d' %
              (os.path.basename(f), j['job'], c['contrib_in'],
               c['slot_done'], c['partial_in'], c['partial_out'],
               c['ag_mcast'], c['ag_agent'], c['dup'], c['drop_sim']))
if drops < min_drops:
    bad.append('%d frames dropped by the simulator' % drops)
print('# %d rows, %d sizes, retransmits %d, max time %.0f ms' %
      (len(rows), len(sizes), sum(r['retransmits'] for r in rows),
       max([r['time_us'] for r in rows] or [0]) / 1000))
for b in bad[:5]:
    print('# ' + b)
sys.exit(1 if bad else 0)
EOF
}

# same_hashes A B: runs A and B produced the same result hash per size
same_hashes()
{
	local a b
	a=$(grep -o '"size":[0-9]*\|"hash":"[0-9a-f]*"' "$tmp/$1.out" |
		paste - - | sort -u)
	b=$(grep -o '"size":[0-9]*\|"hash":"[0-9a-f]*"' "$tmp/$2.out" |
		paste - - | sort -u)
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# 1: 1x2, the whole rack on one bmv2 ToR; its counters against the model
rm -rf "$tmp/replay"
bench one 1x2 all --opt --tor-opt --opt "--replay $tmp/replay" -- \
	-d int32 -b 16K -e 64K -f 4
report one $? "1x2 through bmv2: int32 exact, aggregated by the P4 program" \
	one 2
out=$(/usr/bin/python3 "$top/selftests/net/bmv2_replay.py" "$tmp/replay")
rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then
	ktap_ok "1x2: every counter of the switch equals the C model's for the same frames"
else
	ktap_fail "1x2: switch counters against the model" "see above"
fi

# 2: 2x2, rack 0 bmv2 INA, rack 1 plain: float32 identical to plain RAR
bench mixed 2x2 0 -- -d float32 -b 16K -e 32K -f 2
rc=$?
if [ "$rc" -eq 0 ]; then
	bench mixed-plain 2x2 0 RINA_NO_INA=1 -- -d float32 -b 16K -e 32K -f 2
	same_hashes mixed mixed-plain || rc=99
fi
report mixed "$rc" \
	"2x2 mixed racks through bmv2: float32 exact, identical to plain RAR" \
	mixed 4

# 3: 2x2, both racks INA: two bmv2 ToRs exchange partials; each keeps
# its run for the model in a directory of its own (rina-run's %r)
rm -rf "$tmp/areplay"
bench all 2x2 all --opt --tor-opt --opt "--replay $tmp/areplay/%r" -- \
	-d int32 -b 16K -e 16K
report all $? "2x2 both racks through bmv2: int32 exact" all 4
rc=0
for r in 0 1; do
	/usr/bin/python3 "$top/selftests/net/bmv2_replay.py" \
		"$tmp/areplay/$r" || rc=1
done
if [ "$rc" -eq 0 ]; then
	ktap_ok "2x2, both ToRs: every counter of each switch equals the C model's for the same frames"
else
	ktap_fail "2x2, both ToRs: switch counters against the model" "see above"
fi

# 4: the ingress drop simulator at 3% of the contributions (1966/65536);
# it draws in the order the switch takes frames: the model, fed the same
# frames in the same order, drops the same ones
rm -rf "$tmp/dreplay"
bench drop 2x2 0 --opt --tor-opt --opt "--drop 0x11:1966" \
	--opt --tor-opt --opt "--replay $tmp/dreplay" -- -d int32 -b 32K -e 32K
report drop $? "2x2 through bmv2, 3% of contributions dropped: exact" \
	drop 4 1
out=$(/usr/bin/python3 "$top/selftests/net/bmv2_replay.py" "$tmp/dreplay")
rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then
	ktap_ok "2x2, 3% dropped: every counter of the switch equals the C model's for the same frames"
else
	ktap_fail "2x2 with drops: switch counters against the model" "see above"
fi

# 5: two concurrent jobs on one bmv2 ToR (two_jobs.sh)
if two_jobs_on_tor "$tmp" "-b 4K -e 4K -n 1 -w 0 -c 1" \
	'window 8\nrto_us 300000\ntimeout_ms 30000\n' --tor bmv2; then
	ktap_ok "two concurrent jobs on one bmv2 ToR: both aggregated, exact, isolated"
else
	grep -v '^\[rank .\] {' "$tmp/two.out" | tail -6 | sed 's/^/# /'
	ktap_fail "two concurrent jobs on one bmv2 ToR" "see above"
fi

# last: the same as 5, job B's agent on job A's agent's host, agent port 21070:
# rina-p4cfg writes the job's port into set_job and rw_agent
if TWO_JOBS_AGENT_PORT=21070 two_jobs_on_tor "$tmp" "-b 4K -e 4K -n 1 -w 0 -c 1" \
	'window 8\nrto_us 300000\ntimeout_ms 30000\n' --tor bmv2; then
	ktap_ok "two jobs on one bmv2 ToR, their agents on one host (agent_port 21070): both aggregated, exact"
else
	grep -v '^\[rank .\] {' "$tmp/two.out" | tail -6 | sed 's/^/# /'
	ktap_fail "two jobs' agents on one host behind one bmv2 ToR" "see above"
fi

ktap_finish
