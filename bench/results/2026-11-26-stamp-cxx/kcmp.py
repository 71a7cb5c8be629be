import sys
def cent(p):
    c = {}
    for line in open(p):
        f = line.split()
        if len(f) > 3 and f[0].isdigit():
            c[int(f[0])] = [float(x) for x in f[1:]]
    return c
a, b = cent(sys.argv[1]), cent(sys.argv[2])
if sorted(a) != sorted(b) or not a:
    print("cluster ids differ"); sys.exit(1)
d = max(abs(x - y) for k in a for x, y in zip(a[k], b[k]))
print("maxdiff", d); sys.exit(0 if d < 1e-3 else 1)
