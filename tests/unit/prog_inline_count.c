/* A preloaded library for unit.plugin (test_plugin.sh): counts the program's calls of the 8-byte
 * read and write barriers, passes each on to the runtime, and prints the counts at exit. With
 * the plugin, a run in a mode it inlines should make almost none. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

static unsigned long reads, writes;
static uint64_t (*next_read)(const uint64_t *);
static void (*next_write)(uint64_t *, uint64_t);

uint64_t _ITM_RU8(const uint64_t *p)
{
    if (!next_read)
        next_read = (uint64_t (*)(const uint64_t *))dlsym(RTLD_NEXT, "_ITM_RU8");
    __atomic_fetch_add(&reads, 1, __ATOMIC_RELAXED);
    return next_read(p);
}

void _ITM_WU8(uint64_t *p, uint64_t v)
{
    if (!next_write)
        next_write = (void (*)(uint64_t *, uint64_t))dlsym(RTLD_NEXT, "_ITM_WU8");
    __atomic_fetch_add(&writes, 1, __ATOMIC_RELAXED);
    next_write(p, v);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "barrier_calls reads=%lu writes=%lu\n", reads, writes);
}
