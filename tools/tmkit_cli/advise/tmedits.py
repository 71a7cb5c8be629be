"""The program-wide edits of --apply (tmplan.py says why each is needed):
- `__attribute__((transaction_callable))` before the definition of every function that code
  running in a transaction calls in another file, or through a function pointer;
- `tmkit_tmcall_NAME(...)` for each such call into another file, the pointer defined after the
  callee's definition and declared before the first caller function in each calling file;
- `tm_volatile_read(v)` for the volatile reads tmplan.TmPlan allows;
- `__attribute__((transaction_safe))` on every declaration (headers included) and the
  definition of each function tsafe.py promotes; calls to it stay direct;
- `#include <tmkit.h>` in every file that gets an edit other than such a declaration
  (rewrite.py places it; a header that only gains the attribute needs nothing of tmkit.h).
"Code running in a transaction": the rewritten transactional sections and every function they
reach through calls, in this file or another, directly or through a pointer; that function's
body is edited for all of its callers, which changes nothing outside transactions (a call
through a constant pointer, a read through a transaction_pure function).
Text that comes from a macro expansion is never edited: a call or read spelled inside a macro
stays as it is, and so does its blocker (listed in `left`).
"""
from clang.cindex import CursorKind as K

from .parse import strip
from .reach import reached

CALLABLE = "__attribute__((transaction_callable)) "
SAFE = "__attribute__((transaction_safe)) "
PTR = "tmkit_tmcall_"


class Edits:
    def __init__(self):
        self.by_file = {}        # path -> [(start, end, text)]
        self.left = []           # (file, line, what): changes that could not be written
        self.include = set()     # paths whose edits need <tmkit.h>
        self.declared_safe = []  # (name, file, line, [(file, line)] declarations written)
        self.callable = []       # (name, file, line): definitions given transaction_callable

    def add(self, path, a, b, text, prio=1, include=True):
        """An edit; among insertions at one offset, lower `prio` comes first (a declaration
        before the attribute that opens the next definition)."""
        if include:
            self.include.add(path)
        edits = self.by_file.setdefault(path, [])
        if (a, b, text, prio) not in edits:   # a call reached from two sections is one edit
            edits.append((a, b, text, prio))


def _spelled(src, c, name):
    """True when the cursor's extent is exactly NAME in this file's text (not a macro)."""
    e = c.extent
    if e.start.file is None or e.end.file is None or e.start.file.name != e.end.file.name:
        return False
    return src[e.start.offset:e.end.offset] == name.encode()


def _callee_ref(ev):
    kids = list(ev.cursor.get_children())
    return strip(kids[0]) if kids else None


def transactional_code(prog, sections):
    """[(func, node ids or None for the whole body)] of the code that runs in transactions."""
    roots = [(s.func, s.region) for s in sections
             if s.patch and s.patch.get("eligible") and
             ("__transaction" in s.patch.get("construct", "") or
              "tm_atomic_retry" in s.patch.get("construct", ""))]
    return [(f, set(region) if region is not None else None)
            for f, region in reached(prog, roots)]


def _unused_locks(prog, ed, removed):
    """A static lock whose every section became a transaction is left unused (and a program
    built with -Werror stops at -Wunused-variable): its definition gets `unused`."""
    done = set()
    for tu in prog.tus:
        if tu is None:
            continue
        for c in tu.cursor.get_children():
            if c.kind != K.VAR_DECL or c.spelling not in removed or c.location.file is None:
                continue
            key = (c.location.file.name, c.extent.start.offset)
            if key in done or c.storage_class.name != "STATIC" or c.location.is_in_system_header:
                continue
            done.add(key)
            ed.add(c.location.file.name, c.extent.start.offset, c.extent.start.offset,
                   "__attribute__((unused)) ", prio=2)


def build(prog, sections, plan, read, removed=()):
    """The Edits for the transactional code of the rewritten sections; `removed`: the locks no
    section takes any more."""
    ed = Edits()
    _unused_locks(prog, ed, set(removed))
    callable_ = {}           # usr -> Func
    safe = {}                # usr -> Func: tsafe.py's, reached from transactional code
    xcalls = {}              # callee usr -> {caller file: first caller Func}
    vreads = set()
    for f, region in transactional_code(prog, sections):
        g = prog.graph(f)
        nodes = region if region is not None else range(len(g.nodes))
        for nid in nodes:
            for ev in g.nodes[nid].events:
                if ev.kind == "volatile" and plan.volatile_read_ok(ev):
                    _vread(ed, read, ev, vreads)
                elif ev.kind == "call" and not ev.lockop:
                    _call(prog, ed, read, f, ev, callable_, xcalls, plan, safe)
        if f.usr in plan.safe:
            safe[f.usr] = f
    for usr, c in sorted(safe.items()):
        _mark_safe(plan, read, ed, c)
    for usr, c in callable_.items():
        _mark_callable(ed, read, c)
    for usr, callers in xcalls.items():
        c = prog.funcs[usr]
        decl = f"extern __typeof__(&{c.name}) const {PTR}{c.name};"
        _after_definition(ed, read, c, decl + f" /* tmkit advise: {c.name}'s transactional clone " \
                          "from other files */\n" + f"__typeof__(&{c.name}) const {PTR}{c.name} = {c.name};")
        for path, caller in callers.items():
            at = caller.decl.extent.start.offset
            ed.add(path, at, at, decl + "\n", prio=0)
    _atomics_counters(prog, sections, plan, ed)
    return ed


def _atomics_counters(prog, sections, plan, ed):
    """atomics.py's and counters.py's edits; what they did goes to the report (prog.rewrites)."""
    tx = {f.usr for f, _ in transactional_code(prog, sections)}
    r = {}
    if getattr(plan, "atomics", None) is not None:
        r["atomics"], r["atomics_left"] = plan.atomics.edits(ed, tx)
    if getattr(plan, "counters", None) is not None:
        r["counters"], r["counters_left"] = plan.counters.edits(ed)
    prog.rewrites = r


def _vread(ed, read, ev, done):
    c = ev.cursor
    key = (ev.file, c.extent.start.offset)
    if key in done:
        return
    done.add(key)
    name = c.spelling
    path = c.extent.start.file.name if c.extent.start.file else ev.file
    if not name or not _spelled(read(path), c, name):
        ed.left.append((ev.file, ev.line, f"a read of volatile '{ev.loc}' inside a macro"))
        return
    ed.add(path, c.extent.start.offset, c.extent.end.offset, f"tm_volatile_read({name})")


def _call(prog, ed, read, f, ev, callable_, xcalls, plan, safe):
    if ev.indirect:
        for c in prog.indirect_callees(ev) or []:
            callable_[c.usr] = c
        return
    c = prog.callee(ev)
    if c is None or c.system or prog.tm_attr.get(ev.usr) in ("safe", "pure"):
        return
    if prog.same_tu(f, c) or c.static:
        return
    if c.usr in plan.safe:
        safe[c.usr] = c
        return
    callable_[c.usr] = c
    ref = _callee_ref(ev)
    path = ref.extent.start.file.name if ref is not None and ref.extent.start.file else None
    if ref is None or path is None or not _spelled(read(path), ref, c.name) or f.decl is None \
            or f.decl.extent.start.file is None or f.decl.extent.start.file.name != path:
        ed.left.append((ev.file, ev.line, f"a call of {c.name} spelled in a macro: it goes "
                                          "irrevocable"))
        return
    ed.add(path, ref.extent.start.offset, ref.extent.end.offset, PTR + c.name)
    first = xcalls.setdefault(c.usr, {}).get(path)
    if first is None or f.decl.extent.start.offset < first.decl.extent.start.offset:
        xcalls[c.usr][path] = f       # the pointer's declaration goes before this function


def _mark_callable(ed, read, c):
    d = c.decl
    if d is None or d.extent.start.file is None or d.extent.start.file.name != c.file:
        ed.left.append((c.file, c.line, f"{c.name}'s definition comes from a macro: no clone"))
        return
    at = d.extent.start.offset
    ed.add(c.file, at, at, CALLABLE, prio=2)
    ed.callable.append((c.name, c.file, c.line))


def _mark_safe(plan, read, ed, c):
    """transaction_safe at the start of each declaration; the definition's file includes
    tmkit.h (its body may call the wrapped libc), a prototype's needs nothing."""
    where = []
    for path, off in plan.safe_decls[c.usr]:
        defn = c.decl is not None and c.decl.extent.start.file is not None and \
            c.decl.extent.start.file.name == path and c.decl.extent.start.offset == off
        ed.add(path, off, off, SAFE, prio=2, include=defn)
        where.append((path, read(path).count(b"\n", 0, off) + 1))
    ed.declared_safe.append((c.name, c.file, c.line, where))


def _after_definition(ed, read, c, text):
    d = c.decl
    if d is None or d.extent.end.file is None or d.extent.end.file.name != c.file:
        ed.left.append((c.file, c.line, f"{c.name}'s definition comes from a macro: no pointer"))
        return
    at = d.extent.end.offset
    ed.add(c.file, at, at, "\n" + text)
