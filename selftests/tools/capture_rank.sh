#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Run one rank's command under rina-run with dumpcap capturing its host's
# eth0 to OUTDIR/rank<R>.pcap, from before the command starts until every
# frame it sent is in the file:
#   rina-run --topo 2x2 -- capture_rank.sh OUTDIR CMD [ARGS...]
# The capture is known to be running once dumpcap has opened its file (it
# binds the interface first), and known to be complete once a marker
# datagram sent after CMD exits (UDP port 9 of another rank) is in it.
# UDP segmentation offload is turned off on eth0, so that the capture
# holds wire frames rather than GSO super-frames. Exit status: CMD's.
set -u

out=$1; shift
rank=${RINA_RANK:?run under rina-run}
pcap=$out/rank$rank.pcap
marker="rina-capture-end-rank-$rank"

wait_for() {	# wait_for SECONDS CMD...: poll until CMD succeeds
	local end=$((SECONDS + $1)); shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.05
	done
}

ethtool -K eth0 tx-udp-segmentation off >/dev/null 2>&1
[ "$rank" -eq 0 ] && cp "$RINA_JOB" "$out/job"
cat /sys/class/net/eth0/address >"$out/mac$rank"
dumpcap -q -i eth0 -P -w "$pcap" 2>"$out/dumpcap$rank.log" &
cap=$!
if ! wait_for 10 grep -q "^File: " "$out/dumpcap$rank.log"; then
	echo "capture_rank: dumpcap did not start" >&2
	kill "$cap" 2>/dev/null
	exit 1
fi

"$@"
rc=$?

# another rank's address: the next rank line after ours, or the first
peer=$(awk -v r="$rank" '$1 == "rank" { split($3, a, ":");
	if (!first) first = a[1]; if (take) { print a[1]; take = 0; done = 1 }
	if ($2 == r) take = 1 } END { if (!done) print first }' "$RINA_JOB")
seen() {
	echo "$marker" 2>/dev/null >"/dev/udp/$peer/9"
	grep -aq "$marker" "$pcap"
}
wait_for 10 seen || echo "capture_rank: marker not captured" >&2
kill -INT "$cap"
wait "$cap"
exit $rc
