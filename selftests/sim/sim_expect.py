#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Check one rina-sim --json result (stdin) against the byte counts the
schedule gives (Documentation/protocol.md section 4, RESEARCH.md 4.1):
payload bytes sent and received by every worker, through every rack
uplink, and into the parameter servers. Exact: every packet of the
schedule is counted once, padding words included, nothing retransmitted
(the scenarios are lossless). Prints what differs; exit 1 if anything.

  sim_expect.py W [--lossy]   (W: the job window the run used)

--lossy: a run whose queues drop. What is sent first is still exact (a
sender counts a packet when it sends it, the queue drops it later); what
is received first may lack the lost ones, whose repairs arrive flagged
RETX: first receptions <= expected <= all receptions.
"""
import json
import sys

d = json.loads(sys.stdin.read().strip().splitlines()[-1])
args = [a for a in sys.argv[1:] if a != "--lossy"]
lossy = "--lossy" in sys.argv[1:]
W = int(args[0]) if args else 256
k, m, S, E, sch = d["k"], d["m"], d["size"], d["elems"], d["scheme"]
N, count = k * m, d["size"] // 4
ina = [False] * k
if sch in ("rina", "atp", "switchml"):
    if d["ina"] == "all":
        ina = [True] * k
    elif d["ina"] != "none":
        for i in d["ina"].split(","):
            ina[int(i)] = True


class Sched:
    def __init__(self, count, L, W, pad):
        """as rina_sched_call() (core/schedule.h): with INA members (pad)
        chunks of at most W/4 packets and RINA_INA_CHUNK_BYTES"""
        self.count, self.L, self.pad = count, L, pad
        wcap = W
        if pad and wcap >= 8:
            wcap //= 4
        if pad:
            wcap = min(wcap, (32 << 10) // (4 * E))
        wcap = max(wcap, 2)
        per = L * E
        P = max(1, -(-count // per))
        self.P = min(P, wcap - 1)
        self.block = L * self.P * E
        self.nblocks = -(-count // self.block)

    def plen(self, b, c, p):
        off = b * self.block + (c * self.P + p) * E
        return 0 if off >= self.count else min(E, self.count - off)

    def chunk_bytes(self, c):
        """payload of every sent packet of chunk c (all blocks)"""
        n = 0
        for b in range(self.nblocks):
            for p in range(self.P):
                ln = self.plen(b, c, p)
                if ln or self.pad:
                    n += 4 * (ln if ln else 1)
        return n

    def elems(self, c):
        return sum(self.plen(b, c, p) for b in range(self.nblocks)
                   for p in range(self.P))


def ring_member(s, i, rs=True, ag=True):
    """(tx, rx) payload of ring member i (RS: all chunks but i+1 sent,
    but i received; AG: all but i+2 sent, but i+1 received)."""
    L = s.L
    if L < 2:
        return 0, 0
    tx = rx = 0
    for c in range(L):
        cb = s.chunk_bytes(c)
        if rs:
            tx += cb if c != (i + 1) % L else 0
            rx += cb if c != i else 0
        if ag:
            tx += cb if c != (i + 2) % L else 0
            rx += cb if c != (i + 1) % L else 0
    return tx, rx


exp_tx, exp_rx = [0] * N, [0] * N
up_tx, up_rx = [0] * k, [0] * k
ps_in = None

if sch in ("rar", "rina"):
    members = []            # (rack, [ranks], ina)
    for r in range(k):
        if ina[r]:
            members.append((r, list(range(r * m, r * m + m)), True))
        else:
            members += [(r, [q], False) for q in range(r * m, r * m + m)]
    L = len(members)
    anyina = any(ina)
    s = Sched(count, L, W, anyina)
    total = sum(s.chunk_bytes(c) for c in range(L))
    for i, (r, ranks, isina) in enumerate(members):
        t, x = ring_member(s, i)
        for q in ranks:
            exp_tx[q], exp_rx[q] = (total, total) if isina else (t, x)
        nxt = members[(i + 1) % L]
        if k > 1 and nxt[0] != r:
            up_tx[r] += t
            up_rx[nxt[0]] += t
elif sch == "har":
    s1 = Sched(count, m, W, False)
    for r in range(k):
        for j in range(m):
            t, x = ring_member(s1, j, rs=True, ag=False)
            t3, x3 = ring_member(s1, j, rs=False, ag=True)
            exp_tx[r * m + j] += t + t3
            exp_rx[r * m + j] += x + x3
    for j in range(m):
        shard = s1.elems((j + 1) % m) if m > 1 else count
        s2 = Sched(shard, k, W, False)
        for r in range(k):
            t, x = ring_member(s2, r)
            exp_tx[r * m + j] += t
            exp_rx[r * m + j] += x
            if k > 1:
                up_tx[r] += t
                up_rx[(r + 1) % k] += t
elif sch in ("ps", "atp", "switchml"):
    exp_tx = [S] * N
    exp_rx = [S] * N
    if sch != "switchml":
        streams = 0
        for r in range(k):
            n = 1 if sch == "atp" and ina[r] else m
            streams += n
            up_tx[r] = up_rx[r] = n * S
        ps_in = S if d.get("two_level") else streams * S
else:
    sys.exit("unknown scheme %s" % sch)

bad = []


def cmp(what, got, want):
    if got != want:
        bad.append("%s: %d, expected %d" % (what, got, want))


def cmp_rx(what, first, total, want):
    if not lossy:
        cmp(what, first, want)
    elif not first <= want <= total:
        bad.append("%s: first %d, all %d, expected %d in between" %
                   (what, first, total, want))


# first transmissions: what a retransmission (flag RETX) repeated is
# counted apart by the simulator and reported, not compared
rt = d["retx_payload"]
for q in range(N):
    cmp("rank %d tx" % q, d["worker_tx_by_rank"][q] -
        rt["worker_tx_by_rank"][q], exp_tx[q])
    cmp_rx("rank %d rx" % q, d["worker_rx_by_rank"][q] -
           rt["worker_rx_by_rank"][q], d["worker_rx_by_rank"][q], exp_rx[q])
for r in range(k):
    cmp("uplink %d tx" % r, d["uplink_tx_by_rack"][r] -
        rt["uplink_tx_by_rack"][r], up_tx[r])
    cmp_rx("uplink %d rx" % r, d["uplink_rx_by_rack"][r] -
           rt["uplink_rx_by_rack"][r], d["uplink_rx_by_rack"][r], up_rx[r])
if ps_in is not None and not lossy:
    cmp("into the servers", d["payload"]["ps_down"], ps_in)
    cmp("out of the servers", d["payload"]["ps_up"], ps_in)
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
