#!/usr/bin/env python3
"""lines_model.py: the tables of bench/results/lines/summary.md from counts.txt and times.txt
(bench/scripts/lines_run.py), make bench's medians (bench-medians.csv: case, config, threads,
median_ops_per_s, as in a `tmkit bench` results.csv) and the hand-off cost H (ns, from
build/bin/linecost on a quiet machine).

usage: bench/scripts/lines_model.py DIR H_NS [BENCH_CSV] [--inline] > DIR/summary.md
  BENCH_CSV defaults to DIR/bench-medians.csv; a `tmkit bench` results.csv works as well.
  --inline: BENCH_CSV is a `tmkit bench --with-plugin` run; each algorithm's times are those of
  its configuration built with tmkit's GCC plugin (tmkit-ALGO+inl) where it has one. The line
  counts are the same (the plugin's fast paths write the lines the runtime's do); t1 changes.

Per cell (case, algorithm, threads) the counting run gives, per committed transaction, the
distinct shared lines written by kind (runtime/core/lines.h) and the other descriptors' lines
read by quiescence and the serial drain (qread); the timed runs give median ops/s. The model
(docs/scaling.md) predicts ops/s at n cores from the 1-thread time per op t1 and the counts
measured at 4 threads, all per op (commits per op from the counting run):
  g  lines every writer of every core writes (clock, serial lock and its sleeper words, the
     decider's line): a whole-machine ceiling, and a transfer on each core's op
  q1 other descriptors' lines read per op and per other thread (quiescence, the drain)
  a  aborted attempts per commit at 4 threads
speculative: X(n) = min(n / (r t), 1 / (g' H)) with the attempt's time
     t = (1 + a) t1 + q1 max(t1, H (n - 1)) + H g' and g' = g (n - 1) / n (the next commit that
     writes a global line comes from another core (n - 1) / n of the time); q1 the quiescing
     commits per op (such a commit polls the n - 1 other descriptors until the attempts
     running at its commit end: about one transaction, or the walk's transfers if longer);
     r the attempts per commit: a gl_wt reader restarts whenever another core's writer takes
     the version during its attempt, r = (1 - g) exp(s) + g with s = X g' t (solved with X;
     writers take the version early and are counted as never restarting), NOrec revalidates
     instead, r = 1 + s, the orec algorithms r = 1 (a, measured at 4 threads, is in t);
     orec lines are left out: one orec line covers one 64-byte data line, so they move when
     the data does, a cost the program's sharing has under any lock
serial (one transaction at a time: serialirr): X(n) <= 1 / t1 whatever n (1 / (t1 + H) if
     every commit handed the lock to another core; the passive waiters make streaks)
adaptive: the best of gl_wt, serialirr and orec_eager (the modes it measures and picks)."""
import csv
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

GLOBAL = ("clock", "serial", "serial_wait", "cm")
OWN = ("desc", "cm_own")
SPEC = ("gl_wt", "norec", "orec_eager", "orec_lazy")


def blocks(path):
    cur = None
    for line in open(path):
        m = re.match(r"=== case=(\S+) algo=(\S+) threads=(\d+) rep=(\d+) rc=(-?\d+)", line)
        if m:
            if cur:
                yield cur
            cur = {"key": (m.group(1), m.group(2), int(m.group(3))), "rc": int(m.group(5)),
                   "text": []}
        elif cur:
            cur["text"].append(line)
    if cur:
        yield cur


def ops_per_s(text):
    for line in text:
        m = re.search(r" ops=(\d+) .*ops_per_s=(\d+)", line)
        if m:
            return int(m.group(1)), float(m.group(2))
    return None, None


def load_counts(path):
    cells = {}
    for b in blocks(path):
        ops, _ = ops_per_s(b["text"])
        c = {"ops": ops, "rc": b["rc"], "kinds": defaultdict(float), "phases": defaultdict(float)}
        for line in b["text"]:
            m = re.match(r"tmkit-lines: (?:threads|blocks)=\d+ commits=(\d+) aborts=(\d+)", line)
            if m:
                c["commits"], c["aborts"] = int(m.group(1)), int(m.group(2))
            m = re.match(r"tmkit-lines: kind=(\w+) phase=(\w+) writes=(\d+) lines=(\d+) "
                         r"handoffs=(\d+)", line)
            if m and m.group(2) != "thread":
                c["kinds"][m.group(1)] += int(m.group(4))
                c["kinds"]["h_" + m.group(1)] += int(m.group(5))
                c["phases"][(m.group(1), m.group(2))] += int(m.group(4))
        if c.get("commits"):
            cells[b["key"]] = c
    return cells


def load_times(path):
    runs = defaultdict(list)
    for b in blocks(path):
        _, x = ops_per_s(b["text"])
        if b["rc"] == 0 and x:
            runs[b["key"]].append(x)
    return {k: statistics.median(v) for k, v in runs.items()}


def load_all_run(path, inline=False):
    """Median ops/s of a make bench run (for bench/results/lines: 80aaab4, the counted runtime,
    on a quieter machine): {(case, algo, threads): ops/s}, algo without the `tmkit-` prefix.
    inline: an algorithm's `+inl` configuration (the plugin's build) stands for the algorithm;
    the others are left out."""
    out = {}
    rows = list(csv.DictReader(open(path)))
    for r in sorted(rows, key=lambda r: r["config"].endswith("+inl")):
        cfg = r["config"]
        if cfg.endswith("+inl"):
            if not inline:
                continue
            cfg = cfg[:-4]
        algo = cfg[6:] if cfg.startswith("tmkit-") else cfg
        out[(r["case"], algo, int(r["threads"]))] = float(r["median_ops_per_s"])
    return out


def per_commit(c, kinds):
    return sum(c["kinds"].get(k, 0) for k in kinds) / c["commits"]


def model(counts, times, case, algo, H):
    """Predicted ops/s at each n in (2, 8, 16, 64) and the binding limit, or None."""
    c4, t1 = counts.get((case, algo, 4)), times.get((case, algo, 1))
    if not c4 or not t1 or not c4["ops"]:
        return None
    cpo = c4["commits"] / c4["ops"]  # commits per op
    t1ns = 1e9 / t1
    g = per_commit(c4, GLOBAL) * cpo
    q1 = per_commit(c4, ("qread",)) * cpo / 3  # per other thread (4 threads: 3 others)
    a = c4["aborts"] / c4["commits"]
    out = {}
    for n in (2, 8, 16, 64):
        if algo == "serialirr":
            out[n] = (1e9 / t1ns, "one at a time")
            continue
        # the next commit that writes a global line comes from another core (n - 1) / n of the
        # time (commits in random order)
        moved = g * (n - 1) / n
        # a quiescing commit polls the n - 1 other descriptors until the attempts running at its
        # commit have ended: about one transaction, or the walk's line transfers if longer
        quiesce = q1 * max(t1ns, H * (n - 1))
        if algo in ("gl_wt", "norec"):
            t_att = t1ns + H * moved  # no quiescence (fault guard), aborts modelled below
        else:
            t_att = (1 + a) * t1ns + quiesce + H * moved
        glob = 1e9 / (moved * H) if g > 0.001 else float("inf")
        x = min(n * 1e9 / t_att, glob)
        for _ in range(200):
            # writer commits by the other cores per ns, during one attempt of ours
            seen = x * g * (n - 1) / n * 1e-9 * t_att
            if algo == "gl_wt":
                # any of them restarts a reader; a writer holds the version from its first
                # write on, taken early in these cases: counted as never restarting
                tries = (1 - min(g, 1.0)) * math.exp(min(seen, 50.0)) + min(g, 1.0)
            elif algo == "norec":
                tries = 1 + seen  # each makes it revalidate its reads: about one attempt
            else:
                tries = 1.0
            x = 0.5 * x + 0.5 * min(n * 1e9 / (tries * t_att), glob)
        if x >= glob * 0.999:
            why = "global line"
        elif algo in ("gl_wt", "norec") and seen > 0.5:
            why = "aborts" if algo == "gl_wt" else "revalidation"
        elif quiesce > (1 + a) * t1ns:
            why = "quiescence"
        else:
            why = "per core"
        out[n] = (x, why)
    return out


def fmt(x):
    return f"{x / 1e6:.1f}M" if x >= 1e6 else f"{x / 1e3:.0f}K"


def bench_origin(bench):
    """Where the measured throughputs come from: the run that the results file's folder
    describes in its context.json (a `tmkit bench` run), else just the file."""
    name = os.path.basename(bench)
    try:
        with open(os.path.join(os.path.dirname(bench), "context.json")) as f:
            ctx = json.load(f)
        return f"{name} (`{ctx['command']}`, {ctx['date']}, medians)"
    except (OSError, ValueError, KeyError):
        return name


def main():
    args = [a for a in sys.argv[1:] if a != "--inline"]
    inline = len(args) < len(sys.argv) - 1
    if len(args) not in (2, 3) or any(a.startswith("-") for a in args):
        sys.exit(__doc__.split("\n\n")[0] +
                 "\n\nusage: lines_model.py DIR H_NS [BENCH_CSV] [--inline]")
    d, H = args[0], float(args[1])
    bench = args[2] if len(args) > 2 else os.path.join(d, "bench-medians.csv")
    counts = load_counts(d + "/counts.txt")
    times = load_times(d + "/times.txt")
    quiet = load_all_run(bench, inline)
    cases = list(dict.fromkeys(k[0] for k in counts))
    algos = list(dict.fromkeys(k[1] for k in counts))
    print("## Shared lines per committed transaction (counting build, 0.3 s runs)\n")
    print("g: clock/lock lines every writer writes; o: orec lines; own: own descriptor lines "
          "(shared_ts, adaptive's count); q: other descriptors' lines read (quiescence, drain); "
          "ab: aborted attempts per commit; hg: hand-offs of the g lines per commit (scheduling-"
          "dependent: low when the threads take turns in time slices). 2 and 4 threads.\n")
    print("| case | algorithm | g 2t | o 2t | own 2t | q 2t | ab 2t | hg 2t | g 4t | o 4t | q 4t "
          "| ab 4t |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in cases:
        for algo in algos:
            c2, c4 = counts.get((case, algo, 2)), counts.get((case, algo, 4))
            if not c2 or not c4:
                continue
            row = [per_commit(c2, GLOBAL), per_commit(c2, ("orec",)), per_commit(c2, OWN),
                   per_commit(c2, ("qread",)), c2["aborts"] / c2["commits"],
                   per_commit(c2, tuple("h_" + k for k in GLOBAL)),
                   per_commit(c4, GLOBAL), per_commit(c4, ("orec",)), per_commit(c4, ("qread",)),
                   c4["aborts"] / c4["commits"]]
            print(f"| {case} | {algo} | " + " | ".join(f"{x:.2f}" for x in row) + " |")
    print("\n## Lines per commit by kind and phase, 2 threads, selected cases\n")
    for case in ("disjoint", "writes-16", "counter", "reads-64-shared", "rbtree-65536-u20",
                 "hashset-262144-u10"):
        print(f"### {case}\n")
        print("| algorithm | " + " | ".join(["begin", "read", "write", "commit", "abort",
                                             "irrevocable"]) + " |")
        print("|---|---|---|---|---|---|---|")
        for algo in algos:
            c = counts.get((case, algo, 2))
            if not c:
                continue
            cells = []
            for ph in ("begin", "read", "write", "commit", "abort", "irrevocable"):
                parts = [f"{k} {v / c['commits']:.2f}" for (k, p), v in sorted(c["phases"].items())
                         if p == ph and v / c["commits"] >= 0.005]
                cells.append(", ".join(parts) or "-")
            print(f"| {algo} | " + " | ".join(cells) + " |")
        print()
    print(f"## Predicted ceilings (H = {H:.0f} ns) against measured ops/s\n")
    print(f"t1 and the 2-thread check come from {bench_origin(bench)}; `2t`, `4t` and `4t/2t` are "
          "this directory's timed runs "
          "(medians of 3 x 0.3 s, same session, a loaded machine: see README.md). `pred 2` is the "
          "model at 2 cores, the ceiling for 4 threads on them too; the last column names the "
          "binding limit at 64 cores.\n")
    print("| case | algorithm | 1t | 2t | pred 2 | here 2t | here 4t | 4t/2t | pred 8 | pred 16 "
          "| pred 64 | limit at 64 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for case in cases:
        for algo in algos + ["mutex"]:
            if algo == "adaptive":
                cands = [model(counts, quiet, case, a, H) for a in ("gl_wt", "serialirr",
                                                                   "orec_eager")]
                cands = [c for c in cands if c]
                p = {n: max((c[n] for c in cands), key=lambda v: v[0]) for n in (2, 8, 16, 64)} \
                    if cands else None
            elif algo == "mutex":
                p = None
            else:
                p = model(counts, quiet, case, algo, H)
            q1, q2 = quiet.get((case, algo, 1)), quiet.get((case, algo, 2))
            h2, h4 = times.get((case, algo, 2)), times.get((case, algo, 4))
            cells = [fmt(q1) if q1 else "-", fmt(q2) if q2 else "-",
                     fmt(p[2][0]) if p else "-", fmt(h2) if h2 else "-", fmt(h4) if h4 else "-",
                     f"{h4 / h2:.2f}" if h2 and h4 else "-"]
            cells += [fmt(p[n][0]) for n in (8, 16, 64)] + [p[64][1]] if p else ["-"] * 4
            print(f"| {case} | {algo} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
