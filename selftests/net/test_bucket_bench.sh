#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# python/bench/bucket_bench.py runs as the benchmark's figures need: the
# bucket sizes it replays are DDP's own (more than one bucket, adding up
# to the model's parameters), and every shape has a row per backend with
# the bytes the rank's devices sent. A smoke test on unshaped links; the
# figures themselves are the benchmark's, not checked here.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
RUN=$top/build/bin/rina-run
[ -x "$RUN" ] || RUN=$top/tools/rina-run/rina-run
tmp=$(mktemp -d /tmp/test_bucket_bench.XXXXXX)
defer rm -rf "$tmp"

ktap_plan 2
if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null ||
   [ ! -e "$top/build/python/rina_c10d.stamp" ]; then
	ktap_skip "DDP's buckets" "needs python3-torch and the rina_c10d extension"
	ktap_skip "a row per shape and backend" "needs python3-torch and the rina_c10d extension"
	ktap_finish
	exit
fi

MASTER_PORT=29613 "$RUN" --topo 2x2 --timeout 120 -- /usr/bin/python3 \
	"$top/python/bench/bucket_bench.py" --params 400k --reps 1 \
	--link-rate 25mbit >"$tmp/out" 2>&1
rc=$?
# "# buckets (elements): [a, b] of N parameters, 4 ranks"
read -r nb sum params < <(sed -n \
	's/^\[rank 0\] # buckets (elements): \[\(.*\)\] of \([0-9]*\) parameters, 4 ranks$/\1 \2/p' \
	"$tmp/out" | awk '{ n = split($0, f, /[, ]+/); s = 0
		for (i = 1; i < n; i++) s += f[i]; print n - 1, s, f[n] }')
[ $rc -eq 0 ] && [ "${nb:-0}" -ge 2 ] && [ "$sum" = "$params" ] &&
	ktap_ok "DDP's buckets: $nb, adding up to the model's $params parameters" ||
	ktap_fail "DDP's buckets" "rc $rc, ${nb:-no} buckets of ${sum:-?} elements, ${params:-?} parameters: $(tail -c 600 "$tmp/out")"

rows=0
for shape in one buckets tiny; do
	for be in rina gloo; do
		grep -Eq "^\[rank 0\] $shape +$be +[0-9.]+ ms \[[0-9.]+\.\.[0-9.]+\] wire [1-9][0-9]* B/rank line-rate [0-9]+ ms" \
			"$tmp/out" && rows=$((rows + 1))
	done
done
[ $rows -eq 6 ] && ktap_ok "a row per shape and backend, with the bytes sent" ||
	ktap_fail "a row per shape and backend" "$rows of 6: $(grep '^\[rank 0\]' "$tmp/out" | head -c 800)"

ktap_finish
