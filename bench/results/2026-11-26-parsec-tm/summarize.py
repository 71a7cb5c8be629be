#!/usr/bin/env python3
"""Summarize results.csv (from run.sh) as a markdown table: one row per benchmark and
thread count, one column per configuration; each cell lists the repeats' verdicts
(ok / FAIL-<why> / TIMEOUT) and the median wall time in seconds."""
import csv, sys, statistics
from collections import defaultdict, OrderedDict
rows = list(csv.reader(open(sys.argv[1])))
cfgs = ["pth", "itm", "itm-gl_wt", "itm-serialirr", "tk-adaptive", "tk-orec_eager",
        "tk-gl_wt", "tk-serialirr", "tk-norec", "tk-orec_lazy"]
cell = defaultdict(list)
keys = OrderedDict()
for b, c, t, r, rc, s, ck in rows:
    cell[(b, int(t), c)].append((ck.replace("-NOTMKIT", ""), float(s)))
    keys[(b, int(t))] = 1
print("| bench | thr | " + " | ".join(cfgs) + " |")
print("|" + "---|" * (len(cfgs) + 2))
for b, t in sorted(keys, key=lambda k: (k[0], k[1])):
    out = []
    for c in cfgs:
        v = cell.get((b, t, c))
        if not v:
            out.append("-"); continue
        oks = sum(1 for x in v if x[0] == "ok")
        verdict = "ok" if oks == len(v) else ",".join(sorted(set(x[0] for x in v if x[0] != "ok")))
        out.append(f"{verdict} {oks}/{len(v)} {statistics.median(x[1] for x in v):.2f}")
    print(f"| {b} | {t} | " + " | ".join(out) + " |")
