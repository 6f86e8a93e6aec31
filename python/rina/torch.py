# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""PyTorch integration: the torch.distributed backend "rina", and a DDP
communication hook for programs that keep another backend.

    import rina.torch                        # registers backend "rina"
    dist.init_process_group("rina")          # env://, torchrun, ...
    ddp = torch.nn.parallel.DistributedDataParallel(model)

The backend is the C++ extension rina_c10d (python/csrc, built by make
into build/python): a c10d::ProcessGroup whose collectives are librina
calls, completed from librina's progress thread. This module does its
rendezvous through the c10d Store torch hands the backend: each rank
publishes its address, rack and job settings there, every rank checks
that they agree and builds the same job text, then joins the ring.
As with Gloo, the process group's timeout is every collective's
(call_timeout_ms()). python/README.md, "The rina backend", has the
environment it reads.

The hook (no backend "rina" needed):

    ddp.register_comm_hook(comm, rina.torch.allreduce_hook)

starts each bucket's allreduce when DDP hands it over; its Future is
completed by librina's progress thread when the call finishes.
"""
import datetime
import glob
import hashlib
import importlib.machinery
import importlib.util
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import tempfile

import torch
import torch.distributed as dist

__all__ = ["allreduce_hook", "allreduce", "stats", "BACKEND",
           "build_job_text"]

BACKEND = "rina"
PORT_BASE = 21056		# RINA_UDP_PORT_WORKER; 8 ranks per address
PORTS = 8
_HERE = os.path.dirname(os.path.abspath(__file__))


def allreduce_hook(comm, bucket):
    """DDP comm hook: average bucket.buffer() over the ranks with Rina.

    Register with ddp.register_comm_hook(comm, allreduce_hook), comm a
    rina.Communicator. Returns a torch.futures.Future of the averaged
    bucket (its exception a rina.RinaError if the call failed)."""
    return allreduce(comm, bucket.buffer(), op="avg")


def allreduce(comm, tensor, op="sum"):
    """Start an in-place allreduce of a CPU tensor; a torch.futures.Future
    whose value is the tensor, or which raises the rina.RinaError.

    A failure reaches DDP's C++ reducer as an error of the Future (raised
    in a then() callback): Future.set_exception in torch 1.13 only stores
    the exception as the value, which the reducer cannot read."""
    done = torch.futures.Future()

    def finish(req):
        done.set_result(req)

    try:
        comm.allreduce_async(tensor, op=op, callback=finish)
    except Exception as e:		# not started: fail the same way
        done.set_result(_Failed(e))
    return done.then(lambda fut: _unwrap(fut.value(), tensor))


class _Failed:
    def __init__(self, exc):
        self.exception = exc


def _unwrap(req, tensor):
    if req.exception is not None:
        raise req.exception
    return tensor


# ---------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------

def _extension():
    """The rina_c10d module: importable as is (installed, PYTHONPATH),
    else the build tree's build/python next to this package."""
    try:
        import rina_c10d
        return rina_c10d
    except ImportError:
        pass
    where = os.path.normpath(os.path.join(_HERE, "..", "..", "build",
                                          "python"))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for path in glob.glob(os.path.join(where, "rina_c10d" + suffix)):
            spec = importlib.util.spec_from_file_location("rina_c10d", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            sys.modules["rina_c10d"] = mod
            return mod
    raise RuntimeError(
        "rina backend: the rina_c10d extension is not built (make, with "
        "libtorch-dev and pybind11-dev installed: make deps); looked in "
        "PYTHONPATH and " + where)


def _job_lines(path):
    """A job file's lines, comments and blanks dropped: (settings,
    racks_of, ranks) where racks_of maps an address to its rack and
    ranks lists the rank lines as (rank, address, port, line)."""
    settings, racks_of, ranks = [], {}, []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            if w[0] == "rank":
                if len(w) >= 5 and w[3] == "rack":
                    racks_of[w[2].rsplit(":", 1)[0]] = int(w[4])
                addr, _, port = w[2].rpartition(":") if len(w) > 2 \
                    else ("", "", "")
                if w[1].isdigit() and port.isdigit():
                    ranks.append((int(w[1]), addr, int(port), " ".join(w)))
                continue
            settings.append(" ".join(w))
    return settings, racks_of, ranks


def ring_ranks(file_ranks, addrs):
    """Each torch rank's rank in a job file's rank lines, when they list
    the world (the same number of ranks on every address): torch's ranks
    on an address in ascending order take the file's ranks there in
    order of port. (ring_of, None), or (None, why not)."""
    if len(file_ranks) != len(addrs):
        return None, "it lists %d ranks, the world has %d" % (
            len(file_ranks), len(addrs))
    if sorted(r for r, _, _, _ in file_ranks) != list(range(len(addrs))):
        return None, "its ranks are not 0..%d" % (len(addrs) - 1)
    slots = {}
    for r, a, port, _ in sorted(file_ranks, key=lambda x: (x[1], x[2])):
        slots.setdefault(a, []).append(r)
    ring_of = []
    for t, a in enumerate(addrs):
        if not slots.get(a):
            n = sum(1 for x in addrs if x == a)
            return None, "it lists %d rank(s) on %s, the world has %d" % (
                sum(1 for x in file_ranks if x[1] == a), a, n)
        ring_of.append(slots[a].pop(0))
    return ring_of, None


def _env_settings(env):
    """The job's settings from the environment (no job file)."""
    lines = []
    if env.get("RINA_JOB_ID"):
        lines.append("job %d" % int(env["RINA_JOB_ID"]))
    for o in filter(None, (x.strip() for x in
                           env.get("RINA_JOB_OPTS", "").split(";"))):
        lines.append(" ".join(o.split()))
    for r in filter(None, (x.strip() for x in
                           env.get("RINA_INA_RACKS", "").split(","))):
        r = int(r)
        tor = env.get("RINA_TOR_%d" % r)
        lines.append("rack %d ina%s" % (r, " tor " + tor if tor else ""))
    return lines


def _my_addr(env):
    """This rank's IPv4 address: RINA_ADDR, else the source address of
    the route to MASTER_ADDR, else what the host name resolves to."""
    if env.get("RINA_ADDR"):
        if not _is_ipv4(env["RINA_ADDR"]):
            raise RuntimeError("rina backend: RINA_ADDR=%r is not an IPv4 "
                               "address" % env["RINA_ADDR"][:60])
        return env["RINA_ADDR"]
    master = env.get("MASTER_ADDR")
    if master:
        try:
            ip = socket.gethostbyname(master)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((ip, 9))
                a = s.getsockname()[0]
            if not a.startswith("127."):
                return a
        except OSError:
            pass
    try:
        a = socket.gethostbyname(socket.gethostname())
        if not a.startswith("127."):
            return a
    except OSError:
        pass
    raise RuntimeError("rina backend: cannot tell this rank's address "
                       "(no MASTER_ADDR route, host name resolves to "
                       "loopback): set RINA_ADDR")


def _my_rack(env, addr, racks_of):
    """RINA_RACK, else the job file's rack for this address, else
    RINA_RACK_FROM_HOST (a regular expression whose first group, in the
    host name, is the rack's number), else 0."""
    if env.get("RINA_RACK"):
        return int(env["RINA_RACK"]), "RINA_RACK"
    if addr in racks_of:
        return racks_of[addr], "RINA_JOB"
    rule = env.get("RINA_RACK_FROM_HOST")
    if rule:
        host = socket.gethostname()
        m = re.search(rule, host)
        if not m or not m.group(1).isdigit():
            raise RuntimeError("rina backend: RINA_RACK_FROM_HOST=%r does "
                               "not give a rack number in host name %r"
                               % (rule, host))
        return int(m.group(1)), "RINA_RACK_FROM_HOST"
    return 0, "default"


def _is_ipv4(a):
    """a is an IPv4 address in dotted-quad form, as the job file's rank
    lines take it (no host name, no other spelling)."""
    try:
        return isinstance(a, str) and str(ipaddress.IPv4Address(a)) == a
    except ValueError:
        return False


# What a rank publishes at rina/rank/N (_create's "me"), field by field:
# its type and what its value must satisfy. Only these fields are read.
_SRC_MAX = 4096


def _short(v):
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _text_ok(v):
    return len(v) <= _SRC_MAX and v.isprintable()


_RECORD = {
    "addr": (str, _is_ipv4, "an IPv4 address"),
    "rack": (int, lambda v: 0 <= v <= 65535, "a rack number 0..65535"),
    "port": (int, lambda v: 0 < v <= 65535, "a UDP port"),
    "size": (int, lambda v: 0 < v <= 1 << 20, "a world size"),
    "settings": (str, lambda v: re.fullmatch("[0-9a-f]{16}", v) is not None,
                 "a settings digest"),
    "host": (str, _text_ok, "a host name"),
    "rack_src": (str, _text_ok, "printable text"),
    "port_src": (str, _text_ok, "printable text"),
    "settings_src": (str, _text_ok, "printable text"),
    "size_src": (str, _text_ok, "printable text"),
}


def parse_record(raw, rank):
    """Rank rank's rendezvous record (the bytes at rina/rank/RANK) as a
    dict of _RECORD's fields, each of its type and within its bounds; a
    ValueError naming the rank and the field otherwise. The store is
    anyone's who reaches it (a rank of another version, another job's
    process on the same store): what it holds becomes lines of the job
    text and words of error messages only through here."""
    def bad(why):
        return ValueError("rank %d's rendezvous record (rina/rank/%d): %s"
                          % (rank, rank, why))
    try:
        rec = json.loads(bytes(raw).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise bad("not JSON: %s" % _short(str(e))) from None
    if not isinstance(rec, dict):
        raise bad("not a JSON object: %s" % _short(rec))
    out = {}
    for key, (typ, ok, what) in _RECORD.items():
        if key not in rec:
            raise bad("no %s" % key)
        v = rec[key]
        # bool is an int to isinstance; a record's numbers never are
        if type(v) is not typ or not ok(v):
            raise bad("%s %s is not %s" % (key, _short(v), what))
        out[key] = v
    return out


def parse_job_id(raw):
    """rina/job_id (rank 0's pick): 1..65535, else a ValueError."""
    t = bytes(raw).decode("ascii", "replace")
    if not re.fullmatch("[1-9][0-9]{0,4}", t) or int(t) > 65535:
        raise ValueError("rina/job_id %s is not a job id 1..65535"
                         % _short(t))
    return int(t)


def parse_secret(raw):
    """rina/secret (rank 0's): "" (the job has a secret file) or 32 hex
    digits (secret.c's file format), else a ValueError."""
    t = bytes(raw).decode("ascii", "replace")
    if t and not re.fullmatch("[0-9a-f]{32}", t):
        raise ValueError("rina/secret is not 32 hex digits (%d bytes)"
                         % len(raw))
    return t


def build_job_text(settings, infos, job_id=None, secret_file=None,
                   port_base=PORT_BASE):
    """The job text every rank builds alike: settings (lines), one rank
    line per entry of infos (dicts with addr and rack, in rank order;
    ports from port_base by order of rank on each address), a plain rack
    line for every rack no setting declares."""
    lines = list(settings)
    if job_id is not None and not any(l.split()[0] == "job" for l in lines):
        lines.insert(0, "job %d" % job_id)
    declared = {int(l.split()[1]) for l in lines if l.split()[0] == "rack"}
    for rk in sorted({i["rack"] for i in infos} - declared):
        lines.append("rack %d plain" % rk)
    seen = {}
    for r, i in enumerate(infos):
        n = seen.get(i["addr"], 0)
        seen[i["addr"]] = n + 1
        lines.append("rank %d %s:%d rack %d" % (r, i["addr"],
                                                  port_base + n, i["rack"]))
    if secret_file:
        lines = [l for l in lines if l.split()[0] != "secret_file"]
        lines.append("secret_file " + secret_file)
    return "\n".join(lines) + "\n"


# rina_config.timeout_ms is a uint32 of milliseconds; RINA_TIMEOUT_MS
# takes librina's range (rina_comm_init_env, the job file's timeout_ms)
TIMEOUT_MS_MAX = 0xffffffff
ENV_TIMEOUT_MS_MAX = 3600000


def call_timeout_ms(timeout, env):
    """Every collective's timeout, for rina_config.timeout_ms: as Gloo
    does, the process group's timeout (torch's timeout, a timedelta;
    init_process_group's 30 min by default), unless RINA_TIMEOUT_MS is
    set: then that (0: the job's timeout_ms line, else librina's
    default, 10 s). A job's timeout_ms line does not override torch's
    timeout (job files carry one as a matter of course).

    librina names a rank silent or dead, and fails the call on every
    rank, only after this long without progress (3/4 of it for a worker
    of an INA rack whose agent aggregates in software): a rank that
    comes late to a call by less than that is waited for."""
    v = env.get("RINA_TIMEOUT_MS")
    if v:
        if not re.fullmatch("[0-9]{1,7}", v) or \
                int(v) > ENV_TIMEOUT_MS_MAX:
            raise RuntimeError("rina backend: RINA_TIMEOUT_MS=%s is not "
                               "a number in 0..%d" % (_short(v),
                                                      ENV_TIMEOUT_MS_MAX))
        return int(v)
    ms = -(-timeout // datetime.timedelta(milliseconds=1))	# rounded up
    # 0 would be "the job's"; beyond 49 days is "never" anyway
    return min(max(ms, 1), TIMEOUT_MS_MAX)


def _wait(store, keys, timeout, what):
    try:
        store.wait(keys, timeout)
    except Exception as e:
        missing = []
        for k in keys:
            try:
                store.wait([k], datetime.timedelta(milliseconds=10))
            except Exception:
                missing.append(k.rsplit("/", 1)[1])
        raise RuntimeError("rina backend: %s: rank(s) %s did not join "
                           "within %s (%s)" % (what, ", ".join(missing)
                                                or "?", timeout, e)) \
            from None


def _all_know(store, what, rank, size, timeout):
    """Before every rank raises the same verdict: wait until each has
    read it (the store may live in a rank that is about to exit)."""
    store.set("rina/known/%s/%d" % (what, rank), "1")
    try:
        store.wait(["rina/known/%s/%d" % (what, r) for r in range(size)],
                   timeout)
    except Exception:
        pass			# the verdict stands; a rank left already


def _disagree(infos, field, what):
    """A clear message when ranks differ in infos[...][field], else None."""
    groups = {}
    for r, i in enumerate(infos):
        groups.setdefault(i[field], []).append(r)
    if len(groups) == 1:
        return None
    parts = ["ranks %s: %s" % (",".join(map(str, rs)),
                               infos[rs[0]].get(field + "_src",
                                                infos[rs[0]][field]))
             for rs in groups.values()]
    return "ranks disagree on %s: %s" % (what, "; ".join(parts))


def _create(store, rank, size, timeout, env=None):
    """torch.distributed's creator for backend "rina" (torch 1.13:
    creator(prefix_store, rank, size, timeout)); env: os.environ.
    timeout (init_process_group's) bounds the rendezvous and is every
    collective's timeout (call_timeout_ms())."""
    ext = _extension()
    env = os.environ if env is None else env
    job = env.get("RINA_JOB")
    racks_of, file_ranks = {}, []
    if job:
        settings, racks_of, file_ranks = _job_lines(job)
        src = "RINA_JOB=" + job
    else:
        settings = _env_settings(env)
        src = "environment (%s)" % "; ".join(settings) if settings \
            else "environment (defaults)"
    addr = _my_addr(env)
    rack, rack_src = _my_rack(env, addr, racks_of)
    # the settings that must match: the secret's file is each rank's own
    # and the file's rank lines, which the job takes as they are (unless
    # RINA_PORT says which ports to use) when they list the world
    use_file = bool(file_ranks) and not env.get("RINA_PORT")
    digest = hashlib.sha256("\n".join(
        [l for l in settings if l.split()[0] != "secret_file"] +
        ([l for _, _, _, l in file_ranks] if use_file else []))
        .encode()).hexdigest()[:16]
    port = int(env.get("RINA_PORT", PORT_BASE))
    me = {"addr": addr, "rack": rack, "rack_src": rack_src,
          "port": port, "port_src": "RINA_PORT %d" % port,
          "settings": digest, "settings_src": "%s, digest %s" % (src, digest),
          "size": size, "size_src": "world size %d" % size,
          "host": socket.gethostname()}
    if rank == 0:
        store.set("rina/job_id", str(secrets.randbelow(65535) + 1))
        have_secret = env.get("RINA_SECRET_FILE") or any(
            l.split()[0] == "secret_file" for l in settings)
        store.set("rina/secret", "" if have_secret else secrets.token_hex(16))
    store.set("rina/rank/%d" % rank, json.dumps(me))
    keys = ["rina/rank/%d" % r for r in range(size)]
    _wait(store, keys + ["rina/job_id", "rina/secret"], timeout,
          "rendezvous")
    try:
        infos = [parse_record(store.get(k), r) for r, k in enumerate(keys)]
        job_id = parse_job_id(store.get("rina/job_id"))
        secret = parse_secret(store.get("rina/secret"))
    except ValueError as e:
        # the same records on every rank: each raises the same error
        _all_know(store, "records", rank, size, timeout)
        raise RuntimeError("rina backend: rank %d: %s" % (rank, e)) \
            from None
    problems = [p for p in (_disagree(infos, "size", "the world size"),
                            _disagree(infos, "settings", "the job settings"),
                            _disagree(infos, "port", "the first port"))
                if p]
    by_addr = {}
    for r, i in enumerate(infos):
        by_addr.setdefault(i["addr"], []).append(r)
    ring_of = None
    if use_file:
        ring_of, why = ring_ranks(file_ranks, [i["addr"] for i in infos])
        if why and rank == 0:
            print("rina backend: %s: %s: the job gets its own rank lines "
                  "(ports %d.. by rank on each address), which a ToR that "
                  "knows the file refuses" % (job, why, port),
                  file=sys.stderr)
    for a, rs in sorted(by_addr.items()):
        if len({infos[r]["rack"] for r in rs}) > 1:
            problems.append("ranks %s share address %s but name racks %s"
                            % (",".join(map(str, rs)), a, ",".join(
                                "%d (%s)" % (infos[r]["rack"],
                                             infos[r]["rack_src"])
                                for r in rs)))
        if ring_of is None and (port + len(rs) > PORT_BASE + PORTS or
                                port < PORT_BASE):
            problems.append("%d ranks on address %s from port %d: Rina's "
                            "ports are %d..%d" % (len(rs), a, port,
                                                 PORT_BASE,
                                                 PORT_BASE + PORTS - 1))
    if problems:
        _all_know(store, "settings", rank, size, timeout)
        raise RuntimeError("rina backend: rank %d: %s" % (rank,
                                                         "; ".join(problems)))
    secret_path = None
    if secret:
        fd, secret_path = tempfile.mkstemp(prefix="rina-secret.")
        with os.fdopen(fd, "w") as f:	# mkstemp: mode 0600
            f.write(secret)
    if ring_of is None:
        text = build_job_text(settings, infos, job_id, secret_path, port)
    else:
        text = build_job_text(settings + [l for _, _, _, l in file_ranks],
                              [], None, secret_path)
    pg = err = None
    # how long the others' rina_comm_init may wait for their neighbours
    # (the call timeout, as ours; 0 is the job's, 1 h at most)
    hello_ms = ENV_TIMEOUT_MS_MAX
    try:
        # a bad RINA_TIMEOUT_MS is this rank's init failure, told to all
        timeout_ms = call_timeout_ms(timeout, env)
        hello_ms = timeout_ms or hello_ms
        pg = ext.ProcessGroupRina(rank, size, text,
                                  env.get("RINA_TRANSPORT", "auto"),
                                  timeout_ms, ring_of or [])
    except Exception as e:
        err = str(e)
    finally:
        if secret_path:			# librina read it at init
            os.unlink(secret_path)
    # every rank learns whether every other one joined: a clear error on
    # each, never a wait for a ring that will not form. A rank whose
    # neighbour never greets it (one that failed before it could say
    # so) tells after hello_ms: wait that long beyond torch's timeout.
    store.set("rina/init/%d" % rank, "" if err is None else err)
    _wait(store, ["rina/init/%d" % r for r in range(size)],
          timeout + datetime.timedelta(milliseconds=hello_ms),
          "joining the ring")
    failed = [(r, store.get("rina/init/%d" % r).decode("utf-8", "replace"))
              for r in range(size)]
    failed = [(r, m) for r, m in failed if m]
    if failed:
        if pg is not None:
            pg.shutdown()
        _all_know(store, "init", rank, size, timeout)
        raise RuntimeError("rina backend: rank %d: %d rank(s) could not "
                           "join: %s" % (rank, len(failed), "; ".join(
                               "rank %d: %s" % f for f in failed)))
    return pg


def stats(group=None):
    """librina's counters (rina.Communicator.stats()) of a "rina" process
    group, the default one if group is None."""
    from . import _lib
    import ctypes
    if group is None:
        group = dist.distributed_c10d._get_default_group()
    h = group._rina_handle()
    if not h:
        raise RuntimeError("rina backend: the process group is shut down")
    st = _lib.Stats(size=ctypes.sizeof(_lib.Stats))
    rc = _lib.rina_comm_get_stats(h, ctypes.byref(st))
    if rc:
        raise RuntimeError("rina_comm_get_stats: %d" % rc)
    return {f: getattr(st, f) for f in _lib.STATS_FIELDS}


if dist.is_available() and not hasattr(dist.Backend, BACKEND.upper()):
    dist.Backend.register_backend(BACKEND, _create)
