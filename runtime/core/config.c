/* Configuration: one table of TMKIT_* variables (name, type, range, default), parsed strictly
 * when the library loads. Anything unknown or malformed stops the program with a message that
 * lists what is accepted: a typo must never silently run the wrong algorithm. The algorithms to
 * choose from and the statistics' set-up come from the layers above through hooks (hooks.h),
 * which they fill in before this runs (TM_INIT_HOOKS, then TM_INIT_CONFIG). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "hooks.h"
#include "redo.h"
#include "tx.h"

tm_config_t tm_config;

typedef enum { TM_CFG_ALGO, TM_CFG_UINT, TM_CFG_WORDS, TM_CFG_STATS,
               TM_CFG_STATS_SHM } tm_cfg_type;

typedef struct tm_cfg_entry {
    const char *name;
    tm_cfg_type type;
    const char *dflt;
    unsigned long min, max;      /* TM_CFG_UINT */
    const char *words[4];        /* TM_CFG_WORDS: the accepted words, NULL-terminated */
    uint32_t *u32;               /* TM_CFG_UINT: the value; TM_CFG_WORDS: the word's index */
    const char *help;
} tm_cfg_entry;

static const tm_cfg_entry tm_cfg_table[] = {
    {"TMKIT_ALGO", TM_CFG_ALGO, NULL, 0, 0, {NULL}, NULL,
     "transaction algorithm (see `tmkit algos`)"},
    {"TMKIT_MAX_RETRIES", TM_CFG_UINT, "64", 1, 1000000, {NULL}, &tm_config.max_retries,
     "failed attempts before a transaction runs serially"},
    {"TMKIT_PRIVATIZATION", TM_CFG_WORDS, "auto", 0, 0, {"auto", "quiesce", "off"},
     &tm_config.privatization,
     "privatization safety: writers wait for concurrent transactions where the algorithm needs "
     "it (auto: orec algorithms; NOrec and gl_wt restart doomed readers that fault), always "
     "(quiesce) or never (off)"},
    {"TMKIT_SERIAL_WAIT", TM_CFG_WORDS, "sleep", 0, 0, {"sleep", "block"}, &tm_config.serial_wait,
     "a thread waiting for the serial lock first sleeps briefly without registering, so the "
     "holder runs undisturbed (sleep: the lock changes hands about once per sleep), or "
     "registers at once to be woken by the unlock (block: lower hand-off latency, more "
     "hand-offs)"},
    {"TMKIT_BIAS", TM_CFG_WORDS, "rotate", 0, 0, {"rotate", "single"}, &tm_config.bias,
     "who runs transactions with no lock at all: the only thread that transacts, or also a "
     "thread that has run many serial transactions in a row while the others wait or idle "
     "(rotate: it gives the bias back to the next thread that takes the serial lock), or only "
     "the only transacting thread (single)"},
    {"TMKIT_HTM", TM_CFG_WORDS, "auto", 0, 0, {"auto", "off", "simulate"}, &tm_config.htm,
     "hardware transactions: where the CPU has Intel RTM, adaptive may choose its htm mode, "
     "which runs each transaction as one and falls back on the serial lock after a few aborts "
     "(auto), or never (off); simulate, for tests on any CPU: the hardware path runs but "
     "every try aborts, a conflict then a capacity abort, and the attempt takes the lock"},
    {"TMKIT_ADAPTIVE_MODES", TM_CFG_WORDS, "write-through", 0, 0, {"write-through", "all"},
     &tm_config.adaptive_modes,
     "the modes adaptive may choose: write-through (gl_wt, serial, orec_eager: a transaction's "
     "own writes are in memory at once, as under GCC's libitm) or all (also the redo-log "
     "algorithms NOrec and orec_lazy, for programs that never read or write memory the "
     "transaction wrote from plain or transaction_pure code; docs/algorithms.md)"},
    {"TMKIT_REDO_CHECK", TM_CFG_WORDS, "auto", 0, 0, {"auto", "strict", "off"},
     &tm_config.redo_check,
     "before a redo-log algorithm may run (TMKIT_ALGO=norec or orec_lazy, "
     "TMKIT_ADAPTIVE_MODES=all), scan the transaction clones of the program and its -fgnu-tm "
     "libraries, and refuse norec/orec_lazy (run adaptive write-through) on what a redo log "
     "gets wrong: calls through transaction_pure function pointers, inlined copies and fills "
     "(auto), also calls of transaction_pure functions (strict), or run without the scan, "
     "answering for the redo log's rules yourself (off; redo_check.c, docs/algorithms.md)"},
    {"TMKIT_STATS", TM_CFG_STATS, NULL, 0, 0, {NULL}, NULL,
     "per-site statistics at exit: a JSON file path, or - for a table on stderr"},
    {"TMKIT_STATS_STRIDE", TM_CFG_UINT, "0", 0, 65536, {NULL}, &tm_config.stats_stride,
     "statistics: time about 1 attempt in N per site (0: adapt N to the transactions' "
     "length)"},
    {"TMKIT_STATS_SHM", TM_CFG_STATS_SHM, NULL, 0, 0, {NULL}, NULL,
     "live per-site statistics in shared memory /dev/shm/tmkit.NAME, summed over processes"},
#ifdef TMKIT_COUNT_LINES
    {"TMKIT_COUNT_LINES", TM_CFG_WORDS, "0", 0, 0, {"0", "1"}, &tm_lines_print,
     "1: print the shared cache lines written, by kind and phase, to stderr at exit "
     "(the -DTMKIT_COUNT_LINES=ON build only)"},
#endif
};
#define TM_CFG_N (sizeof tm_cfg_table / sizeof tm_cfg_table[0])

/* The message names the variable and shows its value (a long one cut at 200 bytes, so that
 * the list of valid values always fits), on one line of at most sizeof msg bytes. */
static __attribute__((noreturn)) void tm_cfg_fail(const char *fmt, const char *a, const char *b,
                                                  const char *valid)
{
    char msg[1024], shown[208];
    if (strlen(b) > 200) {
        snprintf(shown, sizeof shown, "%.200s...", b);
        b = shown;
    }
    size_t n = 0;
    int k = snprintf(msg, sizeof msg, "tmkit: ");
    n += k > 0 ? (size_t)k : 0;
    k = snprintf(msg + n, sizeof msg - n, fmt, a, b);
    n += k > 0 ? (size_t)k : 0;
    if (n > sizeof msg - 2) /* snprintf answers the length it wanted, not what it wrote */
        n = sizeof msg - 2;
    k = snprintf(msg + n, sizeof msg - n, "; valid: %s", valid);
    n += k > 0 ? (size_t)k : 0;
    if (n > sizeof msg - 2)
        n = sizeof msg - 2;
    msg[n++] = '\n';
    ssize_t r = write(2, msg, n);
    (void)r;
    _exit(2);
}

/* Values people give a switch: 0/1, yes/no, on/off, true/false (any case). */
static bool tm_cfg_switch_word(const char *v)
{
    static const char *const words[] = {"0", "1", "yes", "no", "on", "off", "true", "false", NULL};
    for (int i = 0; words[i]; i++)
        if (!strcasecmp(v, words[i]))
            return true;
    return false;
}

static void tm_cfg_apply(const tm_cfg_entry *e, const char *value)
{
    char valid[512];
    size_t used = 0;
    valid[0] = 0;
    switch (e->type) {
    case TM_CFG_ALGO: {
        const tm_algo *const *algos = tm_hooks.algos; /* algo/registry.c's list */
        for (const tm_algo *const *a = algos; *a; a++)
            if (value && strcmp(value, (*a)->name) == 0) {
                tm_config.algo = *a;
                return;
            }
        if (!value) {
            tm_config.algo = algos[0];
            return;
        }
        for (const tm_algo *const *a = algos; *a; a++)
            used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s",
                                     a == algos ? "" : ", ", (*a)->name);
        tm_cfg_fail("%s='%s' is not a known algorithm", e->name, value, valid);
    }
    case TM_CFG_UINT: {
        const char *v = value ? value : e->dflt;
        char *end;
        errno = 0;
        unsigned long x = strtoul(v, &end, 10);
        snprintf(valid, sizeof valid, "an integer from %lu to %lu", e->min, e->max);
        /* digits only: strtoul alone would also take leading white space and a sign */
        if (*v < '0' || *v > '9' || errno || *end || x < e->min || x > e->max)
            tm_cfg_fail("%s='%s' is out of range or not a number", e->name, v, valid);
        *e->u32 = (uint32_t)x;
        return;
    }
    case TM_CFG_WORDS: {
        const char *v = value ? value : e->dflt;
        for (uint32_t i = 0; e->words[i]; i++)
            if (strcmp(v, e->words[i]) == 0) {
                *e->u32 = i;
                return;
            }
        for (uint32_t i = 0; e->words[i]; i++)
            used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "",
                                     e->words[i]);
        tm_cfg_fail("%s='%s' is not valid", e->name, v, valid);
    }
    case TM_CFG_STATS:
        if (!value)
            return;
        if (!*value)
            tm_cfg_fail("%s='%s' is empty", e->name, value, "a file path for JSON, or - for a table");
        /* A switch's value where a path belongs: "TMKIT_STATS=1" wrote a profile to a file
         * named 1 in whatever directory the program ran in (such a name is still reachable as
         * ./1). */
        if (tm_cfg_switch_word(value))
            tm_cfg_fail("%s='%s' looks like a switch, not a file path", e->name, value,
                        "a file path for JSON (./NAME for a file of that name), or - for a table");
        tm_hooks.stats_configure(value);
        return;
    case TM_CFG_STATS_SHM: {
        if (!value)
            return;
        const char *rule = tm_hooks.stats_shm_configure(value); /* NULL: valid, set up */
        if (rule)
            tm_cfg_fail("%s='%s' is not a valid segment name", e->name, value, rule);
        tm_hooks.stats_configure(NULL);
        return;
    }
    }
}

/* The table as text, one variable a line: NAME<TAB>VALUES<TAB>DEFAULT<TAB>HELP, where VALUES is
 * MIN-MAX, the words joined by |, the algorithms' names, PATH|- or NAME. `tmkit-info --config`
 * prints it; tmkit(7) is generated from it (tools/mangen/env_page.py), so the manual lists
 * exactly what this parser accepts. */
void tm_config_describe(FILE *out)
{
    for (size_t i = 0; i < TM_CFG_N; i++) {
        const tm_cfg_entry *e = &tm_cfg_table[i];
        fprintf(out, "%s\t", e->name);
        switch (e->type) {
        case TM_CFG_ALGO:
            for (const tm_algo *const *a = tm_hooks.algos; *a; a++)
                fprintf(out, "%s%s", a == tm_hooks.algos ? "" : "|", (*a)->name);
            break;
        case TM_CFG_UINT:
            fprintf(out, "%lu-%lu", e->min, e->max);
            break;
        case TM_CFG_WORDS:
            for (int w = 0; w < 4 && e->words[w]; w++)
                fprintf(out, "%s%s", w ? "|" : "", e->words[w]);
            break;
        case TM_CFG_STATS:
            fputs("PATH|-", out);
            break;
        case TM_CFG_STATS_SHM:
            fputs("NAME", out);
            break;
        }
        fprintf(out, "\t%s\t%s\n",
                e->type == TM_CFG_ALGO ? tm_hooks.algos[0]->name : e->dflt ? e->dflt : "",
                e->help);
    }
}

extern char **environ;

/* Runs before any transaction can start (library constructors run before the program's), after
 * the upper layers filled in the hooks it uses (hooks.h: the algorithms, the statistics). */
__attribute__((constructor(TM_INIT_CONFIG))) static void tm_config_init(void)
{
    const char *values[TM_CFG_N] = {0};
    for (char **env = environ; env && *env; env++) {
        if (strncmp(*env, "TMKIT_", 6) != 0)
            continue;
        const char *eq = strchr(*env, '=');
        size_t len = eq ? (size_t)(eq - *env) : strlen(*env);
        size_t i;
        for (i = 0; i < TM_CFG_N; i++)
            if (strlen(tm_cfg_table[i].name) == len && strncmp(*env, tm_cfg_table[i].name, len) == 0)
                break;
        if (i == TM_CFG_N) {
            char name[128], valid[512];
            size_t used = 0;
            snprintf(name, sizeof name, "%.*s", (int)len, *env);
            for (size_t j = 0; j < TM_CFG_N; j++)
                used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", j ? ", " : "",
                                         tm_cfg_table[j].name);
            tm_cfg_fail("unknown configuration variable %s%s", name, "", valid);
        }
        values[i] = eq ? eq + 1 : "";
    }
    for (size_t i = 0; i < TM_CFG_N; i++)
        tm_cfg_apply(&tm_cfg_table[i], values[i]);
    tm_redo_check(); /* may stop the program, or leave the redo-log modes out of adaptive's */
}
