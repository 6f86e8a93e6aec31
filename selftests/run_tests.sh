#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Run every test program listed in selftests/TESTS, kselftest style.
#
# Each program prints KTAP (TAP version 13, "ok N name", "not ok N name",
# "# SKIP"); its lines are echoed indented under a top-level result per
# program, which fails if the program ran other than its plan's count.
# The closing line counts the individual test cases:
#   N passed, N failed, N skipped
# Usage: run_tests.sh [-b BUILD] [-l LIST] [FILTER...]
#   (FILTER matches test names)
# -b BUILD: the tests run against another build directory (make
#   BUILD=... SANITIZE=...: scripts/san_suite.sh): from a view of the
#   tree, BUILD/tree, whose every entry links to the tree's but build/,
#   which links to BUILD, so that every test and script that names
#   $top/build finds it. With SAN_LOG_DIR set (ASAN_OPTIONS and the like
#   log_path under it), a test after which a report file appears there
#   fails and the report is printed: a sanitizer report fails its test
#   even in a process whose exit status nobody reads.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = -b ]; then
	b=$(realpath -m "$2")
	shift 2
	mkdir -p "$b/tree"
	for e in "$top"/* "$top"/.ci; do
		case "${e##*/}" in build|build-*) continue ;; esac
		ln -sfn "$e" "$b/tree/${e##*/}"
	done
	ln -sfn "$b" "$b/tree/build"
	exec "$b/tree/selftests/run_tests.sh" "$@"
fi
list=$top/selftests/TESTS
if [ "${1:-}" = -l ]; then list=$2; shift 2; fi
filters=("$@")

pass=0 fail=0 skip=0 n=0
declare -a names cmds tmos
while read -r name tmo cmd; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ ${#filters[@]} -gt 0 ]; then
		hit=0
		for f in "${filters[@]}"; do
			case "$name" in *"$f"*) hit=1 ;; esac
		done
		[ $hit -eq 1 ] || continue
	fi
	names+=("$name"); tmos+=("$tmo"); cmds+=("$cmd")
done < "$list"

echo "TAP version 13"
echo "1..${#names[@]}"
for i in "${!names[@]}"; do
	n=$((n + 1))
	name=${names[$i]}
	out=$(mktemp)
	start=$(date +%s)
	(cd "$top" && timeout --kill-after=10 "${tmos[$i]}" \
		bash -c "${cmds[$i]}") >"$out" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	san=""
	if [ -n "${SAN_LOG_DIR:-}" ]; then
		for r in "$SAN_LOG_DIR"/*; do
			[ -f "$r" ] || continue
			cat "$r" >>"$out"
			mkdir -p "$SAN_LOG_DIR/seen"
			mv "$r" "$SAN_LOG_DIR/seen/$name.${r##*/}"
			san=" (sanitizer report)"
		done
	fi
	sed 's/^/# /' "$out"
	p=$(grep -cE '^[[:space:]]*ok [0-9]+' "$out" | head -1)
	s=$(grep -cE '^[[:space:]]*ok [0-9]+.*# *SKIP' "$out" | head -1)
	f=$(grep -cE '^[[:space:]]*not ok [0-9]+' "$out" | head -1)
	p=$((p - s))
	# the program's plan: the first "1..N" line (nested ones come later)
	plan=$(grep -m1 -oE '^[[:space:]]*1\.\.[0-9]+' "$out" | sed 's/.*\.\.//')
	why=""
	if [ -n "$san" ]; then
		f=$((f + 1)); why=$san
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		f=$((f + 1)); why=" (timed out after ${tmos[$i]})"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		f=$((f + 1)); why=" (exit status $rc)"
	elif [ $((p + s + f)) -eq 0 ]; then
		if [ "$rc" -eq 4 ]; then s=1; else f=1; why=" (no results)"; fi
	elif [ -n "$plan" ] && [ "$plan" -ne $((p + s + f)) ]; then
		# a program that stops early, or counts its cases wrong
		why=" (planned $plan, ran $((p + s + f)))"; f=$((f + 1))
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		echo "not ok $n $name$why # ${secs}s"
	elif [ "$p" -eq 0 ] && [ "$s" -gt 0 ]; then
		echo "ok $n $name # SKIP ${secs}s"
	else
		echo "ok $n $name # ${secs}s"
	fi
	rm -f "$out"
done
echo "# Totals: pass:$pass fail:$fail skip:$skip"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
