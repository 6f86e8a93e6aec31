#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Check a rina-run capture (selftests/tools/capture_rank.sh) decoded by the
Wireshark dissector against the job and rina-bench's --json output.

  check_capture.py LUA OUTDIR ITERS

OUTDIR holds job, rank<R>.pcap, mac<R> and bench.out (rina-run's stdout
with rina-bench --json -w 0 -n ITERS lines, int32 or float32). The
expected packets come from Documentation/protocol.md and protocol-ina.md
(ring, schedule, seq numbers), computed here independently of librina.
Prints one line per check, "ok NAME" or "fail NAME: WHY", always the same
checks for a topology, after "# " lines of diagnostics.
"""
import json
import math
import re
import subprocess
import sys

F_RETX, F_FROM_SWITCH, F_AG_PHASE = 0x01, 0x40, 0x80
OPS = {1: "SR_CONTRIB", 2: "SR_PARTIAL", 3: "AG_DATA", 4: "ACK", 5: "NACK",
       6: "CTRL"}
AGENT_PORT = 0x524f
FIELDS = ["frame.number", "frame.len", "eth.src", "eth.dst", "ip.src",
	  "ip.dst", "udp.srcport", "udp.dstport", "rina.op", "rina.flags",
	  "rina.job_id", "rina.round", "rina.hop", "rina.src_id",
	  "rina.chunk", "rina.dtype_op",
	  "rina.seq", "rina.n_elem", "rina.p_chunk", "rina.num_contrib",
	  "rina.verdict", "rina.ctrl.type", "rina.ctrl.status",
	  "rina.ctrl.hash", "rina.ack.seq", "rina.tor.request_in",
	  "rina.tor.reply_in", "rina.ctrl.mac", "rina.ctrl.session",
	  "_ws.expert.message"]


class Job:
	def __init__(self, path):
		self.E, self.W, self.racks, self.ranks = 256, 256, {}, {}
		self.secret = False
		for line in open(path):
			t = line.split("#")[0].split()
			if not t:
				continue
			if t[0] == "job":
				self.id = int(t[1])
			elif t[0] == "elements":
				self.E = int(t[1])
			elif t[0] == "window":
				self.W = int(t[1])
			elif t[0] == "secret_file":
				self.secret = True
			elif t[0] == "rack":
				tor = t[t.index("tor") + 1] if "tor" in t \
					else None
				self.racks[int(t[1])] = (t[2] == "ina", tor)
			elif t[0] == "rank":
				ip, port = t[2].split(":")
				self.ranks[int(t[1])] = (ip, int(port),
							 int(t[4]))
		self.N = len(self.ranks)
		# the ring (protocol.md section 3): racks ascending, ranks
		# ascending; an INA rack is one member, its agent the lowest
		self.ring = []		# (agent or rank, [ranks], ina)
		for r in sorted(self.racks):
			rs = sorted(k for k, v in self.ranks.items()
				    if v[2] == r)
			if self.racks[r][0]:
				self.ring.append((rs[0], rs, True))
			else:
				self.ring += [(k, [k], False) for k in rs]
		self.L = len(self.ring)
		self.ina = any(m[2] for m in self.ring)
		self.member = {}
		for i, m in enumerate(self.ring):
			for k in m[1]:
				self.member[k] = i

	def sched(self, count):
		"""P, nblocks (protocol.md section 4)."""
		L, E, W = self.L, self.E, self.W
		if self.ina:	# librina's sched.c: W/4, at most 32 KiB
			cw = W // 4 if W >= 8 else W
			cap = max(2, min(cw, (32 << 10) // (4 * E))) - 1
		else:
			cap = W - 1
		P = max(1, min(math.ceil(count / (L * E)), cap))
		return P, math.ceil(count / (L * P * E))

	def exists(self, count, P, b, c, p):
		if self.ina:	# padding: every packet of the schedule
			return True
		L, E = self.L, self.E
		return b * L * P * E + (c * P + p) * E < count

	def sr_seqs(self, i, count, steps):
		"""seqs member i sends in reduce-scatter at steps 0..steps-1."""
		L = self.L
		P, nb = self.sched(count)
		out = set()
		for b in range(nb):
			for t in range(steps):
				c = (i - t) % L
				for p in range(P):
					if self.exists(count, P, b, c, p):
						out.add(b * 2 * L * P +
							c * P + p)
		return out

	def ag_seqs(self, i, count, chunks=None):
		"""AG seqs member i sends: every chunk but (i + 2) mod L."""
		L = self.L
		P, nb = self.sched(count)
		if chunks is None:
			chunks = [c for c in range(L) if c != (i + 2) % L]
		out = set()
		for b in range(nb):
			for c in chunks:
				for p in range(P):
					if self.exists(count, P, b, c, p):
						out.add(b * 2 * L * P + L * P +
							c * P + p)
		return out


def decode(lua, pcap):
	cmd = ["tshark", "-2", "-n", "-X", "lua_script:" + lua, "-r", pcap,
	       "-Y", "rina && !icmp", "-T", "fields", "-E", "separator=/t",
	       "-E", "occurrence=a", "-E", "aggregator=,"]
	for fl in FIELDS:
		cmd += ["-e", fl]
	res = subprocess.run(cmd, capture_output=True, text=True)
	err = [ln for ln in res.stderr.splitlines()
	       if "Running as user" not in ln]
	if res.returncode or err:
		raise RuntimeError("tshark on %s: %s" % (pcap, " ".join(err)))
	pkts = []
	for line in res.stdout.splitlines():
		v = dict(zip(FIELDS, line.split("\t")))
		for k in ("frame.number", "frame.len", "rina.hop",
			  "udp.srcport", "udp.dstport",
			  "rina.op", "rina.job_id", "rina.round",
			  "rina.src_id", "rina.chunk", "rina.seq",
			  "rina.n_elem", "rina.p_chunk", "rina.num_contrib",
			  "rina.ctrl.type"):
			v[k] = int(v[k]) if v.get(k) else None
		v["rina.flags"] = int(v["rina.flags"], 16)
		v["acks"] = [int(s) for s in v["rina.ack.seq"].split(",")] \
			if v.get("rina.ack.seq") else []
		pkts.append(v)
	return pkts


class Checks:
	def __init__(self):
		self.why = {}

	def fail(self, name, why):
		self.why.setdefault(name, why)

	def report(self, names):
		for n in names:
			if n in self.why:
				print("fail %s: %s" % (n, self.why[n]))
			else:
				print("ok %s" % n)


def main():
	lua, out, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
	job = Job(out + "/job")
	ck = Checks()
	names = ["frames valid, job id", "control HELLO/BYE",
		 "data seqs per round", "header fields", "tx bytes = --json"]
	if job.ina:
		names += ["ToR control install/reply/remove",
			  "ToR-emitted packets", "agent allgather ACKs"]
	bench = {}
	for line in open(out + "/bench.out"):
		m = re.match(r"\[rank (\d+)\] (\{.*\})$", line.strip())
		if m:
			bench[int(m.group(1))] = json.loads(m.group(2))
	pk, mac = {}, {}
	for r in job.ranks:
		mac[r] = open("%s/mac%d" % (out, r)).read().strip().lower()
		pk[r] = decode(lua, "%s/rank%d.pcap" % (out, r))
	if len(bench) != job.N:
		ck.fail("tx bytes = --json", "%d of %d ranks printed JSON" %
			(len(bench), job.N))
	b0 = next(iter(bench.values())) if bench else {}
	count = b0.get("count", 4096)
	# float32: every call is a raw int32 MAX pass over one exponent per
	# E elements, then the fixed-point SUM (protocol.md section 7)
	fp = b0.get("dtype") == "float"
	per_call = 2 if fp else 1
	cnt = {}		# round -> elements of that call
	hashes = set()
	sessions = set()	# named by HELLO, HELLO_ACK, the ToR's control
	any_retx = any(b.get("retransmits", 0) for b in bench.values())

	for r, pkts in pk.items():
		ip, port, rack = job.ranks[r]
		i = job.member[r]
		ina = job.ring[i][2]
		agent = ina and job.ring[i][0] == r
		# the ToR's copies for the agent host come from the agent's
		# own IP and MAC, to that MAC: what a host sends goes to
		# another MAC
		sent = [p for p in pkts if p["eth.src"] == mac[r] and
			p["eth.dst"] != mac[r]]
		got = [p for p in pkts if p not in sent]
		# every frame: accepted by the validator, no expert info
		for p in pkts:
			if p["rina.verdict"] != "ok" or \
			   p["_ws.expert.message"] or \
			   p["rina.job_id"] != job.id:
				ck.fail(names[0], "rank %d frame %s: %s %s "
					"job %s" % (r, p["frame.number"],
					   p["rina.verdict"],
					   p["_ws.expert.message"],
					   p["rina.job_id"]))
		# control: HELLO to the next member, BYE, and the replies
		ct = lambda lst, t: [p for p in lst if p["rina.ctrl.type"] == t]
		for t, lst, what in ((1, sent, "sent HELLO"),
				     (4, sent, "sent BYE"),
				     (2, got, "got HELLO_ACK"),
				     (5, got, "got BYE_ACK")):
			if not ct(lst, t):
				ck.fail(names[1], "rank %d never %s" %
					(r, what))
		for p in ct(pkts, 1) + ct(pkts, 2):
			hashes.add(p["rina.ctrl.hash"])
			# but a worker's HELLO to its agent: it learns the
			# session from the answer
			if p["rina.ctrl.type"] == 2 or \
			   p["udp.dstport"] != AGENT_PORT or \
			   p["udp.srcport"] == AGENT_PORT:
				sessions.add(p["rina.ctrl.session"])
		# with a job secret every control message is signed (a stamp
		# and a MAC after struct rina_ctrl), without one none is
		for p in pkts:
			if p["rina.op"] == 6 and \
			   bool(p["rina.ctrl.mac"]) != job.secret:
				ck.fail(names[1], "rank %d frame %s: %s CTRL "
					"in a job %s a secret" %
					(r, p["frame.number"],
					 "a signed" if p["rina.ctrl.mac"]
					 else "an unsigned",
					 "with" if job.secret else "without"))

		tally = {}
		for p in sent:
			k = OPS[p["rina.op"]]
			tally[k] = tally.get(k, 0) + 1
		print("# rank %d (%s) sent: %s" % (r, bench.get(r, {}).get(
			"role", "?"), ", ".join("%s %d" % (k, tally[k])
						for k in sorted(tally))))
		data = [p for p in sent if p["udp.srcport"] == port and
			p["rina.op"] in (1, 2, 3) and
			not p["rina.flags"] & F_RETX]
		rounds = sorted({p["rina.round"] for p in data})
		nr = iters * per_call
		if len(rounds) != nr or \
		   rounds != list(range(rounds[0], rounds[0] + nr)):
			ck.fail(names[2], "rank %d data rounds %s" %
				(r, rounds))
		for rnd in rounds:
			pre = fp and (rnd - rounds[0]) % 2 == 0
			cnt[rnd] = math.ceil(count / job.E) if pre else count
			dt = {p["rina.dtype_op"] for p in data
			      if p["rina.round"] == rnd}
			want = {"0x11"} if pre else {"0x00"} if fp else \
				{"0x10"}
			if dt != want:
				ck.fail(names[3], "rank %d round %d dtype_op "
					"%s, want %s" % (r, rnd, dt, want))
		for rnd in rounds:
			mine = [p for p in data if p["rina.round"] == rnd]
			n = cnt[rnd]
			if ina:
				exp = {1: job.sr_seqs(i, n, job.L)}
			else:
				exp = {2: job.sr_seqs(i, n, job.L - 1),
				       3: job.ag_seqs(i, n)}
			for op in (1, 2, 3):
				seqs = [p["rina.seq"] for p in mine
					if p["rina.op"] == op]
				want = exp.get(op, set())
				if sorted(seqs) != sorted(want):
					ck.fail(names[2], "rank %d round %d op "
						"%d: %d seqs, want %d" %
						(r, rnd, op, len(seqs),
						 len(want)))
		# fields follow from the seq (protocol.md section 4)
		for p in data:
			P = job.sched(cnt[p["rina.round"]])[0]
			LP = job.L * P
			s = p["rina.seq"] % (2 * LP)
			ag = s >= LP
			c = (s - LP if ag else s) // P
			bad = []
			if p["rina.chunk"] != c:
				bad.append("chunk %d" % p["rina.chunk"])
			if p["rina.p_chunk"] != P:
				bad.append("p_chunk %d" % p["rina.p_chunk"])
			if ag != (p["rina.op"] == 3) or \
			   ag != bool(p["rina.flags"] & F_AG_PHASE):
				bad.append("phase")
			# allgather: the owner (c - 1) sends with hop 1
			hop = (i - c + 1) % job.L + 1
			if p["rina.op"] == 3 and p["rina.hop"] != hop:
				bad.append("hop %d" % p["rina.hop"])
			if p["rina.op"] == 3 and p["rina.num_contrib"] != job.N:
				bad.append("num_contrib %d" %
					   p["rina.num_contrib"])
			if p["rina.op"] == 1 and p["rina.num_contrib"] != 1:
				bad.append("num_contrib %d" %
					   p["rina.num_contrib"])
			if p["rina.src_id"] != r:
				bad.append("src_id %d" % p["rina.src_id"])
			if bad:
				ck.fail(names[3], "rank %d seq %d: %s" %
					(r, p["rina.seq"], ", ".join(bad)))
		# bytes: every frame of the rank's port, as rina-bench counts
		b = bench.get(r)
		if b:
			wport = [p for p in sent if p["udp.srcport"] == port]
			dbytes = sum(p["frame.len"] for p in wport
				     if p["rina.op"] in (1, 2, 3, 5))
			abytes = sum(p["frame.len"] for p in wport
				     if p["rina.op"] == 4)
			cfr = [p["frame.len"] for p in wport
			       if p["rina.op"] == 6]
			nctrl = len(cfr)
			# 86 B, or 102 B signed (n_elem 8): one size a run
			csz = max(cfr) if cfr else 86
			want_d = (b["tx_bytes"] - b["ack_tx_bytes"]) * iters
			want_a = b["ack_tx_bytes"] * iters
			# rina-bench also counts the control frames
			# this port sent while a call ran, e.g. HELLO_ACK to
			# a late upstream; ACKs after the last call
			# re-acknowledge a retransmission, without any there
			# are none
			extra = want_d - dbytes
			if extra < 0 or extra % csz or extra // csz > nctrl or \
			   (abytes != want_a and not any_retx) or \
			   abytes < want_a:
				ck.fail(names[4], "rank %d: data %d B (json "
					"%d, %d control frames), acks %d B "
					"(json %d)" % (r, dbytes, want_d,
						       nctrl, abytes, want_a))
		if not agent:
			continue

		# the agent host: ToR control, ToR copies, upstream ACKs
		tor = job.racks[rack][1]
		inst = [p for p in ct(sent, 16) if p["ip.dst"] == tor and
			p["udp.srcport"] == AGENT_PORT and
			p["udp.dstport"] == AGENT_PORT]
		rem = [p for p in ct(sent, 17) if p["ip.dst"] == tor]
		rep = [p for p in ct(got, 18) if p["ip.src"] == tor and
		       p["udp.srcport"] == AGENT_PORT]
		inst_no = {p["frame.number"] for p in inst}
		if not inst:
			ck.fail(names[5], "no TOR_INSTALL to %s" % tor)
		if len(rem) != 2:
			ck.fail(names[5], "%d TOR_REMOVE, want 2" % len(rem))
		# 4: ok, installed by that request (0: held already)
		ok_rep = [p for p in rep if p["rina.ctrl.status"] in ("0", "4") and
			  p["rina.flags"] & F_FROM_SWITCH and
			  p["rina.src_id"] == 0xf000 | rack and
			  p["rina.tor.request_in"] and
			  int(p["rina.tor.request_in"]) in inst_no]
		if not ok_rep:
			ck.fail(names[5], "no TOR_REPLY ok answering an "
				"install: %s" % [(p["rina.ctrl.status"],
						  p["rina.tor.request_in"])
						 for p in rep])
		for p in inst + rem + rep:
			hashes.add(p["rina.ctrl.hash"])
			sessions.add(p["rina.ctrl.session"])
		# what the ToR emits leaves from the agent's address: seen
		# at the downstream member as one member's packets
		nxt = job.ring[(i + 1) % job.L][0]
		emitted = [p for p in pk[nxt] if p["ip.src"] == ip and
			   p["udp.srcport"] == AGENT_PORT and
			   p["rina.flags"] & F_FROM_SWITCH and
			   p["rina.op"] in (2, 3) and
			   not p["rina.flags"] & F_RETX]
		for rnd in rounds:
			n = cnt[rnd]
			for op, want in ((2, job.sr_seqs(i, n, job.L - 1)),
					 (3, job.ag_seqs(i, n))):
				seqs = sorted(p["rina.seq"] for p in emitted
					      if p["rina.op"] == op and
					      p["rina.round"] == rnd)
				if seqs != sorted(want):
					ck.fail(names[6], "round %d op %d: %d "
						"seqs, want %d" % (rnd, op,
						len(seqs), len(want)))
		for p in emitted:	# AG copies keep the sender's
			if p["rina.op"] == 2 and \
			   p["rina.src_id"] != 0xf000 | rack:
				ck.fail(names[6], "src_id %#x" %
					p["rina.src_id"])
		# allgather data from upstream is ACKed by the agent
		prv = job.ranks[job.ring[(i - 1) % job.L][0]][0]
		for rnd in rounds:
			acked = set()
			for p in sent:
				if p["rina.op"] == 4 and \
				   p["ip.dst"] == prv and \
				   p["rina.flags"] & F_AG_PHASE and \
				   p["rina.round"] == rnd:
					acked.update(p["acks"])
			want = job.ag_seqs(i, cnt[rnd],
					   [c for c in range(job.L)
					    if c != (i + 1) % job.L])
			if acked != want:
				ck.fail(names[7], "round %d: %d seqs acked, "
					"want %d" % (rnd, len(acked),
						      len(want)))
	if len(hashes) != 1:
		ck.fail(names[1], "job hashes %s" % sorted(hashes))
	# one communicator per run: one session, drawn by the ring's first
	# member and passed round (protocol.md 6, Init); the ToR's replies
	# echo it
	if len(sessions) != 1 or int(min(sessions), 16) == 0:
		ck.fail(names[1], "sessions %s" % sorted(sessions))
	ck.report(names)


if __name__ == "__main__":
	try:
		main()
	except (OSError, RuntimeError, ValueError, KeyError) as e:
		print("fail capture: %s" % e)
