# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Shared by the ToR tests (test_tor.sh: rina-tor; test_tor_bmv2.sh: the P4
# program on bmv2), sourced after selftests/lib.sh. They set $run, $bench,
# $transport, $tmp, and:
#   TOR_RUN_OPTS    extra rina-run options (e.g. --tor bmv2)
#   TOR_BENCH_ITERS rina-bench's iteration options (e.g. -n 2 -w 1)
# and define check NAME ARGS... (their own verdict on a run's output).

# bench NAME TOPO INA [ENV=VAL...] [--opt RINA-RUN-OPT]... -- ARGS
bench()
{
	local name=$1 topo=$2 ina=$3 envs=() opts=()
	shift 3
	while [ "$1" != "--" ]; do
		if [ "$1" = --opt ]; then
			opts+=("$2")
			shift 2
			continue
		fi
		envs+=("$1")
		shift
	done
	shift
	mkdir -p "$tmp/$name.tor"
	env "${envs[@]}" "$run" --topo "$topo" --ina "$ina" --timeout 150 \
		"${TOR_RUN_OPTS[@]}" --tor-stats "$tmp/$name.tor" "${opts[@]}" \
		-- "$bench" --transport "$transport" --json -c 1 \
		"${TOR_BENCH_ITERS[@]}" "$@" >"$tmp/$name.out" 2>&1
}

# report NAME RINA-RUN-STATUS MESSAGE CHECK-ARGS...: one KTAP line
report()
{
	local name=$1 rc=$2 msg=$3 chk crc
	chk=$(check "${@:4}")
	crc=$?
	echo "$chk"
	if [ "$rc" -eq 0 ] && [ "$crc" -eq 0 ]; then
		ktap_ok "$msg"
	else
		grep -v '^\[rank .*\] {' "$tmp/$name.out" | tail -5 |
			sed 's/^/# /'
		ktap_fail "$msg" "rina-run $rc"
	fi
}
