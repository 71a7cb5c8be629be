#!/usr/bin/env python3
"""Runs GCC's libitm testsuite (libitm/testsuite/libitm.c and libitm.c++) on tmkit and libitm.

Each test's DejaGnu directives are honoured as far as these tests need: dg-do, dg-options,
dg-additional-options, dg-additional-sources, dg-require-effective-target, dg-skip-if,
dg-xfail-run-if, dg-shouldfail, dg-output and dg-set-target-env-var; tests that check compiler
diagnostics (dg-error, dg-warning, ...) are skipped: they test GCC, not the runtime. Flags follow
the suite's .exp files: C tests default to -O2 (dg-options replaces it), C++ tests to no flags;
every compile adds -fgnu-tm and -I of the libitm source directory (for libitm.h).

A test is compiled once with the system gcc/g++ (linked against the system libitm, whose ABI
tmkit exports) and run under every tmkit algorithm (LD_LIBRARY_PATH=<build>/lib, TMKIT_ALGO) and
under the system libitm (the reference). An outcome matches when it is what DejaGnu expects:
PASS, or XFAIL for an expected failure. Exit status 1 when any tmkit run does not match.
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import subprocess
import sys
import time

TRIPLET = "x86_64-pc-linux-gnu"
ALGOS = ["adaptive", "norec", "orec_lazy", "orec_eager", "gl_wt", "serialirr", "htm",
         "adaptive_all"]
DIAGNOSTIC = {"dg-error", "dg-warning", "dg-message", "dg-bogus", "dg-excess-errors",
              "dg-ice", "dg-note"}
IGNORED = {"dg-final", "dg-prune-output"}  # accepted only when nothing in them needs running


def tcl_list(s):
    """Splits a Tcl list: words, {braced} and "quoted" elements (no substitution)."""
    out, i, n = [], 0, len(s)
    while i < n:
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            break
        if s[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            if depth:
                raise ValueError(f"unbalanced braces in {s!r}")
            out.append(s[i + 1:j - 1])
            i = j
        elif s[i] == '"':
            j = s.find('"', i + 1)
            if j < 0:
                raise ValueError(f"unbalanced quote in {s!r}")
            out.append(s[i + 1:j])
            i = j + 1
        else:
            j = i
            while j < n and not s[j].isspace():
                j += 1
            out.append(s[i:j])
            i = j
    return out


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


class Unsupported(Exception):
    """The test cannot run here; the message says why."""


class Env:
    def __init__(self, lang):
        self.lang = lang
        self.flags = cpu_flags()

    def effective_target(self, name):
        always = {"pthread", "lp64", "tls", "tls_runtime", "fgnu_tm", "native", "shared",
                  "fpic", "nonpic", "signal", "mmap", "sync_int_long", "cas_int"}
        if name in always:
            return True
        if name in ("ilp32", "x32"):
            return False
        if name in ("c++", "c++11", "c++14", "c++17"):
            return self.lang == "c++"
        if name == "c":
            return self.lang == "c"
        cpu = {"avx": "avx", "avx_runtime": "avx", "avx2": "avx2", "avx2_runtime": "avx2",
               "rtm": "rtm", "sse2": "sse2", "sse4": "sse4_1", "avx512f": "avx512f"}
        if name in cpu:
            return cpu[name] in self.flags
        raise Unsupported(f"unknown effective target '{name}'")

    def selector(self, text):
        """Evaluates a DejaGnu target selector: triplet globs, effective targets, ! && ||."""
        toks = tcl_list(text)
        if len(toks) == 1 and toks[0] != text.strip():
            return self.selector(toks[0])  # one braced element
        if not any(t in ("!", "&&", "||") for t in toks):
            return any(self.atom(t) for t in toks)
        value, op, negate = None, None, False
        for t in toks:
            if t == "!":
                negate = not negate
                continue
            if t in ("&&", "||"):
                op = t
                continue
            v = self.selector(t) if (" " in t.strip()) else self.atom(t)
            v = (not v) if negate else v
            negate = False
            if value is None:
                value = v
            elif op == "&&":
                value = value and v
            elif op == "||":
                value = value or v
            else:
                raise ValueError(f"bad selector {text!r}")
        return bool(value)

    def atom(self, t):
        t = t.strip()
        if " " in t:
            return self.selector(t)
        if "-" in t or "*" in t:
            return fnmatch.fnmatchcase(TRIPLET, t)
        return self.effective_target(t)


def parse(path, env):
    """Reads the test's directives into a plan (a dict) or raises Unsupported."""
    lang = env.lang
    plan = {"do": "run", "options": "-O2" if lang == "c" else "", "additional": [],
            "sources": [], "xfail": None, "shouldfail": False, "output": [], "env": {},
            "directives": []}
    pat = re.compile(r"\{\s+(dg-[-a-z]+)(\s.*)?\s+\}")
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        m = pat.search(line)
        if not m:
            continue
        name, args = m.group(1), tcl_list(m.group(2) or "")
        plan["directives"].append(line.strip())
        if name in DIAGNOSTIC:
            raise Unsupported(f"{name}: checks GCC's diagnostics, not the runtime")
        if name in IGNORED:
            raise Unsupported(f"{name} is not implemented by this runner")
        if name == "dg-do":
            plan["do"] = args[0]
            if plan["do"] not in ("run", "compile", "link", "assemble", "preprocess"):
                raise Unsupported(f"dg-do {plan['do']}")
            if len(args) > 1:
                kind, sel = tcl_list(args[1])[0], " ".join(tcl_list(args[1])[1:])
                if kind == "target" and not env.selector(sel):
                    raise Unsupported(f"dg-do target selector {{{sel}}} excludes {TRIPLET}")
                if kind == "xfail" and env.selector(sel):
                    plan["xfail"] = "dg-do xfail"
        elif name in ("dg-options", "dg-additional-options"):
            if len(args) > 1 and not env.selector(tcl_list(args[1])[-1]):
                continue
            if name == "dg-options":
                plan["options"] = args[0]
            else:
                plan["additional"].append(args[0])
        elif name == "dg-additional-sources":
            plan["sources"] += args[0].split()
        elif name == "dg-require-effective-target":
            if len(args) > 1 and not env.selector(tcl_list(args[1])[-1]):
                continue
            if not env.effective_target(args[0]):
                raise Unsupported(f"effective target '{args[0]}' not available on this machine")
        elif name in ("dg-skip-if", "dg-xfail-run-if"):
            msg, sel = args[0], args[1] if len(args) > 1 else "*-*-*"
            include = args[2] if len(args) > 2 else "*"
            exclude = args[3] if len(args) > 3 else ""
            if not env.selector(sel) or not options_match(plan, include, exclude):
                continue
            if name == "dg-skip-if":
                raise Unsupported(f"dg-skip-if \"{msg}\" (GCC's own suite skips it)")
            plan["xfail"] = f"dg-xfail-run-if \"{msg}\""
        elif name == "dg-shouldfail":
            if len(args) > 1 and not env.selector(args[1]):
                continue
            plan["shouldfail"] = True
        elif name == "dg-output":
            if len(args) > 1 and not env.selector(tcl_list(args[1])[-1]):
                continue
            plan["output"].append(args[0])
        elif name == "dg-set-target-env-var":
            plan["env"][args[0]] = args[1]
        else:
            raise Unsupported(f"directive {name} is not implemented by this runner")
    return plan


def options_match(plan, include, exclude):
    flags = (plan["options"] + " " + " ".join(plan["additional"])).split()
    inc = [w for x in tcl_list(include) for w in x.split()]
    exc = [w for x in tcl_list(exclude) for w in x.split()]
    if inc and "*" not in inc and not any(f in flags for f in inc):
        return False
    return not any(f in flags for f in exc)


def compile_test(src, plan, args, lang, outdir):
    name = os.path.basename(src)
    exe = os.path.join(outdir, name + ".exe")
    cc = "g++" if lang == "c++" else "gcc"
    srcs = [src] + [os.path.join(os.path.dirname(src), s) for s in plan["sources"]]
    cmd = [cc, "-fgnu-tm", "-fmessage-length=0", "-fdiagnostics-color=never",
           "-I" + args.libitm_dir]
    cmd += plan["options"].split()
    for a in plan["additional"]:
        cmd += a.split()
    if plan["do"] == "compile":
        cmd += ["-S", src, "-o", exe + ".s"]
    else:
        # --no-as-needed: the runtime under test is loaded (and initialised) even by the few
        # tests that make no _ITM_ call (eh-2.C, eh-3.C, libstdc++-pr91488.C).
        cmd += ["-Wl,--no-as-needed"]
        if lang == "c++":
            cmd += ["-shared-libgcc"]
        cmd += srcs + ["-o", exe]
        if lang == "c++":
            cmd += ["-lstdc++"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip()
    return cmd, p.returncode, out, exe


def run_once(exe, runtime, plan, args):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TMKIT_") and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD",
                                                          "ITM_DEFAULT_METHOD")}
    if runtime != "libitm":
        env["LD_LIBRARY_PATH"] = args.lib
        env["TMKIT_ALGO"] = "adaptive" if runtime == "adaptive_all" else runtime
        if runtime == "adaptive_all":
            env["TMKIT_ADAPTIVE_MODES"] = "all"
    env.update(plan["env"])
    start = time.monotonic()
    try:
        p = subprocess.run([exe], env=env, capture_output=True, timeout=args.timeout,
                           cwd=os.path.dirname(exe))
        status, output = p.returncode, (p.stdout + p.stderr).decode(errors="replace")
        timed_out = False
    except subprocess.TimeoutExpired as e:
        status, timed_out = None, True
        output = ((e.stdout or b"") + (e.stderr or b"")).decode(errors="replace")
    secs = time.monotonic() - start
    ok = (status == 0)
    why = ("timeout after %ds" % args.timeout if timed_out else
           "" if ok else ("killed by signal %d" % -status if status < 0 else "exit %d" % status))
    if plan["shouldfail"] and not timed_out:
        ok, why = (not ok), ("exited 0 but dg-shouldfail" if ok else "")
    if ok and plan["output"]:
        regex = "".join(plan["output"])
        if not re.search(regex, output, re.S):
            ok, why = False, "output does not match dg-output"
    if plan["xfail"]:
        result = "XPASS" if ok else "XFAIL"
    else:
        result = "PASS" if ok else "FAIL"
    return {"result": result, "match": result in ("PASS", "XFAIL"), "why": why,
            "secs": round(secs, 3), "tail": output[-600:]}


def check_loads_tmkit(exe, args):
    """The tmkit runs must really load <build>/lib/libitm.so.1."""
    env = dict(os.environ, LD_LIBRARY_PATH=args.lib)
    p = subprocess.run(["ldd", exe], env=env, capture_output=True, text=True)
    want = os.path.realpath(os.path.join(args.lib, "libitm.so.1"))
    for line in p.stdout.splitlines():
        if "libitm.so.1" in line and "=>" in line:
            got = line.split("=>")[1].split("(")[0].strip()
            return os.path.realpath(got) == want, got
    return False, "no libitm.so.1 in ldd output"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libitm-dir", required=True, help="libitm source dir (holds testsuite/)")
    ap.add_argument("--lib", required=True, help="directory holding tmkit's libitm.so.1")
    ap.add_argument("--work", required=True, help="directory for binaries and results")
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run")
    ap.add_argument("--only", action="append", help="run only this test file name")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each test this many times per runtime; any mismatch counts")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every outcome here (default WORK/results.json)")
    args = ap.parse_args()
    args.lib = os.path.abspath(args.lib)
    os.makedirs(args.work, exist_ok=True)
    runtimes = [a for a in args.algos.split(",") if a] + ["libitm"]
    ts = os.path.join(args.libitm_dir, "testsuite")
    tests = []
    for sub, ext, lang in (("libitm.c", ".c", "c"), ("libitm.c++", ".C", "c++")):
        d = os.path.join(ts, sub)
        tests += [(os.path.join(d, f), lang) for f in sorted(os.listdir(d)) if f.endswith(ext)]
    if args.only:
        tests = [t for t in tests if os.path.basename(t[0]) in args.only]
        if not tests:
            print("FAIL: no test named", args.only)
            return 1
    if not tests:
        print("FAIL: no tests found under", ts)
        return 1

    results, jobs = [], []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    for src, lang in tests:
        name = os.path.relpath(src, ts)
        rec = {"test": name, "runs": {}}
        results.append(rec)
        try:
            plan = parse(src, Env(lang))
        except Unsupported as e:
            rec.update(status="UNSUPPORTED", why=str(e))
            continue
        rec["do"], rec["xfail"], rec["shouldfail"] = plan["do"], plan["xfail"], plan["shouldfail"]
        cmd, rc, out, exe = compile_test(src, plan, args, lang, args.work)
        rec["compile"] = " ".join(cmd)
        if rc != 0 or out:
            # DejaGnu: a failed compile, or any compiler output ("excess errors"), is a FAIL.
            rec.update(status="COMPILE-FAIL", why=out[-800:] or f"exit {rc}")
            continue
        if plan["do"] != "run":
            rec.update(status="PASS", why=f"dg-do {plan['do']}: nothing to run")
            continue
        ok, got = check_loads_tmkit(exe, args)
        if not ok:
            rec.update(status="SETUP-FAIL", why=f"tmkit runs would load {got}")
            continue
        rec["status"] = "RUN"
        for rt in runtimes:
            for _ in range(args.repeat):
                jobs.append((rec, rt, pool.submit(run_once, exe, rt, plan, args)))
    for rec, rt, fut in jobs:
        run, prev = fut.result(), rec["runs"].get(rt)
        run["mismatches"] = (0 if run["match"] else 1) + (prev["mismatches"] if prev else 0)
        run["repeats"] = 1 + (prev["repeats"] if prev else 0)
        if prev and (run["match"] or not prev["match"]):
            prev.update(mismatches=run["mismatches"], repeats=run["repeats"])
        else:  # the first run, or the first mismatch: this one is reported
            rec["runs"][rt] = run
    pool.shutdown()

    # Report: one line per test, one column per runtime.
    short = {"PASS": "pass", "XFAIL": "xfail", "FAIL": "FAIL", "XPASS": "XPASS"}
    width = max(len(r["test"]) for r in results)
    print("test".ljust(width), " ".join(rt[:12].ljust(12) for rt in runtimes))
    bad = []
    for r in results:
        if r["status"] != "RUN":
            print(r["test"].ljust(width), r["status"], "-", r["why"].splitlines()[0]
                  if r["why"] else "")
            if r["status"] in ("COMPILE-FAIL", "SETUP-FAIL"):
                bad.append((r["test"], "all", r["status"], r["why"]))
            continue
        cells = []
        for rt in runtimes:
            run = r["runs"][rt]
            cell = short[run["result"]]
            if run["mismatches"] and run["repeats"] > 1:
                cell += f" {run['mismatches']}/{run['repeats']}"
            cells.append(cell.ljust(12))
        print(r["test"].ljust(width), " ".join(cells))
        for rt in runtimes:
            run = r["runs"][rt]
            if not run["match"] and rt != "libitm":
                bad.append((r["test"], rt, run["result"], run["why"]))
    counts = {}
    for rt in runtimes:
        c = {"match": 0, "mismatch": 0}
        for r in results:
            if r["status"] == "RUN":
                c["match" if r["runs"][rt]["match"] else "mismatch"] += 1
        counts[rt] = c
    skipped = sum(1 for r in results if r["status"] == "UNSUPPORTED")
    compiled_only = sum(1 for r in results if r["status"] == "PASS")
    print(f"\n{len(results)} tests: {sum(1 for r in results if r['status'] == 'RUN')} run, "
          f"{compiled_only} compile-only passed, {skipped} unsupported")
    for rt in runtimes:
        print(f"  {rt}: {counts[rt]['match']} as expected, {counts[rt]['mismatch']} not")
    for r in results:
        if r["status"] == "RUN" and not r["runs"]["libitm"]["match"]:
            run = r["runs"]["libitm"]
            print(f"note: the reference libitm gives {run['result']} on {r['test']} ({run['why']})")
    for test, rt, res, why in bad:
        reps = ""
        for r in results:
            if r["test"] == test and rt in r.get("runs", {}) and r["runs"][rt]["repeats"] > 1:
                reps = f", {r['runs'][rt]['mismatches']} of {r['runs'][rt]['repeats']} runs"
        print(f"FAIL: {test} under {rt}: {res} ({why}{reps})")
        for r in results:
            if r["test"] == test and rt in r.get("runs", {}):
                tail = r["runs"][rt]["tail"].strip()
                if tail:
                    print("    | " + "\n    | ".join(tail.splitlines()[-8:]))
    out = args.json or os.path.join(args.work, "results.json")
    with open(out, "w") as f:
        json.dump({"runtimes": runtimes, "timeout": args.timeout, "repeat": args.repeat,
                   "results": results}, f,
                  indent=1)
    print(f"results: {out}")
    if bad:
        return 1
    print("libitm-suite: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
