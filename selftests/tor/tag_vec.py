#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Rewrite a packet-vector file for a tagged job: every Rina data, ACK
and NACK frame ("in" and "out" lines) of job JOB gets rsvd RINA_X_TAG and
the tag after its payload, with its IPv4 and UDP lengths and IPv4
checksum made right (rina_tag_seal() on the wire). For the ToR control
tests, whose signed job is tagged with a fresh secret's tag (tor_ctrl
JOBFILE tag) while the vectors are written for an untagged one. Other
lines are copied.

    tag_vec.py JOB TAG_HEX IN.vec OUT.vec
"""
import struct
import sys

X_TAG = 0x8000
OP_ACK, OP_NACK, OP_CTRL = 4, 5, 6


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def tagged(frame, job, tag):
    f = bytearray(frame)
    if len(f) < 42 + 28 or f[12:14] != b"\x08\x00" or f[14] != 0x45 or \
       f[23] != 17 or struct.unpack_from("!H", f, 36)[0] & 0xFFF0 != 0x5240:
        return frame
    r = 42
    op = f[r] & 0x0F
    if struct.unpack_from("!H", f, r + 2)[0] != job or op < 1 or \
       op > OP_NACK or struct.unpack_from("!H", f, r + 26)[0]:
        return frame
    struct.pack_into("!H", f, r + 26, X_TAG)
    f += tag
    struct.pack_into("!H", f, 38, struct.unpack_from("!H", f, 38)[0] + 8)
    struct.pack_into("!H", f, 16, struct.unpack_from("!H", f, 16)[0] + 8)
    struct.pack_into("!H", f, 24, 0)
    struct.pack_into("!H", f, 24, csum(bytes(f[14:34])))
    return bytes(f)


def main():
    job, tag = int(sys.argv[1]), bytes.fromhex(sys.argv[2])
    if len(tag) != 8:
        sys.exit("tag_vec.py: the tag is 8 bytes")
    with open(sys.argv[3]) as src, open(sys.argv[4], "w") as dst:
        for line in src:
            f = line.split()
            if len(f) == 3 and f[0] in ("in", "out"):
                line = "%s %s %s\n" % (f[0], f[1], tagged(
                    bytes.fromhex(f[2]), job, tag).hex())
            dst.write(line)


if __name__ == "__main__":
    main()
