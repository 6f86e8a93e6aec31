#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# librina.so exports exactly the functions rina.h declares
# (user/lib/librina.map), no internal symbol.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/ktap.sh"
so=$top/build/lib/librina.so.1
[ -e "$so" ] || { echo "1..0 # SKIP $so not built"; exit 4; }
ktap_plan 2
api=$(grep -oE '\brina_[a-z0-9_]+\(' "$top/user/include/rina.h" |
	tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' |
	sed 's/@.*//' | sort -u)
extra=$(comm -13 <(echo "$api") <(echo "$exported"))
missing=$(comm -23 <(echo "$api") <(echo "$exported"))
if [ -z "$extra" ]; then
	ktap_ok "librina.so exports no internal function"
else
	ktap_fail "librina.so exports internals" "$(echo $extra | head -c 200)"
fi
if [ -z "$missing" ]; then
	ktap_ok "every function of rina.h is exported ($(echo "$api" | wc -l))"
else
	ktap_fail "rina.h functions not exported" "$(echo $missing)"
fi
ktap_finish
