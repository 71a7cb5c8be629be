"""`tmkit bench prime`: LockSTM's lock-group showcase (bench/programs/prime.c; docs/groups.md).
Worker threads test numbers from 10^9 on for primality (trial division: tens of microseconds a
prime) and record the primes, each test one critical section; a status thread prints the
progress every 200 us. Three synchronizations of one
program, at 1, 2 and 4 workers:
  lock   one mutex for everything (prime-lock);
  tm     transactions; the print a relaxed transaction that goes serial-irrevocable (prime-tm);
  group  transactions; the print holds the progress's lock group, and only the progress
         updates enter it (prime-tm --sync group).
Each run is timed as a whole (wall seconds, CPU seconds over wall = cores used); every
configuration of a point runs back to back in each repeat (order rotated), medians over the
repeats. Speed-up = the 1-worker lock time over the configuration's time.
Output: bench/results/<date>-prime/ (summary.md, runs.csv) unless --out."""
import argparse
import csv
import datetime
import os
import statistics
import sys

from .. import paths
from .execute import base_env, describe_rc, git_revision, loadavg, machine_info, parse_line
from .hang import run_limited

# (label, binary, --sync, runtime): the configurations compared at every point.
CONFIGS = [
    ("lock", "prime-lock", "lock", None),
    ("tm", "prime-tm", "tm", "tmkit"),
    ("group", "prime-tm", "group", "tmkit"),
    ("tm-libitm", "prime-tm", "tm", "libitm"),
    ("group-libitm", "prime-tm", "group", "libitm"),
]
WORKERS = (1, 2, 4)


def run(argv, root):
    ap = argparse.ArgumentParser(prog="tmkit bench prime", description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per configuration (default 5)")
    ap.add_argument("--count", type=int, default=200000, help="numbers to test (default 200000)")
    ap.add_argument("--quick", action="store_true", help="one short repeat")
    ap.add_argument("--out", help="output directory (default bench/results/<date>-prime/)")
    args = ap.parse_args(argv)
    repeats, count = (1, 20000) if args.quick else (args.repeats, args.count)
    if repeats < 1 or count < 1:
        ap.error("--repeats and --count must be at least 1")
    bindir, lib = paths.bindir(root), paths.libdir(root)
    for b in ("prime-tm", "prime-lock"):
        if not os.path.exists(os.path.join(bindir, b)):
            print(f"tmkit bench prime: {bindir}/{b} missing; run `make build`", file=sys.stderr)
            return 2
    date = datetime.datetime.now()
    out = args.out or os.path.join(root, "bench", "results", date.strftime("%Y-%m-%d") + "-prime")
    os.makedirs(out, exist_ok=True)
    meta = {"machine": machine_info(), "revision": git_revision(root), "load_start": loadavg()}
    runs = []
    for r in range(repeats):
        for n in WORKERS:
            order = CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]
            for label, binary, sync, runtime in order:
                e = dict(base_env())
                if runtime == "tmkit":
                    e["LD_LIBRARY_PATH"] = lib
                cmd = [os.path.join(bindir, binary), "--sync", sync, "--threads", str(n),
                       "--count", str(count)]
                rc, o, err = run_limited(cmd, e, 600)
                f = parse_line(o)
                ok = rc == 0 and f.get("ok") == "1"
                runs.append({"repeat": r, "workers": n, "config": label,
                             "seconds": f.get("seconds", "") if ok else "",
                             "cpu_seconds": f.get("cpu_seconds", "") if ok else "",
                             "prints": f.get("prints", "") if ok else "",
                             "status": "ok" if ok else describe_rc(rc) + (": " + err[-200:] if err else "")})
                print(f"  n={n} {label:<13} {runs[-1]['seconds'] or runs[-1]['status']} s", flush=True)
    meta["load_end"] = loadavg()
    with open(os.path.join(out, "runs.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(runs[0]))
        w.writeheader()
        w.writerows(runs)
    cmd = "bin/tmkit bench prime" + (" --quick" if args.quick else f" --repeats {repeats}") + \
        (f" --count {count}" if not args.quick and count != 200000 else "") + \
        (f" --out {args.out}" if args.out else "")
    write_summary(os.path.join(out, "summary.md"), runs, meta, date, cmd, repeats, count)
    print(f"\nresults: {os.path.relpath(out)}/ (summary.md, runs.csv)")
    return 0 if all(r["status"] == "ok" for r in runs) else 1


def median_of(runs, n, label, key):
    v = [float(r[key]) for r in runs if (r["workers"], r["config"]) == (n, label) and r[key] != ""]
    return statistics.median(v) if v else None


def write_summary(path, runs, meta, date, cmd, repeats, count):
    labels = [c[0] for c in CONFIGS]
    L = ["# tmkit benchmarks: prime (lock groups)", "",
         f"- date: {date:%Y-%m-%d %H:%M}", f"- command: `{cmd}`",
         f"- machine: {meta['machine']['nproc']} CPUs, {meta['machine']['cpu']}, Linux "
         f"{meta['machine']['kernel']}; load average {meta['load_start']} at start, "
         f"{meta['load_end']} at end",
         f"- tmkit revision: {meta['revision']}",
         f"- method: {count:,} numbers from 10^9 on; {repeats} repeats, configurations interleaved (order "
         "rotated each repeat); medians. `-libitm`: the same binary on the system libitm (a "
         "group is a pthread read-write lock there).", "",
         "## Wall time (s) and speed-up over one worker with the lock", "",
         "| workers | " + " | ".join(labels) + " | group / lock | group / tm |",
         "|---:|" + "---:|" * (len(labels) + 2)]
    base = median_of(runs, 1, "lock", "seconds")
    for n in WORKERS:
        m = {lb: median_of(runs, n, lb, "seconds") for lb in labels}
        cells = [f"{m[lb]:.3f} ({base / m[lb]:.2f}x)" if m[lb] and base else "-" for lb in labels]
        g = m["group"]
        rl = f"{m['lock'] / g:.2f}" if g and m["lock"] else "-"
        rt = f"{m['tm'] / g:.2f}" if g and m["tm"] else "-"
        L.append(f"| {n} | " + " | ".join(cells) + f" | {rl} | {rt} |")
    L += ["", "`group / lock` and `group / tm`: time ratios (above 1 = groups faster).", "",
          "## Cores used (CPU seconds over wall seconds) and prints per second", "",
          "| workers | " + " | ".join(labels) + " |", "|---:|" + "---:|" * len(labels)]
    for n in WORKERS:
        cells = []
        for lb in labels:
            w, c, p = (median_of(runs, n, lb, k) for k in ("seconds", "cpu_seconds", "prints"))
            cells.append(f"{c / w:.2f} ({p / w:,.0f}/s)" if w and c is not None and p is not None else "-")
        L.append(f"| {n} | " + " | ".join(cells) + " |")
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        L += ["", "## Failed runs", ""] + [f"- n={r['workers']} {r['config']} repeat {r['repeat']}: "
                                           f"{r['status']}" for r in bad]
    L.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(L))
