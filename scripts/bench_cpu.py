#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Host CPU seconds per allreduced GB for make bench.

  bench_cpu.py run TIMES LOG ITERS WARMUP TOPO VARIANT REP
      one JSON line: the run's children user+system seconds (bash `times`
      output in TIMES) over the bytes every call of every size reduced
      (sizes from the JSON rows in LOG, warm-ups included)
  bench_cpu.py summary CPU.jsonl
      median [min..max] per topology and variant
  bench_cpu.py sample PID TOPO VARIANT REP
      while process PID lives: every 0.5 s, the CPU time of each process
      of the run (PID's descendants, and every process in a network
      namespace one of them is in or of the same rina-run, rina-XXXXX-*:
      rina-run's ranks and ToRs, mpirun's daemons and ranks); prints one
      JSON line with the busiest process's largest share of a CPU over
      any 1 s window ("max_proc_cpu", 1.0 = one core saturated), which
      process it was, that figure for every process name ("per_comm":
      setup included, so python3's counts torch's import), and the
      machine's busy share of all its cores (mean and largest 1 s window,
      everyone's load)
  bench_cpu.py samples SAMPLES.jsonl
      per topology and variant, the largest max_proc_cpu over repetitions
"""
import json
import os
import re
import statistics
import sys
import time


def secs(t):
    m = re.match(r'(\d+)m([\d.]+)s', t)
    return int(m.group(1)) * 60 + float(m.group(2))


def run(times, log, iters, warm, topo, variant, rep):
    lines = open(times).read().split('\n')
    user, system = (secs(x) for x in lines[1].split())
    sizes = set()
    for line in open(log):
        line = line.split('] ', 1)[-1].strip()
        if line.startswith('{'):
            sizes.add(json.loads(line)['size'])
    gb = sum(sizes) * (int(iters) + int(warm)) / 1e9
    if gb:
        print(json.dumps({'topo': topo, 'variant': variant, 'rep': int(rep),
                          'cpu_s': user + system,
                          'cpu_s_per_GB': (user + system) / gb}))


def summary(path):
    runs = {}
    for line in open(path):
        r = json.loads(line)
        runs.setdefault((r['topo'], r['variant']), []).append(
            r['cpu_s_per_GB'])
    print('# host CPU seconds per allreduced GB (all processes of a run), '
          'median [min..max]')
    for (topo, v), xs in sorted(runs.items()):
        print('  %-5s %-14s %8.2f [%.2f..%.2f]' %
              (topo, v, statistics.median(xs), min(xs), max(xs)))


def proc_table():
    """pid -> (ppid, netns inode, utime + stime ticks, comm)"""
    t = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                st = f.read()
            ns = os.readlink('/proc/%s/ns/net' % d)
        except OSError:
            continue
        comm = st[st.index('(') + 1:st.rindex(')')]
        f = st[st.rindex(')') + 2:].split()
        t[int(d)] = (int(f[1]), ns, int(f[11]) + int(f[12]), comm)
    return t


def sys_ticks():
    with open('/proc/stat') as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]      # total, idle + iowait


def netns_names():
    """netns link text ("net:[inode]") -> name, of /run/netns"""
    names = {}
    try:
        for n in os.listdir('/run/netns'):
            try:
                names['net:[%d]' % os.stat('/run/netns/' + n).st_ino] = n
            except OSError:
                pass
    except OSError:
        pass
    return names


def run_procs(t, root, root_ns):
    kids = {}
    for pid, (ppid, _, _, _) in t.items():
        kids.setdefault(ppid, []).append(pid)
    todo, tree = [root], set()
    while todo:
        p = todo.pop()
        if p in tree:
            continue
        tree.add(p)
        todo += kids.get(p, [])
    nss = {t[p][1] for p in tree if p in t} - {root_ns}
    # and the run's other namespaces (rina-XXXXX-*): mpirun's daemons
    # leave the process tree, their ranks stay in the hosts' namespaces
    names = netns_names()
    prefixes = {'-'.join(names[ns].split('-')[:2]) + '-' for ns in nss
                if ns in names and names[ns].startswith('rina-')}
    nss |= {ns for ns, n in names.items() if n.startswith(tuple(prefixes))}
    return tree | {p for p, v in t.items() if v[1] in nss}


def sample(pid, topo, variant, rep):
    hz = os.sysconf('SC_CLK_TCK')
    root_ns = os.readlink('/proc/self/ns/net')    # the bench's own
    hist = []       # (time, {pid: (ticks, comm)}, sys total, sys idle)
    best, best_who, busy, per_comm = 0.0, '-', [], {}
    while os.path.exists('/proc/%d' % pid):
        t = proc_table()
        mine = {p: (t[p][2], t[p][3]) for p in run_procs(t, pid, root_ns)
                if p in t}
        tot, idle = sys_ticks()
        hist.append((time.monotonic(), mine, tot, idle))
        if len(hist) >= 3:
            t0, old, tot0, idle0 = hist[-3]
            dt = hist[-1][0] - t0
            for p, (ticks, comm) in mine.items():
                if p in old:
                    u = (ticks - old[p][0]) / hz / dt
                    per_comm[comm] = max(per_comm.get(comm, 0), round(u, 3))
                    if u > best:
                        best, best_who = u, comm
            if tot > tot0:
                busy.append(1 - (idle - idle0) / (tot - tot0))
        time.sleep(0.5)
    print(json.dumps({'topo': topo, 'variant': variant, 'rep': int(rep),
                      'max_proc_cpu': round(best, 3), 'max_proc': best_who,
                      'per_comm': per_comm,
                      'sys_busy_mean': round(statistics.mean(busy), 3)
                      if busy else None,
                      'sys_busy_max': round(max(busy), 3) if busy else None,
                      'ncpu': os.cpu_count()}), flush=True)


def samples(path):
    runs = {}
    for line in open(path):
        r = json.loads(line)
        runs.setdefault((r['topo'], r['variant']), []).append(r)
    print('# busiest process of a run: largest share of one CPU over any'
          ' 1 s window (max over repetitions, and which process);')
    print('# machine busy share of all cores (every user of the machine),'
          ' median of the runs\' means, and the largest 1 s window')
    for (topo, v), rs in sorted(runs.items()):
        top = max(rs, key=lambda r: r['max_proc_cpu'])
        means = [r['sys_busy_mean'] for r in rs
                 if r['sys_busy_mean'] is not None]
        mx = [r['sys_busy_max'] for r in rs if r['sys_busy_max'] is not None]
        tor = max([r.get('per_comm', {}).get('rina-tor', 0) for r in rs])
        print('  %-5s %-14s max process %5.2f CPU (%s)%s   machine %s'
              % (topo, v, top['max_proc_cpu'], top['max_proc'],
                 ', rina-tor %.2f' % tor if tor else '',
                 '%.2f mean, %.2f max' % (statistics.median(means), max(mx))
                 if means else '-'))


if __name__ == '__main__':
    if sys.argv[1] == 'run':
        run(*sys.argv[2:9])
    elif sys.argv[1] == 'sample':
        sample(int(sys.argv[2]), *sys.argv[3:6])
    elif sys.argv[1] == 'samples':
        samples(sys.argv[2])
    else:
        summary(sys.argv[2])
