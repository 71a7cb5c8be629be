"""The `tmkit` command: its sub-commands, their options, and the dispatch to the modules that
parse their own arguments (report, stat, advise, check, bench's experiments)."""
import argparse
import os
import re
import sys

from . import paths, version


def cmd_algos(args, root):
    for i, (name, summary) in enumerate(paths.algorithms(root)):
        if args.names:
            print(name)
        else:
            print(f"{name:<10} {summary}{'  (default)' if i == 0 else ''}")
    return 0


def cmd_run(args, root):
    lib = paths.libdir(root)
    if not os.path.exists(os.path.join(lib, "libitm.so.1")):
        print(f"tmkit run: {lib}/libitm.so.1 is missing" +
              ("" if paths.installed else "; run `make build` first"), file=sys.stderr)
        return 2
    prog = args.command
    if prog and prog[0] == "--":
        prog = prog[1:]
    if not prog:
        print("tmkit run: missing program to run", file=sys.stderr)
        return 2
    env = dict(os.environ)
    if args.algo:
        names = [n for n, _ in paths.algorithms(root)]
        if args.algo not in names:
            print(f"tmkit run: unknown algorithm '{args.algo}'; valid: {', '.join(names)}",
                  file=sys.stderr)
            return 2
        env["TMKIT_ALGO"] = args.algo
    if args.stats:
        env["TMKIT_STATS"] = args.stats
    if args.live or args.live_name:
        name = args.live_name or \
            re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(prog[0]))[:64] or "live"
        if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", name) or name in (".", ".."):
            print(f"tmkit run: '{name}' is not a valid segment name "
                  "(1 to 64 characters from A-Z a-z 0-9 . _ -)", file=sys.stderr)
            return 2
        env["TMKIT_STATS_SHM"] = name
        print(f"tmkit: live profile in shared memory '{name}'; watch it with: tmkit stat {name}",
              file=sys.stderr)
    old = env.get("LD_LIBRARY_PATH")
    env["LD_LIBRARY_PATH"] = lib + (":" + old if old else "")
    # A redo-log algorithm: the program and its -fgnu-tm libraries checked first (check/gate.py).
    from .check import gate
    algo = env.get("TMKIT_ALGO") or \
        (paths.algorithms(root)[0][0] if env.get("TMKIT_ADAPTIVE_MODES") == "all" else "")
    refused = gate.check(prog[0], algo, env)
    if refused:
        return refused
    try:
        os.execvpe(prog[0], prog, env)
    except OSError as e:
        print(f"tmkit run: cannot execute {prog[0]}: {e.strerror}", file=sys.stderr)
        return 127


def cmd_plugin(args, root):
    path = os.path.join(paths.libdir(root), "tmkit_inline.so")
    if not os.path.exists(path):
        print(f"tmkit plugin: {path} is missing: it is built when GCC's plugin headers are "
              "installed (Debian: gcc-12-plugin-dev); then run `make build`", file=sys.stderr)
        return 2
    print(f"-fplugin={path}" if args.flag else path)
    return 0


def cmd_demo(args, root):
    paths.need_tree(root, "demo")
    from . import demo
    return demo.run(root, ["--bank"] if args.bank else ["--kvcache"] if args.kvcache else [])


def cmd_bench(args, root):
    paths.need_tree(root, "bench")
    from .bench import cli
    return cli.run(root, args, args.argv)


# Sub-commands that parse their own arguments: name -> (module, one-line help). Each module has
# run(argv, root) -> exit status, and owns its options (so `tmkit X --help` is the module's).
RAW = {
    "report": ("tmkit_cli.report.cli", "per-site profile table, HTML page, or a comparison of two profiles"),
    "stat": ("tmkit_cli.report.live", "live per-site view of a shared-memory profile (TMKIT_STATS_SHM)"),
    "advise": ("tmkit_cli.advise.main", "find critical sections that can become transactions"),
    "check": ("tmkit_cli.check.main", "what in a -fgnu-tm binary only write-through algorithms "
              "get right (inlined copies, transaction_pure calls)"),
    "system-libitm": ("tmkit_cli.system_libitm", "make tmkit's libitm.so.1 the one every program "
                      "loads (opt-in, reversible; off by default)"),
}
# `tmkit bench SUITE` for suites with their own runner (not part of `tmkit bench all`).
RAW_BENCH = {
    "webcache": "tmkit_cli.bench.webcache",
    "waits": "tmkit_cli.bench.waits",
    "prime": "tmkit_cli.bench.prime",
    "costs": "tmkit_cli.bench.costs",
    "kvcache": "tmkit_cli.bench.kvcache",
    "channels": "tmkit_cli.bench.channels",
}


DESCRIPTION = """\
tmkit runs programs built with `gcc -fgnu-tm` on its own transactional-memory runtime (a
drop-in libitm.so.1), profiles their transactions per source site, finds the critical sections
of lock-based C code that can become transactions, and measures all of it against GCC's libitm
and a mutex."""

EPILOG = """\
examples:
  tmkit run --algo=gl_wt --stats=prof.json ./server    run on tmkit, write a profile at exit
  tmkit report prof.json                               the profile: sites, aborts, serial calls
  tmkit advise -p build                                critical sections in compile_commands.json
  tmkit bench                                          the benchmark suite (bench/README.md)

`tmkit COMMAND --help` gives each command's options; docs/README.md is the documentation's index."""


def _raw(module, argv, root):
    import importlib
    return importlib.import_module(module).run(argv, root)


def parser(root):
    """The command's parser (its sub-commands' one-line help: tools/mangen reads it too)."""
    p = argparse.ArgumentParser(prog="tmkit", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=version.Action, root=root)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    a = sub.add_parser("algos", help="list the runtime's algorithms, the default first",
                       description="List the runtime's algorithms (its own table, from "
                                   "tmkit-info), the default first, each with a summary.")
    a.add_argument("--names", action="store_true", help="names only, one per line")
    a.set_defaults(fn=cmd_algos)

    r = sub.add_parser("run", help="run a program built with -fgnu-tm on tmkit",
                       description="Run PROG on tmkit's libitm.so.1 (put first on its library "
                                   "path), with the algorithm and profile asked for; the "
                                   "runtime's TMKIT_* variables (tmkit(7)) pass through.")
    r.add_argument("--version", action=version.Action, root=root)
    r.add_argument("--algo", help="algorithm (see `tmkit algos`); under norec and orec_lazy (and "
                                  "TMKIT_ADAPTIVE_MODES=all) the program is checked first as "
                                  "`tmkit check` does, and refused on a redo-log hazard")
    r.add_argument("--stats", metavar="FILE",
                   help="write the per-site profile at exit (JSON; - for a table on stderr)")
    r.add_argument("--live", action="store_true",
                   help="count into shared memory /dev/shm/tmkit.NAME (NAME: the program's name), "
                        "summed over its processes; watch with `tmkit stat NAME`")
    r.add_argument("--live-name", metavar="NAME", help="--live with this segment name")
    r.add_argument("command", nargs=argparse.REMAINDER, help="PROG [ARGS...]")
    r.set_defaults(fn=cmd_run)

    for name, (_, text) in RAW.items():   # listed for --help; dispatched above
        sub.add_parser(name, help=text, add_help=False)

    g = sub.add_parser("plugin", help="the path of the GCC plugin that inlines barrier fast paths "
                       "(gcc -fgnu-tm -fplugin=$(tmkit plugin); docs/plugin.md)")
    g.add_argument("--flag", action="store_true", help="print it as the -fplugin= option")
    g.set_defaults(fn=cmd_plugin)

    d = sub.add_parser("demo", help="the default evaluation: a short web-cache experiment (docs/webcache.md)")
    d.add_argument("--bank", action="store_true",
                   help="instead: the bank program under every runtime (the runtime alone)")
    d.add_argument("--kvcache", action="store_true",
                   help="instead: a two-minute version of the memcached experiment (docs/kvcache.md)")
    d.set_defaults(fn=cmd_demo)

    b = sub.add_parser("bench", help="the benchmark suite: tmkit vs libitm vs a mutex (bench/README.md)")
    b.add_argument("suites", nargs="*", metavar="SUITE", help="micro, ds, bank, lru or all (default all), or kv (statistics counters); "
                   "`tmkit bench webcache --help` for the web-cache experiment")
    b.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    b.add_argument("--repeats", type=int, help="timed runs per configuration (default 5; --quick 1)")
    b.add_argument("--seconds", type=float, help="length of one timed run (default 0.3; --quick 0.05)")
    b.add_argument("--quick", action="store_true", help="one short repeat, small callgrind runs")
    b.add_argument("--out", help="output directory (default bench/results/suite/ for the full suite, "
                   "stats-overhead/ with --with-stats; quick or narrowed runs: build/bench-results/)")
    b.add_argument("--experiment", metavar="NAME",
                   help="keep the run in bench/results/NAME/ (bench/results/CONVENTIONS.md)")
    b.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    b.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    b.add_argument("--with-stats", action="store_true",
                   help="add the default algorithm with TMKIT_STATS on (the profile's overhead)")
    b.add_argument("--with-plugin", action="store_true",
                   help="add every tmkit algorithm and the system libitm running the programs built "
                        "with tmkit's GCC plugin (configurations NAME+inl; docs/plugin.md)")
    b.add_argument("--configs", metavar="A,B", help="only these configurations (plus mutex and libitm)")
    b.add_argument("--with-runtime", action="append", metavar="NAME=LIBDIR",
                   help="also run every algorithm on another build of the runtime in LIBDIR "
                        "(configurations NAME-ALGO; e.g. bench/scripts/orec_granularity.sh's)")
    b.set_defaults(fn=cmd_bench)

    return p


def main(argv, root):
    if argv and argv[0] in RAW:
        return _raw(RAW[argv[0]][0], argv[1:], root)
    if len(argv) >= 2 and argv[0] == "bench" and argv[1] in RAW_BENCH:
        paths.need_tree(root, "bench " + argv[1])
        return _raw(RAW_BENCH[argv[1]], argv[2:], root)
    args = parser(root).parse_args(argv)
    args.argv = argv[1:] if argv and argv[0] == "bench" else argv
    return args.fn(args, root)
