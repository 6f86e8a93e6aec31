#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Forge Rina packets at a running job, as an off-path host on the
cluster network would, to every rank's port and every agent port, with
the claimed sender's source address spoofed (raw IPv4) and the right job
id. Bounded: exactly COUNT packets spread over SECONDS, then it exits and
prints what it sent.

    inject.py ctrl|data|observer|replay JOBFILE COUNT SECONDS [--own-address]
              [--only RANK[:PORT]]
    inject.py farnack JOBFILE COUNT SECONDS SRC_IP:PORT DST_IP:PORT

ctrl: ABORT, HELLO, HELLO_ACK, BYE and TOR_LOST, unsigned or with a
made-up MAC and a fresh stamp, right or wrong job hash. data: SR_CONTRIB,
SR_PARTIAL,
AG_DATA with garbage values, ACK and NACK, for guessed rounds (the first
few hundred calls), chunks and sequence numbers, untagged or with a
made-up tag. observer: the data class as an on-path observer forges it:
it reads the trailer of the job's data off the wire (this host's
frames) and puts it on every packet, as it found it: the session's tag
(RINA_X_TAG), or with `auth mac` another packet's MAC (RINA_X_MAC).
replay: an on-path observer's replay: it records the job's tagged data
to and from this host during one session (one tag), and once the next
session's tag shows, sends the recordings as they were (addresses,
ports, tag) to their destinations, COUNT of them over SECONDS, while the
job's later communicators run. --own-address sends from the injector's
own address instead
(no spoofing): what a non-root attacker can do. --only RANK floods that
rank's port alone (PORT: another port of its host, say a closed one,
for the cost of the same flood that no socket takes). farnack: well-formed
allgather NACKs (one seq each, seqs 0..63) of rounds far from the job's,
alternately 16384 ahead of and behind its first rounds, from the spoofed
SRC (a worker of an INA rack) to DST (its agent port) only.
"""
import os
import random
import socket
import struct
import sys
import time

OP_CONTRIB, OP_PARTIAL, OP_AG, OP_ACK, OP_NACK, OP_CTRL = 1, 2, 3, 4, 5, 6
X_TAG, X_MAC = 0x8000, 0x4000
VERSION = 1
HELLO, HELLO_ACK, ABORT, BYE, TOR_LOST = 1, 2, 3, 4, 7
PORT_AGENT = 0x524f
EXP_NONE = -128


def parse_job(path):
    job_id, ranks, ina = None, {}, set()
    for line in open(path):
        f = line.split("#")[0].split()
        if not f:
            continue
        if f[0] == "job":
            job_id = int(f[1])
        elif f[0] == "rack" and "ina" in f[2:]:
            ina.add(int(f[1]))
        elif f[0] == "rank":
            ip, _, port = f[2].partition(":")
            ranks[int(f[1])] = (ip, int(port or 0x5240), int(f[4]))
    return job_id, ranks, ina


def rina_ctrl(job_id, src, ctype, arg, h, signed):
    n = 8 if signed else 4
    hdr = struct.pack("!BBHHBBHHIHHHHbBH", VERSION << 4 | OP_CTRL, 0,
                      job_id, 0, 0, 0, src, 0, 0, 0, n, 0, 0, EXP_NONE,
                      0, 0)
    body = struct.pack("!IIQ", ctype, arg, h)
    if signed:	# a fresh stamp and a guessed MAC
        body += struct.pack("!Q", int(time.time() * 1e6)) + os.urandom(8)
    return hdr + body


def job_frames(job_id, seconds):
    """What an on-path observer reads at this host for `seconds`: every
    data packet, ACK and NACK of the job with a trailer, as (its IPv4
    datagram, rsvd, the 8-byte trailer: the session's tag, or a MAC)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(0x0800))
    s.settimeout(0.5)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            f = s.recv(65535)
        except socket.timeout:
            continue
        ip = f[14:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != socket.IPPROTO_UDP:
            continue
        ip = ip[:struct.unpack_from("!H", ip, 2)[0]]
        rina = ip[(ip[0] & 15) * 4 + 8:]
        if len(rina) < 28 + 8 or rina[0] >> 4 != VERSION or \
           rina[0] & 15 == OP_CTRL or \
           struct.unpack_from("!H", rina, 2)[0] != job_id:
            continue
        rsvd = struct.unpack_from("!H", rina, 26)[0]
        n_elem = struct.unpack_from("!H", rina, 18)[0]
        if rsvd in (X_TAG, X_MAC) and len(rina) == 28 + 4 * n_elem + 8:
            yield ip, rsvd, rina[-8:]


def sniff_trailer(job_id, seconds=10):
    """The rsvd flag and trailer of the first of the job's packets."""
    for _, rsvd, trailer in job_frames(job_id, seconds):
        return rsvd, trailer
    sys.exit("inject: observer: no data of job %d seen in %d s" %
             (job_id, seconds))


def record_session(job_id, most=400, seconds=20):
    """Up to `most` of the job's tagged datagrams of one session (one
    tag), returned once another session's tag shows."""
    rec, tag = [], None
    for ip, rsvd, trailer in job_frames(job_id, seconds):
        if rsvd != X_TAG:
            continue
        if tag is None:
            tag = trailer
        if trailer != tag:
            return rec
        if len(rec) < most:
            # a frame from a veth may hold a partial (offloaded) UDP
            # checksum: sent again as it is, the receiver would drop it
            # as corrupt; 0 is "no checksum" in IPv4
            h = (ip[0] & 15) * 4
            rec.append(ip[:h + 6] + b"\0\0" + ip[h + 8:])
    sys.exit("inject: replay: no second session of job %d within %d s "
             "(%d packets of a first)" % (job_id, seconds, len(rec)))


def rina_data(job_id, src, op, rng, tag=None):
    """One forged data-class packet: a guessed round, chunk and seq;
    with tag (rsvd, trailer), the trailer read off the wire, else none
    or a made-up tag."""
    tagged = tag is not None or rng.random() < 0.5
    rnd, chunk, seq = rng.randrange(400), rng.randrange(8), \
        rng.randrange(4096)
    if op in (OP_ACK, OP_NACK):
        n = rng.randint(1, 8)
        body = b"".join(struct.pack("!I", rng.randrange(4096))
                        for _ in range(n))
        flags, dtype = rng.choice((0, 0x80)), 0
    else:
        n = rng.choice((16, 64, 256))
        body = os.urandom(4 * n)
        flags, dtype = rng.choice((0, 0x02, 0x80)), 0x10
    hdr = struct.pack("!BBHHBBHHIHHHHbBH", VERSION << 4 | op, flags,
                      job_id, rnd, 0, 0, src, chunk, seq, seq & 0xffff, n,
                      rng.choice((1, 4, 16)), 1, EXP_NONE, dtype,
                      tag[0] if tag is not None else
                      X_TAG if tagged else 0)
    if tag is not None:
        return hdr + body + tag[1]
    return hdr + body + (os.urandom(8) if tagged else b"")


def far_nack(job_id, k):
    """The k-th NACK of a far round: 16384 ahead or behind, in turn."""
    rnd = ((0xc000 if k % 2 else 0x4000) + k // 2) & 0xffff
    seq = k % 64
    return struct.pack("!BBHHBBHHIHHHHbBH", VERSION << 4 | OP_NACK, 0x80,
                       job_id, rnd, 0, 0, 1, 0, seq, 0, 1, 0, 0, EXP_NONE,
                       0, 0) + struct.pack("!I", seq)


def endpoint(s):
    ip, _, port = s.rpartition(":")
    return ip, int(port)


def ipv4_udp(src, sport, dst, dport, payload):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(payload),
                     random.getrandbits(16), 0, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip + udp + payload


def paced(count, seconds, send):
    """send(i) for i in 0..count-1 spread over seconds, bounded in time
    whatever happens: (how many went out, the time taken)."""
    sent, t0 = 0, time.monotonic()
    for i in range(count):
        try:
            send(i)
            sent += 1
        except OSError:
            pass
        lag = t0 + seconds * (i + 1) / count - time.monotonic()
        if lag > 0:
            time.sleep(lag)
        if time.monotonic() - t0 > seconds + 5:
            break
    return sent, time.monotonic() - t0


def replay(rec, count, seconds):
    """Send the recorded datagrams as they were, count over seconds."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

    def send(i):
        ip = rec[i % len(rec)]
        raw.sendto(ip, (socket.inet_ntoa(ip[16:20]), 0))
    sent, took = paced(count, seconds, send)
    print(f"inject: sent {sent} replayed packets ({len(rec)} recorded in "
          f"an earlier session) in {took:.1f} s", flush=True)


def main():
    what, job_path, count, seconds = sys.argv[1], sys.argv[2], \
        int(sys.argv[3]), float(sys.argv[4])
    own = "--own-address" in sys.argv[5:]
    only = sys.argv[sys.argv.index("--only") + 1] \
        if "--only" in sys.argv[5:] else None
    job_id, ranks, ina = parse_job(job_path)
    if what == "replay":
        replay(record_session(job_id), count, seconds)
        return
    tag = sniff_trailer(job_id) if what == "observer" else None
    if tag is not None:
        print("inject: observer: read a %s off the wire" %
              ("tag" if tag[0] == X_TAG else "MAC"), flush=True)
    targets = [(ip, port) for ip, port, _ in ranks.values()]
    # the agent port of each INA rack: its lowest rank's address
    for rack in sorted(ina):
        low = min(r for r, v in ranks.items() if v[2] == rack)
        targets.append((ranks[low][0], PORT_AGENT))
    if what == "farnack":
        spoof, targets = endpoint(sys.argv[5]), [endpoint(sys.argv[6])]
    if only is not None:
        r, _, p = only.partition(":")
        ip, port, _ = ranks[int(r)]
        targets = [(ip, int(p) if p else port)]
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rng = random.Random(12345)
    DATA_OPS = (OP_CONTRIB, OP_PARTIAL, OP_AG, OP_ACK, OP_NACK)
    kinds = [(ABORT, False), (ABORT, True), (HELLO, False), (HELLO, True),
             (HELLO_ACK, True), (BYE, False), (BYE, True), (TOR_LOST, False),
             (TOR_LOST, True)]

    def send(i):
        ip, port = targets[i % len(targets)]
        # a claimed sender that is not the target's own address
        src = rng.choice([r for r, v in ranks.items() if v[0] != ip])
        sip, sport, _ = ranks[src]
        if what == "farnack":
            (sip, sport), msg = spoof, far_nack(job_id, i)
        elif what in ("data", "observer"):
            op = DATA_OPS[i % len(DATA_OPS)]
            if op == OP_CONTRIB and port != PORT_AGENT:
                op = OP_PARTIAL
            msg = rina_data(job_id, src, op, rng, tag)
        else:
            ctype, signed = kinds[i % len(kinds)]
            h = rng.getrandbits(64)
            arg = 5 if ctype == ABORT else rng.getrandbits(32)
            msg = rina_ctrl(job_id, src, ctype, arg, h, signed)
        if own:
            udp.sendto(msg, (ip, port))
        else:
            raw.sendto(ipv4_udp(sip, sport, ip, port, msg), (ip, 0))
    sent, took = paced(count, seconds, send)
    print(f"inject: sent {sent} forged {what} packets to "
          f"{len(targets)} ports in {took:.1f} s", flush=True)


if __name__ == "__main__":
    main()
