#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench, after scripts/bench.sh: the micro-benchmarks, whose figures
# are speed and so are measured here, not asserted by a test.
#   bench_xdp_prog      rina_xdp's per-packet cost against a bare XDP_DROP
#                       (BPF_PROG_RUN, kernel-measured ns per run)
#   bench_transport.sh  librina's UDP and AF_XDP transports on a veth pair:
#                       round-trip time and one-way message rate
# Environment knobs (defaults in brackets):
#   BENCH_XDP_REPEAT [1000000]  BPF_PROG_RUN repeat count per measurement
#   BENCH_TRANSPORT_MSGS [200000]  one-way messages per transport
# Both need root (BPF_PROG_RUN, network namespaces). Exits non-zero if one
# of them failed to run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0

echo "== bench_xdp_prog (rina_xdp against a bare XDP_DROP)"
"$top/build/selftests/bpf/bench_xdp_prog" "${BENCH_XDP_REPEAT:-1000000}" ||
	rc=1
echo "== bench_transport (UDP and AF_XDP transports on a veth pair)"
"$top/selftests/bpf/bench_transport.sh" "${BENCH_TRANSPORT_MSGS:-200000}" ||
	rc=1
exit $rc
