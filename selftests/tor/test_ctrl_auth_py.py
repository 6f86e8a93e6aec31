#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The Python copy of signed control messages (p4/bmv2/rina_ctrl_auth.py,
the bmv2 ToR's CPU) against the C one (core/ctrl_auth.c as tor_ctrl
builds messages): SipHash-2-4 through ctypes gives the reference vector;
a C-sealed TOR_INSTALL is OK once, then a replay; wrong destination,
flipped bit, wrong key, stale stamp, a missing MAC are refused with the C
verdicts; Python's seal() of the same fields is the same bytes. KTAP.
"""
import os
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(TOP, "p4", "bmv2"))

TOR_IP, PORT = "198.18.1.254", 0x524f
n = 0
failed = 0


def ok(cond, name, why=""):
    global n, failed
    n += 1
    if cond:
        print("ok %d %s" % (n, name))
    else:
        failed += 1
        print("not ok %d %s%s" % (n, name, " # " + why if why else ""))


def main():
    print("TAP version 13")
    print("1..13")
    try:
        import rina_ctrl_auth as auth
        auth.siphash24(bytes(16), b"")
    except OSError as e:
        for i in range(12):
            print("ok %d ctrl_auth # SKIP %s" % (i + 1, e))
        return 4
    ctrl = os.path.join(TOP, "build", "selftests", "tor", "tor_ctrl")
    if not os.access(ctrl, os.X_OK):
        for i in range(12):
            print("ok %d ctrl_auth # SKIP build/selftests/tor/tor_ctrl "
                  "not built" % (i + 1))
        return 4
    # the SipHash-2-4 reference vector: key 00..0f, message 00..0e
    ok(auth.siphash24(bytes(range(16)), bytes(range(15))).hex() ==
       "e545be4961ca29a1", "SipHash-2-4 reference vector through ctypes")
    tmp = tempfile.mkdtemp()
    try:
        key = os.urandom(16)
        sec = os.path.join(tmp, "secret")
        fd = os.open(sec, os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, key.hex().encode() + b"\n")
        os.close(fd)
        job = os.path.join(tmp, "job.txt")
        with open(job, "w") as f:
            f.write(open(os.path.join(TOP, "selftests", "tor",
                                      "job_rack1.txt")).read())
            f.write("secret_file %s\n" % sec)
        ok(auth.load_secret(job) == key, "the secret read from secret_file")
        req = os.path.join(tmp, "req")
        g = auth.Guard()	# the receiver runs before the request
        r = subprocess.run([ctrl, job, TOR_IP, "install", "--save-only",
                            req], capture_output=True, text=True)
        msg = open(req, "rb").read() if r.returncode == 0 else b""
        ok(len(msg) == 60, "tor_ctrl sealed a 60-byte signed request",
           r.stderr.strip())
        if len(msg) != 60:
            return 1
        v = auth.check(g, msg, key, TOR_IP, PORT)
        ok(v == auth.OK, "a C-sealed request checks OK", auth.NAMES[v])
        v = auth.check(g, msg, key, TOR_IP, PORT)
        ok(v == auth.REPLAY, "the same again: replayed", auth.NAMES[v])
        v = auth.check(auth.Guard(), msg, key, TOR_IP, PORT)
        ok(v == auth.REPLAY,
           "to a receiver started after it was sealed (a restarted ToR): "
           "replayed", auth.NAMES[v])
        v = auth.check(auth.Guard(), msg, key, "198.18.1.253", PORT)
        ok(v == auth.FORGED, "for another destination: forged",
           auth.NAMES[v])
        bad = bytearray(msg)
        bad[2] ^= 1	# the job id
        v1 = auth.check(auth.Guard(), bytes(bad), key, TOR_IP, PORT)
        v2 = auth.check(auth.Guard(), msg, os.urandom(16), TOR_IP, PORT)
        ok(v1 == auth.FORGED and v2 == auth.FORGED,
           "a flipped bit, another key: forged",
           "%s %s" % (auth.NAMES[v1], auth.NAMES[v2]))
        st = struct.unpack_from("!Q", msg, 44)[0]
        v = auth.check(auth.Guard(), msg, key, TOR_IP, PORT,
                       now_us=st + auth.WINDOW_US + 1)
        ok(v == auth.STALE, "checked 30 s later: stale", auth.NAMES[v])
        v1 = auth.check(auth.Guard(), msg[:44], key, TOR_IP, PORT)
        v2 = auth.check(auth.Guard(), msg, None, TOR_IP, PORT)
        ok(v1 == auth.UNSIGNED and v2 == auth.NO_KEY,
           "unsigned in a signed job, signed in a job without a secret",
           "%s %s" % (auth.NAMES[v1], auth.NAMES[v2]))
        ok(auth.seal(msg[:44], key, TOR_IP, PORT, at=st) == msg,
           "Python's seal() of the same fields: the same 60 bytes")
        s = 0x0123456789abcdef
        r = subprocess.run([ctrl, job, "tag", str(s)], capture_output=True,
                           text=True)
        jid = [int(x.split()[1]) for x in open(job)
               if x.split()[:1] == ["job"]][0]
        py = "%016x" % auth.session_tag(key, jid, s)
        others = {"%016x" % auth.session_tag(key, jid + 1, s),
                  "%016x" % auth.session_tag(key, jid, s + 1)}
        ok(r.returncode == 0 and r.stdout.strip() == py and py not in others,
           "a session's data tag: Python's session_tag() is "
           "rina_session_tag()'s, its own per job and session",
           r.stderr.strip())
        hdr = bytearray(msg)
        hdr[10:12], hdr[12:16], hdr[16:18] = b"\x89\xab", \
            b"\x01\x23\x45\x67", b"\xcd\xef"
        ok(auth.ctrl_session(hdr) == s and auth.ctrl_session(msg) == 1,
           "ctrl_session() reads a control message's session as "
           "rina_ctrl_session() (seq, chunk, slot; tor_ctrl's is 1)")
    finally:
        subprocess.run(["rm", "-rf", tmp])
    print("# Totals: pass:%d fail:%d skip:0" % (n - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
