#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the benchmark statistics (scripts/bench/xpsstats.py).

Prints one "PASS: tools/<test>" or "FAIL: tools/<test>" line per test.
"""

import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "bench"))
import imarks  # noqa: E402
import testrun  # noqa: E402
import xpsstats  # noqa: E402


class Stats(unittest.TestCase):
    def test_t_critical_matches_tables(self):
        # Two-sided 95 % values from any Student's t table.
        for df, t in ((1, 12.706), (2, 4.303), (4, 2.776), (8, 2.306),
                      (10, 2.228), (20, 2.086), (60, 2.000), (120, 1.980)):
            self.assertAlmostEqual(xpsstats.t_critical(df), t, places=3)

    def test_t_critical_99(self):
        self.assertAlmostEqual(xpsstats.t_critical(10, 0.99), 3.169, places=3)

    def test_summary_odd_even(self):
        s = xpsstats.summary([5, 1, 3])
        self.assertEqual((s["n"], s["min"], s["median"], s["max"]), (3, 1, 3, 5))
        self.assertAlmostEqual(s["stdev"], 2.0)
        s = xpsstats.summary([4, 1, 3, 2])
        self.assertEqual(s["median"], 2.5)
        self.assertAlmostEqual(s["stdev"], math.sqrt(5.0 / 3.0))

    def test_compare_significant(self):
        c = xpsstats.compare([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
        # pooled s = sqrt(2.5), err = t(8) * s * sqrt(2/5) = 2.306
        self.assertAlmostEqual(c["err"], 2.306, places=3)
        self.assertAlmostEqual(c["pct"], 500.0 / 3.0)
        self.assertTrue(c["significant"])

    def test_compare_not_significant(self):
        c = xpsstats.compare([10, 12, 11, 9, 13], [11, 12, 10, 12, 11])
        self.assertFalse(c["significant"])

    def test_compare_welch_unequal_variances(self):
        # a: n 5, var 2.5; b: n 3, var 100.  Welch: se^2 = 0.5 + 33.33,
        # df = 33.83^2 / (0.5^2 / 4 + 33.33^2 / 2) = 2.060, t = 4.24:
        # the difference 18 is inside +/- 24.3.  Pooled variances (35)
        # would give se 4.32 and t(6) 2.447: +/- 10.6, "significant".
        c = xpsstats.compare([10, 11, 12, 13, 14], [20, 30, 40])
        self.assertAlmostEqual(c["df"], 2.0602, places=3)
        self.assertAlmostEqual(c["diff"], 18.0)
        self.assertGreater(c["err"], 24.0)
        self.assertLess(c["err"], 25.5)
        self.assertFalse(c["significant"])
        # no spread on either side: any difference is one
        z = xpsstats.compare([5, 5, 5], [6, 6])
        self.assertTrue(z["significant"])
        self.assertIsNone(z["df"])

    def test_signed_rank_exact(self):
        sr = xpsstats.signed_rank
        # all of n positive: only 2 of the 2^n sign patterns are as extreme
        self.assertEqual(sr([1, 2, 3, 4, 5]), {"n": 5, "w": 15.0, "p": 0.0625})
        self.assertEqual(sr([0.1] * 6)["p"], 0.03125)
        # ranks 1..5, W+ = 13: sums >= 13 or <= 2, 6 of 32 patterns
        self.assertEqual(sr([1, -2, 3, 4, 5]), {"n": 5, "w": 13.0, "p": 0.1875})
        # tied magnitudes share rank 1.5: W+ = 4.5 of 6, 6 of 8 patterns
        self.assertEqual(sr([1, -1, 2]), {"n": 3, "w": 4.5, "p": 0.75})
        # zeros are dropped; nothing left, nothing to say
        self.assertEqual(sr([0, 1, 2])["n"], 2)
        self.assertEqual(sr([0, 1, 2])["p"], 0.5)
        self.assertIsNone(sr([0, 0])["p"])
        # symmetric: the sign of every value flipped gives the same p
        self.assertEqual(sr([-1, 2, -3, -4, -5])["p"], sr([1, -2, 3, 4, 5])["p"])

    def test_compare_single_sample(self):
        c = xpsstats.compare([10], [12, 13])
        self.assertIsNone(c["significant"])
        self.assertAlmostEqual(c["pct"], 25.0)

    def test_load_rejects_bad_lines(self):
        with self.assertRaises(ValueError):
            xpsstats.load(['{"bench": "b", "metric": "m", "value": 1}'])
        with self.assertRaises(ValueError):
            xpsstats.load(["not json"])
        self.assertEqual(xpsstats.load(["", " "]), [])

    def test_report_groups_by_variant_and_params(self):
        lines = []
        for run in range(3):
            for var, params, val in (("stock", {}, 100 + run),
                                     ("xps", {"feature_persistent": 0}, 90 + run),
                                     ("xps", {"feature_persistent": 1}, 130 + run)):
                lines.append(json.dumps({"bench": "fio", "metric": "iops", "unit": "IO/s",
                                         "variant": var, "params": params,
                                         "run": run, "value": val,
                                         "higher_is_better": True}))
        out = xpsstats.report(xpsstats.load(lines))
        rows = out.splitlines()
        self.assertIn("baseline: stock", rows[0])
        self.assertTrue(rows[2].startswith("stock "))
        self.assertIn("xps[feature_persistent=0]", rows[3])
        self.assertIn("-9.90", rows[3])  # 91 vs 101
        self.assertIn("+29.70", rows[4])  # 131 vs 101
        self.assertTrue(rows[4].rstrip().endswith("yes"))

    def test_pivot_levels_by_variant(self):
        lines = []
        for run in range(3):
            for level, unfair in (("1x", 100), ("2x", 200)):
                for var, val in (("native", 100), ("pv-unfair", unfair)):
                    lines.append(json.dumps({
                        "bench": "q-" + level, "series": "q", "level": level,
                        "metric": "acq_per_s", "variant": var, "params": {},
                        "run": run, "value": val + run}))
        rows = xpsstats.pivot(xpsstats.load(lines), "acq_per_s").splitlines()
        self.assertIn("over native", rows[0])
        self.assertTrue(rows[1].split()[:2] == ["overcommit", "pv-unfair"])
        self.assertTrue(rows[2].startswith("1x"))
        self.assertIn("+0.0", rows[2])
        self.assertIn("+99.0", rows[3])  # 201 vs 101
        self.assertIn("*", rows[3])
        self.assertIn("101.0 (1%)", rows[3])
        # report() appends the pivot of the first series metric
        self.assertIn("% change of the mean over native",
                      xpsstats.report(xpsstats.load(lines)))

    def test_guests_table_sum_avg_min_max(self):
        lines = []
        # stock: 1 pair 100, 102, 104; 2 pairs (60, 40), (50, 52), (70, 30)
        for run, one, two in ((1, 100, (60, 40)), (2, 102, (50, 52)), (3, 104, (70, 30))):
            for var, vals in (("stock", [one]), ("stock", list(two)), ("ours", [2 * one])):
                for v in vals:
                    lines.append(json.dumps({
                        "bench": "netpairs-tcp-%dp" % len(vals), "metric": "pair",
                        "unit": "Mbit/s", "variant": var, "pairs": len(vals),
                        "run": run, "value": v}))
        # a run that lost a pair is left out
        lines.append(json.dumps({"bench": "netpairs-tcp-2p", "metric": "pair",
                                 "variant": "ours", "pairs": 2, "run": 4, "value": 5}))
        rows = [r.split() for r in xpsstats.guests_table(xpsstats.load(lines)).splitlines()]
        self.assertEqual(rows[1], ["variant", "pairs", "n", "sum", "avg", "min", "max"])
        self.assertEqual(rows[2], ["stock", "1", "3", "102.0", "102.0", "102.0", "102.0"])
        # sums 100, 102, 100 -> 100; avgs 50, 51, 50 -> 50; mins 40, 50, 30
        # -> 40; maxs 60, 52, 70 -> 60
        self.assertEqual(rows[3], ["stock", "2", "3", "100.0", "50", "40", "60"])
        self.assertEqual(rows[4], ["ours", "1", "3", "204.0", "204.0", "204.0", "204.0"])
        self.assertEqual(len(rows), 5)
        self.assertIn("seed 004", xpsstats.report(xpsstats.load(lines)))

    def test_paired_ratio_interval(self):
        # ratios 0.98, 1.0182, 1.0111, 0.9524: logs mean -0.009981,
        # stdev 0.031068, t(3) = 3.182: exp(mean +/- t * s / 2)
        r = xpsstats.paired_ratio([100, 110, 90, 105], [98, 112, 91, 100])
        self.assertEqual(r["n"], 4)
        self.assertAlmostEqual(r["ratio"], 0.99007, places=4)
        self.assertAlmostEqual(r["lo"], 0.94279, places=4)
        self.assertAlmostEqual(r["hi"], 1.03972, places=4)
        # lower is better: base/other, the same interval inverted
        q = xpsstats.paired_ratio([98, 112, 91, 100], [100, 110, 90, 105], False)
        self.assertAlmostEqual(q["ratio"], r["ratio"])
        self.assertAlmostEqual(q["lo"], r["lo"])
        # a constant ratio has no spread; one pair has no interval
        c = xpsstats.paired_ratio([10, 20, 40], [11, 22, 44])
        self.assertAlmostEqual(c["lo"], 1.1)
        self.assertAlmostEqual(c["hi"], 1.1)
        self.assertIsNone(xpsstats.paired_ratio([10], [11])["lo"])
        self.assertEqual(xpsstats.paired_ratio([10, 0, 5], [11, 3, 5])["dropped"], 1)
        with self.assertRaises(ValueError):
            xpsstats.paired_ratio([1, 2], [1])

    def test_noninferiority_verdicts(self):
        self.assertEqual(xpsstats.noninferiority(0.90, 1.2, 0.90), "not slower")
        self.assertEqual(xpsstats.noninferiority(0.85, 1.05, 0.90), "inconclusive")
        self.assertEqual(xpsstats.noninferiority(0.70, 0.89, 0.90), "slower")
        self.assertEqual(xpsstats.noninferiority(None, None, 0.90), "inconclusive")

    def test_noninferiority_report_pairs_by_run(self):
        lines = []
        # ours runs 1 %, 2 %, 3 % faster than stock in pairs 1-3; the
        # drift between pairs is large, the pairing removes it
        for run, stock, ours in ((1, 100, 101), (2, 200, 204), (3, 50, 51.5)):
            for var, val in (("stock", stock), ("ours", ours)):
                lines.append(json.dumps({"bench": "tcp-tx", "metric": "throughput",
                                         "unit": "Mbit/s", "variant": var, "params": {},
                                         "run": run, "value": val,
                                         "higher_is_better": True}))
        # a run only one side has is left out of the pairs
        lines.append(json.dumps({"bench": "tcp-tx", "metric": "throughput", "variant": "stock",
                                 "run": 4, "value": 10, "higher_is_better": True}))
        out = xpsstats.noninferiority_report(xpsstats.load(lines), 0.90, raw=True)
        row = [x for x in out.splitlines() if x.startswith("tcp-tx throughput [Mbit/s]  ours")][0]
        self.assertIn("  3  1.020", row)
        # three ratios above 1: the signed-rank p is 2/8
        self.assertIn("  0.250  not slower (lower bound ", row)
        self.assertIn(">= 0.90)", row)
        self.assertEqual(out.splitlines()[-1].split(), ["3", "50", "51.5", "1.030"])
        # unpaired, the same samples would not even be significant
        self.assertFalse(xpsstats.compare([100, 200, 50], [101, 204, 51.5])["significant"])


class Imarks(unittest.TestCase):
    """scripts/bench/imarks.py: XPS-ISAMPLE lines and the plugin's marks."""

    def isample(self, b, e, per, run=1):
        return ('[domU:bench] XPS-ISAMPLE {"bench": "randread-4k", "metric": "insns-per-req", '
                '"unit": "insn", "variant": "xen-blkfront", "run": %d, "imark": [%d, %d], '
                '"per": %s, "higher_is_better": false}\r\n' % (run, b, e, per))

    def test_value_is_the_difference_per_request(self):
        marks = ["mark 1000 5000 2500 2500\n", "mark 1001 905000 450000 455000\n"]
        samples, problems = imarks.convert([self.isample(1000, 1001, 300)], marks)
        self.assertEqual(problems, [])
        self.assertEqual(len(samples), 1)
        self.assertEqual(samples[0]["value"], 3000.0)
        self.assertNotIn("imark", samples[0])
        self.assertEqual(samples[0]["variant"], "xen-blkfront")
        # the result loads as a benchmark sample
        self.assertEqual(len(xpsstats.load([json.dumps(samples[0])])), 1)

    def test_missing_repeated_and_reversed_marks_are_left_out(self):
        marks = ["mark 1 10\n", "mark 2 20\n", "mark 2 30\n", "mark 3 40\n", "mark 4 35\n"]
        samples, problems = imarks.convert(
            [self.isample(1, 2, 1), self.isample(3, 4, 1), self.isample(5, 6, 1),
             self.isample(1, 3, 0), "XPS-ISAMPLE {broken\n"], marks)
        self.assertEqual(samples, [])
        self.assertEqual(len(problems), 4)
        self.assertIn("repeated", problems[0])
        self.assertIn("counted before", problems[1])
        self.assertIn("missing", problems[2])
        self.assertIn("nothing to divide", problems[3])


if __name__ == "__main__":
    testrun.main("tools", Stats, Imarks)
