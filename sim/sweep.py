#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""make sim: the sweeps of Documentation/evaluation.md with rina-sim.

Runs build/bin/rina-sim (two at a time unless --jobs), keeps every JSON
result in OUT/runs.jsonl (a run already there is not repeated), checks the
byte counts and completion times against RESEARCH.md sections 4.1 and 4.2,
writes OUT/validation.md, and draws the PNG figures into OUT/.

  sweep.py OUT [--quick] [--jobs N] [--latency]
    --quick: the small topologies only
    --latency: only the latency-bound time check (OUT/latency.md)
    --line-rate: only issue 45's table, every rack INA at 100 Gbit/s
                 against its link bound, RAR and ATP (OUT/line-rate.md)
    --jobs N: N simulations at a time (1 on a machine shared with
              benchmarks; simulated results do not depend on it)
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIM = os.environ.get("RINA_SIM", os.path.join(TOP, "build/bin/rina-sim"))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build/sim")
QUICK = "--quick" in sys.argv
JOBS = 2
if "--jobs" in sys.argv:
    JOBS = max(1, int(sys.argv[sys.argv.index("--jobs") + 1]))
MiB = 1 << 20
os.makedirs(OUT, exist_ok=True)
DB = os.path.join(OUT, "runs.jsonl")
cache = {}
if os.path.exists(DB):
    with open(DB) as f:
        for line in f:
            try:
                d = json.loads(line)
                cache[d["_key"]] = d
            except (ValueError, KeyError):
                pass


def key(args):
    return " ".join(args)


def run(args):
    k = key(args)
    if k in cache:
        return cache[k]
    p = subprocess.run([SIM] + args + ["--json"], capture_output=True,
                       text=True)
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        sys.stderr.write("rina-sim %s failed: %s\n" % (k, p.stderr))
        return None
    if d.get("time_us") is None:
        sys.stderr.write("rina-sim %s did not finish: %d of %d ranks\n"
                         % (k, d.get("done", 0), d.get("ranks", 0)))
        return None
    d["_key"] = k
    d["_rc"] = p.returncode
    cache[k] = d
    with open(DB, "a") as f:
        f.write(json.dumps(d) + "\n")
    print("  %-70s %10.1f us %7.2f GB/s %6.1f s" %
          (k[:70], d["time_us"], d["algbw_GBps"], d["wall_s"]), flush=True)
    return d


def runs(arglist):
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        return list(ex.map(run, arglist))


def sim_args(scheme, k, m, size, rate="100gbit", uplink=None, ina="all",
             delay=1, extra=()):
    a = ["--topo", "%dx%d" % (k, m), "--scheme", scheme, "--size",
         str(size), "--link-rate", rate, "--delay", str(delay)]
    if uplink:
        a += ["--uplink-rate", uplink]
    if scheme in ("rina", "atp"):
        a += ["--ina", ina]
    if k * m * size > 256 * MiB:
        a += ["--no-verify"]
    # deep (shared-buffer-like) queues: see evaluation.md on 1000 packets
    if "--queue" not in extra:
        a += ["--queue", "10000"]
    return a + list(extra)


def ina_list(x, k):
    if x == 0:
        return "none"
    if x == k:
        return "all"
    return ",".join(str(i) for i in range(x))


def gbit(r):
    return int(r.replace("gbit", "")) * 10**9


# ---- validation against RESEARCH.md 4.1 (bytes) and 4.2 (time) ----------

def expect_bytes(d):
    """Per-worker payload TX/RX and per-uplink payload, RESEARCH 4.1."""
    k, m, x, S = d["k"], d["m"], d["x"], d["size"]
    N = k * m
    L = x + m * (k - x)
    s = d["scheme"]
    if s == "rar":
        w = 2 * (N - 1) / N * S
        return w, w, 2 * (N - 1) / N * S
    if s == "rina":
        return None, None, 2 * (L - 1) / L * S
    if s == "har":
        w = 2 * (m - 1) / m * S + 2 * (k - 1) / (k * m) * S
        return w, w, 2 * (k - 1) / k * S
    if s in ("ps", "atp", "switchml"):
        return S, S, None
    return None, None, None


def check_bytes(d):
    rows = []
    etx, erx, eup = expect_bytes(d)
    k, m, x, S = d["k"], d["m"], d["x"], d["size"]
    L = x + m * (k - x)
    rt = d["retx_payload"]
    tx = [a - b for a, b in zip(d["worker_tx_by_rank"],
                                rt["worker_tx_by_rank"])]
    rx = [a - b for a, b in zip(d["worker_rx_by_rank"],
                                rt["worker_rx_by_rank"])]
    if d["scheme"] == "rina":
        ina = [r < x for r in range(k)] if d["ina"] != "all" else \
            [True] * k
        if d["ina"] not in ("all", "none"):
            ids = [int(i) for i in d["ina"].split(",")]
            ina = [r in ids for r in range(k)]
        for rank in range(k * m):
            r = rank // m
            e = S if ina[r] else 2 * (L - 1) / L * S
            rows.append(("rank %d tx" % rank, tx[rank], e))
            rows.append(("rank %d rx" % rank, rx[rank], e))
    else:
        for rank in range(k * m):
            if etx is not None:
                rows.append(("rank %d tx" % rank, tx[rank], etx))
                rows.append(("rank %d rx" % rank, rx[rank], erx))
    if eup is not None and k > 1:
        for r in range(k):
            rows.append(("uplink %d tx" % r, d["uplink_tx_by_rack"][r] -
                         rt["uplink_tx_by_rack"][r], eup))
            rows.append(("uplink %d rx" % r, d["uplink_rx_by_rack"][r] -
                         rt["uplink_rx_by_rack"][r], eup))
    worst = max((abs(v - e) / e for _, v, e in rows if e), default=0)
    return rows, worst


def model_time(d, alpha_us=0.0):
    """RESEARCH 4.2, in microseconds, payload bytes scaled by the
    frame overhead (70 B of headers + 2 B PPP per packet of 4E)."""
    k, m, x, S = d["k"], d["m"], d["x"], d["size"]
    N = k * m
    B = gbit(d["link_rate"]) / 8 / 1e6   # bytes per us
    U = gbit(d["uplink_rate"]) / 8 / 1e6
    h = 72.0 / (4 * d["elems"])
    S = S * (1 + h)
    L = x + m * (k - x)
    s = d["scheme"]
    if s == "rar":
        return 2 * (N - 1) * (alpha_us + S / (N * B))
    if s == "rina":
        Bp = min(B, U)
        return 2 * (L - 1) * (alpha_us + S / (L * Bp)) if L > 1 else S / B
    if s == "har":
        return 2 * (m - 1) * (alpha_us + S / (m * B)) + \
            2 * (k - 1) * (alpha_us + S / (k * min(U, m * B)))
    if s in ("ps", "atp"):
        streams = (x if s == "atp" else 0) + m * (k - (x if s == "atp"
                                                      else 0))
        return streams * S / (d["ps"] * B) + 2 * alpha_us
    return None


def validation():
    out = ["# rina-sim validation (generated by sim/sweep.py)", ""]
    out += ["## Bytes against RESEARCH.md 4.1 (payload of first transmissions, 4 MiB, 10gbit)", "",
            "| run | checks | worst deviation |", "|---|---|---|"]
    cases = [("rar", 2, 4, "none"), ("rina", 2, 4, "all"),
             ("rina", 2, 4, "0"), ("rina", 4, 4, "0"),
             ("rina", 4, 4, "0,1"), ("rina", 4, 4, "all"),
             ("rina", 3, 2, "0,1"), ("har", 2, 4, "none"),
             ("har", 4, 4, "none"), ("ps", 2, 4, "none"),
             ("atp", 2, 4, "0"), ("atp", 4, 4, "all"),
             ("switchml", 1, 4, "all")]
    res = runs([sim_args(s, k, m, 4 * MiB, rate="10gbit", ina=i)
                for s, k, m, i in cases])
    worst_all = 0
    for (s, k, m, i), d in zip(cases, res):
        if not d:
            continue
        rows, worst = check_bytes(d)
        worst_all = max(worst_all, worst)
        out.append("| %s %dx%d ina %s | %d | %.3f%% |" %
                   (s, k, m, i, len(rows), 100 * worst))
    out += ["", "Worst deviation over all checks: %.3f%% (target 2%%)." %
            (100 * worst_all), ""]
    # time: bandwidth-bound (large tensor, 1 us links), then latency-bound
    out += ["## Completion time against RESEARCH.md 4.2", "",
            "Bandwidth-bound: 4 MiB at 10gbit, delay 1 us, U = B "
            "(alpha = 0).", "",
            "| run | sim (us) | model (us) | sim/model |", "|---|---|---|---|"]
    tcases = []
    for k, m in ((2, 4), (4, 2), (4, 4)):
        tcases.append(("rar", k, m, "none"))
        tcases.append(("har", k, m, "none"))
        for x in range(0, k + 1):
            tcases.append(("rina", k, m, ina_list(x, k)))
    res = runs([sim_args(s, k, m, 4 * MiB, rate="10gbit", ina=i,
                         extra=("--no-verify",))
                for s, k, m, i in tcases])
    # the 20% target is RAR's and Rina's (RESEARCH.md 4.2); H-AR is
    # listed for comparison
    worst = 0
    for (s, k, m, i), d in zip(tcases, res):
        if not d:
            continue
        mt = model_time(d)
        r = d["time_us"] / mt
        if s in ("rar", "rina"):
            worst = max(worst, abs(r - 1))
        out.append("| %s %dx%d ina %s (L=%d) | %.0f | %.0f | %.3f |" %
                   (s, k, m, i, d["x"] + m * (k - d["x"]), d["time_us"], mt,
                    r))
    out += ["", "Worst |sim/model - 1|, bandwidth-bound, RAR and Rina: "
            "%.1f%% (target 20%%)." % (100 * worst), ""]
    out += latency_validation()
    with open(os.path.join(OUT, "validation.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


def latency_validation():
    """The latency-bound half of the RESEARCH 4.2 check: 64 KiB, 50 us
    links. Each run twice: with the initial congestion window at the job
    window W (--cc-init W), the model's regime (a window that never
    limits; W is below the bandwidth-delay product here, about 460
    packets of E = 256 in a cross-rack round trip of 8 links), which is
    the check; and with librina's default cc_init of 16, the cold start
    of a communicator's first call, shown beside it (evaluation.md 1)."""
    W = 256
    lat = []
    for k, m in ((2, 4), (4, 4)):
        lat.append(("rar", k, m, "none"))
        for x in range(0, k + 1):
            lat.append(("rina", k, m, ina_list(x, k)))
    args = []
    for s, k, m, i in lat:
        a = sim_args(s, k, m, 64 * 1024, rate="10gbit", ina=i, delay=50)
        args += [a + ["--cc-init", str(W)], a]
    res = runs(args)
    out = ["Latency-bound: 64 KiB at 10gbit, delay 50 us, alpha = the mean "
           "latency of a ring edge on the simulated topology (see "
           "step_alpha); sim = the initial congestion window at W = %d "
           "(--cc-init %d, the model's regime); cold = librina's default "
           "initial window of 16 packets." % (W, W), "",
           "| latency-bound run | alpha (us) | sim (us) | model (us) | "
           "sim/model | cold (us) | cold/model |",
           "|---|---|---|---|---|---|---|"]
    worst = worst_cold = 0
    for n, (s, k, m, i) in enumerate(lat):
        d, c = res[2 * n], res[2 * n + 1]
        if not d:
            continue
        a = step_alpha(d)
        mt = model_time(d, a)
        r = d["time_us"] / mt
        worst = max(worst, abs(r - 1))
        rc = c["time_us"] / mt if c else float("nan")
        if c:
            worst_cold = max(worst_cold, abs(rc - 1))
        out.append("| %s %dx%d ina %s (L=%d) | %.0f | %.0f | %.0f | %.3f | "
                   "%s | %.3f |" % (s, k, m, i, d["x"] + m * (k - d["x"]),
                                    a, d["time_us"], mt, r,
                                    "%.0f" % c["time_us"] if c else "-",
                                    rc))
    out += ["", "Worst |sim/model - 1|, latency-bound, initial window W: "
            "%.1f%% (target 20%%); cold (initial window 16): %.1f%%." %
            (100 * worst, 100 * worst_cold), ""]
    return out


def ina_racks(d):
    """Which racks of a run have an INA ToR (a list of k booleans)."""
    k, ina = d["k"], d["ina"]
    if d["scheme"] not in ("rina", "atp", "switchml") or ina == "none":
        return [False] * k
    if ina == "all":
        return [True] * k
    ids = [int(i) for i in ina.split(",")]
    return [r in ids for r in range(k)]


def step_alpha(d):
    """alpha of a ring step: the mean latency of one ring edge on the
    simulated topology, in links of delay d with store-and-forward of one
    packet each, plus the links an INA rack adds outside the ring's
    edges, spread over the 2(L-1) steps.

    Host to host: 2 links in a rack, 4 across racks. An INA member's ring
    address is taken by its ToR (it aggregates the upstream partial with
    its workers' contributions and sends the result on), so an edge into
    or out of an INA member ends or starts at the ToR: INA to INA is
    ToR, spine, ToR (2 links), INA to or from an autonomous member 3.
    Not on any edge but on the critical path: the INA workers'
    contributions up to their ToR (1 link) before its first partial, and
    the result down from it (1 link) after the last: two links per
    allreduce when the ring has an INA member (--trace shows each: 2x4
    all-INA, 64 KiB, 50 us links, the first partial reaches the other
    ToR 2 links after the contributions reached the first, 1 link after
    the start)."""
    k, m = d["k"], d["m"]
    dl = d["delay_us"]
    B = gbit(d["link_rate"])
    ser = (72 + 4 * d["elems"]) * 8 / B * 1e6
    ina = ina_racks(d) if d["scheme"] == "rina" else [False] * k
    # the ring: rack-contiguous, one member per INA rack, m per other rack
    mem = []
    for r in range(k):
        mem += [(r, True)] if ina[r] else [(r, False)] * m
    L = len(mem)
    links = 0
    for i in range(L):
        (ra, ia), (rb, ib) = mem[i], mem[(i + 1) % L]
        if ia and ib:
            links += 2
        elif ia or ib:
            links += 3
        else:
            links += 2 if ra == rb else 4
    per_step = links / L
    if any(ina) and L > 1:
        per_step += 2 / (2 * (L - 1))
    return per_step * (dl + ser)


# ---- the paper's comparisons -------------------------------------------------

def sweep_x(k, m, size, ratio):
    """algbw vs x for Rina and ATP; ratio = B*m/U (oversubscription)."""
    B = 100
    U = "%dgbit" % (B * m // ratio)
    xs = sorted(set([0, 1, k // 4, k // 2, 3 * k // 4, k])) if k <= 8 \
        else [0, k // 2, k]
    a = []
    for x in xs:
        a.append(sim_args("rina", k, m, size, uplink=U, ina=ina_list(x, k)))
        a.append(sim_args("atp", k, m, size, uplink=U, ina=ina_list(x, k)))
    a.append(sim_args("atp", k, m, size, uplink=U, ina="all",
                      extra=("--two-level",)))
    res = runs(a)
    # interleaved rina, atp per x; the two-level ATP run last
    return xs, res[0:-1:2], res[1:-1:2], res[-1]


def plot_all():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    topos = [(8, 8, 4 * MiB)] if QUICK else [(8, 8, 4 * MiB),
                                             (16, 16, 1 * MiB)]
    table = []
    two = []
    fig, axes = plt.subplots(len(topos), 2,
                             figsize=(10, 4 * len(topos)), squeeze=False)
    # 1:1, and U = B (m:1): a ring puts one stream on an uplink, so only
    # U < m*B... U <= B shows oversubscription in a ring
    for ti, (k, m, size) in enumerate(topos):
        for ri, ratio in enumerate((1, m)):
            xs, rr, aa, tl = sweep_x(k, m, size, ratio)
            ax = axes[ti][ri]
            ax.plot(xs, [d["algbw_GBps"] if d else 0 for d in rr], "o-",
                    label="Rina")
            ax.plot(xs, [d["algbw_GBps"] if d else 0 for d in aa], "s--",
                    label="ATP (PS-based INA, 1 PS)")
            if tl:
                ax.plot([k], [tl["algbw_GBps"]], "*", ms=12, color="C2",
                        label="ATP two-level (k + 1 INA switches)")
                two.append((k * m, ratio, tl["algbw_GBps"]))
            ax.set_title("%d workers (%dx%d), %d MiB, oversub. %d:1" %
                         (k * m, k, m, size // MiB, ratio))
            ax.set_xlabel("INA racks x")
            ax.set_ylabel("algbw (GB/s)")
            ax.grid(True, alpha=0.3)
            ax.legend()
            for x, r, a in zip(xs, rr, aa):
                if r and a:
                    table.append((k * m, ratio, x, r["algbw_GBps"],
                                  a["algbw_GBps"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "throughput_vs_ina.png"), dpi=110)
    plt.close(fig)

    # same hardware cost: Rina / ATP with the same number of INA switches
    fig, ax = plt.subplots(figsize=(6, 4))
    for n, ratio in sorted(set((t[0], t[1]) for t in table)):
        pts = [(t[2], t[3] / t[4]) for t in table
               if t[0] == n and t[1] == ratio and t[4] > 0]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                label="%d workers, %d:1" % (n, ratio))
    ax.axhline(1.5, color="gray", ls=":", label="1.5x (paper: >50%)")
    ax.set_xlabel("INA switches (racks) x")
    ax.set_ylabel("Rina / ATP throughput")
    ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "same_cost.png"), dpi=110)
    plt.close(fig)

    # Rina vs PS, RAR, H-AR at x = 0, k/2, k
    k, m, size = 8, 8, 4 * MiB
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), squeeze=False)
    base = []
    for ri, ratio in enumerate((1, m)):
        U = "%dgbit" % (100 * m // ratio)
        a = [sim_args("rina", k, m, size, uplink=U, ina=ina_list(x, k))
             for x in (0, k // 2, k)]
        a += [sim_args("atp", k, m, size, uplink=U, ina=ina_list(x, k))
              for x in (0, k // 2, k)]
        a += [sim_args("rar", k, m, size, uplink=U),
              sim_args("har", k, m, size, uplink=U),
              sim_args("ps", k, m, size, uplink=U),
              sim_args("ps", k, m, size, uplink=U, extra=("--ps", str(k)))]
        res = runs(a)
        names = ["Rina x=0", "Rina x=%d" % (k // 2), "Rina x=%d" % k,
                 "ATP x=0", "ATP x=%d" % (k // 2), "ATP x=%d" % k,
                 "RAR", "H-AR", "PS (1)", "PS (%d)" % k]
        vals = [d["algbw_GBps"] if d else 0 for d in res]
        base.append((ratio, list(zip(names, vals))))
        ax = axes[0][ri]
        ax.bar(range(len(names)), vals,
               color=["C0"] * 3 + ["C1"] * 3 + ["C2", "C3", "C4", "C4"])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("algbw (GB/s)")
        ax.set_title("%d workers (%dx%d), %d MiB, 100gbit, oversub. %d:1" %
                     (k * m, k, m, size // MiB, ratio))
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "baselines.png"), dpi=110)
    plt.close(fig)

    with open(os.path.join(OUT, "comparison.md"), "w") as f:
        f.write("| workers | oversub | x | Rina GB/s | ATP GB/s | "
                "Rina/ATP |\n|---|---|---|---|---|---|\n")
        for n, ratio, x, r, a in table:
            f.write("| %d | %d:1 | %d | %.3f | %.3f | %.2f |\n"
                    % (n, ratio, x, r, a, r / a if a else 0))
        f.write("\n| workers | oversub | ATP two-level (x = k, plus the "
                "server's switch) GB/s |\n|---|---|---|\n")
        for n, ratio, v in two:
            f.write("| %d | %d:1 | %.3f |\n" % (n, ratio, v))
        for ratio, rows in base:
            f.write("\n| scheme (64 workers, %d:1) | algbw GB/s |\n"
                    "|---|---|\n" % ratio)
            for nme, v in rows:
                f.write("| %s | %.3f |\n" % (nme, v))


def link_bound_us(k, m, size, elems, rate, uplink):
    """Issue 45's bound for Rina with every rack INA, in microseconds:
    each worker sends S and receives S over its host link, each rack
    uplink carries 2(L-1)/L S each way (L = k racks), both with 72 bytes
    of headers a packet of 4E:
        max(S (1 + h) / B, 2 (k - 1) / k * S (1 + h) / U),  h = 72 / 4E.
    Rina's host downlink also carries an ACK per contribution (the
    downstream rack's, fanned out): reported beside it, not in it."""
    B = gbit(rate) / 8 / 1e6
    U = gbit(uplink) / 8 / 1e6
    S = size * (1 + 72.0 / (4 * elems))
    return max(S / B, 2 * (k - 1) / k * S / U)


def ring_bound_us(k, m, size, elems, rate, uplink, delay_us):
    """link_bound_us() with what the ring's last packet still has to
    travel once its bytes are sent, which no protocol on this leaf-spine
    avoids: the last contribution reaches its ToR (d), its slot's result
    goes round the ring to the farthest rack (k - 1 rack hops, each
    ToR-spine-ToR: two links of d and two store-and-forward copies of
    the packet at U) and down to a host (a copy at B, d):
        S (1 + h) / B + 2d + P / B + (k - 1) (2 P / U + 2d)
    and after the last byte on an uplink, at least the spine-ToR-host
    path's two links and a copy at B:
        2 (k - 1) / k S (1 + h) / U + 2d + P / B,
    the larger of the two; P = 4E + 72 bytes a packet."""
    B = gbit(rate) / 8 / 1e6
    U = gbit(uplink) / 8 / 1e6
    S = size * (1 + 72.0 / (4 * elems))
    P = 4 * elems + 72
    host = S / B + 2 * delay_us + P / B + \
        (k - 1) * (2 * P / U + 2 * delay_us)
    up = 2 * (k - 1) / k * S / U + 2 * delay_us + P / B
    return max(host, up)


def rar_bound_us(k, m, size, elems, rate):
    B = gbit(rate) / 8 / 1e6
    N = k * m
    return 2 * (N - 1) / N * size * (1 + 72.0 / (4 * elems)) / B


def line_rate():
    """Issue 45: every rack INA at 100 Gbit/s with congestion control on
    (rina-sim's defaults), against its link bound, the fixed window, RAR
    and ATP two-level, on 1:1 (U = m B) and m:1 (U = B) fabrics."""
    E = 256
    delay_us = 1  # each link
    topos = [(4, 4, 4 * MiB), (8, 8, 4 * MiB), (4, 4, 64 * MiB),
             (8, 8, 64 * MiB), (16, 16, 16 * MiB)]
    if QUICK:
        topos = topos[:2]
    cases = []
    for k, m, size in topos:
        for up in ("%dgbit" % (100 * m), "100gbit"):
            if k == 16 and up == "100gbit":
                continue
            cases.append((k, m, size, up))
    # Past 4 MiB only Rina and (1:1) ATP: RAR's and the fixed window's
    # runs there take the most wall time, and RAR's time is bounded below
    # by its own link bound, which the table then uses.
    args = []
    for k, m, size, up in cases:
        base = ["--topo", "%dx%d" % (k, m), "--size", str(size),
                "--link-rate", "100gbit", "--uplink-rate", up,
                "--delay", str(delay_us), "--elems", str(E), "--no-verify"]
        small = size <= 4 * MiB
        args.append(base + ["--scheme", "rina", "--ina", "all"])
        args.append(base + ["--scheme", "rina", "--ina", "all",
                            "--cc", "fixed"] if small else None)
        args.append(base + ["--scheme", "rar"] if small else None)
        args.append(base + ["--scheme", "atp", "--ina", "all",
                            "--two-level"]
                    if small or up != "100gbit" else None)
    res = runs([a for a in args if a])
    it = iter(res)
    res = [next(it) if a else None for a in args]
    out = ["| topo | size | fabric | bound (us) | Rina all-INA (us) | "
           "of bound | bound with the ring's latency (us) | of it | "
           "fixed window | RAR (us) | Rina / RAR speed-up "
           "(model) | ATP two-level (us) | Rina / ATP throughput |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    # "> r": RAR not run; r is RAR's link bound over Rina's time
    for i, (k, m, size, up) in enumerate(cases):
        rina, fixed, rar, atp = res[4 * i:4 * i + 4]
        if not rina:
            continue
        bound = link_bound_us(k, m, size, E, "100gbit", up)
        ring = ring_bound_us(k, m, size, E, "100gbit", up, delay_us)
        rb = rar_bound_us(k, m, size, E, "100gbit")
        t = rina["time_us"]
        cell = (lambda d: "%.0f" % d["time_us"] if d else "-")
        out.append("| %dx%d | %d MiB | %s | %.0f | %.0f | %.2f | %.0f | "
                   "%.2f | %s | %s | %s (%.2f) | %s | %s |" % (
                       k, m, size // MiB,
                       "1:1" if up != "100gbit" else "%d:1" % m,
                       bound, t, bound / t, ring, ring / t,
                       cell(fixed), cell(rar),
                       "%.2f" % (rar["time_us"] / t) if rar else
                       "> %.2f" % (rb / t),
                       rb / bound, cell(atp),
                       "%.2f" % (atp["time_us"] / t) if atp else "-"))
    with open(os.path.join(OUT, "line-rate.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


def emulation_predictions():
    """The shaped emulated cluster's runs (issue 13), predicted."""
    out = ["| topo | rate | size | scheme | E | shaped | sim time (s) |",
           "|---|---|---|---|---|---|---|"]
    cases = []
    for topo in ((2, 2), (2, 4)):
        for scheme, e in (("rar", 1024), ("rina", 64)):
            for rate, size in (("25mbit", 4 * MiB), ("50mbit", 4 * MiB),
                               ("25mbit", 2 * MiB)):
                for both in (True, False):
                    cases.append((topo, rate, size, scheme, e, both))
    res = runs([sim_args(s, t[0], t[1], size, rate=rate, delay=20,
                         uplink="10gbit",
                         extra=("--elems", str(e), "--limit", "100") +
                         (() if both else ("--host-down-rate", "10gbit")))
                for t, rate, size, s, e, both in cases])
    for (t, rate, size, s, e, both), d in zip(cases, res):
        if d:
            out.append("| %dx%d | %s | %d MiB | %s | %d | %s | %.3f |" %
                       (t[0], t[1], rate, size // MiB, s, e,
                        "both ways" if both else "host egress",
                        d["time_us"] / 1e6))
    with open(os.path.join(OUT, "emulation.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    if not os.access(SIM, os.X_OK):
        sys.exit("sweep: %s not built (ns-3 missing?)" % SIM)
    if "--latency" in sys.argv:
        lat = latency_validation()
        with open(os.path.join(OUT, "latency.md"), "w") as f:
            f.write("\n".join(lat) + "\n")
        print("\n".join(lat))
        sys.exit(0)
    if "--line-rate" in sys.argv:
        line_rate()
        sys.exit(0)
    validation()
    line_rate()
    emulation_predictions()
    plot_all()
    print("figures and tables in", OUT)
