"""Control-flow graph of one function body, built from the libclang AST.

Nodes are statements (expression, declaration, return, goto, break, continue, asm) and branch
conditions; compound statements only sequence their children. Each node keeps the chain of
enclosing statements (`path`) so the rewriter can find the block a statement sits in.
Short-circuit operators and ?: stay inside one node (their branches are not separate paths).
Constant conditions (do { } while (0) in macros, for (;;), while (1)) get only their live edges.
Calls to functions that never return end their path.
"""
from clang.cindex import CursorKind as K, SourceRange

from .parse import const_int

NORETURN = {"abort", "exit", "_exit", "_Exit", "quick_exit", "pthread_exit", "__assert_fail",
            "__assert_perror_fail", "__assert", "longjmp", "siglongjmp", "_longjmp", "err", "errx",
            "verr", "verrx", "__builtin_unreachable", "__builtin_trap", "__builtin_abort",
            "__stack_chk_fail"}


class Node:
    __slots__ = ("id", "kind", "cursor", "line", "succ", "pred", "events", "path", "label")

    def __init__(self, nid, kind, cursor, line, path):
        self.id, self.kind, self.cursor, self.line, self.path = nid, kind, cursor, line, path
        self.succ, self.pred, self.events, self.label = [], [], [], None


class CFG:
    def __init__(self):
        self.nodes = []
        self.labels = {}
        self.entry = self._new("entry", None, 0, ())
        self.exit = self._new("exit", None, 0, ())

    def _new(self, kind, cursor, line, path):
        n = Node(len(self.nodes), kind, cursor, line, path)
        self.nodes.append(n)
        return n

    def edge(self, a, b, label=None):
        a.succ.append((b.id, label))
        b.pred.append(a.id)


class _Loop:
    def __init__(self, cont):
        self.cont, self.breaks = cont, []


class Builder:
    def __init__(self, body, line, noreturn_call):
        self.g = CFG()
        self.g.entry.line = self.g.exit.line = line
        self.loops = []
        self.gotos = []
        self.noreturn_call = noreturn_call
        self.path = []
        out = self.visit(body, [(self.g.entry, None)])
        self.link(out, self.g.exit)
        for node, name in self.gotos:
            target = self.g.labels.get(name)
            if target is not None:
                self.g.edge(node, target)

    def link(self, preds, node):
        for p, lab in preds:
            self.g.edge(p, node, lab)

    def node(self, kind, c, preds):
        n = self.g._new(kind, c, c.location.line, tuple(self.path))
        self.link(preds, n)
        return n

    def visit(self, c, preds):
        k = c.kind
        self.path.append(c)
        try:
            return self._visit(c, k, preds)
        finally:
            self.path.pop()

    def _visit(self, c, k, preds):
        g = self.g
        if k == K.COMPOUND_STMT:
            for ch in c.get_children():
                preds = self.visit(ch, preds)
            return preds
        if k == K.NULL_STMT:
            return preds
        if k == K.IF_STMT:
            ch = list(c.get_children())
            n = self.node("cond", ch[0], preds)
            v = const_int(ch[0])
            t = self.visit(ch[1], [(n, "T")] if v != 0 else [])
            f_in = [(n, "F")] if not v else []
            f = self.visit(ch[2], f_in) if len(ch) > 2 else f_in
            return t + f
        if k == K.WHILE_STMT:
            ch = list(c.get_children())
            n = self.node("cond", ch[0], preds)
            v = const_int(ch[0])
            loop = _Loop(n)
            self.loops.append(loop)
            body = self.visit(ch[1], [(n, "T")] if v != 0 else [])
            self.loops.pop()
            self.link(body, n)
            return loop.breaks + ([(n, "F")] if not v else [])
        if k == K.DO_STMT:
            ch = list(c.get_children())
            head = g._new("join", c, c.location.line, tuple(self.path))
            self.link(preds, head)
            cond = g._new("cond", ch[1], ch[1].location.line, tuple(self.path))
            loop = _Loop(cond)
            self.loops.append(loop)
            body = self.visit(ch[0], [(head, None)])
            self.loops.pop()
            self.link(body, cond)
            v = const_int(ch[1])
            if v != 0:
                g.edge(cond, head, "T")
            return loop.breaks + ([(cond, "F")] if not v else [])
        if k == K.FOR_STMT:
            init, cond, inc, body = _for_parts(c)
            if init is not None:
                preds = self.visit(init, preds)
            v = 1 if cond is None else const_int(cond)
            n = self.node("cond" if cond is not None else "join", cond if cond is not None else c,
                          preds)
            cont = g._new("join", inc if inc is not None else c, n.line, tuple(self.path))
            loop = _Loop(cont)
            self.loops.append(loop)
            out = self.visit(body, [(n, "T")] if v != 0 else [])
            self.loops.pop()
            self.link(out, cont)
            if inc is not None:
                cont.kind = "stmt"
            g.edge(cont, n)
            return loop.breaks + ([(n, "F")] if not v else [])
        if k == K.SWITCH_STMT:
            ch = list(c.get_children())
            n = self.node("cond", ch[0], preds)
            loop = _Loop(None)
            loop.switch = n
            loop.has_default = False
            self.loops.append(loop)
            out = self.visit(ch[-1], [])
            self.loops.pop()
            return out + loop.breaks + ([] if loop.has_default else [(n, "F")])
        if k in (K.CASE_STMT, K.DEFAULT_STMT):
            sw = next((lp for lp in reversed(self.loops) if hasattr(lp, "switch")), None)
            n = self.node("label", c, preds)
            if sw is not None:
                g.edge(sw.switch, n, "case")
                if k == K.DEFAULT_STMT:
                    sw.has_default = True
            return self.visit(list(c.get_children())[-1], [(n, None)])
        if k == K.LABEL_STMT:
            n = self.node("label", c, preds)
            n.label = c.spelling
            g.labels[c.spelling] = n
            return self.visit(list(c.get_children())[0], [(n, None)])
        if k == K.GOTO_STMT:
            n = self.node("jump", c, preds)
            ref = next((x for x in c.get_children() if x.kind == K.LABEL_REF), None)
            if ref is not None:
                self.gotos.append((n, ref.spelling))
            return []
        if k == K.INDIRECT_GOTO_STMT:
            n = self.node("jump", c, preds)
            g.edge(n, g.exit)
            return []
        if k == K.BREAK_STMT:
            n = self.node("jump", c, preds)
            if self.loops:
                self.loops[-1].breaks.append((n, None))
            return []
        if k == K.CONTINUE_STMT:
            n = self.node("jump", c, preds)
            loop = next((lp for lp in reversed(self.loops) if lp.cont is not None), None)
            if loop is not None:
                g.edge(n, loop.cont)
            return []
        if k == K.RETURN_STMT:
            n = self.node("return", c, preds)
            g.edge(n, g.exit)
            return []
        n = self.node("stmt", c, preds)
        if self.noreturn_call(c):
            return []
        return [(n, None)]


def _for_parts(c):
    """(init, cond, inc, body) of a for statement; libclang omits the absent parts."""
    ch = list(c.get_children())
    body, head = ch[-1], ch[:-1]
    if len(head) == 3:
        return head[0], head[1], head[2], body
    if not head:
        return None, None, None, body
    # Find the two semicolons of the header to place the parts that are present.
    rng = SourceRange.from_locations(c.extent.start, body.extent.start)
    semis, depth = [], 0
    for t in c.translation_unit.get_tokens(extent=rng):
        s = t.spelling
        if s == "(":
            depth += 1
        elif s == ")":
            depth -= 1
        elif s == ";" and depth == 1:
            semis.append(t.extent.start.offset)
    parts = [None, None, None]
    if len(semis) < 2:                       # header inside a macro: guess init/cond/inc order
        for i, h in enumerate(head):
            parts[i if h.kind != K.DECL_STMT or i == 0 else 0] = h
        return parts[0], parts[1], parts[2], body
    for h in head:
        off = h.extent.start.offset
        parts[0 if off < semis[0] else 1 if off < semis[1] else 2] = h
    return parts[0], parts[1], parts[2], body


def build(body, line, noreturn_call):
    return Builder(body, line, noreturn_call).g


def reachable(g, starts, stop=lambda n: False):
    """Node ids reachable from `starts` (ids), not expanding past nodes where stop(node)."""
    seen, todo = set(starts), list(starts)
    while todo:
        n = g.nodes[todo.pop()]
        if stop(n):
            continue
        for s, _ in n.succ:
            if s not in seen:
                seen.add(s)
                todo.append(s)
    return seen
