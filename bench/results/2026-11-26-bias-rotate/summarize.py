"""Medians of ab.sh's runs: per case, rotate and single at 1 and 2 threads, rotate/single at 2
threads, and each configuration's 2-thread over 1-thread ratio. Usage: summarize.py runs.txt"""
import collections
import statistics
import sys

runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[1] in ("1", "2") and f[2] in ("rotate", "single") and f[3].isdigit():
        runs[(f[0], int(f[1]), f[2])].append(int(f[3]))
cases = list(dict.fromkeys(k[0] for k in runs))
med = {k: statistics.median(v) for k, v in runs.items()}
print("| case | rotate 1t | single 1t | rotate 2t | single 2t | 2t rotate/single | rotate 2t/1t | single 2t/1t |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
ratios = []
for c in cases:
    r1, s1, r2, s2 = (med.get((c, t, b), 0) for t, b in ((1, "rotate"), (1, "single"), (2, "rotate"), (2, "single")))
    ratios.append(r2 / s2)
    print(f"| {c} | {r1/1e6:.2f}M | {s1/1e6:.2f}M | {r2/1e6:.2f}M | {s2/1e6:.2f}M | {r2/s2:.2f} | {r2/r1:.2f} | {s2/s1:.2f} |")
print(f"\ngeometric mean of 2t rotate/single: {statistics.geometric_mean(ratios):.3f}; runs per cell: "
      f"{min(len(v) for v in runs.values())}-{max(len(v) for v in runs.values())}")
