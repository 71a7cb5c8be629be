"""How `tmkit bench` runs one program (timed, or under callgrind for its instruction count) and
what it records about the run: the machine, the revision, the load. Shared by bench.py and
webcache.py."""
import os
import platform
import re
import subprocess

from .. import paths
from .hang import run_limited


def base_env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith("TMKIT_") and k not in ("LD_LIBRARY_PATH", "ITM_DEFAULT_METHOD")}


def parse_line(text):
    """The last key=value line a program printed, as a dict."""
    lines = [ln for ln in text.splitlines() if "=" in ln]
    if not lines:
        return {}
    return dict(kv.split("=", 1) for kv in lines[-1].split() if "=" in kv)


def describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        try:
            import signal
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def run_once(root, case, config, extra_args, timeout):
    exe = os.path.join(paths.bindir(root), f"{case.prog}-{config.build}")
    cmd = [exe] + case.args + extra_args
    env = dict(base_env(), **config.env)
    rc, out, err = run_limited(cmd, env, timeout)
    err = err.strip().splitlines()
    return rc, parse_line(out), err[-1] if err else ""


def callgrind_instr(root, case, config, ops, timeout=600):
    """Total instructions callgrind counted for one run with --ops ops (None if it failed)."""
    exe = os.path.join(paths.bindir(root), f"{case.prog}-{config.build}")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           exe] + case.args + ["--threads", "1", "--ops", str(ops)]
    env = dict(base_env(), **config.env)
    if "TMKIT_STATS" in env:
        # Under valgrind a transaction takes ~50x longer, so the adaptive time sampling would
        # time far more attempts than natively; a fixed stride of 256 is what short
        # transactions get natively.
        env["TMKIT_STATS_STRIDE"] = "256"
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    if p.returncode != 0 or not m or parse_line(p.stdout).get("ok") != "1":
        return None
    return int(m.group(1))


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "unknown"
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "kernel": platform.release(),
        "gcc": first_line(["gcc", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "libitm": subprocess.run(["gcc", "-print-file-name=libitm.so.1"], capture_output=True,
                                 text=True).stdout.strip(),
    }


def git_revision(root):
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "runtime",
                                "bench", "include"], capture_output=True, text=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"
