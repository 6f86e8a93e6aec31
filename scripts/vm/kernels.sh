#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Resolve the Debian cloud kernels Rina is tested on, from their meta
# packages (ABI names change with every security upload: never hard-code).
#   kernels.sh headers   kernel releases whose headers are installed
#   kernels.sh images    image package names, one per line
set -euo pipefail

METAS=(cloud-amd64 6.12-cloud-amd64)

# The versioned package a meta package depends on: linux-<kind>-<suffix>.
dep_of() {
	local meta=$1 kind=$2 d
	d=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null ||
		apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: //p' | head -1) || true
	d=${d%%,*}
	d=${d%% *}
	case "$d" in linux-"$kind"-*) echo "$d" ;; esac
}

case "${1:-}" in
headers)
	for m in "${METAS[@]}"; do
		p=$(dep_of "linux-headers-$m" headers) || true
		[ -n "$p" ] || continue
		kver=${p#linux-headers-}
		[ -d "/usr/src/linux-headers-$kver" ] && echo "$kver"
	done
	;;
images)
	for m in "${METAS[@]}"; do
		d=$(apt-cache depends "linux-image-$m" 2>/dev/null |
			sed -n 's/^ *Depends: //p' | head -1)
		case "$d" in linux-image-*) echo "$d" ;; esac
	done
	;;
*)
	echo "usage: $0 headers|images" >&2
	exit 2
	;;
esac
