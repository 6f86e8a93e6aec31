#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Debian packages (make deb): they build, lintian finds no error or
# warning, they install on this host with dpkg, work from the installed
# files only (rinactl --version, 1x2 allreduces of rina-bench, of a C
# program built with pkg-config rina against librina-dev and of the
# Python bindings), rina-dkms builds rina.ko through DKMS for the Debian
# kernels whose headers are installed and that module passes the guest
# tests (scripts/vm/run-vm-tests.sh; with --no-vm: it has the code of
# the tree's module, which kmod_vm runs there), and purging them leaves
# nothing.
# Host, not a chroot: python3-rina pulls libtorch, too big to
# debootstrap per run. Packages of ours already installed: the test
# fails rather than touch them.
#   test_deb.sh [--no-vm | --vm-first]
#     --no-vm: DKMS builds, the guests not booted; --vm-first: only the
#     guest of the first kernel (scripts/vm/kernels.sh headers: Debian
#     12's own, cloud-amd64) boots DKMS's module, the others are compared
#     with the tree's module only (make check: one guest more, not two)
# The guests get RINA_VM_TIMEOUT=600 s each (run-vm-tests.sh's 240 s ran
# out with every test passing, at a load of 28 on two cores).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

vm=all
case "${1:-}" in
--no-vm) vm=none ;;
--vm-first) vm=first ;;
?*) echo "usage: $0 [--no-vm | --vm-first]" >&2; exit 2 ;;
esac
PKGS=(librina1 librina-dev rina-tools python3-rina rina-tor rina-dkms)
out=$top/build/deb
ver=$(cat "$top/VERSION")
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_root
require_cmd dpkg-buildpackage dh dh_dkms lintian dkms ip python3

ktap_plan 13

installed=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null |
		grep -q '^[ir]' && installed+=("$p")
done
if [ ${#installed[@]} -gt 0 ]; then
	ktap_fail "no rina package installed before" \
		"${installed[*]} (dpkg --purge them first)"
	ktap_finish
fi

# 1. build
start=$(date +%s)
if make -s --no-print-directory -C "$top" deb >"$tmp/deb.log" 2>&1; then
	ktap_ok "make deb # $(( $(date +%s) - start ))s"
else
	sed 's/^/# /' "$tmp/deb.log" | tail -20
	ktap_fail "make deb"
	ktap_finish
fi
debs=()
for p in "${PKGS[@]}"; do
	f=$(ls "$out/${p}_${ver}_"*.deb 2>/dev/null | head -1)
	[ -n "$f" ] && debs+=("$f") || echo "# no package $p in ${out#$top/}"
done
stray=$(ls "$top"/../rina_* "$top"/../*.deb 2>/dev/null)
if [ ${#debs[@]} -eq ${#PKGS[@]} ] && [ -z "$stray" ]; then
	ktap_ok "six packages in build/deb, nothing in the parent directory"
else
	[ -n "$stray" ] && echo "# written outside build/deb: $stray"
	ktap_fail "six packages in build/deb, nothing in the parent directory"
	ktap_finish
fi

# 2. lintian: overrides in debian/*.lintian-overrides say why
if lintian --fail-on error,warning "$out"/*.changes >"$tmp/lintian" 2>&1; then
	ktap_ok "lintian: no error or warning"
else
	sed 's/^/# /' "$tmp/lintian" | head -20
	ktap_fail "lintian: no error or warning"
fi

# 3. install (rina-dkms's postinst builds rina.ko for the kernels with
# headers); what existed before, to tell leftovers from shared paths
for d in "${debs[@]}"; do dpkg-deb -c "$d"; done |
	awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | sort -u >"$tmp/paths"
while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done \
	<"$tmp/paths" >"$tmp/existed"
ls -d /var/lib/dkms/rina /usr/src/rina-* 2>/dev/null >>"$tmp/existed"
mods_before=$(ls /lib/modules/*/modules.dep 2>/dev/null)
defer "dpkg --purge ${PKGS[*]}"
start=$(date +%s)
if DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" >"$tmp/install.log" 2>&1
then
	ktap_ok "dpkg -i: all six installed # $(( $(date +%s) - start ))s"
else
	sed 's/^/# /' "$tmp/install.log" | tail -20
	ktap_fail "dpkg -i: all six installed"
fi
sed -n 's/^\(Building for .*\)/# \1/p' "$tmp/install.log"

# rina-dkms's device rule, group and boot switch (off)
rule=$(dpkg -L rina-dkms 2>/dev/null | grep -E '/udev/rules.d/60-rina.rules$')
if [ -n "$rule" ] && grep -qE '^KERNEL=="rina".*GROUP="rina".*MODE="0660"' \
	"$rule" && getent group rina >/dev/null &&
	grep -qx '#rina' /etc/modules-load.d/rina.conf &&
	! grep -qx 'rina' /etc/modules-load.d/rina.conf; then
	ktap_ok "rina-dkms: /dev/rina 0660 group rina, rina.ko not loaded at boot"
else
	ktap_fail "rina-dkms: /dev/rina 0660 group rina, rina.ko not loaded at boot" \
		"rule '${rule:-none}', group $(getent group rina || echo none)"
fi

# 4. from the installed files only: no tree, no PYTHONPATH, another cwd
clean_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
run_installed()
{
	(cd "$tmp" && "${clean_env[@]}" "$@")
}
v=$(run_installed rinactl --version 2>&1)
if [ "$v" = "rinactl $ver" ] && [ "$(command -v rinactl)" = /usr/bin/rinactl ]
then
	ktap_ok "installed rinactl --version: $v"
else
	ktap_fail "installed rinactl --version" "got '$v', want 'rinactl $ver'"
fi

run_installed rina-run --topo 1x2 --timeout 120 -- rina-bench -d int32 \
	-b 4 -e 256K -n 2 -w 1 --json >"$tmp/bench.out" 2>&1
rc=$?
rows=$(python3 - "$tmp/bench.out" <<'PY'
import json, sys
rows = [json.loads(l.split('] ', 1)[-1]) for l in open(sys.argv[1])
        if l.split('] ', 1)[-1].startswith('{')]
bad = [r for r in rows if r['wrong']]
per_size = {}
for r in rows:
    per_size[r['size']] = per_size.get(r['size'], 0) + 1
two = all(n == 2 for n in per_size.values())
print(len(rows) if rows and not bad and two else 0)
PY
)
if [ "$rc" -eq 0 ] && [ "${rows:-0}" -gt 0 ]; then
	ktap_ok "installed rina-run 1x2 rina-bench: $rows exact rows"
else
	tail -5 "$tmp/bench.out" | sed 's/^/# /'
	ktap_fail "installed rina-run 1x2 rina-bench" "rc $rc"
fi

# a C program from librina-dev, on librina1's shared object
ok=0
if cc -o "$tmp/allreduce" "$top/selftests/deb/allreduce_installed.c" \
	$(pkg-config --cflags --libs rina) 2>"$tmp/cc.log" &&
	ldd "$tmp/allreduce" |
		grep -qE "librina.so.1 => (/usr)?/lib/[^/]*/librina.so.1"
then
	run_installed rina-run --topo 1x2 --timeout 60 -- "$tmp/allreduce" \
		>"$tmp/c.out" 2>&1 &&
		[ "$(grep -c 'allreduce ok' "$tmp/c.out")" -eq 2 ] && ok=1
fi
if [ $ok -eq 1 ]; then
	ktap_ok "pkg-config rina: a C program's 1x2 allreduce on librina1"
else
	{ cat "$tmp/cc.log" "$tmp/c.out"; ldd "$tmp/allreduce" | grep rina; } \
		2>/dev/null | tail -5 | sed 's/^/# /'
	ktap_fail "pkg-config rina: a C program's 1x2 allreduce on librina1"
fi

# python3-rina
cat >"$tmp/allreduce.py" <<'PY'
import array, rina
with rina.Communicator.from_env() as comm:
    a = array.array("i", [comm.rank + 1] * 1000)
    comm.allreduce(a)
    assert set(a) == {3}, set(a)
    # the librina this process mapped: the installed one, no tree's
    libs = {l.split()[-1] for l in open("/proc/self/maps")
            if l.rstrip().endswith("/librina.so.1")}
    assert libs and all(p.split("/")[-3:-1] == ["lib", "x86_64-linux-gnu"]
                        for p in libs), libs
    print("python ok", rina.__file__)
PY
run_installed rina-run --topo 1x2 --timeout 60 -- python3 "$tmp/allreduce.py" \
	>"$tmp/py.out" 2>&1
if [ "$(grep -c 'python ok /usr/lib/python3/dist-packages/rina/' "$tmp/py.out")" -eq 2 ]
then
	ktap_ok "python3-rina: 1x2 allreduce on librina1"
else
	tail -5 "$tmp/py.out" | sed 's/^/# /'
	ktap_fail "python3-rina: 1x2 allreduce on librina1"
fi

# 5. DKMS: rina.ko for every kernel whose headers are installed, then
# the guest tests with that module
kvers=$("$top/scripts/vm/kernels.sh" headers)
bad=""
for k in $kvers; do
	m=$(ls /var/lib/dkms/rina/"$ver"/"$k"/*/module/rina.ko* 2>/dev/null |
		head -1)
	mkdir -p "$tmp/kmod/$k"
	case "$m" in
	*.xz) xz -dc "$m" >"$tmp/kmod/$k/rina.ko" ;;
	*.zst) zstd -qdc "$m" >"$tmp/kmod/$k/rina.ko" ;;
	?*) cp "$m" "$tmp/kmod/$k/rina.ko" ;;
	esac
	[ -s "$tmp/kmod/$k/rina.ko" ] &&
		modinfo -F vermagic "$tmp/kmod/$k/rina.ko" | grep -q "^$k " ||
		bad+=" $k"
done
if [ -n "$kvers" ] && [ -z "$bad" ]; then
	ktap_ok "DKMS built rina.ko for $(echo $kvers)"
else
	dkms status rina 2>&1 | sed 's/^/# /'
	ktap_fail "DKMS built rina.ko for every kernel with headers" \
		"none for:${bad:- (no kernel headers)}"
fi
# 5b. The module kmod_vm boots in the guests (build/kmod/<kernel>, built
# by scripts/vm/build-kmod.sh with the same Kbuild and kernel flags) has
# DKMS's module's code: every loaded section byte for byte, but for the
# build ID (a hash of the whole file) and the strings, where WARN_ON()
# records the source paths; the strings but for those paths are the
# same too. So the guest tests that make check runs on the tree's module
# hold for DKMS's, which --no-vm does not boot.
same_code()
{
	local a=$1 b=$2 s
	secs() {
		objdump -h "$1" | awk '/^ *[0-9]+ / { n = $2; getline
			if (/ALLOC/ && /CONTENTS/) print n }'
	}
	strs() {
		for s in $(secs "$1" | grep '^\.rodata\.str'); do
			objcopy -O binary -j "$s" "$1" /dev/stdout | tr '\0' '\n'
		done | grep -vE '^$|/(kmod|core)/[a-z_]+\.[ch]$' | sort
	}
	[ "$(secs "$a")" = "$(secs "$b")" ] || { echo "sections"; return 1; }
	for s in $(secs "$a"); do
		case "$s" in .note.gnu.build-id|.rodata.str*) continue ;; esac
		cmp -s <(objcopy -O binary -j "$s" "$a" /dev/stdout) \
			<(objcopy -O binary -j "$s" "$b" /dev/stdout) ||
			{ echo "$s"; return 1; }
	done
	[ "$(strs "$a")" = "$(strs "$b")" ] || { echo "strings"; return 1; }
}
differ=""
for k in $kvers; do
	tree=$top/build/kmod/$k/rina.ko
	make -s --no-print-directory -C "$top" "$tree" >"$tmp/kmod.log" 2>&1
	if [ ! -s "$tmp/kmod/$k/rina.ko" ] || [ ! -s "$tree" ]; then
		differ+=" $k (no module)"
	elif ! why=$(same_code "$tmp/kmod/$k/rina.ko" "$tree"); then
		differ+=" $k ($why)"
	fi
done
if [ -n "$kvers" ] && [ -z "$differ" ]; then
	ktap_ok "DKMS's rina.ko has the code of the module the guest tests run (kmod_vm), for $(echo $kvers)"
else
	ktap_fail "DKMS's rina.ko has the code of the module the guest tests run" \
		"differs:${differ:- (no kernel headers)}"
fi
vmk=$kvers
[ $vm = first ] && vmk=$(echo $kvers | cut -d' ' -f1)
if [ $vm = none ]; then
	ktap_skip "DKMS's rina.ko passes the guest tests" "--no-vm"
elif [ -z "$vmk" ]; then
	ktap_fail "DKMS's rina.ko passes the guest tests" "no kernel headers"
elif make -s --no-print-directory -C "$top" vm-tests >"$tmp/vmb.log" 2>&1 &&
	RINA_VM_KMOD_DIR=$tmp/kmod RINA_VM_TIMEOUT=${RINA_VM_TIMEOUT:-600} \
		"$top/scripts/vm/run-vm-tests.sh" $vmk \
		>"$tmp/vm.out" 2>&1; then
	ktap_ok "DKMS's rina.ko passes the guest tests on $(echo $vmk) ($(grep -c '^ok' \
		"$tmp/vm.out") results)"
else
	{ tail -5 "$tmp/vmb.log"; grep -hE '^not ok' "$tmp/vm.out"
	  grep -hB3 '^not ok' "$tmp/vm.out" | grep '^# '; } 2>/dev/null |
		head -20 | sed 's/^/# /'
	cp "$tmp/vm.out" "$top/build/deb/vm.out" 2>/dev/null &&
		echo "# the guests' output: build/deb/vm.out"
	ktap_fail "DKMS's rina.ko passes the guest tests"
fi

# 6. purge: every file of the packages, the DKMS tree, the built
# modules and the conffiles gone; no package left in state rc
DEBIAN_FRONTEND=noninteractive dpkg --purge "${PKGS[@]}" >"$tmp/purge.log" 2>&1
rc=$?
left=()
while read -r f; do
	grep -qxF "$f" "$tmp/existed" && continue
	[ -e "$f" ] || [ -L "$f" ] && left+=("$f")
done <"$tmp/paths"
for f in /var/lib/dkms/rina /usr/src/rina-"$ver" /lib/modules/*/updates/dkms/rina.ko*; do
	grep -qxF "$f" "$tmp/existed" && continue
	[ -e "$f" ] && left+=("$f")
done
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null |
		grep -q '^[ir]' && left+=("package $p")
done
# depmod's indexes, which dkms install wrote for a kernel that had none
# (its headers only): dkms's doing, not a file of ours; put back as found
for f in /lib/modules/*/modules.dep; do
	echo "$mods_before" | grep -qxF "$f" && continue
	echo "# removing depmod's indexes in ${f%/*} (dkms install made them)"
	rm -f "${f%/*}"/modules.*
done
if [ "$rc" -eq 0 ] && [ ${#left[@]} -eq 0 ]; then
	ktap_ok "dpkg --purge: nothing left behind (group rina kept, as Debian does)"
else
	sed 's/^/# /' "$tmp/purge.log" | tail -5
	printf '# left: %s\n' "${left[@]}"
	ktap_fail "dpkg --purge: nothing left behind"
fi
ktap_finish
