#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The TNA program's resource report, from the Tofino compiler's logs.

resources.py [--json] [--doc FILE] OUT   (OUT: p4c's -o directory)

Reads OUT/pipe/logs/{resources.json,metrics.json,table_summary.log} and
prints stages (ingress, egress), stateful ALUs, SRAM, TCAM, gateways and
logical tables per stage and per control, the stateful registers, the
adders (elements per pass) and PHV use. --json prints the same as JSON
(selftests/tor/test_tofino.sh asserts on it); --doc FILE rewrites the
block between "<!-- tofino-report -->" and "<!-- /tofino-report -->" in
FILE (Documentation/tofino.md) with the text report.
"""
import json
import os
import re
import sys

CONTROLS = ["header_check", "job_classify", "tag_check", "drop_sim",
	    "l2_fwd", "slot_tag", "slot_meta", "adders", "next_step",
	    "allgather", "rewrite", "counters"]


def control_of(name):
	for c in CONTROLS:
		if c in name:
			return c
	return "top"


def load(out):
	logs = os.path.join(out, "pipe", "logs")
	res = json.load(open(os.path.join(logs, "resources.json")))
	met = json.load(open(os.path.join(logs, "metrics.json")))
	summ = open(os.path.join(logs, "table_summary.log")).read()
	r = {"stages": {}, "per_stage": [], "per_control": {},
	     "registers": [], "adders": 0, "phv": {}}
	# the log holds every placement round: the last one is the result
	for gress in ("ingress", "egress"):
		m = re.findall(r"Number of stages for %s table allocation: "
			       r"(\d+)" % gress, summ)
		r["stages"][gress] = int(m[-1]) if m else None
	m = re.findall(r"Number of stages in table allocation: (\d+)", summ)
	r["stages"]["total"] = int(m[-1]) if m else None
	regs = set()
	for st in res["resources"]["mau"]["mau_stages"]:
		salus = [u["used_by"] for a in st["meter_alus"]["meters"]
			 for u in a["usages"]]
		regs.update(salus)
		srams = len(st["rams"]["srams"])
		tcams = len(st["tcams"]["tcams"])
		gws = len(st["gateways"]["gateways"])
		tables = [t["table_name"] for t in
			  st["logical_tables"]["ids"]]
		stats = len(st["statistic_alus"]["stats"])
		r["per_stage"].append({"stage": st["stage_number"],
				       "salus": len(salus), "srams": srams,
				       "tcams": tcams, "gateways": gws,
				       "tables": len(tables), "stats": stats})
		for t in tables:
			c = r["per_control"].setdefault(control_of(t), {
				"tables": 0, "salus": 0, "stages": set()})
			c["tables"] += 1
			c["stages"].add(st["stage_number"])
		for s in salus:
			c = r["per_control"].setdefault(control_of(s), {
				"tables": 0, "salus": 0, "stages": set()})
			c["salus"] += 1
			c["stages"].add(st["stage_number"])
	for c in r["per_control"].values():
		c["stages"] = sorted(c["stages"])
	r["registers"] = sorted(regs)
	r["adders"] = len([x for x in regs
			   if re.search(r"adders\.add_\d+\.slot_val$", x)])
	r["salus"] = sum(s["salus"] for s in r["per_stage"])
	r["srams"] = sum(s["srams"] for s in r["per_stage"])
	r["tcams"] = sum(s["tcams"] for s in r["per_stage"])
	for kind in ("normal", "tagalong"):
		bits = sum(c["bits_occupied"] for c in met["phv"][kind])
		ctrs = sum(c["containers_occupied"] for c in met["phv"][kind])
		r["phv"][kind] = {"bits": bits, "containers": ctrs}
	r["latency"] = {x["gress"]: x["cycles"]
			for x in met["mau"].get("latency", [])}
	return r


def text(r):
	o = []
	st = r["stages"]
	o.append("stages: ingress %s, egress %s (Tofino 1: 12 each)"
		 % (st["ingress"], st["egress"]))
	o.append("adders (int32 elements per pass): %d" % r["adders"])
	o.append("stateful ALUs: %d of 48; SRAM blocks: %d of 960; "
		 "TCAM blocks: %d of 288" % (r["salus"], r["srams"],
					      r["tcams"]))
	o.append("PHV: normal %d bits in %d containers (of 4096 bits, 224); "
		 "tagalong %d bits in %d containers (of 2048, 112)"
		 % (r["phv"]["normal"]["bits"],
		    r["phv"]["normal"]["containers"],
		    r["phv"]["tagalong"]["bits"],
		    r["phv"]["tagalong"]["containers"]))
	o.append("")
	o.append("| stage | stateful ALUs | stats ALUs | SRAM | TCAM |"
		 " gateways | logical tables |")
	o.append("|---|---|---|---|---|---|---|")
	for s in r["per_stage"]:
		o.append("| %d | %d | %d | %d | %d | %d | %d |"
			 % (s["stage"], s["salus"], s["stats"], s["srams"],
			    s["tcams"], s["gateways"], s["tables"]))
	o.append("")
	o.append("| control | logical tables | stateful ALUs | stages |")
	o.append("|---|---|---|---|")
	for name in CONTROLS + ["top"]:
		c = r["per_control"].get(name)
		if not c:
			continue
		sts = c["stages"]
		o.append("| %s | %d | %d | %s |" % (
			name, c["tables"], c["salus"],
			"%d-%d" % (sts[0], sts[-1]) if sts else "-"))
	o.append("")
	o.append("stateful registers: " + ", ".join(
		x for x in r["registers"] if "adders" not in x) +
		", and %d x adders.add_N.slot_val" % r["adders"])
	return "\n".join(o) + "\n"


def main(argv):
	as_json = "--json" in argv
	doc = None
	if "--doc" in argv:
		doc = argv[argv.index("--doc") + 1]
	out = [a for a in argv[1:] if not a.startswith("--") and a != doc]
	if len(out) != 1:
		sys.exit(__doc__)
	r = load(out[0])
	if as_json:
		print(json.dumps(r, indent=1))
		return
	t = text(r)
	sys.stdout.write(t)
	if doc:
		d = open(doc).read()
		a, b = "<!-- tofino-report -->", "<!-- /tofino-report -->"
		if a not in d or b not in d:
			sys.exit("%s: no %s ... %s block" % (doc, a, b))
		head, rest = d.split(a, 1)
		tail = rest.split(b, 1)[1]
		open(doc, "w").write(head + a + "\n" + t + b + tail)


if __name__ == "__main__":
	main(sys.argv)
