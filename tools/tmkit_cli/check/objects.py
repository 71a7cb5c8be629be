"""Facts about an object file that the redo-log scan (scan.py) reads through binutils: its
disassembly, its clones' extents, the names it defines, its writable data sections, whether it
was built with -fgnu-tm, the -fgnu-tm libraries a program loads, and source lines."""
import re
import subprocess

CLONE = re.compile(r"^_ZGTt[\w.]*$")
_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)")


class ScanError(Exception):
    pass


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise ScanError(f"{cmd[0]} not found (Debian package binutils)")
    if out.returncode != 0:
        msg = out.stderr.strip().splitlines()
        raise ScanError(msg[-1] if msg else f"{cmd[0]} failed on {cmd[-1]}")
    return out.stdout


def disassemble(path):
    return _run(["objdump", "-d", "--no-show-raw-insn", path])


def defined_dynamic(path):
    """Names the object defines in its dynamic symbol table (calls through its PLT to them
    stay in the object)."""
    try:
        out = _run(["nm", "-D", "--defined-only", path])
    except ScanError:
        return set()
    return {line.split()[-1].split("@", 1)[0] for line in out.splitlines() if line.split()}


def clone_sizes(path):
    """{clone symbol: size}: the extent of each clone. Code past a clone's size that objdump
    shows under its label belongs to no symbol (the bodies of a weak function defined in several
    files that the link did not choose, say), and is not the clone's."""
    try:
        out = _run(["nm", "-S", "--defined-only", path])
    except ScanError:
        return {}
    sizes = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and CLONE.match(f[3]):
            sizes[f[3]] = int(f[0], 16), int(f[1], 16)
    return sizes


def data_ranges(sections):
    """[lo, hi) of the writable data sections (.data*, .bss*; not .data.rel.ro, the GOT, the
    TLS images) in readelf -SW's text."""
    out = []
    for line in sections.splitlines():
        m = _SECTION.match(line)
        if m and "W" in m.group(4) and re.match(r"^\.(data|bss)(\.|$)", m.group(1)) and \
                not m.group(1).startswith(".data.rel.ro"):
            lo = int(m.group(2), 16)
            out.append((lo, lo + int(m.group(3), 16)))
    return out


def needs_tm_runtime(path):
    """Is the object built with -fgnu-tm (does it load libitm.so.1)?"""
    try:
        out = _run(["readelf", "-d", path])
    except ScanError:
        return False
    return "[libitm.so.1]" in out


def tm_libraries(path, env=None):
    """The shared libraries the program loads that were built with -fgnu-tm (they load
    libitm.so.1 themselves), as ldd resolves them (in env: its LD_LIBRARY_PATH); tmkit's and
    GCC's libitm excluded."""
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, env=env).stdout
    except FileNotFoundError:
        return []
    libs = []
    for line in out.splitlines():
        m = re.match(r"^\s*(\S+) => (/\S+)", line)
        if m and not m.group(1).startswith("libitm.so") and needs_tm_runtime(m.group(2)):
            libs.append(m.group(2))
    return libs


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
