"""What the report needs to know of an x86-64 ELF object (executable or shared library) without a
disassembler: where it is loaded relative to the profile's offsets, its GNU build id, its
function symbols, which functions have a transactional clone (GCC's .tm_clone_table, the table
the TM runtime looks clones up in) and the libraries it needs. Read with the struct module: only
the headers, the symbol tables, the notes, the clone table, the dynamic relocations that fill it
in and the dynamic section."""
import struct

PT_LOAD, PT_NOTE = 1, 4
SHT_SYMTAB, SHT_RELA, SHT_DYNSYM = 2, 4, 11
STT_FUNC, STT_GNU_IFUNC = 2, 10
STB_LOCAL = 0
NT_GNU_BUILD_ID = 3
R_X86_64_64, R_X86_64_GLOB_DAT, R_X86_64_RELATIVE = 1, 6, 8
DT_NEEDED, DT_RPATH, DT_RUNPATH = 1, 15, 29


class ElfError(ValueError):
    """Not an object this reader understands (the message says why)."""


class Elf:
    """One object: base, build_id, has_symtab, functions, local, clone_addrs, clone_names,
    symbols, needed, runpath, units."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = data = f.read()
        if data[:4] != b"\x7fELF":
            raise ElfError("not an ELF object")
        if data[4] != 2 or data[5] != 1 or struct.unpack_from("<H", data, 18)[0] != 62:
            raise ElfError("not an x86-64 ELF object")
        (phoff, shoff, _, _, phentsize, phnum, shentsize, shnum,
         shstrndx) = struct.unpack_from("<QQIHHHHHH", data, 32)
        self.phdrs = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
                      for i in range(phnum)]
        self.shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                      for i in range(shnum)] if shoff else []
        names = self.shdrs[shstrndx] if shstrndx < len(self.shdrs) else None
        self.section_names = [self._str(names[4], sh[0]) if names else "" for sh in self.shdrs]
        loads = [ph[3] for ph in self.phdrs if ph[0] == PT_LOAD]
        # The profile's offsets are from the object's lowest mapped page (dladdr's dli_fbase):
        # 0 for PIE executables and shared libraries, 0x400000 for a classic executable.
        self.base = (min(loads) & ~0xfff) if loads else 0
        self.build_id = self._build_id()
        self.has_symtab = any(sh[1] == SHT_SYMTAB for sh in self.shdrs)
        self._symbols()
        self._clone_table()
        self._dynamic()
        self._units()

    def _str(self, table_off, off):
        end = self.data.index(b"\0", table_off + off)
        return self.data[table_off + off:end].decode("utf-8", "replace")

    def _build_id(self):
        for ph in self.phdrs:
            if ph[0] != PT_NOTE:
                continue
            p, end = ph[2], ph[2] + ph[5]
            while p + 12 <= end:
                namesz, descsz, kind = struct.unpack_from("<III", self.data, p)
                name = self.data[p + 12:p + 12 + namesz]
                desc = p + 12 + ((namesz + 3) & ~3)
                if kind == NT_GNU_BUILD_ID and name == b"GNU\0":
                    return self.data[desc:desc + descsz].hex()
                p = desc + ((descsz + 3) & ~3)
        return ""

    def _symbols(self):
        """functions: sorted (start, size, name) of defined functions; local: the addresses of
        static ones; symbols: every name; dynsyms: the dynamic symbols' names by index (for
        relocations)."""
        self.functions, self.symbols, self.dynsyms, self.local = [], set(), [], set()
        for sh in self.shdrs:
            if sh[1] not in (SHT_SYMTAB, SHT_DYNSYM) or sh[9] == 0:
                continue
            strtab = self.shdrs[sh[6]][4]
            names = []
            for k in range(sh[5] // sh[9]):
                st_name, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", self.data,
                                                                         sh[4] + k * sh[9])
                name = self._str(strtab, st_name)
                names.append(name)
                self.symbols.add(name)
                if (info & 0xf) in (STT_FUNC, STT_GNU_IFUNC) and shndx != 0 and value:
                    self.functions.append((value, size, name))
                    if info >> 4 == STB_LOCAL:
                        self.local.add(value)
            if sh[1] == SHT_DYNSYM:
                self.dynsyms = names
        self.functions = sorted(set(self.functions))
        self.entries, self.by_name = {}, {}
        for start, _, name in self.functions:  # the first name at an address (sorted: stable)
            self.entries.setdefault(start, name)
            self.by_name.setdefault(name, start)

    def _clone_table(self):
        """clone_addrs / clone_names: the original functions of the clone table's pairs
        (original, clone): addresses (filled in by the link, or by RELATIVE relocations in
        position-independent objects) or imported names (symbol relocations)."""
        self.clone_addrs, self.clone_names = set(), set()
        tab = next((sh for sh, n in zip(self.shdrs, self.section_names) if n == ".tm_clone_table"),
                   None)
        if not tab:
            return
        slots = set(range(tab[3], tab[3] + tab[5] - 15, 16))
        relocs = {}
        for sh in self.shdrs:
            if sh[1] != SHT_RELA or sh[9] == 0:
                continue
            for k in range(sh[5] // sh[9]):
                off, info, addend = struct.unpack_from("<QQq", self.data, sh[4] + k * sh[9])
                if off in slots:
                    relocs[off] = (info & 0xffffffff, info >> 32, addend)
        for slot in sorted(slots):
            kind, sym, addend = relocs.get(slot, (None, 0, 0))
            if kind == R_X86_64_RELATIVE:
                self.clone_addrs.add(addend)
            elif kind in (R_X86_64_64, R_X86_64_GLOB_DAT) and 0 < sym < len(self.dynsyms):
                self.clone_names.add(self.dynsyms[sym])
            elif kind is None and tab[1] != 8:  # SHT_NOBITS has no contents
                self.clone_addrs.add(struct.unpack_from("<Q", self.data, tab[4] + slot - tab[3])[0])

    def _dynamic(self):
        """needed: the shared libraries it names (DT_NEEDED); runpath: its DT_RUNPATH or
        DT_RPATH directories."""
        self.needed, self.runpath = [], []
        dyn = next((sh for sh, n in zip(self.shdrs, self.section_names) if n == ".dynamic"), None)
        strs = next((sh for sh, n in zip(self.shdrs, self.section_names) if n == ".dynstr"), None)
        if not dyn or not strs:
            return
        for k in range(dyn[5] // 16):
            tag, val = struct.unpack_from("<qQ", self.data, dyn[4] + 16 * k)
            if tag == 0:
                break
            if tag == DT_NEEDED:
                self.needed.append(self._str(strs[4], val))
            elif tag in (DT_RPATH, DT_RUNPATH):
                self.runpath += [d for d in self._str(strs[4], val).split(":") if d]

    def _units(self):
        """units: sorted (start, end, unit) code ranges of the compile units (.debug_aranges, which
        GCC writes with -g; unit: the unit's offset in .debug_info). Empty without it."""
        self.units = []
        sec = next((sh for sh, n in zip(self.shdrs, self.section_names) if n == ".debug_aranges"),
                   None)
        p, end = (sec[4], sec[4] + sec[5]) if sec else (0, 0)
        while p + 4 <= end:
            length, = struct.unpack_from("<I", self.data, p)
            wide = length == 0xffffffff  # 64-bit DWARF
            head = p + (12 if wide else 4)
            if wide:
                length, = struct.unpack_from("<Q", self.data, p + 4)
            nxt = head + length
            unit, = struct.unpack_from("<Q" if wide else "<I", self.data, head + 2)
            asize = self.data[head + (10 if wide else 6)]
            if asize != 8:
                p = nxt
                continue
            q = head + (12 if wide else 8)
            q += -(q - p) % 16  # tuples are aligned to twice the address size
            while q + 16 <= nxt:
                addr, size = struct.unpack_from("<QQ", self.data, q)
                if addr == 0 and size == 0:
                    break
                self.units.append((addr, addr + size, unit))
                q += 16
            p = nxt
        self.units.sort()

    def unit_at(self, addr):
        """The compile unit whose code holds addr, or None (unknown)."""
        return next((u for lo, hi, u in self.units if lo <= addr < hi), None)

    def function_at(self, addr):
        """(start, end, name) of the function containing addr, or None."""
        best = None
        for start, size, name in self.functions:
            if start > addr:
                break
            if addr < start + max(size, 1):
                best = (start, start + max(size, 1), name)
        return best

    def function_named_at(self, addr):
        """The name of a function starting at addr, or None."""
        return self.entries.get(addr)


def load_base(path):
    """Elf(path).base, from the headers alone: the address the profile's offsets start from."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            raise ElfError("not a 64-bit little-endian ELF object")
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    loads = [struct.unpack_from("<IIQQ", table, i * phentsize)[3] for i in range(phnum)
             if struct.unpack_from("<I", table, i * phentsize)[0] == PT_LOAD]
    return (min(loads) & ~0xfff) if loads else 0
