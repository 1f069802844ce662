# SPDX-License-Identifier: GPL-2.0
"""Statistics for xen-pv-suite benchmarks, reported the way ministat does.

Samples are JSON lines, one per measurement:

  {"bench": "fio-randread-4k", "metric": "iops", "unit": "IO/s",
   "variant": "stock", "params": {"feature_persistent": "1"},
   "run": 3, "value": 1234.5, "higher_is_better": true}

A comparison groups the samples of one (bench, metric) by variant, takes
the first variant seen (or the one named) as the baseline, and for every
other variant prints n, min, median, mean, stdev, max, the difference of
the means in percent and whether it is significant at 95 % confidence
(Welch's t: each side's own variance, Welch-Satterthwaite degrees of
freedom; ministat pools the variances, which assumes them equal).

For a claim of non-inferiority (bench-net), samples measured together
carry the same "run" (a pair): paired_ratio() takes the ratio of each
pair, ours over the baseline, and gives their geometric mean with a
confidence interval (Student's t on the log ratios), and
noninferiority() reads that interval against a margin.  A Wilcoxon
signed-rank test on the same log ratios (exact, no normality assumed)
is printed beside it as a check.
"""

import json
import math
from collections import OrderedDict

CONFIDENCE = 0.95


def _betacf(a, b, x):
    """Continued fraction for the regularized incomplete beta function."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """Cumulative distribution function of Student's t."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t >= 0 else tail


def t_critical(df, confidence=CONFIDENCE):
    """Two-sided critical value of Student's t (12.706 for df=1 at 95 %)."""
    if df < 1:
        raise ValueError("need at least one degree of freedom")
    target = 1.0 - (1.0 - confidence) / 2.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def summary(values):
    """n, min, median, mean, stdev (sample), max of a list of numbers."""
    v = sorted(float(x) for x in values)
    n = len(v)
    if n == 0:
        raise ValueError("no samples")
    mean = sum(v) / n
    mid = n // 2
    median = v[mid] if n % 2 else (v[mid - 1] + v[mid]) / 2.0
    var = sum((x - mean) ** 2 for x in v) / (n - 1) if n > 1 else 0.0
    return {"n": n, "min": v[0], "median": median, "mean": mean,
            "stdev": math.sqrt(var), "max": v[-1]}


def welch(a, b):
    """Welch's unequal-variance t for the difference of the means of two
    summaries: its standard error and Welch-Satterthwaite degrees of
    freedom (None when both samples have no spread)."""
    va, vb = a["stdev"] ** 2 / a["n"], b["stdev"] ** 2 / b["n"]
    se = math.sqrt(va + vb)
    if se == 0:
        return se, None
    df = (va + vb) ** 2 / (va ** 2 / (a["n"] - 1) + vb ** 2 / (b["n"] - 1))
    return se, df


def compare(base, other, confidence=CONFIDENCE):
    """Is other's mean different from base's?  Welch's t test.

    Returns the difference of the means, in absolute terms and in percent
    of the baseline mean, the half-width of its confidence interval, and
    whether the difference is significant. With fewer than two samples on
    either side nothing can be said (significant is None).
    """
    a, b = summary(base), summary(other)
    diff = b["mean"] - a["mean"]
    pct = 100.0 * diff / a["mean"] if a["mean"] else float("nan")
    res = {"diff": diff, "pct": pct, "err": None, "pct_err": None,
           "significant": None, "df": None}
    if a["n"] < 2 or b["n"] < 2:
        return res
    se, df = welch(a, b)
    err = 0.0 if df is None else t_critical(max(df, 1.0), confidence) * se
    res["err"], res["df"] = err, df
    res["pct_err"] = 100.0 * err / a["mean"] if a["mean"] else float("nan")
    res["significant"] = abs(diff) > err
    return res


def signed_rank(values):
    """Wilcoxon's signed-rank test of values (differences, or log ratios)
    against a median of 0, two-sided.  Zeros are dropped (Wilcoxon's
    rule); tied magnitudes share their mean rank.  The p value is exact:
    the null distribution of the positive rank sum over all 2^n sign
    patterns, counted with the ranks doubled to stay whole numbers.
    Returns n (non-zero values), w (sum of the positive ranks) and p
    (None without a non-zero value)."""
    v = [float(x) for x in values if float(x) != 0.0]
    n = len(v)
    if n == 0:
        return {"n": 0, "w": None, "p": None}
    order = sorted(range(n), key=lambda i: abs(v[i]))
    rank2 = [0] * n                 # twice the rank, a whole number
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(v[order[j + 1]]) == abs(v[order[i]]):
            j += 1
        for k in range(i, j + 1):
            rank2[order[k]] = i + j + 2  # 2 * mean of ranks i+1 .. j+1
        i = j + 1
    w2 = sum(r for r, x in zip(rank2, v) if x > 0)
    total = sum(rank2)
    counts = {0: 1}                 # positive rank sum (doubled) -> patterns
    for r in rank2:
        nxt = dict(counts)
        for s, c in counts.items():
            nxt[s + r] = nxt.get(s + r, 0) + c
        counts = nxt
    # two-sided: patterns at least as far from the middle as observed
    dev = abs(2 * w2 - total)
    extreme = sum(c for s, c in counts.items() if abs(2 * s - total) >= dev)
    return {"n": n, "w": w2 / 2.0, "p": min(1.0, extreme / float(2 ** n))}


def load(lines):
    """Parse JSON-lines samples, skipping blank lines; bad lines raise."""
    out = []
    for i, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            s = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError("line %d: %s" % (i, e)) from e
        for key in ("bench", "metric", "variant", "value"):
            if key not in s:
                raise ValueError("line %d: missing %r" % (i, key))
        out.append(s)
    return out


def variant_label(s):
    """A variant plus its parameter settings, as a tester reads them."""
    params = s.get("params") or {}
    if not params:
        return str(s["variant"])
    kv = ",".join("%s=%s" % (k, params[k]) for k in sorted(params))
    return "%s[%s]" % (s["variant"], kv)


def group(samples):
    """{(bench, metric): OrderedDict(label -> [values])}, in input order."""
    groups = OrderedDict()
    meta = {}
    for s in samples:
        key = (s["bench"], s["metric"])
        groups.setdefault(key, OrderedDict()).setdefault(variant_label(s), []).append(
            float(s["value"]))
        meta.setdefault(key, {"unit": s.get("unit", ""),
                              "higher_is_better": s.get("higher_is_better")})
    return groups, meta


def _fmt(x):
    if x is None:
        return "-"
    ax = abs(x)
    if ax >= 1e5:
        return "%.0f" % x
    if ax >= 100:
        return "%.1f" % x
    return "%.3g" % x


def table(key, variants, meta, baseline=None):
    """The report for one (bench, metric): a row per variant."""
    bench, metric = key
    labels = list(variants)
    base = baseline if baseline in variants else labels[0]
    unit = meta.get("unit") or ""
    hib = meta.get("higher_is_better")
    head = "%s %s%s (baseline: %s%s)" % (
        bench, metric, " [%s]" % unit if unit else "", base,
        "" if hib is None else ", higher is better" if hib else ", lower is better")
    cols = ("variant", "n", "min", "median", "mean", "stdev", "max", "diff%", "95% CI", "signif.")
    rows = []
    for lab in [base] + [x for x in labels if x != base]:
        st = summary(variants[lab])
        if lab == base:
            d = ("", "", "baseline")
        else:
            c = compare(variants[base], variants[lab])
            sig = ("n<2" if c["significant"] is None else
                   "yes" if c["significant"] else "no")
            d = ("%+.2f" % c["pct"],
                 "-" if c["pct_err"] is None else "+/-%.2f" % c["pct_err"], sig)
        rows.append((lab, str(st["n"]), _fmt(st["min"]), _fmt(st["median"]),
                     _fmt(st["mean"]), _fmt(st["stdev"]), _fmt(st["max"])) + d)
    widths = [max(len(r[i]) for r in rows + [cols]) for i in range(len(cols))]
    lines = [head]
    fmt = "  ".join("%%-%ds" % widths[0] if i == 0 else "%%%ds" % widths[i]
                    for i in range(len(cols)))
    lines.append(fmt % cols)
    for r in rows:
        lines.append(fmt % r)
    return "\n".join(lines)


def pivot(samples, metric, baseline=None):
    """The seed 002 table: per series, a row per level, a column per
    variant: percent change of the mean over the baseline variant's mean
    at that level (95 % interval; * = significant), and the baseline's
    absolute mean with its relative stdev.  Samples without "series" and
    "level" are ignored."""
    series = OrderedDict()
    for s in samples:
        if s.get("metric") != metric or "series" not in s or "level" not in s:
            continue
        lv = series.setdefault(s["series"], OrderedDict()).setdefault(s["level"], OrderedDict())
        lv.setdefault(variant_label(s), []).append(float(s["value"]))
    out = []
    for name, levels in series.items():
        labels = []
        for v in levels.values():
            labels.extend(x for x in v if x not in labels)
        base = baseline if baseline in labels else labels[0]
        others = [x for x in labels if x != base]
        cols = ["overcommit"] + others + ["%s (abs, stdev)" % base]
        rows = []
        for lev, vs in levels.items():
            row = [lev]
            for o in others:
                if base not in vs or o not in vs:
                    row.append("-")
                    continue
                c = compare(vs[base], vs[o])
                cell = "%+.1f" % c["pct"]
                if c["pct_err"] is not None:
                    cell += " +/-%.1f%s" % (c["pct_err"], "*" if c["significant"] else "")
                row.append(cell)
            if base in vs:
                st = summary(vs[base])
                row.append("%s (%.0f%%)" % (_fmt(st["mean"]),
                                            100.0 * st["stdev"] / st["mean"] if st["mean"] else 0))
            else:
                row.append("-")
            rows.append(row)
        widths = [max(len(r[i]) for r in rows + [cols]) for i in range(len(cols))]
        fmt = "  ".join("%%-%ds" % w if i == 0 else "%%%ds" % w for i, w in enumerate(widths))
        out.append("%s %s: %% change of the mean over %s (95%% CI, * significant)" %
                   (name, metric, base))
        out.append(fmt % tuple(cols))
        out.extend(fmt % tuple(r) for r in rows)
        out.append("")
    return "\n".join(out).rstrip()


def paired_ratio(base, other, higher_is_better=True, confidence=CONFIDENCE):
    """Paired ratio of other to base: base[i] and other[i] were measured
    together (one pair).  Each pair's ratio is other/base (base/other when
    lower is better, so a ratio above 1 always means other is better);
    the result is their geometric mean with its confidence interval,
    Student's t on the log ratios (n - 1 degrees of freedom).  Pairs with
    a value <= 0 cannot give a ratio and are dropped (counted).  With
    fewer than two pairs lo and hi are None."""
    if len(base) != len(other):
        raise ValueError("paired samples differ in length: %d, %d" % (len(base), len(other)))
    ratios, dropped = [], 0
    for b, o in zip(base, other):
        b, o = float(b), float(o)
        if b <= 0 or o <= 0:
            dropped += 1
            continue
        ratios.append(o / b if higher_is_better in (True, None) else b / o)
    res = {"n": len(ratios), "dropped": dropped, "ratios": ratios,
           "ratio": None, "lo": None, "hi": None}
    if not ratios:
        return res
    logs = [math.log(r) for r in ratios]
    st = summary(logs)
    res["ratio"] = math.exp(st["mean"])
    if st["n"] >= 2:
        err = t_critical(st["n"] - 1, confidence) * st["stdev"] / math.sqrt(st["n"])
        res["lo"], res["hi"] = math.exp(st["mean"] - err), math.exp(st["mean"] + err)
    return res


def noninferiority(lo, hi, margin):
    """Verdict on a ratio interval (above 1 = better) against a margin:
    "not slower" when its lower bound is at least the margin, "slower"
    when its upper bound is below it, "inconclusive" otherwise or
    without an interval."""
    if lo is None or hi is None:
        return "inconclusive"
    if lo >= margin:
        return "not slower"
    if hi < margin:
        return "slower"
    return "inconclusive"


def pairs(values_by_run_base, values_by_run_other):
    """Two {run: [values]} maps to two equal lists, one entry (the mean of
    the run's values) per run both have, in run order."""
    runs = sorted(set(values_by_run_base) & set(values_by_run_other),
                  key=lambda r: (str(type(r)), r))
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    return ([mean(values_by_run_base[r]) for r in runs],
            [mean(values_by_run_other[r]) for r in runs], runs)


def paired_comparisons(samples, baseline=None, confidence=CONFIDENCE):
    """Per (bench, metric), every variant against the baseline (the first
    seen or the one named), paired by run: a list of dicts with the key,
    unit, higher_is_better, base and variant labels, the runs, the
    paired values b and o, and paired_ratio's result r."""
    byrun = OrderedDict()
    meta = {}
    for s in samples:
        key = (s["bench"], s["metric"])
        byrun.setdefault(key, OrderedDict()).setdefault(variant_label(s), {}).setdefault(
            s.get("run"), []).append(float(s["value"]))
        meta.setdefault(key, {"unit": s.get("unit", ""),
                              "higher_is_better": s.get("higher_is_better")})
    out = []
    for key, variants in byrun.items():
        labels = list(variants)
        base = baseline if baseline in variants else labels[0]
        hib = meta[key]["higher_is_better"]
        for lab in [x for x in labels if x != base]:
            b, o, runs = pairs(variants[base], variants[lab])
            out.append({"key": key, "unit": meta[key]["unit"], "hib": hib,
                        "base": base, "label": lab, "runs": runs, "b": b, "o": o,
                        "r": paired_ratio(b, o, hib, confidence)})
    return out


def noninferiority_report(samples, margin, baseline=None, raw=False,
                          confidence=CONFIDENCE):
    """Per (bench, metric), every variant against the baseline (the first
    seen or the one named), paired by run: the ratio, its interval and
    the verdict at margin; with raw, each pair's values and ratio."""
    rows, raws = [], []
    for c in paired_comparisons(samples, baseline, confidence):
        key, hib, base, lab = c["key"], c["hib"], c["base"], c["label"]
        b, o, runs, r = c["b"], c["o"], c["runs"], c["r"]
        verdict = noninferiority(r["lo"], r["hi"], margin)
        why = {"not slower": "lower bound %.2f >= %.2f" % (r["lo"] or 0, margin),
               "slower": "upper bound %.2f < %.2f" % (r["hi"] or 0, margin),
               "inconclusive": ("interval spans %.2f" % margin if r["lo"] is not None
                                else "fewer than 2 pairs")}[verdict]
        unit = c["unit"]
        sr = signed_rank([math.log(x) for x in r["ratios"]])
        rows.append(("%s %s%s" % (key[0], key[1], " [%s]" % unit if unit else ""),
                     lab, str(r["n"]),
                     "-" if r["ratio"] is None else "%.3f" % r["ratio"],
                     "-" if r["lo"] is None else "[%.3f, %.3f]" % (r["lo"], r["hi"]),
                     "-" if sr["p"] is None else "%.3f" % sr["p"],
                     "%s (%s)" % (verdict, why)))
        if raw:
            cols = ("pair", base, lab, "ratio")
            rr = []
            for run, bv, ov in zip(runs, b, o):
                ok = bv > 0 and ov > 0
                ratio = (ov / bv if hib in (True, None) else bv / ov) if ok else None
                rr.append((str(run), _fmt(bv), _fmt(ov), "-" if ratio is None else "%.3f" % ratio))
            w = [max(len(x[i]) for x in rr + [cols]) for i in range(4)]
            fmt = "  ".join("%%-%ds" % w[i] if i == 0 else "%%%ds" % w[i] for i in range(4))
            raws.append("%s %s%s, raw samples by pair" % (
                key[0], key[1], " [%s]" % unit if unit else ""))
            raws.append(fmt % cols)
            raws.extend(fmt % x for x in rr)
            raws.append("")
    if not rows:
        return ""
    cols = ("workload", "variant", "pairs", "ratio", "%d%% CI" % round(100 * confidence),
            "rank p", "verdict")
    w = [max(len(x[i]) for x in rows + [cols]) for i in range(len(cols))]
    fmt = "  ".join("%%-%ds" % w[i] if i in (0, 1, 6) else "%%%ds" % w[i]
                    for i in range(len(cols)))
    head = ["Non-inferiority, margin %.2f: paired ratio variant/baseline per pair (run)," % margin,
            "baseline/variant where lower is better, so > 1 is better; geometric mean,",
            "%d %% interval from Student's t on the log ratios (the verdict);" % round(100 * confidence),
            "rank p: Wilcoxon signed-rank test of the log ratios against 0 (ratio 1),",
            "two-sided, exact, as a check that needs no normality"]
    out = head + [(fmt % cols).rstrip()] + [(fmt % x).rstrip() for x in rows]
    if raws:
        out += [""] + raws
    return "\n".join(out).rstrip()


def guests_table(samples, metric="pair"):
    """The seed 004 table: for samples of METRIC that carry "pairs" (one
    value per guest pair of a run), per variant and pair count, each
    run's sum, average, minimum and maximum over its pairs, and of each
    the median over the runs ("n" runs)."""
    runs = OrderedDict()
    unit = ""
    for s in samples:
        if s.get("metric") != metric or "pairs" not in s:
            continue
        unit = unit or s.get("unit", "")
        runs.setdefault(variant_label(s), OrderedDict()).setdefault(
            int(s["pairs"]), OrderedDict()).setdefault(s.get("run"), []).append(float(s["value"]))
    if not runs:
        return ""
    cols = ("variant", "pairs", "n", "sum", "avg", "min", "max")
    rows = []
    for lab, counts in runs.items():
        for p in sorted(counts):
            per = [v for v in counts[p].values() if len(v) == p]
            if not per:
                continue
            med = [summary(f)["median"] for f in
                   ([sum(v) for v in per], [sum(v) / len(v) for v in per],
                    [min(v) for v in per], [max(v) for v in per])]
            rows.append((lab, str(p), str(len(per))) + tuple(_fmt(x) for x in med))
    widths = [max(len(r[i]) for r in rows + [cols]) for i in range(len(cols))]
    fmt = "  ".join("%%-%ds" % w if i == 0 else "%%%ds" % w for i, w in enumerate(widths))
    out = ["Guest pairs at once (seed 004 layout)%s: per run the sum, average, minimum"
           " and maximum over the pairs; the median of each over n runs" %
           (" [%s]" % unit if unit else ""), fmt % cols]
    out.extend(fmt % r for r in rows)
    return "\n".join(out)


def report(samples, baseline=None):
    """Every comparison in the samples, one table each; then, for samples
    that carry a series and a level, the seed-style pivot of the first
    metric; for per-pair samples (with "pairs"), the seed 004 table."""
    groups, meta = group(samples)
    text = "\n\n".join(table(k, v, meta[k], baseline) for k, v in groups.items())
    first = next((s["metric"] for s in samples if "series" in s and "level" in s), None)
    if first:
        text += "\n\n" + pivot(samples, first, baseline)
    g = guests_table(samples)
    if g:
        text += "\n\n" + g
    return text
