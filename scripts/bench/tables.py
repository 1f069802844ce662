#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tables.py [--check] [--no-plots] [RUN...]: every benchmark table in doc/, again, from the raw samples.

RUN: a run's name under doc/bench-data, or a run directory (run.sh calls
it on build/bench/<run>); default: every run under doc/bench-data.

`make bench-tables`. Each run quoted in doc/ keeps its raw data in
doc/bench-data/<run>/: samples.jsonl (one JSON line per sample, as the
lab scenario emitted it), report.args (report.py's options for this run)
and report.txt (what report.py prints for them). This command

- writes report.txt again from samples.jsonl and report.args with the
  current scripts/bench/xpsstats.py;
- draws ratios.png beside it for a run with paired comparisons: per
  workload and variant, every round's ratio variant/baseline (points,
  above 1 is better), their geometric mean with its 95 % interval (bar)
  and the margin (dashed), for every metric or those report.args names
  with --plot-metric; it needs Debian's python3-matplotlib;
- checks doc/*.md: every fenced block of report output (a table header
  that report.py prints) must sit in a section that names exactly one
  doc/bench-data/<run>/ before it, and each of its lines must be a line
  of that run's report.txt. A table without raw data in the repo is
  a FAIL, whatever its section says (until 2026-12-05 a section saying
  "No raw samples" was let through).

With --check nothing is written: a report.txt that differs from what the
samples give, or a doc block that is not in its run's report, is a FAIL
line (make check's tools step runs this).
"""

import argparse
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402
import xpsstats  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join("doc", "bench-data")
RUN_REF = re.compile(r"doc/bench-data/([A-Za-z0-9_.-]+)/")
# First lines of the blocks report.py prints (xpsstats.table, pivot,
# noninferiority_report, guests_table).
TABLE_HEAD = re.compile(r"\(baseline: .*\)$|^Non-inferiority, margin |"
                        r"^Guest pairs at once |: % change of the mean over ")


def run_dirs(root, names=None):
    """(name, path) of the runs named (a name under doc/bench-data or a
    run directory such as build/bench/<run>), or of every kept run."""
    base = os.path.join(root, DATA)
    if not names:
        return [(d, os.path.join(base, d)) for d in sorted(os.listdir(base))
                if os.path.isfile(os.path.join(base, d, "samples.jsonl"))]
    out = []
    for n in names:
        path = n if os.sep in n else os.path.join(base, n)
        if not os.path.isfile(os.path.join(path, "samples.jsonl")):
            raise SystemExit("tables.py: no %s" % os.path.join(path, "samples.jsonl"))
        out.append((os.path.basename(os.path.normpath(path)), path))
    return out


def load_run(path):
    """(samples, parsed report.args) of one run directory."""
    with open(os.path.join(path, "samples.jsonl"), encoding="utf-8") as fh:
        samples = xpsstats.load(fh.readlines())
    argv = []
    argsfile = os.path.join(path, "report.args")
    if os.path.exists(argsfile):
        with open(argsfile, encoding="utf-8") as fh:
            argv = shlex.split(fh.read(), comments=True)
    args = report.parser().parse_args(argv + ["samples.jsonl"])
    return samples, args


def render(samples, args):
    """report.txt's text: what report.py prints for the run."""
    if not samples:
        raise ValueError("no samples")
    return report.render(samples, args.baseline, args.margin, args.raw) + "\n"


def plotted(samples, args):
    """The paired comparisons ratios.png draws: those with ratios, of the
    metrics --plot-metric names (all when it names none)."""
    return [c for c in xpsstats.paired_comparisons(samples, args.baseline) if c["r"]["ratios"]
            and (not args.plot_metric or c["key"][1] in args.plot_metric)]


def plot(samples, args, name, out):
    """ratios.png for one run; False when it has no paired comparison."""
    comps = plotted(samples, args)
    if not comps:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    # The axis spans the points (and 1 and the margin), with room: an
    # interval that reaches past it (two pairs give t = 12.7) is drawn to
    # the edge with an arrow head there.
    pts = [x for c in comps for x in c["r"]["ratios"]] + [1.0]
    if args.margin is not None:
        pts.append(args.margin)
    xlo, xhi = min(pts) / 1.5, max(pts) * 1.5
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(comps) + 1.6))
    for i, c in enumerate(comps):
        y = len(comps) - 1 - i
        r = c["r"]
        n = len(r["ratios"])
        jitter = [(k - (n - 1) / 2.0) * (0.3 / max(n, 1)) for k in range(n)]
        ax.plot(r["ratios"], [y + j for j in jitter], "o", ms=3.5, alpha=0.6, color="tab:blue")
        if r["lo"] is not None:
            lo, hi = max(r["lo"], xlo), min(r["hi"], xhi)
            ax.plot([lo, hi], [y, y], "-", lw=2, color="black")
            if r["lo"] < xlo:
                ax.plot([lo], [y], "<", ms=6, color="black")
            if r["hi"] > xhi:
                ax.plot([hi], [y], ">", ms=6, color="black")
        ax.plot([r["ratio"]], [y], "D", ms=6, color="black")
    ax.set_xlim(xlo, xhi)
    ax.set_yticks(range(len(comps)))
    ax.set_yticklabels(["%s %s: %s/%s" % (c["key"][0], c["key"][1], c["label"], c["base"])
                        for c in reversed(comps)], fontsize=7)
    ax.set_xscale("log")
    steps = ((0.1, 0.2, 0.5, 1.0, 2, 5, 10, 20) if xhi / xlo > 6 else
             (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2, 3, 5))
    ticks = [t for t in steps if xlo <= t <= xhi]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", which="both", labelsize=7)
    ax.axvline(1.0, color="grey", lw=1)
    if args.margin is not None and args.margin != 1.0:
        ax.axvline(args.margin, color="tab:red", lw=1, ls="--", label="margin %.2f" % args.margin)
        ax.legend(loc="lower right", fontsize=7)
    ax.set_xlabel("ratio per round (> 1: variant better)\n"
                  "diamond, bar: geometric mean, 95 % interval", fontsize=8)
    ax.set_title("%s: paired ratios" % name, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return True


def doc_blocks(text):
    """(line number, block lines, section prose before the block) for each
    fenced block of a markdown text; sections start at # headings."""
    out, prose, block, start = [], [], None, 0
    for n, line in enumerate(text.split("\n"), 1):
        if block is not None:
            if line.startswith("```"):
                out.append((start, block, "\n".join(prose)))
                block = None
            else:
                block.append(line)
            continue
        if line.startswith("```"):
            block, start = [], n + 1
        elif line.startswith("#"):
            prose = [line]
        else:
            prose.append(line)
    return out


def check_doc(root, reports, emit):
    """Every report block in doc/*.md against its run's report text."""
    docdir = os.path.join(root, "doc")
    for f in sorted(os.listdir(docdir)):
        if not f.endswith(".md"):
            continue
        with open(os.path.join(docdir, f), encoding="utf-8") as fh:
            blocks = doc_blocks(fh.read())
        for start, lines, prose in blocks:
            if not lines or not TABLE_HEAD.search(lines[0]):
                continue
            name = "bench-tables/doc/%s:%d" % (f, start)
            runs = sorted(set(RUN_REF.findall(prose)))
            if not runs:
                emit(False, "%s a report table whose section names no %s/<run>/: "
                     "every table quoted needs its raw samples there" % (name, DATA))
                continue
            if len(runs) > 1:
                emit(False, "%s the section names %d runs before the table (%s)" %
                     (name, len(runs), ", ".join(runs)))
                continue
            rep = reports.get(runs[0])
            if rep is None:
                emit(False, "%s %s/%s/ has no samples.jsonl" % (name, DATA, runs[0]))
                continue
            have = set(x.rstrip() for x in rep.split("\n"))
            bad = [x for x in lines if x.strip() and x.rstrip() not in have]
            if bad:
                emit(False, "%s %d line(s) not in %s's report, first: %s" %
                     (name, len(bad), runs[0], bad[0].strip()[:100]))
            else:
                emit(True, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; FAIL on a difference")
    ap.add_argument("--no-plots", action="store_true", help="do not draw ratios.png")
    ap.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("runs", nargs="*", help="run names under doc/bench-data (default: all)")
    args = ap.parse_args()
    fails = [0]

    def emit(ok, what):
        print("%s: %s" % ("PASS" if ok else "FAIL", what))
        if not ok:
            fails[0] += 1

    reports = {}
    for name, path in run_dirs(args.root, args.runs):
        try:
            samples, rargs = load_run(path)
            text = render(samples, rargs)
        except (ValueError, OSError, SystemExit) as e:
            emit(False, "bench-tables/%s cannot render: %s" % (name, e))
            continue
        reports[name] = text
        rpath = os.path.join(path, "report.txt")
        if args.check:
            old = open(rpath, encoding="utf-8").read() if os.path.exists(rpath) else None
            emit(old == text, "bench-tables/%s/report.txt%s" % (
                name, "" if old == text else " differs from what samples.jsonl gives "
                "(make bench-tables writes it)"))
            continue
        with open(rpath, "w", encoding="utf-8") as fh:
            fh.write(text)
        print("wrote %s" % rpath)
        if not args.no_plots:
            png = os.path.join(path, "ratios.png")
            try:
                if plot(samples, rargs, name, png):
                    print("wrote %s" % png)
            except ImportError:
                print("tables.py: no plot without matplotlib (Debian's python3-matplotlib, "
                      "for /usr/bin/python3)", file=sys.stderr)
    if args.check and not args.runs:
        check_doc(args.root, reports, emit)
    return 1 if fails[0] else 0


if __name__ == "__main__":
    sys.exit(main())
