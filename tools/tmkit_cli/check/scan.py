"""Finds, in the machine code of a -fgnu-tm binary, what a redo-log algorithm (NOrec, orec_lazy,
TMKIT_ADAPTIVE_MODES=all) cannot make right (docs/algorithms.md, "Redo logs and programs written
for libitm"). Each finding is (kind, clone, address, detail):
  indirect     an indirect call (or tail jump) in a clone that no _ITM_getTMClone* call resolved:
               a call through a transaction_pure function pointer, run on plain memory;
  extern       a call from a clone into another object's code that is neither a clone nor the
               runtime's: a function declared transaction_pure (a libc or zlib call, typically
               on the transaction's buffers);
  pure         a call from a clone to a function of the same object that is neither a clone nor
               the runtime's: a transaction_pure (or transaction_wrap) function of the program;
  inline-copy  `rep movs` in a clone: a copy GCC inlined (constant length), unless both ends are
  inline-fill  `rep stos`: the same for a fill         in the clone's own stack frame;
  call         a plain memcpy/memmove/memset/strlen call, information only: tmkit takes those
               into the transaction under every algorithm;
  global       a plain load or store of the object's writable global data (.data, .bss) in a
               clone, which GCC instruments everywhere else: a __builtin_memset/memcpy GCC
               expanded inline as plain moves (a small fill or copy loop, c_redo_builtin_fill),
               or a transaction_pure function inlined into the clone. Locked (atomic)
               instructions and thread-locals are not reported, nor anything after an
               _ITM_changeTransactionMode call (a relaxed transaction's clone runs its unsafe
               part serially, uninstrumented; in layout order, not by data flow, so this kind
               may miss some: it is reported, never refused). `tmkit check` only;
  unchecked    a -fgnu-tm object without a symbol table (stripped): its clones cannot be found.
The runtime does the same scan when a redo-log algorithm is chosen (runtime/core/redo_scan.c)
and refuses (or, for TMKIT_ADAPTIVE_MODES=all, leaves the redo-log modes out) on the kinds in
RUNTIME_KINDS; `pure` and `extern` stay the user's to judge (TMKIT_REDO_CHECK=strict adds
them), and `global` is this scan's alone.

Only transaction clones (`_ZGTt*` symbols, from transaction_safe/callable functions) are
scanned: the instrumented path of a function that contains a transaction is not marked in the
binary, so code written directly inside `__transaction_atomic` blocks is not covered."""
import re

from .objects import (CLONE, ScanError, _run, clone_sizes, data_ranges, defined_dynamic,  # noqa: F401
                      disassemble, needs_tm_runtime, tm_libraries, where)

# Functions clones call that touch no program memory a transaction could have written: error
# exits, the stack protector, the unwinder and exception runtime, errno's and ctype's thread
# locations, the allocator and mutexes (their own memory only), libgcc's arithmetic helpers
# (__popcountdi2, __divti3...), the TM runtime (its _ITM_* ABI and tmkit.h's tmkit_* functions,
# which know the transaction). Kept equal to the runtime's list (runtime/core/redo_scan.c:
# tm_redo_harmless).
HARMLESS = re.compile(r"^(abort|__stack_chk_fail|__assert_fail|_Unwind_Resume|__cxa_\w+|"
                      r"_ITM_\w+|tmkit_\w+|__tls_get_addr|__errno_location|"
                      r"__ctype_(b|tolower|toupper)_loc|malloc|calloc|free|"
                      r"pthread_mutex_(lock|unlock|trylock)|"
                      r"__[a-z]+(qi|hi|si|di|ti|sf|df|xf|tf|hf|bf|sc|dc|xc|tc)[0-9]?)$")
INTERPOSED = {"memcpy", "memmove", "memset", "strlen"}
GET_CLONE = re.compile(r"^_ITM_getTMClone\w*$")
# What the runtime acts on; `pure` and `extern` only under TMKIT_REDO_CHECK=strict.
RUNTIME_KINDS = {"indirect", "inline-copy", "inline-fill", "unchecked"}

_FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
_DIRECT = re.compile(r"^(?:bnd |notrack )?(call|jmp)\w*\s+([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>")
_INDIRECT = re.compile(r"^(?:bnd )?(notrack )?(call|jmp)\w*\s+\*(\S+)"
                       r"(?:\s+#\s*[0-9a-f]+ <([^>]+)>)?")
_STACK_REG = {"rdi": "stos", "rsi": "movs"}
_RIP = re.compile(r"^(\w+) (\S*\(%rip\)\S*)\s+#\s*([0-9a-f]+) <([^>]+)>")


def _plain_name(sym):
    """The function's name without its version and GCC's suffixes (.constprop.0, .isra.0,
    .part.0, .cold: parts and specialized copies of the same function)."""
    return sym.split("@", 1)[0].split(".", 1)[0]


def _writes(insn, reg):
    """Is `reg` (a 64-bit name) the destination of this AT&T instruction?"""
    ops = insn.split(None, 1)
    if len(ops) < 2:
        return False
    last = ops[1].rsplit(",", 1)[-1].strip()
    names = {"rdi": ("%rdi", "%edi", "%di", "%dil"), "rsi": ("%rsi", "%esi", "%si", "%sil")}[reg]
    return last in names or ops[0].startswith(("pop", "xchg")) and any(n in ops[1] for n in names)


def _on_stack(prev, reg, frame_pointer):
    """Does `reg` point into the clone's own frame at the `rep` that follows prev (its
    instructions so far, last first)? Only straight-line code is followed: the nearest
    instruction that sets reg, before any branch or call."""
    for insn in prev[:24]:
        if re.match(r"^(call|jmp|j[a-z]+|ret|bnd|notrack)\b", insn):
            return False
        if not _writes(insn, reg):
            continue
        m = re.match(r"^(mov|lea)[a-z]?\s+(\S+),%" + reg + "$", insn)
        if not m:
            return False
        src = m.group(2)
        if m.group(1) == "mov":
            return src == "%rsp"
        return src.endswith("(%rsp)") or (frame_pointer and src.endswith("(%rbp)"))
    return False


def _is_switch(insn, prev):
    """A jump through a table (a switch), not a tail call through a pointer."""
    if insn.startswith("notrack") or re.search(r"\*\S*\(,%\w+,[48]\)", insn):
        return True
    m = re.match(r"^(?:bnd )?jmp\s+\*%(\w+)$", insn)
    return bool(m and prev and re.match(r"^add\s+%\w+,%" + m.group(1) + "$", prev[0]))


def scan(path, own=None):
    """[(kind, clone, address, detail)] for every finding, in address order. `own`: names the
    object defines (for calls through its PLT), read with nm when not given."""
    sections = _run(["readelf", "-SW", path])
    if needs_tm_runtime(path) and ".symtab" not in sections:
        return [("unchecked", "", 0, path)]
    data = data_ranges(sections)
    if own is None:
        own = defined_dynamic(path)
    sizes = clone_sizes(path)
    found, clone, prev, licences, frame_pointer, end = [], None, [], 0, False, 0
    # For `global` only: past an _ITM_changeTransactionMode call (serial), or on the
    # uninstrumented path of a transaction nested in the clone (uninstr, from one of the starts
    # in plain to its _ITM_commitTransaction call), which a nested transaction never takes.
    serial = uninstr = plain_next = False
    plain = set()
    # tmkit's GCC plugin (docs/plugin.md) puts a barrier's fast path, with plain accesses, in
    # front of the barrier's call: a clone with its mark (the descriptor's load from %fs:0x50)
    # keeps its `global` findings until its end, and drops those of words whose address it also
    # passes to a call (the same access's slow path).
    inlined, addressed, held = False, set(), []

    def settle():
        found.extend(f[:4] for f in held if not (inlined and f[4] in addressed))
        held.clear()
        addressed.clear()

    for line in disassemble(path).splitlines():
        m = _FUNC.match(line)
        if m:
            settle()
            inlined = False
            name = m.group(2)
            clone = name if CLONE.match(name) else None
            start, size = sizes.get(name, (int(m.group(1), 16), 1 << 62))
            end = start + size
            prev, licences, frame_pointer, serial, plain = [], 0, False, False, set()
            uninstr = plain_next = False
            continue
        if clone is None:
            continue
        m = _INSN.match(line)
        if not m:
            continue
        addr, insn = int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2).strip())
        if addr >= end:
            settle()
            clone = None
            continue
        inlined = inlined or "%fs:0x50," in insn
        insn = re.sub(r"^(cs |ds |data16 )+", "", insn)
        if len(prev) < 3 and re.match(r"^mov %rsp,%rbp$", insn) and "push %rbp" in prev:
            frame_pointer = True
        try:
            rep = re.match(r"^rep[a-z]* (movs|stos)[bwlq]?\b", insn)
            if rep:
                kind = "inline-copy" if rep.group(1) == "movs" else "inline-fill"
                regs = ("rdi", "rsi") if kind == "inline-copy" else ("rdi",)
                if not all(_on_stack(prev, r, frame_pointer) for r in regs):
                    found.append((kind, clone, addr, insn))
                continue
            g = _RIP.match(insn)
            if g and g.group(1) == "lea":
                addressed.add(int(g.group(3), 16))
            if plain_next or addr in plain:
                plain.add(addr)
                uninstr, plain_next = True, False
            serial = serial or "<_ITM_changeTransactionMode" in insn
            b = re.match(r"^j(ne|e) ([0-9a-f]+) ", insn)
            if b and prev[:1] == ["test $0x2,%al"] and "<_ITM_beginTransaction" in "".join(prev[1:3]):
                if b.group(1) == "ne":
                    plain.add(int(b.group(2), 16))
                else:
                    plain_next = True
            if g and not serial and not uninstr and \
                    not g.group(1).startswith(("lea", "nop", "prefetch", "lock", "xchg")) and \
                    any(lo <= int(g.group(3), 16) < hi for lo, hi in data):
                ops = insn.split("#", 1)[0].rstrip()
                op = "store to" if ops.endswith("(%rip)") else "load of"
                held.append(("global", clone, addr, f"{op} {g.group(4)}", int(g.group(3), 16)))
                continue
            ind = _INDIRECT.match(insn)
            if ind:
                sym = ind.group(4)
                if sym and "@" in sym:  # through a GOT slot: a named call (-fno-plt)
                    _classify(found, clone, addr, _plain_name(sym), True, own)
                    if GET_CLONE.match(_plain_name(sym)):
                        licences += 1
                elif ind.group(2) == "jmp" and _is_switch(insn, prev):
                    pass
                elif licences:
                    licences -= 1
                else:
                    found.append(("indirect", clone, addr, ind.group(3)))
                continue
            t = _DIRECT.match(insn)
            if not t:
                continue
            target, base = t.group(3), _plain_name(t.group(3))
            if t.group(4) or base == _plain_name(clone):
                continue  # a jump inside the clone, or to its own parts
            if t.group(1) == "jmp" and not target.endswith("@plt") and CLONE.match(base):
                continue
            if GET_CLONE.match(base):
                licences += 1
            _classify(found, clone, addr, base, target.endswith("@plt"), own)
        finally:
            uninstr = uninstr and "<_ITM_commitTransaction" not in insn
            prev.insert(0, insn)
            del prev[32:]
    settle()
    return sorted(found, key=lambda f: f[2])


def _classify(found, clone, addr, base, via_plt, own):
    if CLONE.match(base) or HARMLESS.match(base):
        return
    if base in INTERPOSED:
        found.append(("call", clone, addr, base))
    elif via_plt and base not in own:
        found.append(("extern", clone, addr, base))
    else:
        found.append(("pure", clone, addr, base))
