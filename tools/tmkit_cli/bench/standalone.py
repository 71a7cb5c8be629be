"""What the experiments with runners of their own share (`tmkit bench waits`, `prime`,
`costs`): their common options, the output folder (bench/results/NAME/, layout.py), the run's
metadata, the CSV of runs and the context.json that closes a run."""
import argparse
import csv
import os
import shlex
import subprocess

from .. import paths
from . import layout
from .execute import git_revision, loadavg, machine_info


def parse(name, doc, argv, repeats_help, extra=None):
    """(args, repeats) for `tmkit bench NAME`: --repeats, --quick, --out, --experiment, plus
    what `extra` (a function of the parser) adds."""
    ap = argparse.ArgumentParser(prog=f"tmkit bench {name}", description=doc.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help=f"{repeats_help} (default 5)")
    ap.add_argument("--quick", action="store_true", help="one short repeat")
    ap.add_argument("--out", help=f"output directory (default bench/results/{name}/; --quick: "
                    f"build/bench-results/{name}-quick/)")
    ap.add_argument("--experiment", metavar="NAME",
                    help="keep the run in bench/results/NAME/ instead")
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    if repeats < 1:
        ap.error("--repeats must be at least 1")
    if args.experiment and layout.check_name(args.experiment):
        ap.error(layout.check_name(args.experiment))
    return args, repeats


def start(root, name, args):
    """(output folder, created; date; metadata with the load at the start and the layout.Run)."""
    run = layout.Run(root, name, args.out, args.experiment, args.quick)
    return run.dir, run.started, {"machine": machine_info(), "revision": git_revision(root),
                                  "load_start": loadavg(), "run": run}


def command(name, argv):
    """The command line as typed, for the summary and context.json."""
    return f"bin/tmkit bench {name}" + "".join(" " + shlex.quote(a) for a in argv)


def close(meta, cmd):
    """Writes the run's context.json (after its summary, so that the summary is listed)."""
    layout.finish(meta["run"], cmd, meta)
    print(f"\nresults: {meta['run'].rel()}/ ({', '.join(meta['run'].written())}, context.json)")


def finish(meta, out, rows, csv_name):
    """Records the load at the end and writes the rows as CSV."""
    meta["load_end"] = loadavg()
    with open(os.path.join(out, csv_name), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def header(title, meta, date, cmd):
    """The summary's first lines: title, date, command, machine, revision."""
    m = meta["machine"]
    return [f"# tmkit benchmarks: {title}", "", f"- date: {date:%Y-%m-%d %H:%M}", f"- command: `{cmd}`",
            f"- machine: {m['nproc']} CPUs, {m['cpu']}, Linux {m['kernel']}; load average "
            f"{meta['load_start']} at start, {meta['load_end']} at end",
            f"- tmkit revision: {meta['revision']}"]


def venv_plot(root, script, args):
    """(files written, None) or ([], why not): runs a plotting script of this folder (by file
    name) under the project venv's python, which has matplotlib (scripts/venv.sh)."""
    py, why = paths.python_with(root, "matplotlib", "tmkit bench")
    if not py:
        return [], why
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), script)
    p = subprocess.run([py, path] + list(args),
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [], "plotting failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return p.stdout.split(), None
