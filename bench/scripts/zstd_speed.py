#!/usr/bin/env python3
"""zstd_speed.py: compression speed of the transactional zstd that `tmkit advise --apply` wrote
(tests/advise/e2e.sh --program zstd) against the unmodified build's, at -T 1, 2, 4
(bench/results/advise-memcached/, the second program).

Binaries: the lock build's BUILD/advise-real/e2e-zstd/src/programs/zstd and the transactional
BUILD/advise-real/e2e-zstd/tm/programs/zstd on tmkit's BUILD/lib/libitm.so.1 (a copy, checked
with ldd) under each --algos TMKIT_ALGO. Input: the end-to-end test's corpus
(BUILD/advise-real/e2e-zstd/corpus-*.bin, ~8 MB: zstd's own sources as a tar, then its upstream
tarball). A run is `zstd -q -c -T N -B1MiB -LEVEL corpus` into /dev/null, timed (wall and the
child's CPU time); --repeat runs make one measurement. The configurations run interleaved: a
round runs every (build, -T, level) once, in an order rotated by one each round; the load
average is read before each run. Ratios are the median of the same-round ratios to the lock
build at the same -T and level (speed: lock's time / this one's, above 1 is faster).

Writes OUT (default BUILD/advise-real/bench-zstd/): runs.csv, summary.json; prints the table.
Usage: bench/scripts/zstd_speed.py ROOT BUILD [--rounds 7] [--threads 1,2,4]
       [--algos adaptive,gl_wt,orec_eager] [--levels 3,9] [--repeat 10] [--out DIR]"""
import argparse
import csv
import glob
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import tmlib
from tmlib import say


def options(argv):
    p = argparse.ArgumentParser(prog="zstd_speed.py ROOT BUILD", description=__doc__.split("\n\n")[0])
    p.add_argument("root")
    p.add_argument("build")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", default="1,2,4", help="zstd -T")
    p.add_argument("--algos", default="adaptive,gl_wt,orec_eager")
    p.add_argument("--levels", default="3,9")
    p.add_argument("--repeat", type=int, default=10, help="compressions per measurement")
    p.add_argument("--out", default="")
    a = tmlib.common_args(p.parse_args(argv), "bench-zstd")
    a.levels = [int(x) for x in a.levels.split(",") if x]
    return a


def builds(a):
    """[(label, zstd, environment)], the lock build first."""
    e = os.path.join(a.build, "advise-real", "e2e-zstd")
    lock, tm = (os.path.join(e, d, "programs", "zstd") for d in ("src", "tm"))
    corpus = sorted(glob.glob(os.path.join(e, "corpus-*.bin")))
    if not (os.path.exists(lock) and os.path.exists(tm) and corpus):
        sys.exit(f"no end-to-end zstd build in {e}: run tests/advise/e2e.sh {a.root} {a.build} "
                 "--program zstd first")
    tmenv, _ = tmlib.snapshot(a.build, a.out, tm)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_")}
    return ([("lock", lock, env)] + [(f"tm-{x}", tm, dict(tmenv, TMKIT_ALGO=x)) for x in a.algos],
            corpus[-1])


def measure(exe, env, corpus, t, level, repeat):
    """(wall seconds, CPU seconds) of `repeat` compressions."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for _ in range(repeat):
        with open(os.devnull, "wb") as sink:
            subprocess.run([exe, "-q", "-c", f"-T{t}", "-B1MiB", f"-{level}", corpus],
                           env=env, stdout=sink, check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summarize(rows, labels, a):
    out = {}
    for t in a.threads:
        for lv in a.levels:
            base = {r["round"]: r for r in rows
                    if r["build"] == "lock" and r["threads"] == t and r["level"] == lv}
            for label in labels:
                got = [r for r in rows if r["build"] == label and r["threads"] == t and r["level"] == lv]
                ratios = sorted(base[r["round"]]["seconds"] / r["seconds"] for r in got if r["round"] in base)
                cratios = sorted(base[r["round"]]["cpu_s"] / r["cpu_s"] for r in got
                                 if r["round"] in base and r["cpu_s"])
                out[f"{label} -T{t} -{lv}"] = {
                    "build": label, "threads": t, "level": lv, "runs": len(got),
                    "seconds_median": round(statistics.median(r["seconds"] for r in got), 3),
                    "speed_ratio_median": round(statistics.median(ratios), 3),
                    "speed_ratios": [round(x, 3) for x in ratios],
                    "cpu_ratio_median": round(statistics.median(cratios), 3) if cratios else None}
    return out


def main(argv):
    a = options(argv)
    os.makedirs(a.out, exist_ok=True)
    srv, corpus = builds(a)
    labels = [s[0] for s in srv]
    configs = [(label, exe, env, t, lv) for t in a.threads for lv in a.levels for label, exe, env in srv]
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    say(f"builds: {', '.join(labels)}; -T {a.threads}; levels {a.levels}; {a.rounds} rounds of "
        f"{a.repeat} compressions of {os.path.basename(corpus)} ({os.path.getsize(corpus) // 1024} KiB)")
    rows = []
    for rnd in range(1, a.rounds + 1):
        k = (rnd - 1) % len(configs)
        for label, exe, env, t, lv in configs[k:] + configs[:k]:
            la = float(open("/proc/loadavg").read().split()[0])
            wall, cpu = measure(exe, env, corpus, t, lv, a.repeat)
            rows.append({"round": rnd, "build": label, "threads": t, "level": lv,
                         "seconds": round(wall, 4), "cpu_s": round(cpu, 4), "loadavg": la})
            say(f"round {rnd} {label:<14} -T{t} -{lv}: {wall:.3f} s, CPU {cpu:.3f} s (load {la:.2f})")
    with open(os.path.join(a.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["round", "build", "threads", "level", "seconds", "cpu_s", "loadavg"])
        w.writeheader()
        w.writerows(rows)
    summ = summarize(rows, labels, a)
    commit = subprocess.run(["git", "-C", a.root, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    doc = {"date": started, "commit": commit, "command": "bench/scripts/zstd_speed.py " + " ".join(argv),
           "machine": f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
                      f"Linux {platform.release()}",
           "corpus_bytes": os.path.getsize(corpus), "builds": labels,
           "loadavg": [min(r["loadavg"] for r in rows), max(r["loadavg"] for r in rows)] if rows else None,
           "summary": summ}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(doc, f, indent=1)
    say("\nmedian seconds a measurement; /lock: the median of the same-round speed ratios "
        "(lock's time / this one's)")
    cols = [(t, lv) for t in a.threads for lv in a.levels]
    say(f"{'build':<16}" + "".join(f"{f'-T{t} -{lv} s':>12}{'/lock':>6}" for t, lv in cols))
    for label in labels:
        say(f"{label:<16}" + "".join(f"{summ[f'{label} -T{t} -{lv}']['seconds_median']:>12.3f}"
                                     f"{summ[f'{label} -T{t} -{lv}']['speed_ratio_median']:>6.2f}"
                                     for t, lv in cols))
    say(f"\nwritten: {a.out}/runs.csv, summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
