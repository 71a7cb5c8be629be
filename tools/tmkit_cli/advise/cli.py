"""`tmkit advise` options and the order of the analysis."""
import json
import sys
import time

from . import analyze, classify, compdb, condvars, conflicts, lockflow, nesting, planning, \
    report, rewrite, sections
from .model import UserError
from .options import parser as _parser

def main(argv, root):
    flags = []
    if "--" in argv:
        i = argv.index("--")
        argv, flags = argv[:i], argv[i + 1:]
    args = _parser().parse_args(argv)
    try:
        return _run(args, flags, root)
    except UserError as e:
        print(f"tmkit advise: {e}", file=sys.stderr)
        return 2


def _analyse(prog, plan=None, skip=frozenset()):
    """Sections (outermost), unbalanced operations, lock order and cycles."""
    secs, unbalanced = sections.find(prog)
    from .safety import Analyzer
    an = Analyzer(prog, plan, skip)
    for s in secs:
        analyze.section(an, s)
    edges, cycles = analyze.lock_order(secs)
    secs = nesting.separate(secs) if plan is not None else nesting.outermost(secs)
    return secs, unbalanced, edges, cycles


def _run(args, flags, root):
    if args.build and args.compdb:
        raise UserError("give either -p DIR or --compdb FILE, not both")
    if args.group_arrays and not args.apply:
        raise UserError("--group-arrays goes with --apply")
    db = args.build or args.compdb
    if db:
        if flags:
            raise UserError("compiler flags after -- apply to files without a compilation database")
        units = compdb.from_compdb(db, args.files, args.entry)
    elif args.files:
        units = compdb.from_files(args.files, flags)
    else:
        raise UserError("nothing to analyse: give -p BUILD_DIR, --compdb FILE or C files "
                        "(see tmkit advise --help)")
    t0 = time.monotonic()
    from .program import Program
    prog = Program(units)
    timing = dict(prog.timing)
    t1 = time.monotonic()
    lockflow.discover(prog)
    secs, unbalanced, edges, cycles = _analyse(prog)
    read = rewrite.source_reader()
    conds = condvars.Conds(prog, secs, read)   # which pthread_cond_t may become tm_cond_t
    plan = None
    if args.apply:
        # --apply writes a program in which some blockers are gone (tmplan.py): analyse it as
        # it will be, from the first analysis's view of which volatiles sections write
        from . import tmplan
        plan = tmplan.plan_for(prog, secs)
        from . import apply as apply_mod, tsafe
        tsafe.promotable(prog, secs, plan, apply_mod.source_root(units, args.src))
    again = plan is not None or bool(conds.skip)
    lock_cands, lg_refused = ({}, {})
    if plan is not None:   # locks that may become lock groups (lockgroups.py)
        from . import lockgroups
        lock_cands, lg_refused = lockgroups.candidates(prog, read, args.group_arrays)
    lg = {}
    while True:
        if again:   # the program as it will be written; again after a condition is dropped
            for f in prog.funcs.values():
                f.summary = None
            secs, unbalanced, edges, cycles = _analyse(prog, plan, conds.skip)
        groups = conflicts.groups(secs)
        cmap = classify.classify(secs, groups, plan is not None)
        pre = {u["lock"]: f"unbalanced release at {u['file']}:{u['line']}" for u in unbalanced}
        lg.clear()
        kept = planning.plan_patches(secs, edges, units, read, pre, cmap, lock_cands,
                                     unbalanced, lg)
        again = conds.settle(secs, kept)
        if not again:
            break
    extra = None
    if plan is not None:
        from . import tmedits
        removed = {s.lock.name for s in secs} - set(kept)
        if lg.get("lock_groups") is not None:   # grouped locks may be left unused too
            removed |= {n.rstrip("[]") for n in lg["lock_groups"].order}
        extra = tmedits.build(prog, secs, plan, read, removed)
        if lg.get("lock_groups") is not None:
            from . import lockgroups
            lockgroups.merge(lg["lock_groups"], extra, secs)
    if conds.live():
        from . import tmedits
        extra = conds.edits(extra if extra is not None else tmedits.Edits())
    timing["analysis"] = time.monotonic() - t1
    prog.count_lines()
    patches = []
    if args.patch or args.verify or args.apply:
        from .patch import NoPatch
        try:
            patches = rewrite.build(secs, read, extra)
        except NoPatch as e:   # two plans that touch the same text: a bug, said plainly
            raise UserError(f"the rewrite's edits conflict ({e}); nothing was written")
    if args.src and not args.apply:
        raise UserError("--src goes with --apply")
    if args.apply:
        from . import apply
        src, written = apply.write(args.apply, patches, units, root, args.src)
        print(f"tmkit advise: wrote {args.apply} (a copy of {src}; {len(written)} file(s) "
              f"rewritten; build with: cd {args.apply} && . ./tmkit-build.env && ...)",
              file=sys.stderr)
    ok = True
    if args.verify:
        from . import verify
        t2 = time.monotonic()
        ok = verify.verify(patches, units)
        timing["verify"] = time.monotonic() - t2
    timing["total"] = time.monotonic() - t0
    doc = report.to_json(prog, secs, unbalanced, edges, cycles, groups, kept, timing,
                         conds.to_json())
    if extra is not None:
        doc["apply"] = report.apply_json(extra)
    if plan is not None:
        from . import lockgroups
        doc["lock_groups"] = lockgroups.to_json(lg.get("lock_groups"), secs, lg_refused, kept)
    out = open(args.output, "w") if args.output else sys.stdout
    try:
        if args.json:
            json.dump(doc, out, indent=1)
            out.write("\n")
        elif args.patch and not args.verify:
            for p in patches:
                out.write(p.diff())
        else:
            report.to_text(doc, out)
            if args.patch:
                out.write("\n")
                for p in patches:
                    out.write(p.diff())
    finally:
        if args.output:
            out.close()
    return 0 if ok else 1
