import sys, collections, statistics
# count runs and passes per (program, algo, threads, lib) over run1.sh output files
d = collections.defaultdict(lambda: [0, 0, []])
for fn in sys.argv[1:]:
    for line in open(fn):
        f = line.split()
        if len(f) < 8 or f[0].startswith('#') or f[0] in ('start', 'end'):
            continue
        k = (f[0], f[1], int(f[2]), f[4].split('=')[1]); d[k][0] += 1
        d[k][1] += (f[6] == 'ok' and f[5] == 'rc=0')
        d[k][2].append(float(f[7].split('=')[1] or 'nan'))
print("| program | algo | threads | lib | runs | passed | median Time (s) |")
print("|---|---|---:|---|---:|---:|---:|")
tot = collections.Counter()
for k in sorted(d):
    n, ok, t = d[k]; tot[k[3]] += n; tot[k[3] + '_ok'] += ok
    print("| %s | %s | %d | %s | %d | %d | %.3f |" % (k + (n, ok, statistics.median(t))))
print(dict(tot))
