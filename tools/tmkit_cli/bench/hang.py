"""Runs a benchmark program with a time limit; a program that overruns it is a hang worth
debugging, so before it is killed its threads' stacks are saved (gdb, when installed) to a file
whose path the caller reports. A rare hang seen once in a long interleaved run (2026-11-23,
rbtree at 2 threads, not reproduced in ~1300 runs since) left nothing to look at."""
import os
import shutil
import subprocess
import tempfile
import time


def _save_stacks(pid, cmd):
    """The stacks of every thread of pid, in a new file; its path, or "" when gdb is missing."""
    gdb = shutil.which("gdb")
    if not gdb:
        return ""
    d = os.path.join(tempfile.gettempdir(), "tmkit-hangs")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{time.strftime('%Y%m%d-%H%M%S')}-{pid}.txt")
    try:
        out = subprocess.run([gdb, "-p", str(pid), "-batch", "-ex", "thread apply all bt",
                              "-ex", "p tm_serial_line", "-ex", "p tm_serial_excl",
                              "-ex", "p tm_bias_owner"],
                             capture_output=True, text=True, timeout=120).stdout
    except subprocess.TimeoutExpired:
        out = "gdb did not finish in 120 s\n"
    with open(path, "w") as f:
        f.write("command: " + " ".join(cmd) + "\n" + out)
    return path


def run_limited(cmd, env, timeout):
    """(returncode, stdout, stderr); returncode None on a timeout, and stderr then names the
    file with the stacks (if any)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        where = _save_stacks(p.pid, cmd)
        p.kill()
        out, err = p.communicate()
        return None, out, f"timeout after {timeout:.0f} s" + (f"; thread stacks in {where}" if where else "")
