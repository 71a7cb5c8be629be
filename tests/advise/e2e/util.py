"""Plumbing of the end-to-end test (tests/advise/e2e/main.py): messages, commands run with
their output in log files and their process groups ended with the test, the work directory's
lock, JSON files."""
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time

SKIP = 77  # CTest's SKIP_RETURN_CODE for this test: a prerequisite is missing


class Failure(Exception):
    """A step failed: the test exits 1 after printing the message."""


class Skip(Exception):
    """A prerequisite is missing and cannot be installed here: the test exits 77."""


T0 = time.monotonic()


def say(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


LIVE = set()           # the process groups running now (killed when the test is stopped)
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()


def run(cmd, cwd, log, env=None, timeout=None, shell=False):
    """Runs cmd with stdout and stderr appended to the file log; returns the exit status (124
    when it ran out of time: its whole process group is killed, servers included)."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, "ab") as out:
        out.write(f"$ {cmd if shell else ' '.join(cmd)}   (in {cwd})\n".encode())
        out.flush()
        with LIVE_LOCK:
            if STOPPING.is_set():
                return 130
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                 shell=shell, start_new_session=True)
            LIVE.add(p)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(p)
            out.write(f"\n*** timed out after {timeout} s: process group killed\n".encode())
            return 124
        finally:
            with LIVE_LOCK:
                LIVE.discard(p)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def stop_on_signals():
    """SIGTERM or SIGINT (ctest's timeout, Ctrl-C) ends every running command's process group,
    the servers a test file started included (each runs in a session of its own), and starts
    no new one."""
    def stop(signum, _frame):
        with LIVE_LOCK:
            STOPPING.set()
            for p in list(LIVE):
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        print(f"stopped by signal {signum}", flush=True)
        sys.exit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def hold(path, what):
    """An exclusive lock on the file path for the rest of the process: two runs of the test
    sharing a work directory would delete each other's trees. A second run says who holds it
    and waits."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    f = open(path, "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        say(f"waiting: another run uses {what} ({f.read().strip() or 'unknown'}; lock {path})")
        fcntl.flock(f, fcntl.LOCK_EX)
    f.truncate(0)
    f.write(f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}\n")
    f.flush()
    return f


def tail(log, n):
    try:
        return open(log, errors="replace").read().splitlines()[-n:]
    except OSError:
        return []


def save_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".new"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def load_json(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None
