#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Allreduce over librina's AF_XDP transport equals the UDP transport's
# result bit for bit (rina-bench's per-rank result hash), on 2, 3 and 6
# ranks of a rina-run cluster, int32 and float32; and stays exact with
# packets dropped by the XDP program (1%, 10%) and duplicated by librina.
# Usage: test_xdp_allreduce.sh [quick]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
CTL=$top/build/bin/rinactl
TOPOS="1x2 1x3 2x3"
SIZES="-b 4 -e 1M -f 7"

if [ "$(id -u)" -ne 0 ]; then
	ktap_plan 1; ktap_skip xdp_allreduce "needs root"; exit 4
fi
for f in "$RUN" "$BENCH" "$CTL"; do
	if [ ! -x "$f" ]; then
		ktap_plan 1; ktap_skip xdp_allreduce "no $f"; exit 4
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run TOPO OUT TRANSPORT DTYPE ATTACH [ENV...]: rina-bench --json on every
# rank. ATTACH "-": no XDP program; "": attach rina_xdp; else attach
# options (e.g. "drop-ppm 10000").
run()
{
	local topo=$1 out=$2 tp=$3 dt=$4 attach=$5 cmd; shift 5
	cmd="exec $BENCH --transport $tp -d $dt $SIZES -n 2 -w 1 --json"
	[ "$attach" != - ] && cmd="$CTL xdp attach dev eth0 $attach && $cmd"
	env "$@" "$RUN" --topo "$topo" --mtu 1500 --timeout 100 -- \
		bash -c "$cmd" >"$out" 2>"$out.err"
}

# compare A B TRANSPORT_OF_B [retx|dups]: every (rank, size) of B has A's hash, no
# wrong values, all ranks agree, and B ran on the transport it asked for.
compare()
{
	python3 - "$@" <<'PYEOF'
import json, re, sys
def load(p):
    rows = {}
    for line in open(p):
        m = re.search(r'(\{.*\})', line)
        if m:
            r = json.loads(m.group(1))
            rows[(r["rank"], r["size"])] = r
    return rows
a, b, want = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
bad = []
if not a or set(a) != set(b):
    bad.append("row sets differ: %d vs %d rows" % (len(a), len(b)))
for k, r in b.items():
    if r["transport"] != want:
        bad.append("%s ran on %s" % (k, r["transport"]))
    if r["wrong"]:
        bad.append("%s: %d wrong values" % (k, r["wrong"]))
    if k in a and a[k]["hash"] != r["hash"]:
        bad.append("%s: hash %s vs %s" % (k, a[k]["hash"], r["hash"]))
for size in {s for _, s in b}:
    if len({r["hash"] for (_, s), r in b.items() if s == size}) != 1:
        bad.append("size %d: ranks disagree" % size)
retx = sum(r["retransmits"] for r in b.values())
dups = sum(r["duplicates"] for r in b.values())
need = sys.argv[4] if len(sys.argv) > 4 else ""
if need == "retx" and not retx:
    bad.append("faults injected but no retransmits seen")
if need == "dups" and not dups:
    bad.append("duplicates injected but none seen")
print("# %d rows, %d retransmits, %d duplicates%s" % (len(b), retx, dups,
      "".join("\n# " + x for x in bad[:5])))
sys.exit(1 if bad else 0)
PYEOF
}

ntop=$(echo $TOPOS | wc -w)
ktap_plan $((ntop * 2 + 3))
for topo in $TOPOS; do
	for dt in int32 float32; do
		name="$topo $dt: xdp equals udp bit for bit"
		if ! run "$topo" "$tmp/udp" udp $dt -; then
			ktap_fail "$name" "udp run failed: $(tail -n 3 "$tmp/udp.err")"
			continue
		fi
		if ! run "$topo" "$tmp/xdp" xdp $dt ""; then
			ktap_fail "$name" "xdp run failed: $(tail -n 3 "$tmp/xdp.err")"
			continue
		fi
		if compare "$tmp/udp" "$tmp/xdp" xdp; then
			ktap_ok "$name"
		else
			ktap_fail "$name"
		fi
	done
done

# Faults: the XDP program drops 1% / 10% of Rina packets, librina
# duplicates 1%; results stay bit-identical to the clean UDP run.
run 1x3 "$tmp/udp" udp float32 -
for ppm in 10000 100000; do
	name="1x3 float32: xdp with drop-ppm $ppm equals udp"
	if run 1x3 "$tmp/xdp" xdp float32 "drop-ppm $ppm" &&
	   compare "$tmp/udp" "$tmp/xdp" xdp retx; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "$(tail -n 3 "$tmp/xdp.err")"
	fi
done
name="1x3 float32: xdp with 1% librina duplicates equals udp"
if run 1x3 "$tmp/xdp" xdp float32 "" RINA_FAULT_DUP_PPM=10000 &&
   compare "$tmp/udp" "$tmp/xdp" xdp dups; then
	ktap_ok "$name"
else
	ktap_fail "$name" "$(tail -n 3 "$tmp/xdp.err")"
fi
ktap_finish
