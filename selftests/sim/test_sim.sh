#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-sim: a small scenario of every scheme at 10gbit. Each must finish,
# carry real int32 data to the exact sum on every rank (rina-sim checks
# every element and exits 1 otherwise), and move exactly the payload the
# schedule gives per worker, per rack uplink and into the servers
# (sim_expect.py). Then the checker itself, and bad input. KTAP.
cd "$(dirname "$0")/../.." || exit 1
. selftests/ktap.sh
SIM=${SIM:-build/bin/rina-sim}
EXPECT=selftests/sim/sim_expect.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cases=(
	"rar 2x4 none 1M 256"
	"rar 2x2 none 1M 64"
	"rina 2x4 all 1M 256"
	"rina 2x4 0 1M 256"
	"rina 3x2 0,1 1M 256"
	"rina 4x2 1,3 512K 64"
	"rina 2x2 none 1M 256"
	"har 2x4 none 1M 256"
	"har 4x2 none 512K 64"
	"har 4x1 none 512K 256"
	"ps 2x4 none 1M 256"
	"atp 2x4 0 1M 256"
	"atp 4x4 all 1M 256 --two-level"
	"switchml 1x4 all 1M 256"
)
# Shallow queues (evaluation.md 4: the emulation's 20 ms at 25 Mbit/s,
# here 20 packets): the run must finish within LIMIT simulated seconds
# (rina-sim exits 1 otherwise), exact, with what was sent first exact, and
# its repair must have been RACK's (fast_retransmits) and, for INA
# workers, the probe's: timers alone took 14.9 s (RAR) and did not finish
# in 60 s (all-INA; mixed even at 60 packets).
# scheme topo ina size elems queue limit
lossy=(
	"rar 2x2 none 2M 1024 20 3"
	"rina 2x2 all 2M 256 20 4"
	"rina 2x2 0 2M 256 60 10"
)
ktap_plan $(( ${#cases[@]} * 2 + ${#lossy[@]} + 9 ))
if [ ! -x "$SIM" ]; then
	for i in $(seq $(( ${#cases[@]} * 2 + ${#lossy[@]} + 9 ))); do
		ktap_skip "sim_$i" "build/bin/rina-sim not built (no ns-3: install libns3-dev)"
	done
	ktap_finish
fi

for c in "${cases[@]}"; do
	set -- $c
	name="${1}_${2}_ina_${3//,/_}_$4${6:+_${6#--}}"
	# shellcheck disable=SC2086
	if timeout 60 "$SIM" --topo "$2" --scheme "$1" --ina "$3" --size "$4" \
		--link-rate 10gbit --window "$5" --queue 100000 --json ${6:-} \
		>"$T/out" 2>"$T/err"; then
		ktap_ok "${name}_exact_result"
	else
		ktap_fail "${name}_exact_result" "$(tail -c 300 "$T/err")"
	fi
	if /usr/bin/python3 "$EXPECT" "$5" <"$T/out" >"$T/why" 2>&1; then
		ktap_ok "${name}_bytes"
	else
		ktap_fail "${name}_bytes" "$(head -c 400 "$T/why")"
	fi
done

for c in "${lossy[@]}"; do
	set -- $c
	name="shallow_${1}_${2}_ina_${3//,/_}_q$6_within_$7s"
	if timeout 60 "$SIM" --topo "$2" --scheme "$1" --ina "$3" --size "$4" \
		--elems "$5" --link-rate 25mbit --queue "$6" --limit "$7" \
		--json >"$T/out" 2>"$T/err" &&
		/usr/bin/python3 "$EXPECT" 256 --lossy <"$T/out" >"$T/why" 2>&1 &&
		/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ina = sys.argv[2] != "none"
assert d["drops"] > 0, "no drops: not a shallow-queue case"
assert d["fast_retransmits"] > 0, "no RACK repair"
assert not ina or d["probes"] > 0, "no probe"
' "$T/out" "$3" >"$T/why" 2>&1; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "$(tail -c 300 "$T/why" "$T/err")"
	fi
done

# the result check itself: one wrong element must fail the run
if timeout 30 "$SIM" --topo 2x2 --scheme rina --size 64K --link-rate 10gbit \
	--fault-result >/dev/null 2>"$T/err"; then
	ktap_fail wrong_element_detected "a corrupted element passed"
else
	grep -q "1 wrong elements" "$T/err" && ktap_ok wrong_element_detected ||
		ktap_fail wrong_element_detected "$(cat "$T/err")"
fi

# JSON fields others rely on
if timeout 30 "$SIM" --topo 2x2 --scheme rina --ina 1 --size 64K \
	--link-rate 10gbit --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
need = ["scheme", "topo", "ina", "size", "time_us", "algbw_GBps",
        "busbw_GBps", "bytes", "drops", "retransmissions", "timeouts",
        "fast_retransmits", "probes", "events",
        "events_per_s", "wall_s"]
miss = [n for n in need if n not in d]
assert not miss, miss
assert d["topo"] == "2x2" and d["ina"] == "1" and d["size"] == 65536
assert set(d["bytes"]) >= {"host_up", "host_down", "rack_up", "rack_down"}
'; then
	ktap_ok json_fields
else
	ktap_fail json_fields
fi

# a run cut off by --limit: exit 1, no completion time (null, not a
# negative number a sweep would take for one), the ranks that finished
"$SIM" --topo 2x2 --scheme rar --size 2M --link-rate 25mbit --limit 0.1 \
	--json >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "0 of 4 ranks finished" "$T/err" &&
	/usr/bin/python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert d["time_us"] is None and d["busbw_GBps"] is None, d["time_us"]
assert d["done"] == 0 and d["ranks"] == 4
' "$T/out"; then
	ktap_ok unfinished_run_has_no_time
else
	ktap_fail unfinished_run_has_no_time "rc $rc: $(tail -c 300 "$T/err")"
fi

# bad input: a clear error, exit 2, no run
bad=0
for args in "--topo 0x3" "--topo 2x2 --scheme foo" "--topo 2x2 --size 3" \
	"--topo 2x2 --link-rate 10furlongs" "--topo 2x2 --ina 7" \
	"--topo 2x40" "--topo 2x2 --scheme switchml"; do
	# shellcheck disable=SC2086
	"$SIM" $args --size "${args##*--size }" >/dev/null 2>"$T/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && grep -q "rina-sim:" "$T/err" || {
		echo "# '$args': rc $rc: $(cat "$T/err")"; bad=1; }
done 2>/dev/null
[ $bad -eq 0 ] && ktap_ok bad_input_rejected || ktap_fail bad_input_rejected

# --cc-init: the latency-bound validation's initial window. A cold start
# at 16 leaves an all-INA ring's workers at their floor, 2 (P + 1) in a
# ring of INA members only (core/cc.h, rina_cc_ina_window_only(): 619 us;
# at P + 1, the simulator's own worker's, they went in lockstep, 2756
# us); at W it is a few hops (365 us). Simulated time is deterministic:
# the direction and size must hold.
if timeout 30 "$SIM" --topo 2x4 --scheme rina --ina all --size 64K \
	--link-rate 10gbit --delay 50 --queue 10000 --json >"$T/cold" \
	2>"$T/err" &&
	timeout 30 "$SIM" --topo 2x4 --scheme rina --ina all --size 64K \
	--link-rate 10gbit --delay 50 --queue 10000 --cc-init 256 --json \
	>"$T/warm" 2>>"$T/err" &&
	/usr/bin/python3 -c '
import json, sys
c, w = (json.load(open(f)) for f in sys.argv[1:3])
assert c["cc_init"] == 16 and w["cc_init"] == 256, (c["cc_init"],
                                                    w["cc_init"])
assert w["time_us"] * 1.5 < c["time_us"], (w["time_us"], c["time_us"])
assert w["drops"] == 0 and w["verified"], "not a clean run"
' "$T/cold" "$T/warm" >"$T/why" 2>&1; then
	ktap_ok cc_init_starts_window_at_w
else
	ktap_fail cc_init_starts_window_at_w "$(tail -c 300 "$T/why" "$T/err")"
fi

# --cc-init: the job file's range, whole numbers only; above W it is W
bad=0
for v in 0 -1 32769 16x ""; do
	"$SIM" --topo 2x2 --size 64K --link-rate 10gbit --cc-init "$v" \
		>/dev/null 2>"$T/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && grep -q "rina-sim: bad --cc-init" "$T/err" || {
		echo "# --cc-init '$v': rc $rc: $(cat "$T/err")"; bad=1; }
done
"$SIM" --topo 2x2 --size 64K --link-rate 10gbit --window 64 \
	--cc-init 32768 --json 2>"$T/err" | /usr/bin/python3 -c '
import json, sys
assert json.load(sys.stdin)["cc_init"] == 64
' || { echo "# --cc-init 32768 --window 64: $(cat "$T/err")"; bad=1; }
[ $bad -eq 0 ] && ktap_ok cc_init_checked || ktap_fail cc_init_checked

# The plain members run librina's engine (core/ring_member.c): next to
# an INA rack a member keeps at most the job's txq_limit queued on its
# host and holds the rest (core/txq.h), which the simulator's own member
# never did; a plain ring has no such member and never holds.
if timeout 60 "$SIM" --topo 2x2 --scheme rina --ina 0 --size 1M \
	--link-rate 25mbit --json >"$T/mixed" 2>"$T/err" &&
	timeout 60 "$SIM" --topo 2x2 --scheme rina --ina none --size 1M \
	--link-rate 25mbit --json >"$T/plain" 2>>"$T/err" &&
	/usr/bin/python3 -c '
import json, sys
x, p = (json.load(open(f)) for f in sys.argv[1:3])
assert x["txq_holds"] > 0, "mixed: no hold"
assert p["txq_holds"] == 0, "plain: %d holds" % p["txq_holds"]
assert x["verified"] and p["verified"]
' "$T/mixed" "$T/plain" >"$T/why" 2>&1; then
	ktap_ok members_next_to_ina_rack_bound_host_queue
else
	ktap_fail members_next_to_ina_rack_bound_host_queue \
		"$(tail -c 300 "$T/why" "$T/err")"
fi

# The INA workers run librina's engine (core/ina_worker.c): in a ring of
# INA members only a worker keeps at most the job's txq_limit queued on
# its host (core/txq.h; the simulator's own worker never held), and on a
# lossless ring its contributions wait for their slots without a timer
# firing: a deadline restarts on every delivery (core/ina_worker_tx.c,
# due()); the simulator's own worker timed them from the send alone, and
# its timers fired 712 times on this run.
if timeout 60 "$SIM" --topo 2x2 --scheme rina --ina all --size 1M \
	--link-rate 25mbit --json >"$T/out" 2>"$T/err" &&
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] and d["drops"] == 0, "not a clean run"
assert d["txq_holds"] > 0, "no hold"
assert d["timeouts"] == 0 and d["probes"] == 0, (d["timeouts"], d["probes"])
' "$T/out" >"$T/why" 2>&1; then
	ktap_ok ina_workers_bound_host_queue_and_wait_for_slots
else
	ktap_fail ina_workers_bound_host_queue_and_wait_for_slots \
		"$(tail -c 300 "$T/why" "$T/err")"
fi

# the scale knobs: a bigger run without data, bounded
if timeout 60 "$SIM" --topo 4x8 --scheme rina --ina 0,2 --size 4M \
	--link-rate 100gbit --no-verify --json >"$T/out" 2>"$T/err" &&
	/usr/bin/python3 "$EXPECT" 256 <"$T/out" >"$T/why" 2>&1; then
	ktap_ok no_verify_4x8_bytes
else
	ktap_fail no_verify_4x8_bytes "$(head -c 300 "$T/why" "$T/err")"
fi
ktap_finish
