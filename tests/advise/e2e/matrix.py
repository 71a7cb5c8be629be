"""Running a program's own test files over configurations, and the table of the results.

A configuration is a name (e.g. `gl_wt -t2`) and a directory to run the files in; a file's
result is pass, fail or skip with its time and log. Files run `jobs` at a time, the longest
(by the baseline's times) first, so the last one to start is a short one."""
import concurrent.futures as cf
import os
import shutil
import time

from util import run, say

PASS, FAIL, SKIP = "pass", "fail", "skip"


def run_files(files, command, cwd, logdir, jobs, timeout, env=None, cost=None):
    """Runs command(file) in cwd for every file, jobs at a time. Returns {file: {status,
    seconds, log}}; a file's status is skip when it printed `skipped:` (prove's word) and
    exited 0."""
    cost = cost or {}
    order = sorted(files, key=lambda f: -cost.get(f, 0))

    def one(f):
        log = os.path.join(logdir, f.replace("/", "_") + ".log")
        if os.path.exists(log):
            os.remove(log)
        t = time.monotonic()
        rc = run(command(f), cwd, log, env=env, timeout=timeout)
        dt = round(time.monotonic() - t, 1)
        text = open(log, errors="replace").read()
        status = FAIL if rc else SKIP if "skipped:" in text else PASS
        return f, {"status": status, "seconds": dt, "log": log, "rc": rc}

    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, order))


def run_config(name, files, command, cwd, logdir, jobs, timeout, retries, cost, env=None):
    """One configuration: every file, then each failed file again up to `retries` times (one
    at a time). A file that fails and then passes is `flaky`: reported, and not a failure."""
    t = time.monotonic()
    shutil.rmtree(logdir, ignore_errors=True)  # a former run's logs, its retries' included
    res = run_files(files, command, cwd, logdir, jobs, timeout, env, cost)
    for _ in range(retries):
        failed = [f for f, r in res.items() if r["status"] == FAIL]
        if not failed:
            break
        again = run_files(failed, command, cwd, os.path.join(logdir, "retry"), 1, timeout, env)
        for f, r in again.items():
            if r["status"] != FAIL:
                r["status"] = "flaky"
                r["first_log"] = res[f]["log"]
                res[f] = r
    wall = round(time.monotonic() - t, 1)
    c = counts(res)
    say(f"{name}: {c[PASS]} pass, {c[FAIL]} fail, {c[SKIP]} skip, {c['flaky']} flaky "
        f"({wall} s)")
    return res, wall


def counts(res):
    c = {PASS: 0, FAIL: 0, SKIP: 0, "flaky": 0}
    for r in res.values():
        c[r["status"]] += 1
    return c


CELL = {PASS: "ok", FAIL: "FAIL", SKIP: "skip", "flaky": "flaky"}


def table(files, configs, results, lock_too=None):
    """Rows: files; columns: configurations, grouped under their first word (the algorithm)
    with the rest (`-t2`) below it. `FAIL*` marks a failure the unmodified build shows too
    with the same worker threads (lock_too: {(config, file)})."""
    lock_too = lock_too or set()
    width = max([len(f) for f in files] + [4])
    groups = []
    for c in configs:
        head, _, sub = c.partition(" ")
        if not groups or groups[-1][0] != head:
            groups.append((head, []))
        groups[-1][1].append((c, sub))
    # A column is 6 wide, wider when the algorithm's name would not fit over its columns.
    cells_w = {head: max(6, -(-(len(head) + 1) // len(cols))) for head, cols in groups}
    top, below = [" " * width], [f"{'file':<{width}}"]
    for head, cols in groups:
        cell = cells_w[head]
        span = cell * len(cols)
        top.append(f"{head:^{span}}")
        below.append("".join(f"{sub:>{cell}}" for _, sub in cols))
    lines = [" | ".join(top).rstrip(), " | ".join(below)]
    for f in files:
        row = [f"{f:<{width}}"]
        for head, cols in groups:
            cell = cells_w[head]
            cells = []
            for c, _ in cols:
                r = results.get(c, {}).get(f)
                text = "-" if r is None else CELL[r["status"]]
                cells.append(f"{text + ('*' if (c, f) in lock_too else ''):>{cell}}")
            row.append("".join(cells))
        lines.append(" | ".join(row))
    return lines
