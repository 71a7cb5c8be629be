"""Per section: its blockers (with call chain and every-path/some-path), shared accesses and
the locks acquired inside it; then the program's lock order and its cycles."""
from .cfg import reachable
from .lockflow import lockops
from .tmplan import SOFT, hard


def _reach_exit(g, s, avoid):
    """True if some path from the section's start reaches one of its exits avoiding `avoid`."""
    exits = set(s.exits)
    inside = s.region | exits
    seen, todo = set(), [x for x in s.starts if x not in avoid]
    while todo:
        nid = todo.pop()
        if nid in seen or nid not in inside:
            continue
        seen.add(nid)
        if nid in exits:
            return True
        for sid, _ in g.nodes[nid].succ:
            if sid not in avoid and sid not in seen:
                todo.append(sid)
    return False


def section(an, s):
    f = s.func
    g = f.cfg
    per_node = {}
    always_nodes = set()
    for nid in sorted(s.region):
        n = g.nodes[nid]
        bl, alw = an.node(f, n, s.accesses, s.acquires)
        for ev, lk in lockops(n):
            if lk.op in ("acquire", "try") and lk.key != s.lock.key:
                s.acquires.setdefault(lk.name, [f.name])
        if bl:
            per_node[nid] = bl
        if alw:
            always_nodes.add(nid)
    # GCC's tmipa flags see a blocker in the transaction's own code, or a call to a function
    # that goes irrevocable on every path; not one deeper that is only on some of its paths.
    gcc_nodes, gcc_always = set(), set()
    for nid, bl in per_node.items():
        vis = [b for b in bl if (len(b.chain) == 1 or b.always) and b.kind not in SOFT]
        if vis:
            gcc_nodes.add(nid)
            if any(b.always for b in vis):
                gcc_always.add(nid)
    s.gcc_irrevocable = "never"
    if gcc_nodes:
        s.gcc_irrevocable = "sometimes" if _reach_exit(g, s, gcc_always) else "always"
    seen = set()
    for nid, bl in per_node.items():
        every = not _reach_exit(g, s, {nid})
        for b in bl:
            k = b.key()
            if k in seen:
                continue
            seen.add(k)
            s.blockers.append((b, "every" if every and b.always else "some"))
    s.blockers.sort(key=lambda x: (x[0].line, x[0].kind))
    if hard(s.blockers):   # soft ones (tmplan.py) keep the transaction speculative
        s.irrevocable = "sometimes" if _reach_exit(g, s, always_nodes) else "always"


def lock_order(sections):
    """Edges held -> acquired with witnesses, and the cycles among them."""
    edges = {}
    for s in sections:
        a = s.lock.name
        for b, chain in s.acquires.items():
            site = {"function": s.func.name, "section": s.id, "line": s.line, "chain": chain}
            edges.setdefault((a, b), []).append(site)
    return edges, _cycles(edges)


def _cycles(edges):
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):                       # Tarjan's SCC, iterative enough for lock graphs
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in succ[v]:
                out.append(sorted(comp))

    for v in sorted(succ):
        if v not in index:
            strong(v)
    return out
