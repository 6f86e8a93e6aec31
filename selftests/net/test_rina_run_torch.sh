#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-run's environment for torch.distributed (MASTER_ADDR, MASTER_PORT,
# RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE) and its per-host names:
# each emulated host is h<R>-<I>, resolving to its own address, while the
# machine's host name and /etc/hosts stay as they were; the tree's python/
# and build/python on PYTHONPATH; --torchrun: one torchrun per emulated
# host, which numbers the processes itself; and with INA racks behind
# their ToRs, two processes on each rack's host: the agent's rank and
# another, whose contributions must reach the ToR too.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip getent

RUN=$top/build/bin/rina-run
[ -x "$RUN" ] || RUN=$top/tools/rina-run/rina-run
tmp=$(mktemp -d /tmp/test_rina_run_torch.XXXXXX)
defer rm -rf "$tmp"

ktap_plan 8
host_before=$(hostname)
hosts_before=$(md5sum </etc/hosts)

# shellcheck disable=SC2016 # expanded by each rank's shell
MASTER_PORT=29611 "$RUN" --topo 2x3 --timeout 60 -- sh -c '
	echo "ENV $RANK $WORLD_SIZE $MASTER_ADDR $MASTER_PORT $LOCAL_RANK" \
		"$LOCAL_WORLD_SIZE $RINA_RANK"
	echo "HOST $(hostname) $(getent hosts "$(hostname)" | \
		awk "{print \$1}") $(ip -4 -o addr show dev eth0 | \
		awk "{print \$4}" | cut -d/ -f1)"
	echo "PEER $(getent hosts h1-2 | awk "{print \$1}")"' \
	>"$tmp/out" 2>&1
rc=$?

ok=1
for r in 0 1 2 3 4 5; do
	grep -qx "\[rank $r\] ENV $r 6 198.18.0.1 29611 0 1 $r" "$tmp/out" ||
		ok=0
done
[ $rc -eq 0 ] && [ $ok -eq 1 ] &&
	ktap_ok "RANK, WORLD_SIZE, MASTER_ADDR (rank 0), MASTER_PORT (caller's), LOCAL_RANK 0, LOCAL_WORLD_SIZE 1" ||
	ktap_fail "torch environment" "rc $rc: $(head -c 600 "$tmp/out")"

ok=1
for r in 0 1; do
	for i in 0 1 2; do
		a="198.18.$r.$((i + 1))"
		grep -qx "\[rank $((r * 3 + i))\] HOST h$r-$i $a $a" \
			"$tmp/out" || ok=0
	done
done
[ $ok -eq 1 ] && ktap_ok "each host is h<R>-<I> and its name resolves to its eth0 address" ||
	ktap_fail "host names" "$(grep HOST "$tmp/out")"

[ "$(grep -c 'PEER 198.18.1.3$' "$tmp/out")" -eq 6 ] &&
	ktap_ok "every host resolves the others' names" ||
	ktap_fail "peer names" "$(grep PEER "$tmp/out")"

[ "$(hostname)" = "$host_before" ] &&
	[ "$(md5sum </etc/hosts)" = "$hosts_before" ] &&
	ktap_ok "the machine's host name and /etc/hosts are unchanged" ||
	ktap_fail "machine untouched" "now $(hostname)"

# PYTHONPATH: the tree's package first, the caller's after it
PYTHONPATH=/nonexistent "$RUN" --topo 1x2 --timeout 60 -- sh -c '
	echo "PP $PYTHONPATH"
	/usr/bin/python3 -c "import rina; print(\"PKG\", rina.__file__)"' \
	>"$tmp/pp" 2>&1
rc=$?
want_pp="$top/python"
[ -e "$top/build/python/rina_c10d.stamp" ] && want_pp="$want_pp:$top/build/python"
[ $rc -eq 0 ] &&
	[ "$(grep -cx "\[rank [01]\] PP $want_pp:/nonexistent" "$tmp/pp")" -eq 2 ] &&
	[ "$(grep -cx "\[rank [01]\] PKG $top/python/rina/__init__.py" "$tmp/pp")" -eq 2 ] &&
	ktap_ok "PYTHONPATH: the tree's python/ (and build/python), then the caller's" ||
	ktap_fail "PYTHONPATH" "rc $rc: $(head -c 600 "$tmp/pp")"

# --torchrun 2 on 2 hosts: 4 processes numbered by torchrun, no RINA_RANK
if /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by each process's shell
	RDZV_PORT=29612 "$RUN" --topo 2x1 --timeout 90 --torchrun 2 \
		--torchrun-args --no_python -- sh -c \
		'echo "TR $RANK $WORLD_SIZE $LOCAL_RANK ${RINA_RANK:-none} $(hostname)"
		 if [ "$RANK" = 0 ]; then grep "^rank " "$RINA_JOB" >"$0"; fi' \
		"$tmp/tr.job" >"$tmp/tr" 2>&1
	rc=$?
	ok=1
	for r in 0 1 2 3; do
		[ "$(grep -c "\] TR $r 4 [01] none h[01]-0\$" "$tmp/tr")" -eq 1 ] ||
			ok=0
	done
	[ "$(grep -c '^\[rank 0\] TR .* h0-0$' "$tmp/tr")" -eq 2 ] || ok=0
	[ $rc -eq 0 ] && [ $ok -eq 1 ] &&
		ktap_ok "--torchrun 2 on 2 hosts: ranks 0..3 of 4, two per host, no RINA_RANK" ||
		ktap_fail "--torchrun" "rc $rc: $(grep -v '^\[rank .\] *\*' "$tmp/tr" | head -c 800)"
	# the job file lists the processes, two a host (what the torch
	# backend's job and the ToRs' are)
	printf 'rank %s\n' "0 198.18.0.1:21056 rack 0" \
		"1 198.18.0.1:21057 rack 0" "2 198.18.1.1:21056 rack 1" \
		"3 198.18.1.1:21057 rack 1" >"$tmp/tr.want"
	cmp -s "$tmp/tr.want" "$tmp/tr.job" &&
		ktap_ok "--torchrun 2: the job file has two rank lines a host, ports 21056 and 21057" ||
		ktap_fail "--torchrun job file" "$(cat "$tmp/tr.job")"

	# INA racks with their ToRs, the agent's rank and another process
	# on each rack's host: that one's contributions go to the ToR's
	# address once its agent says TOR_ON (before, they went to the
	# agent over the host's loopback, never reached the ToR, and the
	# first call timed out). Exact, and every slot the ToR's (the
	# agents added none). rina-bench's rank is the job file's line for
	# its host and local rank.
	# shellcheck disable=SC2016 # expanded by each process's shell
	RDZV_PORT=29613 BENCH=$top/build/bin/rina-bench "$RUN" --topo 2x1 \
		--ina all --timeout 120 --torchrun 2 \
		--torchrun-args --no_python -- sh -c \
		'h=$(hostname); r=${h#h}
		 RINA_RANK=$(( ${r%-*} * 2 + LOCAL_RANK )) exec "$BENCH" \
			-d int32 -b 256K -e 256K -n 3 -w 1 --json' \
		>"$tmp/ina" 2>&1
	rc=$?
	exact=$(grep -c '"n_ranks":4,.*"wrong":0,' "$tmp/ina")
	agents=$(grep '"role":"ina-agent"' "$tmp/ina" |
		grep -c '"tor":"on".*"agent_slots_done":0,')
	[ $rc -eq 0 ] && [ "$exact" -eq 4 ] && [ "$agents" -eq 2 ] &&
		ktap_ok "--torchrun 2, INA racks with ToRs: the agent's rank and another process a host, exact, every slot the ToR's" ||
		ktap_fail "--torchrun 2 with ToRs" \
			"rc $rc, $exact of 4 exact, $agents of 2 agents with the ToR on and no slot of their own: $(grep 'rina-bench:' "$tmp/ina" | head -3)"
else
	ktap_skip "--torchrun" "python3-torch not installed"
	ktap_skip "--torchrun job file" "python3-torch not installed"
	ktap_skip "--torchrun 2 with ToRs" "python3-torch not installed"
fi

ktap_finish
