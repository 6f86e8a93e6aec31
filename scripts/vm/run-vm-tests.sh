#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Boot every Debian cloud kernel whose headers are installed once under
# qemu TCG with rina.ko and the guest tests, and report their KTAP from
# the serial console as one flat KTAP stream ("<kernel>: <test>").
# A guest that does not print its end marker (panic, hang, timeout) fails.
# Skips (exit 4) only when qemu cannot run at all.
#   run-vm-tests.sh [KVER...]
# RINA_VM_KMOD_DIR=DIR: boot DIR/<kernel>/rina.ko instead of the tree's
# build/kmod/<kernel>/rina.ko (the deb test: the module DKMS built).
# RINA_VM_NL_FUZZ="SEED COUNT SECONDS": guest.sh's netlink fuzzing with
# this seed and bounds instead of its CI default (seed 1, 150000 messages or
# 25 s); the boot timeout grows by SECONDS.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/build/vm
boot_timeout=${RINA_VM_TIMEOUT:-240}
fuzz_append=
if [ -n "${RINA_VM_NL_FUZZ:-}" ]; then
	read -r fz_seed fz_count fz_secs fz_more <<<"$RINA_VM_NL_FUZZ"
	if ! [[ "${fz_seed:-}/${fz_count:-}/${fz_secs:-}" =~ ^[0-9]+/[0-9]+/[0-9]+$ &&
		-z "${fz_more:-}" ]]; then
		echo "run-vm-tests.sh: RINA_VM_NL_FUZZ=\"$RINA_VM_NL_FUZZ\":" \
			"want SEED COUNT SECONDS" >&2
		exit 2
	fi
	fuzz_append=" rina_fuzz_seed=$fz_seed rina_fuzz_count=$fz_count"
	fuzz_append+=" rina_fuzz_secs=$fz_secs"
	boot_timeout=$((boot_timeout + fz_secs))
fi

n=0 nfail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
fail() { n=$((n + 1)); nfail=$((nfail + 1)); [ -n "${2:-}" ] && echo "# $1: $2"; echo "not ok $n $1"; }

echo "TAP version 13"
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..1"
	echo "ok 1 vm # SKIP qemu-system-x86_64 is not installed (make deps)"
	exit 4
fi
if ! timeout 10 qemu-system-x86_64 -accel tcg -machine none -nographic \
	-nic none -version >/dev/null 2>&1; then
	echo "1..1"
	echo "ok 1 vm # SKIP qemu-system-x86_64 cannot run here"
	exit 4
fi

kvers=("$@")
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <("$top/scripts/vm/kernels.sh" headers)
if [ ${#kvers[@]} -eq 0 ]; then
	fail vm_kernels "no cloud kernel headers installed (make deps)"
	echo "1..$n"
	exit 1
fi

for kver in "${kvers[@]}"; do
	d=$vm/$kver
	mkdir -p "$d"
	ko=${RINA_VM_KMOD_DIR:-$top/build/kmod}/$kver/rina.ko
	if [ ! -f "$ko" ] || [ ! -x "$top/build/selftests/vm/rina_kmod_test" ]; then
		fail "$kver: build" "missing $ko or the test binary (make kmod vm-tests)"
		continue
	fi
	if ! "$top/scripts/vm/fetch-kernel.sh" "$kver" "$d/root" >"$d/fetch.log" 2>&1; then
		fail "$kver: fetch_image" "$(tail -3 "$d/fetch.log")"
		continue
	fi
	if ! "$top/scripts/vm/mkinitramfs.sh" "$kver" "$d/root" "$ko" \
		"$d/initrd.cpio.gz" >"$d/initramfs.log" 2>&1; then
		fail "$kver: initramfs" "$(tail -3 "$d/initramfs.log")"
		continue
	fi
	# A guest kernel that dies before the tests begin (no RINA-VM-BEGIN:
	# rina.ko not loaded yet; seen once as an early-boot panic of the
	# 6.12 kernel under TCG) boots once more; anything later counts.
	# One host thread runs both vCPUs (thread=single): with a thread
	# per vCPU, a vCPU ran code the other was live-patching (static
	# keys, tracepoints): a 6.12 guest died of an "Oops: int3" in
	# __schedule in one CI run. The guest still has 2 CPUs.
	for attempt in 1 2; do
		start=$(date +%s)
		timeout --kill-after=5 "$boot_timeout" qemu-system-x86_64 \
			-accel tcg,thread=single -m 1024 -smp 2 -nographic \
			-no-reboot -nic none -kernel "$d/root/boot/vmlinuz-$kver" \
			-initrd "$d/initrd.cpio.gz" \
			-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 rdinit=/init quiet loglevel=3$fuzz_append" \
			</dev/null >"$d/console.log" 2>&1
		rc=$?
		secs=$(( $(date +%s) - start ))
		tr -d '\r' < "$d/console.log" > "$d/console.txt"
		grep -q '^RINA-VM-BEGIN' "$d/console.txt" && break
		[ "$attempt" -eq 2 ] && break
		cp "$d/console.txt" "$d/console.early-death.txt"
		echo "# $kver: the guest kernel stopped before the tests began" \
			"($(grep -m1 -o 'Kernel panic.*' "$d/console.txt" ||
			    echo "qemu rc $rc")); booting again"
	done
	# the guest's KTAP lines, renumbered under this kernel's name; each
	# block ("TAP version 13" .. "1..N", nested) must have N results, so
	# that a line garbled on the console cannot vanish unnoticed
	depth=0 seen=0
	declare -a saved=()
	while IFS= read -r line; do
		case "$line" in
		"ok "[0-9]*|"not ok "[0-9]*)
			seen=$((seen + 1))
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ //')
			case "$line" in
			not*) fail "$kver: $name" ;;
			*) n=$((n + 1)); echo "ok $n $kver: $name" ;;
			esac
			;;
		"TAP version 13")
			saved[depth]=$seen
			depth=$((depth + 1)) seen=0
			;;
		1..[0-9]*)
			[ "${line#1..}" = "$seen" ] ||
				fail "$kver: ktap_plan" "plan $line, $seen results"
			if [ $depth -gt 0 ]; then
				depth=$((depth - 1)) seen=${saved[depth]}
			fi
			;;
		"# "*) echo "# $kver: ${line#\# }" ;;
		esac
	done < <(sed -n '/^RINA-VM-BEGIN/,/^RINA-VM-END/p' "$d/console.txt")
	[ $depth -eq 0 ] ||
		fail "$kver: ktap_plan" "$depth KTAP block(s) without a plan"
	if grep -q '^RINA-VM-END rc=' "$d/console.txt"; then
		ok "$kver: boot_and_end_marker # ${secs}s"
	else
		fail "$kver: boot_and_end_marker" \
			"no end marker after ${secs}s (qemu rc $rc); see ${d#$top/}/console.txt"
		tail -20 "$d/console.txt" | sed 's/^/#   /'
	fi
	echo "# $kver: boot to power-off ${secs}s"
done
echo "1..$n"
echo "# Totals: pass:$((n - nfail)) fail:$nfail skip:0"
[ "$nfail" -eq 0 ]
