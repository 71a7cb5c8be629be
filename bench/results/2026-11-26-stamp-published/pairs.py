import sys, statistics, collections
# pairs.txt lines: BENCH ALGO THREADS pN lib=new|old rc=.. ok time=T wall=W
d = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 8 or f[0].startswith('#') or f[0] in ('start', 'end'):
        continue
    b, a, t, r, lib = f[0], f[1], int(f[2]), f[3], f[4].split('=')[1]
    d[(b, a, t)][r][lib] = float(f[7].split('=')[1])
print("| program | algo | threads | OLD median | NEW median | NEW/OLD median of pairs (min-max) | pairs NEW slower |")
print("|---|---|---:|---:|---:|---:|---:|")
for (b, a, t), reps in d.items():
    reps = {r: v for r, v in reps.items() if 'new' in v and 'old' in v}
    old = [v['old'] for v in reps.values()]; new = [v['new'] for v in reps.values()]
    rat = [v['new'] / v['old'] for v in reps.values()]
    print("| %s | %s | %d | %.3f | %.3f | %.2f (%.2f-%.2f) | %d/%d |" % (b, a, t, statistics.median(old),
          statistics.median(new), statistics.median(rat), min(rat), max(rat), sum(x > 1 for x in rat), len(rat)))
