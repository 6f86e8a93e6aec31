#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# BENCH_DDP=1 make bench (or this script alone, as root): time per PyTorch
# DDP training step (python/bench/ddp_bench.py) under rina-run, for a ~1M
# and a ~25M parameter model on 2x2, 2x4 and 2x4 with every rack INA
# through its ToR (rina-tor), links unshaped and shaped, every mode in
# the same run (same model, same batch, modes taking turns): by default
# the processes start as a user of the backend does,
# dist.init_process_group("rina"), and time DDP over that default group
# (rina-backend) against DDP over a Gloo group beside it (gloo) and the
# step without communication (local). BENCH_DDP_INIT=gloo instead starts
# Gloo's default group and adds the comm hook (rina-hook) and a manual
# Rina allreduce after backward (rina-manual), issue 11's comparison;
# its rina-backend group then sits on ports no ToR knows.
#
# Environment knobs (defaults in brackets):
#   BENCH_DDP_PARAMS ["1M 25M"]  empty: no DDP, the sweep only
#   BENCH_DDP_TOPOS ["2x2 2x4 2x4-ina"]  KxM, or KxM-ina: every rack INA
#     with its ToR (rina-run --ina all --tor on)
#   BENCH_DDP_SHAPES ["none shaped"]  none: unshaped (CPU-bound) links
#   BENCH_DDP_RATE_<P> [1M: 25mbit, 25M: 250mbit]  the shaped links' rate
#     (rina-run --rate) per model: at those rates a ring allreduce of the
#     gradients takes about 2 s (1M) and 5 s (25M), several times the
#     step's compute, so that the links, not the 2 cores, are the limit
#     (at 500mbit 8 ranks' traffic through the emulation's veths and
#     bridges already competes with the compute for the cores)
#   BENCH_DDP_QUEUE [20ms]        rina-run --queue of shaped runs
#   BENCH_DDP_BATCH_<P> [1M: 32, 25M: 4]  batch (25M: ~0.25 s of compute
#     per rank and step with Debian's reference BLAS)
#   BENCH_DDP_STEPS_<P> [1M: 10, 25M: 4]  timed steps per mode
#   BENCH_DDP_ROUNDS_<P> [1M: 2, 25M: 1]  the modes take turns this many
#     times (steps split among the rounds)
#   BENCH_DDP_WARMUP [2]  untimed steps per mode and round (DDP rebuilds
#     its buckets in the second step)
#   BENCH_DDP_INIT [rina]  the default process group's backend (above)
#   BENCH_DDP_MODES [local,gloo,rina-backend; with BENCH_DDP_INIT=gloo
#     also rina-hook,rina-manual]  (rina-backend only when the rina_c10d
#     extension is built)
#   BENCH_DDP_LAYERS [6]  hidden layers of the MLP
#   BENCH_DDP_BUCKET_MB [25]  DDP's bucket_cap_mb (its default)
#   BENCH_DDP_RUN_TIMEOUT [600]  seconds one setting (one rina-run) may
#     take before rina-run kills it: the bench ends within
#     settings x this, whatever happens
#   BENCH_DDP_SWEEP [1]  then a bare dist.all_reduce sweep
#     (python/bench/allreduce_bench.py: the backend "rina" against Gloo,
#     call by call) on every topology and link kind above; 0: none
#   BENCH_DDP_SWEEP_MIN [256K], BENCH_DDP_SWEEP_MAX [4M]  its sizes
#     (doubling); shaped links at the 1M model's rate
#   BENCH_DDP_SWEEP_CALLS [5]  timed calls per size and backend
#   BENCH_OUT [build/bench]   ddp_rows.jsonl, ddp_summary.txt,
#     ddp_step_time.png, allreduce_rows.jsonl, allreduce_summary.txt and
#     allreduce_sweep.png go there
# The defaults (12 DDP settings, 6 sweeps) take about 20 minutes on an
# idle 2-core machine.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RUN=$top/build/bin/rina-run
PY=/usr/bin/python3
params_list=${BENCH_DDP_PARAMS-1M 25M}
topos=${BENCH_DDP_TOPOS:-2x2 2x4 2x4-ina}
shapes=${BENCH_DDP_SHAPES:-none shaped}
queue=${BENCH_DDP_QUEUE:-20ms}
warmup=${BENCH_DDP_WARMUP:-2}
init=${BENCH_DDP_INIT:-rina}
run_timeout=${BENCH_DDP_RUN_TIMEOUT:-600}
if [ "$init" = gloo ]; then
	def_modes=local,gloo,rina-backend,rina-hook,rina-manual
	[ -e "$top/build/python/rina_c10d.stamp" ] ||
		def_modes=local,gloo,rina-hook,rina-manual
else
	def_modes=local,gloo,rina-backend
fi
modes=${BENCH_DDP_MODES:-$def_modes}
layers=${BENCH_DDP_LAYERS:-6}
bucket=${BENCH_DDP_BUCKET_MB:-25}
out=${BENCH_OUT:-$top/build/bench}

die() { echo "bench_ddp: $*" >&2; exit 1; }

# per_model KNOB PARAMS DEFAULT_1M DEFAULT_OTHER: BENCH_DDP_<KNOB>_<PARAMS>
per_model()
{
	local var=BENCH_DDP_$1_$2
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
	elif [ "$2" = 1M ]; then
		echo "$3"
	else
		echo "$4"
	fi
}

[ -x "$RUN" ] || die "no $RUN (run make first)"
case "$init" in
gloo) ;;
rina) [ -e "$top/build/python/rina_c10d.stamp" ] ||
	die "BENCH_DDP_INIT=rina: the rina_c10d extension is not built" \
		"(make, with libtorch-dev: make deps)" ;;
*) die "BENCH_DDP_INIT must be rina or gloo, not '$init'" ;;
esac
for topo in $topos; do
	[[ "$topo" =~ ^[0-9]+x[0-9]+(-ina)?$ ]] ||
		die "BENCH_DDP_TOPOS: '$topo' is not KxM or KxM-ina"
done
sweep=${BENCH_DDP_SWEEP:-1}
sweep_min=${BENCH_DDP_SWEEP_MIN:-256K}
sweep_max=${BENCH_DDP_SWEEP_MAX:-4M}
sweep_calls=${BENCH_DDP_SWEEP_CALLS:-5}
[[ "$sweep" =~ ^[01]$ ]] || die "BENCH_DDP_SWEEP must be 0 or 1"
[[ "$sweep_calls" =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_DDP_SWEEP_CALLS must be a positive number"
for v in "$sweep_min" "$sweep_max"; do
	[[ "$v" =~ ^[1-9][0-9]*[KMG]?$ ]] ||
		die "BENCH_DDP_SWEEP_MIN/MAX: '$v' is not a size (256K, 4M)"
done
if [ "$sweep" = 1 ] && [ ! -e "$top/build/python/rina_c10d.stamp" ]; then
	echo "bench_ddp: no rina_c10d extension: no all_reduce sweep" >&2
	sweep=0
fi
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_DDP_RUN_TIMEOUT must be a number of seconds"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
$PY -c 'import torch.distributed' 2>/dev/null ||
	die "no python3-torch for $PY"
mkdir -p "$out" || die "cannot create $out"
raw=$out/ddp_rows.jsonl
log=$out/ddp_last.log
: >"$raw"

echo "# bench_ddp: $(date -u '+%F %H:%M UTC'), models $params_list," \
	"topologies $topos, links $shapes (queue $queue), init $init," \
	"modes $modes, at most ${run_timeout}s per setting," \
	"$layers hidden layers, bucket_cap_mb $bucket," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$SECONDS
failed=0

# run_setting WHAT ROWS TOPO SCRIPT ARGS...: SCRIPT under rina-run on
# TOPO (KxM-ina: every rack INA through its ToR) with $shaping, rank 0's
# JSON rows appended to ROWS without rina-run's "[rank 0] "; a failed
# run or one without rows is reported and sets failed
run_setting()
{
	local what=$1 rows=$2 topo=$3 script=$4 rc t0=$SECONDS ina=()
	shift 4
	[ "${topo%-ina}" != "$topo" ] && ina=(--ina all --tor on)
	PYTHONPATH=$top/python "$RUN" --topo "${topo%-ina}" "${ina[@]}" \
		"${shaping[@]}" --timeout "$run_timeout" -- \
		$PY "$top/python/bench/$script" "$@" --json \
		--tag "topo=$topo" --tag "rate=$rate" >"$log" 2>&1
	rc=$?
	sed -n 's/^\[rank 0\] \({.*}\)$/\1/p' "$log" >>"$rows"
	if [ $rc -ne 0 ] || ! grep -q '^\[rank 0\] {' "$log"; then
		echo "bench_ddp: $what $topo $rate failed (exit $rc):" >&2
		tail -5 "$log" | sed 's/^/bench_ddp:   /' >&2
		failed=1
	fi
	echo "# bench_ddp: $what $topo links $rate: $((SECONDS - t0))s" >&2
}

for p in $params_list; do
	batch=$(per_model BATCH "$p" 32 4)
	steps=$(per_model STEPS "$p" 10 4)
	rounds=$(per_model ROUNDS "$p" 2 1)
	for shape in $shapes; do
		rate=none
		shaping=()
		if [ "$shape" = shaped ]; then
			rate=$(per_model RATE "$p" 25mbit 250mbit)
			shaping=(--rate "$rate" --queue "$queue")
		fi
		for topo in $topos; do
			load=$(cut -d' ' -f1 /proc/loadavg)
			run_setting "$p (load before $load)" "$raw" "$topo" \
				ddp_bench.py --params "$p" --batch "$batch" \
				--steps "$steps" --warmup "$warmup" \
				--rounds "$rounds" --layers "$layers" \
				--bucket-mb "$bucket" --modes "$modes" \
				--init "$init" --tag "load1=$load"
		done
	done
done
echo "# bench_ddp: $((SECONDS - start))s, load after" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
[ -s "$raw" ] && $PY "$top/scripts/bench_ddp_plot.py" "$raw" "$out" |
	tee "$out/ddp_summary.txt"
[ "$sweep" = 1 ] || exit $failed

# The bare dist.all_reduce sweep: one rina-run per topology and link
# kind, the two backends taking turns call by call inside it
ar_raw=$out/allreduce_rows.jsonl
: >"$ar_raw"
echo "# bench_ddp: all_reduce sweep $sweep_min..$sweep_max," \
	"$sweep_calls calls a size and backend, topologies $topos," \
	"links $shapes"
start=$SECONDS
for shape in $shapes; do
	rate=none
	shaping=()
	if [ "$shape" = shaped ]; then
		rate=$(per_model RATE 1M 25mbit 25mbit)
		shaping=(--rate "$rate" --queue "$queue")
	fi
	for topo in $topos; do
		run_setting "all_reduce sweep" "$ar_raw" "$topo" \
			allreduce_bench.py -b "$sweep_min" -e "$sweep_max" \
			-n "$sweep_calls"
	done
done
echo "# bench_ddp: all_reduce sweep $((SECONDS - start))s"
$PY "$top/scripts/bench_allreduce_plot.py" "$ar_raw" "$out" |
	tee "$out/allreduce_summary.txt"
exit $failed
