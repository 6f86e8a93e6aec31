#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Install the Debian 12 packages Rina needs to build, test and demo.
# Idempotent: installs only what is missing; safe to run on every make.
set -euo pipefail

PKGS=(
	build-essential clang llvm lld gcc-multilib pkg-config
	libbpf-dev bpftool libxdp-dev xdp-tools libelf-dev zlib1g-dev
	libmnl-dev iproute2 ethtool iputils-ping kmod cpio busybox-static
	openmpi-bin libopenmpi-dev python3 procps psmisc
	qemu-system-x86 linux-headers-cloud-amd64 linux-source-6.1 xz-utils
	linux-headers-6.12-cloud-amd64 sparse
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
