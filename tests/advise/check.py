#!/usr/bin/env python3
"""Runs `bin/tmkit advise --json` on a fixture and compares the fields that matter with an
expected file (fixture-name.expected.json); volatile data (timing, ids) is not compared.

usage: check.py ROOT EXPECTED.json
Expected keys: args (advise arguments, paths relative to ROOT), compdb (optional: write a
compile_commands.json for these files into a scratch dir and pass -p), verify (bool),
sections (each: function, optionally line/locks, then the fields to compare: class, status,
irrevocable, kind, mode, colors, blockers (kind, paths, chain, hint: the keys of the first),
suggest_has (strings the suggestion contains), patch), section_count, lock_order ([from, to] pairs,
exact set), cycles (exact), components (connected components as function-name lists, exact),
unbalanced (function names, exact), patch_applies (bool: `--patch` output applies with patch -p1),
condvars ({name: null if rewritten to tm_cond_t, else a fragment of its reason}; "null" for an
unresolved one).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

FIELDS = ("class", "locks", "status", "irrevocable", "kind", "mode", "colors")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(root, exp, extra):
    args = list(exp["args"])
    tmp = None
    if exp.get("compdb"):
        tmp = tempfile.mkdtemp(prefix="advise-test-")
        db = [{"directory": root, "file": f, "arguments": ["gcc", "-O2", "-c", f] + exp.get("flags", [])}
              for f in exp["compdb"]]
        with open(os.path.join(tmp, "compile_commands.json"), "w") as fh:
            json.dump(db, fh)
        args = ["-p", tmp] + args
    cmd = [os.path.join(root, "bin", "tmkit"), "advise"] + extra + args
    try:
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return r, cmd


def match_section(actual, e):
    cands = [s for s in actual if s["function"] == e["function"]
             and ("line" not in e or s["line"] == e["line"])
             and ("locks" not in e or s["locks"] == e["locks"])]
    if len(cands) != 1:
        fail(f"expected one section for {e['function']} {e.get('line', '')} {e.get('locks', '')}, "
             f"found {len(cands)}")
    return cands[0]


def main():
    root, expected = sys.argv[1], sys.argv[2]
    with open(expected) as fh:
        exp = json.load(fh)
    extra = ["--json"] + (["--verify"] if exp.get("verify") else [])
    r, cmd = run(root, exp, extra)
    if r.returncode != exp.get("status", 0):
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr}{r.stdout[-2000:]}")
    doc = json.loads(r.stdout)
    if doc.get("version") != 2:
        fail("missing or wrong version")
    secs = doc["sections"]
    by_id = {s["id"]: s for s in secs}
    if "section_count" in exp and len(secs) != exp["section_count"]:
        fail(f"{len(secs)} sections, expected {exp['section_count']}")
    for e in exp.get("sections", []):
        s = match_section(secs, e)
        where = f"section {s['function']}:{s['line']}"
        for k in FIELDS:
            if k in e and s[k] != e[k]:
                fail(f"{where}: {k} is {s[k]!r}, expected {e[k]!r}")
        if "blockers" in e:
            got = [{k: b[k] for k in ("kind", "paths", "chain", "hint") if k in e["blockers"][0]}
                   for b in s["blockers"]] if e["blockers"] else [b["kind"] for b in s["blockers"]]
            want = e["blockers"]
            if got != want:
                fail(f"{where}: blockers {got}, expected {want}")
        for part in e.get("suggest_has", []):
            if part not in s["suggest"]:
                fail(f"{where}: suggestion {s['suggest']!r} does not say {part!r}")
        if "patch" in e:
            p = s["patch"]
            if p.get("eligible") != (e["patch"] is not None):
                fail(f"{where}: patch {p}, expected {e['patch']}")
            if e["patch"] and p["construct"] != e["patch"]:
                fail(f"{where}: construct {p['construct']}, expected {e['patch']}")
        if exp.get("verify") and s["patch"].get("eligible") and not s.get("verify", {}).get("agree"):
            fail(f"{where}: GCC disagrees: {s.get('verify')}")
    if "lock_order" in exp:
        got = sorted([o["from"], o["to"]] for o in doc["lock_order"])
        if got != sorted(exp["lock_order"]):
            fail(f"lock order {got}, expected {sorted(exp['lock_order'])}")
    if "cycles" in exp and sorted(c["locks"] for c in doc["cycles"]) != sorted(exp["cycles"]):
        fail(f"cycles {[c['locks'] for c in doc['cycles']]}, expected {exp['cycles']}")
    if "components" in exp:
        got = sorted(sorted(by_id[i]["function"] for i in g["sections"]) for g in doc["components"])
        if got != sorted(sorted(g) for g in exp["components"]):
            fail(f"components {got}, expected {exp['components']}")
    if "unbalanced" in exp and sorted(u["function"] for u in doc["unbalanced"]) != sorted(exp["unbalanced"]):
        fail(f"unbalanced {doc['unbalanced']}, expected {exp['unbalanced']}")
    if "condvars" in exp:   # {name: reason fragment, or null for rewritten}, every condition
        got = {c["name"] or "null": c for c in doc["condvars"]}
        if sorted(got) != sorted(exp["condvars"]):
            fail(f"condition variables {sorted(got)}, expected {sorted(exp['condvars'])}")
        for name, why in exp["condvars"].items():
            c = got[name]
            if (why is None) != c["rewritten"] or (why and why not in c.get("reason", "")):
                fail(f"condition {name}: rewritten {c['rewritten']} ({c.get('reason')}), "
                     f"expected {why or 'rewritten'}")
    if exp.get("patch_applies"):
        r, cmd = run(root, exp, ["--patch"])
        if r.returncode != 0 or not r.stdout.startswith("--- a/"):
            fail(f"--patch failed: {r.stderr}")
        p = subprocess.run(["patch", "-p1", "--dry-run", "-s", "-d", root], input=r.stdout,
                           capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"the diff does not apply: {p.stdout}{p.stderr}")
    print(f"ok: {len(secs)} sections, {len(doc['components'])} components, {len(doc['cycles'])} cycles")


if __name__ == "__main__":
    main()
