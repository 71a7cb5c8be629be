"""The command line of `tmkit bench webcache` (webcache.py): strict parsing of its
lists (Zipf exponents, thread counts, server builds) and the defaults of a full and a --quick run."""
import argparse
import os

BUILDS = ["nocache", "lock", "tm-tmkit", "tm-libitm"]


def _floats(text, what):
    try:
        xs = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad {what} '{text}' (want e.g. 0.1,1,2)")
    if not xs or min(xs) < 0:
        raise argparse.ArgumentTypeError(f"bad {what} '{text}'")
    return xs


def _ints(text):
    try:
        xs = sorted({int(x) for x in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad thread list '{text}' (want e.g. 1,2,4)")
    if not xs or xs[0] < 1:
        raise argparse.ArgumentTypeError(f"bad thread list '{text}'")
    return xs


def _builds(text):
    xs = [x for x in text.split(",") if x]
    bad = [x for x in xs if x not in BUILDS]
    if bad or not xs:
        raise argparse.ArgumentTypeError(f"unknown build '{(bad or [text])[0]}'; valid: "
                                         + ", ".join(BUILDS))
    return xs


def parse_args(argv, description):
    nproc = os.cpu_count() or 1
    p = argparse.ArgumentParser(prog="tmkit bench webcache", description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--s", type=lambda t: _floats(t, "--s"), default=[0.1, 1.0, 2.0],
                   help="Zipf exponents (default 0.1,1,2)")
    p.add_argument("--builds", type=_builds, default=list(BUILDS),
                   help="server builds (default " + ",".join(BUILDS) + ")")
    p.add_argument("--threads", type=_ints, default=list(range(1, nproc + 1)),
                   help=f"worker-thread counts (default 1..nproc = 1..{nproc})")
    p.add_argument("--repeats", type=int, help="runs per point (default 3; --quick 1)")
    p.add_argument("--duration", type=float, help="measured seconds per run (default 3; --quick 0.4)")
    p.add_argument("--warmup", type=float, help="warm-up seconds per run (default 1; --quick 0.3)")
    p.add_argument("--connections", type=int, default=0,
                   help="client connections (default 2 x threads + 2: more requests in flight than workers, so a worker never waits for its next request)")
    p.add_argument("--max-entries", type=int, default=256,
                   help="cache entries (default 256, ~7%% of the ~3,500-page catalog)")
    p.add_argument("--max-bytes", type=int, default=64 << 20, help="cache bytes (default 64 MiB)")
    p.add_argument("--policy", choices=["lru", "gdsf"], default="gdsf",
                   help="cache replacement (default gdsf, the server's and mod_mem_cache's default)")
    p.add_argument("--crosscheck", choices=["wrk", "none"], default="wrk",
                   help="client for the cross-check points (default wrk)")
    p.add_argument("--quick", action="store_true", help="one short repeat (a smoke run)")
    p.add_argument("--out", help="output directory (default bench/results/webcache/; --quick or a "
                   "narrowed grid: build/bench-results/)")
    p.add_argument("--experiment", metavar="NAME",
                   help="keep the run in bench/results/NAME/ (bench/results/CONVENTIONS.md)")
    p.add_argument("--build", help="build directory (default build/)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    a = p.parse_args(argv)
    a.repeats = a.repeats or (1 if a.quick else 3)
    a.duration = a.duration or (0.4 if a.quick else 3.0)
    a.warmup = a.warmup if a.warmup is not None else (0.3 if a.quick else 1.0)
    if a.repeats < 1 or a.duration <= 0 or a.warmup < 0 or a.connections < 0:
        p.error("--repeats, --duration must be positive; --warmup, --connections not negative")
    return a
