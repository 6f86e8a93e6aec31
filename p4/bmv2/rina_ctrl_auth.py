# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Signed control messages for the Python side (the bmv2 ToR's CPU).

The one Python copy of core/ctrl_auth.c: job_tag(), seal() and check() with a
Guard, the same format, verdicts and replay rule, so that a Python ToR
and the C agent agree byte for byte (selftests/tor/test_ctrl_auth_py.py
checks it against tor_ctrl's C-sealed messages). The MAC is libsodium's
SipHash-2-4 (crypto_shorthash_siphash24) through ctypes: no cryptography
here either. The job secret is read from the job file's secret_file, the
file rina_jobfile_parse() has already checked (rina-p4cfg -H says
"secret 1" when it did).
"""
import ctypes
import ctypes.util
import hmac
import os
import re
import struct
import time

HERE = os.path.dirname(os.path.realpath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

HDR_LEN = 28
CTRL_LEN = 16
AUTH_LEN = 16
MAC_LEN = 8
SECRET_LEN = 16
N_ELEM_OFF = 18
SRC_OFF = 8
SRC_SWITCH = 0xf000


def _header_const(path, name):
    m = re.search(r"#define %s\s+(\d+)" % name,
                  open(os.path.join(TOP, path)).read())
    return int(m.group(1))


CTRL_WORDS = _header_const("include/uapi/linux/rina.h", "RINA_CTRL_WORDS")
CTRL_AUTH_WORDS = _header_const("include/uapi/linux/rina.h",
                                "RINA_CTRL_AUTH_WORDS")
GUARD_DEPTH = _header_const("core/ctrl_auth.h", "RINA_CTRL_GUARD_DEPTH")
MAX_RANKS = _header_const("core/plan.h", "RINA_MAX_RANKS")
MAX_RACKS = _header_const("core/plan.h", "RINA_MAX_RACKS")
# core/ctrl_auth.h: RINA_CTRL_WINDOW_US (30ull * 1000000)
WINDOW_US = int(re.search(
    r"#define RINA_CTRL_WINDOW_US\s+\((\d+)ull \* 1000000\)",
    open(os.path.join(TOP, "core/ctrl_auth.h")).read()).group(1)) * 1000000

# enum rina_ctrl_verdict
OK, UNSIGNED, NO_KEY, FORGED, STALE, REPLAY, BAD_SENDER = range(7)
NAMES = ("ok", "unsigned", "signed_without_key", "forged", "stale",
         "replayed", "bad_sender")

_sodium = None


def _lib():
    global _sodium
    if _sodium is None:
        name = ctypes.util.find_library("sodium")
        if not name:
            raise OSError("libsodium not found (Debian: libsodium23)")
        lib = ctypes.CDLL(name)
        if lib.sodium_init() < 0:
            raise OSError("sodium_init failed")
        if lib.crypto_shorthash_siphash24_bytes() != MAC_LEN or \
           lib.crypto_shorthash_siphash24_keybytes() != SECRET_LEN:
            raise OSError("libsodium's SipHash-2-4 has another size")
        lib.crypto_shorthash_siphash24.argtypes = [
            ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong,
            ctypes.c_char_p]
        _sodium = lib
    return _sodium


def siphash24(key, data):
    """SipHash-2-4 of data under the 16-byte key: 8 bytes."""
    out = ctypes.create_string_buffer(MAC_LEN)
    _lib().crypto_shorthash_siphash24(out, bytes(data), len(data),
                                      bytes(key))
    return out.raw


def session_tag(key, job_id, session):
    """A session's data tag (rina_session_tag()): SipHash-2-4 under the
    secret of the label, the job id and the session's number, as the
    64-bit number set_job takes (its 8 bytes big-endian, as on the
    wire)."""
    tag = siphash24(key, b"rina data tag v2" +
                    struct.pack("!HQ", job_id, session))
    return int.from_bytes(tag, "big")


def ctrl_session(msg):
    """The session a control message carries (rina_ctrl_session()):
    seq, then chunk and slot of its header."""
    chunk, seq, slot = struct.unpack_from("!HIH", msg, 10)
    return seq << 32 | chunk << 16 | slot


def load_secret(jobfile):
    """The secret of a job file (its secret_file), or None."""
    for line in open(jobfile):
        f = line.split("#", 1)[0].split()
        if len(f) == 2 and f[0] == "secret_file":
            with open(f[1]) as s:
                key = bytes.fromhex(s.read().strip())
            if len(key) != SECRET_LEN:
                raise ValueError("%s: not a %d-byte secret" %
                                 (f[1], SECRET_LEN))
            return key
    return None


def wall_us():
    return time.time_ns() // 1000


_last_stamp = 0


def stamp():
    """The next stamp of this process: the wall clock in microseconds,
    strictly increasing (rina_ctrl_stamp())."""
    global _last_stamp
    _last_stamp = max(wall_us(), _last_stamp + 1)
    return _last_stamp


def _addr(ip, port):
    return bytes(int(x) for x in ip.split(".")) + struct.pack("!H", port)


def _mac(msg, key, ip, port):
    return siphash24(key, msg[:HDR_LEN + CTRL_LEN + 8] + _addr(ip, port))


def seal(msg, key, to_ip, to_port, at=None):
    """msg: the header and struct rina_ctrl (44 bytes). Returns the
    message to send: unchanged with n_elem 4 without a key, else n_elem 8,
    the stamp and the MAC for to_ip:to_port."""
    m = bytearray(msg[:HDR_LEN + CTRL_LEN])
    if key is None:
        struct.pack_into("!H", m, N_ELEM_OFF, CTRL_WORDS)
        return bytes(m)
    struct.pack_into("!H", m, N_ELEM_OFF, CTRL_AUTH_WORDS)
    m += struct.pack("!Q", stamp() if at is None else at)
    return bytes(m + _mac(m, key, to_ip, to_port))


class Guard:
    """One job's accepted stamps per sender (struct rina_ctrl_guard).
    Stamps up to not_before (default: now, the receiver's start) count
    as taken, as rina_ctrl_guard_init(): nothing recorded before a
    restart replays after it."""

    def __init__(self, not_before=None):
        self.seen = {}
        self.not_before = wall_us() if not_before is None else not_before

    def take(self, k, st):
        seen = self.seen.setdefault(k, [self.not_before] * GUARD_DEPTH)
        if st in seen:
            return False
        oldest = min(range(GUARD_DEPTH), key=lambda i: (seen[i], i))
        if st <= seen[oldest]:
            return False
        seen[oldest] = st
        return True


def _guard_index(src):
    if src & SRC_SWITCH == SRC_SWITCH:
        return MAX_RANKS + (src & 0x0fff) % MAX_RACKS
    return src if src < MAX_RANKS else -1


def check(guard, msg, key, self_ip, self_port, now_us=None):
    """The verdict on a CTRL msg (the header already checked) received
    on self_ip:self_port; key None: the job has no secret."""
    n_elem = struct.unpack_from("!H", msg, N_ELEM_OFF)[0]
    signed = n_elem == CTRL_AUTH_WORDS and \
        len(msg) == HDR_LEN + CTRL_LEN + AUTH_LEN
    if key is None:
        return NO_KEY if signed else OK
    if not signed:
        return UNSIGNED
    k = _guard_index(struct.unpack_from("!H", msg, SRC_OFF)[0])
    if k < 0:
        return BAD_SENDER
    want = _mac(msg, key, self_ip, self_port)
    if not hmac.compare_digest(want, msg[HDR_LEN + CTRL_LEN + 8:]):
        return FORGED
    st = struct.unpack_from("!Q", msg, HDR_LEN + CTRL_LEN)[0]
    now = wall_us() if now_us is None else now_us
    if st + WINDOW_US < now or st > now + WINDOW_US:
        return STALE
    if not guard.take(k, st):
        return REPLAY
    return OK
