#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""imarks.py SERIAL_LOG MARKS: instruction-count samples, as JSON lines.

A benchmark guest that runs with the xps-insn QEMU plugin brackets each
measured run with two markers (xps-imark B, xps-imark E) and prints

  XPS-ISAMPLE {"bench": ..., "metric": ..., "variant": ..., "run": ...,
               "imark": [B, E], "per": N, ...}

The plugin's MARKS file has a line "mark ID TOTAL ..." per marker
executed (TOTAL: the whole machine's instructions so far). Each
XPS-ISAMPLE becomes a sample (scripts/bench/xpsstats.py's format) whose
value is (TOTAL at E - TOTAL at B) / N, "imark" and "per" dropped. A
sample whose markers are missing, repeated or out of order is left out
and counted on stderr; the exit status is then 1.
"""

import json
import re
import sys

LINE = re.compile(r"XPS-ISAMPLE (\{.*\})\s*$")


def marks(lines):
    """{id: total} of a MARKS file; an id seen twice maps to None."""
    out = {}
    for ln in lines:
        f = ln.split()
        if len(f) >= 3 and f[0] == "mark":
            i, t = int(f[1]), int(f[2])
            out[i] = None if i in out else t
    return out


def convert(serial_lines, mark_lines):
    """(samples, problems): the samples as dicts, the skipped ones' reasons."""
    m = marks(mark_lines)
    samples, problems = [], []
    for ln in serial_lines:
        hit = LINE.search(ln.replace("\r", ""))
        if not hit:
            continue
        try:
            s = json.loads(hit.group(1))
            b, e = (int(x) for x in s.pop("imark"))
            per = float(s.pop("per"))
        except (ValueError, KeyError, TypeError) as err:
            problems.append("bad XPS-ISAMPLE line (%s): %s" % (err, hit.group(1)[:80]))
            continue
        tb, te = m.get(b), m.get(e)
        if tb is None or te is None:
            problems.append("marker %d or %d missing or repeated" % (b, e))
        elif te < tb:
            problems.append("marker %d counted before %d" % (e, b))
        elif per <= 0:
            problems.append("markers %d-%d: nothing to divide by" % (b, e))
        else:
            s["value"] = round((te - tb) / per, 1)
            samples.append(s)
    return samples, problems


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as a, \
            open(sys.argv[2], encoding="utf-8") as b:
        samples, problems = convert(a.readlines(), b.readlines())
    for s in samples:
        print(json.dumps(s))
    for p in problems:
        print("imarks.py: %s" % p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
