"""`tmkit bench prime`: LockSTM's lock-group showcase (bench/programs/prime.c; docs/groups.md).
Worker threads test numbers from 10^9 on for primality (trial division: tens of microseconds a
prime) and record the primes, each test one critical section, and add to the shared progress
after each block of 512 numbers; a status thread prints the progress every 1 ms, and each print
waits 300 us for its device (prime.c's defaults --status-us 1000 --print-us 300: a terminal or
pipe that blocks the writer, processor free). Three synchronizations of one program, at 1, 2
and 4 workers:
  lock   one mutex for everything (prime-lock);
  tm     transactions; the print a relaxed transaction that goes serial-irrevocable (prime-tm);
  group  transactions; the print holds the progress's lock group, and only the progress
         updates enter it (prime-tm --sync group).
Each run is timed as a whole (wall seconds, CPU seconds over wall = cores used); every
configuration of a point runs back to back in each repeat (order rotated), medians over the
repeats. Speed-up = the 1-worker lock time over the configuration's time.
Output: bench/results/prime/ (summary.md, runs.csv, context.json) unless --out or --experiment."""
import os
import statistics
import sys

from .. import paths
from . import standalone
from .execute import base_env, describe_rc, parse_line
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
    args, repeats = standalone.parse("prime", __doc__, argv, "runs per configuration", lambda ap: ap.add_argument(
        "--count", type=int, default=200000, help="numbers to test (default 200000)"))
    count = 20000 if args.quick else args.count
    if count < 1:
        print("tmkit bench prime: --count must be at least 1", file=sys.stderr)
        return 2
    bindir, lib = paths.bindir(root), paths.libdir(root)
    for b in ("prime-tm", "prime-lock"):
        if not os.path.exists(os.path.join(bindir, b)):
            print(f"tmkit bench prime: {bindir}/{b} missing; run `make build`", file=sys.stderr)
            return 2
    out, date, meta = standalone.start(root, "prime", args)
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
    standalone.finish(meta, out, runs, "runs.csv")
    cmd = standalone.command("prime", argv)
    write_summary(os.path.join(out, "summary.md"), runs, meta, date, cmd, repeats, count)
    standalone.close(meta, cmd)
    return 0 if all(r["status"] == "ok" for r in runs) else 1


def median_of(runs, n, label, key):
    v = [float(r[key]) for r in runs if (r["workers"], r["config"]) == (n, label) and r[key] != ""]
    return statistics.median(v) if v else None


def write_summary(path, runs, meta, date, cmd, repeats, count):
    labels = [c[0] for c in CONFIGS]
    L = standalone.header("prime (lock groups)", meta, date, cmd) + [
         f"- method: {count:,} numbers from 10^9 on, progress added per block of 512; status print "
         "every 1 ms: 16 write(2) calls to /dev/null, then 300 us waiting for the device (prime.c's "
         f"defaults); {repeats} repeats, configurations interleaved (order "
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
