#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-sim at data-centre speed (issue 45): with every rack INA, 100 Gbit/s
# host links and congestion control on (the default), the call must take
# at most 10 % longer than with a fixed window (--cc fixed), on a 1:1 and
# a 4:1 fabric, and both runs end with the exact sum on every rank
# (rina-sim checks every element and exits 1 otherwise).
# Simulated time, not wall time: the figures do not depend on the load.
# Before the simulator hosted core's INA worker its own took 625 us with
# congestion control against 411 fixed on 4x4, 4 MiB, 1:1 (1.52x).
# KTAP.
cd "$(dirname "$0")/../.." || exit 1
. selftests/ktap.sh
SIM=${SIM:-build/bin/rina-sim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# topo size uplink-rate (host links 100gbit, 1 us a link, E = 256)
cases=(
	"4x4 4M 400gbit"
	"4x4 4M 100gbit"
)
ktap_plan $(( ${#cases[@]} * 2 ))
if [ ! -x "$SIM" ]; then
	for i in $(seq $(( ${#cases[@]} * 2 ))); do
		ktap_skip "linerate_$i" "build/bin/rina-sim not built (no ns-3: install libns3-dev)"
	done
	ktap_finish
fi

sim()
{
	timeout 120 "$SIM" --topo "$1" --scheme rina --ina all --size "$2" \
		--link-rate 100gbit --uplink-rate "$3" --delay 1 --elems 256 \
		--json "${@:4}"
}

for c in "${cases[@]}"; do
	set -- $c
	name="all_ina_${1}_$2_uplink_$3"
	if sim "$1" "$2" "$3" >"$T/cc" 2>"$T/err" &&
		sim "$1" "$2" "$3" --cc fixed >"$T/fixed" 2>>"$T/err"; then
		ktap_ok "${name}_exact"
	else
		ktap_fail "${name}_exact" "$(tail -c 300 "$T/err")"
		ktap_fail "${name}_cc_within_10pct_of_fixed" "no run"
		continue
	fi
	if /usr/bin/python3 - "$T/cc" "$T/fixed" >"$T/why" 2>&1 <<'EOF'
import json, sys
cc = json.loads(open(sys.argv[1]).read().splitlines()[-1])
fx = json.loads(open(sys.argv[2]).read().splitlines()[-1])
r = cc["time_us"] / fx["time_us"]
print("cc %.1f us, fixed %.1f us: %.3f" % (cc["time_us"], fx["time_us"], r))
sys.exit(0 if r <= 1.10 else 1)
EOF
	then
		ktap_ok "${name}_cc_within_10pct_of_fixed"
	else
		ktap_fail "${name}_cc_within_10pct_of_fixed" "$(cat "$T/why")"
	fi
done
ktap_finish
