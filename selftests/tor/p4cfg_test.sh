#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-p4cfg: the commands it generates for the packet vectors' job and
# rack must make the model pass those vectors (their own configuration
# replaced by the generated one), and bad requests must fail clearly.
# With --bmv2 the vectors run on the compiled program on simple_switch
# (selftests/tor/bmv2_vectors.py) instead of the model: the generated
# commands through the real runtime CLI.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cfg=$top/build/bin/rina-p4cfg
run=$top/build/selftests/tor/tor_vectors
if [ "${1:-}" = --bmv2 ]; then
	run=$top/selftests/tor/bmv2_vectors.py
	if ! why=$("$run" --missing); then
		echo "TAP version 13"
		echo "1..1"
		echo "ok 1 generated install on bmv2 # SKIP $why"
		exit 4
	fi
fi
job=$top/selftests/tor/job_rack1.txt
vec=$top/selftests/tor/vectors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 bad=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); echo "not ok $n $1"; bad=1; }

echo "TAP version 13"
echo "1..13"
if ! "$cfg" -f "$job" -r 1 -u 0 -p 1:1 -p 2:2 -p 3:3 -l > "$work/cfg"; then
	nok "generate"
else
	ok "generate"
fi
# the generated install, then the plain-L2 part the vectors also set up
{
	grep -v '^#' "$work/cfg" | sed 's/^/cli /'
	echo "cli table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:00:0a => 0"
	echo "cli table_add RinaIngress.l2_fwd.l2_fwd RinaIngress.l2_fwd.set_port 02:00:00:00:02:0a => 0"
	echo "cli mc_mgrp_create 1"
	echo "cli mc_node_create 0 0 1 2 3"
	echo "cli mc_node_associate 1 6"
} > "$work/head"
for v in agg_first_chunk agg_with_upstream own_chunk_mcast \
	 duplicates_reemit allgather_ack; do
	{ cat "$work/head"; grep -v '^cli ' "$vec/$v.vec"; } > "$work/$v.vec"
	if out=$("$run" "$work/$v.vec"); then
		ok "vectors $v with the generated install"
	else
		echo "$out" | sed 's/^/# /'
		nok "vectors $v with the generated install"
	fi
done
if err=$("$cfg" -f "$job" -r 0 -u 0 -p 0:1 2>&1 >/dev/null); then
	nok "plain rack refused"
else
	echo "# $err"
	ok "plain rack refused"
fi
if err=$("$cfg" -f "$job" -r 1 -u 0 -p 1:1 -p 2:2 2>&1 >/dev/null); then
	nok "missing local port refused"
else
	echo "# $err"
	ok "missing local port refused"
fi
# -k: the ToR layout rina-tor installs with (rina_p4cfg_layout()): job 2
# after jobs of windows 8 and 16 has job index 2, pool 2*8 + 2*16, group
# 4, replica ids from 1 + 64*2; a job beyond the pool is refused
p="-f $job -r 1 -u 0 -p 1:1 -p 2:2 -p 3:3 -n 5"
if "$cfg" $p -k 2:8,16 > "$work/cfg_k" &&
   "$cfg" $p -i 2 -b 48 -g 4 -R 129 > "$work/cfg_i" &&
   cmp -s "$work/cfg_k" "$work/cfg_i"; then
	ok "-k 2:8,16 is job index 2, pool base 48, group 4, rid base 129"
else
	diff "$work/cfg_k" "$work/cfg_i" | sed 's/^/# /'
	nok "-k 2:8,16 is job index 2, pool base 48, group 4, rid base 129"
fi
if err=$("$cfg" $p -k 1:2048 2>&1 >/dev/null); then
	nok "-k: a job beyond the ToR's pool refused"
else
	echo "# $err"
	ok "-k: a job beyond the ToR's pool refused"
fi
# a job with a secret is tagged: both set_job entries (agent and ToR
# address) say so, and the tag itself is never shown
umask 077
od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$work/secret"
echo >> "$work/secret"
{ cat "$job"; echo "secret_file $work/secret"; } > "$work/job_s"
if "$cfg" -f "$work/job_s" -r 1 -u 0 -p 1:1 -p 2:2 -p 3:3 > "$work/cfg_s" &&
   [ "$(grep -c 'set_job .* 1 tag_set$' "$work/cfg_s")" = 2 ] &&
   [ "$(grep -c 'set_job .* 0 0$' "$work/cfg")" = 2 ]; then
	ok "set_job: tagged 1 with the tag left for the installer, untagged 0 0"
else
	grep set_job "$work/cfg_s" "$work/cfg" | sed 's/^/# /'
	nok "set_job: tagged 1 with the tag left for the installer, untagged 0 0"
fi
tag=$("$top/build/selftests/tor/tor_ctrl" "$work/job_s" tag)
if [ ${#tag} = 16 ] && ! grep -qi "$tag" "$work/cfg_s" &&
   ! "$cfg" -f "$work/job_s" -H | grep -qi "$tag"; then
	ok "the job's tag is in no output of rina-p4cfg"
else
	nok "the job's tag is in no output of rina-p4cfg"
fi
# a rack's agent_port: the set_job entry of the agent's address matches
# it and writes it as the switch's source, rw_agent sends there; the
# ToR's own address still takes contributions on 21071; nothing else moves
sed 's/^rack 1 ina tor 198.18.1.254$/& agent_port 21068/' "$job" > "$work/job_p"
a='198.18.1.11'
if "$cfg" -f "$work/job_p" -r 1 -u 0 -p 1:1 -p 2:2 -p 3:3 -l > "$work/cfg_p" &&
   [ "$(diff "$work/cfg" "$work/cfg_p" | grep -c '^>')" = 3 ] &&
   grep -q "set_job $a 21068 7 => .* $a 21068 0 0\$" "$work/cfg_p" &&
   grep -q "set_job 198.18.1.254 21071 7 => .* $a 21068 0 0\$" "$work/cfg_p" &&
   grep -q "rw_agent [0-9]* => [0-9a-f:]* $a 21068\$" "$work/cfg_p"; then
	ok "agent_port 21068: the agent's set_job key and source, rw_agent; the ToR's address on 21071"
else
	diff "$work/cfg" "$work/cfg_p" | sed 's/^/# /'
	nok "agent_port 21068: the agent's set_job key and source, rw_agent; the ToR's address on 21071"
fi
exit $bad
