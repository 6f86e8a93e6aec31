# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The ToR control protocol's cases (protocol-ina.md, "The ToR control
# protocol"), for rina-tor (test_rina_tor.sh) and the bmv2 ToR's CPU
# (test_tor_bmv2_ctrl.sh) alike: sourced after ktap.sh/lib.sh by a test
# that has a ToR namespace answering on 198.18.1.254 and a tester
# namespace $TST holding 198.18.1.12 (rank 2 of job 7) on t2 and the
# peers t0..t3 of the ToR's ports up0 h0 h1 h2, and that defines
# ctrl_start (a fresh ToR for job file $tjob, on demand, its -j JSON to
# $tmp/tor.out at exit, its pid in $torpid). Needs $ctrl (tor_ctrl),
# $replay (tor_replay), $vec, $job7 and $tmp.
#   ctrl_cases_unsigned, ctrl_cases_signed: CTRL_CASES_UNSIGNED and
#   CTRL_CASES_SIGNED KTAP results each
#   ctrl_cases_cycles N: CTRL_CASES_CYCLES results, N installs and removals

CTRL_CASES_UNSIGNED=11
CTRL_CASES_SIGNED=27
CTRL_CASES_CYCLES=4

# a copy of job 7 with a secret
ctrl_job_with_secret()
{
	(umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$tmp/secret")
	{ cat "$job7"; echo "secret_file $tmp/secret"; } >"$tmp/job7s.txt"
	job7s=$tmp/job7s.txt
}

# ctl NAME WANT HOW ARGS...: tor_ctrl from the tester for job file $cjob,
# expect status WANT in a reply that is HOW (signed, unsigned)
ctl()
{
	local name=$1 want=$2 how=$3 got
	shift 3
	ip netns exec "$TST" "$ctrl" "$cjob" 198.18.1.254 "$@" >"$tmp/ctl" 2>&1
	got=$?
	if [ "$got" -eq "$want" ] && grep -qx "status $want $how" "$tmp/ctl"
	then
		ktap_ok "$name"
	else
		ktap_fail "$name" "status $got, expected $want $how: $(cat "$tmp/ctl")"
	fi
}
# uniform NAME FILE...: the replies kept in FILE... are the same bytes
# but for the job id they echo (header bytes 2-3)
uniform()
{
	local name=$1
	shift
	if python3 -c 'import sys
r = [bytearray(open(f, "rb").read()) for f in sys.argv[1:]]
for b in r:
	b[2:4] = b"\0\0"
sys.exit(len(set(map(bytes, r))) != 1 or len(r[0]) != 44)' "$@"; then
		ktap_ok "$name"
	else
		for f in "$@"; do
			echo "# ${f##*/}: $(od -An -tx1 "$f" | tr -d ' \n')"
		done
		ktap_fail "$name"
	fi
}
# aggregates NAME yes|no: whether job 7 aggregates (the first vector;
# for the job with a secret, tagged with its tag: $aggvec)
aggregates()
{
	ip netns exec "$TST" "$replay" t0,t1,t2,t3 \
		"${aggvec:-$vec/agg_first_chunk.vec}" \
		>"$tmp/replay" 2>&1
	if [ "$2" = yes ] && grep -q '^ok 1 ' "$tmp/replay"; then
		ktap_ok "$1"
	elif [ "$2" = no ] && grep -q '^not ok 1 ' "$tmp/replay" &&
	     grep -q 'extra port ' "$tmp/replay"; then
		# the first contribution was switched untouched (to the
		# agent's port, or flooded before any install)
		ktap_ok "$1"
	else
		sed "s/^/# /" "$tmp/replay" | head -8
		ktap_fail "$1"
	fi
}
# counted NAME PYTHON-EXPR: rina-tor's -j output (d) after its exit
counted()
{
	kill -TERM "$torpid"
	wait "$torpid"
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["jobs"][0]["control"]
assert d["jobs"][0]["job"] == 7
assert ('"$2"'), (c, d["control"])' "$tmp/tor.out"; then
		ktap_ok "$1"
	else
		sed 's/^/# /' "$tmp/tor.out"
		ktap_fail "$1"
	fi
}

# without a secret: as before, but one answer for all that is not the job
ctrl_cases_unsigned()
{
	tjob=$job7 cjob=$job7
	ctrl_start
	ctl "unsigned: install with a wrong job hash: unknown job" 1 unsigned \
		install --bad-hash --reply "$tmp/u1"
	ctl "unsigned: install of a job the ToR does not know: unknown job" 1 \
		unsigned install --job-id 99 --bad-hash --reply "$tmp/u2"
	cjob=$job7s
	ctl "unsigned: a signed install of a job without a secret: unknown job" \
		1 unsigned install --bad-hash --reply "$tmp/u3"
	cjob=$job7
	uniform "unsigned: the three answers are the same bytes" \
		"$tmp/u1" "$tmp/u2" "$tmp/u3"
	ctl "unsigned: install job 7: installed" 4 unsigned install
	ctl "unsigned: install it again: ok (held)" 0 unsigned install
	aggregates "unsigned: installed on demand, job 7 aggregates" yes
	ctl "unsigned: remove job 7" 0 unsigned remove
	ctl "unsigned: remove it again: unknown job" 1 unsigned remove
	aggregates "unsigned: removed, job 7 no longer aggregates" no
	counted "unsigned: refusals counted" \
		'c == dict(ok=4, forged=1, replayed=0, bad_hash=1) and
		 d["control"]["unknown_job"] == 1'
}

# with a secret: only signed, fresh, new requests act; replies are signed
ctrl_cases_signed()
{
	tjob=$job7s cjob=$job7s
	# a job with a secret is tagged: so are the vector's frames
	aggvec=$tmp/agg_first_chunk_tagged.vec
	python3 "$top/selftests/tor/tag_vec.py" 7 "$("$ctrl" "$job7s" tag)" \
		"$vec/agg_first_chunk.vec" "$aggvec"
	ctrl_start
	ctl "signed: an unsigned install: unknown job" 1 unsigned install \
		--unsigned --bad-hash --reply "$tmp/s1"
	ctl "signed: a wrongly signed install: unknown job" 1 unsigned install \
		--bad-mac --bad-hash --reply "$tmp/s2"
	ctl "signed: a stale install: unknown job" 1 unsigned install --stale \
		--bad-hash --reply "$tmp/s3"
	ctl "signed: a signed install with a wrong hash: unknown job" 1 unsigned \
		install --bad-hash --reply "$tmp/s4"
	ctl "signed: a signed install of an unknown job: unknown job" 1 unsigned \
		install --job-id 99 --bad-hash --reply "$tmp/s5"
	uniform "signed: the five answers are the same bytes" \
		"$tmp/s1" "$tmp/s2" "$tmp/s3" "$tmp/s4" "$tmp/s5"
	aggregates "signed: none of them installed job 7" no
	ctl "signed: install job 7, signed reply: installed" 4 signed install \
		--save "$tmp/install.bin"
	aggregates "signed: installed, job 7 aggregates" yes
	ctl "signed: the install replayed: unknown job" 1 unsigned install \
		--replay "$tmp/install.bin"
	ctl "signed: remove job 7, signed reply" 0 signed remove \
		--save "$tmp/remove.bin"
	ctl "signed: the install replayed after the remove: unknown job" 1 \
		unsigned install --replay "$tmp/install.bin"
	aggregates "signed: the replayed install installed nothing" no
	ctl "signed: install job 7 again: installed" 4 signed install
	ctl "signed: the remove replayed: unknown job" 1 unsigned remove \
		--replay "$tmp/remove.bin"
	aggregates "signed: the replayed remove removed nothing" yes
	counted "signed: refusals counted (forged, replayed, bad hash, unknown)" \
		'c == dict(ok=3, forged=2, replayed=4, bad_hash=1) and
		 d["control"]["unknown_job"] == 1'
	# an install signed (recorded) while no ToR ran, replayed to one
	# started after it: its replay guards are new, its start is not
	ip netns exec "$TST" "$ctrl" "$cjob" 198.18.1.254 install \
		--save-only "$tmp/before_start.bin" >/dev/null 2>&1
	ctrl_start
	ctl "signed: a restarted ToR, an install signed before it started: unknown job" \
		1 unsigned install --replay "$tmp/before_start.bin"
	aggregates "signed: the restarted ToR installed nothing" no
	ctl "signed: the restarted ToR takes a fresh install: installed" 4 \
		signed install
	counted "signed: the restarted ToR counted it replayed" \
		'c == dict(ok=1, forged=0, replayed=1, bad_hash=0)'
	# the job's next session (tor_ctrl's default is session 1): the
	# ToR takes its tag, and the last session's packets no longer pass
	ctrl_start
	ctl "signed: install for session 1: installed" 4 signed install
	ctl "signed: install for the job's next session: installed" 4 signed \
		install --session 0x123456789 --reply "$tmp/r2"
	# the reply names the request's session: an agent tells the answer
	# to its install from one to its predecessor's remove
	if python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
chunk, seq, slot = struct.unpack_from("!HIH", b, 10)
sys.exit((seq << 32 | chunk << 16 | slot) != 0x123456789)' "$tmp/r2"; then
		ktap_ok "signed: the reply names the install's session"
	else
		ktap_fail "signed: the reply names the install's session"
	fi
	ip netns exec "$TST" "$replay" t0,t1,t2,t3 "$aggvec" >"$tmp/replay" 2>&1
	if grep -q '^not ok 1 ' "$tmp/replay" &&
	   ! grep -q 'extra port ' "$tmp/replay"; then
		ktap_ok "signed: session 1's tagged packets are dropped"
	else
		sed "s/^/# /" "$tmp/replay" | head -8
		ktap_fail "signed: session 1's tagged packets are dropped"
	fi
	local aggvec=$tmp/agg_first_chunk_next.vec
	python3 "$top/selftests/tor/tag_vec.py" 7 \
		"$("$ctrl" "$job7s" tag 0x123456789)" \
		"$vec/agg_first_chunk.vec" "$aggvec"
	aggregates "signed: the next session's aggregate" yes
	counted "signed: session 1's counted bad_tag" \
		'd["jobs"][0]["counters"]["bad_tag"] >= 1 and c["ok"] == 2'
}

# install and remove job 7 N times, then install it: what a ToR that
# takes jobs on demand sees as agents come and go. Each removal must give
# the switch its entries, nodes and group back for the next install
# (Documentation/p4-control-plane.md); rina-tor ran out after ~170.
ctrl_cases_cycles()
{
	local n=$1 i verb fail= aggvec=	# job 7 untagged: the plain vector
	local want rc
	tjob=$job7 cjob=$job7
	ctrl_start
	for ((i = 0; i < n; i++)); do
		for verb in install remove; do
			# an install installs (4), a removal is ok (0)
			want=0
			[ "$verb" = install ] && want=4
			ip netns exec "$TST" "$ctrl" "$cjob" 198.18.1.254 \
				"$verb" >"$tmp/ctl" 2>&1
			rc=$?
			if [ "$rc" -ne "$want" ]; then
				fail="$verb $((i + 1)): $(cat "$tmp/ctl")"
				break
			fi
		done
		[ -z "$fail" ] || break
	done
	if [ -z "$fail" ]; then
		ktap_ok "cycles: $n installs and removals of job 7, all ok"
	else
		ktap_fail "cycles: $n installs and removals of job 7, all ok" \
			"$fail $(grep -m1 'forgetting the jobs' "$tmp/tor.err" \
				2>/dev/null)"
	fi
	ctl "cycles: then install job 7: installed" 4 unsigned install
	aggregates "cycles: installed, job 7 aggregates" yes
	counted "cycles: every request ok" \
		"c == dict(ok=$((2 * n + 1)), forged=0, replayed=0, bad_hash=0)"
}
