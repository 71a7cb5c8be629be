#!/usr/bin/env python3
"""Summarize run1.sh result lines: per variant, app x algorithm x threads -> pass/runs and median wall."""
import sys, statistics, collections
ALGOS = ["libitm", "adaptive", "orec_eager", "gl_wt", "serialirr", "norec", "orec_lazy"]
cells = collections.defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if len(f) < 8:
            continue
        v, b, a, t = f[0], f[1], f[2], int(f[3])
        ok = f[6] == "ok"
        wall = float(f[7].split("=")[1]) if f[7].startswith("wall=") and f[7] != "wall=" else float("nan")
        cells[(v, b, a, t)].append((ok, wall))
variants = sorted({k[0] for k in cells})
for v in variants:
    apps = []
    for k in cells:
        if k[0] == v and k[1] not in apps:
            apps.append(k[1])
    threads = sorted({k[3] for k in cells if k[0] == v})
    print(f"\n### {v}: passed/runs, median wall seconds\n")
    print("| app | threads | " + " | ".join(ALGOS) + " |")
    print("|---|---|" + "---|" * len(ALGOS))
    for b in apps:
        for t in threads:
            row = []
            for a in ALGOS:
                r = cells.get((v, b, a, t), [])
                if not r:
                    row.append("-")
                    continue
                p = sum(ok for ok, _ in r)
                w = statistics.median(w for _, w in r)
                mark = "" if p == len(r) else "**"
                row.append(f"{mark}{p}/{len(r)}{mark} {w:.2f}")
            print(f"| {b} | {t} | " + " | ".join(row) + " |")
    tot = sum(len(r) for k, r in cells.items() if k[0] == v)
    bad = sum(1 for k, r in cells.items() if k[0] == v for ok, _ in r if not ok)
    print(f"\n{v}: {tot} runs, {bad} failed")
