#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Replay a bmv2 ToR's run on the C model and compare their counters.

rina-tor-bmv2 --replay DIR recorded DIR/replay.vec: every frame it fed
the switch and every runtime command it applied, in the order the switch
took them (it feeds nothing while a command goes in), up to a snapshot
of every counter of the switch (DIR/snapshot.json, taken once the switch
had taken every frame and its egress was idle). This runs replay.vec
through the model (tor_vectors --replay) and compares every job_ctr,
job_out and tor_ctr entry with the switch's. Prints '#' lines; exit 0
when they are all equal.

Usage: bmv2_replay.py DIR [TOR_VECTORS]
"""
import json
import os
import subprocess
import sys


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..")
    d = sys.argv[1]
    model = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        top, "build", "selftests", "tor", "tor_vectors")
    try:
        snap = json.load(open(os.path.join(d, "snapshot.json")))
    except (OSError, ValueError) as e:
        print("# no snapshot of the switch's counters: %s" % e)
        return 1
    if not snap["frames"]:
        print("# the switch took no frame")
        return 1
    if not snap["consistent"] or snap["ingress"] != snap["frames"]:
        print("# snapshot not at rest: %d frames fed, %d taken, counters "
              "%s" % (snap["frames"], snap["ingress"],
                      "still" if snap["consistent"] else "moving"))
        return 1
    vec = os.path.join(d, "replay.vec")
    out = subprocess.run([model, "--replay", vec], capture_output=True,
                         text=True)
    if out.returncode:
        print("# model: " + "\n# ".join(
            line for line in out.stdout.split("\n")[:10]
            if line.startswith("#")))
        return 1
    got, n_cli = {}, 0
    for line in out.stdout.split("\n"):
        f = line.split()
        if f[:1] == ["counter"]:
            got[(f[1], int(f[2]))] = int(f[3])
    with open(vec) as f:
        n_cli = sum(line.startswith("cli ") for line in f)
    bad = 0
    for name, vals in snap["counters"].items():
        for i, v in enumerate(vals):
            m = got.pop((name, i), 0)
            if m != v:
                print("# %s[%d]: switch %d, model %d" % (name, i, v, m))
                bad = 1
    for (name, i), m in sorted(got.items()):
        print("# %s[%d]: not read from the switch, model %d" % (name, i, m))
        bad = 1
    print("# replayed %d frames and %d commands: %d switch counters %s" %
          (snap["frames"], n_cli,
           sum(len(v) for v in snap["counters"].values()),
           "differ" if bad else "equal the model's"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
