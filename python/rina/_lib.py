# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Find and load librina.so.1 and declare the C API (user/include/rina.h).

Search order: $RINA_LIBRARY (a path), the build tree next to this package
(<top>/build/lib when imported from <top>/python), the prefix this package
is installed under (<prefix>/lib), ctypes.util.find_library("rina"),
then the dynamic loader's own path (librina.so.1).
"""
import ctypes
import ctypes.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("RINA_LIBRARY")
    if env:
        yield env
        return
    # <top>/python/rina -> <top>/build/lib
    yield os.path.join(_HERE, "..", "..", "build", "lib", "librina.so.1")
    # <prefix>/lib/python3*/{site,dist}-packages/rina -> <prefix>/lib
    up = _HERE
    for _ in range(4):
        up = os.path.dirname(up)
        yield os.path.join(up, "lib", "librina.so.1")
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        yield os.path.join(prefix, "lib", "librina.so.1")
    name = ctypes.util.find_library("rina")
    if name:
        yield name
    yield "librina.so.1"


def _load():
    tried = []
    for path in _candidates():
        if os.path.isabs(path) and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(os.path.normpath(path)
                               if os.path.isabs(path) else path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("librina.so.1 not found; build it (make), install it "
                      "(make install), or set RINA_LIBRARY. Tried: " +
                      ", ".join(tried))


lib = _load()
LIBRARY_PATH = getattr(lib, "_name", None)

RINA_API_VERSION = 1
RINA_CONFIG_MAGIC = 0x52494e41


class Config(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("magic", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("rank", ctypes.c_int),
        ("job_file", ctypes.c_char_p),
        ("job_text", ctypes.c_char_p),
        ("transport", ctypes.c_char_p),
        ("timeout_ms", ctypes.c_uint32),
        ("drop_ppm", ctypes.c_uint32),
        ("dup_ppm", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("rx_drop_ppm", ctypes.c_uint32),
    ]


# struct rina_stats after size and pad: uint64 counters, in order
STATS_FIELDS = (
    "calls", "tx_packets", "tx_bytes", "rx_packets", "rx_bytes",
    "tx_data", "rx_data", "tx_acks", "rx_acks", "retransmits",
    "fast_retransmits", "duplicates", "timeouts", "rx_malformed",
    "rx_foreign", "rx_stale", "rx_early", "fault_dropped",
    "fault_duplicated", "overflows", "xdp_rx_dropped", "xdp_rx_ring_full",
    "xdp_fill_ring_empty", "xdp_invalid_descs", "nacks",
    "agent_contrib_in", "agent_partial_in", "agent_partial_out",
    "agent_slots_done", "agent_ag_in", "agent_ag_out",
    "agent_ag_retransmits", "agent_repairs", "agent_reemit", "agent_dup",
    "agent_stale", "agent_bad", "xdp_prog_redirected", "xdp_prog_passed",
    "xdp_prog_dropped", "xdp_prog_fault_dropped", "agent_tor",
    "agent_tor_status", "agent_tor_copies", "ack_tx_bytes", "ack_rx_bytes",
    "fault_rx_dropped", "ctrl_forged", "ctrl_replayed", "rx_bad_tag",
    "agent_far_round", "agent_ack_tx_bytes", "agent_host_relays",
    "rack_agent", "resent_asked", "agent_asks_out", "agent_asks_in",
    "rx_ce", "ce_acked", "cwnd_cuts_loss", "cwnd_cuts_delay",
    "cwnd_cuts_ecn", "resent_orphaned", "agent_gap_nacks",
    "retx_tx_bytes", "tx_refused_bytes", "txq_holds", "ctrl_duplicates",
    "ctrl_before_start", "rx_kernel_drops",
)


class Stats(ctypes.Structure):
    _fields_ = ([("size", ctypes.c_uint32), ("pad", ctypes.c_uint32)] +
                [(f, ctypes.c_uint64) for f in STATS_FIELDS])


c_comm_p = ctypes.c_void_p
c_req_p = ctypes.c_void_p
CALLBACK = ctypes.CFUNCTYPE(None, c_req_p, ctypes.c_int, ctypes.c_void_p)


def _decl(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


rina_comm_init = _decl("rina_comm_init", ctypes.c_int,
                       ctypes.POINTER(c_comm_p), ctypes.POINTER(Config))
rina_comm_destroy = _decl("rina_comm_destroy", ctypes.c_int, c_comm_p)
rina_allreduce = _decl("rina_allreduce", ctypes.c_int, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, c_comm_p)
rina_iallreduce = _decl("rina_iallreduce", ctypes.c_int, ctypes.c_void_p,
                        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                        ctypes.c_int, c_comm_p, CALLBACK, ctypes.c_void_p,
                        ctypes.POINTER(c_req_p))
rina_test = _decl("rina_test", ctypes.c_int, c_req_p,
                  ctypes.POINTER(ctypes.c_int))
rina_wait = _decl("rina_wait", ctypes.c_int, c_req_p)
rina_request_free = _decl("rina_request_free", None, c_req_p)
rina_comm_eventfd = _decl("rina_comm_eventfd", ctypes.c_int, c_comm_p)
rina_comm_rank = _decl("rina_comm_rank", ctypes.c_int, c_comm_p)
rina_comm_size = _decl("rina_comm_size", ctypes.c_int, c_comm_p)
rina_comm_ring_len = _decl("rina_comm_ring_len", ctypes.c_int, c_comm_p)
rina_comm_role = _decl("rina_comm_role", ctypes.c_int, c_comm_p)
rina_comm_transport = _decl("rina_comm_transport", ctypes.c_char_p, c_comm_p)
rina_comm_get_stats = _decl("rina_comm_get_stats", ctypes.c_int, c_comm_p,
                            ctypes.POINTER(Stats))
rina_strerror = _decl("rina_strerror", ctypes.c_char_p, ctypes.c_int)
rina_last_error = _decl("rina_last_error", ctypes.c_char_p)
