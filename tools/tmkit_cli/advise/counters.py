"""--apply: tm_counter_t (include/tmkit/counter.h) for statistics counters.

A global or file-static integer qualifies when the program (every file the analysis sees) only
adds to it and reads it: each update is a statement of its own, `x++`, `x--`, `x += e` or
`x -= e`, inside a critical section or a function one calls, and every other use is a read
that is not inside a section that also writes other shared data (tm_counter_read is outside the
transaction's read set: a section that decides a write from the value would lose its
atomicity). Its declarations become `tm_counter_t x` (`= TM_COUNTER_INITIALIZER` where it was
initialised to 0; the other declarators of the same declaration stay as they were), each
update `tm_counter_add(&x, e)` and each read `((T)tm_counter_read(&x))`, T being its old type.
Kept, with the reason in the report's `rewrites.counters_left`: a variable whose address is
taken (memcpy, memset, a pointer), that is assigned, used as x++'s value, updated outside a
section or spelled in a macro, thread-local, volatile, initialised to non-zero, or a struct
field (fields are not converted). With the plan (tmplan.py) a converted counter's accesses
are no conflict: additions commute and reads are not part of a transaction's read set.
"""
import re

from clang.cindex import CursorKind as K, TypeKind as T

from .parse import binary_op, const_int, unary_op
from .program import display
from .reach import Reach, node_of

INTS = (T.SHORT, T.USHORT, T.INT, T.UINT, T.LONG, T.ULONG, T.LONGLONG, T.ULONGLONG)
_STMT = (K.COMPOUND_STMT, K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT)
_THREAD = {"__thread", "_Thread_local", "thread_local"}


class Var:
    def __init__(self, usr, name, type_):
        self.usr, self.name, self.type = usr, name, type_
        self.decls = {}          # (file, start) -> cursor
        self.updates, self.reads = [], []   # (func, node id, file, a, b, text)
        self.why = None
        self.in_section = False


def _stmt_context(parents, a):
    p = parents[-1] if parents else None
    if p is None:
        return False
    if p.kind in _STMT:
        return True
    return p.kind == K.IF_STMT and next(iter(p.get_children())).hash != a.hash


def _text(read, c):
    e = c.extent
    if e.start.file is None or e.end.file is None or e.start.file.name != e.end.file.name:
        return None, None, None
    path = e.start.file.name
    return path, e.start.offset, read(path)[e.start.offset:e.end.offset].decode(errors="replace")


class Counters:
    def __init__(self, prog, sections, read):
        self.vars, self.read, self._groups = {}, read, {}
        for tu in prog.tus:
            for c in (tu.cursor.get_children() if tu is not None else []):
                if c.kind == K.VAR_DECL and c.location.file and not c.location.is_in_system_header:
                    self._decl(c)
        for tu in prog.tus:                 # a use in a global initializer: &x in a table
            for c in (tu.cursor.get_children() if tu is not None else []):
                if c.kind == K.VAR_DECL and not c.location.is_in_system_header:
                    for x in c.walk_preorder():
                        v = self._var(x)
                        if v is not None and v.why is None:
                            at = f"{display(c.location.file.name)}:{x.location.line}"
                            v.why = f"used in the initializer of '{c.spelling}' ({at})"
        reach = Reach(prog, sections)
        for f in prog.user_funcs():
            nodes = node_of(prog, f)
            self._walk(f, f.cursor, [], nodes, reach)
        self._decide(sections, reach)

    def _decl(self, c):
        t = c.type
        ct = t.get_canonical()
        v = self.vars.get(c.get_usr())
        if v is None:
            v = self.vars[c.get_usr()] = Var(c.get_usr(), c.spelling, t)
        v.decls[(c.location.file.name, c.extent.start.offset)] = c
        if ct.kind not in INTS:
            v.why = v.why or f"type '{t.spelling}' is not an integer counter"
        elif t.is_volatile_qualified() or t.is_const_qualified() or ct.kind == T.ATOMIC:
            v.why = v.why or "volatile, const or _Atomic"
        init = [x for x in c.get_children() if x.kind.is_expression()]
        if init and const_int(init[-1]) != 0:
            at = f"{display(c.location.file.name)}:{c.location.line}"
            v.why = v.why or f"initialised to a value other than 0 ({at})"

    def _var(self, x):
        if x.kind != K.DECL_REF_EXPR or x.referenced is None or x.referenced.kind != K.VAR_DECL:
            return None
        return self.vars.get(x.referenced.get_usr())

    def _walk(self, f, c, parents, nodes, reach):
        for x in c.get_children():
            v = self._var(x)
            if v is not None:
                self._use(f, v, x, parents + [c], nodes, reach)
            self._walk(f, x, parents + [c], nodes, reach)

    def _use(self, f, v, d, parents, nodes, reach):
        where = f"{display(f.file)}:{d.location.line}"
        lv, ps = d, list(parents)
        while ps and ps[-1].kind == K.PAREN_EXPR:
            lv = ps.pop()
        a = ps[-1] if ps else None
        nid = nodes.get(d.extent.start.offset, -1)
        ctx = reach.sections_at(f, nid)
        if ctx and a is not None and (a.kind == K.UNARY_OPERATOR and unary_op(a) in ("++", "--") or
                                      a.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and
                                      binary_op(a) in ("+=", "-=")):
            v.in_section = True                 # counted in a section: a candidate
        path, s0, name = _text(self.read, d)
        if name != v.name:
            v.why = v.why or f"a use spelled in a macro ({where})"
            return
        k = a.kind if a is not None else None
        if k == K.UNARY_OPERATOR and unary_op(a) in ("++", "--"):
            if not _stmt_context(ps[:-1], a):
                v.why = v.why or f"the value of {unary_op(a)} is used ({where})"
                return
            delta = "1" if unary_op(a) == "++" else "-1"
        elif k == K.COMPOUND_ASSIGNMENT_OPERATOR and next(iter(a.get_children())).hash == lv.hash:
            op = binary_op(a)
            if op not in ("+=", "-=") or not _stmt_context(ps[:-1], a):
                v.why = v.why or (f"updated with '{op}' ({where})" if op not in ("+=", "-=")
                                  else f"the value of {op} is used ({where})")
                return
            rhs = list(a.get_children())[-1]
            rp, _, rtext = _text(self.read, rhs)
            if rp != path:
                v.why = v.why or f"an update spelled in a macro ({where})"
                return
            delta = f"(long)({rtext})" if op == "+=" else f"-(long)({rtext})"
        elif k == K.UNEXPOSED_EXPR:             # the lvalue-to-rvalue conversion: a read
            v.reads.append((f, ctx, where, path, s0, d.extent.end.offset))
            return
        else:
            addr = k == K.UNARY_OPERATOR and unary_op(a) == "&"
            v.why = v.why or (f"its address is taken ({where})" if addr else
                              f"assigned ({where})" if k == K.BINARY_OPERATOR else
                              f"used as {k.name.lower() if k else '?'} ({where})")
            return
        ap, a0, atext = _text(self.read, a)
        if ap != path:
            v.why = v.why or f"an update spelled in a macro ({where})"
            return
        v.updates.append((f, ctx, where, path, a0, a.extent.end.offset, delta))
        if not ctx and v.why is None:
            v.why = f"updated outside any critical section ({where})"

    def _decide(self, sections, reach):
        cands = [v for v in self.vars.values() if v.in_section]
        ok = {v.usr for v in cands if v.why is None and self._decls_ok(v)}
        while True:                             # a read in a section that writes a non-counter
            names = {self.vars[u].name for u in ok}
            drop = set()
            for u in ok:
                v = self.vars[u]
                for f, ctx, where, *_ in v.reads:
                    other = next((s for s in ctx for loc, m in s.accesses.items()
                                  if "w" in m and loc not in names), None)
                    if other is not None:
                        v.why = (f"read ({where}) in the section at {display(other.file)}:"
                                 f"{other.line}, which also writes other shared data")
                        drop.add(u)
                        break
            if not drop:
                break
            ok -= drop
        self.ok = {u: self.vars[u] for u in ok}
        self.left = [v for v in cands if v.usr not in ok]
        others = {v.name for v in self.vars.values() if v.usr not in ok}
        self.locs = {v.name for v in self.ok.values()} - others   # access names no longer shared

    def _decls_ok(self, v):
        for (path, start), c in v.decls.items():
            why = self._group(path, start, c)[1]
            if why:
                v.why = why
                return False
        return True

    def _group(self, path, start, c):
        """(declarators of the declaration that holds c, reason it cannot be rewritten or None,
        offset just past its ';')."""
        key = (path, start)
        if key in self._groups:
            return self._groups[key]
        parent = c.lexical_parent
        members = sorted([x for x in parent.get_children() if x.kind == K.VAR_DECL and
                          x.location.file and x.location.file.name == path and
                          x.extent.start.offset == start], key=lambda x: x.location.offset)
        src = self.read(path)
        head = src[start:members[0].location.offset].decode(errors="replace")
        why, end = None, None
        words = head.split()
        if not re.fullmatch(r"[\w\s]*", head) or not words:
            why = f"its declaration's form ({display(path)}:{c.location.line}: '{head.strip()}')"
        elif _THREAD & set(words):
            why = "thread-local"
        else:
            for prev, m in zip(members, members[1:]):
                if src[prev.extent.end.offset:m.location.offset].strip() != b",":
                    why = f"its declaration's form ({display(path)}:{c.location.line})"
            e = members[-1].extent.end.offset
            while e < len(src) and src[e:e + 1] in b" \t\r\n":
                e += 1
            if src[e:e + 1] != b";":
                why = why or f"its declaration's form ({display(path)}:{c.location.line})"
            end = e + 1
        self._groups[key] = (members, why, end, words)
        return self._groups[key]

    def edits(self, ed):
        """Adds the declarations', updates' and reads' edits; returns the report's entries."""
        done = set()
        for v in self.ok.values():
            for (path, start), c in v.decls.items():
                if (path, start) in done:
                    continue
                done.add((path, start))
                members, _, end, words = self._group(path, start, c)
                src = self.read(path)
                head = src[start:members[0].location.offset].decode()
                keep = [src[m.location.offset:m.extent.end.offset].decode() for m in members
                        if m.get_usr() not in self.ok]
                conv = [m.spelling + (" = TM_COUNTER_INITIALIZER" if any(
                    x.kind.is_expression() for x in m.get_children()) else "")
                    for m in members if m.get_usr() in self.ok]
                storage = " ".join(w for w in words if w in ("static", "extern"))
                text = (head + ", ".join(keep) + "; " if keep else "") + \
                    (storage + " " if storage else "") + "tm_counter_t " + ", ".join(conv) + ";"
                ed.add(path, start, end, text)
            tname = v.type.spelling
            if "(" in tname:                        # an anonymous type: its canonical name
                tname = v.type.get_canonical().spelling
            for f, ctx, where, path, a, b, delta in v.updates:
                ed.add(path, a, b, f"tm_counter_add(&{v.name}, {delta})")
            for f, ctx, where, path, a, b in v.reads:
                ed.add(path, a, b, f"(({tname})tm_counter_read(&{v.name}))")
        conv = [{"name": v.name, "file": display(c.location.file.name), "line": c.location.line,
                 "type": v.type.spelling, "updates": len(v.updates), "reads": len(v.reads)}
                for v in self.ok.values() for c in [_definition(v)]]
        left = [{"name": v.name, "file": display(c.location.file.name), "line": c.location.line,
                 "reason": v.why} for v in self.left for c in [_definition(v)]]
        return sorted(conv, key=lambda d: (d["file"], d["line"], d["name"])), \
            sorted(left, key=lambda d: (d["file"], d["line"], d["name"]))


def _definition(v):
    ds = list(v.decls.values())
    return next((c for c in ds if c.is_definition()), ds[0])
