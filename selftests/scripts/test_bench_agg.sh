#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# scripts/bench_agg.py (the aggregation behind make bench) on canned rows:
# prefix stripping and tagging, slowest-rank time per run, busbw with the
# run's rank count, median/min/max over repetitions, paired rina/MPI busbw
# ratios, wrong counts, malformed rows ignored; shaped runs (--rate):
# efficiency, wire and retransmitted bytes per rank, ratio to mpi-ring,
# and the PNG plots.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
AGG=$top/scripts/bench_agg.py
SAMPLE=$top/selftests/scripts/bench_sample.jsonl
tmp=$(mktemp -d /tmp/test_bench_agg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

command -v python3 >/dev/null || {
	ktap_plan 1; ktap_skip bench_agg "no python3"; exit 4
}

ktap_plan 10

# 1: --tag keeps only the JSON rows of a rina-run log and tags them
cat >"$tmp/log" <<'EOF'
[rank 0] # rina-bench text line
[rank 12] {"rank":12,"size":4,"time_us":1.5}
[mpirun] {"rank":0,"size":8,"time_us":2}
[tor 0] {"rank":9,"size":8,"time_us":2}
[rank 1] {broken
[rank 2] {"rank":2}
EOF
python3 "$AGG" --tag 2x2 mpi-ring 3 <"$tmp/log" >"$tmp/tagged"
cat >"$tmp/tagged.want" <<'EOF'
{"rank": 12, "rep": 3, "size": 4, "time_us": 1.5, "topo": "2x2", "variant": "mpi-ring"}
{"rank": 0, "rep": 3, "size": 8, "time_us": 2, "topo": "2x2", "variant": "mpi-ring"}
EOF
ktap_check "tag_strips_prefixes_and_tags_rows" diff -u "$tmp/tagged.want" "$tmp/tagged"

python3 "$AGG" --json "$SAMPLE" >"$tmp/sum" 2>"$tmp/err"
rc=$?

# expect VARIANT TOPO SIZE PYTHON-EXPR: the expression holds for the row s
expect()
{
	python3 - "$tmp/sum" "$@" <<'EOF'
import json, sys
f, variant, topo, size, expr = sys.argv[1:6]
rows = [json.loads(l) for l in open(f)]
s = [r for r in rows if r["variant"] == variant and r["topo"] == topo
     and r["size"] == int(size)]
close = lambda a, b: abs(a - b) < 1e-9
ok = len(s) == 1 and eval(expr, {"s": s[0], "close": close})
if not ok:
    print("# expected %s for %s: %s" % (expr, variant, s))
sys.exit(0 if ok else 1)
EOF
}

# 2: a run's time is its slowest rank's; median/min/max over repetitions
ktap_check "time_slowest_rank_median_min_max" expect rina-udp 2x2 1048576 \
	's["time_us"] == {"median": 2000.0, "min": 1000.0, "max": 4000.0, "n": 3}'

# 3: busbw = size/time * 2(n-1)/n, n from nranks even if a rank row is missing
ktap_check "busbw_uses_run_rank_count" expect mpi-ring 2x2 1048576 \
	'close(s["busbw_GBps"]["median"], 1.572864) and close(s["busbw_GBps"]["min"], 0.786432) and s["nranks"] == 4'

# 4: ratio rina/MPI paired by repetition: reps give 0.5, 1.0, 0.5
ktap_check "ratio_paired_per_repetition" expect mpi-ring 2x2 1048576 \
	'close(s["ratio"]["rina-udp"]["median"], 0.5) and close(s["ratio"]["rina-udp"]["max"], 1.0) and s["wrong"] == 2'

# 5: a topology without rina runs has no ratio; 2 ranks: busbw = algbw
ktap_check "no_rina_no_ratio" expect mpi-default 1x2 2097152 \
	'"ratio" not in s and close(s["busbw_GBps"]["max"], 2097152 / 2000 / 1e3)'

# 6: malformed rows are reported and ignored, three summaries remain
if [ $rc -eq 0 ] && [ "$(grep -c . "$tmp/sum")" -eq 3 ] &&
   [ "$(grep -c 'ignoring malformed row' "$tmp/err")" -eq 2 ]; then
	ktap_ok "malformed_rows_ignored"
else
	ktap_fail "malformed_rows_ignored" "rc=$rc"
fi

# 7: the text table names the ratio column and flags wrong results
python3 "$AGG" "$SAMPLE" >"$tmp/table" 2>/dev/null
if grep -q 'busbw ratio rina-udp/this' "$tmp/table" &&
   grep -qE '^ +1M +mpi-ring +3 .*0\.50 \[0\.50\.\.1\.00\] +WRONG 2$' "$tmp/table" &&
   grep -qE '^ +2M +mpi-default .*n/a \(no rina runs\)$' "$tmp/table"; then
	ktap_ok "text_table"
else
	sed 's/^/#   /' "$tmp/table"
	ktap_fail "text_table"
fi

# 8: rina rows report bytes on the wire per rank against the ring volume
if grep -qE '^ +1M +rina-udp +3 .* wire tx/size 1\.53 \(ring 1\.50\)$' "$tmp/table" &&
   expect rina-udp 2x2 1048576 'close(s["tx_per_size"]["median"], 1600000 / 1048576)'; then
	ktap_ok "wire_bytes_vs_ring_volume"
else
	ktap_fail "wire_bytes_vs_ring_volume"
fi

# 9: shaped: efficiency = largest wire bytes at the rate over the slowest
# rank's time; retx and wire bytes the largest rank's; ratio to mpi-ring
# paired by repetition (rep 0: 0.5 / 0.25 = 2, rep 1: 0.5 / 0.5 = 1)
cat >"$tmp/shaped" <<'EOF'
{"topo":"2x2","variant":"rina-udp","rep":0,"rank":0,"nranks":4,"size":1000000,"time_us":500000,"wire_tx_bytes":1500000,"retx_bytes":100,"cpu_util":0.1,"wrong":0}
{"topo":"2x2","variant":"rina-udp","rep":0,"rank":1,"nranks":4,"size":1000000,"time_us":400000,"wire_tx_bytes":1000000,"retx_bytes":300,"cpu_util":0.2,"wrong":0}
{"topo":"2x2","variant":"rina-udp","rep":1,"rank":0,"nranks":4,"size":1000000,"time_us":1000000,"wire_tx_bytes":1500000,"retx_bytes":0,"cpu_util":0.1,"wrong":0}
{"topo":"2x2","variant":"mpi-ring","rep":0,"rank":0,"nranks":4,"size":1000000,"time_us":1000000,"wire_tx_bytes":1500000,"retx_bytes":0,"wrong":0}
{"topo":"2x2","variant":"mpi-ring","rep":1,"rank":0,"nranks":4,"size":1000000,"time_us":1000000,"wire_tx_bytes":1500000,"retx_bytes":0,"wrong":0}
EOF
python3 "$AGG" --rate 25mbit --json "$tmp/shaped" >"$tmp/sum"
ktap_check "shaped_efficiency_bytes_and_ring_ratio" expect rina-udp 2x2 1000000 \
	'close(s["efficiency"]["max"], 1500000 * 8 / 25e6 / 0.5) and close(s["efficiency"]["min"], 1500000 * 8 / 25e6 / 1.0) and close(s["retx_bytes"]["max"], 300) and close(s["wire_tx_bytes"]["median"], 1500000) and close(s["vs_ring"]["max"], 2.0) and close(s["vs_ring"]["min"], 1.0) and close(s["cpu_util_max"], 0.2)'

# 10: the plots of a shaped summary (Debian's matplotlib)
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	sed 's/"variant":"rina-udp"/"variant":"rina-ina-x1"/' "$tmp/shaped" |
		grep ina >"$tmp/shaped.ina"
	cat "$tmp/shaped.ina" >>"$tmp/shaped"
	python3 "$AGG" --rate 25mbit --json "$tmp/shaped" >"$tmp/sum"
	/usr/bin/python3 "$top/scripts/bench_plot.py" "$tmp/sum" "$tmp" 25mbit \
		>/dev/null
	if [ "$(head -c 8 "$tmp/busbw_vs_size.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
	   [ "$(head -c 8 "$tmp/busbw_vs_ina_racks.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; then
		ktap_ok "shaped_plots_png"
	else
		ktap_fail "shaped_plots_png" "no PNG written"
	fi
else
	ktap_skip "shaped_plots_png" "no python3-matplotlib"
fi

ktap_finish
