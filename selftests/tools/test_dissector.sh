#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Wireshark dissector (tools/wireshark/rina.lua) under tshark:
# crafted packets get the shared validator's verdict (core/wire.h, the same
# reason for every packet, also for 2000 random mutants) and one expert
# field per reason, valid ones none; fields decode as documented; a
# truncated capture never raises a Lua error; the heuristic takes Rina on
# other ports and nothing else. Then captures of real runs (rina-run 1x2
# float32, 2x2 int32 with an INA rack and its rina-tor) decode into
# exactly the packets the schedule of Documentation/protocol.md predicts,
# with rina-bench's --json byte counters, HELLO/BYE, and the ToR control
# exchange (install, reply, remove) decoded.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

lua=${RINA_LUA:-$top/tools/wireshark/rina.lua}
tools=$top/selftests/tools
py=/usr/bin/python3
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_cmd tshark "$py" "${CC:-cc}"

ktap_plan 20

# ts PCAP ARGS...: tshark with the dissector; fails on any stderr line
# (Lua errors, bad fields) but root's warning
ts()
{
	local pcap=$1; shift
	tshark -n -X "lua_script:$lua" -r "$pcap" "$@" 2>"$tmp/ts.err"
	local rc=$?
	grep -v 'Running as user' "$tmp/ts.err" >&2 && return 1
	return $rc
}

# ---- crafted packets ----------------------------------------------------

"$py" "$tools/rina_pcap.py" cases "$tmp/cases.pcap" >"$tmp/cases.txt"
"$py" "$tools/rina_pcap.py" mutants "$tmp/mut.pcap" 2000 >"$tmp/mut.txt"
"$py" "$tools/rina_pcap.py" cuts "$tmp/cuts.pcap"
"$py" "$tools/rina_pcap.py" heur "$tmp/heur.pcap"

# 1: every reason, by its expert field, on exactly the frames it should
reasons="runt bad_version bad_opcode oversize bad_length bad_field bad_dtype"
why=""
for r in $reasons; do
	want=$(awk -v r="$r" '$1 == r { printf "%d ", NR }' "$tmp/cases.txt")
	got=$(ts "$tmp/cases.pcap" -Y "rina.malformed.$r" -T fields \
		-e frame.number | tr '\n' ' ')
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		why="$why $r: frames '$got', want '$want';"
done
if [ -z "$why" ]; then
	ktap_ok "crafted: each validator reason gets its expert info"
else
	ktap_fail "crafted: each validator reason gets its expert info" "$why"
fi

# 2: valid packets: no expert info at all, verdict ok
want=$(awk '$1 == "ok" { printf "%d ", NR }' "$tmp/cases.txt")
got=$(ts "$tmp/cases.pcap" -Y 'rina.verdict == "ok" && !_ws.expert' \
	-T fields -e frame.number | tr '\n' ' ')
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ktap_ok "crafted: valid packets have no expert info"
else
	ktap_fail "crafted: valid packets have no expert info" \
		"frames '$got', want '$want'"
fi

# 3: the same verdict as core/wire.h on every crafted and mutated packet
verdict_bin=$tmp/wire_verdict
if ! ${CC:-cc} -O1 -Wall -Wextra -Werror -I"$top/include/uapi" \
	-I"$top/core" -o "$verdict_bin" "$tools/wire_verdict.c"; then
	ktap_fail "crafted: dissector and core/wire.h agree" "cc failed"
else
	bad=0
	for set in cases mut; do
		cut -d' ' -f2 "$tmp/$set.txt" | "$verdict_bin" \
			>"$tmp/$set.c"
		ts "$tmp/$set.pcap" -T fields -e rina.verdict >"$tmp/$set.lua"
		if [ "$set" = cases ] &&
		   ! cut -d' ' -f1 "$tmp/cases.txt" | cmp -s - "$tmp/cases.c"
		then
			echo "# crafted expectations differ from core/wire.h"
			bad=1
		fi
		# frames the dissector is not called for (empty UDP) show
		# an empty verdict: the validator's runt
		sed -i 's/^$/runt/' "$tmp/$set.lua"
		if ! cmp -s "$tmp/$set.c" "$tmp/$set.lua"; then
			diff "$tmp/$set.c" "$tmp/$set.lua" | head -5 |
				sed 's/^/# /'
			bad=1
		fi
	done
	n=$(wc -l <"$tmp/mut.c")
	echo "# $n mutants, verdicts:" $(sort "$tmp/mut.c" | uniq -c |
		awk '{ printf "%s %d, ", $2, $1 }')
	if [ $bad -eq 0 ] && [ "$n" -eq 2000 ]; then
		ktap_ok "crafted: dissector and core/wire.h agree"
	else
		ktap_fail "crafted: dissector and core/wire.h agree"
	fi
fi

# 4: fields as documented (frame numbers: rina_pcap.py cases order)
ts "$tmp/cases.pcap" -T json -e frame.number -e rina.flags.from_switch \
	-e rina.flags.ag_phase -e rina.flags.retx -e rina.src_rack \
	-e rina.data.value -e rina.dtype_op.dtype -e rina.dtype_op.op \
	-e rina.ack.seq -e rina.nack.seq -e rina.ctrl.type \
	-e rina.ctrl.status -e rina.ctrl.result -e rina.ctrl.hash \
	-e rina.exp -e rina.n_elem -e rina.ctrl.stamp -e rina.ctrl.mac \
	-e rina.ctrl.signed -e rina.ctrl.stamp_time -e rina.ctrl.session \
	>"$tmp/f.json"
ts "$tmp/cases.pcap" -o rina.words:1024 -Y 'frame.number == 4' -T fields \
	-e rina.data.value >"$tmp/words.txt"
if "$py" - "$tmp/f.json" "$tmp/words.txt" <<'EOF'
import json, sys
fr = {}
for p in json.load(open(sys.argv[1])):
	l = p["_source"]["layers"]
	fr[int(l["frame.number"][0])] = l
bad = []
def want(n, k, v):
	if fr[n].get(k) != v:
		bad.append("frame %d %s = %s, want %s" %
			   (n, k, fr[n].get(k), v))
want(3, "rina.flags.from_switch", ["1"])
want(3, "rina.flags.ag_phase", ["1"])
want(3, "rina.flags.retx", ["0"])
want(3, "rina.src_rack", ["2"])
want(3, "rina.data.value", ["2147483647", "-2147483648"])
want(3, "rina.dtype_op.dtype", ["1"])
want(3, "rina.dtype_op.op", ["1"])
want(2, "rina.exp", ["3"])
want(1, "rina.data.value", ["1", "-2", "3"])
want(4, "rina.n_elem", ["1024"])
want(4, "rina.data.value", ["5"] * 16)	# first 16 words by default
want(5, "rina.ack.seq", ["10", "11", "12"])
want(7, "rina.nack.seq", ["40", "41"])
want(8, "rina.ctrl.type", ["1"])
want(8, "rina.ctrl.hash", ["0x0123456789abcdef"])
want(8, "rina.ctrl.session", ["0x0123456789abcdef"])
want(9, "rina.ctrl.session", ["0x0000000000000000"])
want(10, "rina.ctrl.result", ["5"])
want(13, "rina.ctrl.type", ["16"])
want(14, "rina.ctrl.type", ["17"])
want(15, "rina.ctrl.status", ["0"])
want(16, "rina.ctrl.status", ["3"])
want(13, "rina.ctrl.signed", ["0"])
want(13, "rina.ctrl.stamp", None)
want(44, "rina.ctrl.type", ["16"])
want(44, "rina.n_elem", ["8"])
want(44, "rina.ctrl.signed", ["1"])
want(44, "rina.ctrl.stamp", ["1764620000123456"])
want(44, "rina.ctrl.mac", ["0011223344556677"])
want(45, "rina.ctrl.status", ["0"])
want(45, "rina.ctrl.mac", ["0011223344556677"])
st = fr[44].get("rina.ctrl.stamp_time", [""])[0]
if "2025" not in st or "20:13:20.123456" not in st:
	bad.append("frame 44 rina.ctrl.stamp_time = %s" % st)
if open(sys.argv[2]).read().strip() != ",".join(["5"] * 1024):
	bad.append("rina.words:1024 does not show 1024 words")
for b in bad:
	print("# " + b)
sys.exit(1 if bad else 0)
EOF
then
	ktap_ok "crafted: fields decode as documented"
else
	ktap_fail "crafted: fields decode as documented"
fi

# 5: unknown_job, given the job list
got=$(ts "$tmp/cases.pcap" -o 'rina.jobs:7,9' -Y rina.malformed.unknown_job \
	-T fields -e frame.number | tr '\n' ' ')
want=$(awk '$1 == "ok" && substr($2, 5, 4) != "0007" { printf "%d ", NR }' \
	"$tmp/cases.txt")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ktap_ok "crafted: unknown_job with the known-jobs preference"
else
	ktap_fail "crafted: unknown_job with the known-jobs preference" \
		"frames '$got', want '$want'"
fi

# 6: every snaplen cut of a packet: no Lua error, flagged as truncated
if ts "$tmp/cuts.pcap" -V >"$tmp/cuts.txt" &&
   ! grep -qi "lua error\|dissector bug" "$tmp/cuts.txt"; then
	n=$(ts "$tmp/cuts.pcap" -Y rina.truncated -T fields -e frame.number |
		wc -l)
	total=$(ts "$tmp/cuts.pcap" -Y 'rina && frame.cap_len < frame.len' \
		-T fields -e frame.number | wc -l)
	if [ "$n" -gt 0 ] && [ "$n" -eq "$total" ]; then
		ktap_ok "truncated captures: no Lua error, flagged"
	else
		ktap_fail "truncated captures: no Lua error, flagged" \
			"$n of $total cut frames flagged"
	fi
else
	ktap_fail "truncated captures: no Lua error, flagged" \
		"$(grep -i -m1 'lua error' "$tmp/cuts.txt")"
fi

# 7: the heuristic on other ports: Rina only when the validator accepts it
on=$(ts "$tmp/heur.pcap" -Y rina -T fields -e frame.number | tr '\n' ' ')
off=$(ts "$tmp/heur.pcap" -o rina.heuristic:FALSE -Y rina -T fields \
	-e frame.number | tr '\n' ' ')
if [ "$on" = "1 " ] && [ -z "$off" ]; then
	ktap_ok "heuristic: valid Rina on other UDP ports, nothing else"
else
	ktap_fail "heuristic: valid Rina on other UDP ports, nothing else" \
		"on: '$on' off: '$off'"
fi

# ---- captures of real runs -----------------------------------------------

# capture NAME N DTYPE ARGS...: rina-run ARGS with every rank captured
# running rina-bench -d DTYPE, then check_capture.py's N checks as KTAP
capture()
{
	local name=$1 n=$2 dtype=$3 out=$tmp/$1; shift 3
	local i=0 line
	mkdir -p "$out"
	if ! timeout 150 "$top/build/bin/rina-run" --timeout 120 "$@" -- \
		"$tools/capture_rank.sh" "$out" "$top/build/bin/rina-bench" \
		-b 16K -e 16K -n 2 -w 0 -c 1 -d "$dtype" --json \
		>"$out/bench.out" 2>"$out/err"; then
		tail -5 "$out/err" | sed 's/^/# /'
	fi
	while read -r line; do
		i=$((i + 1))
		case "$line" in
		\#*) echo "$line"; continue ;;
		ok\ *) ktap_ok "$name:${line#ok}" ;;
		*) ktap_fail "$name:${line#fail}" ;;
		esac
	done < <("$py" "$tools/check_capture.py" "$lua" "$out" 2)
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		ktap_fail "$name: check $i" "no result"
	done
}

runs_ok=1
for c in dumpcap ethtool; do
	command -v $c >/dev/null 2>&1 || { runs_ok=0; skip="missing $c"; }
done
[ "$(id -u)" -eq 0 ] || { runs_ok=0; skip="needs root"; }
if [ ! -x "$top/build/bin/rina-bench" ] || [ ! -x "$top/build/bin/rina-tor" ]
then
	runs_ok=0; skip="build first (make)"
fi
if [ $runs_ok -eq 1 ]; then
	capture "1x2 float32" 5 float32 --topo 1x2
	capture "2x2 ina 0 int32" 8 int32 --topo 2x2 --ina 0
else
	for i in $(seq 13); do
		ktap_skip "capture check $i" "$skip"
	done
fi

ktap_finish
