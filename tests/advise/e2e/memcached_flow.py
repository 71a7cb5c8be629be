"""The steps of the memcached end-to-end test, in order (main.py describes them)."""
import glob
import os
import re
import shutil
import subprocess
import time

import matrix
import memcached as mc
import steps
import util
from util import Failure, say


def main(a):
    steps.require(["bear", "prove", "perl", "make", "gcc", "readelf", "ldd"],
                 [("/usr/include/event2/event.h", "libevent-dev")])
    e = os.path.join(a.work, "e2e-memcached")
    logs = os.path.join(e, "logs")
    os.makedirs(logs, exist_ok=True)
    t_all = time.monotonic()

    # 1. The source and the lock build, and which test files it passes.
    src, version = steps.fetch(a.root, a.work, "memcached", "memcached-1.*")
    say(f"source: Debian memcached {version} in {src}")
    mc.build_baseline(src, logs, a.jobs)
    feats = mc.features(src)
    say("configure defaults: " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in feats.items()))
    files = mc.test_files(src, a.files)
    base = baseline_results(a, e, src, version, feats, files, logs)
    passing = [f for f in files if base[f]["status"] == matrix.PASS]
    other = {f: base[f]["status"] for f in files if f not in passing}
    say(f"baseline: {len(passing)} of {len(files)} files pass; not required: " +
        (", ".join(f"{f} ({s})" for f, s in sorted(other.items())) or "none"))
    cost = {f: base[f]["seconds"] for f in files}

    # 2. The advisor writes the transactional tree.
    tm = os.path.join(e, "tm")
    if a.reuse_tree:
        adv = reused(e, src, tm)
    else:
        adv = advise(a, e, src, tm, logs)

    # 3. Its build, with the program's own flags.
    exe, warnings = mc.build_tm(tm, logs, a.jobs, clean=a.reuse_tree)
    needed, runpath, plain, forced = steps.libitm_of(exe, a.lib)
    say(f"tm build: ok ({warnings} warnings); memcached-debug NEEDED libitm.so.1: "
        f"{'yes' if needed else 'NO'}; run path {runpath or '(none)'}; loads {plain or '(none)'}")
    if not needed:
        raise Failure(f"{exe} does not link libitm.so.1 (is -fgnu-tm in the link flags?)")
    if os.path.realpath(plain or "/") != os.path.realpath(os.path.join(a.lib, "libitm.so.1")):
        say(f"note: without LD_LIBRARY_PATH it loads {plain or 'nothing'}, not {a.lib}; "
            "the runs set LD_LIBRARY_PATH")
    tmenv = {"LD_LIBRARY_PATH": steps.snapshot_lib(a.lib, os.path.join(e, "lib"))}

    # 4. The matrix.
    results, walls, lock_too, seen = {}, {}, set(), {}
    for algo in a.algos:
        for n in a.threads:
            name = f"{algo} -t{n}"
            d = mc.run_dir(os.path.join(e, "runs", f"{algo}-t{n}"), tm, exe,
                           dict(tmenv, TMKIT_ALGO=algo), n)
            say(f"{name}: {len(passing)} files, {a.jobs} at a time")
            results[name], walls[name] = matrix.run_config(
                name, passing, mc.prove, d, os.path.join(logs, f"{algo}-t{n}"), a.jobs,
                a.file_timeout, a.retries, cost)
            for r in results[name].values():
                if r["status"] == matrix.SKIP:  # it passed on the lock build: not applicable
                    r["status"], r["note"] = matrix.FAIL, "skipped itself on tmkit"
            lock_too |= on_lock_build(a, e, src, name, n, results[name], logs, seen)
            # After every configuration: a run stopped half way still leaves its results.
            util.save_json(os.path.join(e, "result.json"), {
                "version": version, "features": feats, "advise": adv, "baseline": base,
                "matrix": results, "walls": walls, "lock_too": sorted(map(list, lock_too)),
                "partial": True})

    # 5. One profiled run.
    if not a.no_stats:
        profile(a, e, tm, exe, tmenv, logs)

    # 6. The table.
    cols = list(results)
    print(flush=True)
    for line in matrix.table(passing, cols, results, lock_too):
        print(line)
    print()
    bad = 0
    for c in cols:
        n = matrix.counts(results[c])
        fails = [f for f, r in results[c].items() if r["status"] == matrix.FAIL]
        real = [f for f in fails if (c, f) not in lock_too]
        flaky = [f for f, r in results[c].items() if r["status"] == "flaky"]
        bad += len(real)
        print(f"{c:<18} {n['pass']:3} pass {n['fail']:3} fail {n['skip']:3} skip "
              f"{n['flaky']:3} flaky  {walls[c]:7.1f} s" +
              (f"  failed: {' '.join(real)}" if real else "") +
              (f"  also on the lock build: {' '.join(sorted(set(fails) - set(real)))}"
               if len(real) < len(fails) else "") +
              (f"  flaky: {' '.join(flaky)}" if flaky else ""))
    for c in cols:
        for f, r in sorted(results[c].items()):
            if r["status"] == matrix.FAIL and (c, f) not in lock_too:
                print(f"\n--- {c} {f} (log {r['log']}):")
                print("\n".join("  " + l for l in steps.failure_excerpt(r["log"])))
    total = round(time.monotonic() - t_all, 1)
    write_csv(os.path.join(e, "matrix.csv"), files, base, results, lock_too)
    util.save_json(os.path.join(e, "result.json"), {
        "version": version, "features": feats, "advise": adv, "baseline": base,
        "matrix": results, "walls": walls, "lock_too": sorted(map(list, lock_too)),
        "seconds": total})
    print(f"\nmemcached {version}: {len(passing)} baseline-passing files x {len(cols)} "
          f"configurations; {bad} failure(s) of the transactional build; {total} s "
          f"(summary in {e}/result.json)")
    return 1 if bad else 0


def advise(a, e, src, tm, logs):
    say(f"advise: tmkit advise -p {src} --entry {a.entry or '(all)'} --apply {tm}")
    adv = steps.advise(a.root, src, tm, os.path.join(e, "advise.json"),
                      os.path.join(logs, "advise.log"), a.entry)
    say(f"advise: {adv['sections']} sections ({adv['pure']} pure, {adv['hybrid']} hybrid, "
        f"{adv['non-revocable']} non-revocable), {adv['rewritten']} rewritten, "
        f"{adv['locks_removed']} of {adv['locks']} locks removed; "
        f"{len(adv['changed_files'])} file(s) changed: {' '.join(adv['changed_files']) or '-'} "
        f"({adv['seconds']} s)")
    if adv["said"]:
        say(f"advise said: {adv['said']}")
    copied = steps.elf_files(tm)
    if copied:
        say(f"note: --apply copied {len(copied)} linked program(s) of the lock build: "
            f"{' '.join(copied)} (make relinks them)")
    return adv


def reused(e, src, tm):
    """--reuse-tree: the tree as the last run (and whoever edited it since) left it."""
    if not os.path.exists(os.path.join(tm, "tmkit-build.env")):
        raise Failure(f"--reuse-tree: no transactional tree in {tm} (run once without it)")
    old = (util.load_json(os.path.join(e, "result.json")) or {}).get("advise", {})
    changed = steps.changed_files(src, tm)
    say(f"advise: not run (--reuse-tree); {tm} differs from the source in {len(changed)} "
        f"file(s): {' '.join(changed) or '-'}")
    return dict(old, changed_files=changed, reused=True)


def baseline_results(a, e, src, version, feats, files, logs):
    """The unmodified memcached-debug on its own test files, as configure built it (default
    worker threads); cached per source version and configuration."""
    path = os.path.join(e, "baseline.json")
    key = {"version": version, "features": feats}
    doc = util.load_json(path) or {}
    if doc.get("key") != key or a.rebaseline:
        doc = {"key": key, "files": {}}
    todo = [f for f in files if f not in doc["files"]]
    if todo:
        say(f"baseline: prove over {len(todo)} files, {a.jobs} at a time (once per source "
            "version: cached)")
        res, wall = matrix.run_config("baseline", todo, mc.prove, src,
                                      os.path.join(logs, "baseline"), a.jobs, a.file_timeout,
                                      0, {})
        doc["files"].update(res)
        doc.setdefault("walls", []).append(wall)
        util.save_json(path, doc)
    else:
        say(f"baseline: {len(files)} files' results cached in {path}")
    return doc["files"]


def on_lock_build(a, e, src, name, threads, res, logs, seen):
    """Each file that failed runs once more on the unmodified build with the same -t: a
    failure there too belongs to the program's configuration, not to tmkit. seen keeps the
    lock build's result per (threads, file) for the other algorithms."""
    failed = [f for f, r in res.items() if r["status"] == matrix.FAIL]
    todo = [f for f in failed if (threads, f) not in seen]
    if todo:
        d = mc.run_dir(os.path.join(e, "runs", f"lock-t{threads}"), src,
                       os.path.join(src, "memcached-debug"), {}, threads)
        say(f"lock build -t{threads}: {len(todo)} file(s) that failed on tmkit")
        lock = matrix.run_files(todo, mc.prove, d, os.path.join(logs, f"lock-t{threads}"),
                                a.jobs, a.file_timeout)
        seen.update({(threads, f): r["status"] for f, r in lock.items()})
    both = {(name, f) for f in failed if seen[(threads, f)] == matrix.FAIL}
    if both:
        say(f"{name}: fails on the lock build with -t{threads} too: "
            f"{' '.join(f for _, f in sorted(both))}")
    return both


def profile(a, e, tm, exe, tmenv, logs):
    """The transactional build under TMKIT_STATS (one profile per server: PATH.$$) on a few
    files, and `tmkit report --merge` of the profiles."""
    sdir = os.path.join(e, "stats")
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    files = mc.test_files(tm, a.stats_files)
    env = dict(tmenv, TMKIT_ALGO=a.stats_algo, TMKIT_STATS=os.path.join(sdir, "prof.$$.json"))
    d = mc.run_dir(os.path.join(e, "runs", "stats"), tm, exe, env, a.stats_threads)
    say(f"profile: TMKIT_ALGO={a.stats_algo} -t{a.stats_threads} TMKIT_STATS=<one per server> "
        f"over {' '.join(files)}")
    res = matrix.run_files(files, mc.prove, d, os.path.join(logs, "stats"), a.jobs,
                           a.file_timeout)
    say("profile: " + ", ".join(f"{f} {r['status']}" for f, r in sorted(res.items())))
    profiles = sorted(glob.glob(os.path.join(sdir, "prof.*.json")))
    if not profiles:
        say("profile: no server wrote a profile (did it run on tmkit?)")
        return
    p = subprocess.run([os.path.join(a.root, "bin", "tmkit"), "report", "--merge"] + profiles,
                       capture_output=True, text=True)
    say(f"profile: tmkit report --merge of {len(profiles)} server profile(s) in {sdir}:")
    print("\n".join(quiet_report(p.stdout + p.stderr, len(profiles))), flush=True)


def quiet_report(text, n):
    """`tmkit report --merge`'s table without its list of file names and without the rows of
    server processes that ran no transaction (the harness starts many, some only for -h)."""
    out, idle = [], 0
    for line in text.splitlines():
        if line.startswith("merged ") and ": " in line:
            line = f"merged {n} profiles: " + line.split(": ", 1)[1]
        elif re.match(r"pid \d+ \(.*\)\s+0\s", line):
            idle += 1
            continue
        out.append(line)
    if idle:
        out.append(f"({idle} server process(es) without transactions left out)")
    return out


def write_csv(path, files, base, results, lock_too):
    """One row per test file and configuration, the baseline's (the lock build at its default
    worker threads) first: file, build, algo, threads, status, seconds."""
    import csv
    with open(path + ".new", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "build", "algo", "threads", "status", "seconds"])
        for name in files:
            r = base[name]
            w.writerow([name, "lock", "", "default", r["status"], r["seconds"]])
        for c, res in results.items():
            algo, _, t = c.partition(" -t")
            for name in files:
                r = res.get(name)
                if r is None:
                    continue
                status = r["status"] + ("*" if (c, name) in lock_too else "")
                w.writerow([name, "tmkit", algo, t, status, r["seconds"]])
    os.replace(path + ".new", path)
