#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The TNA (Tofino 1) program, p4/tna/, compiles with the open Tofino
# compiler (p4c --target tofino --arch tna, p4/build.mk's rule) without an
# error, with no warning beyond the explained ones, and its resource
# report (p4/tna/resources.py over pipe/logs) shows that it fits and does
# what Documentation/tofino.md claims: at most 12 stages each way,
# RINA_TNA_ELEMS adders (elements per pass), the slot registers, at most
# 4 stateful ALUs a stage. The budgets can be lowered from the
# environment (TNA_MAX_STAGES, TNA_ELEMS, TNA_MAX_SALUS) to see the test
# fail. The compile is make tofino's (build/p4/tna and its p4c.log, 6-9
# minutes here, redone only when a source changed), so a make check that
# built the tree compiles the program once; TNA_OUT=DIR (with
# TNA_LOG=FILE, the compiler's output) asserts on another compile
# instead. Prints KTAP; skips (exit 4) without the compiler
# ($P4C_TOFINO, the p4c beside p4c-barefoot on PATH,
# /opt/p4tools-tofino/bin/p4c).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"

max_stages=${TNA_MAX_STAGES:-12}
want_elems=${TNA_ELEMS:-$(sed -n 's/^#define RINA_TNA_ELEMS[[:space:]]*\([0-9]*\).*/\1/p' \
	"$top/p4/tna/config.p4")}
max_salus=${TNA_MAX_SALUS:-48}
# what p4c-barefoot says about any TNA program of this shape (the
# parsers' out parameters are filled by extracts and by the controls;
# the minimum parse depth padding loop is the compiler's own)
explained='out parameter .(meta|emeta). may be uninitialized|min_parse_depth_accept_loop will be unrolled'

p4c=${P4C_TOFINO:-}
if [ -z "$p4c" ]; then
	d=$(command -v p4c-barefoot 2>/dev/null) && [ -x "${d%/*}/p4c" ] &&
		p4c=${d%/*}/p4c
fi
[ -z "$p4c" ] && [ -x /opt/p4tools-tofino/bin/p4c ] &&
	p4c=/opt/p4tools-tofino/bin/p4c

names=("compiles for Tofino 1" "no unexplained warning"
       "ingress fits in $max_stages stages" "egress fits in $max_stages stages"
       "$want_elems adders (elements per pass)" "slot registers"
       "at most 4 stateful ALUs a stage, $max_salus in all"
       "resource report")
ktap_plan ${#names[@]}
if [ -z "$p4c" ] || [ ! -x "$p4c" ]; then
	for t in "${names[@]}"; do
		ktap_skip "$t" "no Tofino P4 compiler: set P4C_TOFINO or PATH, or run ../shared/p4tools-tofino/install.sh"
	done
	ktap_finish
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
made=0
if [ -z "${TNA_OUT:-}" ]; then
	# p4/build.mk's rule, up to date or compiled now
	TNA_OUT=$top/build/p4/tna
	echo "# make $TNA_OUT/p4c.log ($p4c --target tofino --arch tna)"
	if ! make -s -C "$top" P4C_TOFINO="$p4c" "$TNA_OUT/p4c.log" \
			>"$out/make.log" 2>&1; then
		sed 's/^/# /' "$out/make.log" | tail -5
		made=1
		mkdir -p "$TNA_OUT"
	fi
fi
ln -s "$(cd "$TNA_OUT" && pwd)" "$out/o"
log=${TNA_LOG:-$TNA_OUT/p4c.log}
rc=$(cat "$TNA_OUT/p4c.rc" 2>/dev/null || echo 0)
[ "$made" = 0 ] || rc=1
echo "# assertions on $TNA_OUT ($log)"
if [ "$rc" -eq 0 ] && [ -s "$out/o/pipe/tofino.bin" ]; then
	ktap_ok "${names[0]}"
else
	grep -E 'error' "$log" | head -10 | sed 's/^/# /'
	ktap_fail "${names[0]}" "exit $rc, see the errors above"
fi

warn=$(grep -E '[Ww]arning' "$log" | grep -vE '^[0-9]+ errors?, ' |
	grep -vE "$explained")
if [ -z "$warn" ]; then
	ktap_ok "${names[1]}"
else
	echo "$warn" | head -10 | sed 's/^/# /'
	ktap_fail "${names[1]}"
fi

json=$out/report.json
if ! python3 "$top/p4/tna/resources.py" --json "$out/o" >"$json" 2>"$out/err"; then
	sed 's/^/# /' "$out/err" | tail -3
	for t in "${names[@]:2}"; do
		ktap_fail "$t" "no resource report (pipe/logs)"
	done
	ktap_finish
fi
get() { python3 -c "import json,sys; r=json.load(open('$json')); print($1)"; }

for g in ingress egress; do
	n=$(get "r['stages']['$g']")
	if [ "$n" != None ] && [ "$n" -le "$max_stages" ]; then
		ktap_ok "$g fits in $max_stages stages"
		echo "# $g: $n stages"
	else
		ktap_fail "$g fits in $max_stages stages" "$g takes $n stages"
	fi
done

n=$(get "r['adders']")
if [ "$n" = "$want_elems" ]; then
	ktap_ok "${names[4]}"
else
	ktap_fail "${names[4]}" "$n adders, want $want_elems"
fi

missing=""
for reg in slot_tag.slot_age slot_tag.slot_tag slot_tag.slot_bits \
	   slot_meta.slot_exp slot_meta.slot_ncontrib slot_meta.slot_state; do
	get "any(x.endswith('$reg') for x in r['registers'])" | grep -q True ||
		missing="$missing $reg"
done
if [ -z "$missing" ]; then
	ktap_ok "${names[5]}"
else
	ktap_fail "${names[5]}" "not placed:$missing"
fi

most=$(get "max(s['salus'] for s in r['per_stage'])")
all=$(get "r['salus']")
echo "# stateful ALUs: $all, at most $most in a stage"
if [ "$most" -le 4 ] && [ "$all" -le "$max_salus" ]; then
	ktap_ok "${names[6]}"
else
	ktap_fail "${names[6]}" "$all in all, $most in one stage"
fi

if python3 "$top/p4/tna/resources.py" "$out/o" >"$out/report.txt"; then
	sed -n '1,4p' "$out/report.txt" | sed 's/^/# /'
	ktap_ok "${names[7]}"
else
	ktap_fail "${names[7]}"
fi
ktap_finish
