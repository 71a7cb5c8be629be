/* The extensions' interfaces: among their own files, to abi/ (entry.c's serial commit), and the
 * public functions (exported under the TMKIT_1.0 version node, abi/libitm.map; declared for
 * programs in include/tmkit/wait.h and include/tmkit/counter.h). Core's cancel, commit, thread
 * exit and fork reach them only through the hooks ext_hooks.c fills in (core/hooks.h).
 *
 * A program that never uses an extension pays one predictable test at each writing commit that
 * is not a serial fast path (the serial fast paths already load the word it tests:
 * core/hooks.h, tm_ext_wait_check_commit), and nothing elsewhere. */
#ifndef TMKIT_EXT_H
#define TMKIT_EXT_H

#include "../core/hooks.h"
#include "../core/tx.h"
#include "../algo/orec.h"

/* tm_serial_rwait and its bits (TM_RWAIT_*): core/serial_fast.h. tm_barrier_all and
 * tm_barrier_asymmetric: core/tx_modules.h (bias.c). tm_wait_sleepers, which wait.c counts:
 * core/hooks.h. */

/* waiters.c: a tm_retry waiter's publication before its check (step 2 in wait.c), and its
 * withdrawal after the sleep; fork's child clears them all. */
TM_HIDDEN void tm_wait_publish(tm_tx *tx);
TM_HIDDEN void tm_wait_unpublish(tm_tx *tx);
TM_HIDDEN void tm_waiters_fork_child(void);

/* waiters.c: threads waiting in tm_retry (the flag TM_RWAIT_RETRY may outlive them). A
 * writer that sees the flag fences and reads the count; after TM_WAIT_LINGER of its commits in
 * a row that found it at 0 it lowers the flag (tm_wait_linger_end). 256 commits of a fence and
 * a shared load cost about what one membarrier costs here (~10 us). */
extern _Atomic uint32_t tm_wait_count TM_HIDDEN;
#define TM_WAIT_LINGER 256u
TM_HIDDEN void tm_wait_linger_end(void);

/* waiters.c: the waiting descriptors, so that a writer visits the waiters, not every one.
 * A waiter takes the lowest free slot under the waiters' lock before it raises the count;
 * tm_wait_slots_hi is one past the highest slot ever taken. A waiter that finds none free
 * counts itself in tm_wait_overflow instead, and writers then walk the registry. */
#define TM_WAIT_SLOTS 64u
extern tm_tx *_Atomic tm_wait_slot[TM_WAIT_SLOTS] TM_HIDDEN;
extern _Atomic uint32_t tm_wait_slots_hi TM_HIDDEN;
extern _Atomic uint32_t tm_wait_overflow TM_HIDDEN;

/* wait.c: the cancel of an attempt that asked to wait (never returns). */
TM_HIDDEN __attribute__((noreturn)) void tm_wait_and_restart(tm_tx *tx);
/* wait.c: fork child: no thread of the child waits. */
TM_HIDDEN void tm_wait_fork_child(void);

/* wake.c: after a commit of tx that may have written (logs still intact): wake the waiters
 * whose watch the commit's writes may touch (core/hooks.h: tm_ext_wait_check_commit). */
TM_HIDDEN void tm_wait_wake(tm_tx *tx);

/* wake.c: the filter bit of an orec index, shared by waiters and writers. */
static inline void tm_watch_add(uint64_t *w, uintptr_t orec_index)
{
    uint64_t h = (uint64_t)orec_index * 0x9E3779B97F4A7C15ull >> 56; /* 0..255 */
    w[h >> 6] |= 1ull << (h & 63);
}

/* The bits of every 8-byte word of [a, a + len) (a waiter's read, a writer's write). */
static inline void tm_watch_range(uint64_t *w, uintptr_t a, size_t len)
{
    for (uintptr_t word = a & ~(uintptr_t)7, n = 0; word < a + len; word += 8, n++) {
        if (n == 4 * 64) { /* a huge range: its words cover every bit anyway */
            for (int k = 0; k < TM_WATCH_WORDS; k++)
                w[k] = ~0ull;
            return;
        }
        tm_watch_add(w, tm_orec_index(tm_orec_of(word)));
    }
}

/* counter.c: a transaction's counter additions (made in place, logged in ext.pend) become
 * visible at its commit (the action runner calls it for the transaction's one TM_ACT_COUNTER
 * action), and are undone by a rollback to a checkpoint's mark (0: the attempt's start). */
TM_HIDDEN void tm_counters_apply(tm_tx *tx);
TM_HIDDEN void tm_counters_undo(tm_tx *tx, size_t mark);
TM_HIDDEN void tm_counters_fork_child(void);

/* group.c: a thread that ends gives up the groups it holds; fork's child keeps its own only. */
TM_HIDDEN void tm_groups_thread_exit(tm_tx *tx);
TM_HIDDEN void tm_groups_fork_child(tm_tx *self);
/* group_held.c: around a wait's sleep, the thread's shared holds step out and back in. */
TM_HIDDEN void tm_groups_step_out(tm_tx *tx);
TM_HIDDEN void tm_groups_step_in(tm_tx *tx);

/* privatize.c: the committing transaction promised not to privatize and frees nothing. */
TM_HIDDEN bool tm_promised_no_privatization(const tm_tx *tx);

/* atomic_orec.c: a tmkit.h atomic outside transactions on the orecs (several threads under
 * an orec algorithm); false: not done (the header runs its one-word transaction). */
TM_HIDDEN bool tm_atomic_orec(tm_tx *tx, void *p, unsigned code, uint64_t v, uint64_t cmp,
                              uint64_t *out);

#endif
