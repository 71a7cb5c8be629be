import sys, re, statistics, collections
# summarize stats.txt: per (program, algo, threads, priv, lib) medians over the runs
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 8 or f[0] in ('start', 'end'):
        continue
    kv = dict(re.findall(r'(\w+(?:/\w+)?)=([\d.]+)', line))
    lib = re.search(r'lib=(\w+)', line).group(1); priv = re.search(r'priv=(\w+)', line).group(1)
    d[(f[0], f[1], int(f[2]), priv)].append((lib, kv))
print("| program | algo | thr | priv | runs | aborts/1k commits OLD | NEW | serial runs OLD | NEW | quiesce wait cyc/commit OLD | NEW | serial wait Mcyc OLD | NEW | Time OLD | NEW |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
m = lambda xs: statistics.median(xs)
for k, rows in d.items():
    g = {L: [kv for l, kv in rows if l == L] for L in ('old', 'new')}
    def col(L, key, f=float):
        return m([f(kv[key]) for kv in g[L]])
    ab = {L: m([1000 * float(kv['aborts']) / float(kv['commits']) for kv in g[L]]) for L in g}
    print("| %s | %s | %d | %s | %d | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f | %.3f |" % (
        k[0], k[1], k[2], k[3], len(g['new']), ab['old'], ab['new'], col('old', 'serial'), col('new', 'serial'),
        col('old', 'quiesce_cyc/commit'), col('new', 'quiesce_cyc/commit'), col('old', 'serialwait_Mcyc'),
        col('new', 'serialwait_Mcyc'), col('old', 'time'), col('new', 'time')))
