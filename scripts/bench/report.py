#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py [--baseline LABEL] [--margin M [--raw]] SAMPLES.jsonl...: print the comparison tables.

Reads benchmark samples (JSON lines, see xpsstats.py) and prints one
ministat-style table per (bench, metric): n, min, median, mean, stdev,
max, the difference from the baseline in percent with its 95 % interval,
and whether that difference is significant (Welch's t).

With --margin M (bench-net: 0.90) it then prints, per (bench, metric),
the paired ratio variant/baseline (samples paired by their "run") with
its 95 % interval and a verdict: "not slower" when the interval's lower
bound is at least M, "slower" when its upper bound is below M,
"inconclusive" otherwise, beside a signed-rank p as a check; --raw adds
every pair's values and ratio.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xpsstats  # noqa: E402


def render(samples, baseline=None, margin=None, raw=False):
    """The whole printout for SAMPLES, as main() prints it."""
    text = xpsstats.report(samples, baseline)
    if margin is not None:
        text += "\n\n" + xpsstats.noninferiority_report(samples, margin, baseline, raw)
    return text


def parser():
    """The command line, also read from a run's report.args (tables.py)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="variant label to compare against (default: first seen)")
    ap.add_argument("--margin", type=float,
                    help="non-inferiority margin for the paired ratio (e.g. 0.90)")
    ap.add_argument("--raw", action="store_true",
                    help="with --margin: print every pair's values and ratio")
    ap.add_argument("--plot-metric", action="append", metavar="METRIC",
                    help="ratios.png (tables.py) draws only this metric's comparisons"
                         " (repeatable; default: every metric)")
    ap.add_argument("files", nargs="+", help="JSON-lines sample files ('-' for stdin)")
    return ap


def main():
    args = parser().parse_args()
    lines = []
    for f in args.files:
        with (sys.stdin if f == "-" else open(f, encoding="utf-8")) as fh:
            lines.extend(fh.readlines())
    try:
        samples = xpsstats.load(lines)
    except ValueError as e:
        print("report.py: %s" % e, file=sys.stderr)
        return 2
    if not samples:
        print("report.py: no samples", file=sys.stderr)
        return 1
    print(render(samples, args.baseline, args.margin, args.raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
