#!/usr/bin/env python3
"""speedsum.py FILE: medians of speed.sh throughputs, tmkit default / libitm."""
import sys
from collections import defaultdict
from statistics import median

tp = defaultdict(list)
order = []
for line in open(sys.argv[1]):
    p = line.split()
    if not p or p[0].startswith("#") or p[4] == "FAIL":
        continue
    key = (p[0], int(p[1]))
    if key not in order:
        order.append(key)
    tp[key + (p[2],)].append(int(p[4]))
print("| program | threads | libitm txn/s (median) | tmkit adaptive txn/s (median) | tmkit / libitm | runs |")
print("|---|---|---|---|---|---|")
for prog, t in order:
    a, b = tp[(prog, t, "libitm")], tp[(prog, t, "adaptive")]
    if a and b:
        print(f"| {prog} | {t} | {median(a):,.0f} | {median(b):,.0f} | {median(b) / median(a):.2f} | {len(a)}+{len(b)} |")
