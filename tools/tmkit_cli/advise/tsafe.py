"""Which functions --apply declares `transaction_safe`, headers included.

A call from a transaction into a function of another file compiles inside __transaction_atomic
only when the callee is declared `__attribute__((transaction_safe))` where the call sees it: in
C the attribute is part of the function's type, so every declaration (the header's prototype,
any other prototype, the definition) must carry it, and GCC then checks the body: not one
unsafe call on any path, whether it runs or not. tmedits.py otherwise reaches such callees
through `transaction_callable` and a constant pointer (tmplan.py), which needs a relaxed
transaction. A function qualifies for the attribute when
- it has a body in the program, is not static (a static callee is in the caller's file, where
  GCC infers safety itself) and is not already declared transaction_safe/pure;
- code that may run in a transaction calls it from another file;
- its address is never taken (pointsto.Targets): a `transaction_safe` function converted to a
  plain function pointer is a type mismatch, an error under -Werror;
- every declaration of it (top level, in any translation unit) is written in a file inside
  the copied tree, in the file's own text (not a macro expansion, not a system header);
- nothing it may call, itself included, has a blocker of its own (of any kind, soft ones
  included) or a lock operation, when the calls to the other candidates count as safe: a
  candidate dropped for its address or its declarations gives its callers a `tm-call`
  blocker of their own, so one walk of the call graph per candidate decides it.
Sections whose only soft blockers were calls to such functions become __transaction_atomic.
"""
import os

from clang.cindex import CursorKind as K

from .reach import call_events, reached


def declarations(prog):
    """usr -> {(file, offset of the declaration's first character)} over every unit's top level;
    a declaration whose text does not start in its own file (a macro) maps to None."""
    out = {}
    for tu in prog.tus:
        if tu is None:
            continue
        for c in tu.cursor.get_children():
            if c.kind != K.FUNCTION_DECL or c.location.file is None:
                continue
            usr = c.get_usr()
            start = c.extent.start
            if c.location.is_in_system_header:
                out.setdefault(usr, set()).add(None)
            elif start.file is None or start.file.name != c.location.file.name:
                out.setdefault(usr, set()).add(None)
            else:
                out.setdefault(usr, set()).add((start.file.name, start.offset))
    return out


def _cross_file_callees(prog, sections):
    """The non-static functions with source that code reached from a section calls directly
    from another translation unit."""
    out = {}
    for f, region in reached(prog, [(s.func, s.region) for s in sections]):
        for ev, callees in call_events(prog, f, region):
            c = callees[0] if callees and not ev.indirect else None
            if c is not None and not c.system and not c.static and not prog.same_tu(f, c):
                out[c.usr] = c
    return out


def _inside(path, root):
    return os.path.abspath(path).startswith(root + os.sep)


def promotable(prog, sections, plan, root):
    """{usr: (Func, [(file, offset)] its declarations)} of the functions to declare
    transaction_safe. `plan` is the TmPlan of the second analysis (its volatile reads count as
    rewritten); `root` the directory --apply copies."""
    from .safety import Analyzer
    taken = prog.targets.address_taken()
    decls = declarations(prog)
    cands = {}
    for usr, c in _cross_file_callees(prog, sections).items():
        if usr in taken or prog.tm_attr.get(usr) in ("safe", "pure"):
            continue
        where = decls.get(usr, set())
        if not where or None in where or not all(_inside(p, root) for p, _ in where):
            continue
        cands[usr] = (c, sorted(where))
    if not cands:
        plan.safe, plan.safe_decls = set(), {}
        return {}
    saved = {u: f.summary for u, f in prog.funcs.items()}
    for f in prog.funcs.values():
        f.summary = None
    plan.safe = set(cands)                   # optimistic: every candidate counts as safe
    an = Analyzer(prog, plan)
    bad = {}                                 # usr -> the function has a blocker of its own
    out = {u: v for u, v in cands.items() if not _reaches_blocker(prog, an, v[0], bad)}
    plan.safe = set(out)
    plan.safe_decls = {u: v[1] for u, v in out.items()}
    for u, f in prog.funcs.items():
        f.summary = saved[u]
    return out


def _own_blocker(prog, an, f):
    """True when f's own statements block: a blocker whose chain starts and ends in f (a call
    into a non-candidate of another file is one, `tm-call`), or any lock operation (its
    section becomes a transaction or a group, neither of which a transaction_safe function may
    hold)."""
    g = prog.graph(f)
    for n in g.nodes:
        if any(ev.kind == "call" and ev.lockop for ev in n.events):
            return True
        bl, _ = an.node(f, n, {}, {})
        if any(len(b.chain) == 1 for b in bl):
            return True
    return False


def _reaches_blocker(prog, an, f, bad):
    """Whether anything f may call, itself included, has a blocker of its own. The call graph
    is walked explicitly (not through the summaries, whose recursion cut leaves a member of a
    call cycle without the rest of the cycle's blockers)."""
    for x, _ in reached(prog, [(f, None)], seen={f.usr},
                        follow=lambda ev: prog.tm_attr.get(ev.usr) != "pure"):
        if x.usr not in bad:
            bad[x.usr] = _own_blocker(prog, an, x)
        if bad[x.usr]:
            return True
    return False
