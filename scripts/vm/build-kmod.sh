#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Build rina.ko for one kernel release: mirror the sources (symlinks) into
# OUTDIR so that kbuild writes its objects there, build at W=1 with sparse
# (C=1), and fail on any compiler or sparse warning.
#   build-kmod.sh KVER OUTDIR
set -euo pipefail
kver=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=/usr/src/linux-headers-$kver
[ -d "$kdir" ] || { echo "build-kmod: no headers for $kver in $kdir" >&2; exit 1; }

# one build per output tree at a time (parallel test lines build it too)
exec 9>"$out/.build.lock"
flock 9
mkdir -p "$out/kmod" "$out/core" "$out/include/uapi/linux"
ln -sfn "$top/Kbuild" "$out/Kbuild"
for f in "$top"/kmod/*.c "$top"/kmod/*.h; do ln -sfn "$f" "$out/kmod/"; done
# the core sources Kbuild compiles: the list in core/sources.mk
core_srcs=$(MAKEFLAGS= make -s --no-print-directory -f "$top/core/sources.mk" \
	--eval 'print: ; @echo $(CORE_SRCS)' print)
[ -n "$core_srcs" ] || { echo "build-kmod: empty CORE_SRCS" >&2; exit 1; }
for f in "$top"/core/*.h "$top"/core/sources.mk; do ln -sfn "$f" "$out/core/"; done
for f in $core_srcs; do ln -sfn "$top/core/$f" "$out/core/"; done
ln -sfn "$top/include/uapi/linux/rina.h" "$out/include/uapi/linux/rina.h"

log=$out/build.log
rm -f "$out/rina.ko"	# never leave a stale module behind a failed build
checker=()
command -v sparse >/dev/null && checker=(C=1 CHECK=sparse)
if ! make -s -C "$kdir" M="$out" W=1 "${checker[@]}" modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -v "jobserver unavailable" "$log" | grep -iE "warning:|error:" >&2; then
	echo "build-kmod: warnings for $kver (see $log)" >&2
	rm -f "$out/rina.ko"
	exit 1
fi
[ -f "$out/rina.ko" ]
