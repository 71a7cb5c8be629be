"""Finds, in the machine code of a -fgnu-tm binary, what a redo-log algorithm (NOrec, orec_lazy,
TMKIT_ADAPTIVE_MODES=all) cannot make right (docs/algorithms.md, "Redo logs and programs written
for libitm"):
  inline   `rep movs` / `rep stos` inside a transaction clone: a copy or fill GCC inlined (constant
           length), plain stores no runtime sees;
  pure     a direct call from a clone to a function that is neither a clone nor the runtime's: a
           transaction_pure (or transaction_wrap) function, run on plain memory. It is safe only
           if it does not read or write memory the transaction wrote.
The plain memcpy/memmove/memset calls GCC emits in clones are listed too (kind `call`), as
information: tmkit takes them into the transaction under every algorithm.

Only transaction clones (`_ZGTt*` symbols, from transaction_safe/callable functions) are
scanned: the instrumented path of a function that contains a transaction is not marked in the
binary, so code written directly inside `__transaction_atomic` blocks is not covered."""
import re
import subprocess

# Functions GCC calls from clones that touch no program memory the transaction could have
# written (error exits, stack protector, unwinder and exception runtime).
HARMLESS = re.compile(r"^(abort|__stack_chk_fail|__assert_fail|_Unwind_Resume|__cxa_\w+|"
                      r"_ITM_\w+|__tls_get_addr|_ZGTt\w*)$")
INTERPOSED = {"memcpy", "memmove", "memset"}

_FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
_TARGET = re.compile(r"^(call|jmp)\w*\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")


class ScanError(Exception):
    pass


def disassemble(path):
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                             capture_output=True, text=True)
    except FileNotFoundError:
        raise ScanError("objdump not found (Debian package binutils)")
    if out.returncode != 0:
        msg = out.stderr.strip().splitlines()
        raise ScanError(msg[-1] if msg else f"objdump failed on {path}")
    return out.stdout


def _plain_name(sym):
    return sym.split("@", 1)[0]


def scan(path):
    """[(kind, clone, address, detail)] for every finding, in address order."""
    found, clone = [], None
    for line in disassemble(path).splitlines():
        m = _FUNC.match(line)
        if m:
            name = m.group(2)
            clone = name if name.startswith("_ZGTt") else None
            continue
        if clone is None:
            continue
        m = _INSN.match(line)
        if not m:
            continue
        addr, insn = int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2).strip())
        if re.match(r"^(rep[a-z]* )?(movs|stos)[bwlq]?\b", insn) and insn.startswith("rep"):
            kind = "inline-copy" if "movs" in insn else "inline-fill"
            found.append((kind, clone, addr, insn))
            continue
        t = _TARGET.match(insn)
        if not t:
            continue
        target = t.group(2)
        base = _plain_name(target)
        if t.group(3) or base == clone or base.startswith(clone + "."):
            continue  # a jump inside the clone, or to its own parts
        if t.group(1) == "jmp" and not target.endswith("@plt") and base.startswith("_ZGTt"):
            continue
        if base in INTERPOSED:
            found.append(("call", clone, addr, base))
        elif not HARMLESS.match(base):
            found.append(("pure", clone, addr, base))
    return found


def where(path, addrs):
    """{address: 'file:line'} through addr2line (empty strings where it knows nothing)."""
    if not addrs:
        return {}
    try:
        out = subprocess.run(["addr2line", "-e", path] + [hex(a) for a in addrs],
                             capture_output=True, text=True).stdout.splitlines()
    except FileNotFoundError:
        return {a: "" for a in addrs}
    res = {}
    for a, line in zip(addrs, out):
        res[a] = "" if line.startswith("??") else line.split(" (")[0]
    return res
