"""Critical sections: the CFG region from an acquisition to the matching releases.

A section starts after an acquire (for a trylock: on its success edge) and extends along every
path until a release of the same lock expression; those release statements are its exits. A
path that returns still holding the lock makes it a cross-function section; a second
acquisition of the same lock on a path, a trylock whose result is not tested in the branch
condition itself, or a release where the lock may not be held are reported as unbalanced.
None of these is guessed at: they stay as locks.
"""
from .lockflow import flow, lockops
from .program import display


class Section:
    def __init__(self, func, node, ev, lock):
        self.func, self.node, self.ev, self.lock = func, node, ev, lock
        self.id = None
        self.region = set()        # node ids inside (without the exits)
        self.exits = []            # node ids of the releases
        self.starts = []
        self.problems = []
        self.status = "ok"
        self.blockers = []
        self.irrevocable = "never"
        self.accesses = {}
        self.acquires = {}
        self.group = None
        self.cls = None
        self.patch = None
        self.holding = []          # names of locks already held at the acquisition

    @property
    def file(self):
        return self.ev.file

    @property
    def line(self):
        return self.ev.line

    def lines(self, g):
        ls = [self.ev.line] + [g.nodes[i].line for i in self.region | set(self.exits) if g.nodes[i].line]
        return min(ls), max(ls)


def _jump_after(g, nid):
    kinds = set()
    for s, _ in g.nodes[nid].succ:
        n = g.nodes[s]
        if n.kind == "return":
            kinds.add("return")
        elif n.kind == "jump":
            kinds.add(n.cursor.kind.name.replace("_STMT", "").lower())
        elif n.kind == "exit":
            kinds.add("return")
        else:
            kinds.add("fallthrough")
    return "/".join(sorted(kinds)) or "none"


def find(prog):
    """(sections, unbalanced-release reports) over all user functions."""
    sections, unbalanced = [], []
    for f in sorted(prog.user_funcs(), key=lambda f: (f.file, f.line)):
        g = prog.graph(f)
        if not any(True for n in g.nodes for _ in lockops(n)):
            continue
        st = flow(g)
        wrapped = {(w.op, w.key) for w in f.wrapper}
        for n in g.nodes:
            if n.id not in st:
                continue                                 # unreachable code
            may, must = st[n.id]
            for ev, lk in lockops(n):
                if lk.op in ("acquire", "try"):
                    if ("acquire", lk.key) in wrapped or ("try", lk.key) in wrapped:
                        continue
                    sections.append(_section(prog, f, g, n, ev, lk, may))
                elif lk.op == "release" and lk.key not in must and \
                        (("release", lk.key) not in wrapped or lk.key in may):
                    unbalanced.append({"function": f.name, "file": display(ev.file), "line": ev.line,
                                       "lock": lk.name,
                                       "problem": "released where it may not be held (no matching "
                                                  "acquisition on some path in this function)"})
    for i, s in enumerate(sections):
        s.id = i + 1
    return sections, unbalanced


def _section(prog, f, g, n, ev, lk, may):
    s = Section(f, n, ev, lk)
    names = {}
    for m in g.nodes:
        for _, other in lockops(m):
            names.setdefault(other.key, other.name)
    s.holding = sorted({names.get(k, k) for k in may if k != lk.key})
    if lk.op == "try":
        if lk.success is None:
            s.problems.append("trylock result is not tested directly in a branch condition")
            starts = [sid for sid, _ in n.succ]
        else:
            starts = [sid for sid, lab in n.succ if lab == lk.success]
    else:
        starts = [sid for sid, _ in n.succ]
    s.starts = starts
    seen, todo = set(starts), list(starts)
    while todo:
        m = g.nodes[todo.pop()]
        releases = [o for _, o in lockops(m) if o.op == "release" and o.key == lk.key]
        if releases:
            s.exits.append(m.id)
            continue
        if m.kind == "exit":
            s.problems.append(f"still held when {f.name} returns: the section continues in its callers")
            s.status = "cross-function"
            continue
        for _, o in lockops(m):
            if o.op in ("acquire", "try") and o.key == lk.key:
                s.problems.append(f"acquired again at line {m.line} while held")
        s.region.add(m.id)
        for sid, _ in m.succ:
            if sid not in seen:
                seen.add(sid)
                todo.append(sid)
    if not s.exits and s.status == "ok":
        s.problems.append("no release reachable")
    if s.problems and s.status == "ok":
        s.status = "unbalanced"
    return s


def exits_info(s):
    g = s.func.cfg
    return [{"line": g.nodes[e].line, "then": _jump_after(g, e)} for e in sorted(s.exits)]
