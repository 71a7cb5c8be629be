"""`tmkit check PROGRAM...`: does a -fgnu-tm binary rely on write-through? (check/scan.py)

Exit status: 0 nothing found that a redo-log algorithm gets wrong, 1 found some, 2 usage or
file errors. The default algorithm (adaptive, write-through modes) needs nothing of this."""
import argparse
import os
import sys

from .scan import ScanError, scan, where

WHAT = {
    "inline-copy": "copy inlined as rep movs: a redo log hides the transaction's writes from it",
    "inline-fill": "fill inlined as rep stos: a redo log writes its buffered bytes over it at commit",
    "pure": "calls {d}, which runs on plain memory (transaction_pure or wrapped): under a redo "
            "log it must not read or write what the transaction wrote",
    "call": "plain {d} call (taken into the transaction by tmkit under every algorithm)",
}


def run(argv, root):
    p = argparse.ArgumentParser(
        prog="tmkit check",
        description="List what in a -fgnu-tm program only write-through algorithms get right "
                    "(inlined copies and fills, transaction_pure calls in transaction clones). "
                    "It matters only for TMKIT_ALGO=norec or orec_lazy and "
                    "TMKIT_ADAPTIVE_MODES=all; docs/algorithms.md, \"Redo logs and programs "
                    "written for libitm\".")
    p.add_argument("programs", nargs="+", metavar="PROGRAM", help="executables or shared objects")
    p.add_argument("--all", action="store_true",
                   help="also list the plain memcpy/memmove/memset calls (safe on tmkit)")
    args = p.parse_args(argv)
    hazards, status = 0, 0
    for path in args.programs:
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
        loc = where(path, [f[2] for f in shown])
        bad = sum(1 for f in found if f[0] != "call")
        hazards += bad
        print(f"{path}: {bad} redo-log hazard{'s' if bad != 1 else ''} in transaction clones"
              + ("" if bad else " (safe for norec/orec_lazy as far as clones show)"))
        for kind, clone, addr, detail in shown:
            at = loc.get(addr) or hex(addr)
            print(f"  {at}: in {clone}: {WHAT[kind].format(d=detail)}")
    if status:
        return status
    return 1 if hazards else 0
