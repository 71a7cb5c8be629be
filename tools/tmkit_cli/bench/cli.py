"""`tmkit bench`: the benchmark suite (bench/README.md).

Every case is one program of bench/programs/ with fixed options, run in several configurations:
the -mutex build, the -tm build on each tmkit algorithm, on the system libitm (its default) and on
libitm forced to ml_wt. For each repeat, all configurations of a case run back to back (their order
rotated from repeat to repeat) so that the machine's noise hits them alike; the report gives the
median ops/s (and min/max) and its ratios to the mutex and to the libitm default. Single-thread
instruction counts per operation come from callgrind in the fixed-operations mode:
(I(n2) - I(n1)) / (n2 - n1) cancels start-up and set-up.

Output: bench/results/suite/ for the full suite, bench/results/stats-overhead/ with --with-stats,
bench/results/NAME/ with --experiment NAME, build/bench-results/ for quick or narrowed runs, or
--out DIR (layout.py): results.csv (one row per case, thread count and configuration), runs.csv
(every run), summary.md, PNG plots when matplotlib is available from the project venv
(scripts/venv.sh), all written by summary.py, and context.json.
"""
import concurrent.futures
import datetime
import os
import re
import shlex
import shutil
import sys
import time
from collections import namedtuple

from .. import paths
from .execute import (callgrind_instr, describe_rc, git_revision, loadavg, machine_info,
                         run_once)
from .floor import floor_lines, measure_floor
from .goals import goals, goals_table
from .fmt import fmt_ratio
from . import layout
from .results import Results
from .scaling import scaling_rows
from .summary import (RAW_FIELDS, RESULT_FIELDS, make_plots, result_rows, update_readme,
                           write_csv, write_summary)

Case = namedtuple("Case", "suite name prog args cg_ops")
Config = namedtuple("Config", "name build env")

CG_DEFAULT = (1000, 3000)

SUITES = {
    "micro": [
        Case("micro", "empty", "micro", ["--mode", "empty"], (2000, 10000)),
        Case("micro", "reads-16", "micro", ["--mode", "reads", "--n", "16"], (2000, 10000)),
        Case("micro", "reads-64", "micro", ["--mode", "reads", "--n", "64"], (2000, 10000)),
        Case("micro", "reads-64-shared", "micro",
             ["--mode", "reads", "--n", "64", "--array", "shared"], (2000, 10000)),
        Case("micro", "writes-16", "micro", ["--mode", "writes", "--n", "16"], (2000, 10000)),
        Case("micro", "writes-64", "micro", ["--mode", "writes", "--n", "64"], (2000, 10000)),
        Case("micro", "counter", "micro", ["--mode", "counter"], (2000, 10000)),
        Case("micro", "disjoint", "micro", ["--mode", "disjoint"], (2000, 10000)),
        # the same, each transaction promising not to privatize (tm_no_privatization, tmkit.h)
        Case("micro", "disjoint-promise", "micro", ["--mode", "disjoint", "--promise", "1"],
             (2000, 10000)),
        Case("micro", "atomic", "micro", ["--mode", "atomic"], (2000, 10000)),
        # a token passed between threads that wait for it in read-only transactions: the
        # latency of a hand-off (core/serial_handoff.c)
        Case("micro", "ring", "micro", ["--mode", "ring"], (2000, 10000)),
    ],
    "ds": [
        Case("ds", "list-256-u10", "list", ["--range", "256", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "list-256-u50", "list", ["--range", "256", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "list-2048-u10", "list", ["--range", "2048", "--update-pct", "10"], (500, 1500)),
        Case("ds", "rbtree-1024-u10", "rbtree", ["--range", "1024", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "rbtree-1024-u50", "rbtree", ["--range", "1024", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "rbtree-65536-u10", "rbtree", ["--range", "65536", "--update-pct", "10"],
             CG_DEFAULT),
        # issue 25's read-mostly case: 64K keys, 80% lookups
        Case("ds", "rbtree-65536-u20", "rbtree", ["--range", "65536", "--update-pct", "20"],
             CG_DEFAULT),
        Case("ds", "hashset-4096-u10", "hashset",
             ["--buckets", "1024", "--range", "4096", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "hashset-4096-u50", "hashset",
             ["--buckets", "1024", "--range", "4096", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "hashset-262144-u10", "hashset",
             ["--buckets", "65536", "--range", "262144", "--update-pct", "10"], CG_DEFAULT),
    ],
    "bank": [
        Case("bank", "bank-1024", "bank", ["--accounts", "1024", "--audit-pct", "1"], CG_DEFAULT),
    ],
    "lru": [
        Case("lru", "lru-zipf0.1", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "0.1"], CG_DEFAULT),
        Case("lru", "lru-zipf1", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "1"], CG_DEFAULT),
        Case("lru", "lru-zipf2", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "2"], CG_DEFAULT),
    ],
}
# memcached's get with three statistics counters (kvstats.c): none, plain shared variables in the
# transaction, or tm_counter_t (docs/waiting.md). Two shapes: `kvstats`, a table that fits in the
# caches (16 Ki items, 32-byte values), and `kvbig`, memcached's own shape: a table far larger than
# the caches (1 Mi items at its expansion load factor of 1.5, 256-byte values), where a get is
# a few cache misses and transactions that run side by side overlap them. Not in `all` (run:
# tmkit bench kv).
KV_SHAPES = {
    "kvstats": ["--items", "16384", "--buckets", "4096", "--value-words", "4"],
    "kvbig": ["--items", "1048576", "--buckets", "699051", "--value-words", "32"],
}
SUITES["kv"] = [
    Case("kv", f"{shape}-{c}", "kvstats", args + ["--update-pct", "2", "--counters", c], CG_DEFAULT)
    for shape, args in KV_SHAPES.items() for c in ("none", "plain", "tm")
]
SUITE_ORDER = ["micro", "ds", "bank", "lru"]
EXTRA_SUITES = ["kv"]  # run only when named

# Full run: ~21 cases x 2 thread counts x 6 configurations x REPEATS x SECONDS, plus callgrind.
REPEATS, SECONDS = 5, 0.3
QUICK_REPEATS, QUICK_SECONDS, QUICK_CG_DIVISOR = 1, 0.05, 10


def configurations(root, with_stats=False, with_plugin=False, runtimes=()):
    """runtimes: (NAME, LIBDIR) pairs of other builds of the runtime (--with-runtime), each
    giving a configuration NAME-ALGO per algorithm, run by the same -tm programs."""
    lib = paths.libdir(root)
    configs = [Config("mutex", "mutex", {})]
    algos = [name for name, _ in paths.algorithms(root)]
    for name in algos:
        configs.append(Config(f"tmkit-{name}", "tm", {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": lib}))
        for vname, vlib in runtimes:
            configs.append(Config(f"{vname}-{name}", "tm", {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": vlib}))
        if with_plugin:  # the same algorithm, the program built with tmkit's GCC plugin
            configs.append(Config(f"tmkit-{name}+inl", "tminl",
                                  {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": lib}))
    if with_stats:  # the default algorithm with the per-site profile on: its overhead figure
        configs.insert(2, Config(f"tmkit-{algos[0]}+stats", "tm",
                                 {"TMKIT_ALGO": algos[0], "LD_LIBRARY_PATH": lib,
                                  "TMKIT_STATS": os.devnull}))
    configs.append(Config("libitm", "tm", {}))
    configs.append(Config("libitm-ml_wt", "tm", {"ITM_DEFAULT_METHOD": "ml_wt"}))
    if with_plugin:  # the plugin's build on GCC's libitm: the inlined code always calls
        configs.append(Config("libitm+inl", "tminl", {}))
    return configs


def run_suite(root, cases, configs, threads, repeats, seconds, cg_divisor, cg_configs, jobs, log):
    res = Results()
    raw = []
    extra = ["--seconds", str(seconds)]
    timeout = max(60.0, seconds * 30)
    total = repeats * len(cases) * len(threads) * len(configs)
    done, t0 = 0, time.monotonic()
    for rep in range(repeats):
        for case in cases:
            for thr in threads:
                k = rep % len(configs)
                for config in configs[k:] + configs[:k]:
                    rc, fields, err = run_once(root, case, config,
                                               ["--threads", str(thr)] + extra, timeout)
                    key = (case.name, thr, config.name)
                    if not res.add(key, fields, rc, err, rep):
                        log(f"  FAILED {case.name} threads={thr} {config.name}: "
                            f"{res.failures[key][-1]}")
                    raw.append({"repeat": rep + 1, "suite": case.suite, "case": case.name,
                                "threads": thr, "config": config.name,
                                "ops_per_s": fields.get("ops_per_s", ""),
                                "ns_per_op": fields.get("ns_per_op", ""),
                                "min_share": fields.get("min_share", ""),
                                "ok": fields.get("ok", ""), "status": describe_rc(rc),
                                "output": " ".join(f"{k}={v}" for k, v in fields.items())})
                    done += 1
        elapsed = time.monotonic() - t0
        log(f"  repeat {rep + 1}/{repeats} done, {elapsed:.0f} s elapsed, "
            f"~{elapsed / done * (total - done):.0f} s of timed runs left")

    if cg_divisor and shutil.which("valgrind"):
        log(f"  callgrind: {len(cases) * len(cg_configs) * 2} runs, {jobs} at a time")
        tasks = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            for case in cases:
                n1, n2 = (max(1, n // cg_divisor) for n in case.cg_ops)
                for config in cg_configs:
                    tasks[(case.name, config.name)] = (
                        n1, n2, ex.submit(callgrind_instr, root, case, config, n1),
                        ex.submit(callgrind_instr, root, case, config, n2))
            for key, (n1, n2, f1, f2) in tasks.items():
                i1, i2 = f1.result(), f2.result()
                if i1 is None or i2 is None:
                    log(f"  callgrind failed: {key[0]} {key[1]}")
                    res.failures.setdefault((key[0], 1, key[1]), []).append("callgrind run failed")
                else:
                    res.instr[key] = (i2 - i1) / (n2 - n1)
        log(f"  callgrind done, {time.monotonic() - t0:.0f} s elapsed")
    elif cg_divisor:
        log("  valgrind not found: no instruction counts")
    return res, raw


def run(root, args, argv):
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    suites = args.suites or ["all"]
    bad = [s for s in suites if s not in SUITES and s != "all"]
    if bad:
        print(f"tmkit bench: unknown suite '{bad[0]}'; valid: {', '.join(SUITE_ORDER + EXTRA_SUITES)}, all",
              file=sys.stderr)
        return 2
    chosen = SUITE_ORDER if "all" in suites else \
        [s for s in SUITE_ORDER + EXTRA_SUITES if s in suites]
    try:
        threads = sorted({int(t) for t in args.threads.split(",")})
        if not threads or threads[0] < 1:
            raise ValueError
    except ValueError:
        print(f"tmkit bench: bad --threads '{args.threads}' (want e.g. 1,2)", file=sys.stderr)
        return 2
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else SECONDS)
    if repeats < 1 or seconds <= 0:
        print("tmkit bench: --repeats and --seconds must be positive", file=sys.stderr)
        return 2
    cg_divisor = 0 if args.no_callgrind else (QUICK_CG_DIVISOR if args.quick else 1)

    cases = [c for s in chosen for c in SUITES[s]]
    runtimes = []
    for spec in args.with_runtime or []:
        vname, sep, vlib = spec.partition("=")
        if not sep or not re.fullmatch(r"[a-z][a-z0-9_]*", vname) or vname in ("tmkit", "libitm"):
            print(f"tmkit bench: bad --with-runtime '{spec}' (want NAME=LIBDIR, NAME lower-case, "
                  "not tmkit or libitm)", file=sys.stderr)
            return 2
        vlib = os.path.abspath(vlib)
        if not os.path.exists(os.path.join(vlib, "libitm.so.1")):
            print(f"tmkit bench: --with-runtime {vname}: no libitm.so.1 in {vlib}", file=sys.stderr)
            return 2
        runtimes.append((vname, vlib))
    configs = configurations(root, args.with_stats, args.with_plugin, runtimes)
    if args.configs:
        want = args.configs.split(",")
        unknown = [w for w in want if w not in [c.name for c in configs]]
        if unknown:
            print(f"tmkit bench: unknown configuration '{unknown[0]}'; valid: "
                  f"{', '.join(c.name for c in configs)}", file=sys.stderr)
            return 2
        # the mutex and the libitm default stay: every ratio is taken against them
        configs = [c for c in configs if c.name in want or c.name in ("mutex", "libitm")]
    missing = [f"{c.prog}-{b}" for c in cases for b in sorted({"tm", "mutex"} | {k.build for k in configs})
               if not os.path.exists(os.path.join(paths.bindir(root), f"{c.prog}-{b}"))]
    if missing or not os.path.exists(os.path.join(paths.libdir(root), "libitm.so.1")):
        print(f"tmkit bench: build/bin/{(missing or ['libitm.so.1'])[0]} is missing; "
              "run `make build` first", file=sys.stderr)
        return 2
    # The -tm binaries must really load tmkit when LD_LIBRARY_PATH says so, this build's and
    # each --with-runtime one: a bogus algorithm name only fails if that library is the one loaded.
    for where in [paths.libdir(root)] + [vlib for _, vlib in runtimes]:
        probe = Config("probe", "tm", {"TMKIT_ALGO": "bogus", "LD_LIBRARY_PATH": where})
        rc, _, _ = run_once(root, cases[0], probe, ["--ops", "1"], 60)
        if rc != 2:
            print(f"tmkit bench: the -tm programs do not load tmkit from {where}/libitm.so.1",
                  file=sys.stderr)
            return 2

    label = "all" if chosen == SUITE_ORDER else "-".join(chosen)
    if args.experiment and layout.check_name(args.experiment):
        print(f"tmkit bench: {layout.check_name(args.experiment)}", file=sys.stderr)
        return 2
    # The full suite is kept in bench/results/suite/, the profile's overhead (--with-stats) in
    # stats-overhead/. Quick runs and narrowed ones (some suites, configurations or thread
    # counts) are for checking, not keeping: they go under build/ unless --experiment or --out
    # says where.
    default = "stats-overhead" if args.with_stats else "suite"
    narrowed = (label != "all" or bool(args.configs) or threads != [1, 2]) and not args.with_stats
    run = layout.Run(root, default, args.out, args.experiment, args.quick, narrowed,
                     scratch_label=f"suite-{label}")
    if run.experiment is None and not args.out:
        log(f"tmkit bench: a {'quick' if args.quick else 'narrowed'} run, written under build/ "
            "(--experiment NAME keeps it in bench/results/NAME/)")
    outdir = run.dir
    command = "bin/tmkit bench" + "".join(" " + shlex.quote(a) for a in argv)
    meta = {"suites": label, "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "command": command, "machine": machine_info(), "revision": git_revision(root),
            "repeats": repeats, "seconds": seconds, "load_start": loadavg()}

    log(f"tmkit bench {label}: {len(cases)} cases x threads {','.join(map(str, threads))} x "
        f"{len(configs)} configurations ({', '.join(c.name for c in configs)}), "
        f"{repeats} repeats x {seconds} s")
    t0 = time.monotonic()
    # --quick counts instructions for the mutex, the default tmkit algorithm and libitm-ml_wt only.
    cg_configs = [c for i, c in enumerate(configs)
                  if not args.quick or i == 1 or c.name in ("mutex", "libitm-ml_wt")]
    res, raw = run_suite(root, cases, configs, threads, repeats, seconds, cg_divisor, cg_configs,
                         max(1, os.cpu_count() or 1), log)
    if "micro" in chosen:
        meta["floor"] = measure_floor(root, repeats, log)
    meta["duration"] = time.monotonic() - t0
    meta["load_end"] = loadavg()

    write_csv(os.path.join(outdir, "results.csv"), result_rows(res, cases, configs, threads),
              RESULT_FIELDS)
    write_csv(os.path.join(outdir, "runs.csv"), raw, RAW_FIELDS)
    plots, note = ([], "--no-plots") if args.no_plots else make_plots(root, outdir, log)
    if note:
        meta["plot_note"] = note
        log(f"  plots skipped: {note}")
    goal_rows = goals(res, configs, threads)
    default, head = write_summary(os.path.join(outdir, "summary.md"), res, cases, configs,
                                  threads, meta, plots, goal_rows)
    layout.finish(run, command, meta)
    rel = run.rel()
    log("")
    log(f"{default} throughput / mutex and / libitm (median of {repeats}):")
    for line in head:
        if not line.startswith("|---"):
            log("  " + line)
    gt = goals_table(goal_rows)
    if gt:
        log("")
        for line in gt:
            if not line.startswith("|---"):
                log("  " + line)
    for line in filter(None, floor_lines(meta.get("floor"))):
        log("  " + line)
    for label, value in scaling_rows(res, default, threads):
        log(f"  {label}: {fmt_ratio(value)}")
    log("")
    log(f"results: {rel}/ ({', '.join(run.written())}, context.json)")
    if run.experiment == "suite":
        if update_readme(root, rel, meta, default, head):
            log("README.md: benchmark table updated")

    # Failures of the system libitm are its own (recorded in summary.md); tmkit or mutex failures
    # mean a broken runtime or program.
    ours = [k for k in res.failures if not k[2].startswith("libitm")]
    if ours:
        log(f"tmkit bench: {len(ours)} tmkit/mutex configuration(s) failed; see {rel}/summary.md")
        return 1
    return 0
