#!/usr/bin/env python3
"""advise on tmkit's own lock-based workload: the webcache `lock` build (apps/webcache).

usage: webcache.py ROOT BUILD_DIR LIBITM [NOCACHE_BINARY]

Uses BUILD_DIR/compile_commands.json (the top-level CMake exports it) with --entry webcache-lock:
  1. `--json --verify`: exit 0; the five cache operations are found, pure, one group, rewritten
     as __transaction_atomic and GCC agrees; the two per-client-count sections (clients.c) are
     pure too; of the eleven sections under an epoll set's lock (io.c, io_accept.c) the eight
     that call out, do I/O or read the stopping flag atomically are non-revocable (group locks),
     the event claim and the loop's timeout computation hybrid (group enter + transaction), and
     the /_stats publishing check, whose data no non-revocable section touches, pure;
  2. `--patch`: the diff applies with patch -p1 to a copy of the tree and touches cache.c,
     clients.c, io.c and io_accept.c;
  3. the patched cache compiled with gcc -fgnu-tm (-Werror) and linked against LIBITM (tmkit's
     libitm.so.1) passes the cache unit test and a short concurrent stress;
  4. with NOCACHE_BINARY: the whole patched server is built the same way and the HTTP suite
     (tests/webcache/test_http.py) runs against it on tmkit's NOrec, checking that the mapped
     libitm is tmkit's and that transactions commit without going serial-irrevocable.
Prints the numbers docs/advise.md records.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CACHE_OPS = ["wc_cache_lookup", "wc_cache_insert", "wc_cache_release", "wc_cache_get_stats",
             "wc_cache_victim"]
CLIENT_OPS = ["wc_clients_add", "wc_clients_del"]
# the epoll set's bookkeeping (lock struct wc_io::mu): name -> (file, classes in line order)
NR, HY = "non-revocable", "hybrid"
IO_OPS = {"wc__close": ("io.c", [NR, NR]), "wc__run": ("io.c", [NR]), "wc__event": ("io.c", [HY]),
          "wc__expire": ("io.c", [NR]), "wc__shed": ("io.c", [NR]),
          "wc_io_loop": ("io.c", [HY, NR, "pure"]), "wc_io_accept": ("io_accept.c", [NR]),
          "wc__adopt": ("io_accept.c", [NR])}
CONSTRUCT = {NR: "tm_group_lock", HY: "tm_group_enter", "pure": "__transaction_atomic"}
CACHE_LOCK, CLIENT_LOCK, IO_LOCK = "struct wc_cache::lock", "struct wc_clients::mu", "struct wc_io::mu"


def sources(root):
    """The server's sources, as apps/webcache/CMakeLists.txt lists them (WC_SOURCES)."""
    with open(os.path.join(root, "apps", "webcache", "CMakeLists.txt")) as fh:
        m = re.search(r"set\(WC_SOURCES([^)]*)\)", fh.read())
    return m.group(1).split()
# The lock build's flags (apps/webcache/CMakeLists.txt) plus -fgnu-tm, warnings as errors except
# -Wclobbered: _ITM_beginTransaction returns twice, and GCC warns that the parameter `e` of
# wc_cache_release "might be clobbered"; it is never assigned, so a restart cannot change it.
CFLAGS = ["-DWC_SYNC_LOCK", "-DWC_USE_CACHE=1", "-O2", "-g", "-pthread", "-fgnu-tm", "-Wall",
          "-Wextra", "-Wno-unused-parameter", "-Werror", "-Wno-clobbered"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(cmd, what, **kw):
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(f"FAIL: {what}: {' '.join(cmd)} exited {r.returncode}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        sys.exit(1)
    return r, time.monotonic() - t


def check_pure(s, w, lock, file):
    check(s["file"].endswith(file), f"{w}: file {s['file']}")
    check(s["locks"] == [lock], f"{w}: locks {s['locks']}")
    check(s["class"] == "pure", f"{w}: class {s['class']}, expected pure")
    check(s["blockers"] == [], f"{w}: blockers {[b['kind'] for b in s['blockers']]}")
    check(s["irrevocable"] == "never", f"{w}: irrevocable {s['irrevocable']}")
    check({k: v for k, v in s["patch"].items() if k != "groups"} ==
          {"eligible": True, "construct": "__transaction_atomic"}, f"{w}: patch {s['patch']}")
    v = s.get("verify", {})
    check(v.get("agree") is True and "accepted" in v.get("gcc", ""), f"{w}: verify {v}")


def lock_build_text(src):
    """The part of a source the lock build compiles: `#ifdef WC_SYNC_TM` branches (TM-only code,
    which the advisor never sees and the patch leaves alone) dropped, up to their #else/#endif."""
    out, skip = [], False
    for line in src.splitlines():
        t = line.strip()
        if t.startswith("#ifdef WC_SYNC_TM"):
            skip = True
        elif skip and t.startswith(("#else", "#endif")):
            skip = False
        elif not skip:
            out.append(line)
    return "\n".join(out)


def check_report(doc):
    secs = doc["sections"]
    check(len(secs) == 18, f"{len(secs)} sections, expected 18")
    by_fn = {}
    for s in secs:
        by_fn.setdefault(s["function"], []).append(s)
    groups = set()
    for fn in CACHE_OPS:
        if check(len(by_fn.get(fn, [])) == 1, f"{fn}: expected one section"):
            s = by_fn[fn][0]
            check_pure(s, f"{fn}:{s['line']}", CACHE_LOCK, "apps/webcache/cache.c")
            groups.add(s["component"])
    check(len(groups) == 1, f"cache sections in components {sorted(groups)}, expected one")
    for fn in CLIENT_OPS:
        if check(len(by_fn.get(fn, [])) == 1, f"{fn}: expected one section"):
            s = by_fn[fn][0]
            check_pure(s, f"{fn}:{s['line']}", CLIENT_LOCK, "apps/webcache/clients.c")
    for fn, (file, classes) in IO_OPS.items():
        got = sorted(by_fn.get(fn, []), key=lambda s: s["line"])
        if not check(len(got) == len(classes), f"{fn}: expected {len(classes)} section(s)"):
            continue
        for s, cls in zip(got, classes):
            w = f"{fn}:{s['line']}"
            check(s["file"].endswith("apps/webcache/" + file), f"{w}: file {s['file']}")
            check(s["locks"] == [IO_LOCK], f"{w}: locks {s['locks']}")
            check(s["class"] == cls, f"{w}: class {s['class']}, expected {cls}")
            check(s["patch"].get("eligible") is True and
                  CONSTRUCT[cls] in s["patch"].get("construct", ""), f"{w}: patch {s['patch']}")
            if cls == NR:
                check(s["blockers"] != [], f"{w}: non-revocable without a blocker")
            else:
                check(s["blockers"] == [], f"{w}: blockers {s['blockers']}")
    locks = {l["name"]: l for l in doc["locks"]}
    for name, removable in ((CACHE_LOCK, True), (CLIENT_LOCK, True), (IO_LOCK, True)):
        check(locks.get(name, {}).get("removable") is removable, f"{name}: {locks.get(name)}")
    check(doc["lock_order"] == [] and doc["cycles"] == [] and doc["unbalanced"] == [],
          "lock order, cycles or unbalanced operations found")


def build_and_run_cache(src, root, libitm, tmp):
    """The patched cache (-fgnu-tm) under the unit test and the stress, on tmkit's libitm."""
    libdir = os.path.dirname(os.path.realpath(libitm))
    link = [libitm, f"-Wl,-rpath,{libdir}", "-pthread"]
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    out = {}
    for name, args in (("test_cache", []), ("test_cache_stress", ["4", "1500"])):
        exe = os.path.join(tmp, name)
        run(["gcc", *CFLAGS, "-I", src, os.path.join(root, "tests", "webcache", name + ".c"),
             os.path.join(src, "cache.c"), os.path.join(src, "cache_entry.c"), "-o", exe, *link],
            f"compile {name} with the patched cache")
        r, t = run([exe, *args], f"{name} on the patched cache", env=env, timeout=60)
        out[name] = t
        print(f"  {name}: {r.stdout.strip().splitlines()[-1] if r.stdout.strip() else 'ok'} ({t:.1f}s)")
    return out


def build_and_run_server(src, root, libitm, nocache, tmp):
    libdir = os.path.dirname(os.path.realpath(libitm))
    exe = os.path.join(tmp, "webcache-lock-tm")
    t = time.monotonic()
    objs = []
    procs = []
    srcs = sources(root)
    for f in srcs:  # two at a time (2 shared cores)
        o = os.path.join(tmp, f + ".o")
        objs.append(o)
        procs.append(subprocess.Popen(["gcc", *CFLAGS, "-I", src, "-I", os.path.join(root, "include"),
                                       "-c", os.path.join(src, f), "-o", o],
                                      stderr=subprocess.PIPE, text=True))
        if len(procs) == 2 or f == srcs[-1]:
            for p in procs:
                err = p.communicate()[1]
                if p.returncode:
                    print(f"FAIL: compiling the patched server: {err[-3000:]}")
                    sys.exit(1)
            procs = []
    run(["gcc", *objs, "-o", exe, libitm, f"-Wl,-rpath,{libdir}", "-pthread", "-lz"],
        "link the patched server")
    tb = time.monotonic() - t
    # EXPECT_LIBITM: the server maps tmkit's libitm; TM_STATS: its transactions commit and none
    # goes serial-irrevocable (NOrec instruments every transaction).
    env = dict(os.environ, LD_LIBRARY_PATH=libdir, EXPECT_LIBITM=libdir, TM_STATS="1",
               TMKIT_ALGO="norec")
    r, th = run([sys.executable, os.path.join(root, "tests", "webcache", "test_http.py"), "http", exe,
                 "--ref", nocache], "HTTP suite on the patched server", env=env, timeout=120)
    lines = r.stdout.strip().splitlines()
    print(f"  patched server: built in {tb:.1f}s; HTTP suite (norec, TM_STATS): "
          f"{lines[-1] if lines else 'ok'} ({th:.1f}s)")


def main():
    root, build, libitm = sys.argv[1:4]
    nocache = sys.argv[4] if len(sys.argv) > 4 else None
    root, build = os.path.realpath(root), os.path.realpath(build)
    if not os.path.exists(os.path.join(build, "compile_commands.json")):
        print(f"FAIL: no {build}/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS)")
        return 1
    tmk = os.path.join(root, "bin", "tmkit")
    tmp = tempfile.mkdtemp(prefix="advise-webcache-")
    try:
        base = [tmk, "advise", "-p", build, "--entry", "webcache-lock"]
        report = os.path.join(tmp, "report.json")
        _, tv = run(base + ["--json", "--verify", "-o", report], "advise --verify", cwd=root)
        with open(report) as fh:
            doc = json.load(fh)
        check_report(doc)
        diff = os.path.join(tmp, "webcache.diff")
        _, tp = run(base + ["--patch", "-o", diff], "advise --patch", cwd=root)
        with open(diff) as fh:
            text = fh.read()
        files = re.findall(r"^\+\+\+ b/(\S+)", text, re.M)
        check(sorted(files) == ["apps/webcache/cache.c", "apps/webcache/clients.c",
                                "apps/webcache/io.c", "apps/webcache/io_accept.c"],
              f"the diff touches {files}")
        added = [l for l in text.splitlines() if l.startswith("+") and not l.startswith("+++")]
        removed = [l for l in text.splitlines() if l.startswith("-") and not l.startswith("---")]
        # copy the tree the diff applies to
        tree = os.path.join(tmp, "tree")
        shutil.copytree(os.path.join(root, "apps", "webcache"), os.path.join(tree, "apps", "webcache"))
        run(["patch", "-p1", "-d", tree, "-i", diff], "patch -p1")
        src = os.path.join(tree, "apps", "webcache")
        with open(os.path.join(src, "cache.c")) as fh:
            patched = fh.read()
        patched = lock_build_text(patched)
        check(patched.count("__transaction_atomic {") == 5, "patched cache.c: not 5 atomic blocks")
        check("WC_CS_BEGIN" not in patched and "WC_CS_END" not in patched,
              "patched cache.c still has WC_CS_BEGIN/WC_CS_END")
        for f, enters, locks in (("io.c", 2, 6), ("io_accept.c", 0, 2)):
            with open(os.path.join(src, f)) as fh:
                patched = fh.read()
            check("pthread_mutex_lock(&io->mu)" not in patched and
                  patched.count("tm_group_enter(") == enters and
                  patched.count("tm_group_lock(") == locks,
                  f"patched {f}: not {enters} group enters + {locks} group locks")
        s = doc["summary"]
        print(f"ok: {s['sections']} sections ({s['pure']} pure, {s['hybrid']} hybrid, "
              f"{s['non-revocable']} non-revocable) in {len(doc['files'])} files, {s['lines']} lines; "
              f"diff {len(files)} files, +{len(added)} -{len(removed)} lines; verify: "
              f"{sum(1 for x in doc['sections'] if x.get('verify', {}).get('agree'))} agree; "
              f"advise --json --verify {tv:.1f}s (inside: "
              + ", ".join(f"{k} {v:.2f}s" for k, v in doc["timing"].items()) + f"), --patch {tp:.1f}s")
        build_and_run_cache(src, root, libitm, tmp)
        if nocache:
            build_and_run_server(src, root, libitm, nocache, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
