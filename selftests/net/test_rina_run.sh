#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-run: topologies 1x2, 2x2, 2x3 (rank environment and addresses, ping
# across racks, MTU), the job file, output prefixes, worst exit status,
# --timeout, teardown after exit and after SIGINT, and the --mpi mode.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

require_root
require_cmd ip ping

RUN=$top/build/bin/rina-run
[ -x "$RUN" ] || RUN=$top/tools/rina-run/rina-run
MPIBENCH=$top/build/bin/mpi-bench
tmp=$(mktemp -d /tmp/test_rina_run.XXXXXX)
defer rm -rf "$tmp"

# namespaces whose name starts with $1 (a rina-run prefix)
ns_count()
{
	local n=0 f
	for f in /run/netns/"$1"-*; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# pids of the ranks that printed "PID <pid>" into file $1: are any alive?
ranks_alive()
{
	local pid
	for pid in $(sed -n 's/.*PID \([0-9]*\)$/\1/p' "$1"); do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}

# prefix of the run that printed "NETNS <name>" into file $1
prefix_of()
{
	sed -n 's/.*NETNS \(rina-[a-z0-9]\{5\}\)-.*/\1/p' "$1" | head -1
}

ktap_plan 23

# 1-3: per topology, each rank sees its rank, rank count and address
for topo in 1x2 2x2 2x3; do
	K=${topo%x*} M=${topo#*x}
	out=$tmp/env.$topo
	"$RUN" --topo "$topo" --timeout 30 -- sh -c \
		'echo "ENV $RINA_RANK $RINA_NRANKS $(ip -4 -o addr show dev eth0 |
		 awk "{print \$4}") $(test -r "$RINA_JOB" && echo job)"' \
		>"$out" 2>"$tmp/env.$topo.err"
	rc=$?
	ok=1
	[ "$rc" -eq 0 ] || ok=0
	for ((r = 0; r < K; r++)); do
		for ((i = 0; i < M; i++)); do
			rank=$((r * M + i))
			want="[rank $rank] ENV $rank $((K * M)) 198.18.$r.$((i + 1))/15 job"
			grep -qxF "$want" "$out" || { ok=0; echo "# missing: $want"; }
		done
	done
	[ "$(grep -c . "$out")" -eq $((K * M)) ] || ok=0
	if [ $ok -eq 1 ]; then
		ktap_ok "topo_${topo}_rank_env_and_address"
	else
		sed 's/^/#   /' "$out" "$tmp/env.$topo.err"
		ktap_fail "topo_${topo}_rank_env_and_address" "rc=$rc"
	fi
done

# 4: every rank pings every other rank (across racks) on 2x3
"$RUN" --topo 2x3 --timeout 60 -- sh -c '
	for r in 0 1; do for i in 1 2 3; do
		ping -q -c 1 -W 3 198.18.$r.$i >/dev/null || exit 1
	done; done' >"$tmp/ping" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	ktap_ok "topo_2x3_ping_all_pairs"
else
	sed 's/^/#   /' "$tmp/ping"
	ktap_fail "topo_2x3_ping_all_pairs" "rc=$rc"
fi

# 5: --mtu is applied end to end: a DF ping of exactly MTU bytes crosses
# host, ToR, spine, ToR, host; one byte more does not
"$RUN" --topo 2x2 --mtu 4000 --timeout 60 -- sh -c '
	[ "$(cat /sys/class/net/eth0/mtu)" = 4000 ] || exit 10
	[ "$RINA_RANK" = 0 ] || exit 0
	ping -q -c 1 -W 3 -M do -s 3972 198.18.1.2 >/dev/null || exit 11
	ping -q -c 1 -W 1 -M do -s 3973 198.18.1.2 >/dev/null 2>&1 && exit 12
	exit 0' >"$tmp/mtu" 2>&1
rc=$?
ktap_check "mtu_4000_end_to_end" test "$rc" -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/mtu"

# 6: the job file: ranks, racks (--ina, with the INA ToR's control address
# reachable), --job-opt override (by key; rank and rack by key and id)
# and append
"$RUN" --topo 2x2 --ina 1 --job-opt 'elements 64' --job-opt 'window 8' \
	--job-opt 'rank 3 198.18.1.2:21057 rack 1' \
	--timeout 30 -- sh -c '[ "$RINA_RANK" = 0 ] || exit 0
		cat "$RINA_JOB"; ping -q -c 1 -W 3 198.18.1.254 >/dev/null' \
	>"$tmp/job" 2>&1
sed -n 's/^\[rank 0\] //p' "$tmp/job" | grep -v '^#' |
	grep -v '^secret_file ' >"$tmp/job.body"
cat >"$tmp/job.want" <<EOF
elements 64
rack 0 plain
rack 1 ina tor 198.18.1.254
rank 0 198.18.0.1:21056 rack 0
rank 1 198.18.0.2:21056 rack 0
rank 2 198.18.1.1:21056 rack 1
rank 3 198.18.1.2:21057 rack 1
window 8
EOF
rc=$?
if [ $rc -eq 0 ] && grep -qE '^job [0-9]+$' "$tmp/job.body" &&
   grep -v '^job ' "$tmp/job.body" | diff -u "$tmp/job.want" - >"$tmp/job.diff"; then
	ktap_ok "job_file_contents"
else
	sed 's/^/#   /' "$tmp/job" "$tmp/job.diff" 2>/dev/null
	ktap_fail "job_file_contents"
fi

# 6b: a fresh secret per run: secret_file names $RINA_RUN_DIR/secret, 32
# hexadecimal digits, mode 0600, never in rina-run's output (even -v);
# --no-secret writes neither the line nor the file
"$RUN" -v --topo 1x2 --timeout 30 -- sh -c '[ "$RINA_RANK" = 0 ] || exit 0
	grep -x "secret_file $RINA_RUN_DIR/secret" "$RINA_JOB" &&
	stat -c "mode %a" "$RINA_RUN_DIR/secret" &&
	cp "$RINA_RUN_DIR/secret" '"$tmp/secret.seen" >"$tmp/sec" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qx '\[rank 0\] mode 600' "$tmp/sec" &&
   grep -qE '^[0-9a-f]{32}$' "$tmp/secret.seen" &&
   ! grep -qF "$(cat "$tmp/secret.seen")" "$tmp/sec"; then
	ktap_ok "job_secret_per_run"
else
	sed 's/^/#   /' "$tmp/sec"
	ktap_fail "job_secret_per_run"
fi
"$RUN" --no-secret --topo 1x2 --timeout 30 -- sh -c \
	'[ "$RINA_RANK" = 0 ] || exit 0
	 grep -c "^secret_file" "$RINA_JOB"; ls "$RINA_RUN_DIR"' \
	>"$tmp/nosec" 2>&1
if grep -qx '\[rank 0\] 0' "$tmp/nosec" &&
   ! grep -q '^\[rank 0\] secret$' "$tmp/nosec"; then
	ktap_ok "job_no_secret"
else
	sed 's/^/#   /' "$tmp/nosec"
	ktap_fail "job_no_secret"
fi

# 7: the job file's default E fits the MTU (1500: (1500-56)/4 -> 320)
"$RUN" --topo 1x2 --mtu 1500 --timeout 30 -- sh -c \
	'[ "$RINA_RANK" = 0 ] && grep "^elements" "$RINA_JOB"' >"$tmp/e" 2>&1
ktap_check "job_file_elements_fit_mtu" grep -qx '\[rank 0\] elements 320' "$tmp/e"

# 8-9: stdout and stderr are forwarded line by line, prefixed, on their own
# streams
"$RUN" --topo 1x2 --timeout 30 -- sh -c \
	'echo "out a $RINA_RANK"; echo "err $RINA_RANK" >&2; echo "out b"' \
	>"$tmp/pfx.out" 2>"$tmp/pfx.err"
ok=1
for r in 0 1; do
	grep -qxF "[rank $r] out a $r" "$tmp/pfx.out" || ok=0
	grep -qxF "[rank $r] out b" "$tmp/pfx.out" || ok=0
done
[ "$(grep -c . "$tmp/pfx.out")" -eq 4 ] || ok=0
ktap_check "stdout_prefixed" test $ok -eq 1
ok=1
for r in 0 1; do
	grep -qxF "[rank $r] err $r" "$tmp/pfx.err" || ok=0
done
grep -q 'out' "$tmp/pfx.err" && ok=0
ktap_check "stderr_prefixed" test $ok -eq 1

# 10: the worst exit status is returned (one rank of four exits 3)
"$RUN" --topo 2x2 --timeout 30 -- sh -c \
	'[ "$RINA_RANK" = 2 ] && exit 3; [ "$RINA_RANK" = 1 ] && exit 1; exit 0' \
	>/dev/null 2>&1
rc=$?
ktap_check "worst_exit_status_3" test "$rc" -eq 3

# 11: a rank killed by a signal gives 128 + signal
"$RUN" --topo 1x2 --timeout 30 -- sh -c \
	'[ "$RINA_RANK" = 1 ] && kill -9 $$; exit 0' >/dev/null 2>&1
rc=$?
ktap_check "killed_rank_status_137" test "$rc" -eq 137

# 12: all succeed -> 0 (and any command works, not only Rina binaries)
"$RUN" --topo 2x2 --timeout 30 -- ip -br link show dev eth0 >/dev/null 2>&1
rc=$?
ktap_check "any_command_exit_0" test "$rc" -eq 0

# 13-14: --timeout kills a hung command (exit 124) and tears down
start=$SECONDS
"$RUN" --topo 2x2 --timeout 2 -- sh -c 'echo "NETNS $RINA_NETNS PID $$"; exec sleep 300' \
	>"$tmp/to" 2>&1
rc=$?
took=$((SECONDS - start))
p=$(prefix_of "$tmp/to")
if [ "$rc" -eq 124 ] && [ "$took" -lt 20 ]; then
	ktap_ok "timeout_kills_hung_command"
else
	ktap_fail "timeout_kills_hung_command" "rc=$rc after ${took}s"
fi
if [ -n "$p" ] && [ "$(ns_count "$p")" -eq 0 ] && ! ranks_alive "$tmp/to" &&
   ! compgen -G "/tmp/rina-run.${p#rina-}.*" >/dev/null; then
	ktap_ok "no_namespace_left_after_timeout"
else
	ktap_fail "no_namespace_left_after_timeout" "prefix '$p'"
fi

# 15-16: SIGINT tears everything down (ranks killed, exit 130)
set -m	# background jobs of a script otherwise ignore SIGINT
"$RUN" --topo 2x2 --timeout 120 -- sh -c 'echo "NETNS $RINA_NETNS PID $$"; exec sleep 300' \
	>"$tmp/int" 2>&1 &
pid=$!
set +m
busywait 20000 test "$(grep -c PID "$tmp/int")" -eq 4
p=$(prefix_of "$tmp/int")
n_before=$(ns_count "$p")
kill -INT "$pid"
wait "$pid"
rc=$?
n_after=$(ns_count "$p")
if [ "$rc" -eq 130 ] && [ -n "$p" ] && [ "$n_before" -eq 7 ]; then
	ktap_ok "sigint_exit_130"
else
	ktap_fail "sigint_exit_130" "rc=$rc prefix='$p' namespaces=$n_before"
fi
if [ -n "$p" ] && [ "$n_after" -eq 0 ] && ! ranks_alive "$tmp/int"; then
	ktap_ok "no_namespace_left_after_sigint"
else
	ktap_fail "no_namespace_left_after_sigint" "$n_after left"
fi

# 17: --keep keeps the namespaces (then we delete them ourselves)
"$RUN" --topo 1x2 --keep -- sh -c 'echo "NETNS $RINA_NETNS"' >"$tmp/keep" 2>&1
p=$(prefix_of "$tmp/keep")
n=$(ns_count "$p")
ktap_check "keep_keeps_namespaces" test -n "$p" -a "$n" -eq 4
if [ -n "$p" ]; then
	for f in /run/netns/"$p"-*; do cleanup_ns "${f##*/}"; done
	rm -rf /tmp/rina-run."${p#rina-}".*
fi

# 18: the INA ToR hook starts $RINA_TOR (build/bin/rina-tor) in the ToR
# namespace of each INA rack only, on demand, with its counters file (the
# ranks start once it is written), prefixes its output, stops it at exit
cat >"$tmp/fake-tor" <<'EOF'
#!/bin/sh
echo "TOR $* $(ip -4 -o addr show dev br0 | awk '{print $4}') PID $$"
touch "$(dirname "$2")/tor.ready"
echo '{}' >"$9"
exec sleep 300
EOF
chmod +x "$tmp/fake-tor"
RINA_TOR=$tmp/fake-tor "$RUN" --topo 2x2 --ina 1 --timeout 30 -- sh -c '
	for i in $(seq 100); do
		[ -e "$RINA_RUN_DIR/tor.ready" ] && exit 0; sleep 0.1
	done; exit 1' >"$tmp/tor" 2>&1
rc=$?
if [ $rc -eq 0 ] &&
   grep -qE '^\[tor 1\] TOR --job /tmp/rina-run\.[^ ]*/job --rack 1 --bridge br0 --on-demand --stats /tmp/rina-run\.[^ ]*/tor1\.json 198\.18\.1\.254/15 PID [0-9]+$' "$tmp/tor" &&
   ! grep -q '^\[tor 0\]' "$tmp/tor" && ! ranks_alive "$tmp/tor"; then
	ktap_ok "ina_tor_hook"
else
	sed 's/^/#   /' "$tmp/tor"
	ktap_fail "ina_tor_hook" "rc=$rc"
fi

# 19: --xdp attaches rina_xdp to every host's eth0 before the ranks start
if [ -x "$top/build/bin/rinactl" ]; then
	"$RUN" --topo 2x2 --mtu 1500 --xdp generic --timeout 60 -- \
		"$top/build/bin/rinactl" xdp status dev eth0 >"$tmp/xdp" 2>&1
	rc=$?
	n=$(grep -cE '^\[rank [0-3]\] eth0: rina_xdp id [0-9]+ mode generic' "$tmp/xdp")
	if [ $rc -eq 0 ] && [ "$n" -eq 4 ]; then
		ktap_ok "xdp_attached_on_every_host"
	else
		sed 's/^/#   /' "$tmp/xdp" | head -20
		ktap_fail "xdp_attached_on_every_host" "rc=$rc, $n hosts"
	fi
else
	ktap_skip "xdp_attached_on_every_host" "no build/bin/rinactl"
fi

# 20-21: --mpi runs mpirun's ranks in the host namespaces
if command -v mpirun >/dev/null && [ -x "$MPIBENCH" ]; then
	"$RUN" --topo 2x2 --mpi --timeout 90 -- sh -c \
		'echo "MPI $OMPI_COMM_WORLD_RANK $(hostname) $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"' \
		>"$tmp/mpi" 2>&1
	rc=$?
	ok=1
	for w in "0 h0-0 198.18.0.1/15" "1 h0-1 198.18.0.2/15" \
		 "2 h1-0 198.18.1.1/15" "3 h1-1 198.18.1.2/15"; do
		grep -qxF "[mpirun] MPI $w" "$tmp/mpi" || ok=0
	done
	[ $rc -eq 0 ] || ok=0
	[ $ok -eq 1 ] || sed 's/^/#   /' "$tmp/mpi"
	ktap_check "mpi_ranks_in_host_namespaces" test $ok -eq 1
	"$RUN" --topo 2x2 --mpi --timeout 90 -- "$MPIBENCH" -b 64K -e 256K \
		-n 2 -w 1 -c 1 >"$tmp/mpib" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '# Out of bounds values : 0 OK' "$tmp/mpib" &&
	   [ "$(grep -cE '^\[mpirun\] +[0-9]+ +[0-9]+ +int32 +sum ' "$tmp/mpib")" -eq 3 ]; then
		ktap_ok "mpi_bench_2x2_correct"
	else
		sed 's/^/#   /' "$tmp/mpib"
		ktap_fail "mpi_bench_2x2_correct" "rc=$rc"
	fi
else
	ktap_skip "mpi_ranks_in_host_namespaces" "no mpirun or build/bin/mpi-bench"
	ktap_skip "mpi_bench_2x2_correct" "no mpirun or build/bin/mpi-bench"
fi

ktap_finish
