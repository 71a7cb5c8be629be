#!/usr/bin/env python3
"""Paired A/B of two builds of tmkit's libitm.so (BASE, NEW: lib directories) on the bench
programs at 1 and 2 threads (and the ring at 4), with GCC's libitm and the mutex build as
references, and PARSEC streamcluster (bench/results/2026-11-26-parsec-tm/build.sh) if present.
Rounds interleave the configurations; each cell is the median of the rounds.
Usage: ab.py BASE_LIBDIR NEW_LIBDIR [ROUNDS] [SECONDS] [ALGOS] [THREADS]   (from the repository
root; ALGOS comma-separated, default adaptive,gl_wt,orec_eager; THREADS, comma-separated,
replaces every case's thread counts)"""
import os, statistics, subprocess, sys, time

base, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
secs = sys.argv[4] if len(sys.argv) > 4 else "0.3"
algos = (sys.argv[5] if len(sys.argv) > 5 else "adaptive,gl_wt,orec_eager").split(",")
only = tuple(int(t) for t in sys.argv[6].split(",")) if len(sys.argv) > 6 else None
BIN = "build/bin"
cases = [("micro", "--mode ring", (2, 4)), ("micro", "--mode counter", (1, 2)),
         ("micro", "--mode empty", (1, 2)), ("micro", "--mode reads --n 16", (1, 2)),
         ("micro", "--mode writes --n 16", (1, 2)), ("micro", "--mode disjoint", (1, 2)),
         ("rbtree", "--range 65536 --update-pct 20", (1, 2)),
         ("rbtree", "--range 1024 --update-pct 50", (1, 2)),
         ("hashset", "--range 262144 --update-pct 10", (1, 2)),
         ("list", "--range 256 --update-pct 10", (1, 2)), ("bank", "", (1, 2)),
         ("lru", "--zipf 2", (1, 2))]
configs = [(f"{side}-{a}", lib, a) for a in algos for side, lib in (("base", base), ("new", new))]
configs += [("libitm", None, None), ("mutex", None, None)]
SC = "/tmp/parsec-tm/build/streamcluster-tm/streamcluster"


def env_for(lib, algo):
    e = {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_")}
    e.pop("LD_LIBRARY_PATH", None)
    if lib:
        e["LD_LIBRARY_PATH"] = lib
        e["TMKIT_ALGO"] = algo
    return e


def run_case(name, lib, algo, prog, args, threads):
    exe = f"{BIN}/{prog}-{'mutex' if name == 'mutex' else 'tm'}"
    p = subprocess.run([exe, "--threads", str(threads), "--seconds", secs] + args.split(),
                       env=env_for(lib, algo), capture_output=True, text=True, timeout=120)
    kv = dict(x.split("=", 1) for x in p.stdout.split() if "=" in x)
    if name == "libitm" and p.returncode < 0:
        # GCC's libitm crashes now and then on the contended tree (bench/README.md): not counted
        print(f"libitm {prog} {args} {threads}: signal {-p.returncode}", file=sys.stderr)
        return None
    assert kv.get("ok") == "1", (name, prog, args, threads, p.returncode, p.stdout, p.stderr)
    return float(kv["ops_per_s"])


def run_sc(lib, algo, threads):
    t0 = time.monotonic()
    try:
        subprocess.run([SC, "10", "20", "16", "256", "256", "100", "none", "/tmp/sc-ab.out", str(threads)],
                       env=env_for(lib, algo), capture_output=True, timeout=20, check=True)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.monotonic() - t0


res = {}
for r in range(rounds):
    for prog, args, threads_list in cases:
        for threads in only or threads_list:
            for name, lib, algo in configs:
                res.setdefault((threads, prog + " " + args, name), []).append(
                    run_case(name, lib, algo, prog, args, threads))
    if os.path.exists(SC):
        for name, lib, algo in configs:
            if name != "mutex":
                for t in only or (2,):
                    res.setdefault((t, "streamcluster (s)", name), []).append(run_sc(lib, algo, t))
    print(f"round {r + 1}/{rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)

names = [c[0] for c in configs]
print("| threads | case | " + " | ".join(names) + " | " +
      " | ".join(f"new/base {a}" for a in algos) + " |")
print("|---" * (2 + len(names) + len(algos)) + "|")
for key in sorted({(t, c) for t, c, _ in res}, key=lambda k: (k[1], k[0])):
    t, c = key
    med = {n: statistics.median(v) for n in names
           if (v := [x for x in res.get((t, c, n), []) if x is not None])}
    unit = 1 if "(s)" in c else 1e6
    cells = [f"{med[n] / unit:.3g}" if n in med else "" for n in names]
    ratios = []
    for a in algos:
        b, n = med.get(f"base-{a}"), med.get(f"new-{a}")
        if b and n:
            ratios.append(f"{(b / n if '(s)' in c else n / b):.2f}")
        else:
            ratios.append("")
    print(f"| {t} | {c} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
