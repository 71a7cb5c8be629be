import sys, statistics, collections
rows = collections.defaultdict(list); bad = []
for fn in sys.argv[1:]:
    for line in open(fn):
        f = line.split()
        if len(f) < 8: continue
        b, a, t, r, rc, ok = f[:6]
        tm = f[6].split('=')[1]; wall = f[7].split('=')[1]
        if ok != 'ok': bad.append(line.strip())
        if tm: rows[(b, int(t), a)].append((float(tm), float(wall)))
algos = ['libitm', 'orec_eager', 'adaptive', 'orec_lazy']
benches = []
for k in rows:
    if k[0] not in benches: benches.append(k[0])
print("| benchmark | threads | " + " | ".join(algos) + " | eager/libitm |")
print("|---|---:|" + "---:|" * (len(algos) + 1))
for b in benches:
    for t in (1, 2, 4):
        cells = []; med = {}
        for a in algos:
            v = rows.get((b, t, a))
            if not v: cells.append("-"); continue
            med[a] = statistics.median(x[0] for x in v)
            cells.append("%.3f (n=%d)" % (med[a], len(v)))
        if not med: continue
        ratio = "%.2f" % (med['orec_eager'] / med['libitm']) if 'orec_eager' in med and 'libitm' in med and med['libitm'] > 0 else "-"
        print("| %s | %d | %s | %s |" % (b, t, " | ".join(cells), ratio))
print("\nnot ok:", len(bad))
for x in bad: print(x)
