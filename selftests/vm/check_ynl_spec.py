#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the hand-written C of the rina genl family matches its YNL
spec (Documentation/netlink/rina.yaml): every enum name and value in
include/uapi/linux/rina.h (compiled as static asserts), the admin-perm
flags, do/dump handlers and multicast group in kmod/genl.c. Prints KTAP."""
import os
import re
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = yaml.safe_load(open(os.path.join(TOP, "Documentation/netlink/rina.yaml")))
genl = open(os.path.join(TOP, "kmod/genl.c")).read()


def cname(prefix, name):
    return (prefix + name).upper().replace("-", "_")


asserts = []
for d in spec.get("definitions", []):
    if d["type"] == "const":
        asserts.append((cname("rina-", d["name"]), d["value"]))
    elif d["type"] == "enum":
        v = d["entries"][0].get("value", 0)
        for e in d["entries"]:
            v = e.get("value", v)
            asserts.append((cname(d["name-prefix"], e["name"]), v))
            v += 1
sets = {s["name"]: s for s in spec["attribute-sets"]}
for s in spec["attribute-sets"]:
    if "subset-of" in s:
        continue
    v = 1
    for a in s["attributes"]:
        v = a.get("value", v)
        asserts.append((cname(s["name-prefix"], a["name"]), v))
        v += 1
ops = spec["operations"]
v = 1
for op in ops["list"]:
    v = op.get("value", v)
    asserts.append((cname(ops["name-prefix"], op["name"]), v))
    v += 1

# exact-len checks: the policy in kmod/genl.c names a length that the
# compiler compares with the spec's
policies = {m.group(1): (m.group(3) or "6") for m in re.finditer(
    r"\[(RINA_A_\w+)\]\s*=\s*NLA_POLICY_(EXACT_LEN\((\w+)\)|ETH_ADDR)", genl)}
exact = []
for s in spec["attribute-sets"]:
    if "subset-of" in s:
        continue
    for a in s["attributes"]:
        n = a.get("checks", {}).get("exact-len")
        if n is not None:
            c = cname(s["name-prefix"], a["name"])
            exact.append(c)
            if c in policies:
                asserts.append((policies[c], n))

tests = []
src = "#include <linux/rina.h>\n#include \"plan.h\"\n" + "".join(
    '_Static_assert(%s == %d, "%s");\n' % (n, val, n) for n, val in asserts)
with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
    f.write(src)
r = subprocess.run(["gcc", "-fsyntax-only", "-I", os.path.join(TOP, "include/uapi"),
                    "-I", os.path.join(TOP, "core"), f.name], capture_output=True, text=True)
os.unlink(f.name)
tests.append(("uapi_enums_match_spec_%d" % len(asserts), r.returncode == 0,
              r.stderr.strip().splitlines()[:3]))

for c in exact:
    tests.append(("policy_exact_len_%s" % c.lower(), c in policies,
                  ["no NLA_POLICY_EXACT_LEN for %s in kmod/genl.c" % c]))

# write-only attributes (requests only, in no reply nor event) are never
# put in a message by kmod/genl.c
job_set = sets["job"]
sent, written = set(), set()
for op in ops["list"]:
    for kind in ("do", "dump"):
        part = op.get(kind, {})
        written.update(part.get("request", {}).get("attributes", []))
        sent.update(part.get("reply", {}).get("attributes", []))
    sent.update(op.get("event", {}).get("attributes", []))
for name in sorted(written - sent):
    c = cname(job_set["name-prefix"], name)
    put = re.search(r"nla_put\w*\([^;]*\b%s\b" % c, genl)
    tests.append(("write_only_%s_never_put" % c.lower(), not put,
                  [put.group(0)[:200] if put else ""]))

# each op in kmod/genl.c: its .cmd block, admin flag and handlers
blocks = {m.group(1): m.group(0) for m in
          re.finditer(r"\{\s*\.cmd\s*=\s*(RINA_CMD_\w+),.*?\}", genl, re.S)}
for op in ops["list"]:
    c = cname(ops["name-prefix"], op["name"])
    if "event" in op:
        ok = c not in blocks and ("genlmsg_put(msg, 0, 0, &rina_genl_family, 0, %s)" % c) in genl
        tests.append(("op_%s_is_an_event" % op["name"], ok, []))
        continue
    b = blocks.get(c, "")
    admin = "admin-perm" in op.get("flags", [])
    ok = bool(b) and (("GENL_ADMIN_PERM" in b) == admin) and \
        (("doit" in b) == ("do" in op)) and (("dumpit" in b) == ("dump" in op))
    tests.append(("op_%s_flags_and_handlers" % op["name"], ok, [b[:200]]))
tests.append(("ops_count", len(blocks) == sum("event" not in o for o in ops["list"]), []))
grp = spec["mcast-groups"]["list"][0]["name"]
tests.append(("mcast_group_" + grp,
              '#define RINA_GENL_MCGRP_EVENTS\t"%s"' % grp in
              open(os.path.join(TOP, "include/uapi/linux/rina.h")).read(), []))

print("TAP version 13")
print("1..%d" % len(tests))
fail = 0
for i, (name, ok, why) in enumerate(tests, 1):
    if not ok:
        fail += 1
        for w in why:
            print("# " + w)
    print("%sok %d %s" % ("" if ok else "not ", i, name))
print("# Totals: pass:%d fail:%d skip:0" % (len(tests) - fail, fail))
sys.exit(1 if fail else 0)
