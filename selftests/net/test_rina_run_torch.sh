#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-run's environment for torch.distributed (MASTER_ADDR, MASTER_PORT,
# RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE) and its per-host names:
# each emulated host is h<R>-<I>, resolving to its own address, while the
# machine's host name and /etc/hosts stay as they were.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip getent

RUN=$top/build/bin/rina-run
[ -x "$RUN" ] || RUN=$top/tools/rina-run/rina-run
tmp=$(mktemp -d /tmp/test_rina_run_torch.XXXXXX)
defer rm -rf "$tmp"

ktap_plan 4
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

ktap_finish
