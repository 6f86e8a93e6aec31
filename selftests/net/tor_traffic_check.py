#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The verdicts of one test_tor_traffic.sh run: the hosts' RESULT lines
# (traffic), the allreduce under traffic and the ToRs' final counters
# (ina), the quiet allreduce after it and what the ToRs counted during it
# (quiet, against the copy in TORDIR/phase1). Prints "# " lines, then
# "traffic|ina|quiet ok|fail".
#
# A duplicate contribution at a ToR is a contribution sent twice: in a
# clean run (no rank retransmitted anything) there is none, and one means
# the ToR saw a frame twice. On a loaded machine the ranks' timers (10 ms
# at least) do fire and every duplicate is then reported with them.
# Usage: tor_traffic_check.py OUT TORDIR NRANKS
import glob
import json
import os
import sys

CHECKS = ('arp', 'icmp_56', 'icmp_1472', 'icmp_8972', 'icmp_20000',
          'udp', 'tcp', 'iperf3', 'arp_resolved')
SIZES = (10, 5)		# -b 4 -e 1M -f 4, then -b 64K -e 1M


def parse(out):
    res, rows, phase = {}, ([], []), {}
    for line in open(out):
        tag, _, line = line.partition('] ')
        if not tag.startswith('[rank '):
            continue
        rank = int(tag[6:])
        line = line.strip()
        if line == 'PHASE 2':
            phase[rank] = 1
        elif line.startswith('RESULT '):
            f = line.split(' ', 3) + ['']
            res.setdefault(rank, {}).setdefault(f[1], []).append(
                (f[2], f[3]))
            if f[2] != 'ok' or f[1] in ('iperf3', 'udp', 'tcp', 'arp'):
                print('# rank %d %s %s: %s' % (rank, f[1], f[2], f[3]))
        elif line.startswith('{'):
            rows[phase.get(rank, 0)].append(json.loads(line))
    return res, rows


def exact(xs, n, nsizes, why):
    """Rows of every rank for nsizes sizes, none wrong, one hash each;
    returns the ranks' retransmissions (workers' and agents')."""
    sizes = {}
    for x in xs:
        sizes.setdefault(x['size'], []).append(x)
        if x['wrong']:
            why.append('rank %d size %d: %d wrong' %
                       (x['rank'], x['size'], x['wrong']))
        if x['role'] == 'ina-agent' and x.get('tor') != 'on':
            why.append('rank %d: ToR %s' % (x['rank'], x.get('tor')))
    if len(sizes) != nsizes:
        why.append('%d sizes of the allreduce, not %d' %
                   (len(sizes), nsizes))
    for s, ys in sorted(sizes.items()):
        if len(ys) != n or len({y['hash'] for y in ys}) != 1:
            why.append('size %d: %d rows, %d hashes' %
                       (s, len(ys), len({y['hash'] for y in ys})))
    return sum(x['retransmits'] + x.get('agent_retransmits', 0)
               for x in xs)


def load(d):
    return {os.path.basename(f): json.load(open(f))
            for f in sorted(glob.glob(os.path.join(d, 'tor*.json')))}


def port(t, name):
    return [p for p in t['ports'] if p['name'] == name][0]


def check_tor(name, t, bad):
    """Nothing but Rina frames, each given to rina-tor and kept from the
    bridge exactly once, received or counted as lost in the full ring;
    nothing above the MTU on the way out."""
    sw, ports, st = t['switch'], t['ports'], t.get('steer', {})
    rx = sum(p['rx'] for p in ports)
    rx_drop = sum(p.get('rx_drop', 0) for p in ports)
    print('# %s: rx %d rx_drop %d tx %d, non_rina %d giant %d, selected '
          '%s steered %s, %s' %
          (name, rx, rx_drop, sum(p['tx'] for p in ports), sw['non_rina'],
           sw['giant'], st.get('selected'), st.get('steered'),
           [{k: j['counters'][k] for k in ('contrib_in', 'slot_done',
                                           'dup')} for j in t['jobs']]))
    if sw['non_rina'] or sw['giant']:
        bad.append('%s saw %d non-Rina frames, %d giants' %
                   (name, sw['non_rina'], sw['giant']))
    if not st.get('selected') == st.get('steered') == rx + rx_drop:
        bad.append('%s: %d frames received, %d lost in the ring, %s given '
                   'to it, %s kept from the bridge' %
                   (name, rx, rx_drop, st.get('selected'),
                    st.get('steered')))
    for p in ports:
        if p.get('tx_drop', 1):
            bad.append('%s port %s: %s frames above the MTU' %
                       (name, p['name'], p.get('tx_drop')))
    for j in t['jobs']:
        c = j['counters']
        if (not c['slot_done'] or c['collision'] or c['bypass_in'] or
                c['too_long']):
            bad.append('%s job %d: %s' % (name, j['job'], c))


def main():
    out, tordir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    res, rows = parse(out)
    bad = {'traffic': [], 'ina': [], 'quiet': []}
    for r in range(n):
        got = res.get(r, {})
        for c in CHECKS:
            if [x[0] for x in got.get(c, [])] != ['ok']:
                bad['traffic'].append('rank %d %s: %s' %
                                      (r, c, got.get(c, 'missing')))
        for c in set(got) - set(CHECKS):
            k = {'allreduce': 'ina', 'allreduce2': 'quiet'}.get(c,
                                                                'traffic')
            bad[k].append('rank %d %s: %s' % (r, c, got[c]))
    rex = (exact(rows[0], n, SIZES[0], bad['ina']),
           exact(rows[1], n, SIZES[1], bad['quiet']))

    tors, before = load(tordir), load(os.path.join(tordir, 'phase1'))
    if not tors or set(before) != set(tors):
        bad['ina'].append('ToR counters: %s at the end, %s copied' %
                          (sorted(tors), sorted(before)))
    for name, t in tors.items():
        check_tor(name, t, bad['ina'])
        if name not in before:
            continue
        b = before[name]
        dups = (sum(k['counters']['dup'] for k in b['jobs']),
                sum(j['counters']['dup'] for j in t['jobs']) -
                sum(k['counters']['dup'] for k in b['jobs']))
        for i, k in enumerate(('ina', 'quiet')):
            print('# %s, %s allreduce: %d duplicate contributions, %d '
                  'retransmissions by the ranks' %
                  (name, ('under traffic', 'quiet')[i], dups[i], rex[i]))
            if dups[i] and not rex[i]:
                bad[k].append('%s: %d duplicate contributions in a clean '
                              'run' % (name, dups[i]))
    # two INA racks and the spine: during the quiet run what one ToR sends
    # up the other receives (or loses in its full ring), each frame once
    if len(tors) == 2 and n == 4 and set(before) == set(tors):
        (na, a), (nb, b) = tors.items()
        d = {x: {k: port(tors[x], 'up0')[k] - port(before[x], 'up0')[k]
                 for k in ('rx', 'rx_drop', 'tx')} for x in (na, nb)}
        print('# quiet, up0: %s %s, %s %s' % (na, d[na], nb, d[nb]))
        if (d[na]['rx'] + d[na]['rx_drop'] != d[nb]['tx'] or
                d[nb]['rx'] + d[nb]['rx_drop'] != d[na]['tx']):
            bad['quiet'].append('up0: frames sent up and received differ')
    for k in ('traffic', 'ina', 'quiet'):
        for b in bad[k]:
            print('# %s: %s' % (k, b))
    for k in ('traffic', 'ina', 'quiet'):
        print(k, 'fail' if bad[k] else 'ok')


if __name__ == '__main__':
    main()
