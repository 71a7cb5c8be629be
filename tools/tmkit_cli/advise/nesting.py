"""A critical section is the outermost lock region (LockSTM): a section acquired inside another
section of the same function, and released inside it, is part of that one. SwapXY's
`lock(L1); lock(L2); ...; unlock(L2); unlock(L1)` is one section holding L1 and L2, not two.

The inner sections stay known (s.nested): their lock operations are the outer region's, and the
rewrite deletes them when it turns the outer region into a transaction. Sections with problems
(unbalanced, cross-function) are never merged: they stay as they are, each with its lock."""


def separate(secs):
    """--apply keeps nested sections apart (each is rewritten or kept on its own: an inner
    transaction inside an outer one is a nested transaction, an inner section under a kept
    outer lock runs as a transaction with that mutex held); renumbered from 1, each with
    s.parent (the innermost section of the same function around it, or None)."""
    parents = _parents(secs)
    for i, s in enumerate(secs):
        s.id = i + 1
        s.nested = []
        s.parent = parents.get(id(s))
    return list(secs)


def _parents(secs):
    """{id(section): the smallest other section of its function that contains it}."""
    by_func = {}
    for s in secs:
        by_func.setdefault(id(s.func), []).append(s)
    parent = {}
    for group in by_func.values():
        for s in group:
            if s.status != "ok":
                continue
            best = None
            for o in group:
                if o is s or o.status != "ok":
                    continue
                if s.node.id in o.region and all(e in o.region for e in s.exits):
                    if best is None or len(o.region) < len(best.region):
                        best = o
            if best is not None:
                parent[id(s)] = best
    return parent


def outermost(secs):
    """The outer sections, renumbered from 1; each gets s.nested (its inner sections)."""
    by_func = {}
    for s in secs:
        by_func.setdefault(id(s.func), []).append(s)
    parent = {}
    for group in by_func.values():
        for s in group:
            if s.status != "ok":
                continue
            best = None
            for o in group:
                if o is s or o.status != "ok":
                    continue
                if s.node.id in o.region and all(e in o.region for e in s.exits):
                    if best is None or len(o.region) > len(best.region):
                        best = o
            if best is not None:
                parent[id(s)] = best
    outs = [s for s in secs if id(s) not in parent]
    for s in secs:
        s.nested = []
    for s in secs:
        o = parent.get(id(s))
        if o is None:
            continue
        while id(o) in parent:
            o = parent[id(o)]
        o.nested.append(s)
    for i, s in enumerate(outs):
        s.id = i + 1
    return outs


def lock_names(s):
    """The section's lock first, then the nested ones in order of acquisition."""
    names = [s.lock.name]
    for i in sorted(s.nested, key=lambda x: (x.line, x.ev.cursor.extent.start.offset)):
        if i.lock.name not in names:
            names.append(i.lock.name)
    return names
