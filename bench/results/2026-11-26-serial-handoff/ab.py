#!/usr/bin/env python3
"""Paired A/B of two builds of tmkit's libitm.so (BASE, NEW: lib directories) on the bench
programs at 2 and 4 threads, with GCC's libitm and the mutex build as references, and PARSEC
streamcluster (the TM port built by bench/results/2026-11-26-parsec-tm/build.sh) if present.
Rounds interleave the configurations; each cell is the median of the rounds.
Usage: ab.py BASE_LIBDIR NEW_LIBDIR [ROUNDS] [SECONDS]   (run from the repository root)"""
import os, statistics, subprocess, sys, time

base, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
secs = sys.argv[4] if len(sys.argv) > 4 else "0.3"
BIN = "build/bin"
cases = [("micro", "--mode counter"), ("micro", "--mode empty"), ("bank", ""), ("lru", "--zipf 2"),
         ("micro", "--mode writes --n 64 --array shared"), ("micro", "--mode ring")]
configs = [("base-adaptive", base, "adaptive"), ("new-adaptive", new, "adaptive"),
           ("base-serialirr", base, "serialirr"), ("new-serialirr", new, "serialirr"),
           ("libitm", None, None), ("mutex", None, None)]
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
    out = subprocess.run([exe, "--threads", str(threads), "--seconds", secs] + args.split(),
                         env=env_for(lib, algo), capture_output=True, text=True, timeout=120).stdout
    kv = dict(x.split("=", 1) for x in out.split() if "=" in x)
    assert kv.get("ok") == "1", out
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
    for threads in (2, 4):
        for prog, args in cases:
            for name, lib, algo in configs:
                res.setdefault((threads, prog + " " + args, name), []).append(
                    run_case(name, lib, algo, prog, args, threads))
        if os.path.exists(SC):
            for name, lib, algo in configs:
                if name == "mutex":
                    continue
                res.setdefault((threads, "streamcluster (s)", name), []).append(run_sc(lib, algo, threads))

names = [c[0] for c in configs]
print(f"rounds={rounds} seconds={secs} date={time.strftime('%Y-%m-%d %H:%M')} load={os.getloadavg()[0]:.2f}")
print("| threads | case | " + " | ".join(names) + " |")
print("|---|---|" + "---|" * len(names))
for (threads, case) in sorted({(k[0], k[1]) for k in res}):
    cells = []
    for n in names:
        v = res.get((threads, case, n))
        if not v:
            cells.append("-")
        elif case.startswith("streamcluster"):
            cells.append(f"{statistics.median(v):.3f}" if statistics.median(v) != float("inf") else ">20")
        else:
            cells.append(f"{statistics.median(v) / 1e6:.2f}M")
    print(f"| {threads} | {case} | " + " | ".join(cells) + " |")
