#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rinactl job gen: job files from an OpenMPI or Slurm/MPICH hostfile and
# from SLURM_JOB_NODELIST, racks by size or by a map file, checked by the
# job-file parser (rinactl job add parses first: without rina.ko it then
# fails on netlink, not on the file). Bad input (hostfile junk, a host
# missing from the map, more ranks than a host's ports, an unwritable
# output) is a clear error naming file:line, exit 1, nothing written and
# a previous output left as it was.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
R=$top/build/bin/rinactl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=19

ktap_plan $N
if [ ! -x "$R" ]; then
	for i in $(seq $N); do ktap_skip "job_gen_$i" "no build/bin/rinactl"; done
	ktap_finish
fi
cd "$tmp" || exit 1

# same: NAME FILE EXPECTED_TEXT
same() {
	if diff -u <(printf '%s\n' "$3") "$2" > diff.out; then
		ktap_ok "$1"
	else
		sed 's/^/# /' diff.out
		ktap_fail "$1"
	fi
}

# refused: NAME PATTERN ARGS... (exit 1, the message, out.txt untouched)
refused() {
	local name=$1 pat=$2 out rc
	shift 2
	echo sentinel > out.txt
	out=$(env -u SLURM_JOB_ID "$R" job gen "$@" -o out.txt 2>&1); rc=$?
	if [ $rc != 1 ]; then
		ktap_fail "$name" "exit $rc, want 1: $out"
	elif ! grep -q -- "$pat" <<<"$out"; then
		ktap_fail "$name" "message lacks \"$pat\": $out"
	elif [ "$(cat out.txt)" != sentinel ] || ls | grep -q '\.tmp$'; then
		ktap_fail "$name" "output touched: $(ls)"
	else
		ktap_ok "$name"
	fi
}

# parses: NAME FILE (rinactl job add's parser accepted it)
parses() {
	local out
	out=$("$R" job add "$2" 2>&1)
	if grep -q 'rina.ko' <<<"$out" || grep -q 'added' <<<"$out"; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "$out"
	fi
}

cat > ompi.hosts <<'EOF2'
# OpenMPI syntax
198.18.0.1 slots=2
198.18.0.2 slots=2 max_slots=4   # a cap for mpirun only
198.18.1.1
198.18.1.2 slots=1
EOF2
if "$R" job gen --hostfile ompi.hosts --rack-size 2 --job 9 --ina 0 \
	--tor 1=198.18.1.254 --set 'window 64' -o ompi.job 2> err.out; then
	ktap_ok job_gen_openmpi_hostfile
else
	ktap_fail job_gen_openmpi_hostfile "$(cat err.out)"
fi
same job_gen_openmpi_text ompi.job "# Rina job written by rinactl job gen: 4 hosts, 6 ranks
job 9
window 64
rack 0 ina
rack 1 ina tor 198.18.1.254
# 198.18.0.1
rank 0 198.18.0.1:21056 rack 0
rank 1 198.18.0.1:21057 rack 0
# 198.18.0.2
rank 2 198.18.0.2:21056 rack 0
rank 3 198.18.0.2:21057 rack 0
# 198.18.1.1
rank 4 198.18.1.1:21056 rack 1
# 198.18.1.2
rank 5 198.18.1.2:21056 rack 1"
parses job_gen_openmpi_parses ompi.job

# Slurm/MPICH syntax, ranks per host overriding the counts, on stdout
printf '198.18.2.1:4\n198.18.2.2\n' > slurm.hosts
"$R" job gen --hostfile slurm.hosts --ranks-per-host 3 --job 3 > slurm.job
same job_gen_slurm_hostfile slurm.job "# Rina job written by rinactl job gen: 2 hosts, 6 ranks
job 3
rack 0 plain
# 198.18.2.1
rank 0 198.18.2.1:21056 rack 0
rank 1 198.18.2.1:21057 rack 0
rank 2 198.18.2.1:21058 rack 0
# 198.18.2.2
rank 3 198.18.2.2:21056 rack 0
rank 4 198.18.2.2:21057 rack 0
rank 5 198.18.2.2:21058 rack 0"

# SLURM_JOB_NODELIST + SLURM_TASKS_PER_NODE, racks (and addresses) from
# a map that lists more of the cluster than the job has; the map's racks
# reorder the hosts so that a rack's ranks are consecutive
cat > rack.map <<'EOF2'
# host rack address
node01 1 198.18.0.1
node02 0 198.18.0.2
node03 1 198.18.0.3
node04 0 198.18.0.4
node07 2 198.18.0.7
node08 2 198.18.0.8
gpu5   2 198.18.0.5
EOF2
SLURM_JOB_NODELIST='node[01-04,07],gpu5' SLURM_TASKS_PER_NODE='2(x2),1(x4)' \
SLURM_JOB_ID=65535 "$R" job gen --slurm --rack-map rack.map -o slurm2.job
same job_gen_slurm_nodelist slurm2.job "# Rina job written by rinactl job gen: 6 hosts, 8 ranks
job 1
rack 0 plain
rack 1 plain
rack 2 plain
# node02
rank 0 198.18.0.2:21056 rack 0
rank 1 198.18.0.2:21057 rack 0
# node04
rank 2 198.18.0.4:21056 rack 0
# node01
rank 3 198.18.0.1:21056 rack 1
rank 4 198.18.0.1:21057 rack 1
# node03
rank 5 198.18.0.3:21056 rack 1
# node07
rank 6 198.18.0.7:21056 rack 2
# gpu5
rank 7 198.18.0.5:21056 rack 2"
parses job_gen_slurm_parses slurm2.job

# bad input
printf '198.18.0.1\n198.18.0.2 slots=x\n' > junk1.hosts
refused job_gen_junk_slots 'junk1.hosts:2: "slots=x": slots must be a number in 1..8' \
	--hostfile junk1.hosts --job 1
printf '198.18.0.1\n\n198.18.0.2 ports=3\n' > junk2.hosts
refused job_gen_junk_field 'junk2.hosts:3: "ports=3": expected "host \[slots=N\]" or "host:N"' \
	--hostfile junk2.hosts --job 1
printf '198.18.0.1:x\n' > junk3.hosts
refused job_gen_junk_colon 'junk3.hosts:1: "x": expected host:N' \
	--hostfile junk3.hosts --job 1
printf 'node01\nnode09 slots=2\n' > unknown.hosts
refused job_gen_host_not_in_map 'unknown.hosts:2: host node09 is not in the rack map rack.map' \
	--hostfile unknown.hosts --rack-map rack.map --job 1
printf '198.18.0.1 slots=9\n' > ports1.hosts
refused job_gen_more_ranks_than_ports 'ports1.hosts:1: "slots=9": slots must be a number in 1..8' \
	--hostfile ports1.hosts --job 1
printf '198.18.0.1 slots=5\n198.18.0.2\n198.18.0.1 slots=4\n' > ports2.hosts
refused job_gen_more_ranks_than_ports_summed 'ports2.hosts:3: 198.18.0.1: 9 ranks, but a host has 8 Rina worker ports' \
	--hostfile ports2.hosts --job 1
refused job_gen_nodelist_bad '\-\-nodelist: range runs backwards' \
	--nodelist 'node[04-01]' --job 1
printf 'no-such-host.invalid\n' > dns.hosts
refused job_gen_unresolvable 'dns.hosts:1: no-such-host.invalid: no IPv4 address' \
	--hostfile dns.hosts --job 1
printf 'node01 x\n' > bad.map
refused job_gen_bad_map 'bad.map:1: rack "x" is not a number' \
	--nodelist node01 --rack-map bad.map --job 1
refused job_gen_no_job_id 'give --job ID' --hostfile ompi.hosts
# the parser's verdict on the whole job, before anything is written
refused job_gen_parser_verdict 'generated job:.*window: 48 is not a power of two' \
	--hostfile ompi.hosts --job 2 --set 'window 48'

# an unwritable output: the error names it, nothing is left
out=$("$R" job gen --hostfile ompi.hosts --job 2 -o "$tmp/no/dir/job" 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q "$tmp/no/dir/job.tmp: No such file or directory" <<<"$out" &&
   [ ! -e "$tmp/no" ]; then
	ktap_ok job_gen_unwritable_output
else
	ktap_fail job_gen_unwritable_output "exit $rc: $out"
fi
# a good run replaces the previous file at once (no .tmp left behind)
echo sentinel > out.txt
"$R" job gen --hostfile slurm.hosts --job 3 -o out.txt &&
	grep -q '^job 3$' out.txt && ! ls | grep -q '\.tmp$' &&
	ktap_ok job_gen_replaces_output || ktap_fail job_gen_replaces_output "$(ls)"
ktap_finish
