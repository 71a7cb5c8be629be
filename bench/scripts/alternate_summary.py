#!/usr/bin/env python3
"""alternate_summary.py: summarizes bench/scripts/alternate.sh's output (also caps.sh's lines
with the case dropped: use caps_summary.py for those).

Per label: the median, min and max ops/s over the rounds; with BASE_LABEL, also each label's
ratio to BASE_LABEL within the same round (median and the sorted ratios). A round ends where a
label repeats.

Usage: bench/scripts/alternate_summary.py RUNS.txt [BASE_LABEL]"""
import statistics
import sys


def main(path, base=None):
    labels, rounds, cur = [], [], {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 2 or not parts[1].startswith("ops_per_s="):
                continue
            label, v = parts[0], float(parts[1].split("=")[1])
            if label in cur:
                rounds.append(cur)
                cur = {}
            cur[label] = v
            if label not in labels:
                labels.append(label)
    if cur:
        rounds.append(cur)
    for label in labels:
        vals = [r[label] for r in rounds if label in r]
        out = (f"{label:10s} median {statistics.median(vals):12,.0f}  min {min(vals):12,.0f}  "
               f"max {max(vals):12,.0f}")
        if base:
            ratios = sorted(r[label] / r[base] for r in rounds if label in r and base in r)
            if ratios:
                out += (f"  /{base}: median {statistics.median(ratios):.2f}  "
                        f"[{', '.join(f'{x:.2f}' for x in ratios)}]")
        print(out)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
