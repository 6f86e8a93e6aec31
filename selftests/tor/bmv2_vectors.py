#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Packet vectors on the compiled P4 program: every *.vec file given runs
on its own simple_switch (build/p4/rina_tor.json), checked as tor_vectors
checks the C model: cli lines through the runtime CLI, every in frame to
its port, every frame the switch emits compared byte for byte with the
out lines of that input, every counter line read back. KTAP, one test per
file. Format: selftests/tor/README.md.

bmv2's egress runs one thread per group of ports, so the frames of one
input are compared in order per port and as a multiset across ports.
Before a counter or cli line the runner waits until the ingress has
taken every frame sent (each frame counts exactly one tor_ctr verdict:
their sum is the number of frames through the ingress) and collects any
late frame, so a frame the switch emits and the file does not list is a
failure wherever it arrives.

Usage: bmv2_vectors.py [--json FILE] [--keep DIR] [--log] FILE.vec...
       bmv2_vectors.py --missing   (what is missing to run; exit 1 if so)
Exit 0 on success, 4 when the tools or the JSON are absent (SKIP).
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "p4", "bmv2"))
import rina_bmv2  # noqa: E402

TOR_CTR = "RinaIngress.counters.tor_ctr"
TS_L2_FLOOD, TS_MAX = 10, 13	# p4/configuration.p4
OUT_TIMEOUT = 5.0		# s for one expected frame (bmv2 is slow)
DRAIN = 0.05			# s of silence taken as "no late frame"
SETTLE = 2.0			# s an egress counter may take to settle


class VecRun:
    def __init__(self, sw, name):
        self.sw = sw
        self.name = name
        self.sent = 0
        self.nout = 0
        self.bad = 0
        self.last_in = 0
        self.dirty = False	# frames sent since the last barrier

    def fail(self, lineno, msg):
        print("# %s:%d: %s" % (self.name, lineno, msg))
        self.bad = 1

    def ingress_done(self, lineno):
        """Wait until the ingress has processed every frame sent."""
        deadline = time.monotonic() + OUT_TIMEOUT
        while True:
            n = sum(self.sw.counter(TOR_CTR, i) for i in range(TS_MAX)
                    if i != TS_L2_FLOOD)
            if n == self.sent:
                return
            if n > self.sent or time.monotonic() > deadline:
                self.fail(lineno, "ingress counted %d verdicts for %d "
                          "frames sent" % (n, self.sent))
                return
            time.sleep(0.01)

    def late(self, lineno):
        """Frames still arriving for the last input: each one is extra."""
        while True:
            got = self.sw.ports.recv(DRAIN)
            if not got:
                return
            self.nout += 1
            self.fail(self.last_in, "extra frame")
            dump("extra", got)

    def barrier(self, lineno):
        if not self.dirty:
            return
        self.ingress_done(lineno)
        self.late(lineno)
        self.dirty = False

    def check_outputs(self, lineno, exp):
        got = []
        for _ in exp:
            pkt = self.sw.ports.recv(OUT_TIMEOUT)
            if not pkt:
                break
            got.append(pkt)
        self.nout += len(got)
        ok = len(got) == len(exp) and sorted(got) == sorted(exp)
        for port in {p for p, _ in exp + got}:
            if [f for p, f in got if p == port] != \
               [f for p, f in exp if p == port]:
                ok = False
        if ok:
            return
        self.fail(lineno, "%d frames out, expected %d%s" %
                  (len(got), len(exp), ", not the same" if
                   len(got) == len(exp) else ""))
        for pkt in got:
            dump("got ", pkt)
        for pkt in exp:
            dump("want", pkt)

    def counter(self, lineno, name, idx, want):
        self.barrier(lineno)
        deadline = time.monotonic() + SETTLE
        while True:
            got = self.sw.counter(name, idx)
            # an egress replica dropped by the program leaves no frame
            # to wait for: its count may trail the ingress barrier
            if got == want or got > want or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if got != want:
            self.fail(lineno, "%s[%d] = %d, expected %d" %
                      (name, idx, got, want))


def dump(what, pkt):
    print("#   %s port %u len %u: %s" % (what, pkt[0], len(pkt[1]),
                                         pkt[1].hex()))


def run_file(path, json_path, keep, log):
    name = os.path.basename(path)
    work = tempfile.mkdtemp(prefix="rina-bmv2-")
    sw = None
    try:
        sw = rina_bmv2.Switch(json_path, work, log=log)
        run = VecRun(sw, name)
        run_lines(run, path)
        return run
    finally:
        if sw:
            sw.close()
        if keep:
            dst = os.path.join(keep, name)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(work, dst, ignore=shutil.ignore_patterns(
                "*.ipc"))
        shutil.rmtree(work, ignore_errors=True)


def run_lines(run, path):
    pending = None		# (line of the in, [expected frames])
    ports = set()
    with open(path) as f:
        lines = list(enumerate(f, 1))
    for lineno, line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, arg = line.partition(" ")
        if word != "out" and pending:
            run.check_outputs(*pending)
            pending = None
        if word == "cli":
            run.barrier(lineno)
            ok, text = run.sw.cli(arg)
            if not ok:
                run.fail(lineno, "cli: %s: %s" % (arg, text.strip()))
        elif word == "in":
            port, _, hexs = arg.partition(" ")
            frame = bytes.fromhex("".join(hexs.split()))
            port = int(port)
            if port not in ports:
                run.sw.ports.add_port(port)
                ports.add(port)
            run.sw.ports.send(port, frame)
            run.sent += 1
            run.dirty = True
            run.last_in = lineno
            pending = (lineno, [])
        elif word == "out":
            port, _, hexs = arg.partition(" ")
            if not pending:
                run.fail(lineno, "out line without an in line")
                continue
            pending[1].append((int(port),
                               bytes.fromhex("".join(hexs.split()))))
        elif word == "counter":
            fields = arg.split()
            run.counter(lineno, fields[0], int(fields[1]), int(fields[2]))
        else:
            run.fail(lineno, "unknown directive '%s'" % word)
    if pending:
        run.check_outputs(*pending)
    run.barrier(lineno)


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=os.path.join(top, "build", "p4",
                                                   "rina_tor.json"))
    ap.add_argument("--keep", help="copy each switch's directory here")
    ap.add_argument("--log", action="store_true",
                    help="simple_switch --log-file (table hits, actions)")
    ap.add_argument("--missing", action="store_true",
                    help="print what is missing to run, exit 1 if any")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    why = rina_bmv2.missing_tools()
    if not why and not os.path.exists(args.json):
        why = "%s not built (no P4 compiler: p4c-bm2-ss)" % \
            os.path.relpath(args.json)
    if args.missing:
        if why:
            print(why)
        return 1 if why else 0
    print("TAP version 13")
    print("1..%d" % len(args.files))
    if why:
        for i, path in enumerate(args.files, 1):
            print("ok %d %s # SKIP %s" % (i, os.path.basename(path), why))
        return 4
    failed = 0
    t0 = time.monotonic()
    frames = 0
    for i, path in enumerate(args.files, 1):
        t = time.monotonic()
        run = run_file(path, args.json, args.keep, args.log)
        frames += run.sent + run.nout
        print("%sok %d %s # %d frames in, %d out, %.1f s" %
              ("not " if run.bad else "", i, os.path.basename(path),
               run.sent, run.nout, time.monotonic() - t))
        failed |= run.bad
    print("# %d frames through bmv2 in %.1f s" %
          (frames, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
