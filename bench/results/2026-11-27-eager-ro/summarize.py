#!/usr/bin/env python3
"""Medians of ab.sh's runs: one row per case, threads and algorithm; base, new, new/base."""
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 5 or f[4] == "FAIL":
        continue
    runs[(f[0], int(f[1]), f[2], f[3])].append(float(f[4]))
keys = sorted({k[:3] for k in runs}, key=lambda k: (k[2], k[0], k[1]))
print("| case | threads | algorithm | base | new | new/base | runs |")
print("|---|---:|---|---:|---:|---:|---:|")
for c, t, a in keys:
    b, n = runs.get((c, t, a, "base"), []), runs.get((c, t, a, "new"), [])
    if not b or not n:
        continue
    mb, mn = statistics.median(b), statistics.median(n)
    print(f"| {c} | {t} | {a} | {mb / 1e6:.2f}M | {mn / 1e6:.2f}M | {mn / mb:.2f} | {len(b)}/{len(n)} |")
