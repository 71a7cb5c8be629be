"""LockSTM's conflict graph: sections that may touch common shared memory (one of them writing)
are connected; the report's components are its connected components (not lock groups: those are
classify.py's colors). An access through a function
pointer ('?') conflicts with everything."""


def conflicts(a, b):
    common = []
    wild = "?" in a.accesses or "?" in b.accesses
    for loc, ma in a.accesses.items():
        mb = b.accesses.get(loc)
        if mb and ("w" in ma or "w" in mb):
            common.append(loc)
    if wild and (a.accesses and b.accesses):
        common.append("?")
    return sorted(set(common))


def groups(sections):
    """Assign s.group (1-based component number) to every section; return the components for
    the report."""
    parent = list(range(len(sections)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Index by location to avoid comparing every pair on big programs.
    by_loc = {}
    for i, s in enumerate(sections):
        for loc in s.accesses:
            by_loc.setdefault(loc, []).append(i)
    wild = by_loc.pop("?", [])
    shared = {}
    for loc, idx in by_loc.items():
        writers = [i for i in idx if "w" in sections[i].accesses[loc]]
        if not writers:
            continue
        w0 = writers[0]
        for i in idx:
            if i != w0:
                parent[find(i)] = find(w0)
                shared.setdefault(find(w0), set()).add(loc)
    for i in wild:
        for j in range(len(sections)):
            if sections[j].accesses:
                parent[find(j)] = find(i)
    comps = {}
    for i in range(len(sections)):
        comps.setdefault(find(i), []).append(i)
    out = []
    for gid, members in enumerate(sorted(comps.values(), key=lambda m: m[0]), 1):
        locs = set()
        for i in members:
            sections[i].group = gid
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                locs.update(conflicts(sections[members[a]], sections[members[b]]))
        out.append({"id": gid, "sections": [sections[i].id for i in members],
                    "locks": sorted({sections[i].lock.name for i in members}),
                    "shared": sorted(locs)})
    return out
