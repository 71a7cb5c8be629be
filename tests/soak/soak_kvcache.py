"""soak_kvcache.py — kvcache under a mixed load that evicts all the time, for a fixed time.

    python soak_kvcache.py SERVER [--seconds 30] [--mb 16] [--threads 2] [--interval 2]
                                  [--csv FILE] [--json FILE]

The server (a kvcache binary; the environment selects the runtime and TMKIT_ALGO) runs at
-t 2 with a small -m on a free 127.0.0.1 port. For the whole run:
  - memcslap: one loop of `--test=set` runs and one of `--test=get` runs (which store their
    own keys first), each 2 client threads, alternating the text and binary protocols; every
    run makes new random 100-byte keys with values up to 4 KB, so the cache is always full
    and every store evicts;
  - 2 verifying clients (pymemcache), each the only writer of its own 3,000 keys: set, get
    and delete at random, values of 20 B to 24 KB (many slab classes) that name their key and
    version; every value read must be exactly the last one this client stored for that key
    (or a miss, after an eviction or a delete): a torn, stale or foreign value fails;
  - a sampler: the server's VmRSS, descriptors and `stats` / `stats slabs` every --interval s.
Checks: no error reply anywhere (memcslap's failures other than "NOT FOUND" and its exit
status; the verifiers' exceptions and SERVER_ERROR/CLIENT_ERROR; `store_no_memory` and
`store_too_large` stay 0); in every sample cmd_get - (get_hits + get_misses) is between 0 and
the connections open (a get in flight is counted in cmd_get before its hit or miss), bytes <=
total_malloced <= limit_maxbytes + active_slabs x 1 MB (each class may take its first page past
-m), evictions never decrease; evictions start in warm-up and grow in every quarter after it;
RSS flat after warm-up (soak_lib.py: the second half's maximum at most RSS_GROWTH_PCT above
the end of warm-up); at the end, with the load stopped: get_hits + get_misses == cmd_get
exactly, the slab chunks in use equal curr_items, bytes between curr_items x (72 + 1) and the
chunks' capacity, the server answers a set and a get, and it exits 0 on SIGTERM.
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kvcache"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pymemcache.client.base import Client  # noqa: E402
from pymemcache.exceptions import MemcacheError  # noqa: E402

from kv_harness import server  # noqa: E402
from soak_lib import Failures, Sampler, print_curve, rss_flatness, write_outputs  # noqa: E402

HEADER = 72          # kvcache's item header (apps/kvcache/kv.h), part of `bytes`
PAGE = 1 << 20       # -I default: a slab page
F = Failures("soak.kvcache")


# ---- the server's statistics over one connection of our own ----
class StatsConn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)

    def group(self, name=b""):
        self.s.sendall(b"stats" + (b" " + name if name else b"") + b"\r\n")
        out = b""
        while not out.endswith(b"END\r\n"):
            d = self.s.recv(1 << 16)
            if not d:
                raise EOFError("server closed the stats connection")
            out += d
        res = {}
        for ln in out.split(b"\r\n"):
            p = ln.split()
            if len(p) == 3 and p[0] == b"STAT":
                res[p[1].decode()] = p[2].decode()
        return res

    def close(self):
        self.s.close()


def slab_sum(sl, field):
    return sum(int(v) for k, v in sl.items() if k.endswith(":" + field))


def capacity(sl):
    """The bytes the chunks in use can hold: sum over classes of used_chunks x chunk_size."""
    cls = {k.split(":")[0] for k in sl if ":" in k}
    return sum(int(sl[f"{c}:used_chunks"]) * int(sl[f"{c}:chunk_size"]) for c in cls)


INT_FIELDS = ("curr_items", "bytes", "limit_maxbytes", "evictions", "cmd_get", "get_hits",
              "get_misses", "cmd_set", "total_items", "curr_connections", "store_no_memory",
              "store_too_large", "reclaimed")


def sample_stats(sc):
    st, sl = sc.group(), sc.group(b"slabs")
    row = {k: int(st.get(k, 0)) for k in INT_FIELDS}  # memcached lacks the store_ ones
    row["total_malloced"] = int(sl["total_malloced"])
    row["active_slabs"] = int(sl["active_slabs"])
    row["used_chunks"] = slab_sum(sl, "used_chunks")
    return row


def settle(sc, tries=50):
    """Waits (up to 10 s) until the counters stop moving once the clients have gone: a worker
    may finish a closed connection's last command and release after the client has left."""
    prev = None
    for _ in range(tries):
        cur = sample_stats(sc)
        if cur == prev and cur["used_chunks"] == cur["curr_items"]:
            return
        prev = cur
        time.sleep(0.2)


def check_sample(row, rows):
    if "cmd_get" not in row:
        return
    t = row["t"]
    lag = row["cmd_get"] - row["get_hits"] - row["get_misses"]
    F.check(0 <= lag <= row["curr_connections"],
            f"t={t}: cmd_get - (get_hits + get_misses) = {lag}, outside 0..{row['curr_connections']}"
            " (connections open)")
    F.check(row["bytes"] <= row["total_malloced"],
            f"t={t}: bytes {row['bytes']} > total_malloced {row['total_malloced']}")
    lim = row["limit_maxbytes"] + row["active_slabs"] * PAGE
    F.check(row["total_malloced"] <= lim,
            f"t={t}: total_malloced {row['total_malloced']} > limit_maxbytes + active_slabs x 1 MB"
            f" = {lim}")
    prev = [r for r in rows[:-1] if "evictions" in r]
    if prev:
        F.check(row["evictions"] >= prev[-1]["evictions"],
                f"t={t}: evictions went down ({prev[-1]['evictions']} -> {row['evictions']})")
    F.check(row["store_no_memory"] == 0 and row["store_too_large"] == 0,
            f"t={t}: store_no_memory {row['store_no_memory']}, store_too_large "
            f"{row['store_too_large']} (error replies)")


# ---- memcslap loops ----
# memcslap 1.1 prints one "Fatal error for key ..." line on stderr per failed request and
# exits 0 all the same; a set thread stops at its first failure, so the count it prints falls
# short. A get that misses (the key was evicted since memcslap stored it) prints nothing.
SLAP_LOAD = re.compile(r"Time to set\s+(\d+) keys:")
SLAP_DONE = re.compile(r"Time to (set|get)\s+(\d+) keys by\s+(\d+) threads")


class SlapLoop(threading.Thread):
    """Runs memcslap --test=TEST (2 threads, --execute-number N: a set run stores 2 x N new
    keys; a get run stores N, then its 2 threads get N each at random) again and again until
    `deadline`, alternating the text and binary protocols."""

    def __init__(self, port, test, deadline, number):
        super().__init__(daemon=True)
        self.port, self.test, self.deadline, self.number = port, test, deadline, number
        self.runs, self.sets, self.gets, self.hits, self.failures = 0, 0, 0, 0, []
        self.proc = None
        self.stopped = threading.Event()

    def run(self):
        while time.monotonic() < self.deadline and not self.stopped.is_set():
            cmd = ["memcslap", f"--servers=127.0.0.1:{self.port}", "--concurrency=2",
                   f"--test={self.test}", f"--execute-number={self.number}"]
            if self.runs % 2:
                cmd.append("--binary")
            try:
                self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                             text=True)
                out, err = self.proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
                self.failures.append(f"{' '.join(cmd)}: no end in 120 s")
                return
            if self.stopped.is_set():
                return
            self.runs += 1
            what = f"{' '.join(cmd[3:])}"
            if self.proc.returncode != 0:
                self.failures.append(f"{what}: exit {self.proc.returncode}")
            self.failures += [f"{what}: {ln.strip()[:300]}" for ln in err.splitlines() if ln.strip()]
            m, load = SLAP_DONE.search(out), SLAP_LOAD.search(out)
            if not m or (self.test == "get" and not load):
                self.failures.append(f"{what}: no summary line in {out[-300:]!r}")
                continue
            n = int(m.group(2))
            if self.test == "set":
                self.sets += n
                if n != 2 * self.number:
                    self.failures.append(f"{what}: {n} of {2 * self.number} keys stored")
            else:
                stored = int(load.group(1))
                self.sets += stored
                self.gets += 2 * self.number
                self.hits += n
                if stored != self.number:
                    self.failures.append(f"{what}: {stored} of {self.number} keys stored")

    def kill(self):
        """No new run; the running one killed; its end awaited."""
        self.stopped.set()
        p = self.proc
        if p and p.poll() is None:
            p.kill()
        self.join(10)


# ---- verifying clients ----
def value_of(key, ver):
    """The value of version `ver` of `key`: it names both, then bytes derived from them, of a
    length from 20 B to 24 KB (log-uniform over the versions)."""
    h = hashlib.blake2b(f"{key}/{ver}".encode(), digest_size=32).digest()
    n = int(20 * (1200 ** (h[0] / 255.0)))
    head = f"{key}|{ver}|".encode()
    body = (h.hex().encode() * (n // 64 + 1))[:max(0, n - len(head))]
    return head + body


class Verifier(threading.Thread):
    def __init__(self, port, ident, deadline, nkeys=3000):
        super().__init__(daemon=True)
        self.port, self.who, self.deadline, self.nkeys = port, ident, deadline, nkeys
        self.ops = {"set": 0, "get": 0, "hit": 0, "delete": 0}
        self.errors = []
        self.rnd = random.Random(ident * 7919 + int(time.time()))

    def run(self):
        c = Client(("127.0.0.1", self.port), default_noreply=False, timeout=20,
                   connect_timeout=5)
        last = {}  # key -> version stored last (None: deleted)
        ver = 0
        try:
            while time.monotonic() < self.deadline and len(self.errors) < 20:
                key = f"soak:{self.who}:{self.rnd.randrange(self.nkeys)}"
                r = self.rnd.random()
                if r < 0.45:
                    ver += 1
                    ok = c.set(key, value_of(key, ver))
                    self.ops["set"] += 1
                    if ok is not True:
                        self.errors.append(f"set {key} v{ver}: {ok!r}")
                    last[key] = ver
                elif r < 0.95:
                    got = c.get(key)
                    self.ops["get"] += 1
                    if got is None:
                        continue
                    self.ops["hit"] += 1
                    want = last.get(key)
                    if want is None or got != value_of(key, want):
                        self.errors.append(f"get {key}: {len(got)} bytes starting {got[:40]!r}, "
                                           f"want version {want}")
                else:
                    c.delete(key)
                    self.ops["delete"] += 1
                    last[key] = None
        except (MemcacheError, OSError) as e:
            self.errors.append(f"{type(e).__name__}: {e}")
        finally:
            c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--mb", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--interval", type=float, default=2)
    ap.add_argument("--csv")
    ap.add_argument("--json")
    a = ap.parse_args()
    a.interval = min(a.interval, a.seconds / 16)  # at least 4 samples in warm-up
    if not shutil.which("memcslap"):
        print("SKIP: memcslap not installed (Debian: libmemcached-tools)")
        sys.exit(77)
    os.environ["KV_EXIT_ZERO"] = "1"  # kv_harness: SIGTERM must end the server with status 0
    procs = []
    summary = {"server": os.path.basename(a.server), "algorithm": os.environ.get("TMKIT_ALGO",
               "default"), "seconds": a.seconds, "threads": a.threads, "mb": a.mb}
    slaps, vers, sampler = [], [], None
    try:
        with server(a.server, ["-t", str(a.threads), "-m", str(a.mb)], procs=procs) as port:
            pid = procs[0].pid
            with open(f"/proc/{pid}/maps") as f:
                if "libitm.so" not in f.read():
                    summary["algorithm"] = "none (a lock build)"
            sc = StatsConn(port)
            sampler = Sampler(pid, a.interval, lambda: sample_stats(sc), check_sample)
            deadline = sampler.t0 + a.seconds
            slaps = [SlapLoop(port, "set", deadline, 4000), SlapLoop(port, "get", deadline, 4000)]
            vers = [Verifier(port, i, deadline) for i in range(2)]
            sampler.start()
            for t in slaps + vers:
                t.start()
            for t in vers + slaps:
                t.join(max(1.0, deadline - time.monotonic() + 300))
                if t.is_alive():
                    F.check(False, f"{type(t).__name__} still running 300 s after the end")
            sampler.stop()
            settle(sc)
            end = sampler.sample()  # once more, quiet
            if F.check("cmd_get" in end, f"the server answers `stats` at the end ({sampler.errors[-1:]})"):
                final_checks(sc, port, end, sampler.rows, a.seconds)
            summarize(summary, sampler, slaps, vers, a.seconds)
            sc.close()
    except (RuntimeError, OSError) as e:  # kv_harness: the server did not start, died, or
        F.check(False, f"{type(e).__name__}: {e}")  # exited non-zero; /proc or a socket failed
    finally:
        for s in slaps:
            if s.is_alive():
                s.kill()
    rows = sampler.rows if sampler else []
    write_outputs(rows, summary, a.csv, a.json)
    F.exit()


def final_checks(sc, port, end, rows, seconds):
    F.eq(end["cmd_get"], end["get_hits"] + end["get_misses"],
         "at the end: cmd_get == get_hits + get_misses")
    F.eq(end["used_chunks"], end["curr_items"], "at the end: slab chunks in use == curr_items")
    sl = sc.group(b"slabs")
    F.check(end["curr_items"] * (HEADER + 1) <= end["bytes"] <= capacity(sl),
            f"at the end: bytes {end['bytes']} outside curr_items x 73 = "
            f"{end['curr_items'] * (HEADER + 1)} .. chunk capacity {capacity(sl)}")
    warm = seconds * 0.25
    ev = [(r["t"], r["evictions"]) for r in rows if "evictions" in r]
    F.check(any(e > 0 for t, e in ev if t <= warm), "evictions start during warm-up")
    after = [(t, e) for t, e in ev if t > warm]
    q = (seconds - warm) / 4
    for i in range(4):
        seg = [e for t, e in after if warm + i * q <= t <= warm + (i + 1) * q + 0.01]
        prev = [e for t, e in ev if t < warm + i * q]
        if seg and prev:
            F.check(seg[-1] > prev[-1], f"evictions grow in quarter {i + 1} after warm-up "
                    f"({prev[-1]} -> {seg[-1]})")
    c = Client(("127.0.0.1", port), default_noreply=False, timeout=10, connect_timeout=5)
    F.check(c.set("soak:final", b"alive") is True and c.get("soak:final") == b"alive",
            "the server stores and returns a value after the soak")
    c.close()


def summarize(summary, sampler, slaps, vers, seconds):
    rows = sampler.rows
    for e in sampler.errors:
        F.check(False, f"sampler: {e}")
    flat = rss_flatness(rows, seconds)
    F.check(flat["ok"], f"RSS after warm-up: {flat}")
    end = rows[-1]
    slap_fail = [f for s in slaps for f in s.failures]
    ver_err = [e for v in vers for e in v.errors]
    F.eq(slap_fail[:5], [], f"memcslap failures ({len(slap_fail)} in all)")
    F.eq(ver_err[:5], [], f"verifying clients' errors ({len(ver_err)} in all)")
    F.check(all(s.runs > 0 for s in slaps), "every memcslap loop ran")
    vops = {k: sum(v.ops[k] for v in vers) for k in vers[0].ops} if vers else {}
    F.check(vops.get("hit", 0) > 0, f"the verifiers read values back ({vops})")
    summary.update({
        "rss": flat, "samples": len(rows),
        "cmd_get": end.get("cmd_get"), "cmd_set": end.get("cmd_set"),
        "get_hits": end.get("get_hits"), "get_misses": end.get("get_misses"),
        "evictions": end.get("evictions"), "curr_items": end.get("curr_items"),
        "bytes": end.get("bytes"), "limit_maxbytes": end.get("limit_maxbytes"),
        "total_malloced": end.get("total_malloced"),
        "ops_per_s": round((end.get("cmd_get", 0) + end.get("cmd_set", 0)) / seconds),
        "memcslap": {s.test: {"runs": s.runs, "sets": s.sets, "gets": s.gets, "hits": s.hits,
                              "failures": len(s.failures)} for s in slaps},
        "verifier": dict(vops, errors=len(ver_err)),
        "fds_max": max(r["fds"] for r in rows), "threads_max": max(r["threads"] for r in rows),
    })
    print_curve(rows)
    print(f"RSS: {flat}")
    print(f"ops: cmd_get {summary['cmd_get']} cmd_set {summary['cmd_set']} "
          f"({summary['ops_per_s']}/s), evictions {summary['evictions']}, curr_items "
          f"{summary['curr_items']}, bytes {summary['bytes']} of {summary['limit_maxbytes']}")
    print(f"memcslap: {summary['memcslap']}; verifiers: {summary['verifier']}")


if __name__ == "__main__":
    main()
