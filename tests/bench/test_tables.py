#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench/tables.py (make bench-tables) on a scratch
tree: a run's report written from its samples, and the check that fails
when a committed report or a doc table no longer matches the samples.

Prints one "PASS: tools/tables/<test>" or "FAIL: ..." line per test.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(HERE, "..", "..", "scripts", "bench", "tables.py")
sys.path.insert(0, os.path.dirname(TABLES))
import tables  # noqa: E402
import testrun  # noqa: E402


def samples():
    out = []
    for run, (b, o) in enumerate(((100, 120), (110, 118), (90, 112), (105, 125), (98, 121)), 1):
        for v, val in (("stock", b), ("ours", o)):
            out.append({"bench": "tcp", "metric": "throughput", "unit": "Mbit/s",
                        "variant": v, "run": run, "value": val, "higher_is_better": True})
    return "".join(json.dumps(s) + "\n" for s in out)


class Tables(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.run = os.path.join(self.root, "doc", "bench-data", "r1")
        os.makedirs(self.run)
        with open(os.path.join(self.run, "samples.jsonl"), "w") as fh:
            fh.write(samples())
        with open(os.path.join(self.run, "report.args"), "w") as fh:
            fh.write("--margin 0.90 --raw\n")

    def tearDown(self):
        shutil.rmtree(self.root)

    def tables(self, *argv):
        out = io.StringIO()
        old = sys.argv
        sys.argv = ["tables.py", "--root", self.root] + list(argv)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                rc = tables.main()
        finally:
            sys.argv = old
        return rc, out.getvalue()

    def doc(self, text):
        with open(os.path.join(self.root, "doc", "bench.md"), "w") as fh:
            fh.write(text)

    def written_block(self):
        """The run's report written, and its first table (4 lines)."""
        self.tables("--no-plots")
        return self.report_lines("tcp throughput [Mbit/s] (baseline", 4)

    def report_lines(self, first, n):
        rep = open(os.path.join(self.run, "report.txt")).read().split("\n")
        i = next(k for k, x in enumerate(rep) if x.startswith(first))
        return "\n".join(rep[i:i + n])

    def test_write_then_check(self):
        self.doc("# b\n")
        rc, out = self.tables("--no-plots")
        self.assertEqual(rc, 0, out)
        rep = open(os.path.join(self.run, "report.txt")).read()
        self.assertIn("tcp throughput [Mbit/s]  ours         5  1.187  [1.102, 1.278]", rep)
        self.assertIn("not slower", rep)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS: bench-tables/r1/report.txt", out)

    def test_stale_report_fails(self):
        self.doc("# b\n")
        self.tables("--no-plots")
        path = os.path.join(self.run, "report.txt")
        text = open(path).read().replace("not slower", "slower")
        open(path, "w").write(text)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1)
        self.assertIn("FAIL: bench-tables/r1/report.txt differs", out)

    def test_doc_block_matches_its_run(self):
        self.doc("# b\n")
        block = self.written_block()
        self.doc("# b\n## run\nData: `doc/bench-data/r1/`.\n\n```\n%s\n```\n" % block)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS: bench-tables/doc/bench.md:6", out)
        # one figure changed by hand
        self.doc("# b\n## run\nData: `doc/bench-data/r1/`.\n\n```\n%s\n```\n" %
                 block.replace("stock", "stock ", 1).replace("  5  ", "  6  ", 1))
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1)
        self.assertIn("FAIL: bench-tables/doc/bench.md:6 ", out)
        self.assertIn("not in r1's report", out)

    def test_doc_block_without_data(self):
        block = self.written_block()
        self.doc("# b\n## old run\nTyped in.\n\n```\n%s\n```\n" % block)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1)
        self.assertIn("names no doc/bench-data/<run>/", out)
        # saying so is no excuse (it was until 2026-12-05): every table
        # quoted in doc/ comes from raw samples kept in the repo
        self.doc("# b\n## old run\nNo raw samples were kept.\n\n```\n%s\n```\n" % block)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1, out)
        self.assertIn("names no doc/bench-data/<run>/", out)
        # a reference after the block (in its reading) does not tie it
        self.doc("# b\n## old run\nTyped in.\n\n```\n%s\n```\nSee doc/bench-data/r1/.\n" % block)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1)

    def test_doc_block_two_runs(self):
        block = self.written_block()
        self.doc("# b\n## x\n`doc/bench-data/r1/` and `doc/bench-data/r2/`\n```\n%s\n```\n" % block)
        rc, out = self.tables("--check")
        self.assertEqual(rc, 1)
        self.assertIn("names 2 runs", out)

    def test_plot_png(self):
        # make bench-tables runs this with Debian's python3, which
        # install-deps gives python3-matplotlib.
        self.doc("# b\n")
        rc, out = self.tables()
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.run, "ratios.png"), "rb") as fh:
            self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")

    def test_plot_metric(self):
        # a second metric; --plot-metric in report.args keeps the plot to one
        with open(os.path.join(self.run, "samples.jsonl"), "a") as fh:
            for run in range(1, 6):
                for v, val in (("stock", 10 + run), ("ours", 9 + run)):
                    fh.write(json.dumps({"bench": "tcp", "metric": "cpu", "variant": v, "run": run,
                                         "value": val, "higher_is_better": False}) + "\n")
        samples, args = tables.load_run(self.run)
        self.assertEqual(sorted(c["key"][1] for c in tables.plotted(samples, args)),
                         ["cpu", "throughput"])
        with open(os.path.join(self.run, "report.args"), "a") as fh:
            fh.write("--plot-metric throughput\n")
        samples, args = tables.load_run(self.run)
        self.assertEqual([c["key"][1] for c in tables.plotted(samples, args)], ["throughput"])


if __name__ == "__main__":
    testrun.main("tools/tables", Tables)
