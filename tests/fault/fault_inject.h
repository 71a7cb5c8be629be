/* Fault injection for the fault tests (docs/reliability.md, "Faults"): this program's own
 * definitions of malloc, calloc, realloc, free, mmap, open, posix_fallocate and pthread_create,
 * which the runtime's calls reach because the program exports them (-rdynamic) and a
 * program's symbols come first in the dynamic linker's search. The runtime has no test hooks.
 *
 * Allocations fail only in an armed thread, counted from the arming:
 *   fault_arm(nth, every)  the nth allocation call from now fails (1 = the next one); with
 *                          `every`, the nth and every later one.
 *   fault_disarm()         stops failing and counting.
 * The environment sets a whole-process plan that starts armed in every thread, for faults
 * that must hit the runtime's start-up: TMFAULT_MALLOC=N (the Nth call fails) or N+ (the Nth
 * and every later one), TMFAULT_MMAP=shared (every MAP_SHARED mapping fails with ENOMEM),
 * TMFAULT_OPEN=shm (opening a /dev/shm/tmkit.* file fails with EROFS), TMFAULT_FALLOCATE=1
 * (posix_fallocate says ENOSPC).
 *
 * Tracking, for the leak checks: a thread that called fault_track(1) records every block it
 * allocates in a table until fault_track(0); a free from any thread removes it. fault_live()
 * is the number of recorded blocks not freed yet, fi_added the number recorded.
 */
#ifndef TMKIT_FAULT_INJECT_H
#define TMKIT_FAULT_INJECT_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static __thread int fi_armed;      /* failing allocations in this thread */
static __thread long fi_count;     /* allocation calls since the arming */
static __thread long fi_nth;       /* the first call that fails */
static __thread int fi_every;      /* and every later one */
static __thread int fi_tracking;   /* record this thread's blocks */
static _Atomic long fi_failed;     /* allocation calls failed, all threads */
static int fi_env_read;            /* TMFAULT_MALLOC read (plain: read in the first call) */
static long fi_env_nth;
static int fi_env_every;

static __attribute__((unused)) void fault_arm(long nth, int every)
{
    fi_count = 0;
    fi_nth = nth;
    fi_every = every;
    fi_armed = 1;
}

static __attribute__((unused)) void fault_disarm(void) { fi_armed = 0; }
static __attribute__((unused)) long fault_failed(void) { return atomic_load(&fi_failed); }

/* Does this allocation call fail? */
static int fi_fail(void)
{
    if (!fi_env_read) {
        const char *s = getenv("TMFAULT_MALLOC"); /* getenv does not allocate */
        if (s && *s) {
            fi_env_nth = strtol(s, NULL, 10);
            fi_env_every = strchr(s, '+') != NULL;
        }
        fi_env_read = 1;
    }
    long n;
    if (fi_armed) {
        n = ++fi_count;
        if (n == fi_nth || (fi_every && n > fi_nth))
            goto fail;
        return 0;
    }
    if (fi_env_nth <= 0)
        return 0;
    static _Atomic long env_count;
    n = atomic_fetch_add(&env_count, 1) + 1;
    if (n == fi_env_nth || (fi_env_every && n > fi_env_nth))
        goto fail;
    return 0;
fail:
    atomic_fetch_add(&fi_failed, 1);
    return 1;
}

/* ---- the tracking table: open addressing, 0 empty, 1 a removed entry -------------------- */
#define FI_SLOTS (1u << 16)
static _Atomic uintptr_t fi_table[FI_SLOTS];
static _Atomic long fi_live;
static _Atomic long fi_added; /* blocks recorded so far */

static void fi_track_add(void *p)
{
    if (!p || !fi_tracking)
        return;
    uintptr_t h = ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 48;
    for (unsigned i = 0; i < FI_SLOTS; i++) {
        _Atomic uintptr_t *s = &fi_table[(h + i) & (FI_SLOTS - 1)];
        uintptr_t cur = atomic_load(s);
        if ((cur == 0 || cur == 1) && atomic_compare_exchange_strong(s, &cur, (uintptr_t)p)) {
            atomic_fetch_add(&fi_live, 1);
            atomic_fetch_add(&fi_added, 1);
            return;
        }
    }
    abort(); /* the table is full: a test that tracks far too much */
}

static void fi_track_remove(void *p)
{
    if (!p || atomic_load(&fi_live) == 0)
        return;
    uintptr_t h = ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 48;
    for (unsigned i = 0; i < FI_SLOTS; i++) {
        _Atomic uintptr_t *s = &fi_table[(h + i) & (FI_SLOTS - 1)];
        uintptr_t cur = atomic_load(s);
        if (cur == 0)
            return;
        if (cur == (uintptr_t)p && atomic_compare_exchange_strong(s, &cur, 1)) {
            atomic_fetch_sub(&fi_live, 1);
            return;
        }
    }
}

static __attribute__((unused)) void fault_track(int on) { fi_tracking = on; }
static __attribute__((unused)) long fault_live(void) { return atomic_load(&fi_live); }

/* ---- the interposed calls -------------------------------------------------------------- */
void *malloc(size_t n)
{
    if (fi_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = __libc_malloc(n);
    fi_track_add(p);
    return p;
}

void *calloc(size_t n, size_t size)
{
    if (fi_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = __libc_calloc(n, size);
    fi_track_add(p);
    return p;
}

void *realloc(void *old, size_t n)
{
    if (fi_fail()) {
        errno = ENOMEM;
        return NULL; /* the old block stays */
    }
    void *p = __libc_realloc(old, n);
    if (p || n == 0) {
        fi_track_remove(old);
        fi_track_add(p);
    }
    return p;
}

void free(void *p)
{
    fi_track_remove(p);
    __libc_free(p);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    const char *plan = getenv("TMFAULT_MMAP");
    if (plan && strcmp(plan, "shared") == 0 && (flags & MAP_SHARED)) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    return real(addr, len, prot, flags, fd, off);
}

int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    const char *plan = getenv("TMFAULT_OPEN");
    if (plan && strcmp(plan, "shm") == 0 && strncmp(path, "/dev/shm/tmkit.", 15) == 0) {
        errno = EROFS;
        return -1;
    }
    if (!real)
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return real(path, flags, mode);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
    static int (*real)(int, off_t, off_t);
    const char *plan = getenv("TMFAULT_FALLOCATE");
    if (plan && *plan == '1')
        return ENOSPC;
    if (!real)
        real = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
    return real(fd, off, len);
}

/* pthread_create: calls from the runtime (libitm.so.1) are counted and refused (EAGAIN); the
 * program's own fail when fault_thread_fail_next is set (once). */
static _Atomic long fi_runtime_creates;
static _Atomic int fault_thread_fail_next;

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    Dl_info info;
    if (dladdr(__builtin_return_address(0), &info) && info.dli_fname &&
        strstr(info.dli_fname, "libitm.so")) {
        atomic_fetch_add(&fi_runtime_creates, 1);
        return EAGAIN;
    }
    if (atomic_exchange(&fault_thread_fail_next, 0))
        return EAGAIN;
    if (!real)
        real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
            RTLD_NEXT, "pthread_create");
    return real(t, attr, fn, arg);
}

#endif
