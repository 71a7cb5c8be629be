"""Which code runs inside which critical section: a section's own nodes, and every function it
reaches through calls (direct, or through a function pointer's possible targets), whole.
atomics.py and counters.py ask it where a builtin or a counter's use runs."""


def call_events(prog, f, region=None):
    """(event, callees) for each call in f's nodes `region` (None: the whole body) that is no
    lock operation; callees are the Funcs it reaches (direct, or a pointer's possible targets)."""
    g = prog.graph(f)
    for nid in (region if region is not None else range(len(g.nodes))):
        for ev in g.nodes[nid].events:
            if ev.kind == "call" and not ev.lockop:
                yield ev, ((prog.indirect_callees(ev) or []) if ev.indirect else
                           [c for c in [prog.callee(ev)] if c is not None])


def reached(prog, roots, seen=None, follow=None):
    """Yields each root (func, node ids), then, as the walk finds it, each function with source
    (not a system one) that their code reaches through calls, once, whole: (func, None).
    `seen`: usrs already visited (not entered again); `follow(ev)`: whether to follow a call."""
    seen = set() if seen is None else seen
    todo = list(roots)
    yield from roots
    while todo:
        f, region = todo.pop()
        for ev, callees in call_events(prog, f, region):
            if follow is not None and not follow(ev):
                continue
            for c in callees:
                if c.usr not in seen and not c.system:
                    seen.add(c.usr)
                    todo.append((c, None))
                    yield c, None


class Reach:
    def __init__(self, prog, sections):
        self.prog = prog
        self.by_func = {}        # usr -> [(section, node ids, or None for the whole body)]
        for s in sections:
            for f, region in reached(prog, [(s.func, s.region)]):
                self.by_func.setdefault(f.usr, []).append(
                    (s, set(region) if region is not None else None))

    def sections_at(self, f, nid):
        """The sections whose code holds node `nid` of function f (nid None: anywhere in f)."""
        return [s for s, region in self.by_func.get(f.usr, [])
                if region is None or nid is None or nid in region]


def node_of(prog, f):
    """{cursor start offset: node id} of every event in f (where a use sits in the CFG)."""
    out = {}
    for n in prog.graph(f).nodes:
        for ev in n.events:
            c = ev.cursor
            if c is not None and c.extent.start.file is not None:
                out.setdefault(c.extent.start.offset, n.id)
    return out
