"""`tmkit bench waits`: blocking inside transactions against a mutex with condition variables
(docs/waiting.md), build/bin/waits-{tm,cond} (bench/programs/waits.c):
  idle      CPU time of a process whose N threads wait on an empty queue for 2 s, in % of one
            core: tm_retry and tm_cond_wait on tmkit, the condition variables, and the busy
            wait (a transaction re-run until the queue has an item) for reference;
  pingpong  ns per hand-off of a token between two threads;
  queue     items per second from one producer to N consumers through a queue of 16 slots.
Every configuration of a point runs back to back in each repeat (order rotated), medians over
the repeats; the ratios are to the condition-variable version of the same point.
Output: bench/results/waits/ (summary.md, runs.csv, context.json) unless --out or --experiment."""
import os
import statistics
import sys

from .. import paths
from . import standalone
from .execute import base_env, describe_rc, parse_line
from .hang import run_limited

# (label, build, impl, env): the configurations compared at every point.
CONFIGS = [
    ("condvar", "cond", "cond", {}),
    ("tm-retry", "tm", "retry", {"TMKIT": "1"}),
    ("tm-cond", "tm", "cond", {"TMKIT": "1"}),
    ("tm-busy", "tm", "busy", {"TMKIT": "1"}),
]


def points(quick):
    idle = [("idle", n, ["--mode", "idle", "--threads", str(n), "--seconds", "1" if quick else "2"])
            for n in ((1, 8) if quick else (1, 2, 4, 8))]
    ping = [("pingpong", 2, ["--mode", "pingpong", "--rounds", "20000" if quick else "200000"])]
    queue = [("queue", n, ["--mode", "queue", "--threads", str(n), "--cap", "16",
                           "--items", "100000" if quick else "1000000"]) for n in (1, 2, 4)]
    return idle + ping + queue


FIGURE = {"idle": ("cpu_pct", "% of a core", False), "pingpong": ("ns_per_handoff", "ns", False),
          "queue": ("items_per_s", "items/s", True)}


def run(argv, root):
    args, repeats = standalone.parse("waits", __doc__, argv, "runs per configuration")
    bindir, lib = paths.bindir(root), paths.libdir(root)
    for b in ("tm", "cond"):
        if not os.path.exists(os.path.join(bindir, f"waits-{b}")):
            print(f"tmkit bench waits: {bindir}/waits-{b} missing; run `make build`", file=sys.stderr)
            return 2
    out, date, meta = standalone.start(root, "waits", args)
    runs, pts = [], points(args.quick)
    for r in range(repeats):
        for mode, n, margs in pts:
            order = CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]
            for label, build, impl, env in order:
                e = dict(base_env())
                if env.get("TMKIT"):
                    e["LD_LIBRARY_PATH"] = lib
                cmd = [os.path.join(bindir, f"waits-{build}"), "--impl", impl] + margs
                rc, o, err = run_limited(cmd, e, 300)
                f = parse_line(o)
                ok = rc == 0 and f.get("ok") == "1"
                key = FIGURE[mode][0]
                runs.append({"repeat": r, "mode": mode, "threads": n, "config": label,
                             "value": f.get(key, "") if ok else "",
                             "status": "ok" if ok else describe_rc(rc) + (": " + err[-200:] if err else "")})
                print(f"  {mode:<8} n={n} {label:<8} {runs[-1]['value'] or runs[-1]['status']}", flush=True)
    standalone.finish(meta, out, runs, "runs.csv")
    cmd = standalone.command("waits", argv)
    write_summary(os.path.join(out, "summary.md"), runs, pts, meta, date, cmd, repeats)
    standalone.close(meta, cmd)
    return 0 if all(r["status"] == "ok" for r in runs) else 1


def median_of(runs, mode, n, label):
    v = [float(r["value"]) for r in runs
         if (r["mode"], r["threads"], r["config"]) == (mode, n, label) and r["value"] != ""]
    return statistics.median(v) if v else None


def write_summary(path, runs, pts, meta, date, cmd, repeats):
    L = standalone.header("waits", meta, date, cmd) + [
         f"- method: {repeats} repeats, configurations interleaved (order rotated each repeat); "
         "medians; ratios to `condvar` (pthread mutex + condition variables) of the same point", "",
         "| mode | threads | figure | condvar | tm-retry | tm-cond | tm-busy | retry / condvar | "
         "cond / condvar |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for mode, n, _ in pts:
        key, unit, higher = FIGURE[mode]
        m = {label: median_of(runs, mode, n, label) for label, *_ in CONFIGS}
        fmt = (lambda x: "-" if x is None else (f"{x:.3g}" if x < 1000 else f"{x:,.0f}"))
        def ratio(a):
            if m[a] is None or not m["condvar"]:
                return "-"
            return f"{(m[a] / m['condvar'] if higher else m['condvar'] / m[a]):.2f}" if m[a] else "-"
        L.append(f"| {mode} | {n} | {unit} | {fmt(m['condvar'])} | {fmt(m['tm-retry'])} | "
                 f"{fmt(m['tm-cond'])} | {fmt(m['tm-busy'])} | {ratio('tm-retry')} | {ratio('tm-cond')} |")
    L += ["", "Ratios: above 1 means tmkit is better (higher throughput, lower latency); for idle "
          "the CPU percentages themselves are the measure (lower is better: the waiters should "
          "sleep as the condition variables' do).", ""]
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        L += ["## Failed runs", ""] + [f"- {r['mode']} n={r['threads']} {r['config']} repeat "
                                       f"{r['repeat']}: {r['status']}" for r in bad] + [""]
    with open(path, "w") as fh:
        fh.write("\n".join(L))
