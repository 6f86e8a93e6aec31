#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rinactl's genl subcommands on a host without rina.ko (the build host):
# clear messages and iproute2 exit codes. The module side runs in the VM
# (selftests/vm/rinactl_test.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
R=$top/build/bin/rinactl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_plan 11
if [ ! -x "$R" ]; then
	for i in $(seq 11); do ktap_skip "rinactl_nomod_$i" "no build/bin/rinactl"; done
	ktap_finish
fi
if "$R" job show >/dev/null 2>&1; then
	for i in $(seq 11); do ktap_skip "rinactl_nomod_$i" "rina.ko is loaded here"; done
	ktap_finish
fi
printf 'job 7\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n' > "$tmp/job.txt"
printf 'job 7\nrack 0 plain\nrank 0 198.18.0.1:80 rack 0\n' > "$tmp/bad.txt"
printf 'job 7\nauth mac\nrack 0 plain\nrank 0 198.18.0.1 rack 0\n' > "$tmp/mac.txt"
printf 'job 7\nrack 0 ina agent_port 21070\nrank 0 198.18.0.1 rack 0\n' > "$tmp/port.txt"

check() { # NAME WANT_RC PATTERN ARGS...
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$R" "$@" 2>&1); rc=$?
	if [ "$rc" != "$want" ]; then
		ktap_fail "$name" "exit $rc, want $want: $out"
	elif ! grep -q -- "$pat" <<<"$out"; then
		ktap_fail "$name" "output lacks \"$pat\": $out"
	else
		ktap_ok "$name"
	fi
}
check rinactl_nomod_job_show 1 'netlink family is absent (is rina.ko loaded?)' job show
check rinactl_nomod_job_add 1 'is rina.ko loaded' job add "$tmp/job.txt"
check rinactl_nomod_job_add_parse_first 1 'bad.txt:3' job add "$tmp/bad.txt"
# rina.ko takes a rack's agent_port now: passed on (to no kernel here)
check rinactl_nomod_job_add_agent_port 1 'is rina.ko loaded' job add "$tmp/port.txt"
# rina.ko takes auth mac now: rinactl passes it on (to no kernel here)
check rinactl_nomod_job_add_auth_mac 1 'is rina.ko loaded' job add "$tmp/mac.txt"
check rinactl_nomod_stats 1 'is rina.ko loaded' stats
check rinactl_nomod_monitor 1 'is rina.ko loaded' monitor
check rinactl_nomod_del_bad_id 2 'not a job id' job del 0
check rinactl_nomod_job_unknown_cmd 2 'unknown command' job frob
check rinactl_nomod_stats_usage 2 'Usage: rinactl stats' stats bogus
check rinactl_nomod_monitor_usage 2 'bad count' monitor count 0
ktap_finish
