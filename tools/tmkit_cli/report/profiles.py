"""Per-site transaction profiles (TMKIT_STATS, docs/stats.md): loading, merging, the derived
figures of each site and the text table. `tmkit report` (cli.py), `tmkit stat` (live.py), the
comparison (compare.py), the HTML page (page.py) and the web-cache experiment use it."""
import glob
import json
import math
import os
import struct
import subprocess

from .elf import load_base
from .gcc_irrevocable import StartCalls

VERSION = 1
REASONS = ["abort_read_conflict", "abort_write_conflict", "abort_validation", "abort_cancel",
           "abort_retry", "abort_serial"]
BUCKETS = ["0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64+"]


class ProfileError(Exception):
    """A profile that this tool cannot read (message says which and why)."""


def _inline_frames(lines):
    """addr2line -a -i -f output -> {request index: [(function, file:line), ...]}, innermost
    frame first (each address line starts a request)."""
    out, i = {}, -1
    k = 0
    while k < len(lines):
        if lines[k].startswith("0x"):
            i += 1
            out[i] = []
            k += 1
            continue
        if i >= 0 and k + 1 < len(lines):
            out[i].append((lines[k], lines[k + 1]))
        k += 2
    return out


def _in_tmkit_header(loc):
    path = loc.split(":")[0]
    return "/include/tmkit/" in path or path.endswith("/include/tmkit.h")


class Symbolizer:
    """(object, offset) -> "function (file:line)", one addr2line per object, results cached (the
    live view asks again at every refresh); and, for the sites GCC starts irrevocable, the call
    that made it (gcc_irrevocable.py)."""

    def __init__(self):
        self.cache = {}
        self.start_calls = StartCalls()

    def names(self, requests):
        by_obj = {}
        for obj, off in set(requests) - set(self.cache):
            by_obj.setdefault(obj, []).append(off)
        for obj, offs in by_obj.items():
            frames = {}
            if os.path.exists(obj):
                try:
                    # offsets are from the object's lowest page: 0 but in a classic executable
                    base = load_base(obj)
                    addrs = [hex(int(o, 16) + base) for o in offs]
                    out = subprocess.run(["addr2line", "-a", "-i", "-f", "-C", "-e", obj] + addrs,
                                         capture_output=True, text=True, check=True).stdout.splitlines()
                    frames = _inline_frames(out)
                except (OSError, ValueError, struct.error, subprocess.CalledProcessError):
                    pass
            for i, off in enumerate(offs):
                chain = frames.get(i) or [("??", "??:0")]
                # The first frame outside tmkit's own headers: a call made through an inline
                # helper of tmkit.h (tm_group_enter ...) is named after the caller's line.
                func, loc = next((f for f in chain if not _in_tmkit_header(f[1])), chain[-1])
                loc = loc.split(" (discriminator")[0]
                self.cache[(obj, off)] = f"{os.path.basename(obj)}+{off}" if loc.startswith("??") else \
                    f"{func} ({os.path.basename(loc.split(':')[0])}:{loc.rsplit(':', 1)[-1]})"
        return self.cache

    def site_names(self, sites, program=None):
        """Adds "name" and "irrevocable_name" to every site, and "gcc_irrevocable_name" to those
        that GCC starts irrevocable (program: the profile's, for a site object recorded relative
        to the directory the program started in)."""
        for s in sites:   # the main program is recorded as it was started (./prog)
            for k in ("site_object", "irrevocable_call_object"):
                obj = s.get(k)
                if obj and program and not os.path.isabs(obj) and \
                        os.path.basename(obj) == os.path.basename(program):
                    s[k] = program
        req = [(s[k + "_object"], s[k + "_offset"]) for s in sites for k in ("site", "irrevocable_call")
               if k + "_object" in s]
        names = self.names(req)
        for s in sites:
            s["name"] = "(other sites)" if s["site"] == "0x1" else \
                names.get((s.get("site_object"), s.get("site_offset")), s["site"])
            s["irrevocable_name"] = names.get((s.get("irrevocable_call_object"),
                                               s.get("irrevocable_call_offset")), "")
            if _int(s.get("gcc_irrevocable_starts")) and s["gcc_irrevocable_starts"] and s["site"] != "0x1":
                s["gcc_irrevocable_name"] = self.start_calls.describe(s, program)


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


# The site fields the table reads besides the counters list: counts when present ...
SITE_COUNTS = REASONS + ["starts", "commits", "serial_attempts", "irrevocable_switches",
                         "read_set_sum", "read_set_max", "write_set_sum", "write_set_max",
                         "cycles_committed", "cycles_aborted", "retry_sleeps", "retry_wakeups",
                         "retry_spurious", "cycles_asleep", "group_enters", "group_locks",
                         "cycles_group_wait", "cycles_group_held", "gcc_irrevocable_starts"]
# ... and text (addresses, objects, build ids), an object always with its offset.
SITE_TEXT = ["site", "site_object", "site_offset", "site_build_id", "irrevocable_call",
             "irrevocable_call_object", "irrevocable_call_offset", "irrevocable_call_build_id"]


def _site_problem(s, counters):
    if not isinstance(s, dict):
        return "not an object"
    if not isinstance(s.get("site"), str):
        return "no 'site' address"
    bad = next((c for c in counters if not _int(s.get(c))), None) or \
        next((c for c in SITE_COUNTS if c in s and not _int(s[c])), None)
    if bad:
        return f"counter '{bad}' is {s.get(bad)!r}"
    bad = next((k for k in SITE_TEXT if k in s and not isinstance(s[k], str)), None)
    if bad:
        return f"'{bad}' is {s[bad]!r}, not a string"
    for k in ("site", "irrevocable_call"):
        if (k + "_object" in s) != (k + "_offset" in s):
            return f"'{k}_object' and '{k}_offset' must come together"
    hist = s.get("retries_histogram", [])
    if not isinstance(hist, list) or not all(_int(n) for n in hist):
        return "bad retries_histogram"
    return None


def _no_surrogates(v):
    """v with every string's unpaired surrogates (JSON "\\ud800") replaced: they cannot be
    printed or written as UTF-8."""
    if isinstance(v, str):
        return v.encode("utf-8", "replace").decode("utf-8")
    if isinstance(v, list):
        return [_no_surrogates(x) for x in v]
    if isinstance(v, dict):
        return {_no_surrogates(k): _no_surrogates(x) for k, x in v.items()}
    return v


def validate(prof, what):
    """Checks the version-1 schema; returns prof or raises ProfileError naming `what`."""
    if not isinstance(prof, dict):
        raise ProfileError(f"{what}: not a profile (a JSON object is expected)")
    if prof.get("tmkit_stats_version") != VERSION:
        raise ProfileError(f"{what}: unsupported profile version {prof.get('tmkit_stats_version')!r} "
                           f"(this tool reads version {VERSION})")
    counters, sites = prof.get("counters"), prof.get("sites")
    if not isinstance(counters, list) or not all(isinstance(c, str) for c in counters) \
            or not {"starts", "commits"} <= set(counters):
        raise ProfileError(f"{what}: malformed profile: 'counters' must list the counter names")
    if not isinstance(sites, list):
        raise ProfileError(f"{what}: malformed profile: 'sites' must be a list")
    hz = prof.get("tsc_hz", 0)
    if not isinstance(hz, (int, float)) or isinstance(hz, bool) or not math.isfinite(hz) or hz < 0:
        raise ProfileError(f"{what}: malformed profile: 'tsc_hz' is not a clock rate ({hz!r})")
    if not isinstance(prof.get("program", ""), str):
        raise ProfileError(f"{what}: malformed profile: 'program' is not a string")
    for k in ("merged", "path"):   # this tool's own fields, never in a file
        if k in prof:
            raise ProfileError(f"{what}: malformed profile: unexpected field '{k}'")
    for i, s in enumerate(sites):
        bad = _site_problem(s, counters)
        if bad:
            raise ProfileError(f"{what}: malformed profile: site {i}: {bad}")
    return prof


def parse(text, what):
    try:
        prof = json.loads(text)
    except ValueError as e:
        raise ProfileError(f"{what}: not valid JSON: {e}")
    except RecursionError:
        raise ProfileError(f"{what}: not a profile (JSON nested too deeply)")
    try:
        json.dumps(prof, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        prof = _no_surrogates(prof)
    return validate(prof, what)


def load(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:  # a path in any encoding
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}")
    prof = parse(text, path)
    prof["path"] = path
    return prof


def site_key(s):
    return (s["site_object"], s["site_offset"]) if "site_object" in s else ("", s["site"])


def add_site(acc, s, counters, scale=1.0):
    """Sums site s into acc: counters added (*_max: the larger), cycles scaled to acc's clock; the
    serializing call kept from the part that switched most often."""
    for c in counters:
        v = s.get(c, 0)
        if c.endswith("_max"):
            acc[c] = max(acc.get(c, 0), v)
        else:
            acc[c] = acc.get(c, 0) + (round(v * scale) if c.startswith("cycles_") else v)
    a, b = acc.get("retries_histogram", []), s.get("retries_histogram", [])
    n = max(len(a), len(b))
    acc["retries_histogram"] = [x + y for x, y in zip(a + [0] * (n - len(a)), b + [0] * (n - len(b)))]
    if "irrevocable_call" in s and s.get("irrevocable_switches", 0) >= acc.get("_irrev_weight", -1):
        acc["_irrev_weight"] = s.get("irrevocable_switches", 0)
        for k in ("irrevocable_call", "irrevocable_call_object", "irrevocable_call_offset"):
            if k in s:
                acc[k] = s[k]


def merge(profs):
    """One profile summing the sites of several (same site object + offset)."""
    first = profs[0]
    counters = list(first["counters"])
    for p in profs[1:]:
        counters += [c for c in p["counters"] if c not in counters]
    hz = first.get("tsc_hz") or 0
    by = {}
    for p in profs:
        scale = hz / p["tsc_hz"] if hz and p.get("tsc_hz") else 1.0
        for s in p["sites"]:
            acc = by.setdefault(site_key(s), {k: v for k, v in s.items() if not _int(v) and k !=
                                              "retries_histogram" and not k.startswith("irrevocable")})
            add_site(acc, s, counters, scale)
    programs = sorted({str(p.get("program")) for p in profs})
    return {"tmkit_stats_version": VERSION, "pid": ", ".join(str(p.get("pid")) for p in profs),
            "program": ", ".join(programs), "algorithm": ", ".join(sorted({str(p.get("algorithm"))
                                                                           for p in profs})),
            "tsc_hz": hz, "counters": counters, "sites": list(by.values()),
            "path": "merged " + " + ".join(p["path"] for p in profs), "merged": profs}


def row(s, hz):
    """The derived figures of one (named) site."""
    aborts = sum(s.get(r, 0) for r in REASONS)
    starts, commits, hist = s["starts"], s["commits"], s.get("retries_histogram") or []
    top = sorted(((s.get(r, 0), r[6:]) for r in REASONS if s.get(r, 0)), reverse=True)[:2]
    inside = s.get("cycles_committed", 0) / hz * 1e3 if hz else 0.0
    wasted = s.get("cycles_aborted", 0) / hz * 1e3 if hz else 0.0
    return {
        "site": s.get("name", s["site"]), "starts": starts, "commits": commits, "aborts": aborts,
        "abort_rate": aborts / starts if starts else 0.0, "reasons": {r[6:]: s.get(r, 0) for r in REASONS},
        "top": ", ".join(f"{r} {n}" for n, r in top),
        # attempts under the serial lock: an htm-mode attempt that committed in hardware
        # started on the serial path (serial_attempts) but never took the lock
        "serial": max(s.get("serial_attempts", 0) + s.get("irrevocable_switches", 0)
                      - s.get("htm_commits", 0), 0),
        "irrevocable_call": s.get("irrevocable_name", ""),
        # GCC compiled the transaction to start irrevocable: the call that made it (the text)
        "start_irrevocable": s.get("gcc_irrevocable_name", "") if s.get("gcc_irrevocable_starts") else "",
        "retried": 1 - hist[0] / commits if commits and hist else 0.0,
        "max_retries": next((BUCKETS[i] for i in range(len(hist) - 1, -1, -1) if hist[i]), "-")
        if len(hist) <= len(BUCKETS) else "?", "histogram": hist,
        "read": (s.get("read_set_sum", 0) / commits if commits else 0.0, s.get("read_set_max", 0)),
        "write": (s.get("write_set_sum", 0) / commits if commits else 0.0, s.get("write_set_max", 0)),
        "inside_ms": inside, "wasted_ms": wasted,
        "lost": wasted / (inside + wasted) if inside + wasted else 0.0,
        # blocking waits (tm_retry, tm_cond_wait): sleeps, wake-ups, spurious ones, time asleep
        "waits": (s.get("retry_sleeps", 0), s.get("retry_wakeups", 0), s.get("retry_spurious", 0),
                  s.get("cycles_asleep", 0) / hz * 1e3 if hz else 0.0),
        # lock groups (tm_group_enter / tm_group_lock at this call): calls, ms waiting, ms held
        "groups": (s.get("group_enters", 0), s.get("group_locks", 0),
                   s.get("cycles_group_wait", 0) / hz * 1e3 if hz else 0.0,
                   s.get("cycles_group_held", 0) / hz * 1e3 if hz else 0.0),
    }


def rows(prof, sym=None):
    (sym or Symbolizer()).site_names(prof["sites"], prof.get("program"))
    out = [row(s, prof.get("tsc_hz") or 0) for s in prof["sites"]]
    out.sort(key=lambda r: (r["wasted_ms"], r["aborts"], r["starts"]), reverse=True)
    return out


def total(prof, label):
    """The sum of all sites as one row named label."""
    acc = {"site": "total", "name": label}
    for s in prof["sites"]:
        add_site(acc, s, prof["counters"])
    acc.setdefault("starts", 0), acc.setdefault("commits", 0)
    return row(acc, prof.get("tsc_hz") or 0)


HEADER = (f"{'site':<40} {'starts':>9} {'commits':>9} {'abort%':>7} {'retried':>7} {'max':>5} "
          f"{'read avg/max':>13} {'write avg/max':>13} {'ms in':>9} {'ms lost':>8} {'lost%':>6} "
          f"{'serial':>7}  top aborts / serializing call")


def serializer(r):
    """The serializing-call column's text: what GCC started irrevocable, and the call that last
    made an attempt switch to irrevocable."""
    parts = [r.get("start_irrevocable", "")] + \
        (["serialized by " + r["irrevocable_call"]] if r["irrevocable_call"] else [])
    return "; ".join(p for p in parts if p)


def line(r):
    extra = r["top"]
    sleeps, woken, spurious, asleep = r.get("waits", (0, 0, 0, 0.0))
    if sleeps:
        extra = (extra + "; " if extra else "") + \
            f"waits {sleeps} (woken {woken}, spurious {spurious}, {asleep:.1f} ms asleep)"
    enters, locks, gwait, gheld = r.get("groups", (0, 0, 0.0, 0.0))
    if enters or locks:
        kind = f"{enters} shared" if enters else f"{locks} exclusive, {gheld:.1f} ms held"
        if enters and locks:
            kind = f"{enters} shared, {locks} exclusive, {gheld:.1f} ms held"
        extra = (extra + "; " if extra else "") + f"groups {kind}, {gwait:.1f} ms waiting"
    if serializer(r):
        extra = (extra + "; " if extra else "") + serializer(r)
    rd, wr = (f"{m:.1f}/{x}" for m, x in (r["read"], r["write"]))
    return (f"{r['site'][:40]:<40} {r['starts']:>9} {r['commits']:>9} {100 * r['abort_rate']:>6.1f}% "
            f"{100 * r['retried']:>6.1f}% {r['max_retries']:>5} {rd:>13} {wr:>13} {r['inside_ms']:>9.2f} "
            f"{r['wasted_ms']:>8.2f} {100 * r['lost']:>5.1f}% {r['serial']:>7}  {extra}").rstrip()


def epochs(profs, key="adaptive_epochs"):
    """adaptive's epochs (or another per-mode count: adaptive_probes) per mode, summed over the
    profiles that have them (else None)."""
    have = [p[key] for p in profs if isinstance(p.get(key), dict)]
    if not have:
        return None
    out = {}
    for e in have:
        for mode, n in e.items():
            out[mode] = out.get(mode, 0) + (n if _int(n) else 0)
    return out


def describe(prof):
    merged = prof.get("merged", [prof])
    e = epochs(merged)
    modes = ("; adaptive epochs: " + ", ".join(f"{m} {n}" for m, n in e.items())) if e else ""
    pr = epochs(merged, "adaptive_probes")
    modes += ("; probes: " + ", ".join(f"{m} {n}" for m, n in pr.items())) if e and pr else ""
    sw = [p["adaptive_switches"] for p in merged if _int(p.get("adaptive_switches"))]
    modes += f", {sum(sw)} switches" if e and sw else ""
    # Why a TMKIT_ADAPTIVE_MODES=all process ran write-through (runtime/core/redo_check.c).
    notes = sorted({p["redo_fallback"] for p in merged if isinstance(p.get("redo_fallback"), str)})
    return (f"{prof['path']}: {prof.get('program')} (pid {prof.get('pid')}, algorithm "
            f"{prof.get('algorithm')}, {len(prof['sites'])} sites{modes})"
            + "".join(f"\n  {n}" for n in notes))


def section(prof, sym):
    """What the table and the page show for one (possibly merged) profile."""
    procs = [total(p, f"pid {p.get('pid')} ({os.path.basename(str(p.get('program')))})")
             for p in prof.get("merged", [prof])]
    return {"title": describe(prof), "rows": rows(prof, sym), "processes": procs,
            "total": total(prof, "total")}


def print_section(sec):
    print(sec["title"])
    print(HEADER)
    for r in sec["rows"]:
        print(line(r))
    print("-" * 40)
    for t in sec["processes"] if len(sec["processes"]) > 1 else []:
        print(line(t))
    print(line(sec["total"]))
    print()


def with_children(paths):
    """PATH plus the PATH.<pid> profiles that forked children wrote beside it, each file once."""
    out, seen = [], set()
    for p in paths:
        kids = [q for q in glob.glob(glob.escape(p) + ".*") if q.rsplit(".", 1)[1].isdigit()]
        for q in [p] + sorted(kids, key=lambda q: int(q.rsplit(".", 1)[1])):
            if os.path.realpath(q) not in seen:
                seen.add(os.path.realpath(q))
                out.append(q)
    return out
