"""`tmkit check PROGRAM...`: does a -fgnu-tm binary rely on write-through? (check/scan.py)

Exit status: 0 nothing found that a redo-log algorithm gets wrong, 1 found some, 2 usage or
file errors. The default algorithm (adaptive, write-through modes) needs nothing of this."""
import argparse
import os
import sys

from .scan import RUNTIME_KINDS, ScanError, scan, tm_libraries, where

WHAT = {
    "indirect": "indirect call (*{d}) that no _ITM_getTMClone* resolved: a transaction_pure "
                "function pointer, whose callee runs on plain memory: under a redo log it reads "
                "memory as it was before the transaction and its writes are overwritten at commit",
    "extern": "calls {d} in another object, declared transaction_pure: it runs on plain memory, "
              "under a redo log it must not read or write what the transaction wrote",
    "inline-copy": "copy inlined as rep movs: a redo log hides the transaction's writes from it",
    "inline-fill": "fill inlined as rep stos: a redo log writes its buffered bytes over it at commit",
    "pure": "calls {d}, which runs on plain memory (transaction_pure or wrapped): under a redo "
            "log it must not read or write what the transaction wrote",
    "global": "{d} without a barrier: an inlined __builtin fill or copy, or inlined "
              "transaction_pure code; under a redo log it misses or loses the transaction's "
              "writes",
    "call": "plain {d} call (taken into the transaction by tmkit under every algorithm)",
    "unchecked": "no symbol table (stripped): its transaction clones cannot be found, nothing "
                 "can be said of them (check the unstripped build)",
}


def _objects(programs, libs):
    """The files to scan: each program, then (with libs) the -fgnu-tm libraries it loads."""
    seen, out = set(), []
    for path in programs:
        for p in [path] + (tm_libraries(path) if libs and os.path.isfile(path) else []):
            key = os.path.realpath(p)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def run(argv, root):
    p = argparse.ArgumentParser(
        prog="tmkit check",
        description="List what in a -fgnu-tm program only write-through algorithms get right "
                    "(calls through transaction_pure function pointers, transaction_pure calls, "
                    "inlined copies and fills in transaction clones), in the program and in the "
                    "-fgnu-tm libraries it loads. It matters only for TMKIT_ALGO=norec or "
                    "orec_lazy and TMKIT_ADAPTIVE_MODES=all; docs/algorithms.md, \"Redo logs "
                    "and programs written for libitm\".")
    p.add_argument("programs", nargs="+", metavar="PROGRAM", help="executables or shared objects")
    p.add_argument("--all", action="store_true",
                   help="also list the plain memcpy/memmove/memset/strlen calls (safe on tmkit)")
    p.add_argument("--no-libs", action="store_true",
                   help="only the files named, not the -fgnu-tm libraries they load")
    args = p.parse_args(argv)
    hazards, refused, status = 0, 0, 0
    for path in _objects(args.programs, not args.no_libs):
        if not os.path.isfile(path):
            print(f"tmkit check: {path}: no such file", file=sys.stderr)
            status = 2
            continue
        try:
            found = scan(path)
        except ScanError as e:
            print(f"tmkit check: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        shown = [f for f in found if args.all or f[0] != "call"]
        loc = where(path, [f[2] for f in shown if f[0] != "unchecked"])
        bad = sum(1 for f in found if f[0] != "call")
        hazards += bad
        refused += sum(1 for f in found if f[0] in RUNTIME_KINDS)
        print(f"{path}: {bad} redo-log hazard{'s' if bad != 1 else ''} in transaction clones"
              + ("" if bad else " (none of the kinds the scan sees; docs/algorithms.md lists "
                                 "those it cannot)"))
        for kind, clone, addr, detail in shown:
            if kind == "unchecked":
                print(f"  {path}: {WHAT[kind]}")
                continue
            at = loc.get(addr) or hex(addr)
            print(f"  {at}: in {clone}: {WHAT[kind].format(d=detail)}")
    if hazards:
        print(f"{refused} of them make the runtime refuse TMKIT_ALGO=norec and orec_lazy (and run "
              "TMKIT_ADAPTIVE_MODES=all write-through); the others are yours to judge: "
              "transaction_pure calls (TMKIT_REDO_CHECK=strict refuses them too) and plain "
              "global accesses (docs/algorithms.md)")
    sys.stdout.flush()
    if status:
        return status
    return 1 if hazards else 0
