#!/usr/bin/env python3
"""memcached_load.py: throughput of the transactional memcached that `tmkit advise --apply`
wrote (tests/advise/e2e.sh) against the unmodified build and Debian's packaged memcached, under a
get/set load, and the profile of that load (bench/results/advise-memcached/).

Servers (the optimised `memcached`, not memcached-debug): Debian's /usr/bin/memcached, the
unmodified build's (BUILD/advise-real/memcached-1.*/memcached, as the end-to-end test built it)
and the transactional build's (BUILD/advise-real/e2e-memcached/tm/memcached) on tmkit's
BUILD/lib/libitm.so.1 (a copy; LD_LIBRARY_PATH, checked with ldd) under each --algos
TMKIT_ALGO. A binary missing from a tree is made there (`make memcached`; the transactional tree
with its tmkit-build.env). Each server runs at each --threads worker count (-t), bound to
127.0.0.1 on a free port, with the same flags (-m 64 -c 1024 -U 0); the client is memcaslap
(Debian's libmemcached-tools: memaslap, 9:1 get:set by default) with fixed client threads,
concurrency and duration. The configurations run interleaved: a round runs every (server, -t)
once, in an order rotated by one each round, and --rounds rounds are run; the load average is
read before each run. Ratios are taken to the unmodified build at the same -t in the same round.

Then the profile: the transactional server under TMKIT_ALGO=--profile-algo with TMKIT_STATS, the
same load at each -t and one `stats` command after it (its sections are the ones GCC starts
irrevocable), and per site its executions (commits) split three ways: speculative (instrumented
code beside other threads, or GCC's uninstrumented code in a hardware transaction: adaptive's
htm mode, on a CPU with RTM), serial (under the serial lock from the start or after a switch to
irrevocable: the profile's `serial` column) and biased (GCC's uninstrumented code alone, under
the single-thread bias, which adaptive's serial mode hands to a thread after 256 serial commits
in a row: serial in effect, without the lock). The hot path is every site that executes at least
--hot-min times per second of load: the sites the get/set load runs (the others run at start-up,
in background threads and for `stats`).

With --callgrind N, last: each server at -t 1 under valgrind's callgrind for N requests of the
same mix (memcaslap -T 1 -c 4 -x N): instructions a request, which the machine's load does not
disturb, with and without the functions of memcached's background threads (their work follows
the wall time), and the share in tmkit's libitm and in pthread_mutex_*.

Writes OUT (default BUILD/advise-real/bench/): runs.csv (one row per run), profile-tN.json (the
raw profiles), profile-tN.txt (`tmkit report`), callgrind.* (with --callgrind), summary.json;
prints the tables.

Usage: bench/scripts/memcached_load.py ROOT BUILD [--rounds 5] [--threads 1,2,4]
       [--algos adaptive,gl_wt,orec_eager] [--seconds 5] [--client-threads 2] [--concurrency 16]
       [--no-debian] [--no-profile] [--callgrind N] [--out DIR] [--no-lock]
It holds the end-to-end test's lock (BUILD/advise-real/e2e-memcached.lock) while it runs."""
import argparse
import csv
import glob
import json
import os
import platform
import pwd
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

import tmlib
from tmlib import say

FLAGS = ["-m", "64", "-c", "1024", "-U", "0"]


def options(argv):
    p = argparse.ArgumentParser(prog="memcached_load.py ROOT BUILD",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("root")
    p.add_argument("build")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", default="1,2,4", help="server worker threads (-t)")
    p.add_argument("--algos", default="adaptive,gl_wt,orec_eager")
    p.add_argument("--seconds", type=int, default=5, help="memcaslap --time per run")
    p.add_argument("--client-threads", type=int, default=2, help="memcaslap --threads")
    p.add_argument("--concurrency", type=int, default=16, help="memcaslap --concurrency")
    p.add_argument("--no-debian", action="store_true", help="leave out /usr/bin/memcached")
    p.add_argument("--no-profile", action="store_true")
    p.add_argument("--profile-algo", default="adaptive")
    p.add_argument("--hot-min", type=float, default=100.0,
                   help="executions per second of load that make a site part of the hot path")
    p.add_argument("--callgrind", type=int, default=0, metavar="N",
                   help="also each server at -t 1 under callgrind for N requests (instructions "
                        "a request; 0: not)")
    p.add_argument("--out", default="")
    p.add_argument("--no-lock", action="store_true",
                   help="do not take the end-to-end test's lock on its work directory (its "
                        "--bench step holds it already)")
    return tmlib.common_args(p.parse_args(argv), "bench")


def make_binary(tree, tm):
    """tree/memcached, made if missing (the end-to-end test may have built only part)."""
    exe = os.path.join(tree, "memcached")
    if not os.path.exists(exe):
        cmd = (". ./tmkit-build.env && " if tm else "") + "make memcached"
        say(f"making {exe}: {cmd}")
        subprocess.run(cmd, shell=True, cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return exe


def servers(a):
    """[(label, argv prefix, environment)]: the servers to compare, the lock build first."""
    work = os.path.join(a.build, "advise-real")
    locks = sorted(d for d in glob.glob(os.path.join(work, "memcached-1.*")) if os.path.isdir(d))
    tm = os.path.join(work, "e2e-memcached", "tm")
    if not locks or not os.path.exists(os.path.join(tm, "tmkit-build.env")):
        sys.exit(f"no end-to-end build in {work}: run tests/advise/e2e.sh {a.root} {a.build} first")
    lock_exe, tm_exe = make_binary(locks[-1], False), make_binary(tm, True)
    tmenv, lib = tmlib.snapshot(a.build, a.out, tm_exe)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_")}
    out = [("lock", [lock_exe], env)]
    if not a.no_debian and os.path.exists("/usr/bin/memcached"):
        out.append(("debian", ["/usr/bin/memcached"], env))
    for algo in a.algos:
        out.append((f"tm-{algo}", [tm_exe], dict(tmenv, TMKIT_ALGO=algo)))
    return out, {"lock": lock_exe, "tm": tm_exe, "lib": lib}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv, env, threads):
    """A server on a free port of 127.0.0.1, answering; (process, port)."""
    user = ["-u", pwd.getpwuid(os.geteuid()).pw_name] if os.geteuid() == 0 else []
    for _ in range(5):
        port = free_port()
        p = subprocess.Popen(argv + ["-l", "127.0.0.1", "-p", str(port), "-t", str(threads)] +
                             FLAGS + user, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                    s.sendall(b"version\r\n")
                    if s.recv(64).startswith(b"VERSION"):
                        return p, port
            except OSError:
                if p.poll() is not None:
                    break
                time.sleep(0.05)
        stop(p)
    raise SystemExit(f"{argv[0]} -t {threads} did not start: {p.stderr.read().decode()[-400:]}")


def stop(p):
    """SIGINT (memcached exits through its own handler, so a profile is written), then wait."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def cpu_seconds(pid):
    """User + system CPU time of a process so far (all its threads), from /proc."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def load(a, port):
    """memcaslap against the port: (ops per second, gets, sets, seconds run)."""
    cmd = ["memcaslap", "-s", f"127.0.0.1:{port}", "-T", str(a.client_threads),
           "-c", str(a.concurrency), "-t", f"{a.seconds}s"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.seconds + 120).stdout
    got = parse_memcaslap(out)
    if got is None:
        raise SystemExit(f"{' '.join(cmd)}: no result:\n{out[-800:]}")
    return got


def parse_memcaslap(out):
    """memcaslap's final report -> (ops per second, gets, sets, seconds run), or None."""
    m = re.search(r"Run time: ([0-9.]+)s Ops: (\d+) TPS: (\d+)", out)
    if not m:
        return None
    gets = int((re.search(r"cmd_get: (\d+)", out) or [0, 0])[1])
    sets = int((re.search(r"cmd_set: (\d+)", out) or [0, 0])[1])
    return int(m[3]), gets, sets, float(m[1])


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def bench(a, srv):
    rows = []
    configs = [(label, argv, env, t) for t in a.threads for label, argv, env in srv]
    for rnd in range(1, a.rounds + 1):
        k = (rnd - 1) % len(configs)
        for label, argv, env, t in configs[k:] + configs[:k]:
            la = loadavg()
            p, port = start(argv, env, t)
            try:
                cpu0 = cpu_seconds(p.pid)
                tps, gets, sets, secs = load(a, port)
                cpu = cpu_seconds(p.pid) - cpu0
            finally:
                stop(p)
            ops = tps * secs
            rows.append({"round": rnd, "server": label, "threads": t, "ops_per_s": tps,
                         "gets": gets, "sets": sets, "seconds": secs,
                         "server_cpu_s": round(cpu, 2),
                         "cpu_us_per_op": round(1e6 * cpu / ops, 2) if ops else None,
                         "loadavg": la,
                         "time": time.strftime("%H:%M:%S", time.gmtime())})
            say(f"round {rnd} {label:<14} -t {t}: {tps:>8} ops/s, server CPU "
                f"{rows[-1]['cpu_us_per_op']} us/op (load {la:.2f})")
    return rows


def summarize(rows, labels, threads):
    """Per (server, -t): median ops/s, min, max, the median of the same-round ratios to lock;
    the same for the server's CPU time per operation (lock's divided by this one's: above 1,
    cheaper than lock), which another program's load on the machine disturbs less."""
    out = {}
    for t in threads:
        base = {r["round"]: r for r in rows if r["server"] == "lock" and r["threads"] == t}
        for label in labels:
            got = [r for r in rows if r["server"] == label and r["threads"] == t]
            vals = [r["ops_per_s"] for r in got]
            cpu = [r["cpu_us_per_op"] for r in got if r["cpu_us_per_op"]]
            ratios = sorted(r["ops_per_s"] / base[r["round"]]["ops_per_s"] for r in got
                            if r["round"] in base)
            cratios = sorted(base[r["round"]]["cpu_us_per_op"] / r["cpu_us_per_op"] for r in got
                             if r["round"] in base and r["cpu_us_per_op"] and
                             base[r["round"]]["cpu_us_per_op"])
            out[f"{label} -t{t}"] = {
                "server": label, "threads": t, "runs": len(vals),
                "median": statistics.median(vals), "min": min(vals), "max": max(vals),
                "ratio_median": round(statistics.median(ratios), 3) if ratios else None,
                "ratios": [round(x, 3) for x in ratios],
                "cpu_us_per_op_median": statistics.median(cpu) if cpu else None,
                "cpu_ratio_median": round(statistics.median(cratios), 3) if cratios else None,
                "cpu_ratios": [round(x, 3) for x in cratios]}
    return out


def profile(a, srv, tools):
    """Per -t: the transactional server under TMKIT_STATS, the same load; the sites' executions
    and serial ones."""
    sys.path.insert(0, tools)
    from tmkit_cli.report import profiles  # noqa: E402 (the tree's own report code)
    tm = next(s for s in srv if s[0] == f"tm-{a.profile_algo}") if any(
        s[0] == f"tm-{a.profile_algo}" for s in srv) else None
    if tm is None:
        _, argv, env = next(s for s in srv if s[0].startswith("tm-"))
        tm = (f"tm-{a.profile_algo}", argv, dict(env, TMKIT_ALGO=a.profile_algo))
    out = {}
    for t in a.threads:
        path = os.path.join(a.out, f"profile-t{t}.json")
        if os.path.exists(path):
            os.remove(path)
        p, port = start(tm[1], dict(tm[2], TMKIT_STATS=path), t)
        try:
            tps, gets, sets, secs = load(a, port)
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sk:
                sk.sendall(b"stats\r\n")  # the stats sections, which GCC starts irrevocable
                got = b""
                while not got.endswith(b"END\r\n"):
                    got += sk.recv(65536) or b"END\r\n"
        finally:
            stop(p)
        prof = profiles.load(path)
        profiles.rows(prof)  # names the sites (function, file:line)
        hz = prof.get("tsc_hz") or 0
        sites = []
        for x in prof["sites"]:
            r = profiles.row(x, hz)
            unin, sw = x.get("uninstrumented_attempts", 0), x.get("irrevocable_switches", 0)
            # commits in hardware (adaptive's htm mode) ran beside the other threads, without
            # the lock; r["serial"] (profiles.row) already leaves them out
            hw = x.get("htm_commits", 0)
            sites.append({"site": r["site"], "commits": r["commits"], "aborts": r["aborts"],
                          # under the serial lock (from the start or after a switch)
                          "serial": r["serial"],
                          # GCC's uninstrumented code alone without the lock: the bias
                          "biased": max(unin - x.get("serial_attempts", 0), 0),
                          # instrumented code beside other threads, or in hardware
                          "speculative": max(r["commits"] - unin - sw, 0) + hw,
                          "hardware": hw,
                          "gcc_irrevocable": x.get("gcc_irrevocable_starts", 0),
                          "serializing_call": profiles.serializer(r)})
        sites.sort(key=lambda x: -x["commits"])
        rep = subprocess.run([os.path.join(a.root, "bin", "tmkit"), "report", path],
                             capture_output=True, text=True)
        with open(os.path.join(a.out, f"profile-t{t}.txt"), "w") as f:
            f.write(rep.stdout.replace(a.out + "/", "").replace(a.build + "/", "BUILD/") + rep.stderr)
        hot = [x for x in sites if x["commits"] >= a.hot_min * secs]
        tot = {k: sum(x[k] for x in hot)
               for k in ("commits", "serial", "biased", "speculative", "hardware")}
        out[t] = {"ops_per_s": tps, "gets": gets, "sets": sets, "seconds": secs,
                  "algorithm": prof.get("algorithm"),
                  "adaptive_epochs": prof.get("adaptive_epochs"),
                  "adaptive_probes": prof.get("adaptive_probes"),
                  "adaptive_switches": prof.get("adaptive_switches"),
                  "adaptive_cycles_per_commit": prof.get("adaptive_cycles_per_commit"),
                  "hot": tot, "hot_sites": hot,
                  "hot_speculative_share": round(tot["speculative"] / tot["commits"], 4)
                  if tot["commits"] else None,
                  "hot_not_serial_share": round(1 - tot["serial"] / tot["commits"], 4)
                  if tot["commits"] else None,
                  "other_sites": [x for x in sites if x not in hot and x["commits"]]}
        c = tot["commits"] or 1
        say(f"profile -t {t} ({prof.get('algorithm')}): {tps} ops/s; hot path {len(hot)} sites, "
            f"{tot['commits']} executions: speculative {100 * tot['speculative'] / c:.1f}%, "
            f"(in hardware {100 * tot['hardware'] / c:.1f}%), serial lock {100 * tot['serial'] / c:.1f}%, biased {100 * tot['biased'] / c:.1f}%; "
            f"epochs {prof.get('adaptive_epochs')}")
        for x in sites:
            if x["gcc_irrevocable"]:
                say(f"  {x['site']}: {x['serializing_call']}")
    return out


# memcached lowers its open-file limit to -c with setrlimit, which valgrind refuses (it keeps
# descriptors of its own above the limit): under callgrind the call is made to succeed.
SETRLIMIT_SHIM = """#include <sys/resource.h>
int setrlimit(__rlimit_resource_t r, const struct rlimit *l) { (void)r; (void)l; return 0; }
"""
# Functions of memcached's background threads, whose work follows the wall time, not the load.
BACKGROUND = ("lru_maintainer_thread", "lru_pull_tail", "lru_maintainer_juggle", "item_crawler",
              "logger_thread", "assoc_maintenance_thread", "slab_rebalance_thread")


def callgrind(a, srv):
    """Each server at -t 1 under callgrind, memcaslap -T 1 -c 4 -x N (a fixed count of
    requests): instructions per request in all, without the background threads' functions, in
    tmkit's libitm and in pthread_mutex_*."""
    shim = os.path.join(a.out, "setrlimit_shim.so")
    src = shim[:-3] + ".c"
    with open(src, "w") as f:
        f.write(SETRLIMIT_SHIM)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", src, "-o", shim], check=True)
    out = {}
    for label, argv, env in srv:
        cg = os.path.join(a.out, f"callgrind.{label}")
        user = ["-u", pwd.getpwuid(os.geteuid()).pw_name] if os.geteuid() == 0 else []
        port = free_port()
        p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}"] + argv +
                             ["-l", "127.0.0.1", "-p", str(port), "-t", "1", "-m", "64", "-c", "256",
                              "-U", "0"] + user, env=dict(env, LD_PRELOAD=shim),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sk:
                    sk.sendall(b"version\r\n")
                    if sk.recv(64).startswith(b"VERSION"):
                        break
            except OSError:
                time.sleep(0.1)
        res = subprocess.run(["memcaslap", "-s", f"127.0.0.1:{port}", "-T", "1", "-c", "4",
                              "-x", str(a.callgrind)], capture_output=True, text=True).stdout
        stop(p)
        ops = int(re.search(r"Ops: (\d+)", res)[1])
        ann = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", cg],
                             capture_output=True, text=True).stdout.splitlines()
        fn = [(int(l.split()[0].replace(",", "")), l) for l in ann
              if re.match(r"^\s*[0-9,]+ \(", l) and "PROGRAM TOTALS" not in l]
        total = int(next(l for l in ann if "PROGRAM TOTALS" in l).split()[0].replace(",", ""))
        bg = sum(n for n, l in fn if any(f":{b}" in l for b in BACKGROUND))
        itm = sum(n for n, l in fn if "libitm.so" in l)
        mtx = sum(n for n, l in fn if "pthread_mutex" in l)
        out[label] = {"ops": ops, "ir": total, "ir_per_op": round(total / ops),
                      "ir_per_op_foreground": round((total - bg) / ops),
                      "libitm_per_op": round(itm / ops), "mutex_per_op": round(mtx / ops)}
        say(f"callgrind {label:<14}: {out[label]['ir_per_op_foreground']} instructions a request "
            f"without the background threads ({out[label]['ir_per_op']} in all), libitm "
            f"{out[label]['libitm_per_op']}, pthread_mutex {out[label]['mutex_per_op']}")
    return out


def main(argv):
    a = options(argv)
    for c in ("memcaslap", "ldd"):
        if not shutil.which(c):
            sys.exit(f"{c} missing (memcaslap: Debian's libmemcached-tools)")
    os.makedirs(a.out, exist_ok=True)
    if not a.no_lock:  # an end-to-end run rebuilding the trees meanwhile would waste the runs
        sys.path.insert(0, os.path.join(a.root, "tests", "advise", "e2e"))
        import util  # noqa: E402
        a.lock_file = util.hold(os.path.join(a.build, "advise-real", "e2e-memcached.lock"),
                                os.path.join(a.build, "advise-real", "e2e-memcached"))
    srv, exes = servers(a)
    labels = [s[0] for s in srv]
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    commit = subprocess.run(["git", "-C", a.root, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", a.root, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    say(f"servers: {', '.join(labels)}; -t {a.threads}; {a.rounds} rounds; memcaslap -T "
        f"{a.client_threads} -c {a.concurrency} -t {a.seconds}s; flags {' '.join(FLAGS)}")
    rows = bench(a, srv) if a.rounds else []
    with open(os.path.join(a.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["round", "server", "threads", "ops_per_s", "gets", "sets",
                               "seconds", "server_cpu_s", "cpu_us_per_op", "loadavg", "time"])
        w.writeheader()
        w.writerows(rows)
    summ = summarize(rows, labels, a.threads) if rows else {}
    prof = {} if a.no_profile else profile(a, srv, os.path.join(a.root, "tools"))
    cg = callgrind(a, srv) if a.callgrind else {}
    doc = {"date": started, "commit": commit + (" (with uncommitted changes)" if dirty else ""),
           "machine": f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
                      f"Linux {platform.release()}",
           "command": "bench/scripts/memcached_load.py " + " ".join(argv),
           "client": f"memcaslap -T {a.client_threads} -c {a.concurrency} -t {a.seconds}s "
                     "(9:1 get:set)",
           "server_flags": " ".join(["-l 127.0.0.1", "-p PORT", "-t N"] + FLAGS),
           "servers": labels, "binaries": exes,
           "loadavg": [min((r["loadavg"] for r in rows), default=None),
                       max((r["loadavg"] for r in rows), default=None)],
           "summary": summ, "profile": prof, "callgrind": cg}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(doc, f, indent=1)
    if summ:
        say("\nmedians; /lock: the median of the same-round ratios (ops/s: this / lock's; "
            "CPU us/op: lock's / this)")
        say(f"{'server':<16}" + "".join(f"{'-t ' + str(t) + ' ops/s':>14}{'/lock':>6}"
                                        f"{'us/op':>7}{'/lock':>6}" for t in a.threads))
        for label in labels:
            cells = ""
            for t in a.threads:
                x = summ[f"{label} -t{t}"]
                cells += (f"{x['median']:>14,.0f}{x['ratio_median']:>6.2f}"
                          f"{x['cpu_us_per_op_median'] or 0:>7.1f}{x['cpu_ratio_median'] or 0:>6.2f}")
            say(f"{label:<16}{cells}")
    say(f"\nwritten: {a.out}/runs.csv, summary.json" + (", profile-t*.json/.txt" if prof else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
