# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Rina allreduce from Python: ctypes bindings over librina.

    import rina
    comm = rina.Communicator.from_env()        # RINA_JOB, RINA_RANK (or RANK)
    comm.allreduce(x, op="avg")                # in place: numpy, torch, buffer
    req = comm.allreduce_async(y)              # -> rina.Request
    req.wait()

Every call goes through librina's asynchronous API (rina_iallreduce and
one progress thread per communicator, calls in start order), so blocking
and asynchronous calls may be mixed from any Python thread.
"""
import ctypes
import enum
import itertools
import os
import threading
import weakref

from . import _lib

__all__ = ["Communicator", "Request", "RinaError", "Result", "DType", "Op",
           "Role", "RackAgent", "library_path"]


class Result(enum.IntEnum):
    OK = 0
    ERR_INVALID = 1
    ERR_JOBFILE = 2
    ERR_SYSTEM = 3
    ERR_NOMEM = 4
    ERR_TIMEOUT = 5
    ERR_ABORTED = 6
    ERR_MISMATCH = 7
    ERR_OVERFLOW = 8
    ERR_NONFINITE = 9
    ERR_TRANSPORT = 10
    ERR_BROKEN = 11


class DType(enum.IntEnum):
    INT32 = 0
    FLOAT32 = 1
    BFLOAT16 = 2
    FLOAT16 = 3
    FLOAT64 = 4


class Op(enum.IntEnum):
    SUM = 0
    AVG = 1
    MAX = 2


class Role(enum.IntEnum):
    MEMBER = 0
    INA_WORKER = 1
    INA_AGENT = 2


class RackAgent(enum.IntEnum):
    """stats()["rack_agent"]: who runs the rank's rack's agent."""
    UNKNOWN = 0		# a plain member, or another host's
    LIBRINA = 1		# this rank's agent thread
    KERNEL = 2		# rina.ko on this host


_ITEMSIZE = {DType.INT32: 4, DType.FLOAT32: 4, DType.BFLOAT16: 2,
             DType.FLOAT16: 2, DType.FLOAT64: 8}
# buffer-protocol formats (numpy's and memoryview's)
_FORMATS = {"i": DType.INT32, "l": None, "f": DType.FLOAT32,
            "e": DType.FLOAT16, "d": DType.FLOAT64}


def library_path():
    """The librina shared object these bindings loaded."""
    return _lib.LIBRARY_PATH


class RinaError(RuntimeError):
    """A librina failure: code (rina.Result), strerror (rina_strerror) and
    detail (rina_last_error of the failed call)."""

    def __init__(self, code, detail=""):
        self.code = Result(code) if code in Result._value2member_map_ \
            else code
        self.strerror = _lib.rina_strerror(code).decode()
        self.detail = detail
        super().__init__("%s: %s" % (self.strerror, detail) if detail
                         else self.strerror)


def _check(rc):
    if rc:
        raise RinaError(rc, _lib.rina_last_error().decode(errors="replace"))


def _op(op):
    if isinstance(op, str):
        try:
            return Op[op.upper()]
        except KeyError:
            raise ValueError("op must be 'sum', 'avg' or 'max', not %r" % op)
    return Op(op)


class _Buffer:
    """Where a call reads and writes: the caller's memory, or a contiguous
    copy written back at completion."""

    def __init__(self, x, dtype=None):
        self.obj = x
        self.tmp = None
        self.writeback = None
        mod = type(x).__module__
        if mod.startswith("torch"):
            self._torch(x)
        elif mod.startswith("numpy"):
            self._numpy(x)
        else:
            self._buffer(x, dtype)
        if dtype is not None:
            self.dtype = DType(dtype)

    def _torch(self, t):
        import torch
        kinds = {torch.float32: DType.FLOAT32, torch.int32: DType.INT32,
                 torch.bfloat16: DType.BFLOAT16,
                 torch.float16: DType.FLOAT16, torch.float64: DType.FLOAT64}
        if t.device.type != "cpu":
            raise ValueError("rina reduces CPU tensors (got %s); copy it "
                             "to the CPU first" % t.device)
        if t.dtype not in kinds:
            raise TypeError("unsupported tensor dtype %s" % t.dtype)
        self.dtype = kinds[t.dtype]
        t = t.detach()
        if not t.is_contiguous():
            tmp = self.tmp = t.contiguous()
            self.writeback = lambda dst=t: dst.copy_(tmp)
            t = tmp
        self.ptr, self.count = t.data_ptr(), t.numel()

    def _numpy(self, a):
        import numpy as np
        kinds = {np.dtype(np.float32): DType.FLOAT32,
                 np.dtype(np.int32): DType.INT32,
                 np.dtype(np.float16): DType.FLOAT16,
                 np.dtype(np.float64): DType.FLOAT64}
        if a.dtype.newbyteorder("=") != a.dtype or a.dtype not in kinds:
            raise TypeError("unsupported array dtype %s" % a.dtype)
        if not a.flags.writeable:
            raise ValueError("array is read-only")
        self.dtype = kinds[a.dtype]
        if not a.flags.c_contiguous:
            tmp = self.tmp = np.ascontiguousarray(a)
            self.writeback = lambda dst=a: np.copyto(dst, tmp)
            a = tmp
        self.ptr, self.count = a.ctypes.data, a.size

    def _buffer(self, x, dtype):
        m = memoryview(x)
        if m.readonly:
            raise ValueError("buffer is read-only")
        if dtype is None:
            dtype = _FORMATS.get(m.format.lstrip("@=<"))
            if dtype is None:
                raise TypeError("buffer format %r: give dtype=" % m.format)
        self.dtype = DType(dtype)
        if not m.c_contiguous:
            raise ValueError("buffer is not contiguous")
        if m.nbytes % _ITEMSIZE[self.dtype]:
            raise ValueError("buffer size is not a multiple of the element")
        self.mv = m.cast("B")
        cbuf = (ctypes.c_char * m.nbytes).from_buffer(self.mv)
        self.ptr, self.count = ctypes.addressof(cbuf), \
            m.nbytes // _ITEMSIZE[self.dtype]
        self.cbuf = cbuf


_ids = itertools.count(1)
_pending = {}		# request id -> Request, until its completion
_pending_lock = threading.Lock()


@_lib.CALLBACK
def _on_complete(creq, result, arg):
    # librina's progress thread; ctypes takes the GIL
    with _pending_lock:
        req = _pending.pop(arg, None)
    if req is not None:
        req._complete(creq, result)


class Request:
    """An allreduce in progress (Communicator.allreduce_async)."""

    def __init__(self, comm, buf, callback):
        self._comm = comm
        self._buf = buf
        self._callback = callback
        self._event = threading.Event()
        self._error = None

    def _complete(self, creq, result):
        if result:
            res = ctypes.c_int()
            _lib.rina_test(creq, ctypes.byref(res))	# message -> this thread
            self._error = RinaError(result,
                                    _lib.rina_last_error().decode(
                                        errors="replace"))
        _lib.rina_request_free(creq)
        try:
            if not result and self._buf.writeback:
                self._buf.writeback()
        except Exception as e:		# pragma: no cover
            self._error = e
        self._event.set()
        if self._callback:
            try:
                self._callback(self)
            except Exception:		# never into librina's thread
                import traceback
                traceback.print_exc()

    @property
    def result(self):
        """The reduced object (the caller's), once completed."""
        return self._buf.obj

    @property
    def exception(self):
        """The RinaError of a failed request, None otherwise."""
        return self._error

    def is_completed(self):
        return self._event.is_set()

    def wait(self, timeout=None):
        """Block until complete; the reduced object, or raise RinaError.
        timeout (seconds): raise TimeoutError if still pending then
        (the call goes on; librina's own job timeout bounds it)."""
        if not self._event.wait(timeout):
            raise TimeoutError("allreduce still in progress")
        if self._error:
            raise self._error
        return self._buf.obj


# where launchers put the rank, first found wins
_RANK_VARS = ("RINA_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
              "SLURM_PROCID")


def _destroy(handle):
    _lib.rina_comm_destroy(handle)


class Communicator:
    """A rank of a Rina job.

    Communicator(job, rank, transport="auto", timeout_ms=0): job is a job
    file's path, or its text (anything holding a newline)."""

    def __init__(self, job, rank, transport="auto", timeout_ms=0, *,
                 job_text=None, drop_ppm=0, dup_ppm=0, rx_drop_ppm=0):
        cfg = _lib.Config(size=ctypes.sizeof(_lib.Config),
                          magic=_lib.RINA_CONFIG_MAGIC,
                          version=_lib.RINA_API_VERSION, rank=int(rank),
                          transport=str(transport).encode(),
                          timeout_ms=int(timeout_ms), drop_ppm=drop_ppm,
                          dup_ppm=dup_ppm, rx_drop_ppm=rx_drop_ppm)
        if job_text is None and job is not None and "\n" in str(job):
            job_text, job = job, None
        if job is not None:
            cfg.job_file = os.fsencode(job)
        if job_text is not None:
            cfg.job_text = job_text.encode()
        handle = _lib.c_comm_p()
        _check(_lib.rina_comm_init(ctypes.byref(handle), ctypes.byref(cfg)))
        self._handle = handle.value
        self._finalizer = weakref.finalize(self, _destroy, self._handle)

    @classmethod
    def from_env(cls):
        """From what launchers set: RINA_JOB (job file), the rank from
        RINA_RANK, else torch's RANK, OpenMPI's OMPI_COMM_WORLD_RANK,
        PMI_RANK or Slurm's SLURM_PROCID; RINA_TRANSPORT, RINA_TIMEOUT_MS
        and the fault knobs
        RINA_FAULT_DROP_PPM, RINA_FAULT_DUP_PPM, RINA_FAULT_RX_DROP_PPM."""
        env = os.environ
        job = env.get("RINA_JOB")
        if not job:
            raise RinaError(Result.ERR_INVALID, "RINA_JOB is not set")
        rank = next((env[v] for v in _RANK_VARS if env.get(v)), None)
        if rank is None:
            raise RinaError(Result.ERR_INVALID,
                            "no rank: set one of " + ", ".join(_RANK_VARS))

        def num(name):
            v = env.get(name, "0") or "0"
            if not v.isdigit():
                raise RinaError(Result.ERR_INVALID,
                                '%s="%s" is not a number' % (name, v))
            return int(v)
        if not str(rank).isdigit():
            raise RinaError(Result.ERR_INVALID,
                            'rank "%s" is not a number' % rank)
        comm = cls(job, int(rank), env.get("RINA_TRANSPORT", "auto"),
                   num("RINA_TIMEOUT_MS"),
                   drop_ppm=num("RINA_FAULT_DROP_PPM"),
                   dup_ppm=num("RINA_FAULT_DUP_PPM"),
                   rx_drop_ppm=num("RINA_FAULT_RX_DROP_PPM"))
        ws = env.get("WORLD_SIZE")
        size = comm.size
        if ws and ws.isdigit() and int(ws) != size:
            comm.close()
            raise RinaError(Result.ERR_MISMATCH,
                            "WORLD_SIZE=%s but the job has %d ranks"
                            % (ws, size))
        return comm

    def _h(self):
        if not self._finalizer.alive:
            raise RinaError(Result.ERR_INVALID, "communicator is closed")
        return self._handle

    def close(self):
        """Leave the ring (rina_comm_destroy). Pending requests complete:
        the one in progress normally (within the timeout), queued ones
        with RinaError(ERR_BROKEN)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    rank = property(lambda s: _lib.rina_comm_rank(s._h()))
    size = property(lambda s: _lib.rina_comm_size(s._h()))
    ring_len = property(lambda s: _lib.rina_comm_ring_len(s._h()))
    role = property(lambda s: Role(_lib.rina_comm_role(s._h())))
    transport = property(
        lambda s: _lib.rina_comm_transport(s._h()).decode())

    def allreduce_async(self, x, op="sum", callback=None, dtype=None):
        """Start an allreduce of x in place; a Request. callback(request)
        runs on librina's progress thread at completion (keep it short).
        x stays in use until then."""
        buf = _Buffer(x, dtype)
        req = Request(self, buf, callback)
        rid = next(_ids)
        creq = _lib.c_req_p()
        with _pending_lock:
            _pending[rid] = req
        rc = _lib.rina_iallreduce(buf.ptr, buf.ptr, buf.count, buf.dtype,
                                  _op(op), self._h(), _on_complete, rid,
                                  ctypes.byref(creq))
        if rc:
            with _pending_lock:
                _pending.pop(rid, None)
            _check(rc)
        return req

    def allreduce(self, x, op="sum", dtype=None):
        """Allreduce x in place (numpy array, CPU tensor, writable buffer;
        non-contiguous ones through a copy); returns x."""
        return self.allreduce_async(x, op, dtype=dtype).wait()

    def eventfd(self):
        """A file descriptor (rina_comm_eventfd) that polls readable when
        requests completed (read 8 bytes: how many), for event loops;
        owned by the communicator."""
        fd = _lib.rina_comm_eventfd(self._h())
        if fd < 0:
            _check(Result.ERR_SYSTEM)
        return fd

    def stats(self):
        """librina's counters (struct rina_stats) as a dict."""
        st = _lib.Stats(size=ctypes.sizeof(_lib.Stats))
        _check(_lib.rina_comm_get_stats(self._h(), ctypes.byref(st)))
        return {f: getattr(st, f) for f in _lib.STATS_FIELDS}

    def __repr__(self):
        if not self._finalizer.alive:
            return "<rina.Communicator closed>"
        return "<rina.Communicator rank %d of %d, ring %d, %s>" % (
            self.rank, self.size, self.ring_len, self.transport)
