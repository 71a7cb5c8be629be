/* The redo-log check (redo.h): when the configuration lets a redo-log algorithm run (TMKIT_ALGO=
 * norec or orec_lazy, TMKIT_ADAPTIVE_MODES=all) and TMKIT_REDO_CHECK is not off, the library
 * scans, before the program's own constructors run, the transaction clones of every loaded
 * object built with -fgnu-tm (DT_NEEDED libitm.so.1: the program and its -fgnu-tm libraries;
 * not libstdc++, whose few clones are tmkit's to handle: abi/eh.c). What a redo log gets wrong
 * and the scan can tell without knowing what the code is for (a call through a
 * transaction_pure function pointer, a copy or fill GCC inlined outside the stack, code it
 * cannot decode, an object without symbols) then
 *  - refuses an explicit TMKIT_ALGO=norec or orec_lazy: the program stops at once with exit
 *    status 2 and a message naming the first hazard, like any configuration error. Running
 *    another algorithm instead would be what config.c never does (the numbers of a run that
 *    asked for NOrec must be NOrec's);
 *  - takes NOrec and orec_lazy out of adaptive's set under TMKIT_ADAPTIVE_MODES=all (a set
 *    adaptive may choose from, not a demand): the process runs write-through, as by default,
 *    and its profile says why (tm_redo_fallback: the JSON's "redo_fallback", the table's header).
 * TMKIT_REDO_CHECK=strict also acts on direct calls of transaction_pure functions, which are
 * as often harmless (a counter, a log line) as not: by default they stay the user's to judge,
 * with `tmkit check`'s list. Objects loaded later with dlopen are not scanned.
 * Cost: nothing unless a redo-log algorithm may run; then one pass over the clones at start-up
 * (the files' symbol tables are read through a read-only mapping). */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "config.h"
#include "redo.h"
#include "tx.h"

char tm_redo_fallback[640];

static const char *const tm_redo_what[TM_REDO_N_KINDS] = {
    [TM_REDO_INDIRECT] = "an indirect call through a transaction_pure function pointer",
    [TM_REDO_COPY] = "a copy inlined as rep movs (plain loads and stores)",
    [TM_REDO_FILL] = "a fill inlined as rep stos (plain stores)",
    [TM_REDO_UNDECODED] = "instructions the scan cannot decode",
    [TM_REDO_UNCHECKED] = "no symbol table (stripped) or not readable, so its transaction clones "
                          "cannot be found",
    [TM_REDO_EXTERN] = "a call of %s (another object's function, declared transaction_pure)",
    [TM_REDO_PURE] = "a call of %s (a transaction_pure function)",
};

void tm_redo_found(const tm_redo_obj *o, unsigned mode, tm_redo_result *r, enum tm_redo_kind k,
                   const char *clone, uintptr_t at, const char *detail)
{
    r->count[k]++;
    if (k >= TM_REDO_AUTO_KINDS && mode != TM_REDO_CHECK_STRICT)
        return;
    if (r->acted++)
        return;
    snprintf(r->path, sizeof r->path, "%s", o->path);
    char what[160];
    snprintf(what, sizeof what, tm_redo_what[k], detail);
    const char *base = strrchr(o->path, '/');
    base = base ? base + 1 : o->path;
    if (k == TM_REDO_UNCHECKED)
        snprintf(r->first, sizeof r->first, "%s: %s", o->path, what);
    else
        snprintf(r->first, sizeof r->first, "%s in %s (%s+0x%lx)", what, clone, base,
                 (unsigned long)at);
}

typedef struct tm_redo_objs {
    tm_redo_obj *v;
    size_t n;
} tm_redo_objs;

/* The loaded objects with a file (the program's as /proc/self/exe), and their code segments. */
static int tm_redo_collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    tm_redo_objs *objs = arg;
    const char *name = info->dlpi_name;
    if (name && *name && name[0] != '/')
        return 0; /* the vDSO */
    tm_redo_obj *v = realloc(objs->v, (objs->n + 1) * sizeof *v);
    if (!v)
        return 1;
    objs->v = v;
    tm_redo_obj *o = &v[objs->n++];
    *o = (tm_redo_obj){.path = name && *name ? strdup(name) : NULL, .bias = info->dlpi_addr};
    for (int i = 0; i < info->dlpi_phnum && o->ntext < 4; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            o->text[o->ntext][0] = ph->p_vaddr;
            o->text[o->ntext++][1] = ph->p_vaddr + ph->p_memsz;
        }
    }
    return 0;
}

/* The program's own file. */
static char *tm_redo_exe(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        return strdup(buf);
    }
    const char *fn = (const char *)getauxval(AT_EXECFN);
    return fn ? strdup(fn) : NULL;
}

/* Scans every -fgnu-tm object into r. */
static void tm_redo_scan_all(unsigned mode, tm_redo_result *r)
{
    tm_redo_objs objs = {0};
    dl_iterate_phdr(tm_redo_collect, &objs);
    for (size_t i = 0; i < objs.n; i++) {
        tm_redo_obj *o = &objs.v[i];
        char *path = o->path ? (char *)o->path : tm_redo_exe();
        if (!path) {
            tm_redo_obj prog = {.path = "the program"};
            tm_redo_found(&prog, mode, r, TM_REDO_UNCHECKED, NULL, 0, NULL);
            continue;
        }
        bool program = !o->path;
        if (tm_redo_obj_open(o, path)) {
            if (o->needs_itm && !o->has_symtab)
                tm_redo_found(o, mode, r, TM_REDO_UNCHECKED, NULL, 0, NULL);
            else if (o->needs_itm)
                tm_redo_scan(o, mode, r);
            tm_redo_obj_close(o);
        } else if (program) { /* a library we cannot read is not ours to judge; the program is */
            tm_redo_obj prog = {.path = path};
            tm_redo_found(&prog, mode, r, TM_REDO_UNCHECKED, NULL, 0, NULL);
        }
        free(path);
    }
    free(objs.v);
}

static __attribute__((noreturn)) void tm_redo_refuse(const tm_redo_result *r)
{
    char msg[1400];
    int n = snprintf(msg, sizeof msg,
                     "tmkit: TMKIT_ALGO=%s refused: %u redo-log hazard%s in the transaction "
                     "clones (first: %s), code a redo log runs on memory as it was before the "
                     "transaction; `tmkit check %s` lists them with their source lines. Use a "
                     "write-through algorithm (the default, gl_wt, orec_eager), or "
                     "TMKIT_REDO_CHECK=off to run it anyway (docs/algorithms.md, \"Redo logs and "
                     "programs written for libitm\")\n",
                     tm_config.algo->name, r->acted, r->acted == 1 ? "" : "s", r->first, r->path);
    if (n > (int)sizeof msg - 1)
        n = (int)sizeof msg - 1;
    ssize_t w = write(2, msg, (size_t)n);
    (void)w;
    _exit(2);
}

void tm_redo_check(void)
{
    const tm_algo *a = tm_config.algo;
    bool redo = a->disp && (a->disp->mode == TM_MODE_NOREC || a->disp->mode == TM_MODE_OREC_LAZY);
    bool adaptive_all = a->managed && tm_config.adaptive_modes == TM_ADAPTIVE_ALL;
    if ((!redo && !adaptive_all) || tm_config.redo_check == TM_REDO_CHECK_OFF)
        return;
    tm_redo_result r = {0};
    tm_redo_scan_all(tm_config.redo_check, &r);
    if (!r.acted)
        return;
    if (redo)
        tm_redo_refuse(&r);
    tm_config.adaptive_modes = TM_ADAPTIVE_WRITE_THROUGH;
    snprintf(tm_redo_fallback, sizeof tm_redo_fallback,
             "TMKIT_ADAPTIVE_MODES=all ran write-through (without NOrec and orec_lazy): %u "
             "redo-log hazard%s in the transaction clones (first: %s; TMKIT_REDO_CHECK=off "
             "keeps the redo-log modes)",
             r.acted, r.acted == 1 ? "" : "s", r.first);
}
