#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# rina-tor --stats FILE --format prometheus: after a replayed vector (so
# that counters are not all zero), the file at exit is parsed with
# python3-prometheus-client's text_string_to_metric_families; every
# metric is rina_-prefixed, typed, counters end in _total, and every
# number equals the -j JSON printed at the same exit. An unwritable
# --stats is refused at start.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"

tor=$top/build/bin/rina-tor
replay=$top/build/selftests/tor/tor_replay
job7=$top/selftests/tor/job_rack1.txt
job8=$top/selftests/tor/job_rack1_j8.txt
N=4
PY=/usr/bin/python3	# Debian's, with python3-prometheus-client

require_root
require_cmd ip tc python3
ktap_plan $N
if [ ! -x "$tor" ] || [ ! -x "$replay" ]; then
	for ((i = 0; i < N; i++)); do
		ktap_skip "tor_prom" "build/bin/rina-tor or tor_replay not built"
	done
	ktap_finish
fi
if ! $PY -c 'import prometheus_client.parser' 2>/dev/null; then
	for ((i = 0; i < N; i++)); do
		ktap_skip "tor_prom" "python3-prometheus-client not installed (make deps)"
	done
	ktap_finish
fi
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# refused before it touches the network
out=$("$tor" --job "$job7" --rack 1 --stats "$tmp/no/dir/tor.prom" \
	--format prometheus 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q "$tmp/no/dir/tor.prom.tmp: No such file or directory" <<<"$out"; then
	ktap_ok "tor_prom unwritable --stats refused"
else
	ktap_fail "tor_prom unwritable --stats refused" "exit $rc: $out"
fi

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

ip netns exec "$TOR" "$tor" --job "$job7" --job "$job8" --rack 1 --epoch 1 \
	--stats "$tmp/tor.prom" --format prometheus -j \
	>"$tmp/tor.json" 2>"$tmp/tor.err" &
torpid=$!
defer 'kill $torpid 2>/dev/null'
if busywait 5000 test -s "$tmp/tor.prom"; then
	ktap_ok "tor_prom rina-tor writes --stats in Prometheus format"
else
	sed 's/^/# /' "$tmp/tor.err"
	ktap_fail "tor_prom rina-tor writes --stats in Prometheus format"
fi
ip netns exec "$TST" "$replay" t0,t1,t2,t3 \
	"$top/selftests/tor/vectors/own_chunk_mcast.vec" >"$tmp/replay" 2>&1 ||
	sed 's/^/# /' "$tmp/replay"
kill -TERM "$torpid"
wait "$torpid"

if $PY - "$tmp/tor.prom" "$tmp/tor.json" >"$tmp/py.out" 2>&1 <<'PY'
import json, sys
from prometheus_client.parser import text_string_to_metric_families

text = open(sys.argv[1]).read()
d = json.loads(open(sys.argv[2]).read())
fams = {f.name: f for f in text_string_to_metric_families(text)}
got = {}
for f in fams.values():
    assert f.name.startswith("rina_tor_"), f.name
    assert f.type in ("counter", "gauge"), (f.name, f.type)
    assert f.documentation, f.name
    for s in f.samples:
        if f.type == "counter":
            assert s.name.endswith("_total"), s.name
        got[(s.name, tuple(sorted(s.labels.items())))] = s.value
# a counter's TYPE line names it without _total, its samples with it
for line in text.splitlines():
    if line.startswith("# TYPE"):
        _, _, name, typ = line.split()
        assert typ != "counter" or name.endswith("_total"), line

want = {}
def put(name, labels, v):
    want[(name, tuple(sorted(labels.items())))] = float(v)
rack = str(d["rack"])
for j in d["jobs"]:
    lb = {"rack": rack, "job": str(j["job"])}
    for k, v in j["counters"].items():
        put("rina_tor_job_%s_total" % k, lb, v)
    for k, v in j["control"].items():
        put("rina_tor_control_requests_total", dict(lb, result=k), v)
put("rina_tor_control_unknown_job_total", {"rack": rack},
    d["control"]["unknown_job"])
for k, v in d["switch"].items():
    put("rina_tor_switch_packets_total", {"rack": rack, "kind": k}, v)
for p in d["ports"]:
    lb = {"rack": rack, "port": p["name"]}
    for k, m in (("rx", "rx"), ("tx", "tx"), ("rx_drop", "rx_dropped"),
                 ("tx_drop", "tx_dropped")):
        put("rina_tor_port_%s_packets_total" % m, lb, p[k])
for k, v in d.get("steer", {}).items():
    put("rina_tor_steer_%s_total" % k, {"rack": rack}, v)

assert set(got) == set(want), (set(got) ^ set(want))
bad = [(k, got[k], want[k]) for k in want if got[k] != want[k]]
assert not bad, bad
# the replayed vector shows: not a file of zeros
c = d["jobs"][0]["counters"]
assert c["contrib_in"] == 3 and got[("rina_tor_job_contrib_in_total",
    (("job", "7"), ("rack", "1")))] == 3, c
print("%d samples in %d families match the JSON" % (len(got), len(fams)))
PY
then
	sed 's/^/# /' "$tmp/py.out"
	ktap_ok "tor_prom parsed, named and typed, equal to -j"
else
	sed 's/^/# /' "$tmp/py.out"
	ktap_fail "tor_prom parsed, named and typed, equal to -j"
fi
if [ ! -e "$tmp/tor.prom.tmp" ] && [ -z "$(ls "$tmp" | grep '\.tmp$')" ]; then
	ktap_ok "tor_prom no temporary file left"
else
	ktap_fail "tor_prom no temporary file left" "$(ls "$tmp")"
fi
ktap_finish
