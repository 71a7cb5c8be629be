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

Which sections the rewrite may touch, and so which locks go: planning.py.
"""
from . import libc

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
