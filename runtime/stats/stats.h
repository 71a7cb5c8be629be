/* Per-site transaction statistics (TMKIT_STATS).
 *
 * A site is the return address of _ITM_beginTransaction: the transaction statement. Each thread
 * counts into its own table (no shared cache line is written on the hot path); tables are merged
 * when the report is written. Every counter is declared once, here, with its meaning; the JSON
 * and the table are produced from this list (docs/stats.md documents the format).
 * With statistics off, the hooks cost one predictable branch on a read-mostly flag.
 */
#ifndef TMKIT_STATS_H
#define TMKIT_STATS_H

#include "../core/tx.h"

#define TM_STATS_COUNTERS(X)                                                                  \
    X(starts, "attempts started (the first and every restart)")                               \
    X(commits, "transactions committed")                                                      \
    X(abort_read_conflict, "attempts aborted: a location read was changed by a writer")       \
    X(abort_write_conflict, "attempts aborted: could not acquire a location to write")        \
    X(abort_validation, "attempts aborted: commit-time or upgrade validation failed")         \
    X(abort_cancel, "attempts ended by __transaction_cancel")                                 \
    X(abort_retry, "attempts aborted by _ITM_abortTransaction(retry/conflict)")               \
    X(abort_serial, "attempts restarted to run serially (contention fallback, upgrade race)") \
    X(serial_attempts, "attempts that ran serially from their start")                         \
    X(irrevocable_switches, "switches to serial-irrevocable in the middle of an attempt")     \
    X(uninstrumented_attempts, "attempts that ran GCC's uninstrumented code, alone (bias or "  \
                               "serial lock): unsafe calls in them needed no switch")         \
    X(read_set_sum, "entries in the read set, summed over committed transactions")            \
    X(write_set_sum, "entries in the write set or undo log, summed over committed ones")      \
    X(read_set_max, "largest read set of a committed transaction")                            \
    X(write_set_max, "largest write set of a committed transaction")                          \
    X(cycles_committed, "TSC cycles inside committed attempts (sampled 1 in 16, scaled)")     \
    X(cycles_aborted, "TSC cycles inside aborted attempts, wasted work (sampled, scaled)")

enum tm_stat {
#define TM_STAT_ENUM(name, doc) TM_STAT_##name,
    TM_STATS_COUNTERS(TM_STAT_ENUM)
#undef TM_STAT_ENUM
        TM_STAT_N
};

#define TM_RETRY_BUCKETS 8 /* commits after 0, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ aborts */

typedef struct tm_site {
    uintptr_t pc;       /* 0: free slot */
    uintptr_t irrev_pc; /* the last call that made this site go irrevocable */
    uint64_t c[TM_STAT_N];
    uint64_t retries[TM_RETRY_BUCKETS];
} tm_site;

extern bool tm_stats_on TM_HIDDEN;

TM_HIDDEN void tm_stats_attempt(tm_tx *tx, bool serial);
TM_HIDDEN void tm_stats_commit(tm_tx *tx);
TM_HIDDEN void tm_stats_abort(tm_tx *tx, tm_abort_reason why);
TM_HIDDEN void tm_stats_irrevocable(tm_tx *tx, uintptr_t caller_pc);
TM_HIDDEN void tm_stats_configure(const char *dest);

#endif
