#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Send or receive Rina messages over plain UDP sockets for the netns tests.
#   rina_udp.py send DST_IP PORT KIND COUNT [JOB]
#       KIND: valid | bad_version | runt | bad_length | spread (valid, one
#       socket, hence source port and receive queue, per message)
#   rina_udp.py recv PORT COUNT TIMEOUT_S   (prints how many arrived)
#   rina_udp.py tcp-server PORT             (echo one line, then exit)
import socket
import struct
import sys
import time


def rina(kind, seq, job):
    n = 4
    ver_op = (1 << 4) | 1               # version 1, SR_CONTRIB
    if kind == "bad_version":
        ver_op = (2 << 4) | 1
    hdr = struct.pack(">BBHHBBHHIHHHHbBH", ver_op, 0, job, 0, 0, 0, 0, 0,
                      seq, 0, n, 1, 1, -128, 0x10, 0)
    assert len(hdr) == 28
    payload = struct.pack(">4i", seq, -seq, 7, 8)
    if kind == "runt":
        return hdr[:20]
    if kind == "bad_length":
        return hdr + payload[:12]
    return hdr + payload


def main():
    if sys.argv[1] == "send":
        dst, port, kind, count = sys.argv[2], int(sys.argv[3], 0), \
            sys.argv[4], int(sys.argv[5])
        job = int(sys.argv[6]) if len(sys.argv) > 6 else 1
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for i in range(count):
            if kind == "spread":
                s.close()
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(rina(kind, i, job), (dst, port))
            time.sleep(0.001)
    elif sys.argv[1] == "recv":
        port, count, tmo = int(sys.argv[2], 0), int(sys.argv[3]), \
            float(sys.argv[4])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", port))
        s.settimeout(0.2)
        got, end = 0, time.time() + tmo
        print("ready", flush=True)
        while got < count and time.time() < end:
            try:
                s.recv(65536)
                got += 1
            except socket.timeout:
                pass
        print(got, flush=True)
    elif sys.argv[1] == "tcp-server":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", int(sys.argv[2])))
        s.listen(1)
        s.settimeout(10)
        print("ready", flush=True)
        c, _ = s.accept()
        c.settimeout(5)
        data = b""
        while not data.endswith(b"\n"):
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
        c.sendall(data[::-1][1:] + b"\n")
        c.close()


if __name__ == "__main__":
    main()
