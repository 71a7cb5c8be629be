"""memcached through the advisor: Debian's source as it comes, its own test suite as the judge.

memcached's harness (t/lib/MemcachedTest.pm) takes the working directory as the build
directory and starts `<cwd>/memcached-debug` (through `<cwd>/timedrun`) with the arguments each
test chooses. So a configuration runs in a directory of its own that links every entry of the
build tree except `memcached-debug`, which is a two-line shell script: it sets the
configuration's environment (TMKIT_ALGO, the library path) and `exec`s the real binary with
`-t N` first, so the pid the harness kills is the server's, and a test that passes its own
`-t` (00-startup.t's `-t 0`, conn-limits.t's `-t 32`) still has the last word. memcached's test
files and harness are not touched."""
import glob
import os
import re
import shutil

from steps import first_errors
from util import Failure, run, say

FEATURES = {"EXTSTORE": "extstore", "PROXY": "proxy", "TLS": "TLS", "ENABLE_SASL": "SASL"}


def features(tree):
    """Which optional parts configure's defaults turned on (from config.h)."""
    text = open(os.path.join(tree, "config.h"), errors="replace").read()
    return {name: bool(re.search(rf"^#define {macro} 1", text, re.M))
            for macro, name in FEATURES.items()}


def build_baseline(tree, logs, jobs):
    """configure with its defaults and `bear -- make`: the lock build and its compile
    database (kept between runs)."""
    exe = os.path.join(tree, "memcached-debug")
    if os.path.exists(os.path.join(tree, "compile_commands.json")) and os.path.exists(exe):
        say(f"baseline: {tree} already built (cached)")
        return
    log = os.path.join(logs, "baseline-build.log")
    say(f"baseline: configure && bear -- make -j{jobs} (log {log})")
    if run(["./configure"], tree, log) or run(["bear", "--", "make", f"-j{jobs}"], tree, log):
        raise Failure("building the unmodified memcached failed:\n  " +
                      "\n  ".join(first_errors(log)))


def test_files(tree, only=None):
    files = sorted(os.path.relpath(p, tree) for p in glob.glob(os.path.join(tree, "t", "*.t")))
    if not only:
        return files
    want = [f if f.startswith("t/") else "t/" + f for f in only]
    want = [f if f.endswith(".t") else f + ".t" for f in want]
    unknown = [f for f in want if f not in files]
    if unknown:
        raise Failure(f"--files: no such test file: {', '.join(unknown)}")
    return want


def run_dir(path, tree, exe, env, threads):
    """A directory where memcached's harness finds the build tree and, as its memcached-debug,
    a script running exe with `-t threads` (none: as the harness asks) in environment env
    (values are expanded by the shell: `$$` is the server's pid)."""
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    for name in os.listdir(tree):
        if name != "memcached-debug":
            os.symlink(os.path.join(tree, name), os.path.join(path, name))
    lines = ["#!/bin/sh",
             "# Written by tests/advise/e2e: memcached's harness starts ./memcached-debug; this",
             "# runs the build under test in this configuration (exec: the pid stays the same)."]
    # Double quotes: a value may name the server's pid ($$), e.g. a profile per server.
    lines += [f'{k}="{v}"; export {k}' for k, v in sorted(env.items())]
    lines.append(f"exec '{exe}'" + (f" -t {threads}" if threads else "") + ' "$@"')
    wrapper = os.path.join(path, "memcached-debug")
    with open(wrapper, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(wrapper, 0o755)
    return path


def configure_hint(tm):
    """The cause of a failed configure check that config.log shows and its last lines do not:
    a test program that stopped because of tmkit's runtime."""
    try:
        text = open(os.path.join(tm, "config.log"), errors="replace").read()
    except OSError:
        return ""
    hits = [l for l in text.splitlines() if l.startswith("tmkit:")]
    return ("\n  config.log: a test program stopped in tmkit's runtime: " + hits[-1]) if hits else ""


def prove(f):
    return ["prove", f]


def build_tm(tm, logs, jobs, clean=False):
    """A fresh configure with the flags `--apply` wrote (tmkit-build.env), then make: the
    program's own flags (-Werror included) decide."""
    log = os.path.join(logs, "tm-build.log")
    if os.path.exists(log):
        os.remove(log)
    say(f"tm build: . ./tmkit-build.env && ./configure && make -j{jobs} (log {log})")
    env_file = os.path.join(tm, "tmkit-build.env")
    if not os.path.exists(env_file):
        raise Failure(f"--apply wrote no {env_file}")
    # The copy may carry the baseline's Makefile, config.status and linked programs (--apply
    # leaves out objects and archives): configure replaces the first two, and make relinks
    # the programs because their objects are missing (checked below by the binary's time).
    if clean and os.path.exists(os.path.join(tm, "Makefile")):
        run(["make", "clean"], tm, log)
    if run(". ./tmkit-build.env && ./configure", tm, log, shell=True):
        raise Failure("configure of the transactional tree failed:\n  " +
                      "\n  ".join(open(log, errors="replace").read().splitlines()[-12:]) +
                      configure_hint(tm))
    import time
    started = time.time()
    if run(f". ./tmkit-build.env && make -j{jobs}", tm, log, shell=True):
        raise Failure("the transactional memcached does not build (first errors; whole log "
                      f"{log}):\n  " + "\n  ".join(first_errors(log)))
    exe = os.path.join(tm, "memcached-debug")
    if not os.path.exists(exe) or os.path.getmtime(exe) < started:
        raise Failure(f"make succeeded but did not link {exe} anew")
    return exe, open(log, errors="replace").read().count("warning:")
