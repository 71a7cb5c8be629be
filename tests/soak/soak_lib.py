"""soak_lib.py — what the two soak drivers share: the server's memory and descriptors read
from /proc, a sampler thread, the flatness rule for resident memory, the failure list, and
the CSV/JSON a run leaves behind (docs/soak.md).

The flatness rule (RSS_GROWTH_PCT): warm-up is the first quarter of the run; the reference is
the median RSS of the last three samples of warm-up; after warm-up, the largest RSS over the
second half of the run must be at most RSS_GROWTH_PCT percent above the reference, plus
RSS_SLACK_KB (one allocator arena's trim threshold, so that a server whose RSS is small is not
failed by a few pages). The least-squares slope over everything after warm-up is reported
(KB per minute) next to it, so that a slow leak that stays under the bound in a short run still
shows in the figures.
"""
import csv
import json
import os
import statistics
import sys
import threading
import time

RSS_GROWTH_PCT = 10.0
RSS_SLACK_KB = 2048
WARMUP_FRACTION = 0.25


def proc_status(pid):
    """VmRSS, VmHWM (KB) and Threads of a process, from /proc/PID/status."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for ln in f:
            k, _, v = ln.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads"):
                out[k] = int(v.split()[0])
    if "VmRSS" not in out:  # a zombie: the process has exited
        raise FileNotFoundError(f"process {pid} has exited")
    return out


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Failures:
    """Named checks; the driver exits 1 if any failed."""

    def __init__(self, name):
        self.name, self.failed, self.count = name, [], 0

    def check(self, cond, what):
        self.count += 1
        if not cond:
            self.failed.append(what)
            print(f"FAIL {self.name}: {what}", file=sys.stderr, flush=True)
        return cond

    def eq(self, got, want, what):
        return self.check(got == want, f"{what}: got {got!r}, want {want!r}")

    def exit(self):
        print(f"{self.name}: {self.count - len(self.failed)}/{self.count} checks passed")
        sys.exit(1 if self.failed else 0)


class Sampler(threading.Thread):
    """Every `interval` seconds, one row: t (s since start), rss_kb, hwm_kb, threads, fds,
    plus what `extra()` returns (a dict; an exception there is recorded and the row kept)."""

    def __init__(self, pid, interval, extra, check_row=None):
        super().__init__(daemon=True)
        self.pid, self.interval, self.extra, self.check_row = pid, interval, extra, check_row
        self.rows, self.errors = [], []
        self.t0 = time.monotonic()
        self.stop_ev = threading.Event()

    def sample(self):
        st = proc_status(self.pid)
        row = {"t": round(time.monotonic() - self.t0, 2), "rss_kb": st["VmRSS"],
               "hwm_kb": st["VmHWM"], "threads": st["Threads"], "fds": open_fds(self.pid)}
        try:
            row.update(self.extra())
        except Exception as e:  # noqa: BLE001 — a failed sample is a finding, not a crash
            self.errors.append(f"t={row['t']}: {type(e).__name__}: {e}")
        self.rows.append(row)
        if self.check_row:
            self.check_row(row, self.rows)
        return row

    def run(self):
        while not self.stop_ev.is_set():
            try:
                self.sample()
            except FileNotFoundError:  # the server is gone: the driver reports it
                self.errors.append("server process gone")
                return
            self.stop_ev.wait(self.interval)

    def stop(self):
        self.stop_ev.set()
        self.join(30)


def rss_flatness(rows, duration):
    """The RSS figures of a run: reference at the end of warm-up, the second half's maximum,
    growth in percent, the slope after warm-up (KB/min), and whether it passes the bound."""
    warm_end = duration * WARMUP_FRACTION
    warm = [r for r in rows if r["t"] <= warm_end]
    after = [r for r in rows if r["t"] > warm_end]
    half = [r for r in rows if r["t"] >= duration / 2]
    if len(warm) < 3 or len(after) < 3 or not half:
        return {"ok": False, "why": f"too few samples ({len(warm)} in warm-up, {len(after)} after)"}
    ref = statistics.median(r["rss_kb"] for r in warm[-3:])
    peak = max(r["rss_kb"] for r in half)
    growth = 100.0 * (peak - ref) / ref
    xs = [r["t"] for r in after]
    ys = [r["rss_kb"] for r in after]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx * 60 if sxx else 0.0
    bound = ref * (1 + RSS_GROWTH_PCT / 100) + RSS_SLACK_KB
    return {"ok": peak <= bound, "rule": f"reference x {1 + RSS_GROWTH_PCT / 100:.2f} + "
            f"{RSS_SLACK_KB} KB", "warmup_end_s": round(warm_end, 1), "ref_kb": int(ref),
            "peak_second_half_kb": peak, "growth_pct": round(growth, 2),
            "bound_kb": int(bound), "slope_kb_per_min": round(slope, 1),
            "min_after_warmup_kb": min(ys), "max_after_warmup_kb": max(ys),
            "first_kb": rows[0]["rss_kb"], "last_kb": rows[-1]["rss_kb"]}


def write_outputs(rows, summary, csv_path, json_path):
    if csv_path:
        keys = []
        for r in rows:
            keys += [k for k in r if k not in keys]
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow(r)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


def print_curve(rows, every=None):
    """The RSS curve in a few lines (every n-th sample), for the test's log."""
    n = every or max(1, len(rows) // 12)
    pts = [f"{r['t']:.0f}s:{r['rss_kb'] / 1024:.1f}" for r in rows[::n]]
    print("RSS (MB) " + " ".join(pts))
