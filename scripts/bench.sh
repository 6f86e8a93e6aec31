#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make bench: rina-bench (RAR over UDP, later AF_XDP) against OpenMPI 4.1
# MPI_Allreduce over TCP (ring algorithm and OpenMPI's default choice), side
# by side on the same emulated topologies (rina-run), same sizes, runs
# interleaved, repeated; prints per size the time and busbw of each as
# median [min..max] and the busbw ratio rina/OpenMPI.
#
# Environment knobs (defaults in brackets):
#   BENCH_TOPOS ["1x2 2x2"]  BENCH_REPS [5]  BENCH_MIN [1M]  BENCH_MAX [64M]
#   BENCH_ITERS [5]  BENCH_WARMUP [2]  BENCH_MTU [9000]  BENCH_DTYPE [float32]
#   BENCH_BUDGET [480] seconds: no new repetition starts after that
#   BENCH_TRANSPORTS ["udp xdp"]  rina-bench transports; xdp runs attach
#     rina_xdp (rina-run --xdp auto) and use BENCH_XDP_MTU [3500], the
#     largest MTU native XDP takes on veth (one page per frame)
#   BENCH_INA ["0 all"], BENCH_AGENT ["all"]  INA rack sets (rina-run --ina)
#   BENCH_INA_MAX [4M]  largest size of the INA variants: the software ToR
#     moves a few MB/s on this machine, larger sizes only eat the budget
#   BENCH_OUT [build/bench]   raw JSON rows and the summary are kept there
#
# Shaped mode (BENCH_RATE set, e.g. BENCH_RATE=25mbit): every run's links
# are shaped by rina-run --rate (BENCH_UPLINK_RATE: --uplink-rate,
# BENCH_QUEUE: --queue, BENCH_ECN: --ecn, the links mark CE above that
# queue), so the network, not the CPU, is the limit; each
# repetition interleaves on each topology librina's plain RAR (rina-udp),
# Rina with x = 1..K INA racks through rina-tor (rina-ina-x<x>: racks
# 0..x-1; x = 0 is rina-udp), OpenMPI's ring and default, and
# torch.distributed's Gloo all_reduce (scripts/gloo_bench.py, when
# /usr/bin/python3 has torch). Defaults there: BENCH_TOPOS ["2x2 2x4 4x2"],
# BENCH_REPS [3], BENCH_MIN [512K], BENCH_MAX [2M], BENCH_ITERS [2],
# BENCH_WARMUP [1], BENCH_BUDGET [1200], BENCH_TRANSPORTS [udp],
# BENCH_AGENT [""]; at 25mbit one call of S bytes takes about
# 2(n-1)/n * S * 8 / 25e6 s (a 64 MiB call ~40 s), so that default takes
# 20-25 minutes (run setup, torch's import, mpirun's start dominate). BENCH_GLOO [1]: 0 leaves Gloo out. The summary gains
# efficiency, wire bytes and retransmitted bytes per rank and the busbw
# ratio to mpi-ring; PNG plots go to BENCH_OUT (scripts/bench_plot.py).
# BENCH_E64 [1]: also every rack INA with 64-element packets (--job-opt
# 'elements 64': a switch that adds 64 int32 per pass, against rina-tor's
# 256): rina-ina-x<K>-e64 shaped, rina-ina-all-e64 with BENCH_INA's all.
# BENCH_FACTOR [2]: the size step.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=$top/build/bin
RUN=$BIN/rina-run
rate=${BENCH_RATE:-}
shaped=0
[ -n "$rate" ] && shaped=1
if [ "$shaped" -eq 1 ]; then
	topos=${BENCH_TOPOS:-2x2 2x4 4x2}
	reps=${BENCH_REPS:-3}
	bmin=${BENCH_MIN:-512K}
	bmax=${BENCH_MAX:-2M}
	iters=${BENCH_ITERS:-2}
	warmup=${BENCH_WARMUP:-1}
	budget=${BENCH_BUDGET:-1200}
	transports=${BENCH_TRANSPORTS:-udp}
else
	topos=${BENCH_TOPOS:-1x2 2x2}
	reps=${BENCH_REPS:-5}
	bmin=${BENCH_MIN:-1M}
	bmax=${BENCH_MAX:-64M}
	iters=${BENCH_ITERS:-5}
	warmup=${BENCH_WARMUP:-2}
	budget=${BENCH_BUDGET:-480}
	transports=${BENCH_TRANSPORTS:-udp xdp}
fi
factor=${BENCH_FACTOR:-2}
mtu=${BENCH_MTU:-9000}
dtype=${BENCH_DTYPE:-float32}
# INA patterns run as extra variants: rina-ina-<racks> through the software
# ToR (rina-tor), rina-agent-<racks> with the racks' agents adding in
# software (rina-run --tor off); x = 0 is rina-udp. Shaped: rina-ina-x<x>
# for every x = 1..K, per topology (variants_for)
if [ "$shaped" -eq 1 ]; then
	ina_sets=${BENCH_INA-}
	agent_sets=${BENCH_AGENT-}
else
	ina_sets=${BENCH_INA-"0 all"}
	agent_sets=${BENCH_AGENT-"all"}
fi
# rina-run's shaping options, on every run
shape=()
if [ "$shaped" -eq 1 ]; then
	shape=(--rate "$rate")
	[ -n "${BENCH_UPLINK_RATE:-}" ] &&
		shape+=(--uplink-rate "$BENCH_UPLINK_RATE")
	[ -n "${BENCH_QUEUE:-}" ] && shape+=(--queue "$BENCH_QUEUE")
	[ -n "${BENCH_ECN:-}" ] && shape+=(--ecn "$BENCH_ECN")
fi
xdp_mtu=${BENCH_XDP_MTU:-3500}
out=${BENCH_OUT:-$top/build/bench}

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$RUN" ] || die "no $RUN (run make first)"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
mkdir -p "$out" || die "cannot create $out"
raw=$out/rows.jsonl
cpu=$out/cpu.jsonl
cpu_samples=$out/cpu_samples.jsonl
: >"$raw"
: >"$cpu"
: >"$cpu_samples"

variants=()
if [ -x "$BIN/rina-bench" ]; then
	for t in $transports; do
		if [ "$t" = xdp ] && [ ! -x "$BIN/rinactl" ]; then
			echo "bench: no build/bin/rinactl: skipping rina-xdp" >&2
			continue
		fi
		variants+=("rina-$t")
	done
	for x in $ina_sets; do
		variants+=("rina-ina-$x")
		[ "$x" = all ] && [ "${BENCH_E64:-1}" = 1 ] &&
			variants+=("rina-ina-all-e64")
	done
	for x in $agent_sets; do
		variants+=("rina-agent-$x")
	done
else
	echo "bench: no build/bin/rina-bench yet: skipping the rina rows" >&2
fi
if [ -x "$BIN/mpi-bench" ] && command -v mpirun >/dev/null; then
	variants+=(mpi-ring mpi-default)
else
	echo "bench: no build/bin/mpi-bench or mpirun: skipping OpenMPI rows" >&2
fi
if [ "$shaped" -eq 1 ] && [ "${BENCH_GLOO:-1}" = 1 ]; then
	if /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
		variants+=(gloo)
	else
		echo "bench: no python3-torch: skipping the Gloo rows" >&2
	fi
fi
[ ${#variants[@]} -gt 0 ] || die "nothing to run"

# The variants of one topology: shaped, with x = 1..K INA racks
variants_for()
{
	local k=${1%x*} x v
	for v in "${variants[@]}"; do
		echo "$v"
		if [ "$shaped" -eq 1 ] && [ "$v" = rina-udp ] &&
		   [ -x "$BIN/rina-bench" ]; then
			for ((x = 1; x <= k; x++)); do
				echo "rina-ina-x$x"
			done
			[ "${BENCH_E64:-1}" = 1 ] && echo "rina-ina-x$k-e64"
		fi
	done
}

# OpenMPI's tuned component: forced algorithm 4 = ring
MPI_RING="--mca coll_tuned_use_dynamic_rules 1"
MPI_RING+=" --mca coll_tuned_allreduce_algorithm 4"
args=(-b "$bmin" -e "$bmax" -f "$factor" -n "$iters" -w "$warmup" -c 1
      -d "$dtype" -o sum --json)
ina_max=${BENCH_INA_MAX:-4M}
[ "$shaped" -eq 1 ] && ina_max=${BENCH_INA_MAX:-$bmax}
ina_args=(-b "$bmin" -e "$ina_max" -f "$factor" -n "$iters" -w "$warmup" -c 1
	  -d "$dtype" -o sum --json)

# run_one TOPO VARIANT REP: one benchmark run, rows appended to $raw
run_one()
{
	local topo=$1 v=$2 rep=$3 log=$out/last.log rc x
	local cmd=() racks=0
	case "$v" in
	rina-xdp)
		cmd=("$RUN" --topo "$topo" --mtu "$xdp_mtu" --xdp auto
		     --timeout 300 --
		     "$BIN/rina-bench" --transport xdp "${args[@]}") ;;
	rina-ina-*-e64)
		# every rack INA, 64-element packets (a ToR that adds 64 int32
		# per pass)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --ina all
		     --job-opt 'elements 64' --timeout 600 --
		     "$BIN/rina-bench" --transport udp "${ina_args[@]}") ;;
	rina-ina-x*)
		# shaped: racks 0..x-1 INA through rina-tor
		for ((x = 1; x < ${v#rina-ina-x}; x++)); do racks+=",$x"; done
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --ina "$racks"
		     --timeout 600 --
		     "$BIN/rina-bench" --transport udp "${ina_args[@]}") ;;
	rina-ina-*)
		# INA racks: the software ToR adds (E = 256, one ToR pass)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --ina "${v#rina-ina-}"
		     --timeout 300 --
		     "$BIN/rina-bench" --transport udp "${ina_args[@]}") ;;
	rina-agent-*)
		# INA racks without a ToR: their agents add in software
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --tor off
		     --ina "${v#rina-agent-}" --timeout 300 --
		     "$BIN/rina-bench" --transport udp "${ina_args[@]}") ;;
	rina-*)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --timeout 300 --
		     "$BIN/rina-bench" --transport "${v#rina-}" "${args[@]}") ;;
	mpi-ring)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --timeout 300 --mpi
		     --mpi-args "$MPI_RING" --
		     "$BIN/mpi-bench" "${args[@]}") ;;
	mpi-default)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --timeout 300 --mpi --
		     "$BIN/mpi-bench" "${args[@]}") ;;
	gloo)
		cmd=("$RUN" --topo "$topo" --mtu "$mtu" --timeout 600 --
		     /usr/bin/python3 "$top/scripts/gloo_bench.py" "${args[@]}")
		;;
	esac
	# shaped: the same links for every variant (after rina-run's options)
	[ ${#shape[@]} -gt 0 ] && cmd=("${cmd[0]}" "${shape[@]}" "${cmd[@]:1}")
	# CPU seconds of every process of the run (ranks, ToRs, mpirun), and
	# (sampled) the busiest process's share of a CPU
	( "${cmd[@]}" >"$log" 2>&1; rc=$?; times >"$out/times"; exit $rc ) &
	x=$!
	python3 "$top/scripts/bench_cpu.py" sample "$x" "$topo" "$v" "$rep" \
		>>"$cpu_samples" &
	wait "$x"
	rc=$?
	wait
	grep -h '^rina-run: \(shaping\|ECN marks\)' "$log" | sort -u \
		>"$out/shaping.txt"
	python3 "$top/scripts/bench_cpu.py" run "$out/times" "$log" \
		"$iters" "$warmup" "$topo" "$v" "$rep" >>"$cpu"
	if ! python3 "$top/scripts/bench_agg.py" --tag "$topo" "$v" "$rep" \
		<"$log" >>"$raw"; then
		echo "bench: $topo $v rep $rep: no JSON rows" >&2
		[ $rc -ne 0 ] || rc=1
	fi
	if [ $rc -ne 0 ]; then
		echo "bench: $topo $v rep $rep failed (exit $rc):" >&2
		tail -5 "$log" | sed 's/^/bench:   /' >&2
	fi
}

echo "# bench: $(date -u '+%F %H:%M UTC'), topologies $topos, sizes" \
	"$bmin..$bmax, $reps repetitions, iters $iters, warmup $warmup," \
	"$dtype sum, mtu $mtu (xdp: $xdp_mtu), variants ${variants[*]}" \
	"$([ "$shaped" -eq 1 ] && echo "+ rina-ina-x1..xK (-e64)")"
if [ "$shaped" -eq 1 ]; then
	echo "# shaped links: rina-run ${shape[*]}; load before the run:" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
else
	echo "# all ranks of a topology share this machine's $(nproc) cores:" \
		"figures are CPU-bound, compare them with each other only"
fi
start=$SECONDS
done_reps=0
for ((rep = 0; rep < reps; rep++)); do
	if [ $((SECONDS - start)) -ge "$budget" ]; then
		echo "# bench: time budget of ${budget}s used up after" \
			"$rep repetition(s)"
		break
	fi
	for topo in $topos; do
		# interleave: each repetition runs every variant once
		for v in $(variants_for "$topo"); do
			run_one "$topo" "$v" "$rep"
		done
	done
	done_reps=$((rep + 1))
	echo "# bench: repetition $done_reps/$reps done after" \
		"$((SECONDS - start))s" >&2
done

echo
if [ "$shaped" -eq 1 ]; then
	cat "$out/shaping.txt" 2>/dev/null
	python3 "$top/scripts/bench_agg.py" --rate "$rate" "$raw" |
		tee "$out/summary.txt"
	python3 "$top/scripts/bench_agg.py" --rate "$rate" --json "$raw" \
		>"$out/summary.jsonl"
	if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
		/usr/bin/python3 "$top/scripts/bench_plot.py" \
			"$out/summary.jsonl" "$out" "$rate"
	else
		echo "# no python3-matplotlib: no plots" >&2
	fi
else
	python3 "$top/scripts/bench_agg.py" "$raw" | tee "$out/summary.txt"
fi
echo
python3 "$top/scripts/bench_cpu.py" summary "$cpu" | tee -a "$out/summary.txt"
python3 "$top/scripts/bench_cpu.py" samples "$cpu_samples" |
	tee -a "$out/summary.txt"
echo "# raw rows: $raw"
