"""The statement shapes of condvars.py's rewrite and their text edits.

A wait is rewritten when it is the only statement of an `if` or `while` on a predicate that
neither calls nor assigns, inside the section, with only reads between the section's start and
the wait; a signal, an init or a destroy when its call is spelled in the file (not in a macro).
Each check returns None or the reason it fails; each edit list is [(start, end, text)] by byte
offsets in the call's file. Also the lookups of a condition's declarations and references.
"""
from clang.cindex import CursorKind as K

from .parse import binary_op, const_int, strip, unary_op
from .program import display

_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")


def _same(a, b):
    return a.extent.start.offset == b.extent.start.offset and \
        a.extent.end.offset == b.extent.end.offset


def _text(src, c):
    return src[c.extent.start.offset:c.extent.end.offset].decode()


def spelled(ev, src):
    """The call is written in its file as NAME(...), not produced by a macro."""
    c = ev.cursor
    e = c.extent
    if e.start.file is None or e.end.file is None or e.start.file.name != ev.file or \
            e.end.file.name != ev.file:
        return False
    return src[e.start.offset:e.end.offset].startswith(ev.what.encode())


def is_statement(n, ev):
    """The call is the whole statement (its result unused)."""
    return n.cursor is not None and _same(strip(n.cursor), ev.cursor) and \
        n.kind not in ("cond", "return")


def _side_effects(c):
    for x in c.walk_preorder():
        if x.kind == K.CALL_EXPR:
            return f"calls {x.spelling or 'a function'}"
        if x.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                binary_op(x) in _ASSIGN:
            return "assigns"
        if x.kind == K.UNARY_OPERATOR and unary_op(x) in ("++", "--"):
            return "increments"
    return None


def _guard(n, sec_start):
    """The if/while whose only statement the wait is, or a reason."""
    path = n.path
    stmt = path[-1]
    parent = path[-2] if len(path) > 1 else None
    if parent is not None and parent.kind == K.COMPOUND_STMT:
        if len(list(parent.get_children())) != 1:
            return None, "an unconditional wait (not the only statement of an if or while " \
                         "testing the predicate): after a wake-up the re-run would wait again"
        stmt, parent = parent, path[-3] if len(path) > 2 else None
    if parent is None or parent.kind not in (K.IF_STMT, K.WHILE_STMT):
        return None, "the wait is not the body of an if or while testing the predicate"
    kids = list(parent.get_children())
    if len(kids) != 2 or not _same(kids[1], stmt):
        return None, "the wait's if has an else"
    if parent.extent.start.offset < sec_start:
        return None, "the loop around the wait begins before the lock is taken"
    return parent, None


def _before(g, sec, wait_node):
    """The nodes of the section from which the wait is reached (a loop's body after the wait
    included): everything a re-run executes again before waiting."""
    out, todo = set(), [p for p in wait_node.pred]
    while todo:
        nid = todo.pop()
        if nid in out or nid == wait_node.id or nid not in sec.region:
            continue
        out.add(nid)
        todo += g.nodes[nid].pred
    return out


def _reruns(an, f, sec, n):
    """None when the code before the wait only reads shared data and has no blocker."""
    g = f.cfg
    for nid in sorted(_before(g, sec, n)):
        acc, acq = {}, {}
        bl, _ = an.node(f, g.nodes[nid], acc, acq)
        if bl:
            b = bl[0]
            return f"{b.kind} before the wait ({b.what}, line {b.line}): a re-run after the " \
                   "wake-up would go through it again, and it cannot roll back"
        w = sorted(k for k, m in acc.items() if "w" in m)
        if w:
            return f"writes {', '.join(w[:3])} before the wait (line {g.nodes[nid].line}): the " \
                   "wait would roll the write back, where the lock-based code made it visible"
    return None


def wait_edits(prog, f, sec, n, ev, op, new, src):
    """[(a, b, text)] turning the wait into `if (p) tm_cond_wait(&c);`, or the reason not."""
    if not spelled(ev, src):
        return "the wait is spelled through a macro"
    if not is_statement(n, ev):
        return "the wait's result is used"
    sec_start = sec.ev.cursor.extent.start.offset
    guard, why = _guard(n, sec_start)
    if why:
        return why
    pred = list(guard.get_children())[0]
    fx = _side_effects(pred)
    if fx:
        return f"the predicate {fx}: it runs again at every re-run"
    timed = op == "pthread_cond_timedwait"
    if timed and guard.kind == K.WHILE_STMT:
        return "a timed wait in a while loop (tm_cond_wait_until falls through at the " \
               "deadline, the loop would wait again)"
    from .safety import Analyzer
    why = _reruns(Analyzer(prog), f, sec, n)
    if why:
        return why
    edits = []
    if guard.kind == K.WHILE_STMT:
        a = guard.extent.start.offset
        if src[a:a + 5] != b"while":
            return "the while is spelled through a macro"
        edits.append((a, a + 5, "if"))
    c = _text(src, ev.args[0])
    call = f"{new}({c}, tm_deadline_at_realtime({_text(src, ev.args[2])}))" if timed else \
        f"{new}({c})"
    edits.append((ev.cursor.extent.start.offset, ev.cursor.extent.end.offset, call))
    return edits


def null_attr(ev):
    """pthread_cond_init(&c, NULL): default attributes (the CLOCK_REALTIME clock)."""
    if len(ev.args) < 2:
        return False
    a = strip(ev.args[1])
    return a.kind == K.GNU_NULL_EXPR or (a.kind == K.INTEGER_LITERAL and const_int(a) == 0)


def call_problem(n, ev, src):
    if not spelled(ev, src):
        return f"{ev.what} is spelled through a macro"
    if ev.what in ("pthread_cond_signal", "pthread_cond_broadcast") and not is_statement(n, ev):
        return f"the result of {ev.what} is used"
    return None


def call_edits(n, ev, op, new, src):
    c = ev.cursor
    a, b = c.extent.start.offset, c.extent.end.offset
    if new:                                            # signal, broadcast: the name only
        return [(a, a + len(op), new)]
    name = _text(src, strip(list(strip(ev.args[0]).get_children())[0]))
    stmt = is_statement(n, ev)
    if op == "pthread_cond_init":
        text = f"{name} = (tm_cond_t)TM_COND_INITIALIZER"
        return [(a, b, text if stmt else f"({text}, 0)")]
    return [(a, b, "(void)0" if stmt else "0")]       # destroy: a tm_cond_t holds nothing


def references(prog, usrs, read):
    """{usr: references to the variable in the program's function bodies}; usrs: {usr: name}
    (only the bodies whose text holds one of the names are walked)."""
    out = {}
    names = {n.encode() for n in usrs.values()}
    for f in prog.user_funcs():
        e = f.cursor.extent
        if e.start.file is None or not any(n in read(e.start.file.name)[
                e.start.offset:e.end.offset] for n in names):
            continue
        for x in f.cursor.walk_preorder():
            if x.kind == K.DECL_REF_EXPR and x.referenced is not None and \
                    x.referenced.kind == K.VAR_DECL:
                u = x.referenced.get_usr()
                if u in usrs:
                    out[u] = out.get(u, 0) + 1
    return out


def declarations(prog, usrs):
    """{usr: [file-scope declarations]} of the variables in every file (headers included),
    once each; usrs: {usr: name}. One pass over the files' top-level declarations."""
    out, seen = {}, set()
    names = set(usrs.values())
    for tu in prog.tus:
        if tu is None:
            continue
        for c in tu.cursor.get_children():
            if c.kind != K.VAR_DECL or c.spelling not in names or c.location.file is None:
                continue
            u = c.get_usr()
            key = (u, c.location.file.name, c.extent.start.offset)
            if u in usrs and key not in seen and not c.location.is_in_system_header:
                seen.add(key)
                out.setdefault(u, []).append(c)
    return out


def _decl_parts(d, src):
    """(text of the declaration, offset of its name in it)."""
    a0 = d.extent.start.offset
    return src[a0:d.extent.end.offset], d.location.offset - a0


def decl_problem(d, src):
    if d.extent.start.file is None or d.extent.start.file.name != d.location.file.name:
        return f"'{d.spelling}' is declared through a macro"
    text, at = _decl_parts(d, src)
    where = f"{display(d.location.file.name)}:{d.location.line}"
    after = src[d.extent.end.offset:].lstrip()[:1]
    if after != b";":
        return f"'{d.spelling}' shares its declaration with another variable ({where})"
    if text[at:at + len(d.spelling)] != d.spelling.encode() or \
            not text[:at].rstrip().endswith(b"pthread_cond_t"):
        return f"'{d.spelling}' is not declared as `pthread_cond_t {d.spelling}` ({where})"
    rest = text[at + len(d.spelling):].strip()
    if rest and rest.lstrip(b"= \t\n") != b"PTHREAD_COND_INITIALIZER":
        return f"'{d.spelling}' has an initializer other than PTHREAD_COND_INITIALIZER ({where})"
    return None


def decl_edits(d, src):
    text, at = _decl_parts(d, src)
    a0 = d.extent.start.offset
    t = text.rfind(b"pthread_cond_t", 0, at)
    out = [(a0 + t, a0 + t + len(b"pthread_cond_t"), "tm_cond_t")]
    i = text.find(b"PTHREAD_COND_INITIALIZER", at)
    if i >= 0:
        out.append((a0 + i, a0 + i + len(b"PTHREAD_COND_INITIALIZER"), "TM_COND_INITIALIZER"))
    return out


def init_edits(f, a, b, src):
    """A local declared without an initializer before the waiting section [a, b), assigned in
    it and used after it gets a zero initializer: GCC sees the path on which the wait cancels
    the transaction and the loop of tm_atomic_retry ends (it never does after a wait) and warns
    that the variable may be used uninitialized (-Wmaybe-uninitialized, an error with -Werror)."""
    out = []
    for d in f.cursor.walk_preorder():
        if d.kind != K.VAR_DECL or d.extent.end.offset > a or d.storage_class.name == "STATIC":
            continue
        if d.extent.start.file is None or d.extent.start.file.name != f.file or \
                any(x.kind.is_expression() for x in d.get_children()):
            continue
        usr = d.get_usr()
        refs = [x for x in f.cursor.walk_preorder() if x.kind == K.DECL_REF_EXPR and
                x.referenced is not None and x.referenced.get_usr() == usr]
        if any(a <= x.extent.start.offset < b for x in refs) and \
                any(x.extent.start.offset >= b for x in refs):
            t = d.type.get_canonical().kind.name
            zero = " = {0}" if t in ("RECORD", "CONSTANTARRAY", "ELABORATED") else " = 0"
            out.append((d.extent.end.offset, d.extent.end.offset, zero))
    return out
