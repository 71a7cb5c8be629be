"""Which candidate locks become lock groups, and what --apply writes for them (lockgroups.py
says why each rule holds). Called by planning.plan_patches with --apply."""
from . import patch as patchmod
from .lockflow import lockops
from .lockgroups import ARRAY
from .parse import strip
from .program import display

_WITH_GROUP = {"atomic": "group-atomic", "relaxed": "group-relaxed"}


class Result:
    def __init__(self):
        self.order = []        # grouped locks, in the groups' order (index in tmkit_groups)
        self.plain = {}        # section id -> why it stays plain code under its group
        self.dropped = {}      # candidate lock -> why it stays a mutex
        self.edits = {}        # path -> [(start, end, text)]: the calls written in place

    def group(self, name):
        return f"&{ARRAY}[{self.order.index(name)}]"


def _events(s):
    """(file, offset) of the section's own lock calls: its acquisition and its releases."""
    out = [(s.ev.file, s.ev.cursor.extent.start.offset)]
    for e in s.exits:
        for ev, lk in lockops(s.func.cfg.nodes[e]):
            if lk.op == "release" and lk.key == s.lock.key:
                out.append((ev.file, ev.cursor.extent.start.offset))
    return out


def _exit_lines(s):
    return {(display(s.func.cfg.nodes[e].events[0].file) if s.func.cfg.nodes[e].events else "",
             s.func.cfg.nodes[e].line) for e in s.exits}


def _index_text(ev, sources):
    """The element's index as written (`i` of `&locks[i]`), or None for a scalar lock: the
    array's one group ignores it, but it stays evaluated (no side effects, lockgroups.py), so
    a variable used only there stays used."""
    arg = strip(ev.args[0])
    obj = strip(next(iter(arg.get_children())))
    if obj.kind.name != "ARRAY_SUBSCRIPT_EXPR":
        return None
    idx = list(obj.get_children())[1]
    f = idx.extent.start.file
    return sources(f.name)[idx.extent.start.offset:idx.extent.end.offset].decode()


def _cycle(nodes, edges):
    """A lock on a cycle of `edges` among `nodes`, or None."""
    succ = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in succ[n]:
            if state.get(m) == 1:
                return path[path.index(m):] if m in path else [m]
            if m not in state:
                c = visit(m, path + [m])
                if c:
                    return c
        state[n] = 2
        return None
    for n in sorted(nodes):
        if n not in state:
            c = visit(n, [n])
            if c:
                return c
    return None


def _topo(nodes, edges):
    out, left = [], set(nodes)
    while left:
        ready = sorted(n for n in left if not any(a in left and b == n for a, b in edges))
        out.append(ready[0])
        left.discard(ready[0])
    return out


def settle(sections, order_edges, kept, reasons, plans, sources, cmap, cands, unbalanced, rules):
    """Decide the grouped locks; leaves plans/reasons/kept as the rules settle them with the
    plain sections outside both (the caller writes their reasons)."""
    res = Result()
    by_lock = {}
    for s in sections:
        by_lock.setdefault(s.lock.name, []).append(s)
    S = {L for L in cands if L in kept and L in by_lock}
    demoted = {}
    snap = (dict(plans), dict(reasons), dict(kept), {s.id: list(s.colors) for s in sections})
    colours_of = lambda x: getattr(x, "colors", [])
    for _ in range(64):
        for d, src in zip((plans, reasons, kept), snap[:3]):
            d.clear()
            d.update(src)
        for s in sections:
            s.colors = list(snap[3][s.id])
        plain = {}
        for L in S:
            kept.pop(L, None)
            for s in by_lock[L]:
                if s.id in reasons or s.id in demoted:
                    plain[s.id] = demoted.get(s.id) or reasons[s.id]
                    reasons.pop(s.id, None)
                    plans.pop(s.id, None)
        rules()
        change = False
        for L in sorted(S):
            bad = [s for s in by_lock[L] if s.id in reasons and s.id not in plain
                   and not reasons[s.id].startswith(f"lock '{L}' is kept:")]
            for s in bad:                    # a section the rules keep stays plain code
                demoted[s.id] = reasons[s.id]
            if L in kept and not bad:
                takers = [s for s in by_lock[L] if s.id in plans and s.id not in plain
                          and any(k in kept for k in s.acquires)]
                for s in takers:
                    demoted[s.id] = f"as a transaction it would take a kept lock inside ({kept[L]})"
                if not takers:
                    res.dropped[L] = kept[L]
                    S.discard(L)
            change = change or bool(bad) or L in kept
        if change:
            continue
        live = lambda x: x.id in plans and x.id not in reasons
        for L in sorted(S):
            users = {}
            for s in by_lock[L]:
                for k in _events(s):
                    users.setdefault(k, set()).add(s.id)
            unb = {(u["file"], u["line"]) for u in unbalanced if u["lock"] == L}
            for s in by_lock[L]:
                if s.id in plain or not live(s):
                    continue
                why = None
                if any(len(users[k]) > 1 for k in _events(s)):
                    why = "a lock call it shares with another section"
                elif _exit_lines(s) & unb:
                    why = "a release that is reached without the lock too"
                else:
                    try:
                        patchmod.plan(s, sources(s.file), _WITH_GROUP.get(plans[s.id][0], plans[s.id][0]),
                                      f"&{ARRAY}[0]")
                    except patchmod.NoPatch as e:
                        why = f"with its lock's group: {e}"
                if why:
                    demoted[s.id] = why
                    change = True
        if change:
            continue
        # 1. no section of a grouped lock inside a transaction
        txs = [x for x in sections if live(x) and plans[x.id][0] != "group-lock"]
        for L in sorted(S):
            for z in txs:
                inner = L in z.acquires or any(y.parent is z for y in by_lock[L] if y is not z)
                if not inner:
                    continue
                if z.lock.name in S:
                    demoted[z.id] = (f"as a transaction it would take '{L}' (a lock group) inside, "
                                     "which a plain section may hold while it begins a transaction")
                else:
                    res.dropped[L] = (f"section #{z.id} ({z.func.name}), a transaction, takes it "
                                      "inside: its group could not be held by plain code")
                    S.discard(L)
                change = True
                break
        if change:
            continue
        # 2. the one order of groups
        edges = set()
        for h in sections:
            if h.id in plain:
                X, cols = h.lock.name, []
            elif live(h) and plans[h.id][0] == "group-lock":
                X, cols = (h.lock.name if h.lock.name in S else None), colours_of(h)
            else:
                continue
            for Y in h.acquires:
                if Y not in S or Y == X:
                    continue
                if cols:
                    res.dropped[Y] = (f"section #{h.id} ({h.func.name}) takes it while holding "
                                      "its colours' groups, which come after the lock groups")
                    S.discard(Y)
                    change = True
                elif X is not None:
                    edges.add((X, Y))
        if change:
            continue
        cyc = _cycle(S, edges)
        if cyc:
            L = min(cyc, key=lambda n: (len(by_lock[n]), n))
            res.dropped[L] = ("its plain sections and those of " + ", ".join(
                f"'{x}'" for x in cyc if x != L) + " nest in both orders (groups have one order)")
            S.discard(L)
            continue
        res.order = _topo(S, edges)
        res.plain = plain
        return res
    raise RuntimeError("lock groups did not settle")


def finish(res, sections, plans, reasons, kept, sources, cmap, cands, group_args):
    """Re-plans the grouped locks' transactions with their group and writes the plain calls."""
    by_lock = {}
    for s in sections:
        by_lock.setdefault(s.lock.name, []).append(s)
    for L in res.order:
        g = res.group(L)
        covered = set()
        txs = []
        for s in by_lock[L]:
            if s.id in res.plain:
                reasons[s.id] = (f"plain code under its lock's group {g} (its lock calls become "
                                 f"tm_group_lock/tm_group_unlock): {res.plain[s.id]}")
                continue
            if s.id not in plans or s.id in reasons:
                continue
            construct = _WITH_GROUP.get(plans[s.id][0], plans[s.id][0])
            cols = group_args(s, cmap)
            plans[s.id] = (construct, patchmod.plan(s, sources(s.file), construct,
                                                     g + (", " + cols if cols else "")))
            covered |= set(_events(s))
            txs.append(s.id)
        for f, n, ev, lk in cands[L].ops:
            if lk.via is not None or (ev.file, ev.cursor.extent.start.offset) in covered:
                continue
            call = ev.cursor
            op = "tm_group_lock" if lk.op == "acquire" else "tm_group_unlock"
            stmt = strip(n.cursor) if n.cursor is not None else None
            bare = stmt is not None and stmt.extent.start.offset == call.extent.start.offset \
                and stmt.extent.end.offset == call.extent.end.offset
            idx = _index_text(ev, sources)
            call_text = f"{op}({g})" if idx is None else f"((void)({idx}), {op}({g}))"
            text = call_text if bare else f"({call_text}, 0)"
            path = call.extent.start.file.name
            res.edits.setdefault(path, []).append((call.extent.start.offset,
                                                   call.extent.end.offset, text))
        nplain = sorted(i for i in res.plain if any(x.id == i for x in by_lock[L]))
        kept[L] = (f"a lock group ({g}): {len(nplain)} section(s) stay plain code under it "
                   f"({', '.join('#%d' % i for i in nplain)}), {len(txs)} become transactions "
                   "that enter it")
