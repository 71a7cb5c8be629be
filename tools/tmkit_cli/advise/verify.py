"""--verify: compile the rewritten sources with gcc -fgnu-tm and compare GCC's view with ours.

Atomic blocks: GCC must accept them (it rejects unsafe calls, volatile accesses and asm inside
__transaction_atomic). A rejected block is switched to __transaction_relaxed in the scratch
copy and the file is compiled again, so every section gets GCC's view. Relaxed blocks:
-fdump-ipa-tmipa-lineno marks each transaction GTMA_DOES_GO_IRREVOCABLE (every path: always),
GTMA_MAY_ENTER_IRREVOCABLE (some paths: sometimes) or neither (never); that must equal the
report's `irrevocable`.
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile

_ERR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)
_TX = re.compile(r"\[(?P<file>[^:\]]+):(?P<line>\d+):\d+\] __transaction_(?P<kind>atomic|relaxed)"
                 r".*?SUBCODE=\[(?P<flags>[^\]]*)\]")
_TM_ERRORS = ("unsafe function call", "unsafe indirect function call", "invalid use of volatile",
              "not allowed in atomic transaction", "within atomic transaction")


def _gcc_view(flags):
    if "GTMA_DOES_GO_IRREVOCABLE" in flags:
        return "always"
    if "GTMA_MAY_ENTER_IRREVOCABLE" in flags:
        return "sometimes"
    return "never"


_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "include")


def _innermost(sections, line):
    best = None
    for s in sections:
        if s.new_lines is None:
            continue
        a, b = s.new_lines
        if a <= line <= b and (best is None or b - a < best.new_lines[1] - best.new_lines[0]):
            best = s
    return best


def _enclosing(sections, s):
    a, b = s.new_lines
    best = None
    for o in sections:
        if o is s or o.func is not s.func or o.new_lines is None:
            continue
        oa, ob = o.new_lines
        if oa < a and b < ob and (best is None or oa > best.new_lines[0]):
            best = o
    return best


def _compile(unit, text, path, work):
    for f in glob.glob(os.path.join(work, "*")):
        os.unlink(f)
    src = os.path.join(work, os.path.basename(path))
    with open(src, "wb") as f:
        f.write(text)
    cmd = (["gcc"] + unit.gcc_args() + ["-fgnu-tm", "-c", src, "-o", os.path.join(work, "out.o"),
                                        "-fdump-ipa-tmipa-lineno", "-iquote", os.path.dirname(path),
                                        "-I", os.path.normpath(_INCLUDE)])
    r = subprocess.run(cmd, cwd=unit.directory, capture_output=True, text=True)
    dump = ""
    for d in glob.glob(os.path.join(work, "*tmipa*")):
        with open(d, errors="replace") as f:
            dump += f.read()
    base = os.path.basename(path)
    errors = [(int(m["line"]), m["msg"]) for m in _ERR.finditer(r.stderr)
              if os.path.basename(m["file"]) == base]
    other = [m.group(0) for m in _ERR.finditer(r.stderr) if os.path.basename(m["file"]) != base]
    return r.returncode, errors, other, dump, " ".join(cmd)


def verify(patches, units):
    """Sets s.verify = {'gcc': ..., 'agree': bool, 'detail': str} on patched sections."""
    by_file = {u.file: u for u in units}
    work = tempfile.mkdtemp(prefix="tmkit-advise-")
    ok = True
    try:
        for p in patches:
            unit = by_file[p.path]
            text = p.new
            rejected = {}
            for _ in range(8):
                rc, errors, other, dump, cmd = _compile(unit, text, p.path, work)
                new_rejects = []
                stray = []
                for line, msg in errors:
                    s = _innermost(p.sections, line)
                    if s is not None and any(t in msg for t in _TM_ERRORS) and s.id not in rejected:
                        rejected[s.id] = f"line {line}: {msg}"
                        new_rejects.append(s)
                    elif s is None or not any(t in msg for t in _TM_ERRORS):
                        stray.append(f"{line}: {msg}")
                if stray or other or (rc != 0 and not new_rejects):
                    why = "; ".join((stray + other)[:3]) or "gcc failed"
                    for s in p.sections:
                        s.verify = {"gcc": "compile error", "agree": False,
                                    "detail": f"the rewritten file does not compile: {why}"}
                    ok = False
                    break
                if not new_rejects:
                    _judge(p, dump, rejected)
                    ok = ok and all(s.verify["agree"] for s in p.sections)
                    break
                lines = text.split(b"\n")
                for s in new_rejects:
                    if s.new_lines is None:
                        continue
                    i = s.new_lines[0] - 1
                    lines[i] = lines[i].replace(b"__transaction_atomic", b"__transaction_relaxed", 1)
                text = b"\n".join(lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ok


def _judge(p, dump, rejected):
    seen = {}
    for m in _TX.finditer(dump):
        seen.setdefault(int(m["line"]), (m["kind"], _gcc_view(m["flags"])))
    for s in p.sections:
        construct = s.patch["construct"]
        if s.new_lines is None:
            s.verify = {"gcc": "compiles; no transaction (the section holds its lock groups "
                               "exclusively)", "agree": True, "detail": ""}
            continue
        kind, view = seen.get(s.new_lines[0], (None, None))
        if s.id in rejected:
            s.verify = {"gcc": f"rejects {construct}: {rejected[s.id]}; relaxed: {view}",
                        "agree": False,
                        "detail": "GCC finds a blocker the report does not list"}
            continue
        outer = _enclosing(p.sections, s)
        if view is None and outer is not None:
            s.verify = {"gcc": f"nested in #{outer.id}: GCC flattens it into that transaction",
                        "agree": True, "detail": ""}
            continue
        if view is None:
            s.verify = {"gcc": "transaction not found in the tmipa dump", "agree": False,
                        "detail": "could not match the block in GCC's dump"}
            continue
        agree = view == s.gcc_irrevocable
        note = ""
        if agree and s.gcc_irrevocable != s.irrevocable:
            note = (f"report says {s.irrevocable}: the blocker is inside a called function on "
                    "some of its paths, where GCC's flags do not show it (its TM clone switches "
                    "to serial at run time)")
        s.verify = {"gcc": f"{construct} accepted; irrevocable: {view}", "agree": agree,
                    "detail": note if agree else f"report says irrevocable: {s.irrevocable}"
                    f" (expected GCC to show {s.gcc_irrevocable})"}
