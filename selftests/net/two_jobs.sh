# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Two concurrent jobs on one ToR, for test_tor.sh (rina-tor) and
# test_tor_bmv2.sh (bmv2): job B's ranks use port 21057; the ToR holds
# both descriptions (--tor-job) and each agent installs its own job. Both
# must be exact and identical, each job's slots counted under its own
# entry (check_two_jobs.py). Sourced; needs $top, $run and $bench.

# two_jobs_on_tor DIR "RINA-BENCH ARGS" "JOB B LINES" [RINA-RUN ARGS...]:
# runs both jobs on a 2x2 with rack 0 INA, output in DIR/two.out; true
# when rina-run and the check pass. Job B numbers each rack's hosts the
# other way round, so its agent is another host than job A's; with
# TWO_JOBS_AGENT_PORT=P it numbers them as job A does and its agent
# shares job A's agent's host, on agent port P (job-file.md).
two_jobs_on_tor()
{
	local dir=$1 bargs=$2 extra=$3 rc a=1 b=2 flip=1 aport=
	shift 3
	if [ -n "${TWO_JOBS_AGENT_PORT:-}" ]; then
		a=2 b=1 flip=0 aport=" agent_port $TWO_JOBS_AGENT_PORT"
	fi
	{
		printf 'job 65535\nelements 64\n%b' "$extra"
		cat <<EOT
rack 0 ina tor 198.18.0.254$aport
rack 1 plain
rank 0 198.18.0.$b:21057 rack 0
rank 1 198.18.0.$a:21057 rack 0
rank 2 198.18.1.$b:21057 rack 1
rank 3 198.18.1.$a:21057 rack 1
EOT
	} >"$dir/jobB"
	mkdir -p "$dir/two.tor"
	"$run" --topo 2x2 --ina 0 --timeout 150 --tor-stats "$dir/two.tor" \
		--tor-job "$dir/jobB" --job-opt 'job 4242' "$@" -- sh -c '
		m=2 r=$((RINA_RANK / 2)) i=$((RINA_RANK % 2))
		[ '"$flip"' = 1 ] && i=$((m - 1 - i))
		RINA_JOB=$0 RINA_RANK=$((r * m + i)) \
			"$1" -d int32 '"$bargs"' --json |
			sed "s/^{/{\"job\":\"B\",/" &
		"$1" -d float32 '"$bargs"' --json |
			sed "s/^{/{\"job\":\"A\",/"
		wait' "$dir/jobB" "$bench" >"$dir/two.out" 2>&1
	rc=$?
	/usr/bin/python3 "$top/selftests/net/check_two_jobs.py" \
		"$dir/two.out" "$dir/two.tor/tor0.json" || return 1
	[ "$rc" -eq 0 ] || { echo "# rina-run: $rc"; return 1; }
}
