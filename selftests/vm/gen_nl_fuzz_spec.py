#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Write the attribute tables of the rina generic netlink family, read
from its YNL spec (Documentation/netlink/rina.yaml), as a C header for
selftests/vm/rina_nl_fuzz.c: its seed corpus is built from them, so that
an attribute or operation added to the spec is fuzzed without an edit.
    gen_nl_fuzz_spec.py SPEC.yaml OUT.h"""
import sys

import yaml

KINDS = {"u8": "FZ_U8", "u16": "FZ_U16", "u32": "FZ_U32", "u64": "FZ_U64",
         "flag": "FZ_FLAG", "binary": "FZ_BINARY", "nest": "FZ_NEST",
         "pad": "FZ_PAD", "string": "FZ_STRING"}


def cname(name):
    return name.upper().replace("-", "_")


def main():
    spec = yaml.safe_load(open(sys.argv[1]))
    sets = spec["attribute-sets"]
    index = {s["name"]: i for i, s in enumerate(sets)}
    full = {}  # set name -> {attr name: (value, attr)}
    for s in sets:
        if "subset-of" in s:
            continue
        v, attrs = 1, {}
        for a in s["attributes"]:
            v = a.get("value", v)
            attrs[a["name"]] = (v, a)
            v += 1
        full[s["name"]] = attrs
    out = ["/* Generated from Documentation/netlink/rina.yaml by",
           " * selftests/vm/gen_nl_fuzz_spec.py: do not edit. */",
           "#ifndef RINA_NL_FUZZ_SPEC_H", "#define RINA_NL_FUZZ_SPEC_H", ""]
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            out.append("#define FZ_CONST_%s\t%d"
                       % (cname(d["name"]), d["value"]))
    out.append("")
    for s in sets:
        parent = full[s.get("subset-of", s["name"])]
        rows, top = [], 0
        for a in s["attributes"]:
            v, a = parent[a["name"]]
            c = a.get("checks", {})
            nest = a.get("nested-attributes")
            rows.append('\t{ "%s", %d, %s, %d, %d, %dLL, %dLL, %d, %d, %d },'
                        % (a["name"], v, KINDS[a["type"]], "min" in c,
                           "max" in c, c.get("min", 0), c.get("max", 0),
                           c.get("exact-len", -1),
                           index[nest] if nest else -1,
                           int(bool(a.get("multi-attr")))))
            top = max(top, v)
        out.append("static const struct fz_attr fz_set_%s[] = {"
                   % cname(s["name"]).lower())
        out += rows
        out.append("};")
        s["_top"] = top
    out.append("")
    out.append("static const struct fz_set fz_sets[] = {")
    for s in sets:
        n = cname(s["name"]).lower()
        out.append('\t{ "%s", fz_set_%s, %d, %d },'
                   % (s["name"], n, len(s["attributes"]), s["_top"]))
    out.append("};")
    out.append("")
    ops = spec["operations"]
    v = 1
    for op in ops["list"]:
        v = op.get("value", v)
        op["_cmd"] = v
        v += 1
        # request attributes as indexes into the op's set's table
        names = [a["name"] for a in sets[index[op["attribute-set"]]]
                 ["attributes"]]
        for kind in ("do", "dump"):
            req = (op.get(kind) or {}).get("request", {}).get("attributes",
                                                              [])
            idx = [str(names.index(r)) for r in req]
            out.append("static const int fz_req_%s_%s[] = { %s };"
                       % (cname(op["name"]).lower(), kind,
                          ", ".join(idx + ["-1"])))
    out.append("")
    out.append("static const struct fz_op fz_ops[] = {")
    for op in ops["list"]:
        n = cname(op["name"]).lower()
        out.append('\t{ "%s", %d, %d, %d, %d, %d, %d, fz_req_%s_do, '
                   'fz_req_%s_dump },'
                   % (op["name"], op["_cmd"], index[op["attribute-set"]],
                      int("admin-perm" in op.get("flags", [])),
                      int("do" in op), int("dump" in op),
                      int("event" in op), n, n))
    out.append("};")
    out += ["", "#endif /* RINA_NL_FUZZ_SPEC_H */", ""]
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
