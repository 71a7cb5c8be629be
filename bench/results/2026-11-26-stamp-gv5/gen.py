# our own small input generators for STAMP kmeans and labyrinth
import random, sys
def kmeans(path, n, d, c, seed=7):
    r = random.Random(seed)
    centers = [[r.uniform(0, 1) for _ in range(d)] for _ in range(c)]
    with open(path, "w") as f:
        for i in range(n):
            ctr = centers[r.randrange(c)]
            f.write("%d %s\n" % (i + 1, " ".join("%.6f" % (x + r.gauss(0, 0.05)) for x in ctr)))
def maze(path, x, y, z, n, seed=11):
    r = random.Random(seed)
    used = set()
    with open(path, "w") as f:
        f.write("# our generated maze\nd %d %d %d\n" % (x, y, z))
        k = 0
        while k < n:
            a = (r.randrange(x), r.randrange(y), r.randrange(z))
            b = (r.randrange(x), r.randrange(y), r.randrange(z))
            if a == b or a in used or b in used:
                continue
            used.add(a); used.add(b)
            f.write("p %d %d %d %d %d %d\n" % (a + b))
            k += 1
kmeans("random-n16384-d16-c16.txt", 16384, 16, 16)
maze("random-x64-y64-z3-n64.txt", 64, 64, 3, 64)
maze("random-x128-y128-z3-n128.txt", 128, 128, 3, 128)
