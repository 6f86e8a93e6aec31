#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Rina XDP program on a veth pair between two namespaces, loaded each
# way it can be (ip link xdpdrv / xdpgeneric, rinactl native / generic):
# ping and TCP keep working, Rina packets to a worker port without an XSK
# fall back to the stack, agent-port packets reach the stack, malformed
# ones are dropped and counted; job filter and loss knob live.
# Usage: test_xdp_netns.sh   (root; RINACTL=path overrides the binary)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

OBJ=$top/build/bpf/rina_xdp.bpf.o
RINACTL=${RINACTL:-$top/build/bin/rinactl}
PY=$top/selftests/bpf/rina_udp.py
W=$((0x5240))
AG=$((0x524f))
IPA=198.18.7.1
IPB=198.18.7.2

require_root
require_cmd ip python3 ping bpftool
[ -f "$OBJ" ] || { ktap_plan 1; ktap_skip xdp_netns "no $OBJ"; exit 4; }
have_rinactl=1
[ -x "$RINACTL" ] || have_rinactl=0

setup_ns A B || exit 1
ip -n "$A" link add va type veth peer name vb netns "$B"
ip -n "$A" addr add $IPA/24 dev va
ip -n "$B" addr add $IPB/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up

# Counter NAME of the program on vb, summed over CPUs, via bpftool
# (from the attached program's map ids) or via rinactl -j.
ctr_bpftool()
{
	python3 - "$1" "$B" <<'PYEOF'
import json, subprocess, sys
names = ["pass_other", "redirect_xsk", "pass_no_xsk", "pass_agent",
         "drop_fault", "drop_ip_options", "drop_fragment", "drop_udp_len",
         "drop_ok", "drop_runt", "drop_bad_version", "drop_bad_opcode",
         "drop_bad_length", "drop_oversize", "drop_bad_dtype",
         "drop_bad_field", "drop_unknown_job"]
run = lambda *a: json.loads(subprocess.check_output(a))
link = run("ip", "-n", sys.argv[2], "-j", "link", "show", "vb")[0]
prog = run("bpftool", "-j", "prog", "show", "id", str(link["xdp"]["prog"]["id"]))
for m in prog["map_ids"]:
    info = run("bpftool", "-j", "map", "show", "id", str(m))
    if info["name"] == "rina_stats":
        dump = run("bpftool", "-j", "map", "dump", "id", str(m))
        idx = names.index(sys.argv[1])
        for e in dump:
            k = e.get("key", e.get("formatted", {}).get("key"))
            k = k if isinstance(k, int) else int.from_bytes(bytes(int(x, 16) for x in k), "little")
            if k == idx:
                vals = e.get("values", e.get("formatted", {}).get("values"))
                print(sum(v["value"] if isinstance(v["value"], int) else
                          int.from_bytes(bytes(int(x, 16) for x in v["value"]), "little")
                          for v in vals))
PYEOF
}

ctr_rinactl()
{
	ip netns exec "$B" "$RINACTL" -j xdp status dev vb |
		python3 -c "import json,sys; print(json.load(sys.stdin)['counters']['$1'])"
}

CTR=ctr_bpftool
ctr() { $CTR "$1"; }

# Start a receiver in B on PORT expecting N; result in $RECV_OUT.
recv_start()
{
	RECV_OUT=$(mktemp)
	defer rm -f "$RECV_OUT"
	ip netns exec "$B" python3 "$PY" recv "$1" "$2" "$3" >"$RECV_OUT" &
	RECV_PID=$!
	busywait 3000 grep -q ready "$RECV_OUT"
}

# Wait for the receiver (in this shell, not a subshell) and read its count.
recv_wait()
{
	wait "$RECV_PID"
	RECV_GOT=$(tail -n 1 "$RECV_OUT")
}

# check NAME COUNTER DELTA CMD...: run CMD, expect COUNTER += DELTA.
delta_check()
{
	local name=$1 c=$2 want=$3 before after; shift 3
	before=$(ctr "$c")
	"$@"
	after=$(ctr "$c")
	if [ -n "$before" ] && [ -n "$after" ] &&
	   [ $((after - before)) -eq "$want" ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "$c moved from '$before' to '$after', want +$want"
	fi
}

send() { ip netns exec "$A" python3 "$PY" send $IPB "$@"; }

ping_ok() { ip netns exec "$A" ping -c "$1" -i 0.2 -W 2 -q $IPB >/dev/null; }

tcp_works()
{
	local out line
	out=$(mktemp)
	ip netns exec "$B" python3 "$PY" tcp-server 5555 >"$out" &
	busywait 3000 grep -q ready "$out" || { rm -f "$out"; return 1; }
	line=$(ip netns exec "$A" timeout 5 bash -c \
		"exec 3<>/dev/tcp/$IPB/5555; echo rina-tcp >&3; head -n1 <&3")
	wait
	rm -f "$out"
	[ "$line" = "pct-anir" ]
}

# The checks every loading method must pass.
datapath_checks()
{
	local m=$1 got

	ktap_check "$m: ping" ping_ok 3
	ktap_check "$m: tcp" tcp_works

	recv_start $W 20 5
	delta_check "$m: worker port without XSK counted pass_no_xsk" \
		pass_no_xsk 20 send $W valid 20
	recv_wait; got=$RECV_GOT
	[ "$got" = 20 ] && ktap_ok "$m: worker port falls back to the stack" ||
		ktap_fail "$m: worker port falls back to the stack" "got $got of 20"

	recv_start $AG 20 5
	delta_check "$m: agent port counted pass_agent" pass_agent 20 \
		send $AG valid 20
	recv_wait; got=$RECV_GOT
	[ "$got" = 20 ] && ktap_ok "$m: agent port reaches the stack" ||
		ktap_fail "$m: agent port reaches the stack" "got $got of 20"

	recv_start $W 30 2
	delta_check "$m: bad version dropped and counted" drop_bad_version 10 \
		send $W bad_version 10
	delta_check "$m: runt dropped and counted" drop_runt 10 \
		send $W runt 10
	delta_check "$m: bad length dropped and counted" drop_bad_length 10 \
		send $W bad_length 10
	recv_wait; got=$RECV_GOT
	[ "$got" = 0 ] && ktap_ok "$m: malformed never reach the stack" ||
		ktap_fail "$m: malformed never reach the stack" "got $got"
}

attached_as()
{
	ip -n "$B" -j link show vb | python3 -c "
import json, sys
x = json.load(sys.stdin)[0].get('xdp', {})
sys.exit(0 if x.get('mode') == $1 and x['prog']['name'] == 'rina_xdp' else 1)"
}

not_attached() { ! ip -n "$B" link show vb | grep -q 'prog/xdp'; }

ktap_plan 60

for mode in xdpdrv xdpgeneric; do
	want=1; [ $mode = xdpgeneric ] && want=2
	ip -n "$B" link set dev vb $mode obj "$OBJ" sec xdp 2>/dev/null
	ktap_check "ip link $mode: attached" attached_as $want
	CTR=ctr_bpftool
	datapath_checks "ip link $mode"
	ip -n "$B" link set dev vb $mode off
	ktap_check "ip link $mode: detached" not_attached
done

if [ $have_rinactl = 0 ]; then
	while [ "$ktap_n" -lt 60 ]; do
		ktap_skip "rinactl xdp" "no $RINACTL (not built)"
	done
	ktap_finish
fi

for mode in native generic; do
	want=1; [ $mode = generic ] && want=2
	ktap_check "rinactl $mode: attach" \
		ip netns exec "$B" "$RINACTL" xdp attach dev vb mode $mode
	ktap_check "rinactl $mode: attached" attached_as $want
	CTR=ctr_rinactl
	datapath_checks "rinactl $mode"
	# Both counter readers see the same numbers.
	a=$(ctr_bpftool drop_runt); b=$(ctr_rinactl drop_runt)
	[ -n "$a" ] && [ "$a" = "$b" ] && ktap_ok "rinactl $mode: status -j agrees with bpftool" ||
		ktap_fail "rinactl $mode: status -j agrees with bpftool" "$a vs $b"
	ktap_check "rinactl $mode: detach" \
		ip netns exec "$B" "$RINACTL" xdp detach dev vb
	ktap_check "rinactl $mode: detached" not_attached
done

# Job filter: only listed jobs reach the worker port; add one live.
ip netns exec "$B" "$RINACTL" xdp attach dev vb jobs 5,9
CTR=ctr_rinactl
delta_check "job filter: listed job passes" pass_no_xsk 5 send $W valid 5 5
delta_check "job filter: unlisted job dropped" drop_unknown_job 5 \
	send $W valid 5 6
ip netns exec "$B" "$RINACTL" xdp job add dev vb 6
delta_check "job filter: job added live passes" pass_no_xsk 5 \
	send $W valid 5 6
ip netns exec "$B" "$RINACTL" xdp detach dev vb

# Loss knob: every valid Rina packet dropped and counted, ping unharmed.
ip netns exec "$B" "$RINACTL" xdp attach dev vb drop-ppm 1000000
delta_check "drop-ppm 1000000: Rina dropped as drop_fault" drop_fault 10 \
	send $W valid 10
ktap_check "drop-ppm 1000000: ping unharmed" \
	ping_ok 2
ip netns exec "$B" "$RINACTL" xdp detach dev vb
ktap_check "detached at the end" not_attached
ktap_finish
