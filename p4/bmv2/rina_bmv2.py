# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The compiled ToR program on bmv2's simple_switch, driven from Python.

Shared by the packet-vector runner (selftests/tor/bmv2_vectors.py) and the
bmv2 ToR control plane (p4/bmv2/rina-tor-bmv2): finds the tools, starts
simple_switch, runs runtime-CLI commands in-process over its thrift port
(the same code simple_switch_CLI runs, without a process per command) and
exchanges frames with it over its nanomsg packet-in socket (any frame,
even one shorter than Ethernet, deterministically, no veth needed).

Run it with /usr/bin/python3: the CLI needs Debian's python3-thrift.
"""
import contextlib
import errno
import ctypes
import ctypes.util
import glob
import io
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

P4TOOLS_BIN = "/opt/p4tools/bin"


def find_tool(name, env):
    """$env, else name on PATH, else /opt/p4tools/bin; None if absent."""
    path = os.environ.get(env)
    if path:
        return path if os.access(path, os.X_OK) else None
    path = shutil.which(name)
    if path:
        return path
    path = os.path.join(P4TOOLS_BIN, name)
    return path if os.access(path, os.X_OK) else None


def cli_pythonpath(cli):
    """The directory holding sswitch_CLI.py for the simple_switch_CLI at
    path cli (p4lang's wrapper appends it to sys.path)."""
    with open(cli, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "sys.path.append(" in line:
                d = line.split("(", 1)[1].rsplit(")", 1)[0].strip("\"' ")
                if os.path.exists(os.path.join(d, "sswitch_CLI.py")):
                    return d
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(cli)))
    for d in glob.glob(os.path.join(prefix, "lib", "python3*",
                                    "*-packages")):
        if os.path.exists(os.path.join(d, "sswitch_CLI.py")):
            return d
    return None


def missing_tools():
    """None when simple_switch and its CLI are usable, else why not."""
    if not find_tool("simple_switch", "SIMPLE_SWITCH"):
        return "simple_switch not found (SIMPLE_SWITCH, PATH, " \
               + P4TOOLS_BIN + ")"
    cli = find_tool("simple_switch_CLI", "SIMPLE_SWITCH_CLI")
    if not cli:
        return "simple_switch_CLI not found"
    if not cli_pythonpath(cli):
        return "sswitch_CLI.py not found for " + cli
    try:
        import thrift  # noqa: F401 (the CLI needs it)
    except ImportError:
        return "python3-thrift not installed (for simple_switch_CLI)"
    if not ctypes.util.find_library("nanomsg"):
        return "libnanomsg not installed (bmv2's packet-in socket)"
    return None


def free_tcp_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _ignore_stop_signals():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PacketPort:
    """bmv2's nanomsg PAIR packet socket (--packet-in): messages of a
    {int type, int port, int len} header (host order) and the frame."""
    AF_SP, NN_PAIR, NN_SOL_SOCKET, NN_RCVTIMEO = 1, 16, 0, 5
    PORT_ADD, PACKET_IN, PACKET_OUT = 0, 3, 4
    HDR = struct.Struct("=iii")

    def __init__(self, addr):
        self.nn = ctypes.CDLL(ctypes.util.find_library("nanomsg"),
                              use_errno=True)
        self.s = self.nn.nn_socket(self.AF_SP, self.NN_PAIR)
        if self.s < 0 or self.nn.nn_connect(self.s, addr.encode()) < 0:
            raise OSError(ctypes.get_errno(), "nanomsg connect " + addr)
        self.buf = ctypes.create_string_buffer(65536 + self.HDR.size)
        self.timeout_ms = None

    def _send(self, msg):
        while self.nn.nn_send(self.s, msg, len(msg), 0) != len(msg):
            if ctypes.get_errno() != errno.EINTR:	# a signal came
                raise OSError(ctypes.get_errno(), "nanomsg send")

    def add_port(self, port):
        self._send(self.HDR.pack(self.PORT_ADD, port, 0))

    def send(self, port, frame):
        self._send(self.HDR.pack(self.PACKET_IN, port, len(frame)) + frame)

    def recv(self, timeout):
        """(port, frame) the switch emitted, or None after timeout s."""
        ms = max(1, int(timeout * 1000))
        if ms != self.timeout_ms:
            v = ctypes.c_int(ms)
            self.nn.nn_setsockopt(self.s, self.NN_SOL_SOCKET,
                                  self.NN_RCVTIMEO, ctypes.byref(v), 4)
            self.timeout_ms = ms
        while True:
            n = self.nn.nn_recv(self.s, self.buf, len(self.buf), 0)
            if n < 0:
                return None
            typ, port, ln = self.HDR.unpack_from(self.buf.raw, 0)
            if typ == self.PACKET_OUT:
                return port, self.buf.raw[self.HDR.size:self.HDR.size + ln]

    def close(self):
        self.nn.nn_close(self.s)


class Switch:
    """One simple_switch running json, with ports either on the nanomsg
    socket (ifaces None: self.ports) or on the given {port: ifname}."""

    def __init__(self, json_path, workdir, ifaces=None, log=False,
                 thrift_port=None, pcap_dir=None):
        self.workdir = workdir
        self.thrift_port = thrift_port or free_tcp_port()
        self.ports = None
        self.api = None
        self.proc = None
        sw = find_tool("simple_switch", "SIMPLE_SWITCH")
        ipc = "ipc://" + os.path.join(workdir, "packets.ipc")
        cmd = [sw, "--thrift-port", str(self.thrift_port),
               "--notifications-addr",
               "ipc://" + os.path.join(workdir, "notifications.ipc")]
        if ifaces is None:
            cmd += ["--packet-in", ipc]
        else:
            for port, ifname in sorted(ifaces.items()):
                cmd += ["-i", "%d@%s" % (port, ifname)]
        if log:
            cmd += ["--log-file", os.path.join(workdir, "switch"),
                    "--log-flush"]
        if pcap_dir:
            cmd += ["--pcap", pcap_dir]
        cmd.append(json_path)
        self.log = open(os.path.join(workdir, "simple_switch.out"), "w")
        # the switch ignores SIGTERM and SIGINT: whoever stops a run
        # signals its owner, which reads the counters before it goes
        self.proc = subprocess.Popen(cmd, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=_ignore_stop_signals)
        self._connect(json_path)
        if ifaces is None:
            self.ports = PacketPort(ipc)

    def _connect(self, json_path):
        cli = find_tool("simple_switch_CLI", "SIMPLE_SWITCH_CLI")
        sys.path.insert(0, cli_pythonpath(cli))
        import runtime_CLI
        import sswitch_CLI
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("simple_switch exited (%d): see %s" %
                                   (self.proc.returncode, self.log.name))
            try:
                socket.create_connection(("127.0.0.1", self.thrift_port),
                                         0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("simple_switch thrift port %d not "
                                       "up" % self.thrift_port)
                time.sleep(0.1)
        pre = runtime_CLI.PreType.SimplePreLAG
        services = runtime_CLI.RuntimeAPI.get_thrift_services(pre)
        services.extend(sswitch_CLI.SimpleSwitchAPI.get_thrift_services())
        std, mc, ss = runtime_CLI.thrift_connect("127.0.0.1",
                                                 self.thrift_port, services)
        runtime_CLI.load_json_config(std, json_path)
        self.client = std
        self.api = sswitch_CLI.SimpleSwitchAPI(pre, std, mc, ss)

    def cli(self, line):
        """Run one simple_switch_CLI command; (ok, its output)."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                self.api.onecmd(line)
            except Exception as e:  # thrift or CLI failure: say it
                print("Error: %s" % e)
        text = out.getvalue()
        bad = any(w in text for w in ("Error", "Invalid", "Unknown syntax",
                                      "*** "))
        return not bad, text

    def counter(self, name, index):
        return self.client.bm_counter_read(0, name, index).packets

    def close(self):
        if self.ports:
            self.ports.close()
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
