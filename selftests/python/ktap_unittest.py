#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Run unittest modules and print KTAP (one line per test case); exit 0 on
success, 1 on a failure, 4 when everything was skipped. pytest is not
needed: usage: ktap_unittest.py test_bindings [test_ddp ...]"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))


class KtapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = self.npass = self.nfail = self.nskip = 0

    def _line(self, test, ok, note=""):
        self.n += 1
        name = "%s.%s" % (type(test).__name__, test._testMethodName)
        print("%s %d %s%s" % ("ok" if ok else "not ok", self.n, name, note),
              flush=True)

    def addSuccess(self, test):
        self.npass += 1
        self._line(test, True)

    def _failed(self, test, err):
        self.nfail += 1
        for line in self._exc_info_to_string(err, test).splitlines():
            print("# " + line)
        self._line(test, False)

    addFailure = addError = _failed

    def addSkip(self, test, reason):
        self.nskip += 1
        self._line(test, True, " # SKIP " + reason)

    def addExpectedFailure(self, test, err):
        self._failed(test, err)

    def addUnexpectedSuccess(self, test):
        self.nfail += 1
        self._line(test, False)


def main():
    suite = unittest.TestSuite()
    for name in sys.argv[1:]:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromName(name))
    print("TAP version 13")
    print("1..%d" % suite.countTestCases(), flush=True)
    res = KtapResult()
    suite.run(res)
    print("# Totals: pass:%d fail:%d skip:%d" % (res.npass, res.nfail,
                                                 res.nskip))
    if res.nfail or res.n != suite.countTestCases():
        return 1
    return 0 if res.npass else 4


if __name__ == "__main__":
    sys.exit(main())
