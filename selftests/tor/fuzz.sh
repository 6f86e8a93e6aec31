#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Time-bounded libFuzzer run of the ToR model's packet entry point, seeded
# with every input packet of the packet vectors. Prints KTAP.
# Usage: fuzz.sh [SECONDS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-20}
bin=$top/build/selftests/tor/fuzz_tor
echo "TAP version 13"
echo "1..1"
if [ ! -x "$bin" ]; then
	echo "ok 1 fuzz_tor # SKIP $bin not built"
	exit 4
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
n=0
for f in "$top"/selftests/tor/vectors/*.vec; do
	while read -r kw port hex; do
		[ "$kw" = in ] || continue
		n=$((n + 1))
		perl -e 'my ($p, $h) = @ARGV; my $b = pack("H*", $h);
			 print pack("Cn", $p, length $b), $b' \
			"$port" "$hex" > "$work/corpus/seed$n"
	done < "$f"
done
# control-plane seeds: the vectors' cli lines, as one text per file
for f in "$top"/selftests/tor/vectors/*.vec; do
	n=$((n + 1))
	{ printf '\377'; sed -n 's/^cli //p' "$f"; } > "$work/corpus/seed$n"
done
if "$bin" -max_total_time="$secs" -seed=1 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$work/" \
		"$work/corpus" > "$work/log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	echo "ok 1 fuzz_tor # $n seeds, ${runs:-?} runs in ${secs}s"
	exit 0
fi
sed 's/^/# /' "$work/log" | tail -40
echo "not ok 1 fuzz_tor"
exit 1
