#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The committed packet vectors are exactly what gen_vectors.py writes: a
# protocol change must update both, reviewed together. Prints KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
echo "TAP version 13"
echo "1..1"
if ! command -v python3 >/dev/null; then
	echo "ok 1 vectors match their generator # SKIP no python3"
	exit 4
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if python3 "$top/selftests/tor/gen_vectors.py" "$tmp" &&
   diff -ru "$top/selftests/tor/vectors" "$tmp" >"$tmp.diff" 2>&1; then
	echo "ok 1 vectors match their generator"
	rm -f "$tmp.diff"
	exit 0
fi
head -40 "$tmp.diff" | sed 's/^/# /'
rm -f "$tmp.diff"
echo "not ok 1 vectors match their generator"
exit 1
