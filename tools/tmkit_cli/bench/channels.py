"""`tmkit bench channels`: the luaproc experiment (issue 23; docs/channels.md). Skyrme and
Rodriguez ported luaproc to GCC TM with busy waits in place of its condition variables and
measured three tests; here they run against apps/channels' three builds (build/lib/
channels_*.so, loaded by the stock lua5.4), the TM builds on tmkit and on GCC's libitm:
  long      one long-running Lua process on 1, 2, 4 and 8 workers (Figure 11): wall time,
            CPU use (user + system over wall, as GNU time's %CPU) and, with strace, the futex
            calls of one extra run per point;
  exchange  100 processes, 50 sending and 50 receiving --messages each over 1, 2 and 4
            channels, on 1, 2, 4 and 8 workers (Table 1);
  search    parallel string search: 5 searcher processes count 5 patterns in 1, 2 or 4
            generated log files (--file-mb each, generated once under build/channels-data/),
            on 1, 3 and 5 workers (Table 2); the counts are checked against Python's.
Each run is a fresh lua5.4 process (bench/programs/channels/*.lua); configurations run back to
back at every point, in an order rotated each repeat; medians. Output:
bench/results/channels/ (summary.md, runs.csv, futex.csv, plots, context.json) unless --out or
--experiment."""
import os
import random
import shlex
import shutil
import subprocess
import sys
import time

from .. import paths
from . import standalone
from .execute import base_env, describe_rc, parse_line

# (label, module, runtime): runtime None for the lock build.
CONFIGS = [
    ("lock", "channels_lock", None),
    ("tm-busywait/tmkit", "channels_tm_busywait", "tmkit"),
    ("tm-busywait/libitm", "channels_tm_busywait", "libitm"),
    ("tm/tmkit", "channels_tm", "tmkit"),
    ("tm/libitm", "channels_tm", "libitm"),
]
PATTERNS = ["ERROR", "Accepted password", "user17 ", "port 22 ", "timed out"]
LONG_WORKERS, EXCH_WORKERS, EXCH_CHANNELS = (1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4)
SEARCH_WORKERS, SEARCH_FILES, SEARCHERS = (1, 3, 5), (1, 2, 4), 5


def options(ap):
    ap.add_argument("--tests", default="long,exchange,search", help="which tests (default all three)")
    ap.add_argument("--iterations", type=int, help="loop iterations of the long process "
                    "(default 300000000, ~2 s; 30000000 with --quick)")
    ap.add_argument("--messages", type=int, help="messages per sender in exchange (default 10000, "
                    "the paper's; 1000 with --quick)")
    ap.add_argument("--file-mb", type=int, help="size of each log file in MB (default 256, as the paper's few hundred; 4 with --quick)")
    ap.add_argument("--no-strace", action="store_true", help="skip the futex counts")


def run(argv, root):
    a, repeats = standalone.parse("channels", __doc__, argv, "runs per configuration", options)
    tests = [t for t in a.tests.split(",") if t]
    iters = a.iterations or (30_000_000 if a.quick else 300_000_000)
    msgs = a.messages or (1000 if a.quick else 10000)
    mb = a.file_mb or (4 if a.quick else 256)
    if not tests or set(tests) - {"long", "exchange", "search"} or min(iters, msgs, mb) < 1:
        print("tmkit bench channels: bad --tests, --iterations, --messages or --file-mb", file=sys.stderr)
        return 2
    lib = paths.libdir(root)
    lua = shutil.which("lua5.4")
    missing = [m for _, m, _ in CONFIGS if not os.path.exists(os.path.join(lib, m + ".so"))]
    if not lua or missing:
        print(f"tmkit bench channels: missing {'lua5.4 (apt-get install lua5.4)' if not lua else ''}"
              f"{' '.join(missing)} (`make build`: apps/channels)", file=sys.stderr)
        return 2
    progs = os.path.join(root, "bench", "programs", "channels")
    out, date, meta = standalone.start(root, "channels", a)
    files = make_logs(paths.builddir(root), mb) if "search" in tests else []
    expect = expected_counts(files) if files else {}
    points = []
    if "long" in tests:
        points += [("long", w, 0, ["long.lua", str(w), str(iters)]) for w in LONG_WORKERS]
    if "exchange" in tests:
        points += [("exchange", w, c, ["exchange.lua", str(w), str(c), "100", str(msgs)])
                   for c in EXCH_CHANNELS for w in EXCH_WORKERS]
    if "search" in tests:
        points += [("search", w, f, ["search.lua", str(w), str(SEARCHERS), ",".join(files[:f]),
                                     "|".join(PATTERNS)]) for f in SEARCH_FILES for w in SEARCH_WORKERS]
    runs = []
    for r in range(repeats):
        for test, w, x, args in points:
            order = CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]
            for label, module, runtime in order:
                row = one_run(lua, progs, lib, module, runtime, args)
                if test == "search" and row["status"] == "ok":
                    want = sum(expect[(f, p)] for f in files[:x] for p in PATTERNS)
                    if row.get("matches") != str(want):
                        row["status"] = f"wrong count {row.get('matches')} (expected {want})"
                runs.append({"repeat": r, "test": test, "workers": w, "x": x, "config": label,
                             "seconds": row["seconds"], "cpu_seconds": row["cpu"], "status": row["status"]})
                print(f"  r{r} {test:<8} w={w} x={x} {label:<19} {row['seconds']:.3f} s, "
                      f"cpu {row['cpu'] / row['seconds']:.2f}  {'' if row['status'] == 'ok' else row['status']}",
                      flush=True)
    futex = []
    if "long" in tests and not a.no_strace and shutil.which("strace"):
        for w in LONG_WORKERS:
            for label, module, runtime in CONFIGS:
                n = futex_calls(lua, progs, lib, module, runtime, ["long.lua", str(w), str(iters)], out)
                futex.append({"workers": w, "config": label, "futex_calls": "" if n is None else n})
                print(f"  futex  long w={w} {label:<19} {n}", flush=True)
    standalone.finish(meta, out, runs, "runs.csv")
    if futex:
        standalone.finish(meta, out, futex, "futex.csv")
    cmd = command(a, repeats)
    from . import channels_summary
    plots, note = ([], "") if not runs else channels_summary.plots(root, out)
    channels_summary.write(os.path.join(out, "summary.md"), runs, futex, meta, date, cmd, repeats,
                           {"iterations": iters, "messages": msgs, "file_mb": mb,
                            "patterns": PATTERNS, "searchers": SEARCHERS}, plots, note)
    standalone.close(meta, cmd)
    return 0 if all(r["status"] == "ok" for r in runs) else 1


def command(a, repeats):
    """The command line that repeats this run: every option given that is not a default."""
    opts = ["--quick"] if a.quick else [f"--repeats {repeats}"]
    if a.tests != "long,exchange,search":
        opts.append(f"--tests {shlex.quote(a.tests)}")
    opts += [f"--{name.replace('_', '-')} {getattr(a, name)}"
             for name in ("iterations", "messages", "file_mb") if getattr(a, name)]
    if a.no_strace:
        opts.append("--no-strace")
    if a.out:
        opts.append(f"--out {shlex.quote(a.out)}")
    return " ".join(["bin/tmkit bench channels"] + opts)


def env_for(lib, runtime):
    e = dict(base_env())
    if runtime == "tmkit":
        e["LD_LIBRARY_PATH"] = lib
    return e


def one_run(lua, progs, lib, module, runtime, args, timeout=600):
    """{"seconds", "cpu", "status", and the program's key=value fields}."""
    cmd = [lua, os.path.join(progs, args[0]), lib, module] + args[1:]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env_for(lib, runtime))
    try:
        o, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        o, err = p.communicate()
    wall = time.monotonic() - t0
    cpu = _children_cpu_delta()  # the child's user + system time (it is the only one reaped since)
    f = parse_line(o)
    ok = p.returncode == 0 and f.get("ok") == "1"
    status = "ok" if ok else describe_rc(p.returncode) + (": " + err.strip()[-200:] if err.strip() else "")
    return dict(f, seconds=wall, cpu=cpu, status=status)


_cpu_seen = [0.0]


def _children_cpu_delta():
    import resource
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = u.ru_utime + u.ru_stime
    d, _cpu_seen[0] = total - _cpu_seen[0], total
    return d


def futex_calls(lua, progs, lib, module, runtime, args, out):
    """futex system calls of one run (strace -f -c), or None."""
    log = os.path.join(out, "strace.tmp")
    cmd = ["strace", "-f", "-c", "-e", "trace=futex", "-o", log, lua,
           os.path.join(progs, args[0]), lib, module] + args[1:]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env_for(lib, runtime))
    _children_cpu_delta()  # not a timed run
    try:
        text = open(log).read()
        os.remove(log)
    except OSError:
        return None
    if p.returncode != 0:
        return None
    for line in text.splitlines():
        cols = line.split()
        if cols and cols[-1] == "futex":
            return int(cols[3]) if len(cols) >= 5 else None
    return 0


def make_logs(builddir, mb):
    """Four generated log files of `mb` MB each under build/channels-data/ (made once)."""
    d = os.path.join(builddir, "channels-data")
    os.makedirs(d, exist_ok=True)
    files = []
    for i in range(4):
        path = os.path.join(d, f"log{i}-{mb}mb.txt")
        if not os.path.exists(path) or os.path.getsize(path) < mb << 20:
            rng = random.Random(1000 + i)
            msgs = ["sshd[{p}]: Accepted password for user{u} from 10.0.{a}.{b} port {port} ssh2",
                    "sshd[{p}]: Connection closed by 10.0.{a}.{b} port {port}",
                    "kernel: ERROR eth{a}: link timed out",
                    "cron[{p}]: (user{u} ) CMD (run-parts /etc/cron.hourly)",
                    "nginx[{p}]: 10.0.{a}.{b} GET /index.html 200 port 22 proxy"]
            with open(path + ".tmp", "w") as fh:
                size, n = 0, 0
                while size < mb << 20:
                    line = (f"2026-11-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:"
                            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} host{rng.randint(1, 64)} "
                            + rng.choice(msgs).format(p=rng.randint(100, 32000), u=rng.randint(1, 40),
                                                      a=rng.randint(0, 255), b=rng.randint(0, 255),
                                                      port=rng.choice([22, 2222, rng.randint(1024, 65535)]))
                            + "\n")
                    fh.write(line)
                    size += len(line)
                    n += 1
            os.replace(path + ".tmp", path)
        files.append(path)
    return files


def expected_counts(files):
    """{(file, pattern): non-overlapping occurrences}, as the searchers count them."""
    out = {}
    for f in files:
        data = open(f, "rb").read()
        for p in PATTERNS:
            out[(f, p)] = data.count(p.encode())
    return out
