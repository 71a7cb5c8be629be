"""The parts of `tmkit bench kvcache` (kvcache.py) that talk to processes: one server (a
kvcache build or Debian's memcached) on a free 127.0.0.1 port, stopped with SIGTERM so that its
exit hooks (tmkit's TMKIT_STATS profile) run; one `memcslap --binary` load; the profile's totals."""
import os
import re
import signal
import socket
import subprocess
import time

from ..report import profiles as report

MEMCACHED = "/usr/bin/memcached"


class RunError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process; `runtime` ("tmkit", "libitm" or None) is checked against the
    libitm.so.1 it mapped (tmkit_lib: the directory of tmkit's)."""

    def __init__(self, exe, threads, env, log_path, runtime=None, tmkit_lib=None):
        self.port = free_port()
        if exe == MEMCACHED:
            cmd = [exe, "-l", "127.0.0.1", "-p", str(self.port), "-U", "0", "-t", str(threads)]
            if os.geteuid() == 0:
                cmd += ["-u", "root"]
        else:
            cmd = [exe, "-p", str(self.port), "-t", str(threads)]
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RunError(f"{os.path.basename(exe)} did not start" + self.log_tail())
                time.sleep(0.02)
        self.libitm = self.mapped_libitm()
        if runtime:
            tm_dir = os.path.realpath(tmkit_lib) + "/"
            on_tmkit = self.libitm.startswith(tm_dir)
            if not self.libitm or on_tmkit != (runtime == "tmkit"):
                self.stop()
                raise RunError(f"runs on {self.libitm or 'no libitm'}, wanted {runtime}")

    def mapped_libitm(self):
        try:
            with open(f"/proc/{self.proc.pid}/maps") as f:
                for line in f:
                    if "libitm.so" in line:
                        return os.path.realpath(line.split()[-1])
        except OSError:
            pass
        return ""

    def log_tail(self):
        try:
            with open(self.log.name) as f:
                lines = [ln.strip() for ln in f if ln.strip()]
        except OSError:
            return ""
        return "; stderr: " + " | ".join(lines[-3:]) if lines else ""

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM (kvcache and memcached leave through exit(), so the profile is written);
        the exit status, or a description of what went wrong."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            rc = f"did not stop in 20 s (killed, exit {rc})"
        self.log.close()
        return rc


SLAP_LINE = re.compile(r"Time to (\w+)\s+(\d+) keys by\s+(\d+) threads:\s+([0-9.]+) seconds")


def memcslap(port, concurrency, number, test, timeout=600):
    """(operations, seconds as memcslap reports them, wall seconds of the client)."""
    cmd = ["memcslap", f"--servers=127.0.0.1:{port}", "--binary", f"--concurrency={concurrency}",
           f"--execute-number={number}"] + ([f"--test={test}"] if test else [])
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunError(f"memcslap did not finish in {timeout} s")
    wall = time.monotonic() - t0
    m = SLAP_LINE.search(p.stdout)
    if p.returncode != 0 or not m:
        raise RunError(f"memcslap exit {p.returncode}: {(p.stderr or p.stdout).strip()[-200:]}")
    return int(m.group(2)), float(m.group(4)), wall


def profile_totals(path):
    """The profile's totals over all sites (tmkit_cli.report.profiles.row), children included."""
    profs = [report.load(p) for p in report.with_children([path])]
    prof = profs[0] if len(profs) == 1 else report.merge(profs)
    t = report.total(prof, os.path.basename(path))
    hz = prof.get("tsc_hz") or 0
    for k in ("serial_attempts", "irrevocable_switches", "uninstrumented_attempts"):
        t[k] = sum(s.get(k, 0) for s in prof["sites"])
    t["serial_wait_ms"] = sum(s.get("cycles_serial_wait", 0) for s in prof["sites"]) / hz * 1e3 \
        if hz else 0.0
    t["algorithm"] = prof.get("algorithm", "")
    return t
