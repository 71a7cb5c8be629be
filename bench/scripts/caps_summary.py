#!/usr/bin/env python3
"""caps_summary.py: summarizes bench/scripts/caps.sh's output (bench/results/scaling/).

Per case: the median ops/s of each configuration over the rounds, then for each ratio the
median over the rounds of the ratio taken within a round, with the sorted per-round values.
Only rounds that ran all six configurations count.

Usage: bench/scripts/caps_summary.py RUNS.txt > summary.txt"""
import re
import statistics
import sys
from collections import defaultdict

LABELS = ("ad1", "gl1", "ad2", "gl2", "mx1", "mx2")
RATIOS = [("gl1/ad1 (instrumented / uninstrumented, 1 thread)", "gl1", "ad1", 1),
          ("cap = 2 x gl1/ad1", "gl1", "ad1", 2),
          ("ad2/ad1 (the goal's ratio)", "ad2", "ad1", 1),
          ("gl2/ad1", "gl2", "ad1", 1),
          ("gl2/gl1 (gl_wt's own scaling)", "gl2", "gl1", 1),
          ("ad2/gl2", "ad2", "gl2", 1),
          ("ad2/mx2 (against the mutex)", "ad2", "mx2", 1),
          ("mx2/mx1", "mx2", "mx1", 1)]


def main(path):
    rounds = defaultdict(list)  # case -> [{label: ops}]
    with open(path) as f:
        for line in f:
            m = re.match(r"(\S+) (\S+) ops_per_s=(\d+)", line)
            if not m:
                continue
            case, label, ops = m.group(1), m.group(2), int(m.group(3))
            rs = rounds[case]
            if not rs or label in rs[-1]:
                rs.append({})
            rs[-1][label] = ops
    for case, rs in rounds.items():
        full = [r for r in rs if all(k in r for k in LABELS)]
        print(f"{case}: {len(full)} rounds")
        if not full:
            continue
        for k in LABELS:
            print(f"  {k} median {statistics.median(r[k] for r in full) / 1e6:.2f} M ops/s")
        for name, a, b, factor in RATIOS:
            v = sorted(factor * r[a] / r[b] for r in full)
            print(f"  {name}: median {statistics.median(v):.2f} "
                  f"[{', '.join(f'{x:.2f}' for x in v)}]")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
