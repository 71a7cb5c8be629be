/* prime: LockSTM's showcase for lock groups (include/tmkit/group.h), after the thesis's `prime`
 * benchmark. Worker threads test the --count numbers from --from on for primality (trial
 * division: from 10^9 on, a prime costs ~16,000 divisions, tens of microseconds), in blocks taken
 * from a shared cursor; each test and the record of a prime (a bit in a shared bitmap) is one critical
 * section, and after each block (512 numbers, about a millisecond of work) a worker adds its
 * counts to the shared progress (tested, found, largest). A status thread prints the progress
 * every --status-us microseconds (default 1000): --lines lines, each its own write(2) to --out
 * (default /dev/null), and then waits --print-us microseconds (default 300) for the device, as a
 * write to a terminal or a pipe whose reader is behind blocks until it drains, with the
 * processor free. With --datasync 1 the print also ends with an fdatasync(2) of the file (a
 * progress file that survives a crash; 3.5-6.5 ms on this VM's disk, longer than a block).
 * Until 2026-11-26 the print cost only its writes to /dev/null (~10 us every ~300 us) and the
 * progress was updated every 64 numbers: serializing the print then cost the workers a few
 * percent, and `tm` ran as fast as `group`.
 * The same program, synchronized three ways (--sync):
 *   lock   one mutex for every critical section and the print (the lock-based original);
 *   tm     each critical section a transaction; the print a relaxed transaction, which goes
 *          serial-irrevocable at its first write(2) and so stops every transaction meanwhile;
 *   group  the same transactions, but the print holds the progress's group exclusively as plain
 *          code, and only the progress updates (the transactions that share data with it)
 *          enter the group: the tests and records never wait for the print.
 * (lock is the build prime-lock; tm and group are the -fgnu-tm build prime-tm.)
 * Output: one line `bench=prime sync=S threads=N seconds=W cpu_seconds=C prints=P primes=K ok=1`;
 * ok=1 when the bitmap and the progress both hold exactly the primes a sieve finds. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifndef PRIME_LOCK
#include <tmkit.h>
#endif

#define BLOCK 512 /* numbers a worker takes at once (a multiple of 64: no bitmap word shared) */

static long from = 1000000000, count = 100000, status_us = 1000, print_us = 300, lines = 16,
            threads = 2, dsync;
static long limit; /* from + count */
static const char *sync_name = "tm", *out_path = "/dev/null";
static uint64_t *bitmap;
static struct { long tested, found, largest; } progress;
static long cursor, prints;
static int out_fd, done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#ifndef PRIME_LOCK
static tm_group_t progress_group = TM_GROUP_INITIALIZER;
#endif
enum { SYNC_LOCK, SYNC_TM, SYNC_GROUP } sync_kind;

__attribute__((transaction_safe)) static int is_prime(long n)
{
    if (n < 4)
        return n >= 2;
    if (n % 2 == 0)
        return 0;
    for (long d = 3; d * d <= n; d += 2)
        if (n % d == 0)
            return 0;
    return 1;
}

/* One critical section: test n, record it if prime. */
static int test_one(long n)
{
    int p;
    if (sync_kind == SYNC_LOCK) {
        pthread_mutex_lock(&lock);
        if ((p = is_prime(n)))
            bitmap[(n - from) / 64] |= 1ull << ((n - from) % 64);
        pthread_mutex_unlock(&lock);
        return p;
    }
#ifndef PRIME_LOCK
    __transaction_atomic {
        if ((p = is_prime(n)))
            bitmap[(n - from) / 64] |= 1ull << ((n - from) % 64);
    }
#endif
    return p;
}

static void add_progress(long tested, long found, long largest)
{
    if (sync_kind == SYNC_LOCK) {
        pthread_mutex_lock(&lock);
        progress.tested += tested;
        progress.found += found;
        if (largest > progress.largest)
            progress.largest = largest;
        pthread_mutex_unlock(&lock);
        return;
    }
#ifndef PRIME_LOCK
    if (sync_kind == SYNC_GROUP)
        tm_group_enter(&progress_group);
    __transaction_atomic {
        progress.tested += tested;
        progress.found += found;
        if (largest > progress.largest)
            progress.largest = largest;
    }
    if (sync_kind == SYNC_GROUP)
        tm_group_exit(&progress_group);
#endif
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        long lo = __atomic_fetch_add(&cursor, BLOCK, __ATOMIC_RELAXED);
        if (lo >= limit)
            return NULL;
        long hi = lo + BLOCK < limit ? lo + BLOCK : limit;
        /* blocks start at from + k * BLOCK: no bitmap word is shared between blocks */
        long found = 0, largest = 0;
        for (long n = lo; n < hi; n++)
            if (test_one(n)) {
                found++;
                largest = n;
            }
        add_progress(hi - lo, found, largest);
    }
}

/* The print: --lines write(2) calls of the progress, then the device's --print-us. */
__attribute__((transaction_pure)) static void print_lines(long tested, long found, long largest)
{
    char buf[128];
    for (long i = 0; i < lines; i++) {
        int len = snprintf(buf, sizeof buf, "[%ld] tested %ld, %ld primes, largest %ld\n", i,
                           tested, found, largest);
        if (write(out_fd, buf, (size_t)len) != len)
            abort();
    }
    if (dsync && fdatasync(out_fd) != 0) /* --datasync 1 */
        abort();
    if (print_us) {
        struct timespec ts = {print_us / 1000000, print_us % 1000000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}

static void print_progress(void)
{
    if (sync_kind == SYNC_LOCK) {
        pthread_mutex_lock(&lock);
        print_lines(progress.tested, progress.found, progress.largest);
        pthread_mutex_unlock(&lock);
        return;
    }
#ifndef PRIME_LOCK
    if (sync_kind == SYNC_GROUP) {
        tm_group_lock(&progress_group);
        print_lines(progress.tested, progress.found, progress.largest);
        tm_group_unlock(&progress_group);
        return;
    }
    __transaction_relaxed {
        char buf[8];
        if (write(out_fd, buf, 0) != 0) /* I/O: irrevocable from here on */
            abort();
        print_lines(progress.tested, progress.found, progress.largest);
    }
#endif
}

static void *status(void *arg)
{
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1UL); /* sleeps as long as asked, not up to 50 us more */
    struct timespec ts = {status_us / 1000000, status_us % 1000000 * 1000};
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        nanosleep(&ts, NULL);
        print_progress();
        prints++;
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long option(const char *name, const char *v, long lo, long hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "prime: --%s wants a number in [%ld, %ld], got '%s'\n", name, lo, hi, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "usage: prime [--sync lock|tm|group] [--threads N] [--from N] [--count N] "
                            "[--status-us N] [--print-us N] [--lines N] [--out FILE] [--datasync 0|1]\n");
            return 2;
        }
        i++;
        if (!strcmp(a, "--sync"))
            sync_name = v;
        else if (!strcmp(a, "--threads"))
            threads = option("threads", v, 1, 256);
        else if (!strcmp(a, "--from"))
            from = option("from", v, 0, 1L << 40);
        else if (!strcmp(a, "--count"))
            count = option("count", v, 1, 1L << 32);
        else if (!strcmp(a, "--status-us"))
            status_us = option("status-us", v, 1, 10000000);
        else if (!strcmp(a, "--print-us"))
            print_us = option("print-us", v, 0, 10000000);
        else if (!strcmp(a, "--lines"))
            lines = option("lines", v, 0, 100000);
        else if (!strcmp(a, "--datasync"))
            dsync = option("datasync", v, 0, 1);
        else if (!strcmp(a, "--out"))
            out_path = v;
        else {
            fprintf(stderr, "prime: unknown option %s\n", a);
            return 2;
        }
    }
#ifdef PRIME_LOCK
    if (strcmp(sync_name, "lock")) {
        fprintf(stderr, "prime: this is the lock build (prime-lock): --sync lock only\n");
        return 2;
    }
#else
    if (strcmp(sync_name, "tm") && strcmp(sync_name, "group")) {
        fprintf(stderr, "prime: this is the -fgnu-tm build (prime-tm): --sync tm or group\n");
        return 2;
    }
#endif
    sync_kind = !strcmp(sync_name, "lock") ? SYNC_LOCK : !strcmp(sync_name, "tm") ? SYNC_TM : SYNC_GROUP;
    if ((out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644)) < 0) {
        perror(out_path);
        return 2;
    }
    limit = from + count;
    cursor = from;
    bitmap = calloc((size_t)count / 64 + 1, sizeof *bitmap);
    pthread_t st, *w = calloc((size_t)threads, sizeof *w);
    if (!bitmap || !w)
        return 2;
    double t0 = now();
    pthread_create(&st, NULL, status, NULL);
    for (long i = 0; i < threads; i++)
        pthread_create(&w[i], NULL, worker, NULL);
    for (long i = 0; i < threads; i++)
        pthread_join(w[i], NULL);
    double t1 = now();
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    pthread_join(st, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    /* The check: a segmented sieve's primes in [from, limit) against the bitmap and the
     * progress (small primes up to sqrt(limit) first, then their multiples in the segment). */
    long root = 1;
    while (root * root < limit)
        root++;
    char *small = calloc((size_t)root + 1, 1), *composite = calloc((size_t)count, 1);
    if (!small || !composite)
        return 2;
    for (long n = 0; n < count && from + n < 2; n++)
        composite[n] = 1;
    for (long p = 2; p <= root; p++) {
        if (small[p])
            continue;
        for (long m = p * p; m <= root; m += p)
            small[m] = 1;
        long first = (from + p - 1) / p * p;
        if (first < p * p)
            first = p * p;
        for (long m = first; m < limit; m += p)
            composite[m - from] = 1;
    }
    long nprimes = 0, largest = 0, bad = 0;
    for (long n = from; n < limit; n++) {
        int prime = !composite[n - from];
        if (prime) {
            nprimes++;
            largest = n;
        }
        if (prime != (int)(bitmap[(n - from) / 64] >> ((n - from) % 64) & 1))
            bad++;
    }
    int ok = bad == 0 && progress.found == nprimes && progress.largest == largest &&
             progress.tested == count;
    printf("bench=prime sync=%s threads=%ld from=%ld count=%ld seconds=%.3f cpu_seconds=%.3f "
           "prints=%ld primes=%ld ok=%d\n",
           sync_name, threads, from, count, t1 - t0, cpu, prints, progress.found, ok);
    free(composite);
    free(small);
    return ok ? 0 : 1;
}
