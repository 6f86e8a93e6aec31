#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""rina-tor-bmv2's job install on commands it cannot take: a generated
mc_node_associate line that is short, not numeric or names a node the
job did not create is refused (no slots), everything it did is undone,
and the control plane goes on; a well-formed list installs. The switch
is a fake that records the commands and hands out handles (no bmv2).
Before, such a line raised IndexError or ValueError out of install().
And the session a TOR_INSTALL names: set_job gets that session's tag;
an install for the same session sends nothing, one for another session
undoes the job and installs it with the new session's tag."""
import importlib.machinery
import importlib.util
import os
import sys
import types

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "p4", "bmv2"))
loader = importlib.machinery.SourceFileLoader(
    "rina_tor_bmv2", os.path.join(TOP, "p4", "bmv2", "rina-tor-bmv2"))
spec = importlib.util.spec_from_loader(loader.name, loader)
bmv2 = importlib.util.module_from_spec(spec)
loader.exec_module(bmv2)

BASE = ["mc_mgrp_create 2", "mc_node_create 0 1", "mc_node_create 1 2"]


def tor(cmds):
    t = bmv2.Tor.__new__(bmv2.Tor)
    t.elems, t.pool_size, t.max_jobs = 256, 4096, 8
    t.jobs = [types.SimpleNamespace(installed=None, elems=64, window=8,
                                    job_id=7, next_cmds=list(cmds),
                                    secret=None, session=None)]
    t.rec, t.sent, t.next_handle = None, [], 10

    def cli(line):
        t.sent.append(line)
        t.next_handle += 1
        return "created with handle %d" % t.next_handle
    t.cli = cli
    return t


def run():
    results = []
    bad = ["mc_node_associate 2", "mc_node_associate 2 x",
           "mc_node_associate 2 5", "mc_node_associate 2 -1",
           "mc_node_associate 2 0 9"]
    for line in bad:
        t = tor(BASE + [line])
        try:
            st = t.install(0, 1)
        except Exception as e:  # noqa: BLE001 - what the test is about
            results.append((False, "'%s': raised %r" % (line, e)))
            continue
        undone = [x for x in t.sent if x.startswith(
            ("mc_node_destroy", "mc_mgrp_destroy"))]
        ok = st == bmv2.ST_NO_SLOTS and t.jobs[0].installed is None and \
            len(undone) == 3
        results.append((ok, "'%s': refused (status %d), %d undone" %
                        (line, st, len(undone))))
    t = tor(BASE + ["mc_node_associate 2 0", "mc_node_associate 2 1"])
    st = t.install(0, 1)
    ok = st == bmv2.ST_INSTALLED and "mc_node_associate 2 12" in t.sent and \
        "mc_node_associate 2 13" in t.sent
    results.append((ok, "well-formed: installed, nodes by the switch's "
                    "handles (status %d)" % st))

    key = bytes(range(16))
    set_job = "table_add RinaIngress.job_classify.set_job 0 => 8 1 %s"
    cmds = BASE + ["mc_node_associate 2 0", set_job % bmv2.P4CFG_TAG]
    t = tor(cmds)
    t.jobs[0].secret = key
    t.commands = lambda k: list(cmds)
    t.snapshot = lambda: None
    tags = [set_job % ("0x%016x" % bmv2.auth.session_tag(key, 7, s))
            for s in (1, 2)]
    st1 = t.install(0, 1)
    sent1 = list(t.sent)
    st2 = t.install(0, 1)
    probe = t.sent[len(sent1):]
    st3 = t.install(0, 2)
    again = t.sent[len(sent1):]
    ok = (st1, st2, st3) == (bmv2.ST_INSTALLED, bmv2.ST_OK,
                             bmv2.ST_INSTALLED) and tags[0] in sent1 and \
        tags[1] not in sent1 and not probe and tags[1] in again and \
        any(x.startswith("table_delete") for x in again) and \
        t.jobs[0].session == 2
    results.append((ok, "session 1's tag in set_job (installed); again "
                    "for session 1 nothing sent (ok); for session 2 undone "
                    "and installed with its tag (installed) (%d, %d "
                    "commands; status %d %d %d)" %
                    (len(sent1), len(again), st1, st2, st3)))
    return results


def main():
    results = run()
    print("TAP version 13")
    print("1..%d" % len(results))
    fails = 0
    for i, (ok, what) in enumerate(results, 1):
        print("%sok %d rina-tor-bmv2 install: %s" % ("" if ok else "not ",
                                                    i, what))
        fails += not ok
    print("# Totals: pass:%d fail:%d skip:0" % (len(results) - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
