"""The whole program: translation units, functions with source, their CFGs and events."""
import os
import time

from clang.cindex import CursorKind as K, StorageClass

from . import cfg as cfgmod
from .events import Extractor, noreturn_stmt
from .model import Func, UserError
from .parse import parse, tm_attribute, wrapped_name
from .pointsto import Targets


class Program:
    def __init__(self, units, progress=None):
        self.units = units
        self.funcs = {}          # usr -> Func (first definition seen)
        self.tu_defs = []        # per unit: set of usr defined in it
        self.tm_attr = {}        # usr -> 'safe' / 'pure' (GCC attributes, from tokens)
        self.targets = Targets() # function pointers: what an indirect call may reach
        self.lines = 0
        self.files = set()
        self.timing = {}
        t0 = time.monotonic()
        self.tus = []
        self.skipped = []        # (file, why): units the front end could not parse
        for i, u in enumerate(units):
            try:
                tu = parse(u.file, u.clang_args())
            except UserError as e:
                # one file's errors (an unknown flag, a header it cannot find) do not stop
                # the rest; the report lists it. Nothing parsed at all: the error stands.
                self.skipped.append((u.file, str(e)))
                self.tus.append(None)
                self.tu_defs.append(set())
                continue
            self.tus.append(tu)
            self._collect(i, tu)
            self.targets.add_tu(tu)
        if units and len(self.skipped) == len(units):
            raise UserError(self.skipped[0][1] if len(units) == 1 else
                            f"no file could be parsed; the first: {self.skipped[0][1]}")
        self.timing["parse"] = time.monotonic() - t0

    def _collect(self, idx, tu):
        defs = set()
        for c in tu.cursor.get_children():
            if c.kind != K.FUNCTION_DECL:
                continue
            loc = c.location
            system = loc.is_in_system_header
            usr = c.get_usr()
            if c.spelling.startswith("tmkit_tx_"):
                # include/tmkit/libc.h: a transaction_wrap wrapper makes calls of the wrapped
                # libc function safe inside transactions (GCC calls the wrapper there)
                wrapped = wrapped_name(c)
                if wrapped:
                    self.tm_attr["c:@F@" + wrapped] = "pure"
            if not system and usr not in self.tm_attr:
                a = tm_attribute(c)
                if a:
                    self.tm_attr[usr] = a
            if not c.is_definition():
                continue
            defs.add(usr)
            if usr in self.funcs:
                continue
            body = next((x for x in c.get_children() if x.kind == K.COMPOUND_STMT), None)
            if body is None:
                continue
            fname = loc.file.name if loc.file else self.units[idx].file
            params = [p.spelling for p in c.get_arguments()]
            f = Func(c.spelling, usr, fname, loc.line, idx, body, params,
                     c.storage_class == StorageClass.STATIC, system)
            f.decl = c              # the definition (tmedits.py puts attributes before it)
            self.funcs[usr] = f
            if not system:
                self.files.add(fname)
        self.tu_defs.append(defs)

    def user_funcs(self):
        return [f for f in self.funcs.values() if not f.system]

    def graph(self, f):
        """The function's CFG with events on every node (built once)."""
        if f.cfg is None:
            g = cfgmod.build(f.cursor, f.line, noreturn_stmt)
            ex = Extractor(f.name, f.file, f.cursor)
            for n in g.nodes:
                if n.kind in ("entry", "exit", "join", "label"):
                    continue
                if n.kind == "jump":
                    continue
                if n.kind == "return":
                    kids = [x for x in n.cursor.get_children() if x.kind.is_expression()]
                    n.events = ex.run(kids[0]) if kids else []
                else:
                    n.events = ex.run(n.cursor)
            f.cfg = g
            f.extractor = ex
        return f.cfg

    def callee(self, ev):
        """The Func a call event reaches, or None (no source / indirect)."""
        if ev.indirect or ev.usr is None:
            return None
        return self.funcs.get(ev.usr)

    def indirect_callees(self, ev):
        """The Funcs an indirect call may reach, or None when one of them has no source or
        none is known (then the call may touch anything)."""
        usrs = self.targets.candidates(ev.fntype)
        funcs = [self.funcs.get(u) for u in usrs]
        if not funcs or any(f is None for f in funcs):
            return None
        return funcs

    def same_tu(self, caller, callee):
        return callee.usr in self.tu_defs[caller.tu]

    def count_lines(self):
        n = 0
        for path in self.files:
            try:
                with open(path, "rb") as fh:
                    n += fh.read().count(b"\n")
            except OSError:
                pass
        self.lines = n
        return n


def display(path):
    """A path as the user sees it: relative to the current directory when inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
