"""`tmkit stat [NAME]`: a top-like live view of a shared-memory profile (TMKIT_STATS_SHM): per-site
rates from two snapshots taken --interval seconds apart, totals, and the processes attached.
Snapshots come from `build/bin/tmkit-shmdump NAME` (JSON in the profile schema of docs/stats.md,
plus "processes" and "segment"); the environment variable TMKIT_SHMDUMP names another dumper
(a testing hook)."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

from .. import paths
from . import profiles as report

CLEAR = "\033[H\033[2J"
SORTS = {"aborts": lambda r: (r["aborts"], r["starts"]),
         "time": lambda r: (r["inside_ms"] + r["wasted_ms"], r["starts"]),
         "starts": lambda r: (r["starts"], r["aborts"])}


class StatError(Exception):
    """A user-facing failure (message printed, exit status 1)."""


def dumper(root):
    path = os.environ.get("TMKIT_SHMDUMP")
    if path and not os.path.exists(path):
        raise StatError(f"TMKIT_SHMDUMP={path}: no such file")
    path = path or paths.helper(root, "tmkit-shmdump")
    if not os.path.exists(path):
        raise StatError(f"{path} is missing; run `make build` first")
    return path


def decode(raw):
    """The dumper's output as text: a byte that is not UTF-8 (a damaged segment's paths; another
    dumper) becomes U+FFFD rather than stopping the tool with a traceback."""
    return raw.decode("utf-8", errors="replace")


def call(dump, args):
    try:
        p = subprocess.run([dump] + args, capture_output=True)
    except OSError as e:
        raise StatError(f"cannot run {dump}: {e.strerror}")
    if p.returncode != 0:
        raise StatError((decode(p.stderr).strip() or f"{os.path.basename(dump)} {' '.join(args)} "
                         f"failed (exit {p.returncode})").splitlines()[-1])
    return decode(p.stdout)


def snapshot(dump, name):
    """(profile dict, raw JSON text) of segment name."""
    text = call(dump, [name])
    try:
        prof = report.parse(text, f"segment {name}")
    except report.ProfileError as e:
        raise StatError(str(e))
    procs = prof.get("processes", [])
    if not isinstance(procs, list) or not all(isinstance(p, dict) for p in procs):
        raise StatError(f"segment {name}: malformed snapshot: 'processes' must be a list of objects")
    return prof, text


def choose(dump, name):
    if name:
        return name
    names = [n for n in call(dump, ["--list"]).splitlines() if n.strip()]
    if len(names) == 1:
        return names[0]
    if not names:
        raise StatError("no shared-memory profiles; run a program with TMKIT_STATS_SHM set "
                        "(docs/stats.md)")
    raise StatError("several shared-memory profiles, name one:\n  " + "\n  ".join(names))


def deltas(prev, cur):
    """cur's sites with counters minus prev's (same object + offset); a counter that went down (a
    recreated segment) counts from zero."""
    before = {report.site_key(s): s for s in prev["sites"]}
    out = []
    for s in cur["sites"]:
        p = before.get(report.site_key(s), {})
        d = dict(s)
        for c in cur["counters"]:
            if not c.endswith("_max"):
                d[c] = s[c] - p.get(c, 0) if s[c] >= p.get(c, 0) else s[c]
        d["retries_histogram"] = []
        out.append(d)
    return out


def header(prof, name, sort):
    procs = prof.get("processes", [])
    alive = sum(1 for p in procs if p.get("alive"))
    lines = [f"tmkit stat: segment {prof.get('segment', name)}, algorithm {prof.get('algorithm')}, "
             f"{alive} of {len(procs)} processes alive, sorted by {sort}  {time.strftime('%H:%M:%S')}"]
    for p in procs[:4]:
        state = "alive " if p.get("alive") else "exited"
        lines.append(f"  pid {p.get('pid')} {state} {p.get('program', '')}")
    if len(procs) > 4:
        lines.append(f"  ... {len(procs) - 4} more")
    return lines


RATE_HEAD = (f"{'site':<40} {'starts/s':>10} {'commits/s':>10} {'aborts/s':>9} {'abort%':>7} "
             f"{'serial/s':>9} {'in ms/s':>8} {'lost ms/s':>9} {'starts':>11} {'abort% all':>10}")


def rate_line(name, r, cum, dt):
    if r is None:
        rates = f"{'-':>10} {'-':>10} {'-':>9} {'-':>7} {'-':>9} {'-':>8} {'-':>9}"
    else:
        rates = (f"{r['starts'] / dt:>10.0f} {r['commits'] / dt:>10.0f} {r['aborts'] / dt:>9.0f} "
                 f"{100 * r['abort_rate']:>6.1f}% {r['serial'] / dt:>9.0f} {r['inside_ms'] / dt:>8.2f} "
                 f"{r['wasted_ms'] / dt:>9.2f}")
    return f"{name[:40]:<40} {rates} {cum['starts']:>11} {100 * cum['abort_rate']:>9.1f}%"


def live_frame(prev, cur, dt, name, args, sym):
    """The lines of one refresh: rates over dt seconds (prev None: the first, totals only)."""
    sym.site_names(cur["sites"])
    hz = cur.get("tsc_hz") or 0
    cum = {report.site_key(s): report.row(s, hz) for s in cur["sites"]}
    if prev is not None:
        delta = {report.site_key(s): report.row(s, hz) for s in deltas(prev, cur)}
        order = sorted(cum, key=lambda k: SORTS[args.sort](delta[k]) + SORTS[args.sort](cum[k]), reverse=True)
        tot = report.total({"sites": deltas(prev, cur), "counters": cur["counters"], "tsc_hz": hz}, "")
    else:
        delta, tot = {}, None
        order = sorted(cum, key=lambda k: SORTS[args.sort](cum[k]), reverse=True)
    lines = header(cur, name, args.sort) + ["", RATE_HEAD]
    lines += [rate_line(cum[k]["site"], delta.get(k), cum[k], dt) for k in order]
    lines.append(rate_line("total", tot, report.total(cur, "total"), dt))
    return lines


def once(dump, name, args, sym):
    prof, text = snapshot(dump, name)
    if args.json:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    rows = report.rows(prof, sym)
    rows.sort(key=SORTS[args.sort], reverse=True)
    print("\n".join(header(prof, name, args.sort)) + "\n")
    print(report.HEADER)
    for r in rows:
        print(report.line(r))
    print("-" * 40)
    print(report.line(report.total(prof, "total")))
    return 0


def live(dump, name, args, sym):
    tty = sys.stdout.isatty()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
    prev, t_prev, frames = None, time.monotonic(), 0
    while True:
        cur, _ = snapshot(dump, name)
        now = time.monotonic()
        lines = live_frame(prev, cur, max(now - t_prev, 1e-6), name, args, sym)
        if tty:
            height = shutil.get_terminal_size().lines
            lines = lines[:max(height - 1, 5)]
        sys.stdout.write((CLEAR if tty else "") + "\n".join(lines) + "\n" + ("" if tty else "\n"))
        sys.stdout.flush()
        prev, t_prev, frames = cur, now, frames + 1
        if args.count and frames >= args.count:
            return 0
        time.sleep(args.interval)


def run(argv, root):
    ap = argparse.ArgumentParser(prog="tmkit stat", description=__doc__)
    ap.add_argument("name", nargs="?", metavar="NAME",
                    help="shared-memory profile (default: the only one; several: they are listed)")
    ap.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                    help="refresh period (default 1)")
    ap.add_argument("--sort", choices=sorted(SORTS), default="aborts", help="row order (default aborts)")
    ap.add_argument("-n", "--count", type=int, default=0, metavar="N",
                    help="stop after N refreshes (default: until Ctrl-C)")
    ap.add_argument("--once", action="store_true", help="print one snapshot's totals and exit")
    ap.add_argument("--json", action="store_true", help="with --once: the raw snapshot JSON")
    ap.add_argument("--list", action="store_true", help="list the shared-memory profiles and exit")
    args = ap.parse_args(argv)
    if args.json and not args.once:
        ap.error("--json needs --once")
    if args.interval <= 0 or args.count < 0:
        ap.error("--interval must be positive and --count not negative")
    try:
        dump = dumper(root)
        if args.list:
            sys.stdout.write(call(dump, ["--list"]))
            return 0
        name = choose(dump, args.name)
        return (once if args.once else live)(dump, name, args, report.Symbolizer())
    except StatError as e:
        print(f"tmkit stat: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:   # Ctrl-C ends the live view
        if sys.stdout.isatty():
            print()
        return 0
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
