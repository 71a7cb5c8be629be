"""The parts of `tmkit bench webcache` that talk to processes: one webcache server (start on a
free port, /_stats, stop), the two load clients (webcache-load and wrk, each printing JSON), and
the TM profile a tm build leaves behind."""
import json
import os
import re
import select
import signal
import subprocess
import urllib.request

from ..report import profiles as report


class PointError(Exception):
    pass


def system_libitm_dir():
    out = subprocess.run(["gcc", "-print-file-name=libitm.so.1"], capture_output=True,
                         text=True).stdout.strip()
    return os.path.dirname(os.path.realpath(out)) if os.path.isabs(out) else None


class Server:
    """One webcache process: started, asked for /_stats, stopped with SIGTERM."""

    def __init__(self, exe, args, env, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([exe] + args, stdout=subprocess.PIPE, stderr=self.log,
                                     env=env, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 15)
        line = self.proc.stdout.readline() if ready else ""
        m = re.search(r"listening on ([0-9.]+):(\d+)", line)
        if not m:
            self.stop()
            raise PointError(f"{os.path.basename(exe)} did not start (printed {line.strip()!r})"
                             + self.log_tail())
        self.base = f"http://{m.group(1)}:{m.group(2)}"

    def log_tail(self):
        """The server's last stderr lines, for failure messages."""
        try:
            with open(self.log.name) as f:
                lines = [ln.strip() for ln in f if ln.strip()]
        except OSError:
            return ""
        return "; stderr: " + " | ".join(lines[-3:]) if lines else ""

    def libitm(self):
        try:
            with open(f"/proc/{self.proc.pid}/maps") as f:
                for line in f:
                    if line.rstrip().endswith("libitm.so.1") or "/libitm.so" in line:
                        return os.path.realpath(line.split()[-1])
        except OSError:
            pass
        return ""

    def stats(self):
        with urllib.request.urlopen(self.base + "/_stats", timeout=10) as r:
            return json.loads(r.read().decode())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.proc.stdout.close()
        self.log.close()
        return rc


def tm_profile(path):
    """(starts, commits, aborts) summed over the profile and its forked children's."""
    starts = commits = aborts = 0
    for p in report.with_children([path]):
        prof = report.load(p)
        for s in prof["sites"]:
            starts += s.get("starts", 0)
            commits += s.get("commits", 0)
            aborts += sum(s.get(r, 0) for r in report.REASONS)
    return starts, commits, aborts


def run_load(bindir, urls, base, conns, duration):
    cmd = [os.path.join(bindir, "webcache-load"), "--url-file", urls, "--base", base,
           "--connections", str(conns), "--duration", str(duration), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    if p.returncode != 0:
        raise PointError(f"webcache-load exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def run_wrk(root, urls, base, conns, duration):
    script = os.path.join(root, "apps", "loadgen", "wl_wrk_urls.lua")
    cmd = ["wrk", "-t", "1", "-c", str(conns), "-d", f"{max(1, round(duration))}s", "-s", script,
           base, "--", urls]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    m = re.search(r"^wl_wrk (\{.*\})$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise PointError(f"wrk exit {p.returncode}: {(p.stderr or p.stdout).strip()[-200:]}")
    return json.loads(m.group(1))
