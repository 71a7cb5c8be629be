"""Which code runs inside which critical section: a section's own nodes, and every function it
reaches through calls (direct, or through a function pointer's possible targets), whole.
atomics.py and counters.py ask it where a builtin or a counter's use runs."""


class Reach:
    def __init__(self, prog, sections):
        self.prog = prog
        self.by_func = {}        # usr -> [(section, node ids, or None for the whole body)]
        for s in sections:
            self._add(s)

    def _add(self, s):
        prog = self.prog
        self.by_func.setdefault(s.func.usr, []).append((s, set(s.region)))
        todo, seen = [(s.func, s.region)], set()
        while todo:
            f, region = todo.pop()
            g = prog.graph(f)
            for nid in (region if region is not None else range(len(g.nodes))):
                for ev in g.nodes[nid].events:
                    if ev.kind != "call" or ev.lockop:
                        continue
                    callees = prog.indirect_callees(ev) if ev.indirect else \
                        [c for c in [prog.callee(ev)] if c is not None]
                    for c in callees or []:
                        if c.usr in seen or c.system:
                            continue
                        seen.add(c.usr)
                        self.by_func.setdefault(c.usr, []).append((s, None))
                        todo.append((c, None))

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
