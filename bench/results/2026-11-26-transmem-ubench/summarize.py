#!/usr/bin/env python3
"""summarize.py [--drop LINES] KIND FILE...: passed/runs tables from run1.sh (ubench), bb1.sh (bb) or
valid1.sh (valid) result lines; BAD cells in bold with their reasons."""
import sys
from collections import defaultdict, Counter

CFGS = ["libitm", "libitm-gl_wt", "libitm-serialirr", "adaptive", "orec_eager", "gl_wt",
        "serialirr", "norec", "orec_lazy"]

def main():
    args = sys.argv[1:]
    drop = set()
    if args[0] == "--drop":  # result lines to leave out (runs spoiled by a full disk)
        drop = {l.strip() for l in open(args[1]) if l.strip()}
        args = args[2:]
    kind, files = args[0], args[1:]
    cells = defaultdict(lambda: [0, 0, Counter()])
    rows = []
    for f in files:
        for line in open(f):
            p = line.split()
            if not p or p[0].startswith("#") or line.strip() in drop:
                continue
            if kind == "ubench":
                row, cfg, st, reason = (p[0], p[1], int(p[3])), p[2], p[6], p[7]
            elif kind == "bb":
                row, cfg, st, reason = (p[0], p[1], f"{p[3]}p/{p[4]}c"), p[2], p[7], p[8]
            else:
                if p[1] == "ref":
                    continue
                row, cfg, st, reason = (p[0], int(p[2])), p[1], p[5], p[6]
            if row not in rows:
                rows.append(row)
            c = cells[(row, cfg)]
            c[1] += 1
            if st == "ok":
                c[0] += 1
            else:
                c[2][reason] += 1
    head = {"ubench": ["program", "workload", "threads"], "bb": ["bench", "preload", "threads"],
            "valid": ["container", "threads"]}[kind]
    print("| " + " | ".join(head + CFGS) + " |")
    print("|" + "---|" * (len(head) + len(CFGS)))
    for row in rows:
        out = []
        for cfg in CFGS:
            ok, n, why = cells[(row, cfg)]
            if n == 0:
                out.append("-")
            elif ok == n:
                out.append(f"{ok}/{n}")
            else:
                out.append(f"**{ok}/{n}** ({', '.join(f'{k} {v}' for k, v in why.items())})")
        print("| " + " | ".join(str(x) for x in row) + " | " + " | ".join(out) + " |")

main()
