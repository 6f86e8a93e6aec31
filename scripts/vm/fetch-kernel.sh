#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Fetch the Debian image of one kernel release into the build tree
# (apt-get download + dpkg-deb -x, never installed) and run depmod on it.
#   fetch-kernel.sh KVER ROOTDIR      (cached: a no-op once extracted;
#                                     concurrent callers wait on a lock)
set -euo pipefail
kver=$1 root=$2
mkdir -p "$(dirname "$root")"
# one fetch at a time per tree: several test scripts share it
exec 9>"$root.lock"
flock 9
[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/lib/modules/$kver/modules.dep" ] &&
	exit 0
dl=$root.dl
rm -rf "$root" "$dl"
mkdir -p "$dl" "$root"
(cd "$dl" && apt-get download -q "linux-image-$kver" >/dev/null) || {
	echo "fetch-kernel: apt-get download linux-image-$kver failed" \
		"(run apt-get update, or make deps for newer headers)" >&2
	exit 1
}
dpkg-deb -x "$dl"/linux-image-*.deb "$root"
rm -rf "$dl"
depmod -b "$root" "$kver"
