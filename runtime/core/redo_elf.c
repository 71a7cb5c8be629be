/* The redo-log check's view of an object file (redo.h): its function symbols (.symtab: the
 * clones' extents, and the names of the functions they call), the GOT slots its PLT stubs and
 * `call *slot(%rip)` read (.rela.plt, .rela.dyn against .dynsym: the names of calls into other
 * objects), its PLT sections, and whether it was built with -fgnu-tm (DT_NEEDED libitm.so.1).
 * The file is mapped read-only for the scan and every offset is checked against its size: a
 * truncated or odd file is "not readable", never a crash. Runs once, at start-up. */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "redo.h"

/* The section header i, or NULL if outside the file. */
static const Elf64_Shdr *tm_elf_shdr(const tm_redo_obj *o, unsigned i)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->map;
    if (i >= eh->e_shnum || eh->e_shoff + (uint64_t)(i + 1) * sizeof(Elf64_Shdr) > o->size)
        return NULL;
    return (const Elf64_Shdr *)(o->map + eh->e_shoff) + i;
}

/* The bytes of section sh, or NULL (NOBITS, or outside the file). */
static const void *tm_elf_data(const tm_redo_obj *o, const Elf64_Shdr *sh)
{
    if (!sh || sh->sh_type == SHT_NOBITS || sh->sh_offset > o->size ||
        sh->sh_size > o->size - sh->sh_offset)
        return NULL;
    return o->map + sh->sh_offset;
}

/* String off of the string table section strndx, or NULL. */
static const char *tm_elf_str(const tm_redo_obj *o, unsigned strndx, uint64_t off)
{
    const Elf64_Shdr *sh = tm_elf_shdr(o, strndx);
    const char *s = tm_elf_data(o, sh);
    if (!s || off >= sh->sh_size || !memchr(s + off, 0, sh->sh_size - off))
        return NULL;
    return s + off;
}

static int tm_sym_cmp(const void *a, const void *b)
{
    uintptr_t x = ((const tm_redo_sym *)a)->lo, y = ((const tm_redo_sym *)b)->lo;
    return x < y ? -1 : x > y;
}

static int tm_slot_cmp(const void *a, const void *b)
{
    uintptr_t x = ((const tm_redo_slot *)a)->got, y = ((const tm_redo_slot *)b)->got;
    return x < y ? -1 : x > y;
}

static void tm_elf_funcs(tm_redo_obj *o, const Elf64_Shdr *sh)
{
    const Elf64_Sym *sym = tm_elf_data(o, sh);
    size_t n = sym ? sh->sh_size / sizeof *sym : 0;
    o->funcs = malloc((n ? n : 1) * sizeof *o->funcs);
    if (!o->funcs)
        return;
    for (size_t i = 0; i < n; i++) {
        if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx == SHN_UNDEF ||
            !sym[i].st_value)
            continue;
        const char *name = tm_elf_str(o, sh->sh_link, sym[i].st_name);
        if (name)
            o->funcs[o->nfuncs++] = (tm_redo_sym){sym[i].st_value,
                                                  sym[i].st_value + sym[i].st_size, name};
    }
    qsort(o->funcs, o->nfuncs, sizeof *o->funcs, tm_sym_cmp);
}

/* The JUMP_SLOT and GLOB_DAT relocations of a RELA section against the dynamic symbols. */
static void tm_elf_slots(tm_redo_obj *o, const Elf64_Shdr *rela)
{
    const Elf64_Rela *r = tm_elf_data(o, rela);
    const Elf64_Shdr *dynsym = tm_elf_shdr(o, rela->sh_link);
    const Elf64_Sym *sym = tm_elf_data(o, dynsym);
    if (!r || !sym || dynsym->sh_type != SHT_DYNSYM)
        return;
    size_t n = rela->sh_size / sizeof *r, nsym = dynsym->sh_size / sizeof *sym;
    tm_redo_slot *s = realloc(o->slots, (o->nslots + n + 1) * sizeof *s);
    if (!s)
        return;
    o->slots = s;
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_R_TYPE(r[i].r_info);
        size_t k = ELF64_R_SYM(r[i].r_info);
        if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || !k || k >= nsym)
            continue;
        const char *name = tm_elf_str(o, dynsym->sh_link, sym[k].st_name);
        if (name)
            o->slots[o->nslots++] = (tm_redo_slot){r[i].r_offset, name,
                                                   sym[k].st_shndx != SHN_UNDEF};
    }
}

/* DT_NEEDED libitm.so.1? */
static bool tm_elf_needs_itm(const tm_redo_obj *o, const Elf64_Shdr *sh)
{
    const Elf64_Dyn *d = tm_elf_data(o, sh);
    for (size_t i = 0; d && i < sh->sh_size / sizeof *d && d[i].d_tag != DT_NULL; i++) {
        const char *name = d[i].d_tag == DT_NEEDED ? tm_elf_str(o, sh->sh_link, d[i].d_un.d_val)
                                                   : NULL;
        if (name && strcmp(name, "libitm.so.1") == 0)
            return true;
    }
    return false;
}

bool tm_redo_obj_open(tm_redo_obj *o, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    void *m = fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr)
                  ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED)
        return false;
    o->path = path;
    o->map = m;
    o->size = (size_t)st.st_size;
    const Elf64_Ehdr *eh = m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_machine != EM_X86_64) {
        tm_redo_obj_close(o);
        return false;
    }
    for (unsigned i = 0; i < eh->e_shnum && !o->needs_itm; i++) { /* first: -fgnu-tm at all? */
        const Elf64_Shdr *sh = tm_elf_shdr(o, i);
        if (sh && sh->sh_type == SHT_DYNAMIC)
            o->needs_itm = tm_elf_needs_itm(o, sh);
    }
    const Elf64_Shdr *names = o->needs_itm ? tm_elf_shdr(o, eh->e_shstrndx) : NULL;
    for (unsigned i = 0; names && i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = tm_elf_shdr(o, i);
        const char *name = sh ? tm_elf_str(o, eh->e_shstrndx, sh->sh_name) : NULL;
        if (!name)
            continue;
        if (sh->sh_type == SHT_SYMTAB && !o->has_symtab) {
            o->has_symtab = true;
            tm_elf_funcs(o, sh);
        } else if (sh->sh_type == SHT_RELA) {
            tm_elf_slots(o, sh);
        } else if (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
                   !strcmp(name, ".plt.got")) {
            int k = name[4] == 0 ? 0 : name[5] == 's' ? 1 : 2;
            o->plt[k][0] = sh->sh_addr;
            o->plt[k][1] = sh->sh_addr + sh->sh_size;
        }
    }
    if (o->slots)
        qsort(o->slots, o->nslots, sizeof *o->slots, tm_slot_cmp);
    return true;
}

void tm_redo_obj_close(tm_redo_obj *o)
{
    if (o->map)
        munmap((void *)o->map, o->size);
    free(o->funcs);
    free(o->slots);
    o->map = NULL;
    o->funcs = NULL;
    o->slots = NULL;
}

const tm_redo_sym *tm_redo_func_at(const tm_redo_obj *o, uintptr_t addr)
{
    size_t lo = 0, hi = o->nfuncs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->funcs[mid].lo < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nfuncs && o->funcs[lo].lo == addr ? &o->funcs[lo] : NULL;
}

const tm_redo_slot *tm_redo_slot_at(const tm_redo_obj *o, uintptr_t got)
{
    size_t lo = 0, hi = o->nslots;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->slots[mid].got < got)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nslots && o->slots[lo].got == got ? &o->slots[lo] : NULL;
}
