"""The report: one JSON document (schema in docs/advise.md) and a text rendering of it."""
from .classify import hint_of
from .nesting import lock_names
from .program import display
from .sections import exits_info

VERSION = 2  # 2 (2026-11-26): the connected components are 'component'/'components'
            # (they were 'group'/'groups', which read like lock groups)


def to_json(prog, sections, unbalanced, edges, cycles, groups, kept, timing, condvars=()):
    locks = {}
    for s in sections:
        d = locks.setdefault(s.lock.name, {"name": s.lock.name, "kind": s.lock.kind,
                                           "sections": [], "removable": True})
        d["sections"].append(s.id)
    for name, why in kept.items():
        if name in locks:
            locks[name]["removable"] = False
            locks[name]["reason"] = why
    wrappers = []
    for f in sorted(prog.user_funcs(), key=lambda f: (f.file, f.line)):
        for w in f.wrapper:
            wrappers.append({"function": f.name, "file": display(f.file), "line": f.line,
                             "op": w.op, "lock": w.name if not (w.template and w.template[1])
                             else f"*{f.params[w.template[0]]} (from the caller)"})
    return {
        "version": VERSION,
        "tool": "tmkit advise",
        "files": sorted(display(u.file) for u in prog.units),
        "skipped": [{"file": display(f), "why": why} for f, why in prog.skipped],
        **({"builds": [{"file": display(u.file), "analysed": _dflags(u), "others": u.variants}
                       for u in prog.units if getattr(u, "variants", None)]}
           if any(getattr(u, "variants", None) for u in prog.units) else {}),
        "summary": {
            "sections": len(sections),
            "pure": sum(s.cls == "pure" for s in sections),
            "hybrid": sum(s.cls == "hybrid" for s in sections),
            "non-revocable": sum(s.cls == "non-revocable" for s in sections),
            "lines": prog.lines, "functions": len(prog.user_funcs()),
        },
        "sections": [_section(s) for s in sections],
        "locks": sorted(locks.values(), key=lambda d: d["name"]),
        "wrappers": wrappers,
        "unbalanced": unbalanced,
        "lock_order": [{"from": a, "to": b, "sites": sites} for (a, b), sites in sorted(edges.items())],
        "cycles": [{"locks": c, "note": "potential deadlock" if len(c) > 1 else
                    "lock nested inside itself: two instances, or a self-deadlock"} for c in cycles],
        "components": groups,
        **({"rewrites": prog.rewrites} if getattr(prog, "rewrites", None) else {}),
        "condvars": list(condvars),
        "timing": {k: round(v, 3) for k, v in timing.items()},
    }


def apply_json(ed):
    """--apply's program-wide edits (tmedits.Edits): the declarations and definitions it
    annotated, and what it could not write (with the reason)."""
    return {
        "transaction_safe": [{"function": n, "file": display(f), "line": ln,
                              "declarations": [f"{display(p)}:{l}" for p, l in where]}
                             for n, f, ln, where in ed.declared_safe],
        "transaction_callable": [{"function": n, "file": display(f), "line": ln}
                                 for n, f, ln in sorted(ed.callable, key=lambda x: (x[1], x[2]))],
        "left": [{"file": display(f), "line": ln, "what": w} for f, ln, w in sorted(set(ed.left))],
    }


def _section(s):
    g = s.func.cfg
    start, end = s.lines(g)
    d = {
        "id": s.id, "function": s.func.name, "file": display(s.file), "line": s.line,
        "end_line": end, "lines": [start, end],
        "locks": lock_names(s), "kind": s.lock.kind, "mode": s.lock.mode,
        "acquire": {"op": s.lock.op, "via": s.lock.via, "line": s.line},
        "holding": s.holding,
        "exits": exits_info(s),
        "status": s.status, "problems": s.problems,
        "blockers": [{"kind": b.kind, "what": b.what, "file": display(b.file), "line": b.line,
                      "chain": b.chain, "paths": paths, "hint": hint_of(b)}
                     for b, paths in s.blockers],
        "irrevocable": s.irrevocable,
        "reads": sorted(k for k, m in s.accesses.items() if "r" in m),
        "writes": sorted(k for k, m in s.accesses.items() if "w" in m),
        "acquires": sorted(s.acquires),
        "component": s.group, "colors": s.colors, "class": s.cls, "suggest": s.suggest,
        "patch": {k: v for k, v in (s.patch or {}).items() if k != "edits"},
    }
    if getattr(s, "verify", None):
        d["verify"] = s.verify
    return d


def to_text(doc, out):
    w = out.write
    sm = doc["summary"]
    w(f"tmkit advise: {sm['sections']} critical sections in {len(doc['files'])} file(s), "
      f"{sm['lines']} lines: {sm['pure']} pure, {sm['hybrid']} hybrid, "
      f"{sm['non-revocable']} non-revocable\n")
    if doc.get("builds"):
        b = doc["builds"]
        w(f"\n{len(b)} file(s) are compiled more than once with different flags; each is analysed "
          f"as built with assertions on (e.g. {b[0]['file']}: {b[0]['analysed']}; not: "
          f"{'; '.join(b[0]['others'])}). Choose a build with --entry.\n")
    if doc.get("skipped"):
        w(f"\nSkipped {len(doc['skipped'])} file(s) the front end could not parse (the rest is "
          "analysed without them):\n")
        for k in doc["skipped"]:
            lines = [ln.strip() for ln in k["why"].splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error:" in ln), lines[0] if lines else "?")
            w(f"  {k['file']}: {first}\n")
    for s in doc["sections"]:
        w(f"\n#{s['id']} {s['class']:<13} {s['function']}  {s['file']}:{s['lines'][0]}-{s['lines'][1]}"
          f"  lock {', '.join(s['locks'])} ({s['kind']}{', ' + s['mode'] if s['mode'] not in (None, 'exclusive') else ''}"
          f"{', via ' + s['acquire']['via'] if s['acquire']['via'] else ''})  component {s['component']}"
          f"{'  colors ' + ', '.join(s['colors']) if s['colors'] else ''}\n")
        if s["status"] != "ok":
            w(f"    {s['status']}: {'; '.join(s['problems'])}\n")
        for b in s["blockers"]:
            chain = " -> ".join(b["chain"])
            w(f"    blocker {b['kind']}: {b['what']}  {b['file']}:{b['line']}  [{b['paths']} path"
              f"{'s' if b['paths'] == 'some' else ''}]  via {chain}\n")
        w(f"    -> {s['suggest']}\n")
        p = s["patch"]
        if p:
            w(f"    patch: {p['construct'] if p.get('eligible') else 'no (' + p['reason'] + ')'}\n")
        if "verify" in s:
            v = s["verify"]
            w(f"    verify: {'agrees' if v['agree'] else 'DISAGREES'}: gcc {v['gcc']}"
              f"{' (' + v['detail'] + ')' if v['detail'] else ''}\n")
    if doc["unbalanced"]:
        w("\nUnbalanced lock operations\n")
        for u in doc["unbalanced"]:
            w(f"  {u['file']}:{u['line']} {u['function']}: {u['lock']}: {u['problem']}\n")
    w("\nLock order (held -> acquired)\n")
    for e in doc["lock_order"] or []:
        site = e["sites"][0]
        w(f"  {e['from']} -> {e['to']}   {site['function']} (line {site['line']})"
          f"{' via ' + ' -> '.join(site['chain']) if len(site['chain']) > 1 else ''}\n")
    if not doc["lock_order"]:
        w("  (no nested acquisitions)\n")
    w("Cycles: " + ("none\n" if not doc["cycles"] else "\n"))
    for c in doc["cycles"]:
        w(f"  {' <-> '.join(c['locks'])}: {c['note']}\n")
    ap = doc.get("apply")
    if ap:
        w(f"\n--apply: {len(ap['transaction_safe'])} function(s) declared transaction_safe, "
          f"{len(ap['transaction_callable'])} transaction_callable\n")
        for d in ap["transaction_safe"]:
            w(f"  transaction_safe {d['function']}: {', '.join(d['declarations'])}\n")
        for d in ap["left"]:
            w(f"  left as it is: {d['file']}:{d['line']}: {d['what']}\n")
    if doc.get("lock_groups"):
        from .lockgroups import to_text as lock_groups_text
        lock_groups_text(doc, w)
    if doc.get("rewrites"):
        from .rwreport import to_text as rewrites_text
        rewrites_text(doc["rewrites"], w)
    if doc.get("condvars"):
        w("\nCondition variables (rewritten: tm_cond_t, the waits in tm_atomic_retry)\n")
        for c in doc["condvars"]:
            name = c["name"] or "(unresolved) at " + f"{c['file']}:{c['line']}"
            w(f"  {name}{' (lock ' + c['lock'] + ')' if c['lock'] else ''}: "
              + (f"rewritten, waiting sections {', '.join('#%d' % i for i in c['sections'])}"
                 if c["rewritten"] else f"kept: {c['reason']}") + "\n")
    w("\nComponents (sections that may touch common shared memory, directly or through others; "
      "not lock groups: those are the colors)\n")
    for g in doc["components"]:
        nr = g["non_revocable"]
        w(f"  component {g['id']}: sections {', '.join('#%d' % i for i in g['sections'])}; locks "
          f"{', '.join(g['locks'])}; shared {', '.join(g['shared'][:8]) or '-'}"
          f"{' ...' if len(g['shared']) > 8 else ''}"
          f"{'; non-revocable ' + ', '.join('#%d' % i for i in nr) if nr else ''}\n")


def _dflags(u):
    return " ".join(a for a in u.flags if a.startswith("-D")) or "(no -D flags)"
