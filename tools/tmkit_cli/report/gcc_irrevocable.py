"""The call that made GCC compile a transaction to start irrevocable, found in the binary.

When an unsafe call (printf, a function of another unit not declared transaction_safe, a
pthread_* call...) lies on every path of a relaxed transaction, GCC gives the transaction only
its uninstrumented code (or flags it pr_doesGoIrrevocable), and the runtime runs every attempt
serially from its start: no _ITM_changeTransactionMode is called, so the profile has no
irrevocable_call for it, only its gcc_irrevocable_starts. This module names the call instead: from
the site (the return address of the transaction's _ITM_beginTransaction) it follows the code
(objdump), conditional branches fall-through first, to the commit, and stops at the first call
GCC could not prove safe (StartCalls._unsafe says which those are: not the TM ABI's _ITM_*, not
one of GCC's own safe functions, no transactional clone in the object's clone table, and not a
function of the same compile unit that calls nothing unsafe). A function with a clone whose
every path is unsafe is unsafe too: GCC makes its clone go irrevocable on entry and counts a call
of it like the unsafe call inside (memcached's append_stat, transaction_callable, calls vsnprintf).
The call's line comes from addr2line; a function of the same unit, or one whose clone goes
irrevocable on entry, is named with the unsafe call inside it."""
import os
import re
import shutil
import struct
import subprocess

from .elf import Elf, ElfError

LABEL = "starts irrevocable (GCC: unsafe call on every path)"

# Called directly by GCC's uninstrumented code, yet safe in a transaction (GCC's builtins, which
# it instruments itself, and the C++ runtime's allocation and exception functions, whose clones
# are the TM runtime's own).
SAFE = {"malloc", "calloc", "free", "memcpy", "memmove", "memset", "abort", "__stack_chk_fail",
        "__tls_get_addr", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
        "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "__cxa_allocate_exception",
        "__cxa_free_exception", "__cxa_throw", "__cxa_begin_catch", "__cxa_end_catch",
        "__cxa_rethrow", "__cxa_tm_cleanup", "_Unwind_Resume"}
PREFIXES = {"bnd", "notrack", "rep", "repz", "repe", "repnz", "repne", "lock", "data16", "cs", "ds",
            "addr32"}
_INSN = re.compile(r"^\s*([0-9a-f]+):\s*(.*)$")
_DIRECT = re.compile(r"^([0-9a-f]+)(?: <([^>]*)>)?$")
_SLOT = re.compile(r"#\s*[0-9a-f]+ <([^>+]*)>")  # call *X(%rip)  # addr <name@GLIBC...> (-fno-plt)


def clone_name(name):
    """GCC's name for the transactional clone of function `name` (C or C++)."""
    return "_ZGTt" + (name[2:] if name.startswith("_Z") else f"{len(name)}{name}")


class _Code:
    """The instructions of one object, disassembled a function at a time: address -> (mnemonic,
    operands, next address)."""

    def __init__(self, path, elf):
        self.path, self.elf, self.insns, self.done = path, elf, {}, []

    def _disassemble(self, lo, hi):
        out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", f"--start-address={lo:#x}",
                              f"--stop-address={hi:#x}", self.path],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        prev = None
        for text in out:
            m = _INSN.match(text)
            if not m or "\t" not in text:
                continue
            words = m[2].split(None, 1)
            while words and words[0] in PREFIXES:
                words = words[1].split(None, 1) if len(words) > 1 else []
            addr = int(m[1], 16)
            if prev is not None:
                self.insns[prev] = self.insns[prev][:2] + (addr,)
            self.insns[addr] = (words[0] if words else "", words[1].strip() if len(words) > 1 else "", None)
            prev = addr
        self.done.append((lo, hi))

    def body(self, func):
        """[(address, mnemonic, operands)] of the function starting at func."""
        f = self.elf.function_at(func)
        if not f or not self.at(func, (0, 0)):
            return []
        return [(a,) + self.insns[a][:2] for a in sorted(self.insns) if f[0] <= a < f[1]]

    def at(self, addr, window):
        """The instruction at addr; its function is disassembled when first needed (without
        symbols: `window`, the bytes from the site on)."""
        if addr not in self.insns and not any(lo <= addr < hi for lo, hi in self.done):
            f = self.elf.function_at(addr)
            lo, hi = (f[0], f[1]) if f else window if window[0] <= addr < window[1] else (0, 0)
            if hi > lo:
                self._disassemble(lo, hi)
        return self.insns.get(addr)


class StartCalls:
    """site (a profile's site dict) -> the text of the serializing-call column; objects read once."""

    def __init__(self):
        self.objects, self.cache = {}, {}

    def _object(self, path):
        if path not in self.objects:
            try:
                elf = Elf(path)
                self.objects[path] = (elf, _Code(path, elf))
            except (OSError, ElfError, IndexError, struct.error) as e:
                self.objects[path] = str(getattr(e, "strerror", None) or e)
        return self.objects[path]

    def describe(self, site, program=None):
        obj, off = site.get("site_object"), site.get("site_offset")
        if not obj or not off:
            return f"{LABEL}: the call could not be named (the profile has no object for this site)"
        if not os.path.exists(obj) and program and os.path.basename(obj) == os.path.basename(program):
            obj = program  # the main program, recorded as it was started (./prog)
        key = (obj, off, site.get("site_build_id"))
        if key not in self.cache:
            try:
                self.cache[key] = f"{LABEL}: {self._find(obj, int(off, 16), site.get('site_build_id'))}"
            except (OSError, ValueError, subprocess.CalledProcessError) as e:
                self.cache[key] = f"{LABEL}: the call could not be named ({os.path.basename(obj)}: {e})"
        return self.cache[key]

    def _find(self, path, off, want_id):
        name = os.path.basename(path)
        if not os.path.exists(path):
            return f"the call could not be named ({path}: no such file)"
        if not shutil.which("objdump") or not shutil.which("addr2line"):
            return "the call could not be named (objdump and addr2line are needed: binutils)"
        got = self._object(path)
        if isinstance(got, str):
            return f"the call could not be named ({name}: {got})"
        elf, code = got
        if want_id is not None and want_id != elf.build_id:
            return (f"the call could not be named ({name} changed since the profile: build id "
                    f"{elf.build_id[:12] or 'none'}, the profile's {want_id[:12]})")
        if not elf.has_symtab:
            return f"the call could not be named ({name} is stripped: no symbol table)"
        site = off + elf.base
        found = self._walk(elf, code, site)
        if found is None:
            return f"the call could not be named (no unsafe call found after {name}+{off:#x})"
        call, callee, why = found
        return f"{self._demangle(callee)} at {self._line(path, call, elf.base)}" + \
            (f" (which calls {why})" if why else "")

    def _walk(self, elf, code, site):
        """(call address, callee name, what it calls that is unsafe or "") of the first unsafe
        call on the transaction's paths."""
        window, unit = (site, site + 4096), elf.unit_at(site)
        todo, seen, indirect = [site], set(), None
        while todo:
            a = todo.pop()
            while a is not None and a not in seen:
                seen.add(a)
                insn = code.at(a, window)
                if insn is None:
                    break
                op, args, nxt = insn
                if op.startswith("call") or op.startswith("jmp"):
                    target, callee, imported = self._target(elf, args)
                    # a jump to another function's entry (a PLT entry included) is a tail call;
                    # to a label, or to a cold part split off the function, it stays inside
                    tail = op.startswith("jmp") and callee is not None and \
                        not callee.endswith(".cold")
                    if op.startswith("jmp") and not tail:
                        a = target  # None (an indirect jump): the path ends
                        continue
                    if callee is None:
                        indirect = indirect or a
                    elif callee.startswith("_ITM_"):
                        if callee == "_ITM_commitTransaction":
                            break  # the transaction ends here on this path
                    else:
                        why = self._unsafe(elf, code, unit, callee, target, imported, 0, set())
                        if why is not None:
                            return a, callee.split(".")[0], why  # foo.constprop.0: foo
                    if tail:
                        break
                elif op.startswith("j") or op.startswith("loop"):
                    target = self._target(elf, args)[0]
                    if target is not None:
                        todo.append(target)  # taken later: the fall-through path first
                elif op.startswith("ret") or op in ("ud2", "hlt"):
                    break
                a = nxt
        return (indirect, "an indirect call", "") if indirect is not None else None

    def _unsafe(self, elf, code, unit, callee, target, imported, depth, stack):
        """None if GCC may call callee from a transaction in compile unit `unit` without going
        irrevocable; else why not: "" (not known to be safe), or the unsafe call inside it.
        Safe: a GCC builtin, a function with a clone (foo.constprop.0 and other local variants
        of GCC's count as foo), an imported one whose clone is in a library the object needs, or
        a function of the same unit whose body calls nothing unsafe (GCC sees into those and
        makes no clone of one that needs none). A function of another unit without a clone is
        unsafe whatever it does: GCC cannot see into it. Without debug information the unit is
        unknown: a static function counts as the same unit's, any other as another's."""
        base = callee.split(".")[0]
        if base in SAFE:
            return None
        clone = elf.by_name.get(clone_name(base))
        if clone is not None and self._starts_irrevocable(elf, code, clone):
            # GCC counts a call of a function whose every path is unsafe as unsafe itself, clone
            # or not: its clone goes irrevocable on entry (memcached's append_stat: vsnprintf)
            return self._inner(elf, code, clone, depth, stack | {target}) or ""
        if clone is not None or callee in elf.clone_names or target in elf.clone_addrs or \
                clone_name(base) in elf.symbols:
            return None
        if imported and base in elf.by_name:  # through the PLT, yet defined in this object
            target, imported = elf.by_name[base], False
        if imported:
            return None if any(clone_name(base) in lib.symbols for lib in self._needed(elf)) else ""
        there = elf.unit_at(target) if target is not None else None
        if target is None or (unit is not None and there is not None and there != unit):
            return ""
        inner = self._inner(elf, code, target, depth, stack)
        if inner:
            return inner
        return None if (there is not None and there == unit) or target in elf.local else ""

    @staticmethod
    def _starts_irrevocable(elf, code, clone):
        """Whether the transactional clone at `clone` goes irrevocable on entry: every path from
        its start reaches a call of _ITM_changeTransactionMode before any other call or a return
        (GCC puts that call first when an unsafe call lies on every path of the function)."""
        f = elf.function_at(clone)
        window = (f[0], f[1]) if f else (clone, clone + 4096)
        todo, seen = [clone], set()
        while todo:
            a = todo.pop()
            while a not in seen:
                seen.add(a)
                insn = code.at(a, window)
                if insn is None or not window[0] <= a < window[1]:
                    return False
                op, args, nxt = insn
                if op.startswith("call"):
                    if StartCalls._target(elf, args)[1] != "_ITM_changeTransactionMode":
                        return False
                    break
                if op.startswith("ret") or op in ("ud2", "hlt"):
                    return False
                if op.startswith("j") or op.startswith("loop"):
                    target = StartCalls._target(elf, args)[0]
                    if target is None:
                        return False  # an indirect or tail jump: not known
                    if op.startswith("jmp"):
                        a = target
                        continue
                    todo.append(target)
                if nxt is None:
                    return False
                a = nxt
        return True

    def _inner(self, elf, code, func, depth, stack):
        """The first unsafe call in func's body ("printf at prog.c:5"), or None."""
        if depth >= 4 or func in stack:
            return None
        unit = elf.unit_at(func)
        for a, op, args in code.body(func):
            if not (op.startswith("call") or op.startswith("jmp")):
                continue
            target, callee, imported = self._target(elf, args)
            if callee is None or callee.startswith("_ITM_") or callee.endswith(".cold") or \
                    (op.startswith("jmp") and callee == elf.function_named_at(func)):
                continue
            if self._unsafe(elf, code, unit, callee, target, imported, depth + 1,
                            stack | {func}) is not None:
                return f"{self._demangle(callee.split('.')[0])} at {self._line(elf.path, a, elf.base)}"
        return None

    def _needed(self, elf):
        """The libraries elf needs, found as the loader would in the usual places (its run path,
        LD_LIBRARY_PATH, the system's directories); those not found are left out."""
        if not hasattr(elf, "libs"):
            origin = os.path.dirname(os.path.abspath(elf.path))
            dirs = [d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for d in elf.runpath]
            dirs += [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
            dirs += ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                     "/lib", "/usr/lib", "/usr/local/lib"]
            elf.libs = []
            for name in elf.needed:
                path = next((os.path.join(d, name) for d in dirs if os.path.exists(os.path.join(d, name))),
                            None)
                got = self._object(path) if path else None
                if got and not isinstance(got, str):
                    elf.libs.append(got[0])
        return elf.libs

    @staticmethod
    def _target(elf, args):
        """(target address or None, callee name or None, imported?) of a call or jump's operand."""
        m = _DIRECT.match(args.strip())
        if m:
            addr, label = int(m[1], 16), m[2] or ""
            if label.endswith("@plt"):
                return addr, label[:-4], True
            name = elf.function_named_at(addr) or (label if "+" not in label and label else None)
            return addr, name, False
        m = _SLOT.search(args)
        return (None, m[1].split("@")[0], True) if m else (None, None, False)

    @staticmethod
    def _demangle(name):
        if not name.startswith("_Z"):
            return name
        try:
            out = subprocess.run(["c++filt", "-p", name], capture_output=True, text=True,
                                 check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            out = ""
        return out or name

    @staticmethod
    def _line(path, addr, base):
        """file:line of the call at addr, or object+offset; a call inlined from another function
        (a header's, say) also gives the line in the site's function: "ostream:167 (inlined at
        prog.cc:12)"."""
        try:
            out = subprocess.run(["addr2line", "-i", "-e", path, f"{addr:#x}"], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
        except (OSError, subprocess.CalledProcessError):
            out = []
        locs = []
        for loc in out or ["??:0"]:  # innermost frame first
            loc = loc.split(" (discriminator")[0]
            known = not (loc.startswith("??") or loc.endswith(":0"))
            locs.append(f"{os.path.basename(loc.rsplit(':', 1)[0])}:{loc.rsplit(':', 1)[1]}"
                        if known else None)
        if locs[0] is None:
            return f"{os.path.basename(path)}+{addr - base:#x}"
        outer = locs[-1]
        return locs[0] + (f" (inlined at {outer})" if outer and outer != locs[0] else "")
