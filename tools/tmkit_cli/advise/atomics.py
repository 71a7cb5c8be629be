"""--apply: tmkit's atomics (include/tmkit/atomic.h) for GCC's __atomic_*/__sync_* builtins.

GCC refuses the builtins inside __transaction_atomic and goes irrevocable at them in a relaxed
transaction, so a reference count taken inside a section blocks it. tm_atomic_* does the same
operation as part of the enclosing transaction, and outside transactions as a one-word
transaction of its own, so the rewrite is valid wherever the builtin stands. It must be made
for every builtin on one location or for none: a plain builtin bypasses the runtime, and a
transaction that read the word would not notice it. Hence, program-wide (every file the
analysis sees), the builtins are grouped by the location they operate on (a global, a field by
struct type, `*T` through a pointer, which joins every location of type T), and a group is
rewritten when each of its builtins has a tm_atomic_* form and one of them runs in a section
or in a function a section calls (and then wherever it stands, even if those sections keep
their locks: the second analysis counted on it). The memory-order arguments are dropped: a
tm_atomic operation is ordered like a transaction, at least as strong as any of them.

Forms (docs/advise.md has the table): the _n builtins and their by-pointer forms map to
tm_atomic_load/store/exchange/compare_exchange (a weak compare-exchange becomes a strong one);
fetch-OP and __sync_fetch_and_OP (add, sub, and, or) to tm_atomic_fetch_OP; OP-fetch and
__sync_OP_and_fetch to `(T)(tm_atomic_fetch_OP(p, v) OP (T)(v))` (v evaluated once; the plain
fetch when the value is unused); __sync_bool/val_compare_and_swap to a compare-exchange on a
copy of the expected value; __sync_lock_test_and_set/_release to exchange/store 0.

Types: long, unsigned long, int, unsigned int (pointers: load, store, exchange and
compare-exchange). Others (unsigned short, uint8_t, long long, volatile objects), xor/nand,
fences, C11 atomics on `_Atomic` objects and builtins spelled in a macro keep their group and
its blocker, with the reason in the report's `rewrites.atomics_left`.
"""
import re

from clang.cindex import CursorKind as K

from .events import type_name
from .parse import strip, unary_op
from .program import display
from .reach import Reach

ARITH = ("long", "unsigned long", "int", "unsigned int")
OPS = {"add": "+", "sub": "-", "and": "&", "or": "|"}
_SIMPLE = re.compile(r"^\s*[\w.]+\s*$")
# name -> (number of arguments, form); forms are filled in by _text
FORMS = {"__atomic_load_n": (2, "load"), "__atomic_store_n": (3, "store"),
         "__atomic_exchange_n": (3, "xchg"), "__atomic_compare_exchange_n": (6, "cas"),
         "__atomic_load": (3, "load*"), "__atomic_store": (3, "store*"),
         "__atomic_exchange": (4, "xchg*"), "__atomic_compare_exchange": (6, "cas*"),
         "__sync_bool_compare_and_swap": (3, "bcas"), "__sync_val_compare_and_swap": (3, "vcas"),
         "__sync_lock_test_and_set": (2, "xchg"), "__sync_lock_release": (1, "release")}
for _op in OPS:
    FORMS[f"__atomic_fetch_{_op}"] = (3, "fetch_" + _op)
    FORMS[f"__atomic_{_op}_fetch"] = (3, _op + "_fetch")
    FORMS[f"__sync_fetch_and_{_op}"] = (2, "fetch_" + _op)
    FORMS[f"__sync_{_op}_and_fetch"] = (2, _op + "_fetch")


class Use:
    __slots__ = ("func", "nid", "file", "line", "start", "end", "name", "group", "tname", "text",
                 "why", "in_tx")

    def __init__(self, func, nid, ev):
        self.func, self.nid, self.file, self.line = func, nid, ev.file, ev.line
        self.start = self.end = None
        self.name, self.group, self.tname, self.text, self.why = None, None, None, None, None
        self.in_tx = False


def split_args(s):
    """Top-level comma-separated arguments of a call's text between its parentheses."""
    out, depth, cur, quote, i = [], 0, [], None, 0
    while i < len(s):
        ch = s[i]
        cur.append(ch)
        if quote:
            if ch == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            cur.pop()
            out.append("".join(cur).strip())
            cur = []
        i += 1
    out.append("".join(cur).strip())
    return out


def _pointer_arg(c):
    kids = list(c.get_children())
    if c.kind == K.CALL_EXPR:
        return kids[1] if len(kids) > 1 else None
    return kids[0] if kids else None


def _location(f, ptr):
    """The location the builtin works on, and its type (T of `T *`)."""
    t = ptr.type.get_canonical().get_pointee()
    tname = type_name(t)
    s = strip(ptr)
    if s.kind == K.UNARY_OPERATOR and unary_op(s) == "&":
        inner = next(iter(s.get_children()))
        loc = f.extractor.location(inner)
        if loc is None:                       # a local of this function: its own group
            loc = f"{f.name}::{strip(inner).spelling or '?'} (local)"
        return loc, tname, t
    return "*" + tname, tname, t


def _spell_type(t):
    c = type_name(t)
    return c if "(" not in c else t.spelling.replace("volatile ", "")


def _statement(node, c):
    """True when the builtin is the CFG node's whole statement (its value unused)."""
    n = node.cursor
    return n is not None and n.extent.start.offset == c.extent.start.offset and \
        n.extent.end.offset == c.extent.end.offset


def _text(form, a, tname, t, stmt=False):
    """The tm_atomic_* text for one builtin (stmt: its value is unused), or raise
    ValueError(reason)."""
    arith = tname in ARITH
    ptr = t.get_canonical().kind.name == "POINTER"
    if not (arith or ptr):
        raise ValueError(f"operand type '{tname}': tm_atomic_* takes long, unsigned long, int, "
                         "unsigned int and pointers")
    if t.is_volatile_qualified():
        raise ValueError("a volatile object: tm_atomic_* takes plain ones")
    T = _spell_type(t)
    p = a[0]
    if form.startswith("fetch_") or form.endswith("_fetch"):
        if not arith:
            raise ValueError(f"arithmetic on a pointer ('{tname}'): tm_atomic_* has none")
        op = form.replace("fetch_", "").replace("_fetch", "")
        call = f"tm_atomic_fetch_{op}({p}, {a[1]})"
        if form.startswith("fetch_") or stmt:
            return call
        if _SIMPLE.match(a[1]):
            return f"(({T})({call} {OPS[op]} ({T})({a[1]})))"
        return (f"__extension__ ({{ {T} tmkit_v_ = ({T})({a[1]}); "
                f"({T})(tm_atomic_fetch_{op}({p}, tmkit_v_) {OPS[op]} tmkit_v_); }})")
    return {
        "load": lambda: f"tm_atomic_load({p})",
        "store": lambda: f"tm_atomic_store({p}, {a[1]})",
        "xchg": lambda: f"tm_atomic_exchange({p}, {a[1]})",
        "cas": lambda: f"tm_atomic_compare_exchange({p}, {a[1]}, {a[2]})",
        "load*": lambda: f"(*({a[1]}) = tm_atomic_load({p}))",
        "store*": lambda: f"tm_atomic_store({p}, *({a[1]}))",
        "xchg*": lambda: f"(*({a[2]}) = tm_atomic_exchange({p}, *({a[1]})))",
        "cas*": lambda: f"tm_atomic_compare_exchange({p}, {a[1]}, *({a[2]}))",
        "bcas": lambda: f"{'(void)' if stmt else ''}__extension__ ({{ {T} tmkit_e_ = ({a[1]}); "
                        f"tm_atomic_compare_exchange({p}, &tmkit_e_, {a[2]}); }})",
        "vcas": lambda: f"__extension__ ({{ {T} tmkit_e_ = ({a[1]}); "
                        f"tm_atomic_compare_exchange({p}, &tmkit_e_, {a[2]}); tmkit_e_; }})",
        "release": lambda: f"tm_atomic_store({p}, 0)",
    }[form]()


def _use(f, node, ev, read):
    u = Use(f, node.id, ev)
    c = ev.cursor
    e = c.extent
    if ev.what.startswith("_Atomic"):
        u.why = "an access to an _Atomic object (C11): no rewrite"
        u.group = "?_Atomic"
        return u
    ptr = _pointer_arg(c)
    if ptr is not None and ptr.type.get_canonical().kind.name == "POINTER":
        u.group, tname, t = _location(f, ptr)
        u.tname = tname
    else:
        u.group, tname, t = None, None, None
    if e.start.file is None or e.end.file is None or e.start.file.name != e.end.file.name:
        u.why = "spelled in a macro: the text is not rewritten"
        return u
    u.file, u.start, u.end = e.start.file.name, e.start.offset, e.end.offset
    text = read(u.file)[u.start:u.end].decode(errors="replace")
    m = re.match(r"^(\w+)\s*\((.*)\)$", text, re.S)
    if m is None:
        u.why = "spelled in a macro: the text is not rewritten"
        return u
    u.name = m.group(1)
    form = FORMS.get(u.name)
    if form is None:
        u.why = (f"{u.name}: a fence, with no location (a transaction orders its own accesses)"
                 if "fence" in u.name or u.name == "__sync_synchronize" else
                 f"{u.name}: no tm_atomic_* equivalent")
        return u
    args = split_args(m.group(2))
    if len(args) != form[0] or u.group is None:
        u.why = f"{u.name} with {len(args)} arguments: not the form rewritten"
        return u
    try:
        u.text = _text(form[1], args, tname, t, _statement(node, c))
    except ValueError as x:
        u.why = str(x)
    return u


class Atomics:
    """The program's builtins, their groups and the decision per group."""

    def __init__(self, prog, sections, read):
        reach = Reach(prog, sections)
        self.uses, seen = [], set()
        for f in prog.user_funcs():
            g = prog.graph(f)
            for n in g.nodes:
                for ev in n.events:
                    if ev.kind != "atomic" or ev.cursor is None:
                        continue
                    st = ev.cursor.extent.start
                    key = (st.file.name if st.file else ev.file, st.offset)
                    if key in seen:               # a header's function seen from two files
                        continue
                    seen.add(key)
                    u = _use(f, n, ev, read)
                    u.in_tx = bool(reach.sections_at(f, n.id))
                    self.uses.append(u)
        ptr_types = {u.group[1:] for u in self.uses if u.group and u.group.startswith("*")}
        self.groups = {}
        for u in self.uses:
            key = u.group
            if key is not None and u.tname in ptr_types:
                key = "*" + u.tname               # reached through a pointer somewhere
            self.groups.setdefault(key, []).append(u)
        self.ok = set()          # (file, start offset) of the builtins the rewrite replaces
        self.left = []           # (use, reason) in groups that run in a section
        for key, us in self.groups.items():
            if not any(u.in_tx for u in us):
                continue
            bad = [u for u in us if not u.text]
            if key is not None and not bad:
                self.ok |= {(u.file, u.start) for u in us}
                continue
            for u in us:
                b0 = bad[0]
                why = u.why or (f"another builtin on {key} is not rewritten "
                                f"({display(b0.file)}:{b0.line}: {b0.why}): all or none")
                self.left.append((u, why))

    def allows(self, ev):
        """True if the builtin of this event is rewritten (its blocker is gone)."""
        st = ev.cursor.extent.start if ev.cursor is not None else None
        return st is not None and st.file is not None and (st.file.name, st.offset) in self.ok

    def edits(self, ed, tx_usrs):
        """Adds the rewrite of every group the plan took the blockers of, also where the
        sections that reach it keep their locks after all (the second analysis reported them
        without the blocker, and the rewrite is valid outside transactions); tx_usrs: the
        functions that run in transactions. Returns the report's entries."""
        done, left = [], []
        for key, us in self.groups.items():
            if not all((u.file, u.start) in self.ok for u in us):
                continue
            for u in us:
                ed.add(u.file, u.start, u.end, u.text)
                done.append({"file": display(u.file), "line": u.line, "function": u.func.name,
                             "builtin": u.name, "location": key,
                             "in_transaction": u.func.usr in tx_usrs, "to": u.text})
        for u, why in self.left:
            left.append({"file": display(u.file), "line": u.line, "function": u.func.name,
                         "what": u.name or "atomic access", "reason": why})
        return sorted(done, key=lambda d: (d["file"], d["line"])), \
            sorted(left, key=lambda d: (d["file"], d["line"]))
