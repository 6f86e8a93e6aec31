#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The P4 program compiles for bmv2 (p4c-bm2-ss --std p4-16 --arch v1model,
# the build's rule in p4/build.mk) to a JSON and a P4Info that are up to
# date with the sources, without one warning. Prints KTAP; skips when no
# compiler is found ($P4C, PATH, /opt/p4tools/bin).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
out=$top/build/p4
p4c=${P4C:-$(command -v p4c-bm2-ss || ls /opt/p4tools/bin/p4c-bm2-ss 2>/dev/null)}

ktap_plan 4
if [ -z "$p4c" ] || [ ! -x "$p4c" ]; then
	for t in "compiled" "up to date" "no compiler warning" "P4Info"; do
		ktap_skip "$t" "no P4 compiler (p4c-bm2-ss): set P4C or PATH, or run ../shared/p4tools/install.sh"
	done
	ktap_finish
fi
echo "# $("$p4c" --version 2>&1 | tail -1)"
if [ -s "$out/rina_tor.json" ]; then
	ktap_ok "compiled"
else
	ktap_fail "compiled" "$out/rina_tor.json missing: run make"
fi
stale=$(find "$top/p4" -maxdepth 1 -name '*.p4' -newer "$out/rina_tor.json" \
	2>/dev/null)
if [ -s "$out/rina_tor.json" ] && [ -z "$stale" ]; then
	ktap_ok "up to date"
else
	ktap_fail "up to date" "newer than the JSON: ${stale//$'\n'/ } (run make)"
fi
if [ -f "$out/rina_tor.p4c.log" ] && [ ! -s "$out/rina_tor.p4c.log" ]; then
	ktap_ok "no compiler warning"
else
	sed 's/^/# /' "$out/rina_tor.p4c.log" 2>/dev/null | head -40
	ktap_fail "no compiler warning" "see $out/rina_tor.p4c.log"
fi
# the runtime names rina-p4cfg and the vectors use are the program's
missing=""
for t in RinaIngress.job_classify.rina_job RinaIngress.job_classify.rina_worker \
	 RinaIngress.l2_fwd.l2_fwd RinaIngress.drop_sim.drop_sim \
	 RinaEgress.drop_sim.drop_sim RinaEgress.rewrite.replica \
	 RinaIngress.counters.job_ctr RinaIngress.counters.tor_ctr \
	 RinaEgress.counters.job_out; do
	grep -q "name: \"$t\"" "$out/rina_tor.p4info.txtpb" 2>/dev/null ||
		missing="$missing $t"
done
if [ -z "$missing" ]; then
	ktap_ok "P4Info"
else
	ktap_fail "P4Info" "not in rina_tor.p4info.txtpb:$missing"
fi
ktap_finish
