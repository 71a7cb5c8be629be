"""Condition variables whose lock goes: pthread_cond_t -> tm_cond_t (include/tmkit/wait.h).

A pthread_cond_t C is rewritten when it is a global named directly (`&C`) at every use, every
wait on it is `pthread_cond_wait(&C, &L)` / `pthread_cond_timedwait(&C, &L, T)` inside a section
of one lock L in the same function, and every signal or broadcast is inside a section of L or
outside every section (tm_cond_signal outside a transaction wakes at once, after the commit that
made the predicate true). Its waits and signals then stop being blockers (safety.py skips
them); if every section of L becomes a transaction and each waiting section is a plain
__transaction_atomic, `lock(L); while (!p) pthread_cond_wait(&C, &L); BODY unlock(L);` becomes
`tm_atomic_retry { if (!p) tm_cond_wait(&C); BODY }` (cvshape.py has the shapes and edits).
tm_atomic_retry runs the whole transaction again after a wake-up, where the lock-based code
went on after the wait: the same only when the code from the section's start to the wait
only reads. A condition that does not fit keeps its pthread_cond_t, its waiting sections their
lock, and the report says why (json: "condvars")."""
from clang.cindex import CursorKind as K

from . import cvshape
from .parse import strip
from .program import display

WAIT = {"pthread_cond_wait": "tm_cond_wait", "pthread_cond_timedwait": "tm_cond_wait_until"}
SIGNAL = {"pthread_cond_signal": "tm_cond_signal", "pthread_cond_broadcast": "tm_cond_broadcast"}
OTHER = ("pthread_cond_init", "pthread_cond_destroy")
UNHANDLED = ("pthread_cond_clockwait", "cnd_wait", "cnd_timedwait", "cnd_signal", "cnd_broadcast")


class Cond:
    def __init__(self, usr, name):
        self.usr, self.name = usr, name
        self.uses = []           # (func, node, ev, op name)
        self.decls = []          # VAR_DECL cursors
        self.lock = None
        self.reason = None
        self.waits = {}          # ev -> (func, node, [edits]) or reason text
        self.sections = set()    # ids of the waiting sections
        self.file, self.line = None, None

    def keep(self, why):
        if self.reason is None:
            self.reason = why


class Conds:
    """The program's condition variables and which of them the rewrite turns into tm_cond_t."""

    def __init__(self, prog, sections, read):
        self.prog, self.read = prog, read
        self.conds = {}
        self.unresolved = []     # (func, ev, what): a wait or signal on a condition not resolved
        self._collect()
        self._decide(sections)

    @property
    def skip(self):
        """The wait and signal events the analysis no longer counts as blockers."""
        return {u[2] for c in self.live() for u in c.uses}

    def live(self):
        return [c for c in self.conds.values() if c.reason is None]

    def _collect(self):
        prog = self.prog
        for f in prog.user_funcs():
            g = prog.graph(f)
            for n in g.nodes:
                for ev in n.events:
                    if ev.kind != "call" or ev.indirect:
                        continue
                    if ev.what in UNHANDLED:
                        self.unresolved.append((f, ev, f"{ev.what} is not rewritten"))
                        continue
                    if ev.what not in WAIT and ev.what not in SIGNAL and ev.what not in OTHER:
                        continue
                    var = _cond_var(ev)
                    if var is None:
                        self.unresolved.append((f, ev, "the condition is not a global variable "
                                                "named directly (&c)"))
                        continue
                    c = self.conds.setdefault(var.get_usr(), Cond(var.get_usr(), var.spelling))
                    c.uses.append((f, n, ev, ev.what))
        usrs = {u: c.name for u, c in self.conds.items()}
        counts = cvshape.references(prog, usrs, self.read)
        decls = cvshape.declarations(prog, usrs)
        for c in self.conds.values():
            refs = counts.get(c.usr, 0)
            if refs > len(c.uses):
                c.keep(f"'{c.name}' is used other than by the pthread_cond_* calls "
                       f"({refs - len(c.uses)} other reference(s): its address escapes)")
            c.decls = decls.get(c.usr, [])
            if c.decls:
                d = c.decls[0]
                c.file, c.line = d.location.file.name, d.location.line
            for d in c.decls:
                why = cvshape.decl_problem(d, self._read(d.location.file.name))
                if why:
                    c.keep(why)
            if not c.decls:
                c.keep(f"no declaration of '{c.name}' found")

    def _read(self, path):
        return self.read(path)

    def _decide(self, sections):
        by_node = {}
        for s in sections:
            for nid in s.region:
                by_node.setdefault((s.func.usr, nid), []).append(s)
        inside = {(s.func.usr, nid) for s in sections for nid in s.region}
        reach = _reached_from(self.prog, sections, {
            f.usr for c in self.conds.values() for f, n, ev, op in c.uses
            if op in SIGNAL and (f.usr, n.id) not in inside})
        for c in self.conds.values():
            waits = [u for u in c.uses if u[3] in WAIT]
            if not waits:
                c.keep("no wait on it")
                continue
            locks = {lk.name for _, _, ev, _ in waits for lk in ev.lockop or [] if lk.op == "wait"}
            if len(locks) != 1:
                c.keep(f"waits with different mutexes ({', '.join(sorted(locks))})")
                continue
            c.lock = next(iter(locks))
            if c.lock.startswith("*") or "::*" in c.lock:
                c.keep(f"its mutex '{c.lock}' is reached through a pointer the analysis does "
                       "not resolve")
            for f, n, ev, op in c.uses:
                inside = by_node.get((f.usr, n.id), [])
                where = f"{display(ev.file)}:{ev.line}"
                if op in WAIT:
                    sec = next((s for s in inside if s.lock.name == c.lock), None)
                    if sec is None:
                        c.waits[ev] = "not inside a section of its mutex in the same function " \
                                      "(taken by a caller)"
                        continue
                    src = self._read(ev.file)
                    edits = cvshape.wait_edits(self.prog, f, sec, n, ev, op, WAIT[op], src)
                    c.waits[ev] = edits if isinstance(edits, str) else (f, n, sec, edits)
                elif op in SIGNAL:
                    other = [s for s in inside if s.lock.name != c.lock]
                    if other:
                        c.keep(f"signalled at {where} inside a section of another lock "
                               f"('{other[0].lock.name}')")
                    elif not inside and reach.get(f.usr, set()) - {c.lock}:
                        c.keep(f"signalled at {where} in {f.name}, which sections of other "
                               f"locks call ({', '.join(sorted(reach[f.usr] - {c.lock}))})")
                if op not in WAIT:
                    why = cvshape.call_problem(n, ev, self._read(ev.file))
                    if why:
                        c.keep(f"{why} ({where})")
                if op == "pthread_cond_init" and not cvshape.null_attr(ev):
                    c.keep(f"initialised with attributes at {where} (its clock may not be "
                           "CLOCK_REALTIME)")
            bad = [(ev, w) for ev, w in c.waits.items() if isinstance(w, str)]
            if bad:
                ev, w = bad[0]
                c.keep(f"the wait at {display(ev.file)}:{ev.line}: {w}")

    def settle(self, sections, kept):
        """After planning.plan_patches: a condition whose lock is kept, or one of whose waiting
        sections is not a plain atomic transaction, keeps its pthread_cond_t. True when one
        more was dropped (the analysis runs again without skipping its waits)."""
        dropped = False
        by_id = {s.id: s for s in sections}
        for c in self.live():
            why = None
            if c.lock in kept:
                why = f"its lock '{c.lock}' is kept: {kept[c.lock]}"
            for ev, (f, n, sec, _) in c.waits.items():
                s = next((x for x in sections if x.func is f and n.id in x.region
                          and x.lock.name == c.lock), None)
                if why is None and (s is None or not s.patch or not s.patch.get("eligible")):
                    why = f"the waiting section at {display(ev.file)}:{ev.line} is kept" + \
                          (f" ({s.patch['reason']})" if s is not None and s.patch else "")
                elif why is None and s.patch.get("construct") != "__transaction_atomic":
                    why = (f"the waiting section at {display(ev.file)}:{ev.line} would be "
                           f"{s.patch.get('construct')}: tm_atomic_retry must be "
                           "__transaction_atomic (no other blocker, no lock group)")
            if why:
                c.keep(why)
                dropped = True
        if not dropped:
            self._finish(sections)
        return dropped

    def _finish(self, sections):
        """The waiting sections open with tm_atomic_retry; the kept ones say which condition."""
        for c in self.live():
            for ev, (f, n, _, edits) in c.waits.items():
                s = next(x for x in sections if x.func is f and n.id in x.region
                         and x.lock.name == c.lock)
                p = s.patch
                p["edits"] = [(a, b, t.replace("__transaction_atomic {", "tm_atomic_retry {"))
                              for a, b, t in p["edits"]] + edits
                a = min(e[0] for e in p["edits"] if "tm_atomic_retry {" in e[2])
                b = max(e[1] for e in p["edits"] if e[2] == "}")
                p["edits"] += [e for e in cvshape.init_edits(f, a, b, self.read(s.file))
                               if e not in p["edits"]]
                p["construct"] = "tm_atomic_retry + tm_cond_wait"
                c.sections.add(s.id)
        for c in self.conds.values():
            if c.reason is None:
                continue
            for f, n, ev, op in c.uses:
                if op not in WAIT:
                    continue
                for s in sections:
                    if s.func is f and n.id in s.region and s.patch and \
                            s.patch.get("reason") == "condition-variable wait inside":
                        s.patch["reason"] += f" ('{c.name}' stays a pthread_cond_t: {c.reason})"

    def edits(self, ed):
        """The edits outside the waiting sections (tmedits.Edits): signals, declarations,
        init and destroy."""
        for c in self.live():
            for f, n, ev, op in c.uses:
                if op in WAIT:
                    continue
                src = self._read(ev.file)
                for a, b, t in cvshape.call_edits(n, ev, op, SIGNAL.get(op), src):
                    ed.add(ev.file, a, b, t)
            for d in c.decls:
                path = d.location.file.name
                for a, b, t in cvshape.decl_edits(d, self._read(path)):
                    ed.add(path, a, b, t)
        return ed

    def to_json(self):
        out = []
        for c in sorted(self.conds.values(), key=lambda c: (c.file or "", c.line or 0)):
            out.append({
                "name": c.name, "file": display(c.file) if c.file else None, "line": c.line,
                "lock": c.lock, "rewritten": c.reason is None,
                **({"reason": c.reason} if c.reason else {}),
                "sections": sorted(c.sections),
                "uses": [{"op": op, "function": f.name, "file": display(ev.file),
                          "line": ev.line, **({"reason": c.waits[ev]} if isinstance(
                              c.waits.get(ev), str) else {})} for f, n, ev, op in c.uses]})
        for f, ev, why in self.unresolved:
            out.append({"name": None, "file": display(ev.file), "line": ev.line, "lock": None,
                        "rewritten": False, "reason": why, "sections": [],
                        "uses": [{"op": ev.what, "function": f.name, "file": display(ev.file),
                                  "line": ev.line}]})
        return out


def _cond_var(ev):
    """The global pthread_cond_t variable of `&c` as the call's first argument, or None."""
    if not ev.args:
        return None
    a = strip(ev.args[0])
    if a.kind != K.UNARY_OPERATOR:
        return None
    kids = list(a.get_children())
    if len(kids) != 1 or strip(kids[0]).kind != K.DECL_REF_EXPR:
        return None
    var = strip(kids[0]).referenced
    if var is None or var.kind != K.VAR_DECL:
        return None
    p = var.semantic_parent
    if p is None or p.kind != K.TRANSLATION_UNIT:
        return None
    if var.type.get_canonical().spelling != "pthread_cond_t" and \
            var.type.spelling != "pthread_cond_t":
        return None
    return var


def _reached_from(prog, sections, targets):
    """{function usr in targets: {locks of the sections whose code calls it, directly or
    deeper}}; each function's direct callees are collected once."""
    out = {}
    if not targets:
        return out
    direct = {}

    def callees(f, region=None):
        if region is None and f.usr in direct:
            return direct[f.usr]
        g = prog.graph(f)
        found = {}
        for nid in (region if region is not None else range(len(g.nodes))):
            for ev in g.nodes[nid].events:
                if ev.kind != "call" or ev.lockop:
                    continue
                for c in ((prog.indirect_callees(ev) or []) if ev.indirect else
                          [c for c in [prog.callee(ev)] if c is not None]):
                    if not c.system:
                        found[c.usr] = c
        if region is None:
            direct[f.usr] = found
        return found

    for s in sections:
        todo = list(callees(s.func, s.region).values())
        seen = set()
        while todo:
            c = todo.pop()
            if c.usr in seen:
                continue
            seen.add(c.usr)
            todo += [x for u, x in callees(c).items() if u not in seen]
        for u in seen & targets:
            out.setdefault(u, set()).add(s.lock.name)
    return out
