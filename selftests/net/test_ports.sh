#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Rank ports belong to their rank: a process of another user cannot bind
# a running rank's address and port (no SO_REUSEADDR), a second
# communicator on a held port fails at once with a clear error, and a
# rank whose init fails tells the others at once (a signed ABORT, from
# another port of its host) instead of leaving them to their timeout. A
# second job whose INA agent would share a host with the first job's
# (librina runs one agent per host; the kernel agent serves many jobs on
# one port) fails at once, naming the port, while the first finishes.
# A rank that starts only after the failed one gave up still hears its
# ABORT, which a failed init repeats for 1.55 s.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip setpriv
PY=/usr/bin/python3

RUN=$top/build/bin/rina-run
BENCH=$top/build/bin/rina-bench
tmp=$(mktemp -d /tmp/test_ports.XXXXXX)
defer rm -rf "$tmp"
chmod 755 "$tmp"
(umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$tmp/secret")
ktap_plan 6

# a small binder: bind ADDR:PORT over UDP, print the outcome, hold it
cat >"$tmp/bind.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError as e:
    print("bind-refused", e.errno, flush=True)
    sys.exit(0)
print("bind-ok", flush=True)
open(sys.argv[4], "w").close()		# ready: the port is held
time.sleep(float(sys.argv[3]))
PY

# 1: uid 65534 tries rank 1's port while rank 1 runs
"$RUN" --topo 1x2 --timeout 60 -- sh -c '
	if [ "$RINA_RANK" = 1 ]; then
		( i=0	# once the rank holds its port
		  while ! ss -Hlun src 198.18.0.2:21056 | grep -q . &&
			[ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		  setpriv --reuid 65534 --regid 65534 --clear-groups \
			"$2" "$0" 198.18.0.2 21056 0 /dev/null ) &
	fi
	exec "$1" -b 4M -e 4M -n 20 -w 1 -c 1' "$tmp/bind.py" "$BENCH" "$PY" \
	>"$tmp/hijack.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'bind-refused 98' "$tmp/hijack.out" &&
   ! grep -q 'bind-ok' "$tmp/hijack.out"; then
	ktap_ok "another user cannot bind a running rank's port (EADDRINUSE)"
else
	grep 'bind-\|rina-bench' "$tmp/hijack.out" | head -3 | sed 's/^/# /'
	ktap_fail "another user's bind" "rina-run $rc"
fi

# held_port_run OUT [LATE]: a signed 2x2 job whose rank 0 finds its port
# held by another process (once it is held, rank 0 starts); with LATE,
# rank 3 starts LATE seconds after that. Each rank prints elapsed_ms.
held_port_run()
{
	"$RUN" --topo 2x2 --timeout 60 --job-opt 'timeout_ms 20000' \
		--job-opt "secret_file $tmp/secret" -- sh -c '
		if [ "$RINA_RANK" = 0 ]; then
			"$2" "$0" 198.18.0.1 21056 30 "$RINA_RUN_DIR/held" &
		fi
		if [ "$RINA_RANK" = 0 ] || { [ -n "$3" ] && [ "$RINA_RANK" = 3 ]; }
		then
			i=0
			while [ ! -e "$RINA_RUN_DIR/held" ] && [ $i -lt 100 ]; do
				sleep 0.1; i=$((i + 1))
			done
			[ "$RINA_RANK" = 3 ] && sleep "$3"
		fi
		start=$(date +%s%N)
		"$1" -b 64K -e 64K -n 1 -w 0 -c 1
		echo "elapsed_ms $(( ($(date +%s%N) - start) / 1000000 ))"' \
		"$tmp/bind.py" "$BENCH" "$PY" "${2:-}" >"$1" 2>&1
}

# 2 and 3: rank 0's port held by another process: its init fails with a
# clear error, and ranks 1..3 learn it from its ABORT, long before their
# 20 s timeout (signed: from another port only a signed ABORT is taken)
held_port_run "$tmp/held.out"
if grep -q '^\[rank 0\].*another communicator or process holds this port' \
	"$tmp/held.out"; then
	ktap_ok "a held rank port: init fails at once, naming the cause"
else
	grep 'rank 0' "$tmp/held.out" | head -3 | sed 's/^/# /'
	ktap_fail "a held rank port" "no clear error from rank 0"
fi
n=0 slow=0
for r in 1 2 3; do
	grep -q "^\[rank $r\].*rank 0 aborted the job" "$tmp/held.out" &&
		n=$((n + 1))
	ms=$(sed -n "s/^\[rank $r\] elapsed_ms //p" "$tmp/held.out")
	[ -n "$ms" ] && [ "$ms" -lt 10000 ] || slow=$((slow + 1))
done
if [ "$n" -eq 3 ] && [ "$slow" -eq 0 ]; then
	ktap_ok "the others learn of rank 0's failed init from its ABORT"
else
	grep 'rank [123]' "$tmp/held.out" | head -6 | sed 's/^/# /'
	ktap_fail "ABORT at init failure" "$n of 3 told, $slow slow"
fi

# 4: job A and job B (other id, other rank ports) in the same hosts, both
# with INA racks: B's agents find the agent port held
"$RUN" --topo 2x2 --ina all --tor off --timeout 60 \
	--job-opt 'timeout_ms 5000' -- sh -c '
	sed -e "s/:21056/:21057/" -e "s/^job .*/job 4242/" "$RINA_JOB" \
		>"$RINA_JOB.b.$RINA_RANK"
	"$0" -b 1M -e 1M -n 30 -w 1 -c 1 >"$RINA_RUN_DIR/a.$RINA_RANK" 2>&1 &
	a=$!
	sleep 0.5
	RINA_JOB=$RINA_JOB.b.$RINA_RANK "$0" -b 1M -e 1M -n 1 -w 0 -c 1 2>&1 |
		sed "s/^/job-b: /"
	wait $a && echo "job-a: done" && grep -h "Out of bounds" \
		"$RINA_RUN_DIR/a.$RINA_RANK"' "$BENCH" >"$tmp/twojobs.out" 2>&1
a_done=$(grep -c 'job-a: done' "$tmp/twojobs.out")
if [ "$a_done" -eq 4 ] &&
   grep -q 'Out of bounds values : 0 OK' "$tmp/twojobs.out" &&
   grep -q '^\[rank 0\] job-b: rina-bench: transport failure: agent of rack 0: .*21071: Address already in use (.*one INA agent per host and agent port' \
	"$tmp/twojobs.out"; then
	ktap_ok "two jobs' agents on one host: the first finishes, the second fails at once naming the held agent port"
else
	grep 'job-' "$tmp/twojobs.out" | head -6 | sed 's/^/# /'
	ktap_fail "two jobs' agents on one host" "job A done on $a_done of 4"
fi

# 5: the same with job B's INA racks on agent_port 21070: both jobs'
# agents share the hosts, each on its own port, and both finish exact
"$RUN" --topo 2x2 --ina all --tor off --timeout 60 \
	--job-opt 'timeout_ms 5000' -- sh -c '
	sed -e "s/:21056/:21057/" -e "s/^job .*/job 4242/" \
		-e "s/^\(rack [0-9]* ina\)\$/\1 agent_port 21070/" "$RINA_JOB" \
		>"$RINA_JOB.b.$RINA_RANK"
	"$0" -b 1M -e 1M -n 30 -w 1 -c 1 >"$RINA_RUN_DIR/a.$RINA_RANK" 2>&1 &
	a=$!
	RINA_JOB=$RINA_JOB.b.$RINA_RANK "$0" -b 1M -e 1M -n 30 -w 1 -c 1 \
		>"$RINA_RUN_DIR/b.$RINA_RANK" 2>&1
	b=$?
	wait $a && echo "job-a: done"
	[ $b = 0 ] && echo "job-b: done"
	grep -h "Out of bounds\|agent:" "$RINA_RUN_DIR/a.$RINA_RANK" \
		"$RINA_RUN_DIR/b.$RINA_RANK"
	grep -c "agent_port 21070" "$RINA_JOB.b.$RINA_RANK"' "$BENCH" \
	>"$tmp/twoports.out" 2>&1
a_done=$(grep -c 'job-a: done' "$tmp/twoports.out")
b_done=$(grep -c 'job-b: done' "$tmp/twoports.out")
exact=$(grep -c 'Out of bounds values : 0 OK' "$tmp/twoports.out")
if [ "$a_done" -eq 4 ] && [ "$b_done" -eq 4 ] && [ "$exact" -eq 2 ] &&
   grep -q '^\[rank 0\] 2$' "$tmp/twoports.out"; then
	ktap_ok "two jobs' agents on one host with their own agent_port: both finish exact"
else
	grep 'job-\|rina-bench\|^\[rank 0\] [0-9]$' "$tmp/twoports.out" |
		head -8 | sed 's/^/# /'
	ktap_fail "two jobs' agents on their own ports" "A done on $a_done, B on $b_done of 4, $exact exact"
fi
# 6: as 2-3, but rank 3 starts 0.5 s after rank 0's port is held, when
# rank 0's init has failed and its first ABORTs are gone: the repeated
# ABORT still reaches it, long before its 20 s timeout
held_port_run "$tmp/late.out" 0.5
ms=$(sed -n "s/^\[rank 3\] elapsed_ms //p" "$tmp/late.out")
if grep -q "^\[rank 3\].*rank 0 aborted the job" "$tmp/late.out" &&
   [ -n "$ms" ] && [ "$ms" -lt 10000 ]; then
	ktap_ok "a rank that starts after rank 0's failed init still hears its ABORT (${ms} ms)"
else
	grep 'rank [03]' "$tmp/late.out" | head -4 | sed 's/^/# /'
	ktap_fail "late rank told of a failed init" "rank 3: ${ms:-no} ms"
fi
ktap_finish
