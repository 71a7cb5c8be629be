"""The steps every program of the end-to-end test shares (tests/advise/e2e/main.py): the
prerequisites, the download of a Debian source package, the advisor's run, what a build's log
and a test's log say, and how a built program finds tmkit's libitm."""
import glob
import json
import os
import shutil
import subprocess
import time

from util import Failure, Skip, hold, run, tail

def first_errors(log, n=15):
    """The compiler's first error lines of a build log (and the lines that locate them)."""
    lines = open(log, errors="replace").read().splitlines()
    hits = [i for i, l in enumerate(lines) if " error: " in l or ": error:" in l
            or "Error " in l or "undefined reference" in l]
    out = []
    for i in hits:
        out += lines[max(0, i - 1):i + 1] if i and "In function" in lines[i - 1] else [lines[i]]
        if len(out) >= n:
            break
    return out or lines[-n:]


def require(commands=(), files=()):
    """Skips the test (exit 77) naming what is missing; scripts/deps.sh installs all of it."""
    missing = [c for c in commands if not shutil.which(c)]
    missing += [f"{f} ({pkg})" for f, pkg in files if not os.path.exists(f)]
    if missing:
        raise Skip("missing " + ", ".join(missing) + " (scripts/deps.sh installs them)")


def fetch(root, work, package, dirglob):
    """Downloads PACKAGE's Debian source into work (cached) through tests/debsrc.sh and
    tests/advise/debfetch.sh; returns the unpacked upstream directory and the package version."""
    script = (f'. "{root}/tests/debsrc.sh"; . "{root}/tests/advise/debfetch.sh"; '
              f'ROOT="{root}"; debsrc_init "{work}"; debsrc_fetch {package} "{dirglob}"')
    with hold(os.path.join(work, ".fetch.lock"), work):
        p = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    if p.returncode:
        raise Failure((p.stdout + p.stderr).strip() or f"apt-get source {package} failed")
    dirs = sorted(d for d in glob.glob(os.path.join(work, dirglob)) if os.path.isdir(d))
    dscs = sorted(glob.glob(os.path.join(work, f"{package}_*.dsc")))
    if not dirs:
        raise Failure(f"no {dirglob} in {work} after apt-get source {package}")
    version = os.path.basename(dscs[-1])[len(package) + 1:-4] if dscs else os.path.basename(dirs[-1])
    return dirs[-1], version


def advise(root, src, out, report, log, entry=None):
    """`tmkit advise -p src --apply out --json -o report`: returns the advisor's summary with
    the number of sections it rewrote and the files that differ from the source tree."""
    if os.path.exists(out):
        shutil.rmtree(out)
    cmd = [os.path.join(root, "bin", "tmkit"), "advise", "-p", src, "--apply", out,
           "--json", "-o", report]
    if entry:
        cmd[4:4] = ["--entry", entry]
    t = time.monotonic()
    if run(cmd, src, log):
        raise Failure("tmkit advise --apply failed:\n  " + "\n  ".join(tail(log, 12)))
    doc = json.load(open(report))
    s = dict(doc["summary"])
    s["seconds"] = round(time.monotonic() - t, 1)
    s["rewritten"] = sum(bool((x.get("patch") or {}).get("eligible")) for x in doc["sections"])
    s["locks_removed"] = sum(bool(l.get("removable")) for l in doc["locks"])
    s["locks"] = len(doc["locks"])
    s["skipped_files"] = len(doc["skipped"])
    s["changed_files"] = changed_files(src, out)
    s["said"] = next((l for l in tail(log, 5) if "wrote" in l), "").strip()
    return s


def changed_files(src, out):
    """Sources and headers of out that differ from src (what the rewrite touched)."""
    changed = []
    for d, _, names in os.walk(out):
        for n in names:
            if not n.endswith((".c", ".h", ".cc", ".cpp")):
                continue
            p = os.path.join(d, n)
            rel = os.path.relpath(p, out)
            q = os.path.join(src, rel)
            if not os.path.exists(q) or open(p, "rb").read() != open(q, "rb").read():
                changed.append(rel)
    return sorted(changed)


def failure_excerpt(log, n=12):
    """What a failed test file said: TAP's diagnostics (`#` lines: the failed test, got and
    expected) and prove's list of failed tests, else the log's last lines."""
    lines = open(log, errors="replace").read().splitlines()
    keep = [l for l in lines if l.startswith("#") or "Failed test" in l or "not ok" in l
            or "timed out" in l or "Dubious" in l]
    return keep[:n] if keep else lines[-n:]


def libitm_of(exe, libdir):
    """How exe finds libitm.so.1: (NEEDED?, RUNPATH, what ldd resolves it to without and with
    LD_LIBRARY_PATH=libdir)."""
    d = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    needed = "[libitm.so.1]" in d
    runpath = next((l.split("[", 1)[1].rstrip("]") for l in d.splitlines()
                    if "RUNPATH" in l or "RPATH" in l), "")

    def resolved(env):
        out = subprocess.run(["ldd", exe], capture_output=True, text=True, env=env).stdout
        return next((l.split("=>")[1].split("(")[0].strip() for l in out.splitlines()
                     if "libitm.so" in l and "=>" in l), "")
    plain = resolved(dict(os.environ, LD_LIBRARY_PATH=""))
    forced = resolved(dict(os.environ, LD_LIBRARY_PATH=libdir))
    return needed, runpath, plain, forced


def elf_files(tree):
    """Linked programs and libraries under tree (build products a copy should not carry)."""
    found = []
    for d, _, names in os.walk(tree):
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        found.append(os.path.relpath(p, tree))
    return sorted(found)


def snapshot_lib(libdir, dest):
    """A copy of tmkit's libitm.so.1 for the runs: the build directory's may be rebuilt while
    the matrix runs (other work shares it), and every configuration must run the same one."""
    os.makedirs(dest, exist_ok=True)
    tmp = os.path.join(dest, "libitm.so.1.new")
    shutil.copyfile(os.path.join(libdir, "libitm.so.1"), tmp)
    os.replace(tmp, os.path.join(dest, "libitm.so.1"))
    return dest
