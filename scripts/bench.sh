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
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=$top/build/bin
RUN=$BIN/rina-run
topos=${BENCH_TOPOS:-1x2 2x2}
reps=${BENCH_REPS:-5}
bmin=${BENCH_MIN:-1M}
bmax=${BENCH_MAX:-64M}
iters=${BENCH_ITERS:-5}
warmup=${BENCH_WARMUP:-2}
mtu=${BENCH_MTU:-9000}
dtype=${BENCH_DTYPE:-float32}
budget=${BENCH_BUDGET:-480}
transports=${BENCH_TRANSPORTS:-udp xdp}
# INA patterns run as extra variants: rina-ina-<racks> through the software
# ToR (rina-tor), rina-agent-<racks> with the racks' agents adding in
# software (rina-run --tor off); x = 0 is rina-udp
ina_sets=${BENCH_INA-"0 all"}
agent_sets=${BENCH_AGENT-"all"}
xdp_mtu=${BENCH_XDP_MTU:-3500}
out=${BENCH_OUT:-$top/build/bench}

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$RUN" ] || die "no $RUN (run make first)"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
mkdir -p "$out" || die "cannot create $out"
raw=$out/rows.jsonl
cpu=$out/cpu.jsonl
: >"$raw"
: >"$cpu"

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
[ ${#variants[@]} -gt 0 ] || die "nothing to run"

# OpenMPI's tuned component: forced algorithm 4 = ring
MPI_RING="--mca coll_tuned_use_dynamic_rules 1"
MPI_RING+=" --mca coll_tuned_allreduce_algorithm 4"
args=(-b "$bmin" -e "$bmax" -f 2 -n "$iters" -w "$warmup" -c 1 -d "$dtype"
      -o sum --json)
ina_max=${BENCH_INA_MAX:-4M}
ina_args=(-b "$bmin" -e "$ina_max" -f 2 -n "$iters" -w "$warmup" -c 1
	  -d "$dtype" -o sum --json)

# run_one TOPO VARIANT REP: one benchmark run, rows appended to $raw
run_one()
{
	local topo=$1 v=$2 rep=$3 log=$out/last.log rc
	local cmd=()
	case "$v" in
	rina-xdp)
		cmd=("$RUN" --topo "$topo" --mtu "$xdp_mtu" --xdp auto
		     --timeout 300 --
		     "$BIN/rina-bench" --transport xdp "${args[@]}") ;;
	rina-ina-*)
		# INA racks: the software ToR adds (E = 64, one ToR pass)
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
	esac
	# CPU seconds of every process of the run (ranks, ToRs, mpirun)
	( "${cmd[@]}" >"$log" 2>&1; rc=$?; times >"$out/times"; exit $rc )
	rc=$?
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

echo "# bench: topologies $topos, sizes $bmin..$bmax, $reps repetitions," \
	"iters $iters, warmup $warmup, $dtype sum, mtu $mtu (xdp: $xdp_mtu)," \
	"variants ${variants[*]}"
echo "# all ranks of a topology share this machine's $(nproc) cores:" \
	"figures are CPU-bound, compare them with each other only"
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
		for v in "${variants[@]}"; do
			run_one "$topo" "$v" "$rep"
		done
	done
	done_reps=$((rep + 1))
	echo "# bench: repetition $done_reps/$reps done after" \
		"$((SECONDS - start))s" >&2
done

echo
python3 "$top/scripts/bench_agg.py" "$raw" | tee "$out/summary.txt"
echo
python3 "$top/scripts/bench_cpu.py" summary "$cpu" | tee -a "$out/summary.txt"
echo "# raw rows: $raw"
