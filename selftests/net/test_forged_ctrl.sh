#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Forged control messages never stop a job (issue 12): an injector on one
# of the cluster's hosts sends 1500 ABORT, HELLO, HELLO_ACK and BYE
# packets with the job's id and spoofed member addresses at every rank
# and agent port while rina-bench runs. With the job secret every one is
# refused and counted (ctrl_forged), and results stay exact, on a plain
# 2x2 and a 2x2 of INA racks (software agents). Without a secret the same
# spoofed ABORTs stop the job (what the secret is for), while an attacker
# that cannot spoof its address is refused by the source checks alone.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip ss
PY=/usr/bin/python3
RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
INJECT=$top/selftests/net/inject_ctrl.py
COUNT=1500
tmp=$(mktemp -d /tmp/test_forged_ctrl.XXXXXX)
defer rm -rf "$tmp"
(umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$tmp/secret")
ktap_plan 4

# run NAME INJECT-ARGS RINA-RUN-ARGS...: rank 3's host injects COUNT
# packets over 4 s once every rank holds its port, while the ranks run
# 4 MiB allreduces with checked results for longer than that
run()
{
	local name=$1 args=$2
	shift 2
	"$RUN" --topo 2x2 --timeout 90 "$@" -- sh -c '
		if [ "$RINA_RANK" = 3 ]; then
			( i=0
			  while [ "$(ss -Hlun | grep -c ":2105[67]\|:21071")" -lt 1 ] &&
				[ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
			  sleep 0.3
			  exec "$0" "$1" "$RINA_JOB" '"$COUNT"' 4 '"$args"' ) &
		fi
		exec "$2" -b 4M -e 4M -n 150 -w 2 -c 1' "$PY" "$INJECT" "$BENCH" \
		>"$tmp/$name.out" 2>&1
}

# the sum over ranks of a counter of rina-bench's counters lines
counter_sum()
{
	sed -n "s/.* counters: .* $2 \([0-9]*\).*/\1/p" "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

survived()
{
	local name=$1 rc=$2 out=$tmp/$1.out sent forged ranks_ok
	sent=$(sed -n 's/.*inject_ctrl: sent \([0-9]*\).*/\1/p' "$out")
	forged=$(counter_sum "$out" ctrl_forged)
	ranks_ok=$(grep -c 'Out of bounds values : 0 OK' "$out")
	# every forged packet to a rank or agent port is refused; a few may
	# be lost to full socket buffers while the ranks are busy
	if [ "$rc" -eq 0 ] && [ "$ranks_ok" -ge 1 ] &&
	   ! grep -q '^\[rank [0-9]*\] rina-bench:' "$out" &&
	   [ "${sent:-0}" -ge "$COUNT" ] &&
	   [ "$forged" -ge $((sent * 95 / 100)) ]; then
		ktap_ok "$name: job finished exact; $forged of $sent forged control packets refused"
	else
		grep '\] rina-bench:\|inject_ctrl\|counters' "$out" | head -6 |
			sed 's/^/# /'
		ktap_fail "$name" "rc $rc, sent ${sent:-0}, refused $forged"
	fi
}

run plain-signed "" --job-opt "secret_file $tmp/secret"
survived plain-signed $?
run ina-signed "" --ina all --tor off --job-opt "secret_file $tmp/secret"
survived ina-signed $?

# without a secret an address-checking receiver still refuses a sender
# that cannot spoof: the same packets from the injector's own address
run plain-unsigned-own --own-address
survived plain-unsigned-own $?

# ... but spoofed ABORTs stop an unsigned job: the test's injector works
run plain-unsigned-spoofed ""
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'aborted the job' "$tmp/plain-unsigned-spoofed.out"; then
	ktap_ok "without a secret, spoofed ABORTs stop the job (what the secret prevents)"
else
	grep 'rina-bench:\|inject_ctrl' "$tmp/plain-unsigned-spoofed.out" |
		head -4 | sed 's/^/# /'
	ktap_fail "unsigned spoofed" "rc $rc: the injector did not reach the job"
fi
ktap_finish
