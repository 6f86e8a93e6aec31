#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The soak (make soak SOAK_S=..., Documentation/soak.md): one emulated 2x4
cluster under rina-run for SECONDS, in phases that alternate a mixed ring
(rack 0 INA, rack 1 plain) and an all-INA ring, ToRs on, links shaped.
Every rank runs build/bin/rina-soak (random sizes, dtypes and ops, every
result checked, communicators re-created) with librina's fault injection
(loss and duplicates on send, loss on receive) and rx_reorder.so
(reordering); beside it this script kills an INA rack's rina-tor and
starts it again, runs an iperf3 TCP flow across the racks, and samples
RSS, fds and threads of every rank. Ends with one summary line and, with
--ktap, KTAP cases. Exit status 1 on a wrong result or an unexplained
failure (or, with --ktap, any failed case), 2 on a setup error.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "build", "bin")
SHIM = os.path.join(TOP, "build", "selftests", "rx_reorder.so")
# the rank program; RINA_SOAK names another build of it (a test build)
DRIVER = os.environ.get("RINA_SOAK", os.path.join(BIN, "rina-soak"))
PHASE_MAX_S = 300       # a phase longer than this is split
FAULT_ENV = {           # librina's fault injection (rina.h), per million
    "RINA_FAULT_DROP_PPM": "8000",      # with rx: ~1% of packets lost
    "RINA_FAULT_RX_DROP_PPM": "2000",
    "RINA_FAULT_DUP_PPM": "5000",
    "RX_REORDER_PPM": "10000",
}
# malloc's per-thread cache off in the ranks: its chunks count as in use,
# and filling it (up to ~200 KiB, seen) would blur the heap figure
MEASURE_ENV = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}
TOR_DOWN_S = 3          # a killed ToR stays dead this long
# the job's timeout: rina-run starts the 8 ranks one after another, and
# on a loaded 2-core machine the last may start more than librina's
# default 10 s after the first (seen: 14 s), which fails the first init
JOB_TIMEOUT_S = 30
# a call that fails within this long after a ToR came back is explained by
# the kill: the job's timeout plus slack
EXPLAIN_S = JOB_TIMEOUT_S + 5
WARMUP_S = 10           # a rank's first seconds are not in the slopes
SAMPLE_S = 1
RSS_GROWTH_KIB = 8192   # bounds of the KTAP cases, Documentation/soak.md
HEAP_BOUND_KIB = 64


def log(msg):
    print("# soak: " + msg, flush=True)


def proc_sample(pid):
    """(rss KiB, threads, fds) of pid, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            st = f.read()
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None
    rss = re.search(r"VmRSS:\s+(\d+)", st)
    thr = re.search(r"Threads:\s+(\d+)", st)
    if not rss or not thr:      # a zombie: exiting, nothing mapped
        return None
    return int(rss.group(1)), int(thr.group(1)), fds


def find_tor(run_dir, rack):
    """PID and argv of the run's rina-tor of rack, by its command line."""
    want = ["--job", run_dir + "/job", "--rack", str(rack)]
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                argv = f.read().decode().split("\0")[:-1]
        except OSError:
            continue
        if argv and argv[0].endswith("/rina-tor") and \
                argv[1:5] == want:
            return int(p), argv
    return None, None


class Segment:
    """One rina-run of the cluster and what was done to it."""

    def __init__(self, args, out, ina, end, seed):
        self.args, self.out, self.ina = args, out, ina
        self.end, self.seed = end, seed
        self.seconds = end - time.time()
        self.kills = []         # (t_kill, t_restart)
        self.tcp = []           # iperf3 exit statuses
        self.samples = {}       # rank -> [(t, rss, threads, fds)]
        self.done = threading.Event()
        os.makedirs(out, exist_ok=True)

    def cmd(self):
        wrap = ('echo $$ >"$SOAK_DIR/pid.$RINA_RANK"; '
                '[ "$RINA_RANK" = 0 ] && '
                'echo "$RINA_RUN_DIR $RINA_NETNS" >"$SOAK_DIR/run"; '
                'exec "$@"')
        env = ["env", "SOAK_DIR=" + self.out] + \
            ["%s=%s" % kv for kv in MEASURE_ENV.items()]
        if not self.args.no_faults:
            env += ["LD_PRELOAD=" + SHIM] + \
                ["%s=%s" % kv for kv in FAULT_ENV.items()]
        return [os.path.join(BIN, "rina-run"), "--topo", "2x4",
                "--ina", self.ina, "--tor", "on",
                "--rate", self.args.rate, "--queue", "20ms",
                "--job-opt", "timeout_ms %d" % (JOB_TIMEOUT_S * 1000),
                "--timeout", str(int(self.seconds) + 2 * JOB_TIMEOUT_S + 30),
                "--"] + env + \
            ["sh", "-c", wrap, "sh", DRIVER,
             "@%.1f" % self.end, str(self.seed),
             str(self.args.max_bytes)]

    def run(self):
        t0 = time.time()
        with open(self.out + "/stdout", "w") as o, \
                open(self.out + "/stderr", "w") as e:
            p = subprocess.Popen(self.cmd(), stdout=o, stderr=e,
                                 stdin=subprocess.DEVNULL)
            th = [threading.Thread(target=f, args=(t0,), daemon=True)
                  for f in (self.sampler, self.faults)]
            for t in th:
                t.start()
            try:
                # rina-run's own --timeout bounds the ranks; this, rina-run
                self.rc = p.wait(self.seconds + 2 * JOB_TIMEOUT_S + 60)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
                try:
                    self.rc = p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    self.rc = p.wait()
            self.done.set()
            for t in th:
                t.join(30)
        self.t0, self.t1 = t0, time.time()
        with open(self.out + "/samples.json", "w") as f:
            json.dump({"columns": ["t", "rss_kib", "threads", "fds"],
                       "ranks": self.samples}, f)
        self.parse()

    def pids(self):
        pids = {}
        for r in range(8):
            try:
                with open("%s/pid.%d" % (self.out, r)) as f:
                    pids[r] = int(f.read())
            except (OSError, ValueError):
                pass
        return pids

    def sampler(self, t0):
        while not self.done.wait(SAMPLE_S):
            for r, pid in self.pids().items():
                s = proc_sample(pid)
                if s:
                    self.samples.setdefault(r, []).append(
                        (time.time() - t0,) + s)

    def wait_run(self):
        while not self.done.wait(0.5):
            try:
                with open(self.out + "/run") as f:
                    run_dir, netns = f.read().split()
                return run_dir, netns.rsplit("-h", 1)[0]
            except (OSError, ValueError):
                pass
        return None, None

    def faults(self, t0):
        """ToR kills and restarts, one TCP flow, on a schedule."""
        run_dir, prefix = self.wait_run()
        if not run_dir:
            return
        racks = [0] if self.ina == "0" else [0, 1]
        # from the ranks' start, in their time
        t_run = time.time()
        span = max(self.end - t_run, 10)
        tcp_at = t_run + span * 0.1
        tcp_len = max(5, int(span * 0.4))
        kill_at = [t_run + span * f for f in (0.33, 0.66)]
        flow = None
        while not self.done.wait(0.5):
            now = time.time()
            if tcp_at is not None and now >= tcp_at:
                tcp_at = None
                flow = threading.Thread(target=self.tcp_flow, daemon=True,
                                        args=(prefix, tcp_len))
                flow.start()
            if kill_at and now >= kill_at[0] and not self.args.no_faults:
                kill_at.pop(0)
                self.kill_tor(run_dir, prefix,
                              racks[len(self.kills) % len(racks)])
        if flow:
            flow.join(10)

    def kill_tor(self, run_dir, prefix, rack):
        pid, argv = find_tor(run_dir, rack)
        if not pid:
            log("no rina-tor of rack %d to kill" % rack)
            return
        os.kill(pid, signal.SIGKILL)
        t_kill = time.time()
        if self.done.wait(TOR_DOWN_S):
            return
        with open("%s/tor-restart.%d" % (self.out, rack), "a") as o:
            subprocess.Popen(
                ["ip", "netns", "exec", "%s-tor%d" % (prefix, rack),
                 "sh", "-c", 'mount -t bpf bpf /sys/fs/bpf 2>/dev/null; '
                 'exec "$@"', "sh"] + argv,
                stdout=o, stderr=o, stdin=subprocess.DEVNULL)
        self.kills.append((t_kill, time.time()))

    def tcp_flow(self, prefix, secs):
        """iperf3 from h0-0 to h1-3: rank 0's uplink and rank 7's link."""
        ns = prefix + "-h1-3"
        srv = subprocess.Popen(["ip", "netns", "exec", ns, "iperf3", "-s",
                                "-1"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(1)
        with open(self.out + "/iperf3.json", "w") as o:
            c = subprocess.run(["ip", "netns", "exec", prefix + "-h0-0",
                                "iperf3", "-c", "198.18.1.4", "-t",
                                str(secs), "-J"], stdout=o,
                               stderr=subprocess.STDOUT, timeout=secs + 30)
        self.tcp.append(c.returncode)
        try:
            srv.wait(5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()

    def parse(self):
        """The ranks' totals, failures and reorder counts."""
        self.ranks, self.fails, self.wrong_lines = {}, [], []
        self.swapped = 0
        with open(self.out + "/stdout") as f:
            for line in f:
                m = re.match(r"\[rank \d+\] soak-rank (\d+) (.*) end (\S+)",
                             line)
                if m:
                    kv = m.group(2).split()
                    d = {kv[i]: int(kv[i + 1]) for i in range(0, len(kv), 2)}
                    d["end"] = m.group(3)
                    self.ranks[int(m.group(1))] = d
                m = re.match(r"\[rank \d+\] soak-fail rank (\d+) call (\d+) "
                             r"at ([\d.]+) (.*)", line)
                if m:
                    self.fails.append((float(m.group(3)), int(m.group(1)),
                                       m.group(4).strip()))
                if "soak-wrong" in line:
                    self.wrong_lines.append(line.strip())
        with open(self.out + "/stderr") as f:
            for line in f:
                m = re.search(r"rx_reorder: pid \d+ swapped (\d+)", line)
                if m:
                    self.swapped += int(m.group(1))

    def failure(self):
        """None, or (explained, text) for this segment's first failure."""
        if self.rc == 0 or (self.rc == 1 and self.ranks and all(
                d["end"] == "ok" for d in self.ranks.values()) and
                len(self.ranks) == 8):
            return None
        if not self.fails:
            return False, "rina-run exited %d, no rank said why" % self.rc
        t, rank, what = min(self.fails)
        for k, r in self.kills:
            if k <= t <= r + EXPLAIN_S:
                return True, "rank %d %s, %.1f s after a ToR kill" % (
                    rank, what, t - k)
        return False, "rank %d %s" % (rank, what)


def median(xs):
    return sorted(xs)[len(xs) // 2]


def slope_kib_min(pts):
    """Least-squares slope of (t s, rss KiB) in KiB/min."""
    n = len(pts)
    if n < 3:
        return 0.0
    mt = sum(p[0] for p in pts) / n
    mr = sum(p[1] for p in pts) / n
    var = sum((p[0] - mt) ** 2 for p in pts)
    if not var:
        return 0.0
    return 60 * sum((p[0] - mt) * (p[1] - mr) for p in pts) / var


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--max-bytes", type=int, default=256 << 10)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "soak"))
    ap.add_argument("--ktap", action="store_true")
    ap.add_argument("--no-faults", action="store_true",
                    help="no packet faults, no ToR kill: a baseline")
    a = ap.parse_args()
    if a.seconds < 20:
        sys.exit("soak: --seconds %g: at least 20" % a.seconds)
    for f in (BIN + "/rina-run", DRIVER, BIN + "/rina-tor"):
        if not os.access(f, os.X_OK):
            sys.exit("soak: %s missing (make)" % f)
    if not os.access(SHIM, os.R_OK):
        sys.exit("soak: %s missing (make)" % SHIM)
    if os.geteuid():
        sys.exit("soak: needs root (rina-run's namespaces)")
    have_iperf = subprocess.run(["sh", "-c", "command -v iperf3"],
                                capture_output=True).returncode == 0
    if not have_iperf:
        log("no iperf3: no TCP flow (install-deps.sh installs it)")

    nphase = max(2, -(-int(a.seconds) // PHASE_MAX_S))
    nphase += nphase % 2
    t_start = time.time()
    end = t_start + a.seconds
    segs = []
    log("%.0f s, %d phases, seed %d, rate %s, out %s" %
        (a.seconds, nphase, a.seed, a.rate, a.out))
    for i in range(nphase):
        ina = "0" if i % 2 == 0 else "all"
        phase_end = t_start + a.seconds * (i + 1) / nphase
        # a phase whose ranks failed goes on in a new segment while
        # there is time for rina-run's setup (10-20 s on a busy machine)
        left = 10
        while phase_end - time.time() >= left:
            left = 30
            s = Segment(a, "%s/seg%d" % (a.out, len(segs)),
                        ina, phase_end, a.seed + len(segs))
            if not have_iperf:
                s.tcp_flow = lambda *x: None
            log("segment %d: --ina %s, %.0f s" % (len(segs), ina,
                                                   s.seconds))
            s.run()
            segs.append(s)
            f = s.failure()
            log("segment %d: rina-run %d, %d ranks reported%s" %
                (len(segs) - 1, s.rc, len(s.ranks),
                 "" if not f else ", failure: " + f[1]))
            if not f or time.time() > end:
                break

    calls = sum(max((d["calls"] for d in s.ranks.values()), default=0)
                for s in segs)
    wrong = sum(d["wrong_calls"] for s in segs for d in s.ranks.values())
    kinds = {
        "loss": sum(d["fault_dropped"] + d["fault_rx_dropped"]
                    for s in segs for d in s.ranks.values()),
        "dup": sum(d["fault_duplicated"] for s in segs
                   for d in s.ranks.values()),
        "reorder": sum(s.swapped for s in segs),
        "tor_kill": sum(len(s.kills) for s in segs),
        "recreate": sum(max((d["recreates"] for d in s.ranks.values()),
                            default=0) for s in segs),
        "tcp_flow": sum(1 for s in segs for rc in s.tcp if rc == 0),
    }
    fails = [(s, s.failure()) for s in segs]
    fails = [(s, f) for s, f in fails if f]
    unexplained = [f for _, f in fails if not f[0]]
    slopes, growth, fds, thr, flat = [], [], [], [], True
    for s in segs:
        for r, pts in s.samples.items():
            fds += [p[3] for p in pts]
            thr += [p[2] for p in pts]
            pts = [p for p in pts if p[0] >= pts[0][0] + WARMUP_S]
            if len(pts) < 6:
                continue
            slopes.append(slope_kib_min([(p[0], p[1]) for p in pts]))
            third = len(pts) // 3
            growth.append(max(p[1] for p in pts[-third:]) -
                          max(p[1] for p in pts[:third]))
            # medians: a sample in the middle of an init (job and secret
            # files open, 2 fds more) is no growth; a leak moves them
            for k in (3, 2):
                if median([p[k] for p in pts[-third:]]) > \
                        median([p[k] for p in pts[:third]]):
                    flat = False
                    log("segment %s rank %s: %s grew: %s" % (
                        s.out, r, "fds" if k == 3 else "threads",
                        [p[k] for p in pts]))
    # ranks that re-created their communicator: two samples at least
    heap = [(d["heap_max"] - d["heap_first"]) / 1024 for s in segs
            for d in s.ranks.values() if d.get("recreates")]
    heap_kib = max(heap) if heap else float("nan")
    slope = max(slopes) if slopes else float("nan")
    rss_growth = max(growth) if growth else float("nan")
    med = sorted(slopes)[len(slopes) // 2] if slopes else float("nan")
    for s, f in fails:
        log("failure in %s: %s (%s)" % (s.out, f[1], "explained: a ToR "
            "kill" if f[0] else "UNEXPLAINED"))
    for s in segs:
        for w in s.wrong_lines[:5]:
            log(w)
    log("faults: " + ", ".join("%s %d" % kv for kv in kinds.items()))
    log("rss slope per rank and segment: median %.0f, max %.0f KiB/min "
        "over %d series; largest peak growth, first to last third: "
        "%.0f KiB" % (med, slope, len(slopes), rss_growth))
    summary = {"seconds": round(time.time() - t_start, 1),
               "segments": len(segs), "calls": calls,
               "faults": sum(kinds.values()), "fault_kinds": kinds,
               "wrong": wrong, "failures": len(fails),
               "unexplained": len(unexplained),
               "rss_slope_kib_min": round(slope, 1),
               "rss_slope_median_kib_min": round(med, 1),
               "rss_growth_kib": rss_growth,
               "heap_growth_kib": round(heap_kib, 1),
               "fds": [min(fds, default=0), max(fds, default=0)],
               "threads": [min(thr, default=0), max(thr, default=0)],
               "flat": flat}
    with open(a.out + "/summary.json", "w") as f:
        json.dump(summary, f)
    print("%ssoak: %d calls, %d faults injected, %d wrong, %d failures "
          "(%d unexplained), rss slope %.0f KiB/min, heap +%.0f KiB, "
          "fds %d..%d, threads %d..%d" % (
              "# " if a.ktap else "", calls, summary["faults"], wrong,
              len(fails), len(unexplained), slope, heap_kib,
              *summary["fds"], *summary["threads"]), flush=True)
    bad = wrong > 0 or len(unexplained) > 0
    if not a.ktap:
        return 1 if bad else 0
    cases = [
        ("no_wrong_result", wrong == 0 and calls > 0),
        ("every_fault_kind_injected",
         all(v > 0 for v in kinds.values())),
        ("no_unexplained_failure", not unexplained),
        ("fds_threads_flat", flat and bool(slopes)),
        ("rss_growth_under_%d_kib" % RSS_GROWTH_KIB,
         bool(growth) and rss_growth <= RSS_GROWTH_KIB),
        ("heap_after_destroy_within_%d_kib" % HEAP_BOUND_KIB,
         bool(heap) and heap_kib <= HEAP_BOUND_KIB),
    ]
    print("TAP version 13\n1..%d" % len(cases))
    for i, (name, ok) in enumerate(cases, 1):
        print("%sok %d %s" % ("" if ok else "not ", i, name))
    npass = sum(1 for _, ok in cases if ok)
    print("# Totals: pass:%d fail:%d skip:0" % (npass, len(cases) - npass))
    return 0 if all(ok for _, ok in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
