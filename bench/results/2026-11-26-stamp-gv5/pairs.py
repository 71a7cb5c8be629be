import sys, statistics, collections
d = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    b, a, t, r = f[:4]; tm = float(f[6].split('=')[1])
    d[(b, int(t))].setdefault(r, {})[a] = tm
print("| program | threads | before (45b7e3e) | after (8b580a4) | after/before (median of pairs) |")
print("|---|---:|---:|---:|---:|")
for (b, t), reps in d.items():
    pre = [v['prev:orec_eager'] for v in reps.values()]; new = [v['orec_eager'] for v in reps.values()]
    ratios = [v['orec_eager'] / v['prev:orec_eager'] for v in reps.values()]
    print("| %s | %d | %.3f | %.3f | %.2f (%.2f-%.2f) |" % (b, t, statistics.median(pre), statistics.median(new), statistics.median(ratios), min(ratios), max(ratios)))
