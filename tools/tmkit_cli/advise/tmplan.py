"""What `--apply` changes beyond the sections, and therefore what no longer blocks them.

The report (without --apply) says what blocks each section in the program as it is. --apply
writes a program in which these kinds of blocker are gone, so it analyses the program a second
time as it will be (`TmPlan` switched on in safety.py), and tmedits.py writes the changes:
- **tmkit.h's libc.** Every rewritten file includes <tmkit.h>, whose transaction-safe wrappers
  of strlen, memcmp, snprintf, strtol, ... GCC calls inside transactions (docs/libc.md).
- **Calls into other files.** GCC runs a function of another translation unit inside a
  transaction only if its declaration says `transaction_safe`, which is part of the function's
  type in C: every declaration must say it, a conversion to a plain function pointer becomes an
  error, and the body may not contain a single unsafe call, even on a path that never runs.
  A callee that meets all of that gets the attribute (the fifth kind below); any other callee
  gets `transaction_callable` (GCC compiles a transactional clone of it, in
  which a rare unsafe call switches to irrevocable only when reached, and the type stays the
  same), and the calls to it from code that runs in transactions go through a constant pointer
  defined in the callee's file (`tmkit_tmcall_NAME`): for a call through a pointer GCC asks the
  runtime for the clone (`_ITM_getTMCloneOrIrrevocable`), which runs instrumented.
- **Calls through function pointers.** Their possible targets (pointsto.py) get
  `transaction_callable` too, and the runtime finds their clones the same way.
- **Reads of volatile globals that no transaction writes** (memcached's clock, `current_time`,
  which a timer thread updates outside any lock). GCC refuses volatile accesses in transactions;
  `tm_volatile_read(v)` (include/tmkit/volatile.h) reads one from transaction_pure code, as the
  locked code read it: without synchronisation. A volatile that some section writes keeps its
  blocker.
- **`transaction_safe` declarations.** A function of another file that qualifies (tsafe.py:
  its address never taken, every declaration editable, a body with no blocker) is declared
  `transaction_safe` in every declaration, headers included, and called directly: such a call
  is no blocker at all, and a section with no other becomes __transaction_atomic.
- **__atomic_*/__sync_* builtins** (reference counts) become tm_atomic_* (atomics.py), and
  **statistics counters** that are only added to and read become tm_counter_t (counters.py):
  their builtins are no blocker, and their accesses no conflict.
The calls through clones (the second and third kinds) stay "soft" blockers (kind `tm-call`): they keep a section out of
__transaction_atomic, which allows no call through a pointer, but the relaxed transaction they
need runs speculatively.
"""

SOFT = ("tm-call",)


class TmPlan:
    def __init__(self, volatile_ok, atomics=None, counters=None):
        self.volatile_ok = set(volatile_ok)   # global names tm_volatile_read may read
        self.safe = set()                     # usrs declared transaction_safe (tsafe.py)
        self.safe_decls = {}                  # usr -> [(file, offset)]: their declarations
        self.atomics = atomics                # atomics.Atomics: builtins that become tm_atomic_*
        self.counters = counters              # counters.Counters: globals that become tm_counter_t

    def atomic_ok(self, ev):
        return self.atomics is not None and self.atomics.allows(ev)

    def counter_access(self, ev):
        return self.counters is not None and ev.what in self.counters.locs

    def volatile_read_ok(self, ev):
        return ev.mode == "r" and ev.loc is not None and ev.loc in self.volatile_ok


def volatile_globals(prog):
    """{location name} of the volatile scalar globals the program reads or writes."""
    out = set()
    for f in prog.user_funcs():
        g = prog.graph(f)
        for n in g.nodes:
            for ev in n.events:
                if ev.kind == "volatile" and ev.loc:
                    out.add(ev.loc)
    return out


def plan_for(prog, sections):
    """The plan after a first analysis: a volatile global may be read with tm_volatile_read
    unless some section (or a function one calls) writes it."""
    written = set()
    for s in sections:
        for loc, modes in s.accesses.items():
            if "w" in modes:
                written.add(loc)
    from . import atomics, counters, rewrite
    read = rewrite.source_reader()
    return TmPlan(volatile_globals(prog) - written, atomics.Atomics(prog, sections, read),
                  counters.Counters(prog, sections, read))


def hard(blockers):
    """The blockers that make a transaction go irrevocable (not the soft ones)."""
    return [x for x in blockers if (x[0] if isinstance(x, tuple) else x).kind not in SOFT]
