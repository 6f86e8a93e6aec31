#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Build the guest initramfs: busybox-static, rina.ko, the modules the
# tests need with their dependencies (modprobe --show-depends, decompressed
# for busybox insmod), the test binaries with their shared libraries, ip, tc,
# and an /init that runs selftests/vm/guest.sh and prints the end marker.
#   mkinitramfs.sh KVER KROOT RINA_KO OUT.cpio.gz
set -euo pipefail
kver=$1 kroot=$2 ko=$3 out=$4
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"

mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,run,lib/modules,tests,usr/bin}
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"

# modules and their dependencies, in load order
: > "$stage/lib/modules/load.order"
# sch_ingress (clsact) and cls_bpf: rina-tor's tc program
for m in veth sch_netem bridge sch_ingress cls_bpf; do
	modprobe -d "$kroot" -S "$kver" --show-depends "$m" 2>/dev/null |
	while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		name=$(basename "$path")
		case "$name" in
		*.xz) xz -dc "$path" > "$stage/lib/modules/${name%.xz}"; name=${name%.xz} ;;
		*.zst) zstd -qdc "$path" > "$stage/lib/modules/${name%.zst}"; name=${name%.zst} ;;
		*) cp "$path" "$stage/lib/modules/$name" ;;
		esac
		grep -qx "$name" "$stage/lib/modules/load.order" ||
			echo "$name" >> "$stage/lib/modules/load.order"
	done
done
cp "$ko" "$stage/lib/modules/rina.ko"

# a binary and the shared libraries it needs (same paths as the host)
copy_bin() {
	local src=$1 dst=$2 lib
	cp "$src" "$stage/$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
copy_bin "$top/build/selftests/vm/rina_kmod_test" tests/rina_kmod_test
[ -x "$top/build/selftests/vm/rina_forge" ] &&
	copy_bin "$top/build/selftests/vm/rina_forge" tests/rina_forge
[ -x "$top/build/selftests/vm/rina_nl_fuzz" ] &&
	copy_bin "$top/build/selftests/vm/rina_nl_fuzz" tests/rina_nl_fuzz
copy_bin "$(command -v ip)" usr/bin/ip
copy_bin "$(command -v tc)" usr/bin/tc
# rina-tor runs as a switch's control plane would: not starved by the
# hosts (tor_agent_e2e.sh)
copy_bin "$(command -v chrt)" usr/bin/chrt
[ -x "$top/build/bin/rinactl" ] && copy_bin "$top/build/bin/rinactl" usr/bin/rinactl
[ -x "$top/build/bin/rina-bench" ] &&
	copy_bin "$top/build/bin/rina-bench" usr/bin/rina-bench
# rina-tor (its BPF programs are in the binary) and ethtool for the
# ToR test
[ -x "$top/build/bin/rina-tor" ] &&
	copy_bin "$top/build/bin/rina-tor" usr/bin/rina-tor
command -v ethtool >/dev/null &&
	copy_bin "$(command -v ethtool)" usr/bin/ethtool
cp "$top/selftests/vm/guest.sh" "$top/selftests/vm/guest_lib.sh" \
	"$top/selftests/ktap.sh" "$stage/tests/"
for t in rinactl_test.sh agent_e2e.sh events_e2e.sh tor_agent_e2e.sh \
	 sysctl_e2e.sh; do
	[ -f "$top/selftests/vm/$t" ] && cp "$top/selftests/vm/$t" "$stage/tests/"
done
echo "root:x:0:0::/:/bin/sh" > "$stage/etc/passwd"
echo "nobody:x:65534:65534::/:/bin/sh" >> "$stage/etc/passwd"
echo "root:x:0:" > "$stage/etc/group"

cat > "$stage/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s
export PATH=/usr/bin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
for m in $(cat /lib/modules/load.order); do insmod /lib/modules/$m; done
echo "RINA-VM-BEGIN $(uname -r)"
sh /tests/guest.sh
echo "RINA-VM-END rc=$?"
poweroff -f
INIT
chmod +x "$stage/init" "$stage/tests/"*.sh
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
