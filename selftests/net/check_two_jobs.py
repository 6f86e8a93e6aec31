#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Check two concurrent jobs on one ToR (two_jobs.sh): rina-bench's JSON
rows of jobs A and B (rina-run's output, OUT) and the ToR's counters
(its --tor-stats JSON, TOR). Exit 0 when both jobs ran every size on 4
ranks with exact, identical results, both agents had the ToR on, and the
ToR aggregated each job under its own entry (4242 and 65535) without
collisions or bypass.

    check_two_jobs.py OUT TOR
"""
import json
import sys

rows = {}
for line in open(sys.argv[1]):
    line = line.split('] ', 1)[-1].strip()
    if line.startswith('{'):
        r = json.loads(line)
        rows.setdefault(r['job'], []).append(r)
bad = sorted(rows) != ['A', 'B']
for job, rs in sorted(rows.items()):
    sizes = {}
    for r in rs:
        sizes.setdefault(r['size'], []).append(r)
    for size, xs in sizes.items():
        if (len(xs) != 4 or any(x['wrong'] for x in xs) or
                len({x['hash'] for x in xs}) != 1):
            bad = True
    tor = {r['rank']: r.get('tor') for r in rs if r['role'] == 'ina-agent'}
    bad |= set(tor.values()) != {'on'}
    print('# job %s: %d rows, agent %s' % (job, len(rs), tor))
jobs = {j['job']: j['counters'] for j in json.load(open(sys.argv[2]))['jobs']}
for jid, c in sorted(jobs.items()):
    print('# ToR job %d: contrib_in %d slot_done %d collision %d bypass %d' %
          (jid, c['contrib_in'], c['slot_done'], c['collision'],
           c['bypass_in']))
    bad |= c['slot_done'] == 0 or c['collision'] > 0 or c['bypass_in'] > 0
bad |= sorted(jobs) != [4242, 65535]
sys.exit(bad)
