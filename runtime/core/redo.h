/* The redo-log check: before a redo-log algorithm runs (TMKIT_ALGO=norec or orec_lazy,
 * TMKIT_ADAPTIVE_MODES=all), the transaction clones of the program and of the -fgnu-tm libraries
 * it loaded are scanned for what a redo log gets wrong (docs/algorithms.md, "Redo logs and
 * programs written for libitm"; tools/tmkit_cli/check/scan.py is the same scan on objdump's
 * output, with source lines). redo_check.c decides, redo_scan.c reads the machine code
 * (x86_insn.c), redo_elf.c the objects' symbols. */
#ifndef TMKIT_REDO_H
#define TMKIT_REDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a finding is; the scan's names in tmkit check are in the comments. */
enum tm_redo_kind {
    TM_REDO_INDIRECT,    /* indirect: a call through a transaction_pure function pointer */
    TM_REDO_COPY,        /* inline-copy: rep movs outside the clone's frame */
    TM_REDO_FILL,        /* inline-fill: rep stos outside the clone's frame */
    TM_REDO_UNDECODED,   /* bytes of a clone the decoder does not know: cannot tell */
    TM_REDO_UNCHECKED,   /* a -fgnu-tm object without a symbol table: its clones cannot be found */
    TM_REDO_EXTERN,      /* extern: a call into another object's code declared transaction_pure */
    TM_REDO_PURE,        /* pure: a call of the program's own transaction_pure function */
    TM_REDO_N_KINDS,
};
/* The kinds TMKIT_REDO_CHECK=auto acts on (those before TM_REDO_EXTERN); strict: all. */
#define TM_REDO_AUTO_KINDS TM_REDO_EXTERN

/* TMKIT_REDO_CHECK, in the order of its words in the table (config.c). */
enum tm_redo_check_mode {
    TM_REDO_CHECK_AUTO,   /* scan; refuse (adaptive: leave the redo-log modes out) on the above */
    TM_REDO_CHECK_STRICT, /* the same, also on transaction_pure calls */
    TM_REDO_CHECK_OFF,    /* no scan: the user answers for the program */
};

/* One function symbol of an object: [lo, hi) at link-time addresses. */
typedef struct tm_redo_sym {
    uintptr_t lo, hi;
    const char *name;
} tm_redo_sym;

/* A GOT slot with a dynamic relocation: the PLT stub or `call *slot(%rip)` that reads it calls
 * `name`, defined in this object (own) or another. */
typedef struct tm_redo_slot {
    uintptr_t got;
    const char *name;
    bool own;
} tm_redo_slot;

/* A loaded object, read from its file (redo_elf.c). */
typedef struct tm_redo_obj {
    const char *path;
    uintptr_t bias;             /* load address minus link-time address */
    const uint8_t *map;         /* the file, mapped read-only */
    size_t size;
    bool needs_itm;             /* built with -fgnu-tm: DT_NEEDED libitm.so.1 */
    bool has_symtab;
    tm_redo_sym *funcs;         /* .symtab's functions, sorted by address */
    size_t nfuncs;
    tm_redo_slot *slots;        /* sorted by slot address */
    size_t nslots;
    uintptr_t plt[3][2];        /* .plt, .plt.sec, .plt.got: [lo, hi) */
    uintptr_t text[4][2];       /* executable PT_LOAD segments (link-time), from the loader */
    unsigned ntext;
} tm_redo_obj;

/* What the scan found; `first` describes the first finding the mode acts on. */
typedef struct tm_redo_result {
    unsigned count[TM_REDO_N_KINDS];
    unsigned acted;
    char first[384];
    char path[256]; /* the object of the first */
} tm_redo_result;

/* redo_elf.c: maps path and reads its tables (false: not an ELF object we can read); frees. */
bool tm_redo_obj_open(tm_redo_obj *o, const char *path) __attribute__((visibility("hidden")));
void tm_redo_obj_close(tm_redo_obj *o) __attribute__((visibility("hidden")));
/* The function symbol starting at addr (link-time), or NULL; the slot at got, or NULL. */
const tm_redo_sym *tm_redo_func_at(const tm_redo_obj *o, uintptr_t addr)
    __attribute__((visibility("hidden")));
const tm_redo_slot *tm_redo_slot_at(const tm_redo_obj *o, uintptr_t got)
    __attribute__((visibility("hidden")));

/* redo_scan.c: scans o's clones into r under mode (enum tm_redo_check_mode). */
void tm_redo_scan(const tm_redo_obj *o, unsigned mode, tm_redo_result *r)
    __attribute__((visibility("hidden")));
/* A finding of kind k in o: counts it, and describes it in r->first if it is the first acted on. */
void tm_redo_found(const tm_redo_obj *o, unsigned mode, tm_redo_result *r, enum tm_redo_kind k,
                   const char *clone, uintptr_t at, const char *detail)
    __attribute__((visibility("hidden")));

/* redo_check.c: at start-up (config.c), after the configuration is read. */
void tm_redo_check(void) __attribute__((visibility("hidden")));
/* Why this process runs TMKIT_ADAPTIVE_MODES=all write-through, or "" (the profile says it:
 * stats/stats_report.c). */
extern char tm_redo_fallback[640] __attribute__((visibility("hidden")));

#endif
