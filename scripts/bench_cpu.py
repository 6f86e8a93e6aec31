#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Host CPU seconds per allreduced GB for make bench.

  bench_cpu.py run TIMES LOG ITERS WARMUP TOPO VARIANT REP
      one JSON line: the run's children user+system seconds (bash `times`
      output in TIMES) over the bytes every call of every size reduced
      (sizes from the JSON rows in LOG, warm-ups included)
  bench_cpu.py summary CPU.jsonl
      median [min..max] per topology and variant
"""
import json
import re
import statistics
import sys


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


if __name__ == '__main__':
    if sys.argv[1] == 'run':
        run(*sys.argv[2:9])
    else:
        summary(sys.argv[2])
