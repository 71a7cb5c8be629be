"""The text report's part on --apply's tm_atomic_* and tm_counter_t rewrites (atomics.py,
counters.py): what was rewritten, and what was left with file:line and the reason."""


def to_text(r, w):
    done, left = r.get("atomics", []), r.get("atomics_left", [])
    if done or left:
        w(f"\nAtomic builtins: {len(done)} rewritten to tm_atomic_*, {len(left)} left\n")
        for a in done:
            where = "" if a["in_transaction"] else " (runs outside transactions)"
            w(f"  {a['file']}:{a['line']} {a['function']}: {a['builtin']} on {a['location']}{where}"
              f" -> {a['to']}\n")
        for a in left:
            w(f"  left {a['file']}:{a['line']} {a['function']}: {a['what']}: {a['reason']}\n")
    done, left = r.get("counters", []), r.get("counters_left", [])
    if done or left:
        w(f"\nStatistics counters: {len(done)} converted to tm_counter_t, {len(left)} left\n")
        for c in done:
            w(f"  {c['file']}:{c['line']} {c['name']} ({c['type']}): {c['updates']} update(s), "
              f"{c['reads']} read(s)\n")
        for c in left:
            w(f"  left {c['file']}:{c['line']} {c['name']}: {c['reason']}\n")
