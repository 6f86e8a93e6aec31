#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Boot each Debian cloud kernel (6.1, 6.12) under qemu TCG with the XDP
# tests (selftests/bpf/guest_xdp.sh) and report their KTAP as
# "<kernel>: <test>". Uses the kernels scripts/vm/fetch-kernel.sh
# extracts; skips (exit 4) where qemu or the kernels are unavailable.
#   run_guest_xdp.sh [KVER...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/vm-xdp
n=0 nfail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
fail() { n=$((n + 1)); nfail=$((nfail + 1)); [ -n "${2:-}" ] && echo "# $1: $2"; echo "not ok $n $1"; }

echo "TAP version 13"
skip() { echo "1..1"; echo "ok 1 guest_xdp # SKIP $1"; exit 4; }
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"
kvers=("$@")
[ ${#kvers[@]} -gt 0 ] ||
	mapfile -t kvers < <("$top/scripts/vm/kernels.sh" headers 2>/dev/null)
[ ${#kvers[@]} -gt 0 ] || skip "no cloud kernel headers installed"
for f in build/bpf/rina_xdp.bpf.o build/bin/rinactl \
	build/selftests/bpf/test_xdp_prog build/selftests/bpf/test_xsk_transport; do
	[ -e "$top/$f" ] || skip "no $f"
done
bpfdir=/usr/lib/$(gcc -dumpmachine)/bpf

for kver in "${kvers[@]}"; do
	root=$top/build/vm/$kver/root
	d=$out/$kver
	mkdir -p "$d"
	if [ ! -f "$root/boot/vmlinuz-$kver" ] &&
	   ! "$top/scripts/vm/fetch-kernel.sh" "$kver" "$root" >"$d/fetch.log" 2>&1; then
		fail "$kver: fetch_image" "$(tail -n 2 "$d/fetch.log")"
		continue
	fi
	stage=$(mktemp -d "$d/stage.XXXXXX")
	mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,run,lib/modules,tests/bpf,usr/bin,usr/local/sbin}
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	: > "$stage/lib/modules/load.order"
	modprobe -d "$root" -S "$kver" --show-depends veth 2>/dev/null |
	while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		name=$(basename "$path")
		case "$name" in
		*.xz) xz -dc "$path" > "$stage/lib/modules/${name%.xz}"; name=${name%.xz} ;;
		*.zst) zstd -qdc "$path" > "$stage/lib/modules/${name%.zst}"; name=${name%.zst} ;;
		*) cp "$path" "$stage/lib/modules/$name" ;;
		esac
		echo "$name" >> "$stage/lib/modules/load.order"
	done
	copy_bin() {
		local lib
		cp "$1" "$stage/$2"
		for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true); do
			[ -e "$stage$lib" ] && continue
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
	}
	copy_bin "$top/build/selftests/bpf/test_xdp_prog" tests/test_xdp_prog
	copy_bin "$top/build/selftests/bpf/test_xsk_transport" tests/test_xsk_transport
	copy_bin "$top/build/bin/rinactl" usr/local/sbin/rinactl
	copy_bin "$(command -v ip)" usr/local/sbin/ip
	copy_bin "$(command -v xdp-loader)" usr/local/sbin/xdp-loader
	cp "$top/build/bpf/rina_xdp.bpf.o" "$top/selftests/ktap.sh" \
		"$top/selftests/bpf/guest_xdp.sh" "$stage/tests/"
	cp "$bpfdir"/xdp-dispatcher.o "$bpfdir"/xdpfilt_alw_all.o "$stage/tests/bpf/"
	cat > "$stage/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s
export PATH=/usr/local/sbin:/usr/bin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
for m in $(cat /lib/modules/load.order); do insmod /lib/modules/$m; done
echo "RINA-XDP-BEGIN $(uname -r)"
sh /tests/guest_xdp.sh
echo "RINA-XDP-END rc=$?"
poweroff -f
INIT
	chmod +x "$stage/init"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$d/initrd.cpio.gz"
	rm -rf "$stage"
	# a guest kernel that dies before the tests begin boots once more;
	# one host thread for both vCPUs (see scripts/vm/run-vm-tests.sh)
	for attempt in 1 2; do
		timeout --kill-after=5 "${RINA_VM_TIMEOUT:-300}" \
			qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 \
			-nographic -no-reboot -nic none \
			-kernel "$root/boot/vmlinuz-$kver" \
			-initrd "$d/initrd.cpio.gz" \
			-append "console=ttyS0 panic=-1 oops=panic rdinit=/init quiet loglevel=3" \
			</dev/null >"$d/console.log" 2>&1
		tr -d '\r' < "$d/console.log" > "$d/console.txt"
		grep -q '^RINA-XDP-BEGIN' "$d/console.txt" && break
		[ "$attempt" -eq 1 ] &&
			echo "# $kver: the guest kernel stopped before the tests began; booting again"
	done
	while IFS= read -r line; do
		case "$line" in
		"ok "[0-9]*|"not ok "[0-9]*)
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ //')
			case "$line" in
			not*) fail "$kver: $name" ;;
			*) n=$((n + 1)); echo "ok $n $kver: $name" ;;
			esac ;;
		"# "*) echo "# $kver: ${line#\# }" ;;
		esac
	done < <(sed -n '/^RINA-XDP-BEGIN/,/^RINA-XDP-END/p' "$d/console.txt")
	grep -q '^RINA-XDP-END rc=' "$d/console.txt" &&
		ok "$kver: boot_and_end_marker" ||
		fail "$kver: boot_and_end_marker" "$(tail -n 5 "$d/console.txt")"
done
echo "1..$n"
echo "# Totals: pass:$((n - nfail)) fail:$nfail skip:0"
[ $nfail -eq 0 ]
