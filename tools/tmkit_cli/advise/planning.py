"""Which sections the rewrite may touch: every section's patch (construct and edits) or the
reason it keeps its lock, for --patch, --verify and --apply (classify.py gives the classes and
colours this plans from).

A lock can be removed only if every section of it is rewritten: a section that must keep its
lock (condition-variable wait, unbalanced, shape the rewrite cannot handle, lock behind an
unresolved pointer) keeps every lock nested with it, and every section of those locks. With
--apply a kept global lock may become a lock group instead (lockgroups.py, lgsettle.py).
"""
from . import patch as patchmod
from .classify import CONSTRUCT_TEXT, colors, construct_of, group_args, local_object


class Colours(dict):
    """The colours' data in their order; `base`: the lock groups (lockgroups.py) come first in
    tmkit_groups, so a colour's group is tmkit_groups[base + i]."""
    base = 0


def _plan_each(sections, compiled, sources, cmap, kept, reasons, plans):
    for s in sections:
        construct = construct_of(s)
        why = None
        if s.status != "ok":
            why = "unbalanced: " + "; ".join(s.problems)
        elif any(b.kind == "condvar-wait" for b, _ in s.blockers):
            why = "condition-variable wait inside"
        elif s.lock.name.startswith("*") or "::*" in s.lock.name:
            why = f"lock '{s.lock.name}' is reached through a pointer the analysis does not resolve"
        elif local_object(s.lock):
            why = f"lock '{s.lock.name}' is a local object (its address may be shared)"
        elif s.file not in compiled:
            why = "section is in a header (rewrite only edits compiled sources)"
        else:
            try:
                plans[s.id] = (construct, patchmod.plan(s, sources(s.file), construct,
                                                         group_args(s, cmap)))
            except patchmod.NoPatch as e:
                why = str(e)
        if why:
            reasons[s.id] = why
            kept.setdefault(s.lock.name, f"section #{s.id} keeps it ({why})")


def plan_patches(sections, order_edges, units, sources, pre_kept=None, cmap=None,
                 lock_cands=None, unbalanced=(), out=None):
    """Decide s.patch = {'construct', 'edits'} or {'reason'} for every section. With --apply,
    `lock_cands` (lockgroups.candidates) may turn kept locks into lock groups; the result
    (lgsettle.Result) goes to out['lock_groups']."""
    compiled = {u.file for u in units}
    kept, reasons = dict(pre_kept or {}), {}
    plans = {}
    cmap = Colours(cmap or {})
    plan = any(getattr(x, "plan_mode", False) for x in sections)
    _plan_each(sections, compiled, sources, cmap, kept, reasons, plans)
    if plan and lock_cands:
        names = {x.lock.name for x in sections}
        if any(name in kept for name in lock_cands):
            base = sum(1 for name in lock_cands if name in names)    # room for the lock groups before the colours' groups: plan again
            cmap.base = base
            kept, reasons, plans = dict(pre_kept or {}), {}, {}
            _plan_each(sections, compiled, sources, cmap, kept, reasons, plans)
    # Two sections cannot share a closing statement.
    owners = {}
    files = {s.id: s.file for s in sections}
    for sid, (_, edits) in plans.items():
        for e in edits:
            if e[2] == "}" or e[2].startswith("} tm_group_exit"):
                owners.setdefault((files[sid], e[0], e[1]), []).append(sid)
    for ids in owners.values():
        if len(ids) > 1:
            for sid in ids:
                if sid not in reasons:
                    reasons[sid] = "shares its release with another section"
                    sec = next(x for x in sections if x.id == sid)
                    kept.setdefault(sec.lock.name, f"section #{sid} keeps it (shared release)")
    if plan:
        def rules():
            _keep_for_serial_lock(sections, order_edges, kept, reasons, plans, sources, cmap)
            _drop_idle_groups(sections, plans, reasons, sources, cmap)
            _settle_constructs(sections, plans, reasons, sources, cmap, kept)
        if cmap.base:
            from . import lgsettle
            res = lgsettle.settle(sections, order_edges, kept, reasons, plans, sources, cmap,
                                  lock_cands, unbalanced, rules)
            lgsettle.finish(res, sections, plans, reasons, kept, sources, cmap, lock_cands,
                            group_args)
            res.total = cmap.base + len(cmap)
            if out is not None:
                out["lock_groups"] = res
            kept = _finish(sections, plans, reasons, cmap, kept)
            for L in res.order:
                for s in sections:
                    if s.lock.name == L:
                        s.patch["lock_group"] = {"group": res.group(L), "mode": (
                            "exclusive" if s.id in res.plain else "shared")}
            return kept
        rules()
        return _finish(sections, plans, reasons, cmap, kept)
    # Nested locks stay together: union the lock-order graph's weakly connected components.
    comp = {}
    for a, b in order_edges:
        ca, cb = comp.get(a, {a}), comp.get(b, {b})
        if ca is not cb:
            ca |= cb
            for x in ca:
                comp[x] = ca
    changed = True
    while changed:
        changed = False
        for name in list(kept):
            for other in comp.get(name, {name}):
                if other not in kept:
                    kept[other] = f"nested with '{name}', which is kept"
                    changed = True
        for s in sections:
            if s.id in reasons:
                continue
            names = [s.lock.name] + list(s.acquires)
            bad = next((n for n in names if n in kept), None)
            if bad is not None:
                reasons[s.id] = f"lock '{bad}' is kept: {kept[bad]}"
                if s.lock.name not in kept:
                    kept[s.lock.name] = f"section #{s.id} keeps it (uses kept lock '{bad}')"
                changed = True
    return _finish(sections, plans, reasons, cmap, kept)


def _finish(sections, plans, reasons, cmap, kept):
    for s in sections:
        if s.id in reasons or s.id not in plans:
            s.patch = {"eligible": False, "reason": reasons.get(s.id, "not planned")}
        else:
            construct, edits = plans[s.id]
            s.patch = {"eligible": True, "construct": CONSTRUCT_TEXT[construct], "edits": edits,
                       "groups": (getattr(cmap, "base", 0) + len(cmap)
                                  if construct.startswith("group") else 0)}
    return kept


def _settle_constructs(sections, plans, reasons, sources, cmap, kept):
    """GCC allows in __transaction_atomic neither a call to pthread_mutex_lock (a kept lock
    taken inside) nor a relaxed transaction or a function that contains one (an inner section
    rewritten as relaxed); such an atomic section becomes relaxed, until nothing changes."""
    live = {s.id: s for s in sections if s.id not in reasons and s.id in plans}
    relaxed_locks = lambda: {s.lock.name for s in live.values()
                             if "relaxed" in plans[s.id][0] or plans[s.id][0] == "group-lock"}
    changed = True
    while changed:
        changed = False
        rl = relaxed_locks()
        for s in live.values():
            construct = plans[s.id][0]
            if construct not in ("atomic", "group-atomic"):
                continue
            inner_relaxed = any(x.id in live and getattr(x, "parent", None) is s and
                                plans[x.id][0] != "atomic" for x in sections)
            if any(k in kept or k in rl for k in s.acquires) or inner_relaxed:
                new = construct.replace("atomic", "relaxed")
                try:
                    plans[s.id] = (new, patchmod.plan(s, sources(s.file), new, group_args(s, cmap)))
                    changed = True
                except patchmod.NoPatch as e:
                    reasons[s.id] = str(e)
                    del live[s.id]
                    break


def _drop_idle_groups(sections, plans, reasons, sources, cmap):
    """A group matters only if some rewritten section holds it exclusively (tm_group_lock): a
    colour shared only with sections that keep their lock is protected by nobody's group, so a
    transaction need not enter it (and a section left with no colour takes no group at all)."""
    active = set()
    for s in sections:
        if s.id not in reasons and s.id in plans and plans[s.id][0] == "group-lock":
            active |= set(s.colors)
    for s in sections:
        if s.id in reasons or s.id not in plans:
            continue
        construct = plans[s.id][0]
        if construct not in ("group-atomic", "group-relaxed"):
            continue
        cols = [c for c in s.colors if c in active]
        if cols == s.colors:
            continue
        old = s.colors
        s.colors = cols
        new = construct if cols else construct[len("group-"):]
        try:
            plans[s.id] = (new, patchmod.plan(s, sources(s.file), new, group_args(s, cmap)))
        except patchmod.NoPatch:
            s.colors = old


def _keep_for_serial_lock(sections, order_edges, kept, reasons, plans, sources, cmap):
    """--apply's rule for the locks that stay beside the transactions (instead of "nested locks
    stay or go together"). A lock the program keeps is a mutex; a transaction that takes one
    (its code calls pthread_mutex_lock) first goes serial-irrevocable, holding the runtime's
    serial lock, and then waits for the mutex. If a thread holding that mutex could begin a
    transaction, it would wait for the serial lock: a deadlock. So a kept lock K must not be
    both taken inside a transaction (an edge M -> K, M rewritten) and held around one (an edge
    K -> N, N rewritten); where it would be, M is kept too (its transaction would have gone
    serial-irrevocable at K anyway), until no kept lock is both. A section that stays plain code
    holding its groups (tm_group_lock) is no transaction and may take kept locks. Kept locks
    among themselves keep the program's own order. Every section of a kept lock stays, and a
    lock goes only if all of its sections go."""
    by_lock = {}
    for s in sections:
        by_lock.setdefault(s.lock.name, []).append(s)

    def closure():
        """Kept locks keep all their sections, and a lock with a kept section is kept."""
        changed = True
        while changed:
            changed = False
            for name in list(kept):
                for s in by_lock.get(name, []):
                    if s.id not in reasons:
                        reasons[s.id] = f"lock '{name}' is kept: {kept[name]}"
                        changed = True
            for name, secs in by_lock.items():
                if name in kept:
                    continue
                bad = next((x for x in secs if x.id in reasons), None)
                if bad is not None:
                    kept[name] = f"section #{bad.id} keeps it ({reasons[bad.id]})"
                    changed = True
            # a section nested in another of the same function (nesting.py) is part of it:
            # a kept outer section still takes the inner lock with pthread_mutex_lock, and a
            # rewritten one deletes the inner lock's calls, so both locks stay or go together
            for s in sections:
                for inner in getattr(s, "nested", []):
                    a, b = s.lock.name, inner.lock.name
                    if (a in kept) != (b in kept):
                        k, other = (a, b) if a in kept else (b, a)
                        kept[other] = f"nested with '{k}' in section #{s.id}, which is kept"
                        changed = True

    while True:
        closure()   # decided on the final kept set only: a rule applied early would over-keep
        # A section left as plain code holding its groups (tm_group_lock) must not begin a
        # transaction while it holds them: a transaction that joins one of those groups may be
        # irrevocable (serial mode, the bias, the serial fallback) and then waits for the
        # group, holding the serial lock the holder's transaction waits for (docs/groups.md).
        # That needs a joiner: a section that enters such a group from inside another
        # section's transaction; without one, the holder may begin transactions.
        live = [x for x in sections if x.id not in reasons and x.id in plans]
        cons = lambda x: plans[x.id][0]
        txs = [x for x in live if cons(x) != "group-lock"]
        tx_locks = {x.lock.name for x in txs}

        def inside_tx(y):
            return any(y.lock.name in z.acquires or getattr(y, "parent", None) is z
                       for z in txs if z is not y)
        holders = [x for x in live if cons(x) == "group-lock" and x.colors
                   and (any(k in tx_locks for k in x.acquires) or
                        any(getattr(y, "parent", None) is x for y in txs))]
        joined = {c for y in txs if y.colors and inside_tx(y) for c in y.colors}
        holders = [x for x in holders if joined & set(x.colors)]
        if holders:
            # such a section becomes a relaxed transaction that enters its groups first: it
            # goes serial-irrevocable at its blocker (so it stops the other transactions while
            # it runs: a rare section, such as memcached's `stats` command, is worth it), and it
            # never waits for a group while holding the serial lock
            for x in holders:
                try:
                    plans[x.id] = ("group-relaxed", patchmod.plan(x, sources(x.file), "group-relaxed",
                                                                  group_args(x, cmap)))
                except patchmod.NoPatch as e:
                    reasons[x.id] = (f"it would hold its lock groups while a transaction begins "
                                     f"inside it, and as a relaxed transaction: {e}")
            continue
        held_around = {a for a, b in order_edges if a in kept and b not in kept}
        bad = sorted({(s.lock.name, k) for s in sections if s.id not in reasons
                      and s.id in plans and plans[s.id][0] != "group-lock"
                      for k in s.acquires if k in kept and k in held_around})
        if not bad:
            break
        # keep the lock of the transaction that takes K inside (it would go serial-irrevocable
        # there anyway), not the locks of the transactions run under K
        for m, k in bad:
            kept.setdefault(m, f"its section takes '{k}' inside, a kept lock held around other "
                               "transactions: a transaction waiting for it while holding the "
                               "serial lock could wait for one of those")
