/* fuzz_config.c — tmkit's configuration parser (runtime/core/config.c): the TMKIT_* variables of
 * an environment, parsed by the library's own constructor code through its one table.
 *
 * config.c is compiled into this file so that its static parser can run once per input against
 * an environment built from the input (one NAME=value per line), with its exit redirected: a
 * rejected configuration writes its message and calls _exit(2), which here returns to the
 * harness (longjmp) with the message kept. The algorithms and the statistics' set-up come from
 * the hooks as in the library (a list of algorithm names; the shared-memory name rule of shm.h).
 * Checks: a configuration that parses gave every TMKIT_* number as digits only, in range, and
 * every word from its list; a rejected one gets one message line of at most 1024 bytes that
 * names the variable, ends in a newline and says what is valid.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jmp_buf fuzz_fail;
static char fuzz_msg[4096];
static size_t fuzz_msg_len;

static __attribute__((noreturn)) void fuzz_exit(int code)
{
    (void)code;
    longjmp(fuzz_fail, 1);
}

static ssize_t fuzz_write(int fd, const void *p, size_t n)
{
    (void)fd;
    if (n > sizeof fuzz_msg)
        abort(); /* the message buffer is 1024 bytes: a longer write read past it */
    memcpy(fuzz_msg, p, n);
    fuzz_msg_len = n;
    return (ssize_t)n;
}

#define _exit fuzz_exit
#define write fuzz_write
#include "core/config.c"
#undef _exit
#undef write

#include "stats/shm.h"

static const tm_algo fuzz_algos[] = {{.name = "serialirr"}, {.name = "gl_wt"}, {.name = "norec"},
                                     {.name = "orec_lazy"}, {.name = "adaptive"}};
static const tm_algo *const fuzz_algo_list[] = {&fuzz_algos[0], &fuzz_algos[1], &fuzz_algos[2],
                                                &fuzz_algos[3], &fuzz_algos[4], NULL};

static void fuzz_stats_configure(const char *dest) { (void)dest; }
/* The redo-log hazard scan that the configuration starts (core/redo_check.c) reads the program's
 * ELF files: not the parser's business. */
void tm_redo_check(void) {}
static const char *fuzz_shm_configure(const char *name)
{
    return tm_shm_name_valid(name) ? NULL : TM_SHM_NAME_RULE;
}

/* Filled in statically: config.c's constructor also runs once when the harness starts. */
tm_hooks_t tm_hooks = {.algos = fuzz_algo_list, .stats_configure = fuzz_stats_configure,
                       .stats_shm_configure = fuzz_shm_configure};

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the environment: the input's lines (a NUL ends an entry early, as it would in C) */
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    size_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += text[i] == '\n';
    char **env = calloc(n + 1, sizeof *env);
    size_t k = 0;
    for (char *line = text, *nl; line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        env[k++] = line;
    }
    char **saved = environ;
    environ = env;
    fuzz_msg_len = 0;
    memset(&tm_config, 0, sizeof tm_config);
    if (setjmp(fuzz_fail) == 0) {
        tm_config_init();
        environ = saved;
        /* accepted: every TMKIT_ number was digits only and in range, every word listed (the
         * last of a name's entries is the one that counts) */
        for (size_t j = 0; j < TM_CFG_N; j++) {
            const tm_cfg_entry *e = &tm_cfg_table[j];
            size_t nl = strlen(e->name);
            const char *v = NULL;
            for (size_t i = 0; i < k; i++)
                if (!strncmp(env[i], e->name, nl) && (env[i][nl] == '=' || !env[i][nl]))
                    v = env[i][nl] ? env[i] + nl + 1 : "";
            if (!v)
                continue;
            if (e->type == TM_CFG_UINT && (!all_digits(v) || *e->u32 < e->min || *e->u32 > e->max))
                abort();
            if (e->type == TM_CFG_WORDS && strcmp(e->words[*e->u32], v))
                abort();
        }
    } else {
        environ = saved;
        if (fuzz_msg_len == 0 || fuzz_msg_len > 1024 || fuzz_msg[fuzz_msg_len - 1] != '\n' ||
            memchr(fuzz_msg, '\n', fuzz_msg_len) != fuzz_msg + fuzz_msg_len - 1 ||
            strncmp(fuzz_msg, "tmkit: ", 7) || !memmem(fuzz_msg, fuzz_msg_len, "; valid: ", 9))
            abort();
    }
    free(env);
    free(text);
    return 0;
}
