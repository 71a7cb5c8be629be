"""--patch: turn a section into `__transaction_atomic { ... }` / `__transaction_relaxed { ... }`.

The acquire statement becomes the opening line, the last release in the same block becomes
the closing brace, other releases are deleted when a return/goto/break/continue that leaves the
block follows them directly (GCC 12 accepts those jumps out of a transaction and commits on
the way out). A declaration inside whose variable is used after the release is split: the
declaration moves before the block, its initializer stays inside as an assignment. Anything
else (lock call inside an expression, releases in other blocks, jumps into the range, a macro
that does more than lock) leaves the section as it is, with the reason.
"""
from clang.cindex import CursorKind as K, TypeKind as T

from .lockflow import lockops
from .parse import strip

_LOOPS = (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT)
# A statement after a label keeps it: `found: LOCK();`, and `case X: LOCK();` in a switch
_LABELS = (K.LABEL_STMT, K.CASE_STMT, K.DEFAULT_STMT)


class NoPatch(Exception):
    pass


def _same(a, b):
    return a.extent.start.offset == b.extent.start.offset and a.extent.end.offset == b.extent.end.offset


def _climb(node):
    """(statement, enclosing compound, the compound's child holding it) for a node's statement,
    climbing out of macro bodies and over labels (`found: LOCK();` and `case X: LOCK();` keep
    their label)."""
    path = node.path
    i = len(path) - 1
    while i > 0 and _same(path[i - 1], path[i]):
        i -= 1
    stmt, j = path[i], i - 1
    while j >= 0 and path[j].kind in _LABELS:
        j -= 1
    if j < 0 or path[j].kind != K.COMPOUND_STMT:
        raise NoPatch(f"line {node.line}: the lock call is not a statement of its own")
    return stmt, path[j], path[j + 1]


def stmt_end(src, c):
    e = c.extent.end.offset
    if src[e - 1:e] in (b"}", b";"):
        return e
    j = e
    while j < len(src) and src[j:j + 1] in (b" ", b"\t", b"\n", b"\r"):
        j += 1
    return j + 1 if src[j:j + 1] == b";" else e


def _whole_line(src, a, b):
    """Widen [a, b) to whole lines when nothing else is on them."""
    ls = src.rfind(b"\n", 0, a) + 1
    le = src.find(b"\n", b)
    le = len(src) if le < 0 else le
    if src[ls:a].strip() == b"" and src[b:le].strip() == b"":
        return ls, min(le + 1, len(src))
    return a, b


def _only_lock(g, stmt, lockop_node):
    """The statement (maybe a macro) does nothing but the lock operation."""
    s0, s1 = stmt.extent.start.offset, stmt.extent.end.offset
    f = stmt.extent.start.file.name
    for n in g.nodes:
        c = n.cursor
        if c is None or not n.events or not c.extent.start.file or c.extent.start.file.name != f:
            continue
        if s0 <= c.extent.start.offset and c.extent.end.offset <= s1:
            for ev in n.events:
                if ev.kind == "call" and ev.lockop:
                    continue
                if ev.kind == "access" and ev.mode == "r":
                    continue
                raise NoPatch(f"line {n.line}: the statement with the lock call does more than lock")


def _index(compound, stmt):
    for i, ch in enumerate(compound.get_children()):
        if _same(ch, stmt):
            return i
    raise NoPatch("statement not found in its block")


def _has_call(c):
    return any(x.kind == K.CALL_EXPR for x in c.walk_preorder())


def plan(s, src, construct, groups=""):
    """Edits [(start, end, text)] for section s, or raise NoPatch(reason). construct: 'atomic',
    'relaxed', 'group-atomic' (tm_group_enter(groups) around an atomic block) or 'group-lock'
    (the section stays plain code holding tm_group_lock(groups)). Nested sections' lock
    operations (s.nested) are deleted."""
    edits = []
    for inner in getattr(s, "nested", []):
        edits += _delete_ops(inner, src)
    if construct == "group-lock":
        return edits + _group_lock(s, src, groups)
    return edits + _plan_block(s, src, construct, groups)


def _delete_ops(inner, src):
    """Deletes a nested section's acquire and releases (each a statement of its own)."""
    if inner.lock.op == "try":
        raise NoPatch(f"line {inner.line}: a nested trylock")
    g = inner.func.cfg
    out = []
    for nid in [inner.node.id] + list(inner.exits):
        stmt, _, child = _climb(g.nodes[nid])
        _only_lock(g, stmt, g.nodes[nid])
        if child.kind in _LABELS:
            raise NoPatch(f"line {g.nodes[nid].line}: a nested lock operation carries a label")
        a, b = _whole_line(src, stmt.extent.start.offset, stmt_end(src, stmt))
        out.append((a, b, ""))
    return out


def _group_lock(s, src, groups):
    """The non-revocable section as plain code: its acquire becomes tm_group_lock and every
    release tm_group_unlock, wherever they are."""
    if s.lock.op == "try":
        raise NoPatch("a trylock section (tm_group_lock has no try form)")
    g = s.func.cfg
    out = []
    for nid, text in [(s.node.id, f"tm_group_lock({groups});")] + \
            [(e, f"tm_group_unlock({groups});") for e in s.exits]:
        stmt, _, child = _climb(g.nodes[nid])
        _only_lock(g, stmt, g.nodes[nid])
        out.append((stmt.extent.start.offset, stmt_end(src, stmt), text))
    return out


def _plan_block(s, src, construct, groups):
    g = s.func.cfg
    node = s.node
    edits = []
    kw = "__transaction_relaxed {" if construct.endswith("relaxed") else "__transaction_atomic {"
    grouped = construct in ("group-atomic", "group-relaxed")
    if grouped:
        kw = f"tm_group_enter({groups}); " + kw
    if s.lock.op == "try":
        open_at, container, first = _try_opener(s, src, edits, kw)
    else:
        stmt, container, child = _climb(node)
        _only_lock(g, stmt, node)
        a, b = stmt.extent.start.offset, stmt_end(src, stmt)
        edits.append((a, b, kw))
        open_at, first = a, _index(container, child) + 1
    kids = list(container.get_children())
    # The closing release: an exit statement that is a later child of the same block.
    closers, others = [], []
    for e in s.exits:
        stmt, comp, child = _climb(g.nodes[e])
        _only_lock(g, stmt, g.nodes[e])
        if child.kind in _LABELS:
            raise NoPatch(f"line {g.nodes[e].line}: a release carries a label")
        if _same(comp, container) and _index(container, stmt) >= first:
            closers.append((stmt.extent.start.offset, stmt, e))
        else:
            others.append((stmt, comp, e))
    if not closers:
        raise NoPatch("no release in the block where the section starts")
    closers.sort(key=lambda x: x[0])
    close_stmt = closers[-1][1]
    others += [(c[1], container, c[2]) for c in closers[:-1]]
    close_end = stmt_end(src, close_stmt)
    edits.append((close_stmt.extent.start.offset, close_end,
                  f"}} tm_group_exit({groups});" if grouped else "}"))
    # A release before the end that leaves the block (return, goto, break) commits the
    # transaction on the way out; with groups it becomes tm_group_exit, which inside a
    # transaction only counts down and gives the groups up after the commit (runtime/ext/
    # group_tx.c), so the groups cover the whole transaction as the lock covered the section.
    for stmt, comp, e in others:
        _early_release(s, src, stmt, comp, open_at, close_end, edits,
                       f"tm_group_exit({groups});" if grouped else "")
    _check_entries(s, g, open_at, close_end)
    decls = _hoist(src, kids, first, _index(container, close_stmt), edits)
    if decls:
        i = next(i for i, e in enumerate(edits) if e[2].endswith(kw))
        a, b, text = edits[i]
        edits[i] = (a, b, text.replace(kw, " ".join(decls) + " " + kw) if text != kw
                    else " ".join(decls) + " " + text)
    return edits


def _try_opener(s, src, edits, kw):
    node = s.node
    if_stmt = node.path[-1]
    if if_stmt.kind != K.IF_STMT or s.lock.success is None:
        raise NoPatch("trylock outside an if condition")
    call = s.ev.cursor
    if not call.extent.start.file or call.extent.start.offset == call.extent.end.offset:
        raise NoPatch("trylock inside a macro")
    edits.append((call.extent.start.offset, call.extent.end.offset, "0"))
    kids = list(if_stmt.get_children())
    branch = kids[1] if s.lock.success == "T" else (kids[2] if len(kids) > 2 else None)
    if branch is not None:
        if branch.kind != K.COMPOUND_STMT:
            raise NoPatch("the success branch of the trylock is not a block")
        at = branch.extent.start.offset + 1
        edits.append((at, at, " " + kw))
        return at, branch, 0
    parent = node.path[-2] if len(node.path) > 1 else None
    if parent is None or parent.kind != K.COMPOUND_STMT:
        raise NoPatch("the trylock's if statement is not in a block")
    at = stmt_end(src, if_stmt)
    ls = src.rfind(b"\n", 0, if_stmt.extent.start.offset) + 1
    indent = src[ls:if_stmt.extent.start.offset].decode()
    indent = indent if indent.strip() == "" else ""
    edits.append((at, at, "\n" + indent + kw))
    return at, parent, _index(parent, if_stmt) + 1


def _early_release(s, src, stmt, comp, open_at, close_end, edits, text=""):
    if not (open_at <= stmt.extent.start.offset < close_end):
        raise NoPatch(f"line {stmt.location.line}: a release outside the block")
    kids = list(comp.get_children())
    i = _index(comp, stmt)
    nxt = kids[i + 1] if i + 1 < len(kids) else None
    if nxt is None:
        raise NoPatch(f"line {stmt.location.line}: release not followed by return/goto/break")
    k = nxt.kind
    if k == K.RETURN_STMT:
        if _has_call(nxt):
            raise NoPatch(f"line {nxt.location.line}: the return after the release calls a function")
    elif k == K.GOTO_STMT:
        label = next((x for x in nxt.get_children() if x.kind == K.LABEL_REF), None)
        target = label.referenced if label is not None else None
        if target is None or open_at <= target.extent.start.offset < close_end:
            raise NoPatch(f"line {nxt.location.line}: goto stays inside the section")
    elif k in (K.BREAK_STMT, K.CONTINUE_STMT):
        loop = _enclosing_loop(s, nxt, k)
        if loop is None or loop.extent.start.offset >= open_at:
            raise NoPatch(f"line {nxt.location.line}: break/continue stays inside the section")
    else:
        raise NoPatch(f"line {stmt.location.line}: release not followed by return/goto/break")
    if text:
        edits.append((stmt.extent.start.offset, stmt_end(src, stmt), text))
        return
    a, b = _whole_line(src, stmt.extent.start.offset, stmt_end(src, stmt))
    edits.append((a, b, ""))


def _enclosing_loop(s, jump, kind):
    g = s.func.cfg
    for n in g.nodes:
        if n.kind == "jump" and n.cursor is not None and _same(n.cursor, jump):
            for c in reversed(n.path[:-1]):
                if c.kind in _LOOPS and (kind == K.BREAK_STMT or c.kind != K.SWITCH_STMT):
                    return c
    return None


def _check_entries(s, g, a, b):
    inside = lambda n: n.cursor is not None and a <= n.cursor.extent.start.offset < b
    for n in g.nodes:
        if n.kind != "label" or not inside(n):
            continue
        for p in n.pred:
            pn = g.nodes[p]
            if pn.kind in ("jump", "cond") and not inside(pn):
                raise NoPatch(f"line {n.line}: a goto or switch jumps into the section")


def _hoist(src, kids, first, last, edits):
    """Split declarations inside whose variables are used after the block; the declarations
    to put before the block."""
    decls = []
    later = kids[last + 1:]
    for d in kids[first:last]:
        if d.kind != K.DECL_STMT:
            continue
        for var in d.get_children():
            if var.kind != K.VAR_DECL:
                continue
            off = var.location.offset
            used = any(x.kind == K.DECL_REF_EXPR and x.referenced is not None and
                       x.referenced.location.offset == off for c in later for x in c.walk_preorder())
            if not used:
                continue
            vars_ = [v for v in d.get_children() if v.kind == K.VAR_DECL]
            init = [x for x in var.get_children() if x.kind.is_expression()]
            t = var.type
            if len(vars_) != 1 or t.is_const_qualified() or t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY) \
                    or var.storage_class.name == "STATIC" or d.extent.start.offset == d.extent.end.offset:
                raise NoPatch(f"line {d.location.line}: '{var.spelling}' is declared inside and used "
                              "after the section")
            a, e = d.extent.start.offset, stmt_end(src, d)
            if not init:
                decl = src[a:e].decode()
                edits.append((a, e, ""))
            else:
                i0 = init[-1].extent.start.offset
                head = src[a:i0].decode().rstrip()
                if not head.endswith("="):
                    raise NoPatch(f"line {d.location.line}: cannot split the declaration of "
                                  f"'{var.spelling}'")
                decl = head[:-1].rstrip() + ";"
                edits.append((a, e, f"{var.spelling} = {src[i0:e].decode().rstrip(';').rstrip()};"))
            decls.append(decl)
    return decls


def apply(src, edits):
    """New text and, per edit, its new start offset."""
    edits = sorted(edits, key=lambda x: (x[0], x[1]))
    for (a0, b0, t0), (a1, b1, t1) in zip(edits, edits[1:]):
        if a1 < b0:
            raise NoPatch(f"overlapping edits at offsets {a0}-{b0} ({t0!r}) and {a1}-{b1} ({t1!r})")
    out, pos = [], 0
    for a, b, text in edits:
        out.append(src[pos:a])
        out.append(text.encode())
        pos = b
    out.append(src[pos:])
    return b"".join(out)


def new_offset(edits, off):
    """Where an original offset lands after the edits (for offsets not inside an edit)."""
    d = 0
    for a, b, text in edits:
        if b <= off and not (a == b == off):
            d += len(text.encode()) - (b - a)
    return off + d
