#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Tests under a sanitizer: builds the tree with it into build-KIND/
# (make BUILD=build-KIND SANITIZE=...: librina, the tools, rina-tor, the
# ToR model and the test programs; not the kernel module, the simulator
# or the Python extension), then runs LIST's tests against that build
# (run_tests.sh -b) with every report fatal and logged: a report fails
# the test it happened in. Prints KTAP (run_tests.sh's).
# Usage: san_suite.sh asan|tsan [LIST] [FILTER...]
#   LIST: selftests/TESTS.KIND (make check's subset) by default;
#   selftests/TESTS for every test (make check-san), less those that
#   selftests/san/skip names with the reason.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kind=${1:?usage: san_suite.sh asan|tsan [LIST] [FILTER...]}
list=${2:-$top/selftests/TESTS.$kind}
shift $(( $# > 1 ? 2 : 1 ))
case "$kind" in
asan)	san=address,undefined ;;
tsan)	san=thread ;;
*)	echo "san_suite.sh: $kind: not asan or tsan" >&2; exit 2 ;;
esac
build=$top/build-$kind
mkdir -p "$build"
logs=$build/san-logs
supp=$top/selftests/san

if ! make -C "$top" -s --no-print-directory BUILD="$build" \
		SANITIZE="$san" san-build >"$build/san-build.log" 2>&1; then
	echo "TAP version 13"
	echo "1..1"
	tail -30 "$build/san-build.log" | sed 's/^/# /'
	echo "not ok 1 make SANITIZE=$san san-build"
	exit 1
fi

# the list without what cannot run under a sanitizer (selftests/san/skip)
run_list=$build/TESTS
awk 'NR == FNR { if ($1 !~ /^#/ && NF) skip[$1] = 1; next }
     !($1 in skip)' "$supp/skip" "$list" >"$run_list"

rm -rf "$logs"
mkdir -p "$logs"
# every report fatal, in the test's output and in $logs (for the
# processes whose output or status no test reads); libbpf and libxdp
# are not instrumented, the LD_PRELOAD shims of some tests are not either
export SAN_LOG_DIR=$logs
log="log_exe_name=1:log_path=$logs"
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66"
ASAN_OPTIONS+=":detect_leaks=1:verify_asan_link_order=0:$log/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=67"
UBSAN_OPTIONS+=":$log/ubsan"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1"
TSAN_OPTIONS+=":suppressions=$supp/tsan.supp:$log/tsan"
exec "$top/selftests/run_tests.sh" -b "$build" -l "$run_list" "$@"
