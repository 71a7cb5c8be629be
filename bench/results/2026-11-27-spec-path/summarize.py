#!/usr/bin/env python3
"""Summarize alternate.sh output: per label the median, min and max ops/s, and each label's
ratio to BASE within the same round (median and the sorted ratios).
Usage: summarize.py RUNS.txt BASE_LABEL"""
import statistics
import sys

rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
base = sys.argv[2]
labels, rounds, cur = [], [], {}
for label, v in rows:
    if label in cur:
        rounds.append(cur)
        cur = {}
    cur[label] = float(v.split("=")[1])
    if label not in labels:
        labels.append(label)
rounds.append(cur)
for label in labels:
    vals = [r[label] for r in rounds if label in r]
    ratios = sorted(r[label] / r[base] for r in rounds if label in r and base in r)
    print(f"{label:10s} median {statistics.median(vals):12,.0f}  min {min(vals):12,.0f}  "
          f"max {max(vals):12,.0f}  /{base}: median {statistics.median(ratios):.2f}  "
          f"[{', '.join(f'{x:.2f}' for x in ratios)}]")
