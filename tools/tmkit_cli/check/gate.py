"""The redo-log check of `tmkit run`: before a program starts under a redo-log algorithm
(`--algo=norec|orec_lazy`, TMKIT_ALGO=norec|orec_lazy, TMKIT_ADAPTIVE_MODES=all), the program and
the -fgnu-tm libraries it loads are scanned as `tmkit check` does (check/scan.py), and each
object's findings are cached under its GNU build id ($XDG_CACHE_HOME/tmkit/check/ID.json, with
the scanner's own digest, so that a new scan.py or a rebuilt object is scanned afresh).
  - norec / orec_lazy: on a hazard the runtime would refuse too (scan.RUNTIME_KINDS; with
    TMKIT_REDO_CHECK=strict every kind), the program is not started: exit status 2 and the
    hazards with their functions and source lines;
  - TMKIT_ADAPTIVE_MODES=all: a note that the process will run write-through; the runtime then
    leaves the redo-log modes out and its profile says why.
The runtime does its own scan at start-up whatever launched it (runtime/core/redo_check.c), so
this one adds the source lines and skips nothing; TMKIT_REDO_CHECK=off skips both."""
import hashlib
import json
import os
import shutil
import struct
import sys

from . import scan as scanmod
from .main import WHAT
from .scan import RUNTIME_KINDS, ScanError

REDO_ALGOS = ("norec", "orec_lazy")


def build_id(path):
    """The object's NT_GNU_BUILD_ID as hex, or None (read from its PT_NOTE segments)."""
    try:
        with open(path, "rb") as f:
            eh = f.read(64)
            if len(eh) < 64 or eh[:4] != b"\x7fELF" or eh[4] != 2 or eh[5] != 1:
                return None
            phoff, = struct.unpack_from("<Q", eh, 32)
            phentsize, phnum = struct.unpack_from("<HH", eh, 54)
            f.seek(phoff)
            phdrs = f.read(phentsize * phnum)
            for i in range(phnum):
                ptype, _, off, _, _, size = struct.unpack_from("<IIQQQQ", phdrs, i * phentsize)
                if ptype != 4 or size > 1 << 16:  # PT_NOTE
                    continue
                f.seek(off)
                notes, k = f.read(size), 0
                while k + 12 <= len(notes):
                    namesz, descsz, ntype = struct.unpack_from("<III", notes, k)
                    name_end = k + 12 + ((namesz + 3) & ~3)
                    if ntype == 3 and notes[k + 12:k + 12 + namesz] == b"GNU\0":
                        return notes[name_end:name_end + descsz].hex()
                    k = name_end + ((descsz + 3) & ~3)
    except (OSError, struct.error):
        return None
    return None


def _digest():
    with open(scanmod.__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tmkit", "check")


def findings(path, digest):
    """[(kind, clone, 'file:line' or address, detail)] of one object, from the cache when its
    build id, its size and the scanner's digest match, else scanned (and cached if it has a
    build id). The size tells a stripped copy, which keeps the build id, from the original."""
    bid = build_id(path)
    entry = os.path.join(cache_dir(), bid + ".json") if bid else None
    if entry:
        try:
            with open(entry) as f:
                c = json.load(f)
            if c.get("scanner") == digest and c.get("size") == os.path.getsize(path):
                return [tuple(x) for x in c["findings"]]
        except (OSError, ValueError, KeyError, TypeError):
            pass
    found = scanmod.scan(path)
    loc = scanmod.where(path, [f[2] for f in found if f[0] not in ("unchecked", "call")])
    out = [(k, c, loc.get(a) or hex(a), d) for k, c, a, d in found if k != "call"]
    if entry:
        try:
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            tmp = f"{entry}.{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump({"scanner": digest, "size": os.path.getsize(path),
                       "object": os.path.realpath(path),
                           "findings": out}, f)
            os.replace(tmp, entry)  # whole or not at all, for concurrent runs
        except OSError:
            pass
    return out


def check(prog, algo, env):
    """Exit status 2 if `prog` must not start under this configuration, else None (it may)."""
    mode = env.get("TMKIT_REDO_CHECK", "auto")
    adaptive_all = algo == "adaptive" and env.get("TMKIT_ADAPTIVE_MODES") == "all"
    if mode not in ("auto", "strict") or (algo not in REDO_ALGOS and not adaptive_all):
        return None  # off, or a value the runtime will reject with its own message
    path = shutil.which(prog, path=env.get("PATH")) if os.sep not in prog else prog
    if not path or not os.path.isfile(path) or not _is_elf(path):
        return None  # a script or a missing file: the runtime's scan still applies
    kinds = RUNTIME_KINDS | ({"pure", "extern"} if mode == "strict" else set())
    digest, bad = _digest(), []
    try:
        objs = [path] if scanmod.needs_tm_runtime(path) else []  # the runtime's choice too
        for obj in objs + scanmod.tm_libraries(path, env):
            bad += [(obj,) + f for f in findings(obj, digest) if f[0] in kinds]
    except ScanError as e:
        print(f"tmkit run: cannot check {prog} ({e}); the runtime's own scan applies",
              file=sys.stderr)
        return None
    if not bad:
        return None
    n = f"{len(bad)} redo-log hazard{'s' if len(bad) != 1 else ''}"
    lines = "".join(f"\n  {o}: {WHAT[k]}" if k == "unchecked" else
                    f"\n  {a}: in {c}: {WHAT[k].format(d=d)}" for o, k, c, a, d in bad[:10])
    more = f"\n  ... and {len(bad) - 10} more (`tmkit check {prog}`)" if len(bad) > 10 else ""
    if adaptive_all:
        print(f"tmkit run: TMKIT_ADAPTIVE_MODES=all runs {prog} write-through: {n} in its "
              f"transaction clones (a profile, --stats, records why):{lines}{more}", file=sys.stderr)
        return None
    print(f"tmkit run: TMKIT_ALGO={algo} refused for {prog}: {n} in its transaction clones, "
          f"code a redo log runs on memory as it was before the transaction:{lines}{more}\n"
          "Use a write-through algorithm (the default, gl_wt, orec_eager), or TMKIT_REDO_CHECK=off "
          "to run it anyway (docs/algorithms.md, \"Redo logs and programs written for libitm\")",
          file=sys.stderr)
    return 2


def _is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False
