import sys, statistics, collections
d = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 8 or f[0].startswith('#') or f[0] in ('start', 'end'):
        continue
    d[(f[0], int(f[2]))][f[3]][f[4].split('=')[1]] = float(f[7].split('=')[1])
print("| program | threads | OLD | REV | NEW | REV/OLD (min-max) | NEW/REV (min-max) |")
print("|---|---:|---:|---:|---:|---:|---:|")
m = statistics.median
for (b, t), reps in d.items():
    reps = [v for v in reps.values() if len(v) == 3]
    ro = [v['rev'] / v['old'] for v in reps]; nr = [v['new'] / v['rev'] for v in reps]
    print("| %s | %d | %.3f | %.3f | %.3f | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) |" % (b, t,
          m([v['old'] for v in reps]), m([v['rev'] for v in reps]), m([v['new'] for v in reps]),
          m(ro), min(ro), max(ro), m(nr), min(nr), max(nr)))
