#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Write pcap files of crafted Rina packets for the dissector test.

  rina_pcap.py cases OUT.pcap     valid packets of every opcode and control
                                  type, and malformed ones for every reason of
                                  core/wire.h (also two at once, to pin the
                                  check order); prints one line per frame:
                                  "EXPECTED HEX" (the reason name, and the UDP
                                  payload in hex for the C validator)
  rina_pcap.py mutants OUT.pcap N  N seeded random mutations of valid headers
                                  (bytes, lengths); prints "- HEX" per frame
  rina_pcap.py cuts OUT.pcap      every snaplen cut of a few valid packets
                                  (captured length < on-wire length)
  rina_pcap.py heur OUT.pcap      UDP port 40000: a valid Rina packet, a
                                  non-Rina datagram, a malformed Rina one

Only the standard library: frames are Ethernet | IPv4 | UDP built here.
"""
import random
import struct
import sys

HDR = struct.Struct("!BBHHBBHHIHHHHbBH")	# struct rina_hdr, 28 bytes
JOB = 7
PORT_WORKER = 0x5240
PORT_AGENT = 0x524f


def hdr(op, ver=1, flags=0, job=JOB, rnd=1, step=0, hop=0, src=0, chunk=0,
	seq=0, slot=0, n=1, p_chunk=1, num_contrib=1, exp=-128, dtype_op=0x10,
	rsvd=0):
	return HDR.pack(ver << 4 | op, flags, job, rnd, step, hop, src, chunk,
			seq, slot, n, p_chunk, num_contrib, exp, dtype_op, rsvd)


def words(vals):
	return b"".join(struct.pack("!i", v) for v in vals)


def data(op, vals, **kw):
	return hdr(op, n=len(vals), **kw) + words(vals)


def seqs(op, sq, **kw):
	return hdr(op, n=len(sq), seq=sq[0] if sq else 0, **kw) + \
		b"".join(struct.pack("!I", s) for s in sq)


def ctrl(typ, arg=0, hsh=0x0123456789abcdef, **kw):
	return hdr(6, n=4, **kw) + struct.pack("!IIQ", typ, arg, hsh)


def sctrl(typ, arg=0, hsh=0x0123456789abcdef, stamp=1764620000123456,
	  mac=bytes.fromhex("0011223344556677"), **kw):
	"""A signed CTRL (n_elem 8): struct rina_ctrl, the stamp, the MAC."""
	return hdr(6, n=8, **kw) + struct.pack("!IIQQ", typ, arg, hsh,
					       stamp) + mac


def ip_csum(b):
	s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
	while s >> 16:
		s = (s & 0xffff) + (s >> 16)
	return ~s & 0xffff


def frame(payload, sport=PORT_WORKER, dport=PORT_AGENT, src="198.18.0.2",
	  dst="198.18.0.1"):
	udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
	ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000,
			 64, 17, 0, bytes(map(int, src.split("."))),
			 bytes(map(int, dst.split("."))))
	ip = ip[:10] + struct.pack("!H", ip_csum(ip)) + ip[12:]
	eth = b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00"
	return eth + ip + udp


def write_pcap(path, frames, snaplen=65535):
	"""frames: list of (bytes, captured length or None)."""
	with open(path, "wb") as f:
		f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0,
				    snaplen, 1))
		for i, (fr, cap) in enumerate(frames):
			cap = len(fr) if cap is None else cap
			f.write(struct.pack("<IIII", 1700000000 + i, 0, cap,
					    len(fr)))
			f.write(fr[:cap])


def cases():
	"""(expected verdict, UDP payload, ports) for every case."""
	v = [
		# valid: every opcode, every dtype/op, every control type
		("ok", data(1, [1, -2, 3], src=1, chunk=2, seq=5)),
		("ok", data(2, list(range(-8, 8)), flags=0x03, dtype_op=0x00,
			    exp=3)),
		("ok", data(3, [0x7fffffff, -0x80000000], flags=0xc6,
			    dtype_op=0x11, hop=1, src=0xf002)),
		("ok", data(2, [5] * 1024)),	# RINA_MAX_ELEMS words
		("ok", seqs(4, [10, 11, 12], flags=0x80)),
		("ok", seqs(4, [3], dtype_op=0xff)),	# dtype: data only
		("ok", seqs(5, [40, 41])),
		("ok", ctrl(1, chunk=0x89ab, seq=0x01234567, slot=0xcdef)),
		("ok", ctrl(2)), ("ok", ctrl(3, 5)),
		("ok", ctrl(4)), ("ok", ctrl(5)),
		("ok", ctrl(16)), ("ok", ctrl(17)),
		("ok", ctrl(18, 0, flags=0x40, src=0xf000)),
		("ok", ctrl(18, 3, flags=0x40, src=0xf000)),
		("ok", data(1, [1], job=8)),		# unknown_job test
		# one reason each
		("runt", hdr(1)[:27]),
		("runt", b"\x11"),
		("bad_version", data(1, [1], ver=0)),
		("bad_version", data(1, [1], ver=2)),
		("bad_opcode", hdr(0, n=1) + words([1])),
		("bad_opcode", hdr(7, n=1) + words([1])),
		("bad_opcode", hdr(15, n=1) + words([1])),
		("oversize", data(2, [1] * 1025)),
		("bad_length", hdr(1, n=4) + words([1, 2, 3])),
		("bad_length", data(1, [1, 2]) + b"\x00"),
		("bad_length", hdr(1, n=0)),
		("bad_length", hdr(4, n=0)),
		("bad_length", hdr(5, n=0)),
		("bad_length", hdr(6, n=3) + words([16, 0, 0])),
		("bad_length", hdr(6, n=5) + words([1, 0, 0, 0, 0])),
		("bad_field", data(1, [1], rsvd=1)),
		("bad_length", ctrl(1, rsvd=0x8000)),	# the tag bit wants 8 more
		("bad_dtype", data(1, [1], dtype_op=0x20)),
		("bad_dtype", data(3, [1], dtype_op=0x02)),
		# two faults: the earlier check in core/wire.h wins
		("runt", hdr(9, ver=3)[:20]),
		("bad_version", hdr(9, ver=3, n=2000)),
		("bad_opcode", hdr(0, n=2000)),
		("oversize", hdr(1, n=2000)),
		("bad_length", hdr(1, n=2, rsvd=1) + words([1])),
		("bad_field", data(1, [1], rsvd=1, dtype_op=0xff)),
		("bad_dtype", hdr(1, n=0, dtype_op=0x30)),
		# signed control messages (frames 44..), and the word counts
		# that are neither plain (4) nor signed (8)
		("ok", sctrl(16, src=1)),
		("ok", sctrl(18, 0, flags=0x40, src=0xf001)),
		("ok", sctrl(1, src=2)),
		("bad_length", hdr(6, n=6) + words([16, 0, 0, 0, 0, 0])),
		("bad_length", hdr(6, n=7) + words([16, 0, 0, 0, 0, 0, 0])),
		("bad_length", sctrl(16)[:-4]),
		# the data tag (rsvd 0x8000): 8 bytes after the payload, not
		# on CTRL; the tag bit with other bits, or without its bytes
		("ok", data(2, [1, 2], rsvd=0x8000) + bytes(range(8))),
		("ok", seqs(4, [7], rsvd=0x8000) + bytes(8)),
		("bad_field", ctrl(1, rsvd=0x8000) + bytes(8)),
		("bad_length", data(2, [1, 2], rsvd=0x8000)),
		("bad_field", data(2, [1], rsvd=0x8001)),
		# a per-packet MAC (auth mac, rsvd 0x4000): the same 8 bytes'
		# rules; both bits at once is neither
		("ok", data(2, [1, 2], rsvd=0x4000) + bytes(range(8))),
		("ok", seqs(5, [9], rsvd=0x4000) + bytes(8)),
		("bad_field", ctrl(1, rsvd=0x4000) + bytes(8)),
		("bad_length", data(2, [1, 2], rsvd=0x4000)),
		("bad_length", data(2, [1], rsvd=0xc000) + bytes(8)),
	]
	return v


def mutants(count):
	rng = random.Random(20261201)
	base = [p for e, p in cases() if e == "ok"]
	out = []
	for _ in range(count):
		p = bytearray(rng.choice(base))
		for _ in range(rng.randint(1, 3)):
			k = rng.random()
			if k < 0.6 and len(p):
				i = rng.choice([0, 0, 18, 19, 25, 26, 27,
						rng.randrange(len(p))])
				if i < len(p):
					p[i] = rng.randrange(256)
			elif k < 0.8:
				del p[rng.randrange(len(p) + 1):]
			else:
				p += bytes(rng.randrange(256)
					   for _ in range(rng.randint(1, 8)))
		out.append(("-", bytes(p)))
	return out


def main():
	what, path = sys.argv[1], sys.argv[2]
	frames = []
	if what == "cases":
		lst = cases()
	elif what == "mutants":
		lst = mutants(int(sys.argv[3]))
	elif what == "cuts":
		lst = []
		for p in (data(2, [1, 2, 3, 4]), seqs(4, [1, 2]),
			  ctrl(18, 1, flags=0x40, src=0xf001),
			  sctrl(16, src=1)):
			fr = frame(p)
			for cap in range(14, len(fr)):
				frames.append((fr, cap))
		write_pcap(path, frames, snaplen=65535)
		return
	elif what == "heur":
		for p in (data(2, [1, 2]), b"GET / HTTP/1.0\r\n\r\n" * 3,
			  data(2, [1, 2], ver=2)):
			frames.append((frame(p, 40000, 40001), None))
		write_pcap(path, frames)
		return
	else:
		sys.exit("usage: rina_pcap.py cases|mutants|cuts|heur OUT [N]")
	for exp, p in lst:
		frames.append((frame(p), None))
		print(exp, p.hex() if p else "-")
	write_pcap(path, frames)


if __name__ == "__main__":
	main()
