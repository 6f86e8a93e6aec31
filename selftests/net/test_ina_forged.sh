#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Forged NACKs of far rounds at a software agent: while a 2x2 job with
# rack 0 INA (no ToR: the agent aggregates) runs, a host of the other
# rack sends 2000 NACKs with rank 1's address and port spoofed, rounds
# far outside the agent's window (inject.py farnack, 1.5 s). The job
# finishes, every result is exact, and the agent counts each of them
# under agent_far_round (before, the first one purged its state and
# every later contribution counted stale: the job timed out).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip awk

PY=/usr/bin/python3
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
INJECT=$top/selftests/net/inject.py
NFORGED=2000
tmp=$(mktemp -d /tmp/test_ina_forged.XXXXXX)
defer rm -rf "$tmp"
ktap_plan 3

# rank 2 (rack 1) injects from 0.3 s on; 1000 calls of 256 KiB last
# several seconds (3.7 ms each unloaded), longer than the injection.
# Unsigned: with a job secret the untagged NACKs would be dropped at the
# door (net_forged_data); this is the agent's own defence behind it.
"$RUN" --tor off --topo 2x2 --ina 0 --timeout 120 --no-secret \
	--job-opt 'timeout_ms 10000' -- sh -c '
	if [ "$RINA_RANK" = 2 ]; then
		src=$(awk "\$1 == \"rank\" && \$2 == 1 { print \$3 }" "$RINA_JOB")
		agent=$(awk "\$1 == \"rank\" && \$2 == 0 { sub(/:.*/, \"\", \$3); print \$3 }" "$RINA_JOB")
		( sleep 0.3
		  exec timeout 20 "$1" "$2" farnack "$RINA_JOB" "$3" 1.5 \
			"$src" "$agent:21071" ) &
	fi
	exec "$4" --transport udp --json -d int32 -b 256K -e 256K -n 1000 \
		-w 1 -c 1' sh "$PY" "$INJECT" "$NFORGED" "$BENCH" \
	>"$tmp/out" 2>&1
rc=$?

rows=$(grep -c '"wrong":0,' "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$rows" -eq 4 ]; then
	ktap_ok "2x2 INA job under forged NACKs: finishes, results exact on every rank"
else
	grep -v '^\[rank [0-3]\] {' "$tmp/out" | tail -5 | sed 's/^/# /'
	ktap_fail "2x2 INA job under forged NACKs" "rc $rc, $rows of 4 ranks exact"
fi
if grep -q "inject: sent $NFORGED forged farnack packets" "$tmp/out"; then
	ktap_ok "the injector sent $NFORGED NACKs during the job"
else
	grep 'inject' "$tmp/out" | head -3 | sed 's/^/# /'
	ktap_fail "the injector sent $NFORGED NACKs during the job"
fi
far=$(sed -n 's/.*"role":"ina-agent".*"agent_far_round":\([0-9]*\).*/\1/p' \
	"$tmp/out" | tail -1)
if [ -n "$far" ] && [ "$far" -ge "$NFORGED" ]; then
	ktap_ok "the agent counted them: agent_far_round $far"
else
	ktap_fail "the agent counted them" "agent_far_round ${far:-missing}"
fi
ktap_finish
