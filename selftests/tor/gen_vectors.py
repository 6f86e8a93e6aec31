#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Generate the INA ToR packet vectors (selftests/tor/vectors/*.vec).

Independent of the C model: every expected packet below is written out by
hand from the protocol (Documentation/protocol-ina.md) and encoded by this
file's own packet builder. The generated files are reviewed and committed;
the runner (tor_vectors.c) never regenerates them, so a change of the
model's behaviour fails the test. Re-run only after a deliberate protocol
change:  python3 selftests/tor/gen_vectors.py selftests/tor/vectors
"""
import os
import struct
import sys

# ---- wire constants (include/uapi/linux/rina.h) ----------------------------
CONTRIB, PARTIAL, AG, ACK, NACK, CTRL = 1, 2, 3, 4, 5, 6
F_RETX, F_LAST, F_OWN, F_BYPASS, F_OVF = 0x01, 0x02, 0x04, 0x08, 0x10
F_ECE, F_SW, F_AGP = 0x20, 0x40, 0x80	# F_ECE: RINA_F_ECN_ECHO
INT32_SUM, INT32_MAX = 0x10, 0x11
EXP_NONE = -128
X_TAG = 0x8000			# rsvd: the job's data tag follows the payload
TAG = bytes.fromhex("a1b2c3d4e5f60718")	# a data tag (8 bytes)
X_MAC = 0x4000			# rsvd: a per-packet MAC (auth mac) follows
AGENT_PORT, WORKER_PORT = 0x524F, 0x5240
ECT0, CE = 2, 3		# the IPv4 ECN field, TOS & 3 (RFC 3168); Not-ECT 0
TOR_ELEMS = 256		# RINA_TOR_ELEMS: int32 words one ToR pass adds

# ---- counter indexes (p4/model/configuration.h, Documentation) -----------
JOB_CTR = ["contrib_in", "partial_in", "ag_in", "ack_in", "nack_in",
           "ctrl_in", "bypass_in", "slot_done", "dup", "reemit", "stale",
           "collision", "overflow", "bad", "too_long", "no_worker",
           "drop_sim", "bad_tag"]
JOB_OUT = ["partial_out", "ag_out", "ag_mcast", "ack_out", "ack_mcast",
           "drop_sim_out", "ag_agent"]
TOR_CTR = ["ok", "runt", "bad_version", "bad_opcode", "bad_length",
           "oversize", "bad_dtype", "bad_field", "unknown_job", "non_rina",
           "l2_flood", "l2_runt", "giant"]


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip(s):
    return bytes(int(x) for x in s.split("."))


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def udp_frame(dmac, smac, sip, dip, sport, dport, payload, ident=0x1234,
              ttl=64, tos=0, ucsum=0xBEEF, flags_frag=0x4000):
    ulen = 8 + len(payload)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + ulen, ident,
                      flags_frag, ttl, 17, 0, ip(sip), ip(dip))
    iph = iph[:10] + struct.pack("!H", csum(iph)) + iph[12:]
    return (mac(dmac) + mac(smac) + b"\x08\x00" + iph +
            struct.pack("!HHHH", sport, dport, ulen, ucsum) + payload)


def rina(op, seq, slot=0, chunk=0, flags=0, job=7, rnd=1, step=0, hop=0,
         src=0, p=2, nc=1, exp=EXP_NONE, dt=INT32_SUM, data=(), n=None,
         ver=1, rsvd=0):
    if n is None:
        n = len(data)
    h = struct.pack("!BBHHBBHHIHHHHbBH", ver << 4 | op, flags, job, rnd,
                    step, hop, src, chunk, seq, slot, n, p, nc, exp, dt,
                    rsvd)
    assert len(h) == 28
    return h + b"".join(struct.pack("!I", d & 0xFFFFFFFF) for d in data)


def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


# ---- the rack of most vectors ---------------------------------------------
# Ring of L = 3 members, job 7: member 0 = rank 0 (autonomous, upstream),
# member 1 = this INA rack (agent rank 1; local ranks 1, 2, 3 on ports 1,
# 2, 3 -> bits 0, 1, 2; upstream bit m = 3), member 2 = rank 4 (next).
# The uplink is port 0. W = 4 slots from pool_base 0, P = 2. Replica ids
# (rina-p4cfg's layout): rid_base + b local worker b, + m next, + m + 1
# upstream, + m + 2 the agent (its ip:0x524f on port 1, rank 1's port).
L = 3
ME = 1
OWN = (ME + 1) % L
TOR_MAC = "02:00:00:00:01:ff"
TOR_IP = "198.18.1.254"
AGENT = dict(mac="02:00:00:00:01:0b", ip="198.18.1.11", port=AGENT_PORT,
             tor_port=1)
WORKERS = [dict(rank=1, mac="02:00:00:00:01:0b", ip="198.18.1.11",
                port=WORKER_PORT, tor_port=1),
           dict(rank=2, mac="02:00:00:00:01:0c", ip="198.18.1.12",
                port=WORKER_PORT, tor_port=2),
           dict(rank=3, mac="02:00:00:00:01:0d", ip="198.18.1.13",
                port=WORKER_PORT, tor_port=3)]
UP = dict(rank=0, mac="02:00:00:00:00:0a", ip="198.18.0.10",
          port=WORKER_PORT)
NEXT = dict(rank=4, mac="02:00:00:00:02:0a", ip="198.18.2.10",
            port=WORKER_PORT)
UPLINK = 0
SRC_SW = 0xF000 | 1
P = 2

TI = "RinaIngress.job_classify"


def std_config(v, job=7, job_idx=0, epoch=1, pool_base=0, win=4, mgrp=2,
               rid_base=1, l2=True, flood=True, agent=AGENT, tag=None,
               host=False):
    """host: rank 1 (the agent's address) gets rw_host, as rina-p4cfg
    gives it; most vectors keep rw_local for every worker."""
    v.c("configuration: job %d, ring member %d of %d, W %d, pool %d.." %
        (job, ME, L, win, pool_base))
    if l2:
        for w in WORKERS[1:]:
            v.cli("table_add RinaIngress.l2_fwd.l2_fwd "
                  "RinaIngress.l2_fwd.set_port %s => %d" %
                  (w["mac"], w["tor_port"]))
        v.cli("table_add RinaIngress.l2_fwd.l2_fwd "
              "RinaIngress.l2_fwd.set_port %s => 1" % AGENT["mac"])
        for h in (UP, NEXT):
            v.cli("table_add RinaIngress.l2_fwd.l2_fwd "
                  "RinaIngress.l2_fwd.set_port %s => %d" % (h["mac"], UPLINK))
    v.cli("table_add %s.rina_job %s.set_job %s %d %d => "
          "%d %d %d %d %d %d %d %d %d %d %d %s %s %d %s" %
          (TI, TI, agent["ip"], agent["port"], job, job_idx, epoch,
           pool_base, win, ME, L, OWN, len(WORKERS),
           (1 << len(WORKERS)) - 1, mgrp, SRC_SW, agent["mac"],
           agent["ip"], agent["port"],
           "1 0x" + tag.hex() if tag else "0 0"))
    for b, w in enumerate(WORKERS):
        v.cli("table_add %s.rina_worker %s.set_worker %d %d %s %d => %d" %
              (TI, TI, job_idx, w["rank"], w["ip"], w["port"], b))
    rid = rid_base
    v.cli("mc_mgrp_create %d" % mgrp)
    if flood:
        v.cli("mc_mgrp_create 1")
    nodes = []
    for b, w in enumerate(WORKERS):
        v.cli("table_add RinaEgress.rewrite.replica RinaEgress.rewrite."
              "%s %d => %d %s %s %d" %
              ("rw_host" if host and w["ip"] == agent["ip"] else "rw_local",
               rid, b, w["mac"], w["ip"], w["port"]))
        nodes.append((rid, w["tor_port"]))
        rid += 1
    v.cli("table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_next "
          "%d => %s %s %d" % (rid, NEXT["mac"], NEXT["ip"], NEXT["port"]))
    nodes.append((rid, UPLINK))
    rid += 1
    v.cli("table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_up "
          "%d => %s %s %d" % (rid, UP["mac"], UP["ip"], UP["port"]))
    nodes.append((rid, UPLINK))
    rid += 1
    v.cli("table_add RinaEgress.rewrite.replica RinaEgress.rewrite.rw_agent "
          "%d => %s %s %d" % (rid, agent["mac"], agent["ip"], agent["port"]))
    nodes.append((rid, AGENT["tor_port"]))
    for r, port in nodes:
        v.cli("mc_node_create %d %d" % (r, port))
        v.cli("mc_node_associate %d %d" % (mgrp, v.handle))
        v.handle += 1
    if flood:
        v.cli("mc_node_create 0 0 1 2 3")
        v.cli("mc_node_associate 1 %d" % v.handle)
        v.handle += 1


class Vec:
    def __init__(self, name, title):
        self.name = name
        self.lines = ["# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause",
                      "# " + title,
                      "# Generated by selftests/tor/gen_vectors.py; "
                      "format: selftests/tor/README.md"]
        self.handle = 0
        self.jc = {}
        self.jo = {}
        self.tc = {}

    def c(self, text):
        self.lines.append("")
        self.lines.append("# " + text)

    def cli(self, cmd):
        self.lines.append("cli " + cmd)

    def inp(self, port, pkt, desc):
        self.lines.append("# > port %d: %s" % (port, desc))
        self.lines.append("in %d %s" % (port, pkt.hex()))

    def out(self, port, pkt, desc):
        self.lines.append("#   < port %d: %s" % (port, desc))
        self.lines.append("out %d %s" % (port, pkt.hex()))

    def count(self, table, name, n=1, job_idx=0):
        d = {"job_ctr": self.jc, "job_out": self.jo, "tor_ctr": self.tc}[table]
        key = (job_idx, name)
        d[key] = d.get(key, 0) + n

    def counters(self):
        self.c("counters (every non-zero one, and the zero ones that matter)")
        for table, names, pfx, d in (
                ("job_ctr", JOB_CTR, "RinaIngress.counters.job_ctr", self.jc),
                ("job_out", JOB_OUT, "RinaEgress.counters.job_out", self.jo),
                ("tor_ctr", TOR_CTR, "RinaIngress.counters.tor_ctr", self.tc)):
            jobs = sorted({j for j, _ in d}) or [0]
            if table == "tor_ctr":
                jobs = [0]
            for j in jobs:
                for i, name in enumerate(names):
                    idx = i if table == "tor_ctr" else j * len(names) + i
                    val = d.get((j, name), 0)
                    self.lines.append("counter %s %d %d   # %s%s" %
                                      (pfx, idx, val, name,
                                       "" if table == "tor_ctr" else
                                       " job_idx %d" % j))

    def write(self, d):
        with open(os.path.join(d, self.name + ".vec"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


# ---- packet helpers -----------------------------------------------------------
def contrib(w, seq, slot, chunk, data, flags=0, step=None, job=7, tos=0,
            **kw):
    if step is None:
        step = (ME - chunk) % L
    return udp_frame(AGENT["mac"], w["mac"], w["ip"], AGENT["ip"], w["port"],
                     AGENT_PORT, rina(CONTRIB, seq, slot, chunk, flags,
                                      job=job, step=step, src=w["rank"],
                                      data=data, **kw), tos=tos)


def partial(seq, slot, chunk, data, nc=1, flags=0, step=None, job=7, tos=0,
            **kw):
    if step is None:
        step = (ME - chunk) % L
    return udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                     UP["port"], AGENT_PORT,
                     rina(PARTIAL, seq, slot, chunk, flags, job=job,
                          step=step, src=UP["rank"], nc=nc, data=data, **kw),
                     tos=tos)


def from_agent(dst, body, tos=0):
    """A packet the switch emits: agent address -> dst, fresh IP header
    (DSCP 0; tos: the ECN field the switch gives it)."""
    return udp_frame(dst["mac"], AGENT["mac"], AGENT["ip"], dst["ip"],
                     AGENT_PORT, dst["port"], body, ident=0, ucsum=0,
                     tos=tos)


def to_agent(v, body, desc, tos=0):
    """The agent's own copy of allgather data (the rw_agent replica)."""
    v.out(AGENT["tor_port"], from_agent(AGENT, body, tos), desc)
    v.count("job_out", "ag_agent")


def out_partial(seq, slot, chunk, data, nc, flags=F_SW, step=None, job=7,
                exp=EXP_NONE, p=P, rnd=1, tos=0):
    if step is None:
        step = (ME - chunk) % L + 1
    return from_agent(NEXT, rina(PARTIAL, seq, slot, chunk, flags, job=job,
                                 rnd=rnd, step=step, src=SRC_SW, nc=nc,
                                 data=data, exp=exp, p=p), tos)


def out_ack(seq, slot, step, chunk, flags=F_SW, job=7, p=P, dt=INT32_SUM,
            hop=0, rnd=1):
    """The ToR's header-only ACK of an upstream partial: never
    ECN-capable (tos 0); flags F_ECE when the partial came CE."""
    return from_agent(UP, rina(ACK, seq, slot, chunk, flags, job=job,
                               rnd=rnd, step=step, hop=hop, src=SRC_SW,
                               nc=0, data=[seq], p=p, dt=dt))


def sums(*vecs):
    return [i32(sum(x)) for x in zip(*vecs)]


# ---- vectors ----------------------------------------------------------------
def v_agg_first_chunk():
    v = Vec("agg_first_chunk", "aggregation of m = 3 local contributions "
            "for the member's first chunk (no upstream partial)")
    std_config(v)
    c = ME          # first chunk: contributors = local workers only
    a, b, d = [1, 2, 3, -4], [10, 20, 30, -40], [100, 200, 300, -400]
    v.c("chunk %d packet 0 (seq %d, slot 0): three contributions" % (c, c * P))
    v.inp(1, contrib(WORKERS[0], c * P, 0, c, a), "contrib rank 1")
    v.count("job_ctr", "contrib_in")
    v.inp(2, contrib(WORKERS[1], c * P, 0, c, b), "contrib rank 2")
    v.count("job_ctr", "contrib_in")
    v.inp(3, contrib(WORKERS[2], c * P, 0, c, d), "contrib rank 3")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(c * P, 0 + P, c, sums(a, b, d), 3),
          "SR_PARTIAL to next, slot + P, step + 1, num_contrib 3; no ACK")
    v.count("job_out", "partial_out")
    v.c("packet 1 (seq %d, slot 1), short (2 elements), LAST flag kept, "
        "exponent max kept" % (c * P + 1))
    v.inp(3, contrib(WORKERS[2], c * P + 1, 1, c, [7, 8], flags=F_LAST,
                     exp=3), "contrib rank 3")
    v.inp(1, contrib(WORKERS[0], c * P + 1, 1, c, [1, 1], flags=F_LAST,
                     exp=5), "contrib rank 1")
    v.inp(2, contrib(WORKERS[1], c * P + 1, 1, c, [-8, 9], flags=F_LAST,
                     exp=-2), "contrib rank 2")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(c * P + 1, 1 + P, c, [0, 18], 3,
                              flags=F_SW | F_LAST, exp=5),
          "SR_PARTIAL [0, 18], exp 5, LAST")
    v.count("job_out", "partial_out")
    v.count("tor_ctr", "ok", 6)
    v.counters()
    return v


def v_agg_with_upstream():
    v = Vec("agg_with_upstream", "aggregation of 3 local contributions and "
            "the upstream partial; ACK of the partial at DONE only")
    std_config(v)
    c = 0           # step 1 at member 1: local workers + upstream
    slot = 1 * P    # ordinal of chunk 0 at member 1: step 1 -> P + p
    a, b, d, u = [5, 6], [7, 8], [9, 10], [1000, 2000]
    v.c("chunk 0 packet 0 (seq 0, slot %d): partial arrives second, the "
        "slot completes on the last local contribution" % slot)
    v.inp(1, contrib(WORKERS[0], 0, slot, c, a), "contrib rank 1")
    v.inp(UPLINK, partial(0, slot, c, u, nc=1), "SR_PARTIAL from member 0 "
          "(no ACK yet: slot not done)")
    v.inp(2, contrib(WORKERS[1], 0, slot, c, b), "contrib rank 2")
    v.inp(3, contrib(WORKERS[2], 0, slot, c, d), "contrib rank 3")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(0, slot + P, c, sums(a, b, d, u), 4, step=2),
          "SR_PARTIAL sum of 4, num_contrib 4")
    v.out(UPLINK, out_ack(0, slot - P, 1, c),
          "ACK seq 0 to member 0, slot - P (the sender's slot)")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    v.c("chunk 0 packet 1 (seq 1, slot %d): the partial completes it" %
        (slot + 1))
    for i, w in enumerate(WORKERS):
        v.inp(w["tor_port"], contrib(w, 1, slot + 1, c, [i + 1, -(i + 1)]),
              "contrib rank %d" % w["rank"])
    v.count("job_ctr", "contrib_in", 3)
    v.inp(UPLINK, partial(1, slot + 1, c, [100, 100], nc=1),
          "SR_PARTIAL from member 0")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(1, slot + 1 + P, c, [106, 94], 4, step=2),
          "SR_PARTIAL [106, 94]")
    v.out(UPLINK, out_ack(1, slot + 1 - P, 1, c), "ACK seq 1")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    v.count("tor_ctr", "ok", 8)
    v.counters()
    return v


def ag_seq(seq):
    return seq + L * P


def own_results(seq, c, res):
    """The own chunk's AG_DATA bodies the ToR emits at DONE: hop 0 (the
    local workers, the agent) and hop 1 (the next member)."""
    agf = F_SW | F_AGP | F_OWN
    return [rina(AG, ag_seq(seq), 0, c, agf, step=2, hop=h, src=SRC_SW,
                 nc=4, data=res) for h in (0, 1)]


def v_own_chunk():
    v = Vec("own_chunk_mcast", "own chunk: AG_DATA multicast to the m = 3 "
            "local workers but the agent's host (rw_host, as rina-p4cfg "
            "installs it), the agent, forward to the next member, ACK "
            "upstream")
    std_config(v, host=True)
    c = OWN
    slot = 2 * P    # own chunk is processed at step L - 1 = 2
    seq = c * P
    a, b, d, u = [1, -1, 2], [3, -3, 4], [5, -5, 6], [70, 80, 90]
    v.inp(UPLINK, partial(seq, slot, c, u, nc=1), "SR_PARTIAL chunk %d "
          "(own) from member 0" % c)
    v.count("job_ctr", "partial_in")
    for w, x in zip(WORKERS, (a, b, d)):
        v.inp(w["tor_port"], contrib(w, seq, slot, c, x),
              "contrib rank %d" % w["rank"])
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    res = sums(a, b, d, u)
    body0, body1 = own_results(seq, c, res)
    for w in WORKERS[1:]:
        v.out(w["tor_port"], from_agent(w, body0),
              "AG_DATA seq %d (seq + L*P) hop 0 to rank %d" %
              (ag_seq(seq), w["rank"]))
    v.lines.append("#   (none to rank 1, on the agent's host: the agent "
                   "relays its copy)")
    v.out(UPLINK, from_agent(NEXT, body1), "AG_DATA hop 1 to next member")
    v.out(UPLINK, out_ack(seq, slot - P, 2, c), "ACK of the partial")
    to_agent(v, body0, "AG_DATA hop 0 to the agent (ip:0x524f): the own "
             "chunk's sender of record")
    v.count("job_out", "ag_mcast", 2)
    v.count("job_out", "ag_out")
    v.count("job_out", "ack_out")
    v.count("tor_ctr", "ok", 4)
    v.counters()
    return v


def v_duplicates():
    v = Vec("duplicates_reemit", "duplicates before completion are dropped; "
            "after completion the stored result is re-emitted (RETX); "
            "rina-p4cfg's rw_host for rank 1")
    std_config(v, host=True)
    c0, s0 = 0, P       # chunk 0 (with upstream), slot P
    a, b, d, u = [1, 1], [2, 2], [3, 3], [4, 4]
    v.c("before completion: a second copy of rank 2 and of the partial")
    v.inp(2, contrib(WORKERS[1], 0, s0, c0, b), "contrib rank 2")
    v.inp(2, contrib(WORKERS[1], 0, s0, c0, b, flags=F_RETX),
          "the same again (RETX): dropped, not added")
    v.inp(UPLINK, partial(0, s0, c0, u), "SR_PARTIAL")
    v.inp(UPLINK, partial(0, s0, c0, u, flags=F_RETX), "SR_PARTIAL again: "
          "dropped, no ACK (not done)")
    v.count("job_ctr", "contrib_in", 2)
    v.count("job_ctr", "partial_in", 2)
    v.count("job_ctr", "dup", 2)
    v.inp(1, contrib(WORKERS[0], 0, s0, c0, a), "contrib rank 1")
    v.inp(3, contrib(WORKERS[2], 0, s0, c0, d), "contrib rank 3: done")
    v.count("job_ctr", "contrib_in", 2)
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(0, s0 + P, c0, [10, 10], 4, step=2),
          "SR_PARTIAL [10, 10] (each contribution added once)")
    v.out(UPLINK, out_ack(0, s0 - P, 1, c0), "ACK")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    v.c("after completion: a retransmitted local contribution re-sends "
        "the stored partial (RETX), values unchanged")
    v.inp(1, contrib(WORKERS[0], 0, s0, c0, [99, 99], flags=F_RETX),
          "contrib rank 1 RETX (payload ignored)")
    v.out(UPLINK, out_partial(0, s0 + P, c0, [10, 10], 4, step=2,
                              flags=F_SW | F_RETX), "SR_PARTIAL re-emitted")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "partial_out")
    v.c("after completion: the upstream retransmits its partial (our ACK "
        "was lost): ACK again, nothing else")
    v.inp(UPLINK, partial(0, s0, c0, u, flags=F_RETX), "SR_PARTIAL RETX")
    v.out(UPLINK, out_ack(0, s0 - P, 1, c0), "ACK re-sent")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "ack_out")
    v.c("own chunk done, then rank 3 retransmits its contribution: "
        "AG_DATA back to rank 3 and to the agent")
    c2, s2, seq2 = OWN, 2 * P, OWN * P
    v.inp(UPLINK, partial(seq2, s2, c2, [1]), "SR_PARTIAL own chunk")
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, seq2, s2, c2, [w["rank"]]),
              "contrib rank %d" % w["rank"])
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    agf = F_SW | F_AGP | F_OWN
    res = [1 + 1 + 2 + 3]
    for w in WORKERS[1:]:
        v.out(w["tor_port"], from_agent(w, rina(
            AG, ag_seq(seq2), 0, c2, agf, step=2, hop=0, src=SRC_SW, nc=4,
            data=res)), "AG_DATA to rank %d" % w["rank"])
    v.out(UPLINK, from_agent(NEXT, rina(
        AG, ag_seq(seq2), 0, c2, agf, step=2, hop=1, src=SRC_SW, nc=4,
        data=res)), "AG_DATA to next")
    v.out(UPLINK, out_ack(seq2, s2 - P, 2, c2), "ACK")
    to_agent(v, rina(AG, ag_seq(seq2), 0, c2, agf, step=2, hop=0,
                     src=SRC_SW, nc=4, data=res), "AG_DATA to the agent")
    v.count("job_out", "ag_mcast", 2)
    v.count("job_out", "ag_out")
    v.count("job_out", "ack_out")
    v.inp(3, contrib(WORKERS[2], seq2, s2, c2, [3], flags=F_RETX),
          "contrib rank 3 RETX")
    reemit = rina(AG, ag_seq(seq2), 0, c2, agf | F_RETX, step=2, hop=0,
                  src=SRC_SW, nc=4, data=res)
    v.out(3, from_agent(WORKERS[2], reemit),
          "AG_DATA (RETX) to rank 3, the one worker that asked")
    to_agent(v, reemit, "AG_DATA (RETX) to the agent: its copy at DONE "
             "may have been lost, and the workers wait until it holds one")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "ag_mcast")
    v.inp(1, contrib(WORKERS[0], seq2, s2, c2, [1], flags=F_RETX),
          "contrib rank 1 RETX (the agent's host)")
    v.lines.append("#   (none to rank 1 itself: rw_host)")
    to_agent(v, reemit, "AG_DATA (RETX) to the agent, which relays it to "
             "rank 1")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("tor_ctr", "ok", 14)
    v.counters()
    return v


def v_shadow():
    v = Vec("shadow_sets", "slot reuse: ordinal o and o + W use the two "
            "shadow sets of one index; o + 2W re-initialises o's set")
    std_config(v)
    c = ME          # first chunk: local workers only, simplest
    W = 4

    def fill(slot, seq, base, rnd=1):
        for i, w in enumerate(WORKERS):
            v.inp(w["tor_port"], contrib(w, seq, slot, c, [base + i],
                                         rnd=rnd),
                  "contrib rank %d slot %d seq %d round %d" %
                  (w["rank"], slot, seq, rnd))
        v.count("job_ctr", "contrib_in", 3)
        v.count("tor_ctr", "ok", 3)

    def done(slot, seq, val, rnd=1):
        v.out(UPLINK, from_agent(NEXT, rina(
            PARTIAL, seq, slot + P, c, F_SW, rnd=rnd, step=1, src=SRC_SW,
            nc=3, data=[val])), "SR_PARTIAL slot %d value %d" %
            (slot + P, val))
        v.count("job_ctr", "slot_done")
        v.count("job_out", "partial_out")

    v.c("slot 1 (index 1, set 0) and slot 5 (index 1, set 1) both open")
    v.inp(1, contrib(WORKERS[0], 2, 1, c, [10]), "contrib rank 1 slot 1")
    v.inp(1, contrib(WORKERS[0], 3, 1 + W, c, [20]), "contrib rank 1 slot 5")
    v.count("job_ctr", "contrib_in", 2)
    v.count("tor_ctr", "ok", 2)
    for w in WORKERS[1:]:
        v.inp(w["tor_port"], contrib(w, 2, 1, c, [10]),
              "contrib rank %d slot 1" % w["rank"])
    v.count("job_ctr", "contrib_in", 2)
    v.count("tor_ctr", "ok", 2)
    done(1, 2, 30)
    for w in WORKERS[1:]:
        v.inp(w["tor_port"], contrib(w, 3, 1 + W, c, [20]),
              "contrib rank %d slot 5" % w["rank"])
    v.count("job_ctr", "contrib_in", 2)
    v.count("tor_ctr", "ok", 2)
    done(1 + W, 3, 60)
    v.c("slot 9 = 1 + 2W (index 1, set 0) re-initialises slot 1's set: "
        "fresh values, next round")
    fill(1 + 2 * W, 2, 100, rnd=2)
    done(1 + 2 * W, 2, 303, rnd=2)
    v.c("slot 13 = 5 + 2W (index 1, set 1) replaces slot 5")
    fill(13, 7, 1, rnd=2)
    done(13, 7, 6, rnd=2)
    v.c("a second job (8, job_idx 1, pool 64..67) whose slot_base is "
        "near the 16-bit wrap: 65533 (set 1), 1 (set 0), then 5 = "
        "65533 + 2W mod 65536 is newer than 65533 and replaces it")
    std_config(v, job=8, job_idx=1, epoch=1, pool_base=64, win=4, mgrp=3,
               rid_base=100, l2=False, flood=False)
    for slot, seq, base in ((65533, 2, 7), (1, 3, 0), (5, 4, 1)):
        for i, w in enumerate(WORKERS):
            v.inp(w["tor_port"], contrib(w, seq, slot, c, [base + i],
                                         job=8),
                  "job 8 contrib rank %d slot %d" % (w["rank"], slot))
        v.out(UPLINK, from_agent(NEXT, rina(
            PARTIAL, seq, (slot + P) & 0xFFFF, c, F_SW, job=8, step=1,
            src=SRC_SW, nc=3, data=[3 * base + 3])),
            "job 8 SR_PARTIAL slot %d" % ((slot + P) & 0xFFFF))
        v.count("job_ctr", "contrib_in", 3, job_idx=1)
        v.count("job_ctr", "slot_done", 1, job_idx=1)
        v.count("job_out", "partial_out", 1, job_idx=1)
        v.count("tor_ctr", "ok", 3)
    v.counters()
    return v


def v_stale_collision():
    v = Vec("stale_collision", "a late packet older than the slot occupant "
            "is dropped (stale); a newer occupant while the old one is "
            "unfinished is bypassed to the agent (collision)")
    std_config(v)
    c = ME
    W = 4
    v.c("slot 2 completes, then slot 2 + 2W = 10 reclaims it")
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, 2, 2, c, [1]), "contrib slot 2")
    v.out(UPLINK, from_agent(NEXT, rina(PARTIAL, 2, 2 + P, c, F_SW, step=1,
                                        src=SRC_SW, nc=3, data=[3])),
          "SR_PARTIAL")
    v.inp(1, contrib(WORKERS[0], 9, 10, c, [5]), "contrib rank 1 slot 10 "
          "(fresh claim)")
    v.count("job_ctr", "contrib_in", 4)
    v.count("job_ctr", "slot_done")
    v.count("job_out", "partial_out")
    v.c("late retransmission for slot 2: stale (a late duplicate), "
        "dropped, no re-emission")
    v.inp(2, contrib(WORKERS[1], 2, 2, c, [1], flags=F_RETX),
          "contrib rank 2 slot 2 RETX")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "stale")
    v.c("the same for the upstream: chunk 0 slot 3 completes, slot 11 "
        "reclaims it, the partial for slot 3 comes again: ACK upstream")
    v.inp(UPLINK, partial(0, 3, 0, [1]), "SR_PARTIAL slot 3")
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, 0, 3, 0, [1]), "contrib slot 3")
    v.out(UPLINK, out_partial(0, 3 + P, 0, [4], 4, step=2), "SR_PARTIAL")
    v.out(UPLINK, out_ack(0, 3 - P, 1, 0), "ACK")
    v.inp(1, contrib(WORKERS[0], 1, 11, 0, [1]), "contrib slot 11 (claims)")
    v.inp(UPLINK, partial(0, 3, 0, [1], flags=F_RETX), "SR_PARTIAL slot 3 "
          "RETX: stale")
    v.out(UPLINK, out_ack(0, 3 - P, 1, 0), "ACK again")
    v.count("job_ctr", "partial_in", 2)
    v.count("job_ctr", "contrib_in", 4)
    v.count("job_ctr", "slot_done")
    v.count("job_ctr", "stale")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out", 2)
    v.c("slot 18 = 10 + 2W while slot 10 is unfinished: collision -> "
        "SW_BYPASS set, UDP checksum 0, switched to the agent unchanged "
        "otherwise")
    pkt = contrib(WORKERS[2], 11, 18, c, [4])
    v.inp(3, pkt, "contrib rank 3 slot 18")
    byp = bytearray(pkt)
    byp[42 + 1] |= F_BYPASS
    byp[40:42] = b"\x00\x00"
    v.out(1, bytes(byp), "the same packet with SW_BYPASS, to the agent's "
          "port")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "collision")
    v.c("slot 10 still completes normally afterwards")
    for w in WORKERS[1:]:
        v.inp(w["tor_port"], contrib(w, 9, 10, c, [5]), "contrib slot 10")
    v.count("job_ctr", "contrib_in", 2)
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, from_agent(NEXT, rina(PARTIAL, 9, 10 + P, c, F_SW, step=1,
                                        src=SRC_SW, nc=3, data=[15])),
          "SR_PARTIAL")
    v.count("job_out", "partial_out")
    v.c("a packet that already carries SW_BYPASS is switched untouched")
    pkt = contrib(WORKERS[1], 12, 3, c, [4], flags=F_BYPASS)
    v.inp(2, pkt, "contrib rank 2 with SW_BYPASS")
    v.out(1, pkt, "unchanged, to the agent")
    v.count("job_ctr", "bypass_in")
    v.count("tor_ctr", "ok", 15)
    v.counters()
    return v


def v_unknown_job():
    v = Vec("unknown_job", "Rina packets of a job not installed here, or "
            "addressed to another member, are switched untouched")
    std_config(v)
    pkt = contrib(WORKERS[1], 0, 0, 1, [1, 2], job=99)
    v.inp(2, pkt, "contrib for job 99 to the agent")
    v.out(1, pkt, "switched to the agent unchanged")
    v.count("tor_ctr", "unknown_job")
    pkt = udp_frame(NEXT["mac"], AGENT["mac"], AGENT["ip"], NEXT["ip"],
                    AGENT_PORT, NEXT["port"],
                    rina(AG, 20, 0, 1, F_AGP, hop=1, src=1, nc=4, data=[9]))
    v.inp(1, pkt, "AG_DATA sent by the agent (repair) to the next member")
    v.out(UPLINK, pkt, "switched to the uplink unchanged")
    v.count("tor_ctr", "unknown_job")
    # the same with an 8-byte trailer: the job's tag, or a hop's MAC
    for rnd, rsvd, what, name in (
            (21, X_TAG, "the job's data tag (rsvd RINA_X_TAG", "tag"),
            (22, X_MAC, "a per-packet MAC (auth mac: rsvd RINA_X_MAC",
             "MAC")):
        pkt = udp_frame(NEXT["mac"], AGENT["mac"], AGENT["ip"], NEXT["ip"],
                        AGENT_PORT, NEXT["port"],
                        rina(AG, rnd, 0, 1, F_AGP, hop=1, src=1, nc=4,
                             data=[9], rsvd=rsvd) + TAG)
        v.inp(1, pkt, "the same with %s, 8 bytes after the payload)" %
              what)
        v.out(UPLINK, pkt, "switched to the uplink unchanged, %s and all" %
              name)
        v.count("tor_ctr", "unknown_job")
    pkt = contrib(WORKERS[1], 0, 0, 1, [1], job=7)
    pkt = bytearray(pkt)
    pkt[36:38] = struct.pack("!H", 0x5241)
    ipchk = bytes(pkt)
    v.inp(2, ipchk, "job 7 contrib to the agent's worker port (not the "
          "agent port)")
    v.out(1, ipchk, "switched unchanged")
    v.count("tor_ctr", "unknown_job")
    v.counters()
    return v


def v_malformed():
    v = Vec("malformed", "malformed Rina packets are dropped and counted by "
            "parse error; nothing is emitted")
    std_config(v)
    good = rina(CONTRIB, 0, 0, 1, src=2, data=[1, 2])

    def send(body, why, err, frame=None):
        if frame is None:
            frame = udp_frame(AGENT["mac"], WORKERS[1]["mac"],
                              WORKERS[1]["ip"], AGENT["ip"], WORKER_PORT,
                              AGENT_PORT, body)
        v.inp(2, frame, why)
        v.count("tor_ctr", err)

    send(good[:20], "20 bytes of Rina header", "runt")
    send(good[:27], "27 bytes", "runt")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1, 2], ver=2), "version 2",
         "bad_version")
    b = bytearray(good)
    b[0] = 0x10
    send(bytes(b), "opcode 0", "bad_opcode")
    b[0] = 0x17
    send(bytes(b), "opcode 7", "bad_opcode")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1, 2], n=3), "n_elem 3 with "
         "2 words", "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1, 2], n=1), "n_elem 1 with "
         "2 words", "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[]), "data with n_elem 0",
         "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[0] * 4, n=1025),
         "n_elem 1025", "oversize")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], dt=0x20), "dtype 2",
         "bad_dtype")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], dt=0x12), "op 2",
         "bad_dtype")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], rsvd=1), "rsvd 1",
         "bad_field")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], rsvd=X_TAG), "rsvd "
         "RINA_X_TAG without the 8 tag bytes", "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], rsvd=X_TAG | 1) +
         TAG, "rsvd RINA_X_TAG | 1, 8 bytes after the payload",
         "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], rsvd=X_MAC), "rsvd "
         "RINA_X_MAC without the 8 MAC bytes", "bad_length")
    send(rina(CONTRIB, 0, 0, 1, src=2, data=[1], rsvd=X_MAC | X_TAG) +
         TAG, "rsvd RINA_X_MAC | RINA_X_TAG, 8 bytes after the payload",
         "bad_length")
    send(rina(CTRL, 0, data=[16, 0, 0, 0], rsvd=X_TAG) + TAG, "CTRL with "
         "the tag bit and 8 bytes (CTRL is signed, never tagged)",
         "bad_field")
    send(rina(CTRL, 0, data=[1, 2, 3]), "CTRL with 3 words", "bad_length")
    send(rina(CTRL, 0, data=[16, 0, 0, 0, 0, 0]), "CTRL with 6 words "
         "(neither plain 4 nor signed 8)", "bad_length")
    send(rina(ACK, 0, data=[]), "ACK with no seq", "bad_length")
    f = bytearray(udp_frame(AGENT["mac"], WORKERS[1]["mac"],
                            WORKERS[1]["ip"], AGENT["ip"], WORKER_PORT,
                            AGENT_PORT, good))
    send(None, "frame 2 bytes shorter than the UDP length says",
         "bad_length", frame=bytes(f[:-2]))
    send(None, "2 bytes of trailing garbage", "bad_length",
         frame=bytes(f + b"\x00\x00"))
    g = bytearray(f)
    g[38:40] = struct.pack("!H", 4)
    send(None, "UDP length 4", "runt", frame=bytes(g))
    v.inp(2, bytes(f[:10]), "10-byte frame")
    v.count("tor_ctr", "l2_runt")
    v.c("after all that, a good packet still aggregates normally")
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, 2, 0, 1, [2]), "contrib")
    v.count("tor_ctr", "ok", 3)
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(2, P, 1, [6], 3), "SR_PARTIAL [6]")
    v.count("job_out", "partial_out")
    v.counters()
    return v


def v_non_rina():
    v = Vec("non_rina", "traffic that is not Rina is switched by MAC, "
            "byte for byte; unknown destinations flood")
    std_config(v)
    arp = (b"\xff" * 6 + mac(WORKERS[1]["mac"]) + b"\x08\x06" +
           bytes.fromhex("0001080006040001") + mac(WORKERS[1]["mac"]) +
           ip(WORKERS[1]["ip"]) + b"\x00" * 6 + ip(AGENT["ip"]) +
           b"\x00" * 18)
    v.inp(2, arp, "ARP request, broadcast")
    for port in (0, 1, 3):
        v.out(port, arp, "flooded")
    v.count("tor_ctr", "non_rina")
    v.count("tor_ctr", "l2_flood")
    tcp = udp_frame(NEXT["mac"], WORKERS[2]["mac"], WORKERS[2]["ip"],
                    NEXT["ip"], 40000, 22, b"hello")
    tcp = bytearray(tcp)
    tcp[23] = 6
    tcp[24:26] = b"\x00\x00"
    tcp[24:26] = struct.pack("!H", csum(bytes(tcp[14:34])))
    v.inp(3, bytes(tcp), "IPv4 proto 6 to the next host")
    v.out(UPLINK, bytes(tcp), "switched to the uplink unchanged")
    v.count("tor_ctr", "non_rina")
    u = udp_frame(WORKERS[0]["mac"], UP["mac"], UP["ip"], WORKERS[0]["ip"],
                  5353, 5353, b"x" * 33)
    v.inp(UPLINK, u, "UDP 5353 to rank 1")
    v.out(1, u, "unchanged")
    v.count("tor_ctr", "non_rina")
    frag = udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                     WORKER_PORT, AGENT_PORT,
                     rina(PARTIAL, 0, 2, 0, data=[1]), flags_frag=0x2000)
    v.inp(UPLINK, frag, "IPv4 fragment (MF) to the agent port: not parsed "
          "as Rina")
    v.out(1, frag, "unchanged")
    v.count("tor_ctr", "non_rina")
    ip6 = (mac(AGENT["mac"]) + mac(UP["mac"]) + b"\x86\xdd" + b"\x60" +
           b"\x00" * 59)
    v.inp(UPLINK, ip6, "IPv6 frame")
    v.out(1, ip6, "unchanged")
    v.count("tor_ctr", "non_rina")
    own = udp_frame(WORKERS[1]["mac"], "02:00:00:00:01:0c", "1.2.3.4",
                    "5.6.7.8", 1, 2, b"")
    v.inp(2, own, "frame whose destination is on its ingress port")
    v.count("tor_ctr", "non_rina")
    v.counters()
    return v


def v_allgather():
    v = Vec("allgather_ack", "allgather data from upstream: copy to local "
            "workers but the agent's host (rw_host), the agent, forward "
            "while hop < L - 1, no ACK (the agent ACKs); ACK fan-out to "
            "every local worker")
    std_config(v, host=True)
    c = 0           # chunk 0 is owned by member L - 1 = 2
    seq = ag_seq(c * P)
    body = rina(AG, seq, 0, c, F_AGP | F_OWN, step=2, hop=1, src=0xF002,
                nc=5, data=[11, 22, 33])
    pkt = udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                    UP["port"], AGENT_PORT, body)
    v.inp(UPLINK, pkt, "AG_DATA hop 1 from member 0")
    locb = rina(AG, seq, 0, c, F_AGP | F_OWN | F_SW, step=2, hop=1,
                src=0xF002, nc=5, data=[11, 22, 33])
    for w in WORKERS[1:]:
        v.out(w["tor_port"], from_agent(w, locb), "copy to rank %d" %
              w["rank"])
    v.out(UPLINK, from_agent(NEXT, rina(AG, seq, 0, c, F_AGP | F_OWN | F_SW,
                                        step=2, hop=2, src=0xF002, nc=5,
                                        data=[11, 22, 33])),
          "forward, hop 2; no ACK from the switch")
    to_agent(v, locb, "copy to the agent (ip:0x524f), which ACKs it "
             "upstream and is its sender of record downstream")
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 2)
    v.count("job_out", "ag_out")
    body = rina(AG, seq + 1, 0, c, F_AGP, step=2, hop=2, src=0xF002, nc=5,
                data=[1])
    v.inp(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                            UP["port"], AGENT_PORT, body),
          "AG_DATA hop 2 = L - 1: last hop")
    locb = rina(AG, seq + 1, 0, c, F_AGP | F_SW, step=2, hop=2, src=0xF002,
                nc=5, data=[1])
    for w in WORKERS[1:]:
        v.out(w["tor_port"], from_agent(w, locb), "copy to rank %d" %
              w["rank"])
    to_agent(v, locb, "copy to the agent (it ACKs it upstream)")
    v.lines.append("#   (last hop: no forward, no ACK)")
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 2)
    v.c("ACK of our partials from the downstream member: to every local "
        "worker")
    ack = rina(ACK, 4, 5, 1, 0, step=1, src=NEXT["rank"], nc=0,
               data=[4, 5])
    v.inp(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                            AGENT["ip"], NEXT["port"], AGENT_PORT, ack),
          "ACK seqs 4, 5")
    ackl = rina(ACK, 4, 5, 1, F_SW, step=1, src=NEXT["rank"], nc=0,
                data=[4, 5])
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, ackl), "ACK copy to rank %d" %
              w["rank"])
    v.lines.append("#   (no copy to the agent)")
    v.count("job_ctr", "ack_in")
    v.count("job_out", "ack_mcast", 3)
    v.c("AG ACK, NACK and CTRL go to the agent untouched")
    for body, what, ctr in (
            (rina(ACK, 9, 0, 1, F_AGP, src=4, nc=0, data=[9]), "AG ACK",
             "ack_in"),
            (rina(NACK, 9, 0, 1, F_AGP, src=2, nc=0, data=[9, 10]), "NACK",
             "nack_in"),
            (rina(CTRL, 0, 0, 0, src=2, nc=0, data=[1, 0, 0, 7]), "CTRL",
             "ctrl_in")):
        pkt = udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"], AGENT["ip"],
                        NEXT["port"], AGENT_PORT, body)
        v.inp(UPLINK, pkt, what)
        v.out(1, pkt, "to the agent unchanged")
        v.count("job_ctr", ctr)
    v.count("tor_ctr", "ok", 6)
    v.counters()
    return v


def v_numbers():
    v = Vec("numbers_limits", "int32 wrap-around flagged, MAX, a job's "
            "64-element packets, a full %d-element pass, n_elem above %d "
            "bypassed, bad packets dropped" % (TOR_ELEMS, TOR_ELEMS))
    std_config(v)
    c = ME
    big = 0x7FFFFFF0
    v.c("overflow: INT32_MAX region wraps, result carries OVERFLOW")
    v.inp(1, contrib(WORKERS[0], 2, 0, c, [big, -5]), "contrib rank 1")
    v.inp(2, contrib(WORKERS[1], 2, 0, c, [0x20, -5]), "contrib rank 2")
    v.inp(3, contrib(WORKERS[2], 2, 0, c, [0, -5]), "contrib rank 3")
    v.out(UPLINK, out_partial(2, P, c, [i32(big + 0x20), -15], 3,
                              flags=F_SW | F_OVF), "SR_PARTIAL, OVERFLOW")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("job_ctr", "overflow")
    v.count("job_out", "partial_out")
    v.c("an upstream partial flagged OVERFLOW: the slot's result keeps "
        "the flag; the re-emission too")
    v.inp(UPLINK, partial(0, 6, 0, [1], flags=F_OVF), "SR_PARTIAL chunk 0 "
          "slot 6 with OVERFLOW")
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, 0, 6, 0, [1]), "contrib chunk 0")
    v.out(UPLINK, out_partial(0, 6 + P, 0, [4], 4, step=2,
                              flags=F_SW | F_OVF), "SR_PARTIAL, OVERFLOW")
    v.out(UPLINK, out_ack(0, 6 - P, 1, 0), "ACK")
    v.inp(2, contrib(WORKERS[1], 0, 6, 0, [1], flags=F_RETX),
          "contrib rank 2 RETX")
    v.out(UPLINK, out_partial(0, 6 + P, 0, [4], 4, step=2,
                              flags=F_SW | F_OVF | F_RETX),
          "SR_PARTIAL re-emitted with OVERFLOW")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "contrib_in", 4)
    v.count("job_ctr", "slot_done")
    v.count("job_ctr", "overflow")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "partial_out", 2)
    v.count("job_out", "ack_out")
    v.count("tor_ctr", "ok", 5)
    v.c("MAX reduction")
    xs = ([-5, 3, -100], [-7, 9, -200], [-6, 1, -300])
    for w, x in zip(WORKERS, xs):
        v.inp(w["tor_port"], contrib(w, 3, 1, c, x, dt=INT32_MAX),
              "contrib MAX")
    v.out(UPLINK, from_agent(NEXT, rina(PARTIAL, 3, 1 + P, c, F_SW, step=1,
                                        src=SRC_SW, nc=3, data=[-5, 9, -100],
                                        dt=INT32_MAX)), "SR_PARTIAL max")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("job_out", "partial_out")
    v.c("64 elements (a job's 'elements 64'): the words present added, "
        "the slot's others stored as zero")
    xs = [[(i * 7 + k * 1000) - 20000 for i in range(64)] for k in range(3)]
    for w, x in zip(WORKERS, xs):
        v.inp(w["tor_port"], contrib(w, 8, 2, c, x), "contrib 64 elements")
    v.out(UPLINK, out_partial(8, 2 + P, c, sums(*xs), 3), "SR_PARTIAL 64")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("job_out", "partial_out")
    v.c("%d elements, one full pass: every adder, sums that wrap in the "
        "last words" % TOR_ELEMS)
    xs = [[(i * 7919 + k * 100003) - 900000 for i in range(TOR_ELEMS)]
          for k in range(3)]
    xs[0][-1] = 0x7FFFFFFF
    xs[1][-1] = 1
    for w, x in zip(WORKERS, xs):
        v.inp(w["tor_port"], contrib(w, 8, 3, c, x),
              "contrib %d elements" % TOR_ELEMS)
    v.out(UPLINK, out_partial(8, 3 + P, c, [i32(x) for x in sums(*xs)], 3,
                              flags=F_SW | F_OVF),
          "SR_PARTIAL %d, OVERFLOW" % TOR_ELEMS)
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("job_ctr", "overflow")
    v.count("job_out", "partial_out")
    v.c("%d elements: more than one pass, bypassed to the agent"
        % (TOR_ELEMS + 1))
    pkt = contrib(WORKERS[1], 9, 3, c, list(range(TOR_ELEMS + 1)))
    byp = bytearray(pkt)
    byp[43] |= F_BYPASS
    byp[40:42] = b"\x00\x00"
    v.inp(2, pkt, "contrib %d elements" % (TOR_ELEMS + 1))
    v.out(1, bytes(byp), "SW_BYPASS, to the agent")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "too_long")
    v.c("inconsistent packets: dropped and counted as bad")
    v.inp(2, contrib(WORKERS[1], 9, 3, L, [1]), "chunk L")
    v.inp(2, contrib(WORKERS[1], 9, 3, c, [1], p=0), "p_chunk 0")
    v.inp(2, contrib(WORKERS[1], 9, 3, c, [1], p=4), "p_chunk = W")
    v.inp(UPLINK, partial(9, 3, ME, [1]), "partial for the first chunk "
          "(no upstream contribution expected)")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "bad", 4)
    v.c("SR_CONTRIB from a rank that is not a local worker: to the agent")
    stranger = dict(rank=9, mac="02:00:00:00:01:0c", ip="198.18.1.12",
                    port=WORKER_PORT)
    pkt = contrib(stranger, 9, 3, c, [1])
    v.inp(2, pkt, "contrib from rank 9")
    v.out(1, pkt, "unchanged, to the agent")
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "no_worker")
    v.c("SR_CONTRIB naming local worker rank %d but from another host, "
        "or from that host's other port: no worker's either (exact source "
        "checks)" % WORKERS[1]["rank"])
    for ip_, port_ in (("198.18.1.99", WORKER_PORT),
                       (WORKERS[1]["ip"], WORKER_PORT + 1)):
        fake = dict(WORKERS[1], ip=ip_, port=port_, mac=stranger["mac"])
        pkt = contrib(fake, 9, 3, c, [1000])
        v.inp(2, pkt, "contrib 'from' rank %d at %s:%d" %
              (WORKERS[1]["rank"], ip_, port_))
        v.out(1, pkt, "unchanged, to the agent: not added")
        v.count("job_ctr", "contrib_in")
        v.count("job_ctr", "no_worker")
    v.count("tor_ctr", "ok", 20)
    v.counters()
    return v


def v_tor_address():
    v = Vec("tor_address", "the agent's own contributions, addressed to the "
            "ToR's own IPv4 address (a host cannot send to itself through "
            "the wire), aggregate with those addressed to the agent")
    std_config(v)
    v.cli("table_add %s.rina_job %s.set_job %s %d %d => "
          "0 1 0 4 %d %d %d %d %d 2 %d %s %s %d 0 0" %
          (TI, TI, TOR_IP, AGENT_PORT, 7, ME, L, OWN, len(WORKERS),
           (1 << len(WORKERS)) - 1, SRC_SW, AGENT["mac"], AGENT["ip"],
           AGENT_PORT))
    c = ME
    w0 = WORKERS[0]
    pkt = udp_frame(TOR_MAC, w0["mac"], w0["ip"], TOR_IP, w0["port"],
                    AGENT_PORT, rina(CONTRIB, 2, 0, c, 0, step=0,
                                     src=w0["rank"], data=[5]))
    v.inp(1, pkt, "contrib rank 1 (the agent) to the ToR's address")
    for w in WORKERS[1:]:
        v.inp(w["tor_port"], contrib(w, 2, 0, c, [1]), "contrib rank %d to "
              "the agent's address" % w["rank"])
    v.out(UPLINK, out_partial(2, P, c, [7], 3), "SR_PARTIAL from the agent's "
          "address")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("job_out", "partial_out")
    v.count("tor_ctr", "ok", 3)
    v.counters()
    return v


CPU_PORT = 4
CTRL_TOR_INSTALL, CTRL_TOR_REMOVE = 16, 17


def signed_ctrl(typ, hash_, src):
    """A signed control message (n_elem RINA_CTRL_AUTH_WORDS): struct
    rina_ctrl, then the stamp and the MAC (struct rina_ctrl_auth). The
    data plane checks neither; the CPU does (protocol-ina.md)."""
    words = [typ, 0, hash_ >> 32, hash_ & 0xFFFFFFFF,
             0x0005E5E5, 0x12345678, 0xA1B2C3D4, 0xE5F60718]
    return rina(CTRL, 0, 0, 0, src=src, p=0, nc=0, exp=0, dt=0, data=words)


def v_ctrl_cpu():
    v = Vec("ctrl_cpu", "signed TOR_INSTALL and TOR_REMOVE (n_elem 8) from "
            "the agent to the ToR's control address reach the CPU port "
            "unchanged, before and after the job is installed")
    std_config(v, l2=False)
    v.cli("table_add RinaIngress.l2_fwd.l2_fwd "
          "RinaIngress.l2_fwd.set_port %s => %d" % (TOR_MAC, CPU_PORT))
    a = AGENT
    inst = udp_frame(TOR_MAC, a["mac"], a["ip"], TOR_IP, AGENT_PORT,
                     AGENT_PORT, signed_ctrl(CTRL_TOR_INSTALL,
                                             0x0123456789ABCDEF, 1))
    v.c("job 7 is not installed at the ToR's address: the INSTALL is "
        "switched to the CPU as an unknown job")
    v.inp(1, inst, "signed TOR_INSTALL, 32 bytes of CTRL")
    v.out(CPU_PORT, inst, "to the CPU port unchanged")
    v.count("tor_ctr", "unknown_job")
    v.c("installed (the agent's contributions to the ToR's address): the "
        "REMOVE is a CTRL of the job, passed to the CPU")
    v.cli("table_add %s.rina_job %s.set_job %s %d %d => "
          "0 1 0 4 %d %d %d %d %d 2 %d %s %s %d 0 0" %
          (TI, TI, TOR_IP, AGENT_PORT, 7, ME, L, OWN, len(WORKERS),
           (1 << len(WORKERS)) - 1, SRC_SW, AGENT["mac"], AGENT["ip"],
           AGENT_PORT))
    rem = udp_frame(TOR_MAC, a["mac"], a["ip"], TOR_IP, AGENT_PORT,
                    AGENT_PORT, signed_ctrl(CTRL_TOR_REMOVE,
                                            0x0123456789ABCDEF, 1))
    v.inp(1, rem, "signed TOR_REMOVE")
    v.out(CPU_PORT, rem, "to the CPU port unchanged")
    v.count("job_ctr", "ctrl_in")
    v.count("tor_ctr", "ok")
    v.c("a CTRL of 6 words to the same address is dropped")
    bad = udp_frame(TOR_MAC, a["mac"], a["ip"], TOR_IP, AGENT_PORT,
                    AGENT_PORT, rina(CTRL, 0, 0, 0, src=1, p=0, nc=0, exp=0,
                                     dt=0, data=[17, 0, 0, 0, 0, 0]))
    v.inp(1, bad, "CTRL n_elem 6")
    v.count("tor_ctr", "bad_length")
    v.counters()
    return v


def v_two_jobs():
    v = Vec("two_jobs", "two jobs on one ToR: separate pools, groups, "
            "counters; the same slot numbers never mix")
    std_config(v)
    # job 8: same rack, own pool at 64, group 3, rids from 100, epoch 1
    std_config(v, job=8, job_idx=1, epoch=1, pool_base=64, win=8, mgrp=3,
               rid_base=100, l2=False, flood=False)
    c = ME
    for job, base in ((7, 1), (8, 100)):
        for w in WORKERS[:2]:
            v.inp(w["tor_port"], contrib(w, 2, 0, c, [base], job=job),
                  "job %d contrib rank %d slot 0" % (job, w["rank"]))
    v.inp(3, contrib(WORKERS[2], 2, 0, c, [5], job=8), "job 8 rank 3")
    v.out(UPLINK, out_partial(2, P, c, [205], 3, job=8), "job 8 partial")
    v.inp(3, contrib(WORKERS[2], 2, 0, c, [5], job=7), "job 7 rank 3")
    v.out(UPLINK, out_partial(2, P, c, [7], 3, job=7), "job 7 partial")
    for j in (0, 1):
        v.count("job_ctr", "contrib_in", 3, job_idx=j)
        v.count("job_ctr", "slot_done", 1, job_idx=j)
        v.count("job_out", "partial_out", 1, job_idx=j)
    v.count("tor_ctr", "ok", 6)
    v.c("a re-install with a new epoch frees the pool whatever it holds")
    v.counters()
    return v


def v_epoch():
    v = Vec("epoch_reinstall", "a job installed again with a new epoch "
            "finds its pool free: old DONE slots are neither stale nor dups")
    std_config(v, epoch=1)
    c = ME
    for w in WORKERS:
        v.inp(w["tor_port"], contrib(w, 2, 0, c, [1]), "contrib slot 0")
    v.out(UPLINK, out_partial(2, P, c, [3], 3), "partial")
    v.c("same job id again (e.g. after a restart) at job_idx 1, epoch 2, "
        "same pool, new agent port 0x524e")
    ag2 = dict(AGENT, port=0x524E)
    std_config(v, job=7, job_idx=1, epoch=2, pool_base=0, win=4, mgrp=3,
               rid_base=100, l2=False, flood=False, agent=ag2)
    for w in WORKERS:
        pkt = udp_frame(ag2["mac"], w["mac"], w["ip"], ag2["ip"], w["port"],
                        ag2["port"], rina(CONTRIB, 2, 0, c, 0, step=0,
                                          src=w["rank"], data=[10]))
        v.inp(w["tor_port"], pkt, "contrib slot 0, same (round, seq)")
    v.out(UPLINK, udp_frame(NEXT["mac"], AGENT["mac"], AGENT["ip"],
                            NEXT["ip"], ag2["port"], NEXT["port"],
                            rina(PARTIAL, 2, P, c, F_SW, step=1, src=SRC_SW,
                                 nc=3, data=[30]), ident=0, ucsum=0),
          "partial of the new install: 30, not a re-emission of 3")
    for j in (0, 1):
        v.count("job_ctr", "contrib_in", 3, job_idx=j)
        v.count("job_ctr", "slot_done", 1, job_idx=j)
        v.count("job_out", "partial_out", 1, job_idx=j)
    v.count("tor_ctr", "ok", 6)
    v.counters()
    return v


def lcg(x):
    return (x * 1664525 + 1013904223) & 0xFFFFFFFF


def v_drop_sim():
    v = Vec("drop_sim", "drop simulator: per-opcode drop rates in ingress "
            "and egress, driven by a seeded generator")
    std_config(v)
    c = ME
    v.cli("table_add RinaIngress.drop_sim.drop_sim "
          "RinaIngress.drop_sim.drop_rate 0x11 => 32768")
    v.cli("register_write RinaIngress.drop_sim.drop_rng 0 12345")
    v.cli("table_add RinaEgress.drop_sim.drop_sim "
          "RinaEgress.drop_sim.drop_rate 0x14 => 65536")
    v.c("ingress: SR_CONTRIB dropped when (rng >> 16) < 32768; rng "
        "steps x = x * 1664525 + 1013904223 per SR_CONTRIB")
    x = 12345
    dropped = 0
    kept = 0
    for k in range(6):
        x = lcg(x)
        drop = (x >> 16) < 32768
        w = WORKERS[k % 3]
        v.inp(w["tor_port"], contrib(w, 2 * 0 + 10 + k, k % 4, c, [k]),
              "contrib rank %d slot %d: rng %08x -> %s" %
              (w["rank"], k % 4, x, "drop" if drop else "pass"))
        if drop:
            dropped += 1
        else:
            kept += 1
    v.count("job_ctr", "contrib_in", kept)
    v.count("job_ctr", "drop_sim", dropped)
    v.count("tor_ctr", "ok", 6)
    v.c("egress: every ACK the switch emits is dropped (rate 65536): "
        "the copies of a downstream ACK; AG_DATA copies pass")
    seq = ag_seq(0)
    body = rina(AG, seq, 0, 0, F_AGP, step=2, hop=1, src=0xF002, nc=5,
                data=[3])
    v.inp(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                            UP["port"], AGENT_PORT, body),
          "AG_DATA hop 1 from member 0")
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, rina(
            AG, seq, 0, 0, F_AGP | F_SW, step=2, hop=1, src=0xF002, nc=5,
            data=[3])), "copy to rank %d" % w["rank"])
    v.out(UPLINK, from_agent(NEXT, rina(
        AG, seq, 0, 0, F_AGP | F_SW, step=2, hop=2, src=0xF002, nc=5,
        data=[3])), "forward")
    to_agent(v, rina(AG, seq, 0, 0, F_AGP | F_SW, step=2, hop=1, src=0xF002,
                     nc=5, data=[3]), "copy to the agent")
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 3)
    v.count("job_out", "ag_out")
    ack = rina(ACK, 4, 5, 1, 0, step=1, src=NEXT["rank"], nc=0, data=[4])
    v.inp(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                            AGENT["ip"], NEXT["port"], AGENT_PORT, ack),
          "ACK from the downstream member: all three copies dropped")
    v.count("job_ctr", "ack_in")
    v.count("job_out", "drop_sim_out", 3)
    v.count("tor_ctr", "ok", 2)
    v.counters()
    return v


def tagged(body, tag=TAG, rsvd=X_TAG):
    """body with rsvd set and tag after its payload (rina_tag_seal())."""
    return body[:26] + struct.pack("!H", rsvd) + body[28:] + tag


def v_tagged():
    v = Vec("tagged_job", "a tagged job (set_job tagged 1, its tag): only "
            "contributions, partials, allgather data, ACKs and NACKs with "
            "the job's tag count; what the ToR emits carries it; a wrong "
            "or missing tag, or X_MAC, is dropped (bad_tag); an untagged "
            "job drops a tag")
    std_config(v, tag=TAG)
    # job 8, untagged: its own pool, group and replicas (as two_jobs)
    std_config(v, job=8, job_idx=1, epoch=1, pool_base=64, win=8, mgrp=3,
               rid_base=100, l2=False, flood=False)
    bad = bytes(b ^ 0x01 for b in TAG[:1]) + TAG[1:]

    def tcontrib(w, seq, slot, chunk, data, tag=TAG, rsvd=X_TAG, **kw):
        step = (ME - chunk) % L
        body = rina(CONTRIB, seq, slot, chunk, job=7, step=step,
                    src=w["rank"], data=data, **kw)
        if rsvd or tag:
            body = tagged(body, tag, rsvd)
        return udp_frame(AGENT["mac"], w["mac"], w["ip"], AGENT["ip"],
                         w["port"], AGENT_PORT, body)

    def tpartial(seq, slot, chunk, data, tag=TAG, nc=1):
        body = tagged(rina(PARTIAL, seq, slot, chunk, job=7,
                           step=(ME - chunk) % L, src=UP["rank"], nc=nc,
                           data=data), tag)
        return udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                         UP["port"], AGENT_PORT, body)

    def dropped(port, pkt, desc):
        v.inp(port, pkt, desc)
        v.lines.append("#   (dropped, bad_tag: not the job's)")
        v.count("job_ctr", "bad_tag")
        v.count("tor_ctr", "ok")

    c, slot = 0, 1 * P
    a, b, d, u = [5, 6], [7, 8], [9, 10], [1000, 2000]
    w1 = WORKERS[1]
    v.c("chunk 0 packet 0 (seq 0, slot %d): forgeries first, from rank 2's "
        "own address and port; none is added" % slot)
    dropped(2, tcontrib(w1, 0, slot, c, [999, 999], tag=bad),
            "contrib 'rank 2' with a wrong tag (one bit off)")
    dropped(2, tcontrib(w1, 0, slot, c, [999, 999], tag=b"", rsvd=0),
            "contrib 'rank 2' without a tag (rsvd 0)")
    dropped(2, tcontrib(w1, 0, slot, c, [999, 999], rsvd=X_MAC),
            "contrib 'rank 2' with rsvd RINA_X_MAC and the tag's 8 bytes")
    dropped(UPLINK, tpartial(0, slot, c, [999, 999], tag=bad),
            "SR_PARTIAL 'from member 0' with a wrong tag")
    v.c("the genuine ones, tagged: rank 2's is no duplicate, the sum has "
        "no 999")
    v.inp(1, tcontrib(WORKERS[0], 0, slot, c, a), "contrib rank 1")
    v.inp(UPLINK, tpartial(0, slot, c, u), "SR_PARTIAL from member 0")
    v.inp(2, tcontrib(w1, 0, slot, c, b), "contrib rank 2")
    v.inp(3, tcontrib(WORKERS[2], 0, slot, c, d), "contrib rank 3")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    v.count("tor_ctr", "ok", 4)
    v.out(UPLINK, from_agent(NEXT, tagged(rina(
        PARTIAL, 0, slot + P, c, F_SW, step=2, src=SRC_SW, nc=4,
        data=sums(a, b, d, u)))), "SR_PARTIAL sum of 4, with the job's tag")
    v.out(UPLINK, from_agent(UP, tagged(rina(
        ACK, 0, slot - P, c, F_SW, step=1, src=SRC_SW, nc=0, data=[0]))),
        "ACK seq 0 to member 0: header, one seq, the tag (truncated after "
        "it)")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")

    v.c("chunk 0 packet 1 (seq 1, slot %d): a full %d-word pass, tagged; "
        "the ACK upstream keeps word 0 and the tag, no other word"
        % (slot + 1, TOR_ELEMS))
    a, b, d, u = ([k * 1000 + i for i in range(TOR_ELEMS)]
                  for k in range(1, 5))
    v.inp(UPLINK, tpartial(1, slot + 1, c, u), "SR_PARTIAL from member 0")
    for w, x in zip(WORKERS, (a, b, d)):
        v.inp(w["tor_port"], tcontrib(w, 1, slot + 1, c, x),
              "contrib rank %d" % w["rank"])
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    v.count("tor_ctr", "ok", 4)
    v.out(UPLINK, from_agent(NEXT, tagged(rina(
        PARTIAL, 1, slot + 1 + P, c, F_SW, step=2, src=SRC_SW, nc=4,
        data=sums(a, b, d, u)))), "SR_PARTIAL sum of 4, with the job's tag")
    v.out(UPLINK, from_agent(UP, tagged(rina(
        ACK, 1, slot + 1 - P, c, F_SW, step=1, src=SRC_SW, nc=0,
        data=[1]))), "ACK seq 1 to member 0: one seq, then the tag")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")

    v.c("own chunk %d (seq %d, slot %d): AG_DATA to the workers, the next "
        "member and the agent, ACK upstream, all tagged" %
        (OWN, OWN * P, 2 * P))
    seq, slot = OWN * P, 2 * P
    a, b, d, u = [1, -1, 2], [3, -3, 4], [5, -5, 6], [70, 80, 90]
    v.inp(UPLINK, tpartial(seq, slot, OWN, u), "SR_PARTIAL (own chunk)")
    for w, x in zip(WORKERS, (a, b, d)):
        v.inp(w["tor_port"], tcontrib(w, seq, slot, OWN, x),
              "contrib rank %d" % w["rank"])
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    v.count("tor_ctr", "ok", 4)
    res = sums(a, b, d, u)
    agf = F_SW | F_AGP | F_OWN
    body0 = tagged(rina(AG, ag_seq(seq), 0, OWN, agf, step=2, hop=0,
                        src=SRC_SW, nc=4, data=res))
    body1 = tagged(rina(AG, ag_seq(seq), 0, OWN, agf, step=2, hop=1,
                        src=SRC_SW, nc=4, data=res))
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, body0), "AG_DATA hop 0, tagged, "
              "to rank %d" % w["rank"])
    v.out(UPLINK, from_agent(NEXT, body1), "AG_DATA hop 1 to next member")
    v.out(UPLINK, from_agent(UP, tagged(rina(
        ACK, seq, slot - P, OWN, F_SW, step=2, src=SRC_SW, nc=0,
        data=[seq]))), "ACK of the partial")
    to_agent(v, body0, "AG_DATA hop 0 to the agent")
    v.count("job_out", "ag_mcast", 3)
    v.count("job_out", "ag_out")
    v.count("job_out", "ack_out")

    v.c("allgather data and a reduce-scatter ACK from the ring: copies "
        "keep the tag; with a wrong one nothing is copied")
    seq = ag_seq(0)
    body = rina(AG, seq, 0, 0, F_AGP | F_OWN, step=2, hop=1, src=0xF002,
                nc=5, data=[11, 22, 33])
    dropped(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"],
                              AGENT["ip"], UP["port"], AGENT_PORT,
                              tagged(body, bad)),
            "AG_DATA hop 1 'from member 0', wrong tag")
    v.inp(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                            UP["port"], AGENT_PORT, tagged(body)),
          "AG_DATA hop 1 from member 0, tagged")
    locb = tagged(rina(AG, seq, 0, 0, F_AGP | F_OWN | F_SW, step=2, hop=1,
                       src=0xF002, nc=5, data=[11, 22, 33]))
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, locb), "copy to rank %d" %
              w["rank"])
    v.out(UPLINK, from_agent(NEXT, tagged(rina(
        AG, seq, 0, 0, F_AGP | F_OWN | F_SW, step=2, hop=2, src=0xF002,
        nc=5, data=[11, 22, 33]))), "forward, hop 2")
    to_agent(v, locb, "copy to the agent")
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 3)
    v.count("job_out", "ag_out")
    v.count("tor_ctr", "ok")
    ack = rina(ACK, 4, 5, 1, 0, step=1, src=NEXT["rank"], nc=0, data=[4, 5])
    dropped(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                              AGENT["ip"], NEXT["port"], AGENT_PORT, ack),
            "ACK seqs 4, 5 without a tag")
    v.inp(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                            AGENT["ip"], NEXT["port"], AGENT_PORT,
                            tagged(ack)), "ACK seqs 4, 5, tagged")
    ackl = tagged(rina(ACK, 4, 5, 1, F_SW, step=1, src=NEXT["rank"], nc=0,
                       data=[4, 5]))
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, ackl), "ACK copy to rank %d" %
              w["rank"])
    v.count("job_ctr", "ack_in")
    v.count("job_out", "ack_mcast", 3)
    v.count("tor_ctr", "ok")

    v.c("NACK: to the agent unchanged with the tag, dropped without; "
        "CTRL (signed, never tagged) to the agent")
    nack = rina(NACK, 9, 0, 1, F_AGP, src=2, nc=0, data=[9, 10])
    pkt = udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"], AGENT["ip"],
                    NEXT["port"], AGENT_PORT, tagged(nack))
    v.inp(UPLINK, pkt, "NACK, tagged")
    v.out(1, pkt, "to the agent unchanged")
    v.count("job_ctr", "nack_in")
    v.count("tor_ctr", "ok")
    dropped(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                              AGENT["ip"], NEXT["port"], AGENT_PORT,
                              tagged(nack, bad)), "NACK, wrong tag")
    pkt = udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"], AGENT["ip"],
                    NEXT["port"], AGENT_PORT,
                    rina(CTRL, 0, 0, 0, src=2, nc=0, data=[1, 0, 0, 7]))
    v.inp(UPLINK, pkt, "CTRL")
    v.out(1, pkt, "to the agent unchanged")
    v.count("job_ctr", "ctrl_in")
    v.count("tor_ctr", "ok")

    v.c("job 8 has no tag: a tagged contribution is not its own; "
        "untagged ones aggregate as ever")
    v.inp(2, udp_frame(AGENT["mac"], w1["mac"], w1["ip"], AGENT["ip"],
                       w1["port"], AGENT_PORT,
                       tagged(rina(CONTRIB, 2, 0, ME, job=8, step=0,
                                   src=w1["rank"], data=[999]))),
          "job 8 contrib rank 2 with a tag")
    v.lines.append("#   (dropped, bad_tag)")
    v.count("job_ctr", "bad_tag", job_idx=1)
    for i, w in enumerate(WORKERS):
        v.inp(w["tor_port"], contrib(w, 2, 0, ME, [i + 1], job=8),
              "job 8 contrib rank %d" % w["rank"])
    v.out(UPLINK, out_partial(2, P, ME, [6], 3, job=8),
          "job 8 partial [6], untagged")
    v.count("job_ctr", "contrib_in", 3, job_idx=1)
    v.count("job_ctr", "slot_done", 1, job_idx=1)
    v.count("job_out", "partial_out", 1, job_idx=1)
    v.count("tor_ctr", "ok", 4)

    v.c("X_MAC on a host-to-host hop (no job of this ToR): switched "
        "unchanged, MAC and all")
    pkt = udp_frame(NEXT["mac"], AGENT["mac"], AGENT["ip"], NEXT["ip"],
                    AGENT_PORT, NEXT["port"],
                    tagged(rina(AG, 21, 0, 1, F_AGP, hop=1, src=1, nc=4,
                                data=[9]), bytes(range(8)), X_MAC))
    v.inp(1, pkt, "AG_DATA repair to the next member, rsvd RINA_X_MAC")
    v.out(UPLINK, pkt, "to the uplink unchanged")
    v.count("tor_ctr", "unknown_job")
    v.counters()
    return v


ECN_NAME = {0: "Not-ECT", ECT0: "ECT(0)", CE: "CE"}


def ecn_reemit(v, w, seq, slot, c, data, res, tos_in, tos_out, why):
    """A worker retransmits a contribution of a done slot (chunk c) with
    ECN field tos_in: the ToR re-sends its partial res with tos_out."""
    v.c(why)
    v.inp(w["tor_port"], contrib(w, seq, slot, c, data, flags=F_RETX,
                                 tos=tos_in),
          "contrib rank %d RETX, %s" % (w["rank"], ECN_NAME[tos_in]))
    v.out(UPLINK, out_partial(seq, slot + P, c, res, 4, step=2,
                              flags=F_SW | F_RETX, tos=tos_out),
          "SR_PARTIAL re-emitted, %s" % ECN_NAME[tos_out])
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "partial_out")


def v_ecn():
    v = Vec("ecn_marks", "ECN through the aggregator: a slot keeps the CE "
            "marks of the packets that join it; its result leaves CE if a "
            "local contribution came CE, else ECT(0) if the packet that "
            "makes it is ECN-capable; the ACK upstream of a CE partial "
            "echoes it (ECN_ECHO); allgather data and ACKs from the ring "
            "pass with their ECN field and flags")
    std_config(v)
    W = 4
    c, s = 0, 1 * P     # chunk 0 (local workers + upstream), slot P
    a, b, d, u = [1, 2], [3, 4], [5, 6], [100, 200]
    v.c("(a) chunk 0 packet 0 (seq 0, slot %d): everything ECT(0), no CE; "
        "a CE copy of rank 2's contribution before completion is a "
        "duplicate: dropped, the slot not marked" % s)
    v.inp(UPLINK, partial(0, s, c, u, tos=ECT0), "SR_PARTIAL from member "
          "0, ECT(0)")
    v.inp(1, contrib(WORKERS[0], 0, s, c, a, tos=ECT0),
          "contrib rank 1, ECT(0)")
    v.inp(2, contrib(WORKERS[1], 0, s, c, b, tos=ECT0),
          "contrib rank 2, ECT(0)")
    v.inp(2, contrib(WORKERS[1], 0, s, c, b, flags=F_RETX, tos=CE),
          "the same again (RETX), CE: dropped (dup), no mark")
    v.inp(3, contrib(WORKERS[2], 0, s, c, d, tos=ECT0),
          "contrib rank 3, ECT(0): done")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "contrib_in", 4)
    v.count("job_ctr", "dup")
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(0, s + P, c, sums(a, b, d, u), 4, step=2,
                              tos=ECT0), "SR_PARTIAL sum of 4, ECT(0)")
    v.out(UPLINK, out_ack(0, s - P, 1, c), "ACK seq 0, tos 0, no ECN_ECHO")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    ecn_reemit(v, WORKERS[0], 0, s, c, a, sums(a, b, d, u), CE, ECT0,
               "(a) after completion: rank 1 retransmits, CE: the partial "
               "is re-sent ECT(0) (a duplicate joins nothing, marks "
               "nothing)")
    v.count("tor_ctr", "ok", 6)

    v.c("(b) chunk 0 packet 1 (seq 1, slot %d): rank 2's contribution "
        "arrives CE, the others ECT(0); the upstream partial (ECT(0)) "
        "completes the slot" % (s + 1))
    a, b, d, u = [7, 8], [9, 10], [11, 12], [1000, 2000]
    v.inp(1, contrib(WORKERS[0], 1, s + 1, c, a, tos=ECT0),
          "contrib rank 1, ECT(0)")
    v.inp(2, contrib(WORKERS[1], 1, s + 1, c, b, tos=CE),
          "contrib rank 2, CE")
    v.inp(3, contrib(WORKERS[2], 1, s + 1, c, d, tos=ECT0),
          "contrib rank 3, ECT(0)")
    v.inp(UPLINK, partial(1, s + 1, c, u, tos=ECT0), "SR_PARTIAL from "
          "member 0, ECT(0): done")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    res_b = sums(a, b, d, u)
    v.out(UPLINK, out_partial(1, s + 1 + P, c, res_b, 4, step=2, tos=CE),
          "SR_PARTIAL sum of 4, CE: the mark goes on to its receiver")
    v.out(UPLINK, out_ack(1, s + 1 - P, 1, c), "ACK seq 1, tos 0, no "
          "ECN_ECHO: the upstream's partial was not CE")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    ecn_reemit(v, WORKERS[2], 1, s + 1, c, d, res_b, 0, CE,
               "(b) after completion: rank 3 retransmits, not "
               "ECN-capable: the re-sent partial is CE still (the slot "
               "keeps the mark)")
    v.count("tor_ctr", "ok", 5)

    s2 = s + 2 * W
    v.c("(c) round 2, chunk 0 packet 0 (seq 0) in slot %d = %d + 2W, which "
        "reclaims (a)'s done slot: the upstream partial arrives CE, the "
        "local contributions ECT(0)" % (s2, s))
    a, b, d, u = [1, -1], [2, -2], [3, -3], [40, 50]
    v.inp(1, contrib(WORKERS[0], 0, s2, c, a, rnd=2, tos=ECT0),
          "contrib rank 1, ECT(0)")
    v.inp(2, contrib(WORKERS[1], 0, s2, c, b, rnd=2, tos=ECT0),
          "contrib rank 2, ECT(0)")
    v.inp(UPLINK, partial(0, s2, c, u, rnd=2, tos=CE), "SR_PARTIAL from "
          "member 0, CE")
    v.inp(3, contrib(WORKERS[2], 0, s2, c, d, rnd=2, tos=ECT0),
          "contrib rank 3, ECT(0): done")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "slot_done")
    v.out(UPLINK, out_partial(0, s2 + P, c, sums(a, b, d, u), 4, step=2,
                              rnd=2, tos=ECT0),
          "SR_PARTIAL sum of 4, ECT(0): the upstream's mark is not the "
          "result's")
    v.out(UPLINK, out_ack(0, s2 - P, 1, c, flags=F_SW | F_ECE, rnd=2),
          "ACK seq 0 with ECN_ECHO (its partial came CE), tos 0")
    v.count("job_out", "partial_out")
    v.count("job_out", "ack_out")
    v.c("(c) the upstream retransmits that partial, ECT(0), after "
        "completion: ACK again, still with ECN_ECHO")
    v.inp(UPLINK, partial(0, s2, c, u, flags=F_RETX, rnd=2, tos=ECT0),
          "SR_PARTIAL RETX, ECT(0)")
    v.out(UPLINK, out_ack(0, s2 - P, 1, c, flags=F_SW | F_ECE, rnd=2),
          "ACK re-sent with ECN_ECHO, tos 0")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "ack_out")
    v.c("(c) (a)'s partial (round 1, slot %d) once more, CE: stale (slot "
        "%d holds its index and set, with the upstream's mark); the ACK "
        "of a stale partial never echoes" % (s, s2))
    v.inp(UPLINK, partial(0, s, c, [100, 200], flags=F_RETX, tos=CE),
          "SR_PARTIAL round 1 slot %d RETX, CE: stale" % s)
    v.out(UPLINK, out_ack(0, s - P, 1, c), "ACK seq 0 round 1, tos 0, no "
          "ECN_ECHO")
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "stale")
    v.count("job_out", "ack_out")
    v.count("tor_ctr", "ok", 6)

    c2, s3, seq = OWN, 2 * P, OWN * P
    v.c("(d) own chunk %d (seq %d, slot %d): rank 1's contribution arrives "
        "CE, the rest ECT(0): every AG_DATA copy is CE, the ACK upstream "
        "does not echo" % (c2, seq, s3))
    a, b, d, u = [1, 1, 1], [2, 2, 2], [3, 3, 3], [-6, 10, 20]
    v.inp(UPLINK, partial(seq, s3, c2, u, tos=ECT0), "SR_PARTIAL own "
          "chunk from member 0, ECT(0)")
    for w, x, t in zip(WORKERS, (a, b, d), (CE, ECT0, ECT0)):
        v.inp(w["tor_port"], contrib(w, seq, s3, c2, x, tos=t),
              "contrib rank %d, %s" % (w["rank"],
                                       "CE" if t == CE else "ECT(0)"))
    v.count("job_ctr", "partial_in")
    v.count("job_ctr", "contrib_in", 3)
    v.count("job_ctr", "slot_done")
    res = sums(a, b, d, u)
    body0, body1 = own_results(seq, c2, res)
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, body0, CE),
              "AG_DATA hop 0 to rank %d, CE" % w["rank"])
    v.out(UPLINK, from_agent(NEXT, body1, CE), "AG_DATA hop 1 to next "
          "member, CE")
    v.out(UPLINK, out_ack(seq, s3 - P, 2, c2), "ACK of the partial, tos 0, "
          "no ECN_ECHO")
    to_agent(v, body0, "AG_DATA hop 0 to the agent, CE", CE)
    v.count("job_out", "ag_mcast", 3)
    v.count("job_out", "ag_out")
    v.count("job_out", "ack_out")
    v.c("(d) rank 2 retransmits (ECT(0)): AG_DATA (RETX) back to rank 2 "
        "and to the agent, CE still")
    v.inp(2, contrib(WORKERS[1], seq, s3, c2, b, flags=F_RETX, tos=ECT0),
          "contrib rank 2 RETX, ECT(0)")
    reemit = rina(AG, ag_seq(seq), 0, c2, F_SW | F_AGP | F_OWN | F_RETX,
                  step=2, hop=0, src=SRC_SW, nc=4, data=res)
    v.out(2, from_agent(WORKERS[1], reemit, CE), "AG_DATA (RETX) to rank "
          "2, CE")
    to_agent(v, reemit, "AG_DATA (RETX) to the agent, CE", CE)
    v.count("job_ctr", "contrib_in")
    v.count("job_ctr", "dup")
    v.count("job_ctr", "reemit")
    v.count("job_out", "ag_mcast")
    v.count("tor_ctr", "ok", 5)

    c3 = ME         # first chunk: local workers only
    v.c("(e) first chunk %d packet 0 (seq %d, slot 0): no packet "
        "ECN-capable, the result neither (tos 0, as in every other "
        "vector)" % (c3, c3 * P))
    for i, w in enumerate(WORKERS):
        v.inp(w["tor_port"], contrib(w, c3 * P, 0, c3, [i + 1]),
              "contrib rank %d, Not-ECT" % w["rank"])
    v.out(UPLINK, out_partial(c3 * P, P, c3, [6], 3), "SR_PARTIAL [6], "
          "tos 0")
    v.c("(e) packet 1 (seq %d, slot 1): ranks 1 and 2 ECT(0), rank 3 "
        "Not-ECT completes it: the result is ECT(0) only if the packet "
        "that makes it is ECN-capable, so tos 0" % (c3 * P + 1))
    for i, w in enumerate(WORKERS):
        v.inp(w["tor_port"], contrib(w, c3 * P + 1, 1, c3, [10 * (i + 1)],
                                     tos=ECT0 if i < 2 else 0),
              "contrib rank %d, %s" % (w["rank"],
                                       "ECT(0)" if i < 2 else "Not-ECT"))
    v.out(UPLINK, out_partial(c3 * P + 1, 1 + P, c3, [60], 3),
          "SR_PARTIAL [60], tos 0")
    v.count("job_ctr", "contrib_in", 6)
    v.count("job_ctr", "slot_done", 2)
    v.count("job_out", "partial_out", 2)
    v.count("tor_ctr", "ok", 6)

    v.c("(f) allgather data from upstream keeps its ECN field, the DSCP "
        "bits cleared as before: CE (tos 0x2b, DSCP 10) to every copy")
    seq = ag_seq(0)     # chunk 0 is owned by member L - 1 = 2
    body = rina(AG, seq, 0, 0, F_AGP | F_OWN, step=2, hop=1, src=0xF002,
                nc=5, data=[11, 22, 33])
    v.inp(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                            UP["port"], AGENT_PORT, body, tos=0x28 | CE),
          "AG_DATA hop 1 from member 0, DSCP 10, CE")
    locb = rina(AG, seq, 0, 0, F_AGP | F_OWN | F_SW, step=2, hop=1,
                src=0xF002, nc=5, data=[11, 22, 33])
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, locb, CE), "copy to rank %d, "
              "CE" % w["rank"])
    v.out(UPLINK, from_agent(NEXT, rina(AG, seq, 0, 0, F_AGP | F_OWN | F_SW,
                                        step=2, hop=2, src=0xF002, nc=5,
                                        data=[11, 22, 33]), CE),
          "forward, hop 2, CE")
    to_agent(v, locb, "copy to the agent, CE", CE)
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 3)
    v.count("job_out", "ag_out")
    v.c("(f) the last hop's data arrives ECT(0): its copies are ECT(0)")
    body = rina(AG, seq + 1, 0, 0, F_AGP, step=2, hop=2, src=0xF002, nc=5,
                data=[1])
    v.inp(UPLINK, udp_frame(AGENT["mac"], UP["mac"], UP["ip"], AGENT["ip"],
                            UP["port"], AGENT_PORT, body, tos=ECT0),
          "AG_DATA hop 2 = L - 1, ECT(0)")
    locb = rina(AG, seq + 1, 0, 0, F_AGP | F_SW, step=2, hop=2, src=0xF002,
                nc=5, data=[1])
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, locb, ECT0), "copy to rank %d, "
              "ECT(0)" % w["rank"])
    to_agent(v, locb, "copy to the agent, ECT(0)", ECT0)
    v.lines.append("#   (last hop: no forward)")
    v.count("job_ctr", "ag_in")
    v.count("job_out", "ag_mcast", 3)
    v.c("(f) the next member ACKs (b)'s CE partial with ECN_ECHO (sent "
        "ECT(0), as librina's UDP socket sends every datagram): every "
        "local worker gets the echo, in an ACK that is not ECN-capable")
    ack = rina(ACK, 1, s + 1, c, F_ECE, step=2, src=NEXT["rank"], nc=0,
               data=[1])
    v.inp(UPLINK, udp_frame(AGENT["mac"], NEXT["mac"], NEXT["ip"],
                            AGENT["ip"], NEXT["port"], AGENT_PORT, ack,
                            tos=ECT0), "ACK seq 1, ECN_ECHO, ECT(0)")
    ackl = rina(ACK, 1, s + 1, c, F_ECE | F_SW, step=2, src=NEXT["rank"],
                nc=0, data=[1])
    for w in WORKERS:
        v.out(w["tor_port"], from_agent(w, ackl), "ACK copy to rank %d, "
              "ECN_ECHO kept, tos 0" % w["rank"])
    v.lines.append("#   (no copy to the agent)")
    v.count("job_ctr", "ack_in")
    v.count("job_out", "ack_mcast", 3)
    v.count("tor_ctr", "ok", 3)
    v.counters()
    return v


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(d, exist_ok=True)
    for f in (v_agg_first_chunk, v_agg_with_upstream, v_own_chunk,
              v_duplicates, v_shadow, v_stale_collision, v_unknown_job,
              v_malformed, v_non_rina, v_allgather, v_numbers, v_two_jobs,
              v_epoch, v_drop_sim, v_tor_address, v_ctrl_cpu, v_tagged,
              v_ecn):
        f().write(d)


if __name__ == "__main__":
    main()
