#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Install the Debian 12 packages Rina needs to build, test and demo.
# Idempotent: installs only what is missing; safe to run on every make.
#   install-deps.sh           install what is missing (root)
#   install-deps.sh --check   only say what is missing; never installs,
#                             needs no root, fails if the build cannot run
set -euo pipefail

PKGS=(
	build-essential clang llvm lld gcc-multilib pkg-config
	libbpf-dev bpftool libxdp-dev xdp-tools libelf-dev zlib1g-dev
	libmnl-dev libsodium-dev iproute2 ethtool iputils-ping iperf3 kmod cpio busybox-static
	openmpi-bin libopenmpi-dev python3 procps psmisc
	qemu-system-x86 linux-headers-cloud-amd64 linux-source-6.1 xz-utils
	linux-headers-6.12-cloud-amd64 sparse tshark
	libjansson-dev python3-thrift
	python3-numpy python3-torch python3-setuptools python3-pip
	libtorch-dev pybind11-dev
	libns3-dev ns3 python3-matplotlib
	python3-prometheus-client python3-yaml python3-hypothesis
	scdoc mandoc debhelper dh-dkms dh-python dkms lintian dpkg-dev fakeroot
	chrpath
)
# What a plain `make` cannot do without: package -> a file it installs.
BUILD_NEEDS=(
	gcc:/usr/bin/gcc clang:/usr/bin/clang bpftool:/usr/sbin/bpftool
	libbpf-dev:/usr/include/bpf/libbpf.h libxdp-dev:/usr/include/xdp/xsk.h
	libelf-dev:/usr/include/libelf.h zlib1g-dev:/usr/include/zlib.h
	libmnl-dev:/usr/include/libmnl/libmnl.h
	libsodium-dev:/usr/include/sodium.h
	libjansson-dev:/usr/include/jansson.h
	libopenmpi-dev:/usr/bin/mpicc
	python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py
)

if [ "${1:-}" = --check ]; then
	bad=0
	for e in "${BUILD_NEEDS[@]}"; do
		[ -e "${e#*:}" ] && continue
		echo "missing ${e#*:}: install the Debian package ${e%%:*}" \
			"(or run 'make deps' as root)" >&2
		bad=1
	done
	exit $bad
fi

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
