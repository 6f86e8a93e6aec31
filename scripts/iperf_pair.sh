# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# An iperf3 flow between two ranks of a rina-run job, beside the job's
# traffic: sourced by the ranks' shell (selftests/net/test_shaped.sh,
# scripts/bench_coexist.sh). The ranks meet through $RINA_RUN_DIR.

# iperf_serve ADDR: a server for one client on ADDR, in the background
# of the calling shell (its `wait` covers it), listening (at most 5 s)
# before it returns and tells iperf_await so
iperf_serve()
{
	local i

	iperf3 -s -1 -B "$1" >/dev/null 2>&1 &
	for i in $(seq 50); do
		ss -ltn | grep -q ":5201 " && break
		sleep 0.1
	done
	touch "$RINA_RUN_DIR/iperf.ready"
}

# iperf_await: until the other rank's server listens, at most 10 s
iperf_await()
{
	local i

	for i in $(seq 100); do
		[ -e "$RINA_RUN_DIR/iperf.ready" ] && break
		sleep 0.1
	done
}
