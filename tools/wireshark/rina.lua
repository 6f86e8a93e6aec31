-- SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
--
-- Wireshark dissector for Rina (in-network aggregation for Ring-AllReduce):
-- the 28-byte Rina header, its payloads (data words, ACK/NACK seq lists,
-- control messages) and the ToR control protocol (TOR_INSTALL, TOR_REMOVE,
-- TOR_REPLY), with one expert field per reason of the shared validator
-- (core/wire.h, rina_hdr_check()), checked in the same order.
--
--   tshark -X lua_script:tools/wireshark/rina.lua -r capture.pcap
--
-- Wire format: include/uapi/linux/rina.h; fields: Documentation/protocol.md
-- and Documentation/protocol-ina.md; usage: Documentation/wireshark.md.

local rina = Proto("rina", "Rina (Ring-AllReduce with in-network aggregation)")

-- ---- constants (include/uapi/linux/rina.h) ---------------------------

local RINA_VERSION = 1
local RINA_HDR_LEN = 28
local RINA_MAX_ELEMS = 1024
local RINA_CTRL_WORDS = 4
local RINA_X_TAG = 0x8000
local RINA_X_MAC = 0x4000	-- auth mac: a per-packet MAC instead
local RINA_TAG_LEN = 8
local RINA_CTRL_AUTH_WORDS = 8	-- signed: struct rina_ctrl_auth follows
local RINA_UDP_PORT_MIN = 0x5240	-- 21056
local RINA_UDP_PORT_MAX = 0x524f	-- 21071, the agent port
local RINA_SRC_SWITCH = 0xf000

local OP_SR_CONTRIB, OP_SR_PARTIAL, OP_AG_DATA = 1, 2, 3
local OP_ACK, OP_NACK, OP_CTRL = 4, 5, 6
local OP_MAX = OP_CTRL

local opcodes = {
	[1] = "SR_CONTRIB", [2] = "SR_PARTIAL", [3] = "AG_DATA",
	[4] = "ACK", [5] = "NACK", [6] = "CTRL",
}

local ctrl_types = {
	[1] = "HELLO", [2] = "HELLO_ACK", [3] = "ABORT", [4] = "BYE",
	[5] = "BYE_ACK", [6] = "STALL", [7] = "TOR_LOST", [8] = "TOR_ON",
	[16] = "TOR_INSTALL", [17] = "TOR_REMOVE", [18] = "TOR_REPLY",
}
local CTRL_ABORT, CTRL_TOR_INSTALL, CTRL_TOR_REMOVE, CTRL_TOR_REPLY =
	3, 16, 17, 18

-- TOR_REPLY arg (protocol-ina.md section 9, p4/tor/rina-tor.c)
local tor_status = {
	[0] = "ok", [1] = "unknown job", [2] = "no slots left",
	[3] = "bad parameters", [4] = "installed",
}

-- ABORT arg, bits 0-6: enum rina_result (user/include/rina.h)
local results = {
	[0] = "RINA_OK", [1] = "RINA_ERR_INVALID", [2] = "RINA_ERR_JOBFILE",
	[3] = "RINA_ERR_SYSTEM", [4] = "RINA_ERR_NOMEM",
	[5] = "RINA_ERR_TIMEOUT", [6] = "RINA_ERR_ABORTED",
	[7] = "RINA_ERR_MISMATCH", [8] = "RINA_ERR_OVERFLOW",
	[9] = "RINA_ERR_NONFINITE", [10] = "RINA_ERR_TRANSPORT",
	[11] = "RINA_ERR_BROKEN",
}

local dtypes = { [0] = "int32 fixed point (float32)", [1] = "int32" }
local redops = { [0] = "SUM", [1] = "MAX" }

-- flag bit -> name, in bit order (enum rina_hdr_flags)
local flag_names = {
	{ 0x01, "RETX" }, { 0x02, "LAST" }, { 0x04, "OWN_FINAL" },
	{ 0x08, "SW_BYPASS" }, { 0x10, "OVERFLOW" }, { 0x20, "ECN_ECHO" },
	{ 0x40, "FROM_SWITCH" }, { 0x80, "AG_PHASE" },
}

-- ---- fields (names as in Documentation/protocol.md) ------------------

local f = {
	ver = ProtoField.uint8("rina.ver", "Version", base.DEC, nil, 0xf0),
	op = ProtoField.uint8("rina.op", "Opcode", base.DEC, opcodes, 0x0f),
	flags = ProtoField.uint8("rina.flags", "Flags", base.HEX),
	job_id = ProtoField.uint16("rina.job_id", "Job", base.DEC),
	round = ProtoField.uint16("rina.round", "Round", base.DEC),
	step = ProtoField.uint8("rina.step", "Step", base.DEC),
	hop = ProtoField.uint8("rina.hop", "Hop", base.DEC),
	src_id = ProtoField.uint16("rina.src_id", "Source", base.DEC),
	src_rack = ProtoField.uint16("rina.src_rack",
				     "Source ToR of rack", base.DEC),
	chunk = ProtoField.uint16("rina.chunk", "Chunk", base.DEC),
	seq = ProtoField.uint32("rina.seq", "Sequence", base.DEC),
	slot = ProtoField.uint16("rina.slot", "Slot", base.DEC),
	n_elem = ProtoField.uint16("rina.n_elem", "Payload words", base.DEC),
	p_chunk = ProtoField.uint16("rina.p_chunk", "Packets per chunk",
				    base.DEC),
	num_contrib = ProtoField.uint16("rina.num_contrib", "Contributions",
					base.DEC),
	exp = ProtoField.int8("rina.exp", "Block exponent", base.DEC),
	dtype_op = ProtoField.uint8("rina.dtype_op", "Data type and reduction",
				    base.HEX),
	dtype = ProtoField.uint8("rina.dtype_op.dtype", "Data type", base.DEC,
				 dtypes, 0xf0),
	redop = ProtoField.uint8("rina.dtype_op.op", "Reduction", base.DEC,
				 redops, 0x0f),
	rsvd = ProtoField.uint16("rina.rsvd", "Reserved", base.HEX),

	data = ProtoField.bytes("rina.data", "Data"),
	data_value = ProtoField.int32("rina.data.value", "Value", base.DEC),
	ack_seq = ProtoField.uint32("rina.ack.seq", "Acknowledged seq",
				    base.DEC),
	nack_seq = ProtoField.uint32("rina.nack.seq", "Missing seq", base.DEC),

	ctrl_type = ProtoField.uint32("rina.ctrl.type", "Control type",
				      base.DEC, ctrl_types),
	ctrl_arg = ProtoField.uint32("rina.ctrl.arg", "Argument", base.DEC),
	ctrl_status = ProtoField.uint32("rina.ctrl.status", "ToR status",
					base.DEC, tor_status),
	ctrl_result = ProtoField.uint32("rina.ctrl.result", "Aborter's result",
					base.DEC, results, 0x0000007f),
	-- core/abort.h: with bit 7, the rank a plain member gave up on
	ctrl_dead = ProtoField.uint32("rina.ctrl.dead_rank",
				      "Rank that stopped answering", base.DEC,
				      nil, 0x00ffff00),
	-- core/abort.h: an agent's silent local workers, bit k: index k
	ctrl_silent = ProtoField.uint32("rina.ctrl.silent",
					"Silent local workers", base.HEX, nil,
					0xffffff00),
	ctrl_hash = ProtoField.uint64("rina.ctrl.hash", "Job hash", base.HEX),
	-- the ring's session (linux/rina.h): seq, then chunk and slot
	ctrl_session = ProtoField.uint64("rina.ctrl.session", "Session",
					 base.HEX),
	-- a signed CTRL (n_elem 8, protocol.md 6.2): the sender's wall clock
	-- in microseconds and the SipHash-2-4 MAC under the job secret (a
	-- dissector without the secret shows it, cannot check it)
	ctrl_stamp = ProtoField.uint64("rina.ctrl.stamp", "Stamp (us)",
				       base.DEC),
	ctrl_stamp_time = ProtoField.absolute_time("rina.ctrl.stamp_time",
						   "Stamp time",
						   base.UTC),
	ctrl_mac = ProtoField.bytes("rina.ctrl.mac", "MAC"),
	ctrl_signed = ProtoField.bool("rina.ctrl.signed", "Signed"),
	tor_reply_in = ProtoField.framenum("rina.tor.reply_in", "Reply in",
					   base.NONE, frametype.RESPONSE),
	tor_request_in = ProtoField.framenum("rina.tor.request_in",
					     "Request in", base.NONE,
					     frametype.REQUEST),

	verdict = ProtoField.string("rina.verdict", "Validator verdict"),
}
for _, fl in ipairs(flag_names) do
	local key = "flag_" .. fl[2]:lower()
	f[key] = ProtoField.bool("rina.flags." .. fl[2]:lower(), fl[2], 8,
				 nil, fl[1])
end

local field_list = {}
for _, v in pairs(f) do
	field_list[#field_list + 1] = v
end
rina.fields = field_list

-- ---- expert info: one per validator reason (enum rina_parse_err) -----

local reasons = {
	runt = "shorter than the Rina header (28 bytes)",
	bad_version = "version is not 1",
	bad_opcode = "unknown opcode",
	oversize = "n_elem above 1024 (RINA_MAX_ELEMS)",
	bad_length = "n_elem disagrees with the UDP payload length",
	bad_field = "reserved field not zero",
	bad_dtype = "unknown data type or reduction",
	unknown_job = "job id not in the configured job list",
}
local ex = {}
local expert_list = {}
for name, text in pairs(reasons) do
	ex[name] = ProtoExpert.new("rina.malformed." .. name, text,
				   expert.group.MALFORMED,
				   expert.severity.ERROR)
	expert_list[#expert_list + 1] = ex[name]
end
ex.truncated = ProtoExpert.new("rina.truncated",
			       "captured bytes end before the packet does",
			       expert.group.UNDECODED, expert.severity.WARN)
expert_list[#expert_list + 1] = ex.truncated
rina.experts = expert_list

-- ---- preferences -----------------------------------------------------

rina.prefs.words = Pref.uint("Data words shown", 16,
			     "int32 payload words listed per data packet")
rina.prefs.jobs = Pref.string("Known jobs", "",
			      "comma-separated job ids; packets of other " ..
			      "jobs are flagged unknown_job (empty: no check)")
rina.prefs.heuristic = Pref.bool("Heuristic on other UDP ports", true,
				 "recognise valid Rina headers on UDP ports " ..
				 "outside 21056..21071")

local known_jobs = nil

local function parse_jobs()
	known_jobs = nil
	for id in string.gmatch(rina.prefs.jobs or "", "%d+") do
		known_jobs = known_jobs or {}
		known_jobs[tonumber(id)] = true
	end
end

function rina.prefs_changed()
	parse_jobs()
end
parse_jobs()

-- ---- the validator, in core/wire.h's order ---------------------------

-- Returns the reason name ("ok" when valid), or nil when the captured
-- bytes end before the byte a check needs (a snaplen cut: the verdict
-- cannot be decided). len is the UDP payload length on the wire.
local function rina_hdr_check(tvb, len)
	local cap = tvb:len()

	if len < RINA_HDR_LEN then
		return "runt"
	end
	if cap < 1 then
		return nil
	end
	local ver_op = tvb(0, 1):uint()
	if math.floor(ver_op / 16) ~= RINA_VERSION then
		return "bad_version"
	end
	local op = ver_op % 16
	if op < OP_SR_CONTRIB or op > OP_MAX then
		return "bad_opcode"
	end
	if cap < 20 then
		return nil
	end
	local n = tvb(18, 2):uint()
	if n > RINA_MAX_ELEMS then
		return "oversize"
	end
	if cap < RINA_HDR_LEN then
		return nil
	end
	-- rsvd RINA_X_TAG / RINA_X_MAC: the job's data tag or the packet's
	-- MAC follows the payload
	local rsvd = tvb(26, 2):uint()
	local trailer = (rsvd == RINA_X_TAG or rsvd == RINA_X_MAC) and
		RINA_TAG_LEN or 0
	if len ~= RINA_HDR_LEN + n * 4 + trailer then
		return "bad_length"
	end
	if rsvd ~= 0 and (trailer == 0 or op == OP_CTRL) then
		return "bad_field"
	end
	if op <= OP_AG_DATA then
		local dt = tvb(25, 1):uint()
		if math.floor(dt / 16) > 1 or dt % 16 > 1 then
			return "bad_dtype"
		end
		if n == 0 then
			return "bad_length"
		end
	elseif op == OP_CTRL then
		if n ~= RINA_CTRL_WORDS and n ~= RINA_CTRL_AUTH_WORDS then
			return "bad_length"
		end
	elseif n == 0 then	-- ACK, NACK: at least one seq
		return "bad_length"
	end
	return "ok"
end

-- ---- ToR control request/reply matching ------------------------------

-- key (job, hash, client address:port) -> requests in order, each
-- { req = frame, rep = frame }; frame number -> its request/reply pair
local tor_pairs = {}

function rina.init()
	tor_pairs = {}
end

local function tor_key(pinfo, job, hash, client_is_src)
	local addr, port
	if client_is_src then
		addr, port = tostring(pinfo.src), pinfo.src_port
	else
		addr, port = tostring(pinfo.dst), pinfo.dst_port
	end
	return string.format("%d/%s/%s:%d", job, tostring(hash), addr, port)
end

-- ---- dissection --------------------------------------------------------

local function flags_text(v)
	local t = {}
	for _, fl in ipairs(flag_names) do
		if v % (fl[1] * 2) >= fl[1] then
			t[#t + 1] = fl[2]
		end
	end
	return table.concat(t, ",")
end

-- Adds a field only when its bytes were captured.
local function add(tree, field, tvb, off, len, cap)
	if off + len <= cap then
		return tree:add(field, tvb(off, len))
	end
	return nil
end

local function dissect_words(tree, tvb, n, cap, field, label, all)
	local shown = n
	local limit = all and n or rina.prefs.words
	if shown > limit then
		shown = limit
	end
	local avail = math.floor((cap - RINA_HDR_LEN) / 4)
	if avail < 0 then
		avail = 0
	end
	if shown > avail then
		shown = avail
	end
	local sub
	if RINA_HDR_LEN + 4 * n <= cap and n > 0 then
		sub = tree:add(f.data, tvb(RINA_HDR_LEN, 4 * n))
	else
		sub = tree:add(rina, tvb(RINA_HDR_LEN))
	end
	sub:set_text(string.format("%s: %d x %s%s", label, n,
				   field == f.data_value and "int32" or "u32",
				   shown < n and
				   string.format(" (first %d shown)", shown)
				   or ""))
	for i = 0, shown - 1 do
		sub:add(field, tvb(RINA_HDR_LEN + 4 * i, 4))
	end
	return sub
end

local function dissect_ctrl(tree, tvb, pinfo, cap, job)
	local base_off = RINA_HDR_LEN
	if cap < base_off + 16 then
		return nil
	end
	local ctype = tvb(base_off, 4):uint()
	local arg = tvb(base_off + 4, 4):uint()
	local hash = tvb(base_off + 8, 8):uint64()
	local name = ctrl_types[ctype] or string.format("type %d", ctype)
	local is_tor = ctype >= CTRL_TOR_INSTALL and ctype <= CTRL_TOR_REPLY
	local signed = tvb(18, 2):uint() == RINA_CTRL_AUTH_WORDS
	local body = (signed and cap >= base_off + 32) and 32 or 16
	local sub = tree:add(rina, tvb(base_off, body))
	sub:set_text(is_tor and "ToR control: " .. name or "Control: " .. name)
	sub:add(f.ctrl_type, tvb(base_off, 4))
	if ctype == CTRL_TOR_REPLY then
		sub:add(f.ctrl_status, tvb(base_off + 4, 4))
	elseif ctype == CTRL_ABORT then
		sub:add(f.ctrl_result, tvb(base_off + 4, 4))
		if arg % 256 >= 128 then
			sub:add(f.ctrl_dead, tvb(base_off + 4, 4))
		else
			sub:add(f.ctrl_silent, tvb(base_off + 4, 4))
		end
	else
		sub:add(f.ctrl_arg, tvb(base_off + 4, 4))
	end
	sub:add(f.ctrl_hash, tvb(base_off + 8, 8))
	sub:add(f.ctrl_session, tvb(10, 8),
		UInt64.new(tvb(10, 2):uint() * 65536 + tvb(16, 2):uint(),
			   tvb(12, 4):uint())):set_generated()
	sub:add(f.ctrl_signed, signed):set_generated()
	if body == 32 then
		local st = tvb(base_off + 16, 8):uint64()
		sub:add(f.ctrl_stamp, tvb(base_off + 16, 8))
		sub:add(f.ctrl_stamp_time, tvb(base_off + 16, 8),
			NSTime.new((st / 1000000):tonumber(),
				   (st % 1000000):tonumber() * 1000))
			:set_generated()
		sub:add(f.ctrl_mac, tvb(base_off + 24, 8))
	end

	if is_tor then
		-- a reply answers the oldest unanswered request (INSTALL or
		-- REMOVE) of that client for that job and hash
		local req = ctype ~= CTRL_TOR_REPLY
		local key = tor_key(pinfo, job, hash, req)
		if not pinfo.visited and not pinfo.in_error_pkt then
			local q = tor_pairs[key] or {}
			tor_pairs[key] = q
			if req then
				q[#q + 1] = { req = pinfo.number }
			else
				for _, p in ipairs(q) do
					if not p.rep then
						p.rep = pinfo.number
						tor_pairs[pinfo.number] = p
						break
					end
				end
			end
			if req then
				tor_pairs[pinfo.number] = q[#q]
			end
		end
		local p = tor_pairs[pinfo.number]
		if p and req and p.rep then
			sub:add(f.tor_reply_in, p.rep):set_generated()
		elseif p and not req then
			sub:add(f.tor_request_in, p.req):set_generated()
		end
	end
	local info = signed and name .. " (signed)" or name
	if ctype == CTRL_TOR_REPLY then
		info = info .. " " .. (tor_status[arg] or tostring(arg))
	elseif ctype == CTRL_ABORT then
		local res, silent = arg % 128, math.floor(arg / 256)
		info = info .. " " .. (results[res] or tostring(res))
		if arg % 256 >= 128 then
			info = info .. string.format(" rank %d stopped answering",
						     silent % 65536)
		elseif silent ~= 0 then
			info = info .. string.format(" silent 0x%x", silent)
		end
	end
	return info
end

local function dissect(tvb, pinfo, tree)
	local cap = tvb:len()
	local len = tvb:reported_length_remaining()
	local verdict = rina_hdr_check(tvb, len)

	if verdict == "ok" and known_jobs and
	   not known_jobs[tvb(2, 2):uint()] then
		verdict = "unknown_job"
	end

	pinfo.cols.protocol = "Rina"
	local t = tree:add(rina, tvb())
	local function hdr(field, off, n)
		return add(t, field, tvb, off, n, cap)
	end

	hdr(f.ver, 0, 1)
	hdr(f.op, 0, 1)
	local fl = hdr(f.flags, 1, 1)
	if fl then
		local v = tvb(1, 1):uint()
		fl:append_text(v ~= 0 and " (" .. flags_text(v) .. ")" or "")
		for _, b in ipairs(flag_names) do
			fl:add(f["flag_" .. b[2]:lower()], tvb(1, 1))
		end
	end
	hdr(f.job_id, 2, 2)
	hdr(f.round, 4, 2)
	hdr(f.step, 6, 1)
	hdr(f.hop, 7, 1)
	local src = hdr(f.src_id, 8, 2)
	if src then
		local v = tvb(8, 2):uint()
		if v >= RINA_SRC_SWITCH then
			src:append_text(string.format(" (ToR of rack %d)",
						      v - RINA_SRC_SWITCH))
			src:add(f.src_rack, tvb(8, 2), v - RINA_SRC_SWITCH)
				:set_generated()
		end
	end
	hdr(f.chunk, 10, 2)
	hdr(f.seq, 12, 4)
	hdr(f.slot, 16, 2)
	hdr(f.n_elem, 18, 2)
	hdr(f.p_chunk, 20, 2)
	hdr(f.num_contrib, 22, 2)
	local e = hdr(f.exp, 24, 1)
	if e and tvb(24, 1):int() == -128 then
		e:append_text(" (none)")
	end
	local d = hdr(f.dtype_op, 25, 1)
	if d then
		d:add(f.dtype, tvb(25, 1))
		d:add(f.redop, tvb(25, 1))
	end
	hdr(f.rsvd, 26, 2)

	local vt = t:add(f.verdict, verdict or "undecided (truncated capture)")
	vt:set_generated()
	if verdict and verdict ~= "ok" then
		t:add_proto_expert_info(ex[verdict])
	end
	if cap < len then
		t:add_proto_expert_info(ex.truncated,
					string.format("captured %d of %d bytes",
						      cap, len))
	end

	local op = cap >= 1 and tvb(0, 1):uint() % 16 or 0
	local info = opcodes[op] or string.format("op %d", op)
	if cap >= RINA_HDR_LEN then
		local n = tvb(18, 2):uint()
		local job = tvb(2, 2):uint()
		local detail
		-- payloads are decoded only when the validator accepts them:
		-- what it rejects, every Rina parser drops
		if verdict == "ok" or verdict == "unknown_job" or
		   verdict == nil then
			if op <= OP_AG_DATA then
				dissect_words(t, tvb, n, cap, f.data_value,
					      "Data", false)
			elseif op == OP_ACK then
				dissect_words(t, tvb, n, cap, f.ack_seq,
					      "Acknowledged seqs", true)
			elseif op == OP_NACK then
				dissect_words(t, tvb, n, cap, f.nack_seq,
					      "Missing seqs", true)
			elseif op == OP_CTRL then
				detail = dissect_ctrl(t, tvb, pinfo, cap, job)
			end
		end
		if detail then
			info = info .. " " .. detail
		end
		info = info .. string.format(" job=%d round=%d", job,
					     tvb(4, 2):uint())
		if op ~= OP_CTRL then
			info = info .. string.format(" chunk=%d seq=%d " ..
						     "slot=%d n=%d",
						     tvb(10, 2):uint(),
						     tvb(12, 4):uint(),
						     tvb(16, 2):uint(), n)
		end
		local fv = tvb(1, 1):uint()
		if fv ~= 0 then
			info = info .. " [" .. flags_text(fv) .. "]"
		end
	end
	if verdict and verdict ~= "ok" then
		info = info .. " [Malformed: " .. verdict .. "]"
	end
	t:append_text(", " .. info)
	pinfo.cols.info = info
	return cap
end

function rina.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree)
end

-- Other ports: only what the validator accepts in full, so that no other
-- protocol's datagrams are taken for Rina.
local function heuristic(tvb, pinfo, tree)
	if not rina.prefs.heuristic then
		return false
	end
	if tvb:len() < RINA_HDR_LEN or tvb:len() ~=
	   tvb:reported_length_remaining() then
		return false
	end
	if rina_hdr_check(tvb, tvb:len()) ~= "ok" then
		return false
	end
	dissect(tvb, pinfo, tree)
	return true
end

DissectorTable.get("udp.port"):add(string.format("%d-%d", RINA_UDP_PORT_MIN,
						 RINA_UDP_PORT_MAX), rina)
rina:register_heuristic("udp", heuristic)
