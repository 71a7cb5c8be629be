"""webcache-urls: catalog rules, Zipf frequencies, determinism, strict flags.

usage: wl_test_urls.py BINDIR
Frequencies are checked against exact expectations with tolerances of about 5 standard errors
(a fixed seed makes the outcome deterministic; the tolerance keeps the test honest if the
generator or the installed catalog changes).
"""
import collections
import gzip
import math
import os
import subprocess
import sys
import tempfile

BIN = os.path.join(sys.argv[1], "webcache-urls")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def urls(*args):
    p = subprocess.run([BIN] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"webcache-urls {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout.split()


def rc(*args):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True)


# Catalog rules on a made-up man tree.
with tempfile.TemporaryDirectory() as d:
    for sec, files in (("2", ["zeta.2.gz", "alpha.2.gz", "notgz.2", "wrongsec.3.gz"]),
                       ("3", ["bar.3.gz", "bar.3pm.gz", "Foo::Bar.3pm.gz", "has space.3.gz",
                              "x.3type.gz"]),
                       ("7", ["m.7.gz"])):
        os.makedirs(os.path.join(d, "man" + sec))
        for f in files:
            with gzip.open(os.path.join(d, "man" + sec, f), "wb") as g:
                g.write(b".TH X\n")
    os.symlink("bar.3.gz", os.path.join(d, "man3", "alias.3.gz"))
    os.symlink("missing.3.gz", os.path.join(d, "man3", "dangling.3.gz"))
    got = urls("--catalog", "--man-dir", d)
    want = ["/man/2/alpha", "/man/2/zeta", "/man/3/Foo::Bar", "/man/3/alias", "/man/3/bar",
            "/man/3/x", "/man/7/m"]
    check(got == want, f"catalog of the made-up tree: {got} != {want}")
    got = urls("--catalog", "--man-dir", d, "--pages", "3", "--base", "http://h:1")
    check(got == ["http://h:1" + u for u in want[:3]], f"--pages/--base catalog: {got}")
    check(rc("--catalog", "--man-dir", os.path.join(d, "nope")).returncode == 1,
          "missing man dir must exit 1")

catalog = urls("--catalog")
n = len(catalog)
check(n > 1000, f"system catalog has only {n} pages")
rank = {u: i + 1 for i, u in enumerate(catalog)}

# s = 0: uniform. Chi-square over all pages, df = n - 1: chi2/df ~ 1 +- sqrt(2/df).
N = 300000
counts = collections.Counter(urls("--s", "0", "--n", str(N), "--seed", "11"))
check(set(counts) <= set(catalog), "s=0 produced a URL outside the catalog")
exp = N / n
chi2 = sum((counts.get(u, 0) - exp) ** 2 / exp for u in catalog)
dev = abs(chi2 / (n - 1) - 1) / math.sqrt(2 / (n - 1))
check(dev < 5, f"s=0 not uniform: chi2/df = {chi2 / (n - 1):.3f} ({dev:.1f} sd from 1)")

# s = 1 and s = 2: frequency of ranks 1, 2, 10 against 1 / (r^s H(n, s)).
for s in (1, 2):
    N = 200000
    c = collections.Counter(rank[u] for u in urls("--s", str(s), "--n", str(N), "--seed", "5"))
    H = sum(k ** -s for k in range(1, n + 1))
    for r in (1, 2, 10):
        p = r ** -s / H
        se = math.sqrt(p * (1 - p) / N)
        f = c.get(r, 0) / N
        check(abs(f - p) < 5 * se + 1e-4, f"s={s} rank {r}: frequency {f:.4f}, want {p:.4f}")
    print(f"s={s}: rank-1 frequency {c.get(1, 0) / N:.4f}, 1/H = {1 / H:.4f}")

# Determinism and seeds; --base prefixes; --pages bounds the ranks.
a = urls("--s", "1", "--n", "1000", "--seed", "7")
check(a == urls("--s", "1", "--n", "1000", "--seed", "7"), "same seed, different output")
check(a != urls("--s", "1", "--n", "1000", "--seed", "8"), "different seeds, same output")
b = urls("--s", "1", "--n", "1000", "--seed", "7", "--base", "http://127.0.0.1:9")
check(b == ["http://127.0.0.1:9" + u for u in a], "--base does not just prefix")
check(all(rank[u] <= 5 for u in urls("--s", "0", "--n", "500", "--pages", "5")),
      "--pages 5 produced a rank above 5")

# Bad usage: exit 2 with a message naming the problem.
for args in (["--s", "1"], ["--n", "5"], ["--s", "-1", "--n", "5"], ["--s", "abc", "--n", "5"],
             ["--s", "1", "--n", "0"], ["--s", "1", "--n", "5x"], ["--s=1", "--n=5", "extra"],
             ["--s", "1", "--n", "5", "--bogus", "1"], ["--s", "1", "--n", "5", "--seed", "-1"],
             ["--s", "1", "--n", "5", "--base", "ftp://x"], ["--s", "1", "--n"],
             ["--catalog=1"], ["--s", "11", "--n", "5"]):
    p = rc(*args)
    check(p.returncode == 2 and p.stderr.startswith("webcache-urls: "),
          f"{args}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
check(rc("--help").returncode == 0, "--help must exit 0")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("webcache-urls: ok")
