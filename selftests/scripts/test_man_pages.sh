#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The man pages (Documentation/man/*.scd, make man): each builds with
# scdoc and is clean under `mandoc -Tlint -W warning`; every program in
# build/bin (what make install installs) has one; every option its usage
# text names (and, for the tools with subcommands, every word of it)
# appears in the rendered page; every function librina.so exports
# (user/lib/librina.map) appears in librina(3).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
mandir=$top/build/man
tmp=$(mktemp -d)
defer rm -rf "$tmp"

require_cmd scdoc mandoc

ktap_plan 5

if make -s --no-print-directory -C "$top" man >"$tmp/make.log" 2>&1; then
	ktap_ok "make man"
else
	sed 's/^/# /' "$tmp/make.log" | tail -10
	ktap_fail "make man"
fi

bad=0
for p in "$mandir"/*.[1-8]; do
	[ -e "$p" ] || { echo "# no page in $mandir"; bad=1; break; }
	out=$(mandoc -Tlint -W warning "$p" 2>&1) && [ -z "$out" ] && continue
	echo "$out" | sed 's/^/# /' | head -5
	bad=1
done
[ "$bad" -eq 0 ] && ktap_ok "mandoc -Tlint -W warning: clean" ||
	ktap_fail "mandoc -Tlint -W warning: clean"

# page NAME: the rendered page of a program (section 1 or 8), or nothing
page()
{
	local f
	for f in "$mandir/$1.1" "$mandir/$1.8"; do
		[ -e "$f" ] && { MANWIDTH=200 mandoc -Tascii -O width=200 "$f" |
			col -b; return 0; }
	done
	return 1
}

# usage PROG: what it prints for --help (some print usage on stderr)
usage()
{
	timeout 10 "$1" --help 2>&1 </dev/null
}

# has PAGE WORD: WORD appears in PAGE as a word of its own
has()
{
	grep -qE -- "(^|[^A-Za-z0-9_-])$(printf '%s' "$2" |
		sed 's/[.[\*^$]/\\&/g')([^A-Za-z0-9_-]|$)" "$1"
}

missing=() undocumented=()
for prog in "$top"/build/bin/*; do
	name=${prog##*/}
	if ! page "$name" >"$tmp/$name.txt"; then
		missing+=("$name")
		continue
	fi
	usage "$prog" >"$tmp/$name.usage"
	# options: -x, --long-option (not values like -1 or "--")
	words=$(grep -oE -- '(^|[][ ,|{(])--?[A-Za-z][A-Za-z0-9-]*' \
		"$tmp/$name.usage" | sed -E 's/^[][ ,|{(]//' | sort -u)
	# subcommand tools: the lower-case words of their usage lines too
	case $name in
	rinactl|rina-ecn-mark)
		words+=$'\n'$(grep -E "^ *(Usage: |usage: )?$name " \
			"$tmp/$name.usage" | sed -E "s/^ *([Uu]sage: )?$name //" |
			grep -oE '(^|[ {|[])[a-z][a-z-]+' | tr -d ' {|[' | sort -u)
		;;
	esac
	for w in $words; do
		has "$tmp/$name.txt" "$w" || undocumented+=("$name $w")
	done
done
if [ ${#missing[@]} -eq 0 ]; then
	ktap_ok "every program in build/bin has a man page"
else
	ktap_fail "every program in build/bin has a man page" \
		"no page: ${missing[*]}"
fi
if [ ${#undocumented[@]} -eq 0 ]; then
	ktap_ok "every option of every usage text is in its man page"
else
	printf '# not in its man page: %s\n' "${undocumented[@]}"
	ktap_fail "every option of every usage text is in its man page"
fi

MANWIDTH=200 mandoc -Tascii -O width=200 "$mandir/librina.3" | col -b \
	>"$tmp/librina.txt"
absent=()
for sym in $(sed -n 's/^[[:space:]]*\(rina_[a-z0-9_]*\);$/\1/p' \
		"$top/user/lib/librina.map"); do
	has "$tmp/librina.txt" "$sym" || absent+=("$sym")
done
if [ ${#absent[@]} -eq 0 ]; then
	ktap_ok "librina(3) names every exported function"
else
	ktap_fail "librina(3) names every exported function" "${absent[*]}"
fi
ktap_finish
