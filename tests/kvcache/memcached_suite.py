#!/usr/bin/env python3
"""memcached_suite.py — run memcached's t/*.t files against Debian's memcached and kvcache.

    memcached_suite.py --src MEMCACHED_SOURCE --build BUILD --readme apps/kvcache/README.md
                       [--jobs N] [--timeout S] [FILE.t ...]

Called by memcached_suite.sh, which fetches the source package. The test files and their
harness (t/lib/MemcachedTest.pm) are used as they come; the harness takes the server to start
from the current directory: it runs `./timedrun SECONDS ./memcached-debug ARGS` and asks
`./memcached-debug -h` which features exist. So each file runs in a scratch directory holding
`t` (a link to the source's t/) and two small scripts of ours:
  timedrun         drops the time limit argument and execs the rest (this script times each
                   file out itself and then kills its process group);
  memcached-debug  starts the server under test (KVR_SERVER: "memcached" or a kvcache binary,
                   KVR_LIB: a directory put first in LD_LIBRARY_PATH, for tmkit's libitm).
The wrapper adapts the harness's command line, not the tests: it drops `-o relaxed_privileges`
(a seccomp option that Debian's build does not know either) for every server, and for kvcache
`-u USER` (kvcache never changes user) and `-U PORT` (kvcache serves no UDP; the harness adds
it because a help text without "memcached 1.1." means UDP to it). For memcached its help is
passed on without the unix-socket line, so the harness talks TCP to all three servers (with
the line it would use a unix socket for memcached only).

Each file's result per server: pass, skip (the file skips itself), FAIL n/N (n of N planned
checks failed), died (no check failed but the file stopped early, e.g. the server refused an
option), TIMEOUT. The README's table ("memcached's test files") says per file `passes`,
`as memcached` (fails or skips on memcached too, reason given), `differs` (a known difference,
reason given) or `not run` (reason given: a feature kvcache does not claim). Exit status 1 when
a kvcache build's result for a file is not memcached's (a pass where memcached passes, the same
skip or the same count of failed checks where it does not) and the README does not list the
file as `differs`, or when memcached itself cannot be run.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

WRAPPER = r"""#!/bin/sh
# memcached-debug for memcached's t/lib/MemcachedTest.pm: starts $KVR_SERVER (memcached_suite.py)
skip=
for a; do
    shift
    if [ -n "$skip" ]; then skip=; continue; fi
    case $a in
    -u|-U) [ "$KVR_SERVER" = memcached ] || { skip=1; continue; } ;;
    -o) [ "$1" = relaxed_privileges ] && { skip=1; continue; } ;;
    esac
    set -- "$@" "$a"
done
if [ "$KVR_SERVER" = memcached ]; then
    [ "$*" = -h ] && { /usr/bin/memcached -h | grep -v unix-socket; exit 0; }
    exec /usr/bin/memcached "$@"
fi
[ -n "$KVR_LIB" ] && export LD_LIBRARY_PATH="$KVR_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$KVR_SERVER" "$@"
"""

TIMEDRUN = """#!/bin/sh
# timedrun SECONDS COMMAND...: memcached_suite.py times each test file out itself
shift
exec "$@"
"""


def readme_table(path):
    """{file: (status, why)} from the README's "memcached's test files" table."""
    table, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                inside = "memcached's test files" in line
                continue
            if not inside or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3:
                continue
            status = cells[1].strip("*").strip()
            for name in re.findall(r"`([^`]+\.t)`", cells[0]):
                table[name] = (status, cells[2])
    return table


def tap_result(rc, out, timed_out):
    """pass / skip / FAIL n/N / died / TIMEOUT from a Test::More run."""
    if timed_out:
        return "TIMEOUT"
    plan = re.search(r"^1\.\.(\d+)(.*)$", out, re.M)
    if plan and plan.group(1) == "0" and "skip" in plan.group(2).lower():
        return "skip"
    failed = len(re.findall(r"^not ok\b(?!.*# TODO)", out, re.M))
    if rc == 0 and failed == 0:
        return "pass"
    ran = len(re.findall(r"^(?:not )?ok\b", out, re.M))
    planned = int(plan.group(1)) if plan else ran
    if failed:
        return f"FAIL {failed}/{max(planned, ran)}"
    return f"died {ran}/{planned}" if plan else "died"


def run_file(scratch, name, server, lib, timeout, logdir):
    env = {k: v for k, v in os.environ.items()
           if k not in ("T_MEMD_USE_DAEMON", "SSL_TEST", "VALGRIND_TEST", "LD_LIBRARY_PATH")}
    env.update(KVR_SERVER=server, KVR_LIB=lib or "")
    start = time.time()
    proc = subprocess.Popen(["perl", f"t/{name}"], cwd=scratch, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    try:  # servers the file left behind share its process group
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    out = out.decode("latin1")
    with open(os.path.join(logdir, name + ".log"), "w") as f:
        f.write(out)
    return tap_result(proc.returncode, out, timed_out), time.time() - start


def check_runtime(scratch, server, lib):
    """Starts `server` through the wrapper; with lib, it must map lib/libitm.so.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, KVR_SERVER=server, KVR_LIB=lib or "")
    proc = subprocess.Popen([os.path.join(scratch, "memcached-debug"), "-p", str(port), "-l",
                             "127.0.0.1", "-U", "0"] + (["-u", "root"] if os.geteuid() == 0 else []),
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    return f"{server} did not start: {proc.stderr.read().decode()}"
                time.sleep(0.05)
        else:
            return f"{server} did not listen on {port}"
        if lib:
            with open(f"/proc/{proc.pid}/maps") as f:
                maps = {ln.split()[-1] for ln in f if "libitm.so" in ln}
            real = os.path.realpath(lib) + "/"
            if not any(os.path.realpath(p).startswith(real) for p in maps):
                return f"{server} maps {maps or 'no libitm'}, not {lib}/libitm.so.1"
        return None
    finally:
        proc.terminate()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--readme", required=True)
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("KV_SUITE_JOBS", "2")))
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    a.src, a.build = os.path.abspath(a.src), os.path.abspath(a.build)

    table = readme_table(a.readme)
    if not table:
        print(f"FAIL: no table of memcached's test files in {a.readme}")
        return 1
    present = sorted(f for f in os.listdir(os.path.join(a.src, "t")) if f.endswith(".t"))
    files = [f for f in present if table.get(f, ("",))[0] != "not run"]
    if a.files:
        files = [f for f in files if f in a.files]
    servers = [("memcached", "memcached", None),
               ("baseline", os.path.join(a.build, "bin", "kvcache-baseline"), None),
               ("tmkit on tmkit", os.path.join(a.build, "bin", "kvcache-tmkit"),
                os.path.join(a.build, "lib"))]

    scratch = tempfile.mkdtemp(prefix="kvcache-real.")
    try:
        os.symlink(os.path.join(a.src, "t"), os.path.join(scratch, "t"))
        for name, text in (("memcached-debug", WRAPPER), ("timedrun", TIMEDRUN)):
            p = os.path.join(scratch, name)
            with open(p, "w") as f:
                f.write(text)
            os.chmod(p, 0o755)
        for label, server, lib in servers:
            err = check_runtime(scratch, server, lib)
            if err:
                print(f"FAIL: {label}: {err}")
                return 1
        logroot = os.path.join(a.build, "kvcache-real", "logs")
        jobs, results = [], {}
        for label, server, lib in servers:
            logdir = os.path.join(logroot, label.split()[0])
            os.makedirs(logdir, exist_ok=True)
            jobs += [(f, label, server, lib, logdir) for f in files]
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
            futs = {pool.submit(run_file, scratch, f, server, lib, a.timeout, logdir): (f, label)
                    for f, label, server, lib, logdir in jobs}
            for fut in concurrent.futures.as_completed(futs):
                results[futs[fut]] = fut.result()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    labels = [s[0] for s in servers]
    print(f"memcached's t/*.t ({os.path.basename(a.src)}) against Debian's memcached and kvcache "
          f"({len(files)} files, {time.time() - t0:.0f} s; logs in {logroot})\n")
    print("| file | " + " | ".join(labels) + " | README |")
    print("|---|" + "---|" * len(labels) + "---|")
    unexplained, counts = [], {lb: 0 for lb in labels}
    for f in files:
        cells = []
        for lb in labels:
            r, secs = results[(f, lb)]
            counts[lb] += r == "pass"
            cells.append(r)
        status = table.get(f, ("not in README", ""))[0]
        print(f"| {f} | " + " | ".join(cells) + f" | {status} |")
        for lb, r in zip(labels[1:], cells[1:]):
            # where memcached passes, kvcache must pass; where it fails or skips, kvcache must
            # do the same (the same count of failed checks), unless the README says it differs
            if r != cells[0] and status != "differs":
                unexplained.append(f"{f} on {lb}: {r} (memcached: {cells[0]})")
    print()
    print(", ".join(f"{lb} passes {counts[lb]}" for lb in labels) + f" of {len(files)} files")
    not_run = [f for f in present if table.get(f, ("",))[0] == "not run"]
    print(f"not run ({len(not_run)}, reasons in the README): {' '.join(not_run)}")
    if files and counts[labels[0]] == 0:
        print("\nFAIL: memcached passes none of the files: the harness does not work here")
        return 1
    if unexplained:
        print("\nFAIL: kvcache's result is not memcached's, and apps/kvcache/README.md does not "
              "list the file as a known difference:")
        for u in unexplained:
            print("  " + u)
        return 1
    print("memcached suite: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
