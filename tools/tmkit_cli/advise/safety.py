"""What blocks a transaction: per-function summaries and per-statement blockers.

A call to a function with source is followed into its body when GCC would do the same: in the
same translation unit, or declared transaction_safe. A function with source in another
translation unit that is not declared transaction_safe is itself a blocker (GCC rejects it in
__transaction_atomic, and a relaxed transaction goes irrevocable at it unless the callee has a
TM clone); its body is still followed for the shared memory it touches and for what else blocks.
Lock operations are not blockers here: nested acquisitions become nested transactions when
their lock is removed too (planning.py keeps nested locks together).
"""
from clang.cindex import CursorKind as K

from . import libc
from .cfg import reachable
from .events import pointee_location


_STDIO = {"*struct _IO_FILE", "*FILE"}


class Blocker:
    __slots__ = ("kind", "what", "file", "line", "chain", "always")

    def __init__(self, kind, what, file, line, chain, always=True):
        self.kind, self.what, self.file, self.line = kind, what, file, line
        self.chain, self.always = chain, always

    def key(self):
        return (self.kind, self.what, self.file, self.line)


class Summary:
    def __init__(self):
        self.blockers = []       # Blocker, chain starting inside the function
        self.always = False      # every path from entry to return meets a blocker
        self.accesses = {}       # location -> set of 'r'/'w'
        self.acquires = {}       # lock name -> chain (function names) to the acquisition


def _const_decl(decl):
    return decl is not None and any(x.kind == K.CONST_ATTR for x in decl.get_children())


def _add_access(acc, loc, mode):
    s = acc.setdefault(loc, set())
    if "r" in mode:
        s.add("r")
    if "w" in mode:
        s.add("w")


class Analyzer:
    MAX_BLOCKERS = 40

    def __init__(self, prog, plan=None, skip=frozenset()):
        self.prog = prog
        self.plan = plan          # tmplan.TmPlan: analyse the program as --apply will write it
        self.skip = skip          # events that are no blockers: condvars.py's tm_cond_t rewrite
        self.active = set()

    def summary(self, f):
        if f.summary is not None:
            return f.summary
        if f.usr in self.active:               # recursion: assume the cycle adds nothing
            return Summary()
        self.active.add(f.usr)
        s = Summary()
        g = self.prog.graph(f)
        always_nodes = set()
        seen = set()
        for n in g.nodes:
            bl, alw = self.node(f, n, s.accesses, s.acquires)
            if alw:
                always_nodes.add(n.id)
            if bl and g.exit.id in reachable(g, [g.entry.id], lambda x: x.id == n.id):
                for b in bl:                    # not on every path through f
                    b.always = False
            for b in bl:
                if b.key() not in seen and len(s.blockers) < self.MAX_BLOCKERS:
                    seen.add(b.key())
                    s.blockers.append(b)
        if s.blockers:
            s.always = g.exit.id not in reachable(g, [g.entry.id], lambda n: n.id in always_nodes)
        self.active.discard(f.usr)
        f.summary = s
        return s

    def node(self, f, n, acc, acquires):
        """(blockers, always) of one node; adds its shared accesses and lock acquisitions."""
        out, always = [], False
        for ev in n.events:
            k = ev.kind
            if k == "access":
                if not (self.plan and self.plan.counter_access(ev)):   # counters.py
                    _add_access(acc, ev.what, ev.mode)
            elif k in ("volatile", "atomic", "asm"):
                if k == "volatile" and self.plan and self.plan.volatile_read_ok(ev):
                    continue                    # tmedits.py: tm_volatile_read
                if k == "atomic" and self.plan and self.plan.atomic_ok(ev):
                    continue                    # atomics.py: tm_atomic_*
                out.append(Blocker(k, ev.what, ev.file, ev.line, [f.name], not ev.conditional))
                always = always or not ev.conditional
            elif k == "call":
                if ev in self.skip:
                    continue
                if ev.lockop:
                    for lk in ev.lockop:
                        if lk.op in ("acquire", "try"):
                            acquires.setdefault(lk.name, [f.name])
                        elif lk.op == "wait":
                            out.append(Blocker("condvar-wait", f"{ev.what} on {lk.name}",
                                               ev.file, ev.line, [f.name], not ev.conditional))
                            always = always or not ev.conditional
                    continue
                bl, alw = self.call(f, ev, acc, acquires)
                if ev.conditional:
                    for b in bl:
                        b.always = False
                    alw = False
                out += bl
                always = always or alw
        return out, always

    def call(self, f, ev, acc, acquires):
        prog = self.prog
        if ev.indirect:
            # GCC never runs an indirect call in __transaction_atomic, so it stays a blocker;
            # what it touches is its possible targets' (pointsto.py), or anything
            out = [Blocker("indirect-call", f"call through function pointer '{ev.what}'",
                           ev.file, ev.line, [f.name])]
            targets = prog.indirect_callees(ev)
            if targets is None:
                _add_access(acc, "?", "rw")
                return out, True
            if self.plan:                       # the targets get transactional clones
                out = [Blocker("tm-call", f"call through function pointer '{ev.what}' (its "
                               "targets become transaction_callable)", ev.file, ev.line,
                               [f.name], False)]
            for callee in targets:
                s = self.summary(callee)
                for loc, modes in s.accesses.items():
                    _add_access(acc, loc, "".join(modes))
                for name, chain in s.acquires.items():
                    acquires.setdefault(name, [f.name] + chain)
                out += [Blocker(b.kind, b.what, b.file, b.line, [f.name] + b.chain, b.always)
                        for b in s.blockers]
            # without the plan the call itself goes irrevocable; with it, only a target that
            # does on every path makes it do so every time
            return out, (not self.plan) or all(self.summary(c).always for c in targets)
        attr = prog.tm_attr.get(ev.usr)
        if attr == "pure":
            return [], False
        callee = prog.callee(ev)
        if callee is not None:
            s = self.summary(callee)
            for loc, modes in s.accesses.items():
                _add_access(acc, loc, "".join(modes))
            for name, chain in s.acquires.items():
                acquires.setdefault(name, [f.name] + chain)
            out = [Blocker(b.kind, b.what, b.file, b.line, [f.name] + b.chain, b.always)
                   for b in s.blockers]
            always = s.always
            if self.plan is not None and callee.usr in self.plan.safe:
                attr = "safe"                   # tsafe.py: --apply declares it transaction_safe
            if attr != "safe" and not prog.same_tu(f, callee) and not callee.static and self.plan:
                from .program import display
                out.insert(0, Blocker(
                    "tm-call", f"{ev.what} is defined in another file ({display(callee.file)}): "
                    "called through tmkit_tmcall_" + ev.what + ", its transactional clone",
                    ev.file, ev.line, [f.name], False))
            elif attr != "safe" and not prog.same_tu(f, callee) and not callee.static:
                from .program import display
                out.insert(0, Blocker(
                    "unannotated-call",
                    f"{ev.what} is defined in another file ({display(callee.file)}) and not declared "
                    "__attribute__((transaction_safe))", ev.file, ev.line, [f.name]))
                always = True
            return out, always
        for a in ev.args:
            pl = pointee_location(a, f.extractor)
            if pl and pl[0] not in _STDIO:        # streams lock themselves
                _add_access(acc, pl[0], pl[1])
        if attr == "safe":
            return [], False
        if self.plan and libc.wrapped_by_tmkit(ev.what):
            return [], False                    # --apply includes tmkit.h in the file
        verdict = libc.classify(ev.what, _const_decl(ev.decl))
        if verdict is None:
            return [], False
        return [Blocker(verdict[0], verdict[1], ev.file, ev.line, [f.name])], True
