#!/usr/bin/env python3
"""lines_run.py: the runs behind bench/results/lines/ (shared cache lines per transaction,
docs/scaling.md). Runs `make bench`'s cases (tools/tmkit_cli/bench/cli.py: micro, ds, bank, lru)
under each tmkit algorithm at several thread counts, in one of two builds:

  count  the -DTMKIT_COUNT_LINES=ON build with TMKIT_COUNT_LINES=1: one run per cell, its
         stdout and the `tmkit-lines:` report appended to counts.txt
  time   the default build: `repeats` runs per cell (configurations interleaved), each under
         flock /tmp/bench.lock (one case and repeat at a time), appended to times.txt

usage: bench/scripts/lines_run.py count|time BUILD_DIR OUT_DIR [--threads 1,2,4] [--repeats 3]
       [--seconds 0.3] [--algos a,b] [--cases c,d]
  count needs a counting build: cmake -S . -B build-lines -DTMKIT_COUNT_LINES=ON; ninja -C build-lines
  time  uses the default build (build)
Appends to OUT_DIR/counts.txt or OUT_DIR/times.txt; every block starts with
`=== case=... algo=... threads=... rep=... rc=...`. bench/scripts/lines_model.py makes the tables."""
import argparse
import fcntl
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from tmkit_cli.bench.cli import SUITES, SUITE_ORDER  # noqa: E402

ALGOS = ["adaptive", "gl_wt", "norec", "orec_eager", "orec_lazy", "serialirr"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["count", "time"])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", default="0.3")
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--cases", default="")
    a = ap.parse_args()
    cases = [c for s in SUITE_ORDER for c in SUITES[s]]
    if a.cases:
        cases = [c for c in cases if c.name in a.cases.split(",")]
    algos = a.algos.split(",")
    configs = [(al, "tm") for al in algos] + ([("mutex", "mutex")] if a.what == "time" else [])
    repeats = 1 if a.what == "count" else a.repeats
    out = open(os.path.join(a.out, "counts.txt" if a.what == "count" else "times.txt"), "a")
    for rep in range(repeats):
        for case in cases:
            lock = open("/tmp/bench.lock", "w") if a.what == "time" else None
            if lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
            for thr in a.threads.split(","):
                k = rep % len(configs)
                for algo, build in configs[k:] + configs[:k]:
                    env = {k2: v for k2, v in os.environ.items() if not k2.startswith("TMKIT_")}
                    env["LD_LIBRARY_PATH"] = os.path.join(a.build, "lib")
                    if build == "tm":
                        env["TMKIT_ALGO"] = algo
                    if a.what == "count":
                        env["TMKIT_COUNT_LINES"] = "1"
                    cmd = [os.path.join(a.build, "bin", f"{case.prog}-{build}"), "--threads", thr,
                           "--seconds", a.seconds] + case.args
                    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
                    out.write(f"=== case={case.name} algo={algo} threads={thr} rep={rep} "
                              f"rc={p.returncode}\n{p.stdout}{p.stderr}")
                    out.flush()
            if lock:
                lock.close()
            print(f"rep {rep} {case.name} done", file=sys.stderr)


if __name__ == "__main__":
    main()
