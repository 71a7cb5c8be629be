"""`tmkit report PROFILE.json`: the per-site profile as a table, sites mapped to
function (file:line) with the objects' debug information (addr2line), sorted by wasted work."""
import json
import os
import subprocess
import sys

REASONS = ["abort_read_conflict", "abort_write_conflict", "abort_validation", "abort_cancel",
           "abort_retry", "abort_serial"]


def _symbolize(requests):
    """{(object, offset)} -> {(object, offset): "function (file:line)"}, one addr2line per object."""
    by_obj, out = {}, {}
    for obj, off in requests:
        by_obj.setdefault(obj, []).append(off)
    for obj, offs in by_obj.items():
        if not os.path.exists(obj):
            continue
        try:
            res = subprocess.run(["addr2line", "-f", "-C", "-e", obj] + offs,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        except (OSError, subprocess.CalledProcessError):
            continue
        for i, off in enumerate(offs):
            func, loc = (res[2 * i], res[2 * i + 1]) if 2 * i + 1 < len(res) else ("??", "??")
            loc = loc.split(" (discriminator")[0]
            out[(obj, off)] = f"{func} ({os.path.basename(loc.split(':')[0])}:{loc.rsplit(':', 1)[-1]})" \
                if loc != "??:0" else f"{os.path.basename(obj)}+{off}"
    return out


def load(path):
    try:
        with open(path) as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"tmkit report: cannot read {path}: {e}")
    if prof.get("tmkit_stats_version") != 1:
        sys.exit(f"tmkit report: {path}: unsupported profile version "
                 f"{prof.get('tmkit_stats_version')!r} (this tool reads version 1)")
    return prof


def rows(prof):
    req = set()
    for s in prof["sites"]:
        for key in ("site", "irrevocable_call"):
            if key + "_object" in s:
                req.add((s[key + "_object"], s[key + "_offset"]))
    names = _symbolize(req)
    hz = prof.get("tsc_hz") or 0
    out = []
    for s in prof["sites"]:
        aborts = sum(s.get(r, 0) for r in REASONS)
        name = names.get((s.get("site_object"), s.get("site_offset")), s["site"])
        if s["site"] == "0x1":
            name = "(other sites)"
        top = sorted(((s.get(r, 0), r[6:]) for r in REASONS if s.get(r, 0)), reverse=True)[:2]
        irrev = names.get((s.get("irrevocable_call_object"), s.get("irrevocable_call_offset")), "")
        out.append({
            "site": name, "starts": s["starts"], "commits": s["commits"], "aborts": aborts,
            "abort_rate": aborts / s["starts"] if s["starts"] else 0.0,
            "top": ", ".join(f"{r} {n}" for n, r in top),
            "serial": s.get("serial_attempts", 0) + s.get("irrevocable_switches", 0),
            "irrevocable_call": irrev,
            "wasted_ms": s.get("cycles_aborted", 0) / hz * 1e3 if hz else 0.0,
            "inside_ms": s.get("cycles_committed", 0) / hz * 1e3 if hz else 0.0,
        })
    out.sort(key=lambda r: (r["wasted_ms"], r["aborts"], r["starts"]), reverse=True)
    return out


def run(argv, root=None):
    import argparse
    ap = argparse.ArgumentParser(prog="tmkit report", description=__doc__)
    ap.add_argument("profiles", nargs="+", metavar="PROFILE.json")
    args = ap.parse_args(argv)
    for path in args.profiles:
        prof = load(path)
        print(f"{path}: {prof.get('program')} (pid {prof.get('pid')}, algorithm "
              f"{prof.get('algorithm')}, {len(prof['sites'])} sites)")
        print(f"{'site':<44} {'starts':>9} {'commits':>9} {'abort%':>7} {'ms in':>8} "
              f"{'ms lost':>8} {'serial':>7}  top aborts / serializing call")
        for r in rows(prof):
            extra = r["top"]
            if r["irrevocable_call"]:
                extra = (extra + "; " if extra else "") + "serialized by " + r["irrevocable_call"]
            print(f"{r['site'][:44]:<44} {r['starts']:>9} {r['commits']:>9} "
                  f"{100 * r['abort_rate']:>6.1f}% {r['inside_ms']:>8.2f} {r['wasted_ms']:>8.2f} "
                  f"{r['serial']:>7}  {extra}")
        print()
    return 0
