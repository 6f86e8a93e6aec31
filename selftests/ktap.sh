# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# KTAP helpers for shell tests: ktap_plan N; ktap_ok NAME; ktap_fail NAME
# [WHY]; ktap_skip NAME WHY; ktap_check NAME CMD...; ktap_finish.
ktap_n=0
ktap_nfail=0
ktap_npass=0
ktap_plan() { echo "TAP version 13"; echo "1..$1"; }
ktap_ok() { ktap_n=$((ktap_n + 1)); ktap_npass=$((ktap_npass + 1)); echo "ok $ktap_n $1"; }
ktap_fail() {
	ktap_n=$((ktap_n + 1)); ktap_nfail=$((ktap_nfail + 1))
	[ -n "${2:-}" ] && echo "# $1: $2"
	echo "not ok $ktap_n $1"
}
ktap_skip() { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $1 # SKIP ${2:-}"; }
ktap_check() {
	local name=$1; shift
	if "$@"; then ktap_ok "$name"; else ktap_fail "$name" "command failed: $*"; fi
}
ktap_finish() {
	echo "# Totals: pass:$ktap_npass fail:$ktap_nfail skip:$((ktap_n - ktap_npass - ktap_nfail))"
	[ "$ktap_nfail" -eq 0 ] || exit 1
	[ "$ktap_npass" -eq 0 ] && [ "$ktap_n" -gt 0 ] && exit 4
	exit 0
}
