# SPDX-License-Identifier: GPL-2.0
"""The tools step's way of running a unittest module: one "PASS: <prefix>/
<test>" or "FAIL: <prefix>/<test> <why>" line per test, exit 1 on any
failure (test_xpsstats.py, test_tables.py)."""

import os
import sys
import unittest


def main(prefix, *cases):
    class Result(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            print("PASS: %s/%s" % (prefix, test._testMethodName))

        def addFailure(self, test, err):
            super().addFailure(test, err)
            print("FAIL: %s/%s %s" % (prefix, test._testMethodName, err[1]))

        def addError(self, test, err):
            super().addError(test, err)
            print("FAIL: %s/%s error: %s" % (prefix, test._testMethodName, err[1]))

    with open(os.devnull, "w") as null:
        runner = unittest.TextTestRunner(resultclass=Result, stream=null)
        suite = unittest.TestSuite([unittest.defaultTestLoader.loadTestsFromTestCase(c)
                                    for c in cases])
        res = runner.run(suite)
    sys.exit(0 if res.wasSuccessful() else 1)
