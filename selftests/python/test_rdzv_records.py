# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Fuzzing of the torch backend's rendezvous records (python/rina/
torch.py: parse_record, parse_job_id, parse_secret, build_job_text):
what a rank reads from torch's c10d store before it builds the job text
that librina's job-file parser takes (that parser: core_fuzz). The
records are parsed in Python, not in C or C++ (rina_c10d.cpp is handed
the finished text), so this fuzzes with Hypothesis, derandomized and
bounded in examples like fuzz_run.sh's fixed seed and time:

- any bytes, any JSON value in any field: a record is a dict of the
  known fields within their bounds, or a ValueError naming the rank and
  the field; nothing else escapes (no TypeError, KeyError, ...);
- from accepted records, the job text has exactly one rank line per
  rank and no line of the records' making (no injected secret_file,
  rank or rack line);
- rank 0 meeting a malformed record in a HashStore: a clear error
  naming the other rank, never a traceback from json or from '%d'.
Before the checks, a record whose addr held a newline put lines of its
own into the job text, and one with a string rack or a non-JSON value
failed with a bare TypeError or JSONDecodeError."""
import atexit
import datetime
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..",
                                                 "python")))

# Hypothesis's caches (its unicode tables) in a directory of its own,
# not .hypothesis/ in the tree the test runs from
_CACHE = tempfile.mkdtemp(prefix="rina-hypothesis.")
atexit.register(shutil.rmtree, _CACHE, True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _CACHE

try:
    import torch.distributed as dist
    import rina.torch as rt
    from hypothesis import given, settings, HealthCheck
    from hypothesis import strategies as st
    WHY = None
except ImportError as e:
    WHY = "needs torch and hypothesis (python3-torch, python3-hypothesis)" \
        ": %s" % e

    def given(*a, **k):
        return lambda f: f

    def settings(*a, **k):
        return lambda f: f
    st = HealthCheck = None

# bounded like a libFuzzer run in CI: a fixed seed, a fixed count
EXAMPLES = int(os.environ.get("RINA_RDZV_EXAMPLES", "400"))
FUZZ = dict(max_examples=EXAMPLES, derandomize=True, deadline=None,
            database=None, suppress_health_check=list(HealthCheck)
            if HealthCheck else [])

GOOD = {"addr": "198.18.0.1", "rack": 0, "rack_src": "RINA_RACK",
        "port": 21056, "port_src": "RINA_PORT 21056",
        "settings": "0123456789abcdef",
        "settings_src": "environment (defaults), digest 0123456789abcdef",
        "size": 2, "size_src": "world size 2", "host": "h0-0"}

if st is not None:
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() |
        st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=4) |
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=8)
    # near-misses of each field: what a parser gets wrong
    field_values = json_values | st.sampled_from([
        "198.18.0.1\nsecret_file /etc/shadow", "198.18.0.1 ", " 198.18.0.1",
        "198.018.0.1", "198.18.0", "198.18.0.1:21056", "localhost", "",
        "0123456789ABCDEF", "0123456789abcde", "x" * 5000, "a\x00b",
        True, False, -1, 65536, 1 << 64, 1.0, "0", "1e3", 2 ** 20 + 1])
    records = st.fixed_dictionaries(
        {}, optional={k: field_values for k in GOOD}).map(
            lambda d: {**GOOD, **d}) | st.dictionaries(
                st.sampled_from(sorted(GOOD)), field_values)


def check_record(tc, rec):
    for k in rt._RECORD:
        tc.assertIs(type(rec[k]), rt._RECORD[k][0], k)
        tc.assertTrue(rt._RECORD[k][1](rec[k]), k)
    tc.assertRegex(rec["addr"], r"^\d{1,3}(\.\d{1,3}){3}$")
    tc.assertLessEqual(rec["rack"], 65535)


@unittest.skipIf(WHY, WHY or "")
class Records(unittest.TestCase):
    @settings(**FUZZ)
    @given(st.binary(max_size=512) if st else None,
           st.integers(0, 7) if st else None)
    def test_any_bytes(self, raw, r):
        try:
            check_record(self, rt.parse_record(raw, r))
        except ValueError as e:
            self.assertIn("rank %d's rendezvous record" % r, str(e))

    @settings(**FUZZ)
    @given(records if st else None)
    def test_any_fields(self, rec):
        raw = json.dumps(rec).encode()
        try:
            out = rt.parse_record(raw, 3)
        except ValueError as e:
            self.assertIn("rank 3's rendezvous record", str(e))
            self.assertLess(len(str(e)), 300)
            return
        check_record(self, out)
        self.assertEqual(out, {k: rec[k] for k in rt._RECORD})

    @settings(**FUZZ)
    @given(st.binary(max_size=64) if st else None)
    def test_job_id_and_secret(self, raw):
        try:
            self.assertTrue(1 <= rt.parse_job_id(raw) <= 65535)
        except ValueError as e:
            self.assertIn("rina/job_id", str(e))
        try:
            self.assertRegex(rt.parse_secret(raw), r"^([0-9a-f]{32})?$")
        except ValueError as e:
            self.assertIn("rina/secret", str(e))

    @settings(**FUZZ)
    @given(st.lists(records, min_size=1, max_size=6) if st else None,
           st.integers(1, 65535) if st else None)
    def test_job_text(self, recs, job_id):
        """Only accepted records reach the job text: one rank line each,
        nothing else from them."""
        infos = []
        for r, rec in enumerate(recs):
            try:
                infos.append(rt.parse_record(json.dumps(rec).encode(), r))
            except ValueError:
                pass
        settings_lines = ["elements 64"]
        text = rt.build_job_text(settings_lines, infos, job_id, None)
        lines = text.splitlines()
        self.assertTrue(text.endswith("\n"))
        ranks = [l for l in lines if l.startswith("rank ")]
        self.assertEqual(len(ranks), len(infos))
        for r, (l, i) in enumerate(zip(ranks, infos)):
            self.assertRegex(l, r"^rank %d %s:\d+ rack %d$" % (
                r, re.escape(i["addr"]), i["rack"]))
        racks = {i["rack"] for i in infos}
        self.assertEqual(lines, ["job %d" % job_id] + settings_lines +
                         ["rack %d plain" % k for k in sorted(racks)] +
                         ranks)


class FakeExt:
    """rina_c10d's place: records the job text instead of a ring."""
    texts = []

    class ProcessGroupRina:
        def __init__(self, rank, size, text, transport, timeout_ms,
                     ring_of):
            FakeExt.texts.append(text)

        def shutdown(self):
            pass


@unittest.skipIf(WHY, WHY or "")
class StoreRecords(unittest.TestCase):
    """Rank 0's _create against a store where rank 1's record is
    written by the test (what another program on the store could do)."""

    def setUp(self):
        self._ext = rt._extension
        rt._extension = lambda: FakeExt
        FakeExt.texts = []

    def tearDown(self):
        rt._extension = self._ext

    def rank0(self, rank1_raw, job_id=b"7", secret=b""):
        store = dist.HashStore()
        env = {"RINA_ADDR": "198.18.0.1", "RINA_SECRET_FILE": "/dev/null"}
        out = []

        def run():
            try:
                out.append(rt._create(store, 0, 2,
                                      datetime.timedelta(seconds=5), env))
            except Exception as e:		# what the test looks at
                out.append(e)
        t = threading.Thread(target=run)
        t.start()
        store.wait(["rina/rank/0"], datetime.timedelta(seconds=5))
        # after rank 0's own keys, as a slower rank 1 would write
        store.set("rina/job_id", job_id)
        store.set("rina/secret", secret)
        store.set("rina/rank/1", rank1_raw)
        me = json.loads(store.get("rina/rank/0"))
        for k in ("records", "settings", "init"):
            store.set("rina/known/%s/1" % k, "1")
        store.set("rina/init/1", "")
        t.join(30)
        self.assertFalse(t.is_alive(), "rank 0 hangs")
        return out[0], me

    def test_valid_record_joins(self):
        store_me = dict(GOOD, addr="198.18.0.2")
        got, me = self.rank0(b"")		# learn rank 0's digest
        store_me.update(settings=me["settings"],
                        settings_src=me["settings_src"])
        got, _ = self.rank0(json.dumps(store_me).encode())
        self.assertNotIsInstance(got, Exception)
        self.assertIn("rank 1 198.18.0.2:21056 rack 0\n", FakeExt.texts[-1])

    def test_malformed_records_named(self):
        for raw, want in [
                (b"", "rank 1's rendezvous record (rina/rank/1): not JSON"),
                (b"\xff\xfe", "not JSON"),
                (b"[1, 2]", "not a JSON object"),
                (json.dumps(dict(GOOD, rack="0")).encode(),
                 "rack '0' is not a rack number"),
                (json.dumps(dict(GOOD, addr="198.18.0.2\nsecret_file /x"))
                 .encode(), "addr '198.18.0.2\\nsecret_file /x' is not an "
                 "IPv4 address"),
                (json.dumps({k: v for k, v in GOOD.items() if k != "size"})
                 .encode(), "no size")]:
            got, _ = self.rank0(raw)
            self.assertIsInstance(got, RuntimeError, raw)
            self.assertIn("rina backend: rank 0: ", str(got))
            self.assertIn(want, str(got))
        self.assertEqual(FakeExt.texts, [])

    def test_bad_job_id_and_secret(self):
        good = json.dumps(GOOD).encode()
        got, _ = self.rank0(good, job_id=b"0")
        self.assertIn("rina/job_id '0' is not a job id", str(got))
        got, _ = self.rank0(good, secret=b"../../etc/passwd")
        self.assertIn("rina/secret is not 32 hex digits", str(got))


if __name__ == "__main__":
    unittest.main()
