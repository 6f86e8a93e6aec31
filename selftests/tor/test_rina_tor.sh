#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-tor in a ToR namespace (bridge br0, ports up0 h0 h1 h2, as rina-run
# builds it) with two jobs must behave like the model: the Rina vectors are
# replayed from a tester namespace wired to the four ports, the frames
# coming back must be exactly the expected ones; its counters are written
# as JSON; on SIGTERM it removes its tc rules.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

tor=$top/build/bin/rina-tor
replay=$top/build/selftests/tor/tor_replay
ctrl=$top/build/selftests/tor/tor_ctrl
job7=$top/selftests/tor/job_rack1.txt
vec=$top/selftests/tor/vectors
files="agg_first_chunk agg_with_upstream duplicates_reemit allgather_ack
       stale_collision numbers_limits unknown_job tor_address two_jobs
       own_chunk_mcast"
nfiles=$(echo $files | wc -w)

require_root
require_cmd ip tc python3
nctl=25
ktap_plan $((nfiles + 3 + nctl))
if [ ! -x "$tor" ] || [ ! -x "$replay" ] || [ ! -x "$ctrl" ]; then
	for ((i = 0; i < nfiles + 3 + nctl; i++)); do
		ktap_skip "rina-tor" "build/bin/rina-tor or a test tool not built"
	done
	ktap_finish
fi
tmp=$(mktemp -d)
defer rm -rf "$tmp"

setup_ns TOR TST || exit 1
for ns in "$TOR" "$TST"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$TOR" link add br0 type bridge
ip -n "$TOR" link set br0 up
i=0
for p in up0 h0 h1 h2; do
	ip link add "$p" netns "$TOR" type veth peer name "t$i" netns "$TST"
	ip -n "$TOR" link set "$p" master br0 up
	ip -n "$TST" link set "t$i" up
	i=$((i + 1))
done

# start_tor [ARGS]: a fresh rina-tor (the vectors assume a fresh switch)
start_tor()
{
	rm -f "$tmp/stats.json"
	ip netns exec "$TOR" "$tor" --job "${tjob:-$job7}" \
		--job "$top/selftests/tor/job_rack1_j8.txt" \
		--rack 1 --epoch 1 --stats "$tmp/stats.json" -j "$@" \
		>"$tmp/tor.out" 2>"$tmp/tor.err" &
	torpid=$!
	busywait 5000 test -s "$tmp/stats.json"
}

if start_tor; then
	ktap_ok "rina-tor starts on up0 h0 h1 h2"
else
	sed 's/^/# /' "$tmp/tor.err"
	ktap_fail "rina-tor starts on up0 h0 h1 h2"
fi
defer 'kill $torpid'

first=1
for f in $files; do
	if [ $first -eq 0 ]; then
		kill -TERM "$torpid"
		wait "$torpid"
		start_tor
	fi
	first=0
	ip netns exec "$TST" "$replay" t0,t1,t2,t3 "$vec/$f.vec" \
		>"$tmp/replay" 2>&1
	if grep -q '^ok 1 ' "$tmp/replay"; then
		ktap_ok "replay $f"
	else
		grep '^#' "$tmp/replay"
		ktap_fail "replay $f"
	fi
done

kill -TERM "$torpid"
wait "$torpid"
if python3 - "$tmp/tor.out" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
c = d["jobs"][0]["counters"]	# own_chunk_mcast.vec, replayed last
assert d["jobs"][1]["job"] == 8 and d["jobs"][1]["counters"]["contrib_in"] == 0
want = dict(contrib_in=3, partial_in=1, slot_done=1, ag_out=1, ag_mcast=3,
            ag_agent=1, ack_out=1, dup=0, stale=0, collision=0)
assert all(c[k] == v for k, v in want.items()), c
assert d["switch"]["ok"] == 4, d["switch"]
PY
then
	ktap_ok "rina-tor -j counters match the replayed vector"
else
	sed 's/^/# /' "$tmp/tor.out"
	ktap_fail "rina-tor -j counters match the replayed vector"
fi
if [ -n "$(tc -n "$TOR" filter show dev h0 ingress)" ]; then
	ktap_fail "tc rules removed at exit"
else
	ktap_ok "tc rules removed at exit"
fi

# the control protocol: rina-tor --on-demand installs and removes jobs on
# TOR_INSTALL / TOR_REMOVE from the rack (here from rank 2's port, h1);
# once for job 7 as it is (unsigned), once with a secret (signed)
ip -n "$TOR" addr add 198.18.1.254/15 dev br0
ip -n "$TST" addr add 198.18.1.12/15 dev t2
(umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$tmp/secret")
{ cat "$job7"; echo "secret_file $tmp/secret"; } >"$tmp/job7s.txt"
job7s=$tmp/job7s.txt

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
# aggregates NAME yes|no: whether job 7 aggregates (the first vector)
aggregates()
{
	ip netns exec "$TST" "$replay" t0,t1,t2,t3 "$vec/agg_first_chunk.vec" \
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
assert '"$2"', (c, d["control"])' "$tmp/tor.out"; then
		ktap_ok "$1"
	else
		sed 's/^/# /' "$tmp/tor.out"
		ktap_fail "$1"
	fi
}

# without a secret: as before, but one answer for all that is not the job
tjob=$job7 cjob=$job7
start_tor --on-demand
ctl "unsigned: install with a wrong job hash: unknown job" 1 unsigned \
	install --bad-hash
ctl "unsigned: install of a job the ToR does not know: unknown job" 1 \
	unsigned install --job-id 99
cjob=$job7s
ctl "unsigned: a signed install of a job without a secret: unknown job" 1 \
	unsigned install
cjob=$job7
ctl "unsigned: install job 7" 0 unsigned install
aggregates "unsigned: installed on demand, job 7 aggregates" yes
ctl "unsigned: remove job 7" 0 unsigned remove
ctl "unsigned: remove it again: unknown job" 1 unsigned remove
aggregates "unsigned: removed, job 7 no longer aggregates" no
counted "unsigned: refusals counted" \
	'c == dict(ok=3, forged=1, replayed=0, bad_hash=1) and d["control"]["unknown_job"] == 1'

# with a secret: only signed, fresh, new requests act; replies are signed
tjob=$job7s cjob=$job7s
start_tor --on-demand
ctl "signed: an unsigned install: unknown job" 1 unsigned install --unsigned
ctl "signed: a wrongly signed install: unknown job" 1 unsigned install \
	--bad-mac
ctl "signed: a stale install: unknown job" 1 unsigned install --stale
ctl "signed: a signed install with a wrong hash: unknown job" 1 unsigned \
	install --bad-hash
ctl "signed: a signed install of an unknown job: unknown job" 1 unsigned \
	install --job-id 99
aggregates "signed: none of them installed job 7" no
ctl "signed: install job 7, signed reply" 0 signed install \
	--save "$tmp/install.bin"
aggregates "signed: installed, job 7 aggregates" yes
ctl "signed: the install replayed: unknown job" 1 unsigned install \
	--replay "$tmp/install.bin"
ctl "signed: remove job 7, signed reply" 0 signed remove \
	--save "$tmp/remove.bin"
ctl "signed: the install replayed after the remove: unknown job" 1 \
	unsigned install --replay "$tmp/install.bin"
aggregates "signed: the replayed install installed nothing" no
ctl "signed: install job 7 again" 0 signed install
ctl "signed: the remove replayed: unknown job" 1 unsigned remove \
	--replay "$tmp/remove.bin"
aggregates "signed: the replayed remove removed nothing" yes
counted "signed: refusals counted (forged, replayed, bad hash, unknown)" \
	'c == dict(ok=3, forged=2, replayed=4, bad_hash=1) and d["control"]["unknown_job"] == 1'
ktap_finish
