"""LockSTM classes, suggested constructs, and which sections the rewrite may touch.

pure:          no blocker, and no non-revocable section in its group -> __transaction_atomic
hybrid:        no blocker, but its group has a non-revocable section -> __transaction_atomic;
               LockSTM runs it as a transaction holding its groups shared; under GCC TM the
               non-revocable section runs serial-irrevocable and excludes it all the same
non-revocable: has a blocker (or is unbalanced) -> __transaction_relaxed, which goes
               serial-irrevocable where the blocker is; LockSTM keeps its groups exclusively

A lock can be removed only if every section of it is rewritten: a section that must keep its
lock (condition-variable wait, unbalanced, shape the rewrite cannot handle, lock behind an
unresolved pointer) keeps every lock nested with it, and every section of those locks.
"""
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
    "atomic": "use a plain access inside transactions (the transaction makes it atomic)",
    "asm": "inline asm cannot run in a transaction",
    "indirect-call": "call the function directly or declare the pointer's type transaction_safe",
    "unannotated-call": "declare it __attribute__((transaction_safe)) in its header: its body "
                        "is followed here",
    "unsafe-call": "use a transaction_safe replacement (e.g. your own loop) or move it out",
    "exit": "fine on error paths: the transaction goes irrevocable only there",
}


def classify(sections, groups):
    nonrev = {}
    for s in sections:
        s.cls = "non-revocable" if (s.status != "ok" or s.blockers) else "pure"
        if s.cls == "non-revocable":
            nonrev.setdefault(s.group, []).append(s.id)
    for s in sections:
        if s.cls == "pure" and s.group in nonrev:
            s.cls = "hybrid"
    for g in groups:
        g["non_revocable"] = nonrev.get(g["id"], [])
    for s in sections:
        s.suggest = _suggest(s, nonrev.get(s.group, []))


def _suggest(s, nonrev):
    if s.status != "ok":
        return "keep the lock: " + "; ".join(s.problems)
    kinds = {b.kind for b, _ in s.blockers}
    if "condvar-wait" in kinds:
        return "keep the lock (condition-variable wait inside): " + HINTS["condvar-wait"]
    if s.cls == "pure":
        return "__transaction_atomic"
    if s.cls == "hybrid":
        ids = ", ".join(f"#{i}" for i in nonrev)
        return (f"__transaction_atomic (group {s.group} also has non-revocable {ids}: they run "
                "serially and exclude it)")
    first = s.blockers[0][0]
    where = "on every run" if s.irrevocable == "always" else "only on paths through a blocker"
    return f"__transaction_relaxed (goes serial-irrevocable {where}, first at line {first.line})"


def plan_patches(sections, order_edges, units, sources, pre_kept=None):
    """Decide s.patch = {'construct', 'edits'} or {'reason'} for every section."""
    compiled = {u.file for u in units}
    kept, reasons = dict(pre_kept or {}), {}
    plans = {}
    for s in sections:
        construct = "relaxed" if s.cls == "non-revocable" else "atomic"
        why = None
        if s.status != "ok":
            why = "unbalanced: " + "; ".join(s.problems)
        elif any(b.kind == "condvar-wait" for b, _ in s.blockers):
            why = "condition-variable wait inside"
        elif s.lock.name.startswith("*") or "::*" in s.lock.name:
            why = f"lock '{s.lock.name}' is reached through a pointer the analysis does not resolve"
        elif s.lock.root[0] == "local" and not s.lock.name.startswith(("struct ", "union ")):
            why = f"lock '{s.lock.name}' is a local object (its address may be shared)"
        elif s.file not in compiled:
            why = "section is in a header (rewrite only edits compiled sources)"
        else:
            try:
                plans[s.id] = (construct, patchmod.plan(s, sources(s.file), construct))
            except patchmod.NoPatch as e:
                why = str(e)
        if why:
            reasons[s.id] = why
            kept.setdefault(s.lock.name, f"section #{s.id} keeps it ({why})")
    # Two sections cannot share a closing statement.
    owners = {}
    files = {s.id: s.file for s in sections}
    for sid, (_, edits) in plans.items():
        for e in edits:
            if e[2] == "}":
                owners.setdefault((files[sid], e[0], e[1]), []).append(sid)
    for ids in owners.values():
        if len(ids) > 1:
            for sid in ids:
                if sid not in reasons:
                    reasons[sid] = "shares its release with another section"
                    sec = next(x for x in sections if x.id == sid)
                    kept.setdefault(sec.lock.name, f"section #{sid} keeps it (shared release)")
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
    for s in sections:
        if s.id in reasons or s.id not in plans:
            s.patch = {"eligible": False, "reason": reasons.get(s.id, "not planned")}
        else:
            construct, edits = plans[s.id]
            s.patch = {"eligible": True, "construct": "__transaction_" + construct, "edits": edits}
    return kept
