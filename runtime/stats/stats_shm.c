/* Shared-memory statistics (TMKIT_STATS_SHM=name): attaching the segment, claiming a block per
 * thread, the object table, fork and exit. Layout and invariants: shm.h.
 *
 * Attach (at configuration time, before any transaction): open or create /dev/shm/tmkit.NAME,
 * and under flock reinitialize it when its layout differs or no live process owns a block: a
 * new run starts from zero, and the last run's numbers stay readable until then. A forked child
 * reopens the segment (flock locks belong to the open file description, which fork shares) and
 * claims blocks of its own: its counts add to the parent's in the segment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../algo/algo.h"
#include "../core/config.h"
#include "shm.h"

bool tm_stats_shm_on;
static tm_shm_segment *tm_shm;
static char tm_shm_path[TM_SHM_NAME_MAX + 16];
static int tm_shm_fd = -1;
static pid_t tm_shm_fd_pid; /* the process that opened tm_shm_fd */
/* flock excludes processes but not the threads of one process (they share the open file
 * description): this mutex excludes those. */
static pthread_mutex_t tm_shm_mu = PTHREAD_MUTEX_INITIALIZER;

static bool tm_shm_block_dead(const tm_shm_block *b)
{
    pid_t owner = atomic_load_explicit(&b->owner, memory_order_relaxed);
    if (owner == 0)
        return true;
    if (atomic_load_explicit(&b->state, memory_order_relaxed) != TM_SHM_LIVE)
        return true;
    if (kill(owner, 0) != 0 && errno == ESRCH)
        return true;
    return tm_shm_proc_start(owner) != b->owner_start;
}

static void tm_shm_lock(void)
{
    pthread_mutex_lock(&tm_shm_mu);
    if (tm_shm_fd_pid != getpid()) { /* forked: get a lock of our own */
        int fd = open(tm_shm_path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            close(tm_shm_fd);
            tm_shm_fd = fd;
            tm_shm_fd_pid = getpid();
        }
    }
    while (flock(tm_shm_fd, LOCK_EX) != 0 && errno == EINTR)
        ;
}

static void tm_shm_unlock(void)
{
    flock(tm_shm_fd, LOCK_UN);
    pthread_mutex_unlock(&tm_shm_mu);
}

/* fork(): another thread of the parent may have held the mutex. */
void tm_stats_shm_fork_child(void) { pthread_mutex_init(&tm_shm_mu, NULL); }

static void tm_shm_init_header(void)
{
    tm_shm_segment *s = tm_shm;
    s->version = TM_SHM_VERSION;
    s->ncounters = TM_STAT_N;
    s->nsites = TM_SITES;
    s->nblocks = TM_SHM_BLOCKS;
    s->nobjects = TM_SHM_OBJECTS;
    s->size_kb = (uint32_t)(sizeof *s / 1024);
    s->archive.table.other.pc = 1;
    /* release: readers that see the magic see the header above. */
    __atomic_store_n(&s->magic, TM_SHM_MAGIC, __ATOMIC_RELEASE);
}

static bool tm_shm_layout_ok(const tm_shm_segment *s)
{
    return s->magic == TM_SHM_MAGIC && s->version == TM_SHM_VERSION && s->ncounters == TM_STAT_N &&
           s->nsites == TM_SITES && s->nblocks == TM_SHM_BLOCKS && s->nobjects == TM_SHM_OBJECTS &&
           s->size_kb == (uint32_t)(sizeof *s / 1024);
}

/* The segment could not be set up: one line on stderr, and the process runs on without it
 * (the exit report, TMKIT_STATS, is separate). Statistics are an observer: a full or read-only
 * /dev/shm must not stop the program they observe (docs/stats.md, "Live and multi-process
 * counters"; docs/reliability.md, "Faults"). */
static void tm_shm_give_up(const char *name, const char *step, int err, bool locked)
{
    char msg[TM_SHM_NAME_MAX + 256];
    int n = snprintf(msg, sizeof msg,
                     "tmkit: TMKIT_STATS_SHM=%s: cannot %s %s: %s; running without the "
                     "shared statistics segment\n",
                     name, step, tm_shm_path, strerror(err));
    if (tm_shm) {
        munmap(tm_shm, sizeof(tm_shm_segment));
        tm_shm = NULL;
    }
    if (locked)
        tm_shm_unlock();
    if (tm_shm_fd >= 0)
        close(tm_shm_fd);
    tm_shm_fd = -1;
    if (n > 0) {
        ssize_t r = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)r;
    }
}

/* A new segment's size, with its pages reserved: on a full tmpfs a sparse file maps, and the
 * first store to a missing page is SIGBUS, so the space is taken now, where a failure can be
 * told. Returns 0 or an errno value. */
static int tm_shm_size(int fd)
{
    if (ftruncate(fd, 0) != 0 || ftruncate(fd, sizeof(tm_shm_segment)) != 0)
        return errno;
    return posix_fallocate(fd, 0, sizeof(tm_shm_segment));
}

void tm_stats_shm_configure(const char *name)
{
    snprintf(tm_shm_path, sizeof tm_shm_path, "/dev/shm/tmkit.%s", name);
    int fd = open(tm_shm_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        tm_shm_give_up(name, "open", errno, false);
        return;
    }
    tm_shm_fd = fd;
    tm_shm_fd_pid = getpid();
    tm_shm_lock();
    struct stat st;
    int err = 0;
    bool sized = false; /* zero-filled just now */
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != sizeof(tm_shm_segment)) {
        /* New, or another layout: start over (truncating to 0 frees the old pages). */
        sized = true;
        if ((err = tm_shm_size(fd)) != 0) {
            tm_shm_give_up(name, "size", err, true);
            return;
        }
    }
    void *m = mmap(NULL, sizeof(tm_shm_segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        tm_shm_give_up(name, "map", errno, true);
        return;
    }
    tm_shm = m;
    bool layout_ok = tm_shm_layout_ok(tm_shm), someone_alive = false;
    for (int i = 0; i < TM_SHM_BLOCKS && layout_ok && !someone_alive; i++)
        someone_alive = !tm_shm_block_dead(&tm_shm->block[i]);
    if (!someone_alive) { /* another layout, or nobody alive counts here: a new run */
        uint64_t gen = layout_ok ? tm_shm->generation : 0;
        if (!sized && (err = tm_shm_size(fd)) != 0) {
            tm_shm_give_up(name, "reset", err, true);
            return;
        }
        tm_shm->generation = gen + 1;
        tm_shm_init_header();
    }
    tm_shm_unlock();
    tm_stats_shm_on = true;
    /* No batches: every attempt is counted into the block at once, so the live view and the
     * segment after any end of the process (_exit, kill -9, a crash, execve) are exact
     * (stats_batch.h). */
    tm_stats_whole_cap = 0;
}

/* Adds one dead block's counts to the archive (caller holds the segment lock). */
static void tm_shm_fold(tm_shm_block *b)
{
    tm_site_table *a = &b->table, *arch = &tm_shm->archive.table;
    for (size_t i = 0; i <= TM_SITES; i++) {
        tm_site *s = i < TM_SITES ? &a->site[i] : &a->other;
        if (!s->pc)
            continue;
        tm_site *d = &arch->other;
        for (size_t j = 0; j < TM_SITES; j++) {
            tm_site *c = &arch->site[j];
            if (c->pc == 0) { /* archive keys are (obj, off); pc only marks the slot used */
                c->obj = s->obj, c->off = s->off;
                __atomic_store_n(&c->pc, s->pc == 1 ? 1 : s->off + 2, __ATOMIC_RELEASE);
            }
            if (c->obj == s->obj && c->off == s->off && (c->pc == 1) == (s->pc == 1)) {
                d = c;
                break;
            }
        }
        tm_site_add(d, s);
    }
}

tm_site_table *tm_stats_shm_table(void)
{
    tm_shm_lock();
    pid_t me = getpid();
    tm_shm_block *got = NULL;
    for (int i = 0; i < TM_SHM_BLOCKS && !got; i++)
        if (atomic_load_explicit(&tm_shm->block[i].owner, memory_order_relaxed) == 0)
            got = &tm_shm->block[i];
    for (int i = 0; i < TM_SHM_BLOCKS && !got; i++)
        if (tm_shm_block_dead(&tm_shm->block[i])) {
            got = &tm_shm->block[i];
            tm_shm_fold(got);
        }
    if (got) {
        memset(&got->table, 0, sizeof got->table);
        got->table.other.pc = 1;
        got->table.shared = true;
        got->owner_start = tm_shm_proc_start(me);
        if (readlink("/proc/self/exe", got->program, sizeof got->program - 1) < 0)
            got->program[0] = 0;
        snprintf(got->algo, sizeof got->algo, "%s", tm_config.algo->name);
        /* relaxed: readers take the lock-free view; they only need the pid eventually. */
        atomic_store_explicit(&got->state, TM_SHM_LIVE, memory_order_relaxed);
        atomic_store_explicit(&got->owner, me, memory_order_release);
    } else {
        atomic_fetch_add_explicit(&tm_shm->overflow, 1, memory_order_relaxed);
    }
    tm_shm_unlock();
    return got ? &got->table : NULL;
}

/* The index of the object at path, which holds pc, in the segment's table (added with its build
 * id if new), or TM_STATS_NO_OBJ when the table is full. */
uint32_t tm_stats_shm_object(const char *path, uintptr_t pc)
{
    uint32_t found = TM_STATS_NO_OBJ;
    /* Outside the segment's lock: dl_iterate_phdr takes the loader's. */
    char id[TM_STATS_BUILD_ID_HEX];
    tm_stats_build_id(pc, id);
    tm_shm_lock();
    uint32_t n = atomic_load_explicit(&tm_shm->n_objects, memory_order_relaxed);
    for (uint32_t i = 0; i < n && found == TM_STATS_NO_OBJ; i++)
        if (strncmp(tm_shm->objects[i], path, TM_SHM_PATH) == 0)
            found = i;
    if (found == TM_STATS_NO_OBJ && n < TM_SHM_OBJECTS) {
        snprintf(tm_shm->objects[n], TM_SHM_PATH, "%s", path);
        memcpy(tm_shm->object_build_ids[n], id, sizeof id);
        /* release: a reader that sees the count sees the path and the build id. */
        atomic_store_explicit(&tm_shm->n_objects, n + 1, memory_order_release);
        found = n;
    }
    tm_shm_unlock();
    return found;
}

/* At exit: this process's blocks are marked exited (their counts stay). */
void tm_stats_shm_exit(void)
{
    if (!tm_shm)
        return;
    pid_t me = getpid();
    for (int i = 0; i < TM_SHM_BLOCKS; i++)
        if (atomic_load_explicit(&tm_shm->block[i].owner, memory_order_relaxed) == me)
            atomic_store_explicit(&tm_shm->block[i].state, TM_SHM_EXITED, memory_order_release);
}
