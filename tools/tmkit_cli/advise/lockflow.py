"""Lock operations on CFG events, lock-state dataflow, and wrapper discovery."""
from clang.cindex import CursorKind as K

from .locks import (API, LockOp, _root, _template, abstract, deref, instantiate, render,
                    success_label)
from .parse import strip


def annotate(prog, f):
    """Set ev.lockop (a list of LockOp, or None) on every call event of f."""
    g = prog.graph(f)
    ex = f.extractor
    for n in g.nodes:
        for ev in n.events:
            if ev.kind != "call":
                continue
            ev.lockop = None
            ops = []
            api = API.get(ev.what) if not ev.indirect else None
            if api is not None:
                op, kind, mode, idx = api
                if idx < len(ev.args):
                    arg = ev.args[idx]
                    key = deref(render(arg))
                    root = _root(arg, f.params)
                    ops.append(LockOp(op, kind, mode, key, abstract(arg, f, ex), root,
                                      _template(key, root, f.params)))
            else:
                callee = prog.callee(ev)
                for w in (callee.wrapper if callee is not None else ()):
                    if w.template is not None:
                        i = w.template[0]
                        if i >= len(ev.args):
                            continue
                        arg = ev.args[i]
                        key = instantiate(w.template, render(arg))
                        root = _root(arg, f.params)
                        name = w.name if not w.template[1] else abstract(arg, f, ex)
                        tmpl = _template(key, root, f.params)
                    else:
                        key, root, name, tmpl = w.key, ("global",), w.name, None
                    ops.append(LockOp(w.op, w.kind, w.mode, key, name, root, tmpl, via=callee.name))
            for lk in ops:
                if lk.op == "try" and n.kind == "cond":
                    lk.success = success_label(n.cursor, ev.cursor)
            ev.lockop = ops or None


def lockops(node):
    for ev in node.events:
        if ev.lockop:
            for lk in ev.lockop:
                yield ev, lk


def flow(g):
    """Per node id: (may-held, must-held) key sets on entry to the node."""
    state = {g.entry.id: (frozenset(), frozenset())}
    work = [g.entry.id]
    while work:
        nid = work.pop()
        n = g.nodes[nid]
        may, must = state[nid]
        ops = list(lockops(n))
        for sid, label in n.succ:
            m, u = set(may), set(must)
            for _, lk in ops:
                if lk.op == "acquire" or (lk.op == "try" and lk.success is not None
                                          and lk.success == label):
                    m.add(lk.key)
                    u.add(lk.key)
                elif lk.op == "release":
                    m.discard(lk.key)
                    u.discard(lk.key)
            new = (frozenset(m), frozenset(u))
            old = state.get(sid)
            if old is not None:
                new = (old[0] | new[0], old[1] & new[1])
                if new == old:
                    continue
            state[sid] = new
            work.append(sid)
    return state


class WrapperOp:
    def __init__(self, op, kind, mode, key, name, template):
        self.op, self.kind, self.mode, self.key, self.name = op, kind, mode, key, name
        self.template = template

    def sig(self):
        return (self.op, self.key, self.name, self.template)


def find_wrapper(prog, f):
    """What a call to f does to locks rooted at its parameters or at globals."""
    g = prog.graph(f)
    st = flow(g)
    found = {}
    info = {}
    for n in g.nodes:
        for ev, lk in lockops(n):
            info.setdefault(lk.key, lk)
    exit_state = st.get(g.exit.id, (frozenset(), frozenset()))
    for key in exit_state[1]:              # held on every return: an acquire wrapper
        lk = info.get(key)
        if lk is not None and lk.root[0] in ("param", "global") and (lk.template or lk.root[0] == "global"):
            w = WrapperOp("acquire", lk.kind, lk.mode, key, lk.name, lk.template)
            found[w.sig()] = w
    for n in g.nodes:
        if n.id not in st:
            continue
        may = st[n.id][0]
        for ev, lk in lockops(n):
            # never taken here before the release: the caller holds it
            if lk.op == "release" and lk.key not in may and lk.root[0] in ("param", "global"):
                if lk.template or lk.root[0] == "global":
                    w = WrapperOp("release", lk.kind, None, lk.key, lk.name, lk.template)
                    found[w.sig()] = w
        if n.kind == "return" and n.events:
            kids = [x for x in n.cursor.get_children() if x.kind.is_expression()]
            top = strip(kids[0]) if kids else None
            for ev, lk in lockops(n):
                if lk.op == "try" and top is not None and top.kind == K.CALL_EXPR and ev.cursor == top \
                        and lk.root[0] in ("param", "global"):
                    w = WrapperOp("try", lk.kind, lk.mode, lk.key, lk.name, lk.template)
                    found[w.sig()] = w
    return list(found.values())


def discover(prog):
    """Annotate every user function, finding wrappers until nothing changes."""
    funcs = prog.user_funcs()
    for _ in range(8):
        changed = False
        for f in funcs:
            annotate(prog, f)
        for f in funcs:
            w = find_wrapper(prog, f)
            if {x.sig() for x in w} != {x.sig() for x in f.wrapper}:
                f.wrapper = w
                changed = True
        if not changed:
            break
    for f in funcs:
        annotate(prog, f)
