# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""One rank of test_tor_failover.sh: CALLS allreduces of 1 MiB of int32,
GAP seconds apart (a training step's compute), each result checked
exactly. Rank 0 sends SIGNAL to its rack's rina-tor in the gap after
call KILL_AT (and SIGCONT 2 s later for SIGSTOP), then goes on; with
INTO_MS, from a thread started INTO_MS milliseconds after call KILL_AT,
while the calls go on back to back. pkill's own start takes 0.1 s or
more there, so the signal lands in full flight of a later call, at no
fixed point of it (a 1 MiB call takes 15-35 ms on an idle 2x2). SIGNAL
PIDFILE: rank 0 writes rina-tor's PID to $RX_KILL_PIDFILE after call
KILL_AT, for rx_kill.so (preloaded into rank 0) to kill it at a fixed
point of the next call. SIGNAL RESTART: rina-tor is killed (SIGKILL) and
started again at once, its command line in its namespace, its output on
rank 0's stderr: a ToR back before the agent's probes counted it lost,
holding nothing of the job. Prints
one line per rank: "rank R ok CALLS slowest MS median MS tor STATE" or
the error; with TOR_FAILOVER_TIMES set, every call's time and the
counters too.

Usage: tor_failover.py CALLS GAP KILL_AT SIGNAL [INTO_MS]
"""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np

import rina

N = 1 << 18  # 1 MiB of int32
TOR_STATES = {0: "none", 1: "asking", 2: "on", 3: "off", 4: "lost"}


TOR_PATTERN = "^[^ ]*/rina-tor --job %s/job --rack 0 "


def restart_tor(pid):
    """Kill rina-tor (pid) and start it again as it was started."""
    ns = subprocess.run(["ip", "netns", "identify", pid], check=True,
                        capture_output=True, text=True).stdout.strip()
    with open("/proc/%s/cmdline" % pid, "rb") as f:
        argv = [a.decode() for a in f.read().split(b"\0")[:-1]]
    if not ns or not argv:
        raise RuntimeError("rina-tor %s: no namespace or command" % pid)
    os.kill(int(pid), signal.SIGKILL)
    # its socket and steering go with it; bounded (2 s)
    for _ in range(200):
        if not os.path.exists("/proc/%s" % pid):
            break
        time.sleep(0.01)
    # as rina-run starts it (NS_WRAP); rina-run stops it with the rest
    subprocess.Popen(["ip", "netns", "exec", ns, "sh", "-c",
                      'mount -t bpf bpf /sys/fs/bpf 2>/dev/null; exec "$@"',
                      "sh"] + argv, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL)


def signal_tor(sig):
    """sig to rina-tor of rack 0 (the ToR namespace's, same PID space)."""
    pat = TOR_PATTERN % os.environ["RINA_RUN_DIR"]
    if sig == "RESTART":
        pid = subprocess.run(["pgrep", "-f", pat], check=True,
                             capture_output=True, text=True).stdout.split()
        if len(pid) != 1:
            raise RuntimeError("rina-tor of rack 0: %d processes" % len(pid))
        restart_tor(pid[0])
        return
    if sig == "PIDFILE":
        pid = subprocess.run(["pgrep", "-f", pat], check=True,
                             capture_output=True, text=True).stdout.split()
        if len(pid) != 1:
            raise RuntimeError("rina-tor of rack 0: %d processes" % len(pid))
        with open(os.environ["RX_KILL_PIDFILE"], "w") as f:
            f.write(pid[0] + "\n")
        return
    subprocess.run(["pkill", "-" + sig, "-f", pat], check=True)
    if sig == "STOP":
        time.sleep(2)
        subprocess.run(["pkill", "-CONT", "-f", pat], check=True)


def main():
    calls, gap, kill_at, sig = (int(sys.argv[1]), float(sys.argv[2]),
                                int(sys.argv[3]), sys.argv[4])
    into_ms = float(sys.argv[5]) if len(sys.argv) > 5 else None
    comm = rina.Communicator.from_env()
    rank, size = comm.rank, comm.size
    slowest, times = 0.0, []
    base = np.arange(N, dtype=np.int32) % 1000
    try:
        for i in range(calls):
            x = base + (rank + 1) * (i + 1)
            t = time.monotonic()
            comm.allreduce(x)
            times.append(time.monotonic() - t)
            slowest = max(slowest, times[-1])
            want = base * size + (i + 1) * size * (size + 1) // 2
            if not np.array_equal(x, want):
                bad = int(np.count_nonzero(x != want))
                print("rank %d wrong call %d: %d elements" % (rank, i, bad))
                return 1
            if rank == 0 and i == kill_at:
                if into_ms is None:
                    signal_tor(sig)
                else:
                    threading.Timer(into_ms / 1000, signal_tor,
                                    (sig,)).start()
            time.sleep(gap)
    except rina.RinaError as e:
        print("rank %d error: %s" % (rank, e))
        if os.environ.get("TOR_FAILOVER_TIMES"):
            print_stats(comm, rank)
        return 1
    print("rank %d ok %d slowest %.0f median %.0f tor %s" %
          (rank, calls, slowest * 1000,
           sorted(times)[len(times) // 2] * 1000,
           TOR_STATES.get(comm.stats().get("agent_tor", 0), "?")))
    if os.environ.get("TOR_FAILOVER_TIMES"):
        print("rank %d times %s" % (rank, " ".join("%.0f" % (t * 1000)
                                                   for t in times)))
        print_stats(comm, rank)
    return 0


def print_stats(comm, rank):
    """The rank's nonzero counters on one line."""
    st = comm.stats()
    print("rank %d stats %s" % (rank, " ".join(
        "%s=%d" % (k, v) for k, v in st.items() if v and k not in (
            "size", "pad"))))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
