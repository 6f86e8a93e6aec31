#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The soak for CI's budget (issue 49): scripts/soak.py for 120 s, a 2x4
# cluster, mixed then all-INA, under loss, duplicates, reordering, a
# killed and restarted ToR, re-created communicators and a TCP flow.
# KTAP cases (soak.py --ktap): no wrong result, every fault kind injected
# at least once, no failure a fault does not explain, fd and thread counts
# of every rank flat, RSS slope under the bound of Documentation/soak.md.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip iperf3 /usr/bin/python3

# the output stays when a case fails: rina-run's and the ranks' logs
out=$(mktemp -d /tmp/test_soak.XXXXXX)
/usr/bin/python3 "$top/scripts/soak.py" --seconds 120 --out "$out" --ktap
rc=$?
if [ "$rc" -eq 0 ]; then
	rm -rf "$out"
else
	echo "# soak output kept in $out"
fi
exit "$rc"
