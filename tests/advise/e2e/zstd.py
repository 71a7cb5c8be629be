"""zstd through the advisor (`--program zstd`): a worker pool with condition variables.

Debian's libzstd source, the command-line program built with its Makefile's defaults
(multithreaded: -DZSTD_MULTITHREAD, -pthread) under `bear`; `tmkit advise --apply`; the
transactional tree built with the flags it wrote. Per TMKIT_ALGO x -T: a corpus (the source
tree as a tar, then the upstream tarball's incompressible bytes) compressed at two levels in
1 MiB jobs, so every worker gets some, must give the same bytes as the lock build's zstd with
the same arguments and decompress to the corpus. Per TMKIT_ALGO: zstd's own CLI suite,
tests/playTests.sh (it picks its own -T values), unless --no-suite. Then one profiled
compression and its `tmkit report`, and the table (check x configuration)."""
import filecmp
import glob
import os
import shutil
import subprocess
import tarfile
import time

import steps
import util
from steps import first_errors
from util import Failure, run, say

LEVELS = ("-3", "-9")


def main(a):
    steps.require(["bear", "make", "gcc", "readelf", "ldd", "md5sum"])
    e = os.path.join(a.work, "e2e-zstd")
    logs = os.path.join(e, "logs")
    os.makedirs(logs, exist_ok=True)
    t_all = time.monotonic()
    up, version = steps.fetch(a.root, a.work, "libzstd", "zstd-1.*")
    say(f"source: Debian libzstd {version}")
    # A tree of our own: real.sh builds only the library in the shared one (its database).
    src = os.path.join(e, "src")
    lock = os.path.join(src, "programs", "zstd")
    stamp = os.path.join(src, ".e2e-version")
    built = os.path.exists(lock) and os.path.exists(os.path.join(src, "compile_commands.json"))
    if not built or not os.path.exists(stamp) or open(stamp).read() != version:
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(os.path.join(e, "out"), ignore_errors=True)  # the lock build's outputs
        shutil.copytree(up, src, symlinks=True)
        log = os.path.join(logs, "baseline-build.log")
        say(f"baseline: bear -- make -C programs zstd -j{a.jobs} (log {log})")
        if run(["bear", "--", "make", f"-j{a.jobs}", "-C", "programs", "zstd"], src, log) or \
                run(["make", f"-j{a.jobs}", "-C", "tests", "datagen"], src, log):
            raise Failure("building the unmodified zstd failed:\n  " + "\n  ".join(first_errors(log)))
        with open(stamp, "w") as f:
            f.write(version)
    else:
        say("baseline: already built (cached)")
    if "ZSTD_MULTITHREAD" not in open(os.path.join(src, "compile_commands.json")).read():
        raise Failure("the lock build is not multithreaded (no -DZSTD_MULTITHREAD)")

    tm = os.path.join(e, "tm")
    if a.reuse_tree:
        say(f"advise: not run (--reuse-tree); {len(steps.changed_files(src, tm))} file(s) differ")
        adv = {"reused": True}
    else:
        adv = steps.advise(a.root, src, tm, os.path.join(e, "advise.json"),
                          os.path.join(logs, "advise.log"), None)
        say(f"advise: {adv['sections']} sections ({adv['pure']} pure, {adv['hybrid']} hybrid, "
            f"{adv['non-revocable']} non-revocable), {adv['rewritten']} rewritten; files "
            f"changed: {' '.join(adv['changed_files']) or '-'} ({adv['seconds']} s)")
    log = os.path.join(logs, "tm-build.log")
    if os.path.exists(log):
        os.remove(log)
    started = time.time()
    say(f"tm build: . ./tmkit-build.env && make -C programs zstd (log {log})")
    run(["make", "-C", "programs", "clean"], tm, log)
    if run(f". ./tmkit-build.env && make -j{a.jobs} -C programs zstd", tm, log, shell=True):
        raise Failure("the transactional zstd does not build (first errors; whole log "
                      f"{log}):\n  " + "\n  ".join(first_errors(log)))
    exe = os.path.join(tm, "programs", "zstd")
    if not os.path.exists(exe) or os.path.getmtime(exe) < started:
        raise Failure(f"make succeeded but did not link {exe} anew")
    needed, runpath, plain, _ = steps.libitm_of(exe, a.lib)
    say(f"tm build: ok; NEEDED libitm.so.1: {'yes' if needed else 'NO'}; run path "
        f"{runpath or '(none)'}; loads {plain or '(none)'}")
    if not needed:
        raise Failure(f"{exe} does not link libitm.so.1")
    lib = steps.snapshot_lib(a.lib, os.path.join(e, "lib"))

    corpus = make_corpus(up, e, version)
    # zstd's own CLI suite must pass on the lock build to be required of the transactional one
    # (cached per version, as memcached's baseline is).
    suite_base = None
    if not a.no_suite:
        bpath = os.path.join(e, "baseline.json")
        doc = util.load_json(bpath) or {}
        if doc.get("version") != version or a.rebaseline:
            say("baseline: tests/playTests.sh with the lock build's zstd (once per version)")
            doc = {"version": version,
                   "playTests.sh": suite(src, lock, dict(os.environ), e, logs, "lock",
                                         a.file_timeout)}
            util.save_json(bpath, doc)
        suite_base = doc["playTests.sh"]
        say(f"baseline: playTests.sh {suite_base} on the lock build" +
            ("" if suite_base == "ok" else " (so it is not required of the tm build)"))
    results, configs = {}, []
    for algo in a.algos:
        env = dict(os.environ, LD_LIBRARY_PATH=lib, TMKIT_ALGO=algo)
        for i, n in enumerate(a.threads):
            name = f"{algo} -T{n}"
            configs.append(name)
            results[name] = round_trip(lock, exe, corpus, n, env, e, logs, name)
            if i == 0 and suite_base == "ok":
                results[name]["playTests.sh"] = suite(src, exe, env, e, logs, algo,
                                                      a.file_timeout)
            say(f"{name}: " + ", ".join(f"{k} {v}" for k, v in results[name].items()))
    if not a.no_stats:
        prof = os.path.join(e, "profile.json")
        env = dict(os.environ, LD_LIBRARY_PATH=lib, TMKIT_ALGO=a.stats_algo, TMKIT_STATS=prof)
        subprocess.run([exe, "-q", "-f", "-T4", "-B1MiB", "-3", corpus, "-o",
                        os.path.join(e, "profiled.zst")], env=env)
        p = subprocess.run([os.path.join(a.root, "bin", "tmkit"), "report", prof],
                           capture_output=True, text=True)
        say(f"profile: TMKIT_ALGO={a.stats_algo} zstd -T4 -3 on the corpus; tmkit report:")
        print(p.stdout + p.stderr, flush=True)

    rows = sorted({k for r in results.values() for k in r}, key=lambda k: (k.startswith("play"), k))
    width = max(len(r) for r in rows)
    print()
    print(" ".join([f"{'check':<{width}}"] + [f"{c:>14}" for c in configs]))
    for r in rows:
        print(" ".join([f"{r:<{width}}"] + [f"{results[c].get(r, '-'):>14}" for c in configs]))
    bad = sum(v == "FAIL" for r in results.values() for v in r.values())
    with open(os.path.join(e, "results.csv"), "w") as f:
        f.write("check,algo,threads,status\n")
        for c in configs:
            algo, _, t = c.partition(" -T")
            for r in rows:
                if r in results[c]:
                    f.write(f"{r},{algo},{t},{results[c][r]}\n")
    total = round(time.monotonic() - t_all, 1)
    util.save_json(os.path.join(e, "result.json"), {"version": version, "advise": adv,
                                                    "results": results, "seconds": total})
    print(f"\nzstd {version}: {len(configs)} configurations; {bad} failure(s) of the "
          f"transactional build; {total} s (logs in {logs})")
    return 1 if bad else 0


def make_corpus(up, e, version):
    """The same bytes every run: the source tree as a tar with fixed names, times and owners,
    then the upstream tarball (already compressed: zstd stores most of it raw)."""
    path = os.path.join(e, f"corpus-{version}.bin")
    if os.path.exists(path):
        return path

    def fixed(info):
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        return info
    with tarfile.open(path + ".tar", "w", format=tarfile.USTAR_FORMAT) as t:
        for d in ("lib", "programs", "tests", "doc", "contrib"):
            for p in sorted(glob.glob(os.path.join(up, d, "**", "*"), recursive=True)):
                if os.path.isfile(p) and not os.path.islink(p):
                    t.add(p, arcname=os.path.relpath(p, up), recursive=False, filter=fixed)
    with open(path + ".tar", "ab") as out:
        for orig in sorted(glob.glob(os.path.join(os.path.dirname(up), "libzstd_*.orig.tar.xz"))):
            out.write(open(orig, "rb").read())
    os.replace(path + ".tar", path)
    say(f"corpus: {os.path.getsize(path) // 1024} KiB in {path}")
    return path


def round_trip(lock, exe, corpus, n, env, e, logs, name):
    """Per level: the transactional zstd's output equals the lock build's, and decompresses
    (by the transactional zstd too) to the corpus."""
    out, d = {}, os.path.join(e, "out")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(logs, name.replace(" ", "") + ".log")
    for lv in LEVELS:
        args = ["-q", "-f", f"-T{n}", "-B1MiB", lv]
        ref, got, back = (os.path.join(d, x) for x in (f"lock{lv}-T{n}.zst", "tm.zst", "tm.out"))
        if not os.path.exists(ref) and run([lock] + args + [corpus, "-o", ref], e, log):
            raise Failure(f"the lock build's zstd failed ({log})")
        rc = run([exe] + args + [corpus, "-o", got], e, log, env=env, timeout=600)
        same = not rc and filecmp.cmp(ref, got, shallow=False)
        rc = rc or run([exe, "-q", "-f", "-d", got, "-o", back], e, log, env=env, timeout=600)
        trip = not rc and filecmp.cmp(corpus, back, shallow=False)
        out[f"level {lv[1:]} round trip"] = "ok" if trip else "FAIL"
        out[f"level {lv[1:]} = lock bytes"] = "ok" if same else "FAIL"
    return out


def suite(src, exe, env, e, logs, algo, timeout):
    """zstd's tests/playTests.sh with the transactional zstd as ZSTD_BIN (the lock build's
    datagen makes its data)."""
    log = os.path.join(logs, f"playTests-{algo}.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(env, ZSTD_BIN=exe, DATAGEN_BIN=os.path.join(src, "tests", "datagen"))
    rc = run(["sh", "playTests.sh"], os.path.join(src, "tests"), log, env=env, timeout=timeout)
    return "ok" if rc == 0 else "FAIL"
