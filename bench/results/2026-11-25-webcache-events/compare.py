#!/usr/bin/env python3
"""Before/after table of the web-cache experiment (issue 24): medians over every run of the
before-N and after-N directories beside this script (each a `tmkit bench webcache` output).

usage: compare.py [DIR]   (prints compare.md's table on stdout)
"""
import csv
import glob
import os
import statistics
import sys

def runs(here, kind):
    """{(s, threads, build): [(req/s, mean ms, p99 ms) of each ok run]} over here/KIND-*/."""
    out = {}
    for d in sorted(glob.glob(os.path.join(here, f"{kind}-*", ""))):
        for r in csv.DictReader(open(os.path.join(d, "runs.csv"))):
            if r["status"] == "ok":
                key = (float(r["s"]), int(r["threads"]), r["build"])
                out.setdefault(key, []).append((float(r["rps"]), float(r["mean_ms"]),
                                                float(r["p99_ms"])))
    return out


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    before, after = runs(here, "before"), runs(here, "after")
    print("| s | threads | build | runs | before req/s | after req/s | after / before | "
          "before mean ms | after mean ms | before p99 ms | after p99 ms |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for key in sorted(before):
        if key not in after:
            continue
        b, a = before[key], after[key]
        med = [statistics.median(x[i] for x in b) for i in range(3)]
        mea = [statistics.median(x[i] for x in a) for i in range(3)]
        ratios.append(mea[0] / med[0])
        print(f"| {key[0]:g} | {key[1]} | {key[2]} | {len(b)}+{len(a)} | {med[0]:,.0f} | "
              f"{mea[0]:,.0f} | {mea[0] / med[0]:.2f} | {med[1]:.2f} | {mea[1]:.2f} | "
              f"{med[2]:.2f} | {mea[2]:.2f} |")
    print(f"\nafter / before over {len(ratios)} points: median {statistics.median(ratios):.3f}, "
          f"geometric mean {statistics.geometric_mean(ratios):.3f}, min {min(ratios):.2f}, "
          f"max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
