#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Ordinary traffic for test_tor_traffic.sh, run in an emulated host: a TCP
# stream and UDP datagrams whose receiver checks every byte, and ARP
# probes whose answers are counted. Each command prints one line
# "RESULT NAME ok|fail DETAIL" per check and exits 1 if one failed.
#   tor_traffic.py serve ME PREV TCP_BYTES READY_FILE
#   tor_traffic.py send ME NEXT_IP TCP_BYTES
#   tor_traffic.py arp NEXT_IP
#   tor_traffic.py mtu SEND_IF RECV_IF     (a ToR with a small-MTU port)
#   tor_traffic.py gso DST_IP              (a UDP GSO super-frame)
import hashlib
import random
import socket
import struct
import sys
import time

TCP_PORT = 5301
UDP_PORT = 5302
# several sizes up to the datagram limit: within one frame up to the
# 9000-byte MTU (8972), then IPv4 fragments
UDP_SIZES = (8, 64, 1472, 8972, 8973, 20000, 65507)
UDP_ROUNDS = 3
UDP_N = len(UDP_SIZES) * UDP_ROUNDS


def stream(sender, n):
    """The n bytes rank `sender` sends on its TCP stream."""
    return random.Random(1000 + sender).randbytes(n)


def datagram(sender, seq):
    size = UDP_SIZES[seq % len(UDP_SIZES)]
    body = random.Random(sender << 16 | seq).randbytes(size - 8)
    return struct.pack('!II', sender, seq) + body


def result(name, ok, detail=''):
    print('RESULT %s %s %s' % (name, 'ok' if ok else 'fail', detail),
          flush=True)
    return ok


def serve(me, prev, nbytes, ready):
    deadline = time.monotonic() + 40
    ts = socket.socket()
    ts.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ts.bind(('0.0.0.0', TCP_PORT))
    ts.listen(1)
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    us.bind(('0.0.0.0', UDP_PORT))
    open(ready, 'w').close()

    # UDP: every datagram once, byte for byte; a second copy of one, one
    # altered or missing fails
    seen, bad = {}, []
    us.settimeout(1.0)
    while len(seen) < UDP_N and time.monotonic() < deadline:
        try:
            d = us.recv(65535)
        except socket.timeout:
            continue
        if len(d) < 8:
            bad.append('runt of %d bytes' % len(d))
            continue
        sender, seq = struct.unpack('!II', d[:8])
        if sender != prev or seq >= UDP_N or d != datagram(sender, seq):
            bad.append('altered datagram (sender %d seq %d, %d bytes)' %
                       (sender, seq, len(d)))
            continue
        seen[seq] = seen.get(seq, 0) + 1
    # a duplicate of the last ones would come within a moment
    us.settimeout(0.5)
    try:
        while True:
            d = us.recv(65535)
            seq = struct.unpack('!II', d[:8])[1] if len(d) >= 8 else -1
            seen[seq] = seen.get(seq, 0) + 1
    except socket.timeout:
        pass
    dups = sum(c - 1 for c in seen.values())
    missing = UDP_N - len([s for s in seen if 0 <= s < UDP_N])
    ok = result('udp', not bad and not dups and not missing,
                '%d datagrams from rank %d, sizes %s: %d missing, '
                '%d duplicated, %d altered %s' %
                (UDP_N, prev, ','.join(map(str, UDP_SIZES)), missing, dups,
                 len(bad), '; '.join(bad[:3])))

    # TCP: the whole stream, hashed
    ts.settimeout(max(1.0, deadline - time.monotonic()))
    h, n = hashlib.sha256(), 0
    try:
        c, _ = ts.accept()
        c.settimeout(max(1.0, deadline - time.monotonic()))
        while True:
            d = c.recv(1 << 16)
            if not d:
                break
            h.update(d)
            n += len(d)
        c.close()
    except OSError as e:
        return result('tcp', False, 'after %d bytes: %s' % (n, e)) and ok
    want = hashlib.sha256(stream(prev, nbytes)).hexdigest()
    return result('tcp', n == nbytes and h.hexdigest() == want,
                  '%d of %d bytes from rank %d, sha256 %s, expected %s' %
                  (n, nbytes, prev, h.hexdigest()[:16], want[:16])) and ok


def send(me, peer, nbytes):
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for seq in range(UDP_N):
        us.sendto(datagram(me, seq), (peer, UDP_PORT))
        time.sleep(0.02)	# paced: no socket buffer overflows
    s = socket.create_connection((peer, TCP_PORT), timeout=20)
    s.sendall(stream(me, nbytes))
    s.shutdown(socket.SHUT_WR)
    s.recv(1)		# the receiver closes when it has all
    s.close()
    return True


def arp(peer):
    """
    Three ARP probes (sender address 0.0.0.0, RFC 5227) for the peer's
    address: each gets exactly one reply, which (target address 0.0.0.0)
    no request of the kernel's own can have caused.
    """
    ifname = 'eth0'
    mac = bytes.fromhex(open('/sys/class/net/%s/address' %
                             ifname).read().strip().replace(':', ''))
    tip = socket.inet_aton(peer)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(0x0806))
    s.bind((ifname, 0x0806))
    req = (b'\xff' * 6 + mac + b'\x08\x06' +
           struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) +
           mac + b'\0' * 4 + b'\0' * 6 + tip)
    replies = 0
    s.settimeout(0.1)
    end = time.monotonic() + 3 * 0.3 + 1.0
    sent, nxt = 0, time.monotonic()
    while time.monotonic() < end:
        if sent < 3 and time.monotonic() >= nxt:
            s.send(req)
            sent += 1
            nxt += 0.3
        try:
            f = s.recv(2048)
        except socket.timeout:
            continue
        if (len(f) >= 42 and f[12:14] == b'\x08\x06' and
                f[20:22] == b'\0\x02' and f[28:32] == tip and
                f[32:38] == mac and f[38:42] == b'\0' * 4):
            replies += 1
    return result('arp', replies == 3,
                  '3 probes for %s, %d replies' % (peer, replies))


# A Rina frame of a job the ToR does not aggregate (job 0x63, from the
# vector unknown_job.vec): switched untouched, by its MAC, to port h0.
RINA_L2 = bytes.fromhex('02000000010b02000000010c0800')
RINA_IP = '4500{len:04x}123440004011{csum:04x}c612010cc612010b'
RINA_UDP = '5240524f{len:04x}0000'
RINA_HDR = '110000630001000000020001000000000000{n:04x}0002000180100000'


def ip_csum(h):
    s = sum(struct.unpack('!10H', h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def rina_frame(n):
    rina = bytes.fromhex(RINA_HDR.format(n=n)) + \
        b''.join(struct.pack('!I', i + 1) for i in range(n))
    udp = bytes.fromhex(RINA_UDP.format(len=8 + len(rina)))
    ip = bytes.fromhex(RINA_IP.format(len=28 + len(rina), csum=0))
    ip = ip[:10] + struct.pack('!H', ip_csum(ip)) + ip[12:]
    return RINA_L2 + ip + udp + rina


def mtu(send_if, recv_if):
    """
    A 2070-byte Rina frame for a port whose MTU is 1500, then three small
    ones: the big one never arrives, the small ones all do (a frame above
    the MTU once wedged the port's transmit ring).
    """
    big, small = rina_frame(500), rina_frame(2)
    r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    r.bind((recv_if, 3))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((send_if, 0))
    s.send(big)
    time.sleep(0.1)
    for _ in range(3):
        s.send(small)
    got = {'big': 0, 'small': 0, 'other': 0}
    r.settimeout(0.2)
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        try:
            f = r.recv(65535)
        except socket.timeout:
            continue
        k = 'big' if f == big else 'small' if f == small else 'other'
        got[k] += 1
    return result('mtu', got['big'] == 0 and got['small'] == 3,
                  '%d-byte frame for a 1500-byte MTU port: %d arrived; '
                  'then 3 of %d bytes: %d arrived' %
                  (len(big), got['big'], len(small), got['small']))


def gso(dst):
    """One UDP GSO super-frame (20000 bytes, 1400 a segment) to a Rina
    port: the ToR must count it whole as a giant."""
    udp_segment = 103		# linux/udp.h UDP_SEGMENT
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_UDP, udp_segment, 1400)
    s.sendto(bytes(20000), (dst, 0x5240))
    return True


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'serve' and len(sys.argv) == 6:
        ok = serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                   sys.argv[5])
    elif cmd == 'send' and len(sys.argv) == 5:
        ok = send(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif cmd == 'arp' and len(sys.argv) == 3:
        ok = arp(sys.argv[2])
    elif cmd == 'mtu' and len(sys.argv) == 4:
        ok = mtu(sys.argv[2], sys.argv[3])
    elif cmd == 'gso' and len(sys.argv) == 3:
        ok = gso(sys.argv[2])
    else:
        sys.exit('usage: tor_traffic.py serve ME PREV BYTES READY | '
                 'send ME NEXT_IP BYTES | arp NEXT_IP | '
                 'mtu SEND_IF RECV_IF | gso DST_IP')
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
