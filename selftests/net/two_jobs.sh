# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Two concurrent jobs on one ToR, for test_tor.sh (rina-tor) and
# test_tor_bmv2.sh (bmv2): job B numbers each rack's hosts the other way
# round (its agent is another host, port 21057); the ToR holds both
# descriptions (--tor-job) and each agent installs its own job. Both must
# be exact and identical, each job's slots counted under its own entry
# (check_two_jobs.py). Sourced; needs $top, $run and $bench.

# two_jobs_on_tor DIR "RINA-BENCH ARGS" "JOB B LINES" [RINA-RUN ARGS...]:
# runs both jobs on a 2x2 with rack 0 INA, output in DIR/two.out; true
# when rina-run and the check pass
two_jobs_on_tor()
{
	local dir=$1 bargs=$2 extra=$3 rc
	shift 3
	{
		printf 'job 65535\nelements 64\n%b' "$extra"
		cat <<EOT
rack 0 ina tor 198.18.0.254
rack 1 plain
rank 0 198.18.0.2:21057 rack 0
rank 1 198.18.0.1:21057 rack 0
rank 2 198.18.1.2:21057 rack 1
rank 3 198.18.1.1:21057 rack 1
EOT
	} >"$dir/jobB"
	mkdir -p "$dir/two.tor"
	"$run" --topo 2x2 --ina 0 --timeout 150 --tor-stats "$dir/two.tor" \
		--tor-job "$dir/jobB" --job-opt 'job 4242' "$@" -- sh -c '
		m=2 r=$((RINA_RANK / 2)) i=$((RINA_RANK % 2))
		RINA_JOB=$0 RINA_RANK=$((r * m + m - 1 - i)) \
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
