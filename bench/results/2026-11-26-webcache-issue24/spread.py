#!/usr/bin/env python3
"""Round-to-round spread of the before/after runs beside compare.md (each before-N / after-N a
`tmkit bench webcache --repeats 1` output): per point the requests/s of every round, each side's
spread (max / min - 1), after / before of the medians, and whether every after round is below
every before round ("below": a drop larger than the rounds' noise; with 4 rounds a side that
happens by chance with probability 1/70) or above every one ("above").

usage: spread.py [DIR]   (prints a markdown table on stdout)
"""
import os
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "2026-11-25-webcache-events"))
from compare import runs  # noqa: E402  (the same loader as compare.md's table)


def rounds(kind):
    return {key: [x[0] for x in v] for key, v in runs(here, kind).items()}


before, after = rounds("before"), rounds("after")
print("| s | threads | build | before req/s by round | after req/s by round | before spread | "
      "after spread | after / before | verdict |")
print("|---:|---:|---|---|---|---:|---:|---:|---|")
for key in sorted(before):
    if key not in after:
        continue
    b, a = before[key], after[key]
    ratio = statistics.median(a) / statistics.median(b)
    verdict = "below" if max(a) < min(b) else "above" if min(a) > max(b) else "within noise"
    print(f"| {key[0]:g} | {key[1]} | {key[2]} | {', '.join(f'{x:,.0f}' for x in b)} | "
          f"{', '.join(f'{x:,.0f}' for x in a)} | {max(b) / min(b) - 1:.0%} | "
          f"{max(a) / min(a) - 1:.0%} | {ratio:.2f} | {verdict} |")
