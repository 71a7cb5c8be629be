"""LockSTM classes, suggested constructs, and which sections the rewrite may touch.

Kuilema's LockSTM colors shared data, not sections: every datum a non-revocable section
touches, and that another section touches too with one of them writing, gets a color, whose
lock group the sections that share it hold (the NRC reduction: data no non-revocable section
touches need no group). A section's colors are those it shares with a non-revocable one:
non-revocable: has a blocker (or is unbalanced) -> runs holding its colors' groups exclusively
               (tm_group_lock), as plain code; without groups, __transaction_relaxed, which goes
               serial-irrevocable where the blocker is
hybrid:        no blocker, shares a color with a non-revocable section -> holds those groups
               shared (tm_group_enter) around __transaction_atomic
pure:          no blocker, no color -> __transaction_atomic, no lock at all
(In LockSTM's own example, SwapXY shares x with the non-revocable PromptForX and is hybrid;
SetY and GetY share y only with SwapXY and are pure.)

A lock can be removed only if every section of it is rewritten: a section that must keep its
lock (condition-variable wait, unbalanced, shape the rewrite cannot handle, lock behind an
unresolved pointer) keeps every lock nested with it, and every section of those locks.
"""
from . import libc
from . import patch as patchmod

HINTS = {
    "io": "move the I/O out of the section, or accept serial execution",
    "condvar-wait": "make the condition variable a tm_cond_t and the section tm_atomic_retry "
                    "{ if (!ready) tm_cond_wait(&c); ... } (include/tmkit/wait.h: the wait rolls "
                    "back and sleeps), or keep the lock",
    "condvar-signal": "make the condition variable a tm_cond_t: tm_cond_signal(&c) inside the "
                      "transaction takes effect at its commit (include/tmkit/wait.h)",
    "pthread": "thread library calls cannot run in a transaction; move it out of the section",
    "volatile": "use a plain variable inside transactions (the transaction orders the accesses)",
    "atomic": "--apply makes an __atomic_*/__sync_* builtin on long, int, their unsigned forms or a "
              "pointer tm_atomic_* (include/tmkit/atomic.h); or use a plain access inside "
              "transactions (the transaction makes it atomic)",
    "asm": "inline asm cannot run in a transaction",
    "indirect-call": "call the function directly or declare the pointer's type transaction_safe",
    "unannotated-call": "declare it __attribute__((transaction_safe)) in its header: its body "
                        "is followed here",
    "unsafe-call": "use a transaction_safe replacement (e.g. your own loop) or move it out",
    "exit": "fine on error paths: the transaction goes irrevocable only there",
}


def hint_of(b):
    """The blocker's hint: its kind's, but for a libc call tmkit.h wraps, the include."""
    if b.kind == "unsafe-call" and libc.wrapped_by_tmkit(b.what.split(":", 1)[0]):
        return libc.TMKIT_HINT
    return HINTS.get(b.kind, "")


def colors(sections):
    """{datum: [section ids]} for every datum a non-revocable section shares with another
    section (one of the two writing); sets s.colors on every section. An access through an
    unresolved pointer ('?') shares with everything."""
    nonrev = [s for s in sections if s.cls == "non-revocable"]
    out = {}
    for n in nonrev:
        for d, m in n.accesses.items():   # two threads in the same non-revocable section
            if "w" in m and n.id not in out.setdefault(d, []):
                out[d].append(n.id)
        for s in sections:
            if s is n or not s.accesses or not n.accesses:
                continue
            for d in _shared(n.accesses, s.accesses):
                ids = out.setdefault(d, [])
                for x in (n.id, s.id):
                    if x not in ids:
                        ids.append(x)
    out = _fold(out, sections)
    for s in sections:
        s.colors = sorted(d for d, ids in out.items() if s.id in ids)
    return {d: sorted(ids) for d, ids in sorted(out.items())}


MAX_GROUPS = 8  # TM_GROUPS_HELD (runtime/core/tx.h): the groups one thread may hold at once


def _fold(out, sections):
    """Fewer colors, same exclusion: data that exactly the same sections share become one color
    (no concurrency is lost), and while a section would need more than MAX_GROUPS groups, its
    two colors with the most similar section sets become one (coarser: any two sections that
    excluded each other still do). A merged color is named after its first datum."""
    by_ids = {}
    for d, ids in out.items():
        by_ids.setdefault(frozenset(ids), []).append(d)
    cols = [(sorted(ds), set(ids)) for ids, ds in by_ids.items()]
    while True:
        mine = max(([c for c in cols if x.id in c[1]] for x in sections), key=len, default=[])
        if len(mine) <= MAX_GROUPS:
            break
        a, b = min(((a, b) for i, a in enumerate(mine) for b in mine[i + 1:]),
                   key=lambda ab: (len(ab[0][1] ^ ab[1][1]), ab[0][0], ab[1][0]))
        cols = [c for c in cols if c is not a and c is not b] + [(sorted(a[0] + b[0]), a[1] | b[1])]
    def name(ds):
        return ds[0] if len(ds) == 1 else f"{ds[0]} (+{len(ds) - 1} more)"
    return {name(ds): sorted(ids) for ds, ids in cols}


def _shared(a, b):
    if "?" in a or "?" in b:
        return ["?"]
    return [d for d, m in a.items() if d in b and ("w" in m or "w" in b[d])]


def _non_revocable(s, plan):
    """Without the plan (the program as it is), any blocker makes a section non-revocable. With
    it (--apply), a section whose blockers are all soft or only on some paths becomes a relaxed
    transaction, speculative until it reaches one; only a blocker on every path (or a wait on a
    condition variable, which a transaction cannot do) leaves it plain code."""
    if s.status != "ok":
        return True
    if not plan:
        return bool(s.blockers)
    return s.irrevocable == "always" or any(b.kind == "condvar-wait" for b, _ in s.blockers)


def classify(sections, groups, plan=False):
    for s in sections:
        s.plan_mode = plan
        s.cls = "non-revocable" if _non_revocable(s, plan) else "pure"
    cmap = colors(sections)
    for s in sections:
        if s.cls == "pure" and s.colors:
            s.cls = "hybrid"
    nonrev_ids = {s.id for s in sections if s.cls == "non-revocable"}
    for g in groups:
        g["non_revocable"] = [i for i in g["sections"] if i in nonrev_ids]
    for s in sections:
        sharing = sorted({i for d in s.colors for i in cmap[d] if i != s.id})
        s.suggest = _suggest(s, [i for i in sharing if i in nonrev_ids], sharing)
    return cmap


def _suggest(s, nonrev, sharing):
    if s.status != "ok":
        return "keep the lock: " + "; ".join(s.problems)
    kinds = {b.kind for b, _ in s.blockers}
    if "condvar-wait" in kinds:
        return "keep the lock (condition-variable wait inside): " + HINTS["condvar-wait"]
    if s.cls == "pure":
        return "__transaction_atomic"
    if s.cls == "hybrid":
        ids = ", ".join(f"#{i}" for i in sorted(set(nonrev)))
        return (f"tm_group_enter({', '.join(s.colors)}) around __transaction_atomic: it shares "
                f"{', '.join(s.colors)} with non-revocable {ids}")
    first = s.blockers[0][0]
    where = "on every run" if s.irrevocable == "always" else "only on paths through a blocker"
    names = [b.what.split(":", 1)[0] for b, _ in s.blockers]
    wrapped = sorted({n for (b, _), n in zip(s.blockers, names)
                      if b.kind == "unsafe-call" and libc.wrapped_by_tmkit(n)})
    relaxed = f"__transaction_relaxed (goes serial-irrevocable {where}, first at line {first.line})"
    if s.colors:   # the LockSTM answer, and what --patch emits (construct_of: group-lock)
        cols = ", ".join(s.colors)
        text = (f"tm_group_lock({cols}) around it, as plain code: only the sections sharing {cols} "
                f"({', '.join(f'#{i}' for i in sharing)}) wait for it; as __transaction_relaxed it "
                f"would go serial-irrevocable {where} (first at line {first.line}) and stop every "
                "transaction")
    else:
        text = relaxed
    if wrapped and len(wrapped) == len(names):   # tmkit.h's wrappers remove every blocker
        text += (f"; or #include <tmkit.h>, which wraps {', '.join(wrapped)}: no blocker is left "
                 "(run tmkit advise again)")
    elif wrapped:
        text += f"; #include <tmkit.h> would remove the {', '.join(wrapped)} blocker(s)"
    return text


GROUPS_ARRAY = "tmkit_groups"


def group_args(s, cmap):
    """`&tmkit_groups[i], ...` for the section's colors, in the one global order (sorted data
    names; tm_group_lock/enter take several groups at once and order them by address)."""
    base = getattr(cmap, "base", 0)
    order = {d: base + i for i, d in enumerate(cmap)}
    return ", ".join(f"&{GROUPS_ARRAY}[{order[d]}]" for d in s.colors)


def construct_of(s):
    if s.cls == "non-revocable":
        return "group-lock" if s.colors and s.status == "ok" else "relaxed"
    # with the plan, a section with soft blockers (calls to clones) or blockers on some paths
    # is a relaxed transaction: GCC allows neither in __transaction_atomic
    kind = "relaxed" if getattr(s, "plan_mode", False) and s.blockers else "atomic"
    return "group-" + kind if s.cls == "hybrid" else kind


CONSTRUCT_TEXT = {"atomic": "__transaction_atomic", "relaxed": "__transaction_relaxed",
                  "group-atomic": "tm_group_enter + __transaction_atomic",
                  "group-relaxed": "tm_group_enter + __transaction_relaxed",
                  "group-lock": "tm_group_lock (plain code)"}


def local_object(lock):
    """True when the lock object is itself a local variable (or an element of a local array),
    whose address may be handed to other threads. A field is named by its record type and
    counts as shared, through a pointer (`job->mutex`, also when the record is a typedef'd
    anonymous struct) or in a local struct (`w.lock`); a lock through a local pointer is named
    by what the pointer was set to."""
    key = lock.key
    return lock.root[0] == "local" and "." not in key and "->" not in key and \
        not key.startswith("*")


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
