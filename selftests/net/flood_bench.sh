#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# What a flood of forged data at one rank costs its neighbours (issue 49;
# Documentation/security.md, "A flood at one rank"). A benchmark, not a
# test: it asserts nothing but exact results. On a plain 2x2 ring
# rina-bench runs ITERS calls of SIZE while rank 3's host floods rank 1
# with forged SR_PARTIALs (a made-up tag, spoofed from rank 0, its
# upstream neighbour) for up to SECS seconds, COUNT packets at most, in
# turn over REPS runs of each arm:
#
#   none     no flood
#   closed   the same flood to a closed port of rank 1's host: what the
#            flood costs without any socket (the kernel drops it at the
#            UDP lookup), so what no filter before the socket can save
#   flood    the flood to rank 1's port (dropped by the socket's tag
#            filter, rx_kernel_drops; at the door, rx_bad_tag, with
#            RINA_UDP_RX_FILTER=0)
#   inject   inject.py's paced flood to rank 1's port (--only 1)
#
# One line per run: the call time (median of rank 0's calls), rank 0's
# and rank 2's timeouts and retransmits, rank 1's UdpRcvbufErrors; then
# median [min..max] per arm. Environment: ARMS (default "none closed
# flood"), REPS (3), SIZE (4M), ITERS (400), COUNT (3000000), SECS (8),
# CHRT (e.g. "chrt -f 5": the ranks at real-time priority), and
# RUN_OPTS (extra rina-run options, e.g. "--rate 25mbit");
# RINA_UDP_RX_FILTER=0 reaches the ranks: no tag filter before the
# socket (udp_transport.c), for an A/B in one run of this script each.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip ss nstat python3
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
FLOOD=$top/build/selftests/flood
for b in "$RUN" "$BENCH" "$FLOOD"; do
	[ -x "$b" ] || { echo "no $b (make)" >&2; exit 1; }
done
ARMS=${ARMS:-none closed flood} REPS=${REPS:-3} SIZE=${SIZE:-4M}
ITERS=${ITERS:-400} COUNT=${COUNT:-3000000} SECS=${SECS:-8}
read -ra run_opts <<<"${RUN_OPTS:-}"
tmp=$(mktemp -d /tmp/flood_bench.XXXXXX)
defer rm -rf "$tmp"

# run ARM OUT: one run; the flood starts once the ranks hold their ports
run()
{
	local inj

	case $1 in
	none) inj=: ;;
	closed) inj="exec $FLOOD \$(ip_of 1) 21100 \$(ip_of 0) \$(port_of 0) \$(job_id) $COUNT $SECS" ;;
	flood) inj="exec $FLOOD \$(ip_of 1) \$(port_of 1) \$(ip_of 0) \$(port_of 0) \$(job_id) $COUNT $SECS" ;;
	inject) inj="exec /usr/bin/python3 $top/selftests/net/inject.py data \$RINA_JOB $COUNT $SECS --only 1" ;;
	*) echo "unknown arm $1" >&2; exit 2 ;;
	esac
	"$RUN" --topo 2x2 --timeout 300 "${run_opts[@]}" -- sh -c '
		ep() { awk -v r=$1 "\$1 == \"rank\" && \$2 == r { print \$3 }" "$RINA_JOB"; }
		ip_of() { a=$(ep $1); echo ${a%:*}; }
		port_of() { a=$(ep $1); case $a in *:*) echo ${a#*:} ;; *) echo 21056 ;; esac; }
		job_id() { awk "\$1 == \"job\" { print \$2 }" "$RINA_JOB"; }
		if [ "$RINA_RANK" = 3 ]; then
			( i=0
			  while ! ss -Hlun | grep -q ":2105[67]" &&
				[ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
			  sleep 0.3
			  '"$inj"' ) &
		fi
		'"${CHRT:-}"' "$0" -b '"$SIZE"' -e '"$SIZE"' -n '"$ITERS"' -w 2 -c 1 --json
		rc=$?
		echo "# rcvbuf_errors $(nstat -az UdpRcvbufErrors | awk "/UdpRcvbufErrors/ { print \$2 }")"
		exit $rc' "$BENCH" >"$2" 2>&1
}

for rep in $(seq "$REPS"); do
	for arm in $ARMS; do
		run "$arm" "$tmp/$arm.$rep.out"
		echo "# $arm run $rep: rina-run status $?"
	done
done
python3 - "$tmp" $ARMS <<'EOF'
import glob, json, re, statistics, sys
tmp, arms = sys.argv[1], sys.argv[2:]

def row(path):
    rows, rb = {}, {}
    for line in open(path):
        m = re.match(r"\[rank (\d+)\] (\{.*\})$", line.strip())
        if m:
            rows[int(m.group(1))] = json.loads(m.group(2))
        m = re.match(r"\[rank (\d+)\] # rcvbuf_errors (\d+)", line)
        if m:
            rb[int(m.group(1))] = int(m.group(2))
    if len(rows) != 4 or any(r["wrong"] for r in rows.values()):
        return None
    return {"call_ms": rows[0]["time_med_us"] / 1e3,
            "r0_timeouts": rows[0]["timeouts"],
            "r0_retx": rows[0]["retransmits"],
            "r2_timeouts": rows[2]["timeouts"],
            "r2_retx": rows[2]["retransmits"],
            "r1_rcvbuf_errors": rb.get(1, -1)}

for arm in arms:
    runs = []
    for path in sorted(glob.glob(f"{tmp}/{arm}.*.out")):
        r = row(path)
        print(f"{arm:7s}", "failed or wrong" if r is None else
              " ".join(f"{k} {v:g}" for k, v in r.items()))
        if r is not None:
            runs.append(r)
    if runs:
        print(f"{arm:7s} median [min..max]:", ", ".join(
            f"{k} {statistics.median(r[k] for r in runs):g} "
            f"[{min(r[k] for r in runs):g}..{max(r[k] for r in runs):g}]"
            for k in runs[0]))
EOF
