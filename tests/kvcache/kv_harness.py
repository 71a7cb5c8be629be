"""kv_harness.py — start a memcached-compatible server on a free port for the kvcache tests.

`server(target, args)` starts either a kvcache build (a path) or Debian's memcached (the word
"memcached": /usr/bin/memcached, run with -u root when we are root, -U 0, bound to 127.0.0.1),
waits until it accepts connections, and stops it (SIGTERM) on exit. The environment is passed
through, so TMKIT_ALGO / LD_LIBRARY_PATH set by ctest reach the server.
Also: raw(port, data) sends bytes on a fresh connection and returns what comes back.
"""
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time

MEMCACHED = "/usr/bin/memcached"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Servers started from several threads at once (test_admin.py) take turns from the choice of a
# port until the server listens on it: the kernel may hand the same free port to a second
# bind(0) until the first server has bound it.
START_LOCK = threading.Lock()


def is_memcached(target):
    return target == "memcached"


@contextlib.contextmanager
def server(target, args=(), procs=None):
    """procs: a list that receives the server's Popen (its pid for /proc)."""
    START_LOCK.acquire()
    port = free_port()
    if is_memcached(target):
        cmd = [MEMCACHED, "-l", "127.0.0.1", "-p", str(port), "-U", "0"]
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
    else:
        cmd = [target, "-p", str(port)]
    cmd += list(args)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    except BaseException:
        START_LOCK.release()
        raise
    if procs is not None:
        procs.append(proc)
    try:
        # 30 s: under valgrind on 2 vCPUs at load 10-12 a server once took more than 10 s to
        # listen; one that never starts still fails here.
        deadline = time.time() + 30
        try:
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.time() > deadline:
                        raise RuntimeError(f"server {cmd} did not start (exit {proc.poll()})")
                    time.sleep(0.02)
        finally:
            START_LOCK.release()
        if not is_memcached(target):
            check_runtime(proc.pid)
        yield port
        if proc.poll() is not None:
            raise RuntimeError(f"server died during the test (exit {proc.returncode})")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    # KV_EXIT_ZERO: the server must end cleanly after SIGTERM (under valgrind, exit 99 means
    # memcheck found errors: valgrind_server.sh).
    if os.environ.get("KV_EXIT_ZERO") and proc.returncode != 0:
        raise RuntimeError(f"server {cmd} exited with {proc.returncode} after SIGTERM")


def check_runtime(pid):
    """KV_EXPECT_RUNTIME=tmkit: the server mapped libitm.so.1 from KV_TMKIT_LIB; =libitm: it
    mapped a libitm.so.1 from elsewhere (GCC's)."""
    want = os.environ.get("KV_EXPECT_RUNTIME")
    if not want:
        return
    with open(f"/proc/{pid}/maps") as f:
        paths = {line.split()[-1] for line in f if "libitm.so" in line}
    tmkit_dir = os.path.realpath(os.environ["KV_TMKIT_LIB"])
    from_tmkit = any(os.path.realpath(p).startswith(tmkit_dir + "/") for p in paths)
    if not paths or from_tmkit != (want == "tmkit"):
        raise RuntimeError(f"server runs on {paths or 'no libitm'}, wanted {want}")


def raw(port, data, expect_end=None, timeout=2.0, settle=0.05):
    """Sends data; returns the bytes received until expect_end (a suffix) arrives, the peer
    closes, or nothing arrives for `settle` seconds after the first bytes (timeout overall)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        end = time.time() + timeout
        while time.time() < end:
            if expect_end is not None and out.endswith(expect_end):
                break
            s.settimeout(settle if (out and expect_end is None) else max(0.01, end - time.time()))
            try:
                d = s.recv(65536)
            except socket.timeout:
                if out and expect_end is None:
                    break
                continue
            if not d:
                break
            out += d
        return out


class Failures:
    """Collects check results; exit code 1 if any failed."""

    def __init__(self, name):
        self.name, self.failed, self.count = name, [], 0
        self.lock = threading.Lock()  # tests may check from several threads

    def check(self, cond, what):
        with self.lock:
            self.count += 1
            if not cond:
                self.failed.append(what)
                print(f"FAIL {self.name}: {what}", file=sys.stderr)

    def eq(self, got, want, what):
        self.check(got == want, f"{what}: got {got!r}, want {want!r}")

    def done(self):
        print(f"{self.name}: {self.count - len(self.failed)}/{self.count} checks passed")
        sys.exit(1 if self.failed else 0)
