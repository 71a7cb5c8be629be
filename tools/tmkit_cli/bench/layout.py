"""Where a `tmkit bench` run is written, and the context.json that describes it.

Kept results follow bench/results/CONVENTIONS.md: one folder per experiment holding its latest
run (`tmkit bench` -> bench/results/suite/, `tmkit bench costs` -> costs/, ...). A new run into
a folder replaces what the previous run wrote there (the files its context.json lists) and
leaves the hand-written README.md alone. `--experiment NAME` keeps a run in another folder
(bench/results/NAME/), `--out DIR` writes anywhere, and quick or narrowed runs, which are for
checking rather than keeping, go under the build directory."""
import datetime
import json
import os
import re
import shutil

from . import execute

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
KEEP = ("README.md", "context.json")


def results_dir(root):
    return os.path.join(root, "bench", "results")


def check_name(name):
    """None, or why NAME cannot be an experiment folder's name."""
    if not NAME.match(name) or re.search(r"20\d\d-\d\d-\d\d", name):
        return (f"--experiment {name!r}: a lower-case name of letters, digits, '.', '_' and '-', "
                "without a date (the folder holds the latest run; git keeps the older ones)")
    return None


class Run:
    """One run's output folder. `experiment` is None when the run is not kept in
    bench/results/ (--out, --quick, or a narrowed run)."""

    def __init__(self, root, default, out=None, experiment=None, quick=False, narrowed=False,
                 scratch_label=None):
        self.started = datetime.datetime.now()
        if out:
            self.dir, self.experiment = os.path.abspath(out), None
        elif experiment:
            self.dir, self.experiment = os.path.join(results_dir(root), experiment), experiment
        elif quick or narrowed:
            label = scratch_label or default
            suffix = "-quick" if quick else ""
            self.dir = os.path.join(root, "build", "bench-results", f"{label}{suffix}")
            self.experiment = None
        else:
            self.dir, self.experiment = os.path.join(results_dir(root), default), default
        os.makedirs(self.dir, exist_ok=True)
        self.root = root
        self._before = self._stamps()  # what was there, so that finish() can tell what is new

    def path(self, name):
        return os.path.join(self.dir, name)

    def rel(self):
        return os.path.relpath(self.dir, self.root)

    def _stamps(self):
        """{name: (size, mtime_ns)} of the folder's entries; a folder (kvcache's logs/) stamps
        with the newest file in it."""
        out = {}
        for name in os.listdir(self.dir):
            p = os.path.join(self.dir, name)
            if os.path.isdir(p):
                st = [os.stat(os.path.join(d, n)) for d, _, names in os.walk(p) for n in names]
                out[name] = (len(st), max((x.st_mtime_ns for x in st), default=0))
            else:
                st = os.stat(p)
                out[name] = (st.st_size, st.st_mtime_ns)
        return out

    def written(self):
        """The entries this run wrote (new or changed since it started), README.md and
        context.json aside."""
        now = self._stamps()
        return sorted(n for n, stamp in now.items()
                      if n not in KEEP and self._before.get(n) != stamp)

    def finish(self, command, revision, machine, toolchain, notes=None):
        """Writes context.json and removes what the previous run wrote that this one did not
        (so that a plot left from an older run cannot pass for this run's). Returns the path."""
        files = self.written()
        ctx_path = self.path("context.json")
        try:
            with open(ctx_path) as f:
                before = json.load(f).get("files", [])
        except (OSError, ValueError):
            before = []
        for name in before:
            p = self.path(os.path.basename(name))
            if name in files or name in KEEP:
                continue
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.isfile(p):
                os.remove(p)
        ctx = {"experiment": self.experiment or os.path.basename(self.dir),
               "command": command, "date": self.started.strftime("%Y-%m-%d %H:%M"),
               "commit": revision, "machine": machine, "toolchain": toolchain, "files": files}
        if notes:
            ctx["notes"] = notes
        with open(ctx_path, "w") as f:
            json.dump(ctx, f, indent=2)
            f.write("\n")
        return ctx_path


def machine_text(m, load_start, load_end):
    """The `machine` line of context.json from execute.machine_info()."""
    return (f"{m['nproc']} CPUs, {m['cpu']}, Linux {m['kernel']}; load average {load_start} at "
            f"start, {load_end} at end")


def toolchain_text(m):
    return f"{m['gcc']}; system libitm {m['libitm']}; {m['valgrind']}"


def finish(run, command, meta, notes=None):
    """context.json from the metadata dict the bench commands keep (machine, revision, load)."""
    m = meta.get("machine") or execute.machine_info()
    return run.finish(command, meta.get("revision") or "unknown",
                      machine_text(m, meta.get("load_start", "?"), meta.get("load_end", "?")),
                      toolchain_text(m), notes)
