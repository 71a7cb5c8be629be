/* Mixed transaction sizes, read-only and update transactions, and concurrent cancels.
 *
 * 256 shared words whose sum is always 0: every update adds +d to some words and -d to as many
 * others. Each thread picks at random among
 *   small update (2 words), large update (64 words), small read-only (8 words, no check but
 *   consistency of its pair), large read-only audit (all words: the sum must be 0, checked inside
 *   the transaction), a cancelled transaction that scribbles over 48 words and a trace flag and
 *   then __transaction_cancel's, and an update that runs a nested transaction which cancels
 *   itself (only the inner writes must be discarded).
 * Committed updates are mirrored in a thread-local delta table, so at the end each word must equal
 * the sum of all threads' deltas exactly; the trace flag and the scribble marker written only by
 * cancelled transactions must still be 0, and every audit saw sum 0 and no trace.
 *
 * The cancelled transactions here only make blind stores (no read-modify-write of the same
 * location): GCC -O2 compiles `x++` into an _ITM_RfW load plus an _ITM_WaW store, and the system
 * libitm's serial (undo-logging) dispatch does not log RfW loads, so such writes survive a cancel
 * made in serial mode (where libitm runs cancellable transactions under serialirr, nested cancels
 * under every method, and anything after a contention fallback). mt_cancel_rmw.c covers
 * read-modify-write under cancel.
 */
// TMTEST: libitm-div=4
#include "harness.h"

#define WORDS 256
#define MAXT 64

static long word[WORDS];
static long trace;
static long scribbles;
static long commits;
static long iters;
static long delta[MAXT][WORDS];
static long n_cancel[MAXT], n_inner[MAXT], n_commit[MAXT];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long *mine = delta[id];
    uint64_t rng = 0x7777ULL + (uint64_t)id * 0x3141592653ULL;
    for (long i = 0; i < iters; i++) {
        uint64_t r = th_rand(&rng);
        int kind = (int)(r % 16);
        int a = (int)((r >> 8) % WORDS);
        long d = 1 + (long)((r >> 20) % 9);
        if (kind < 5) { /* small update */
            int b = (a + 1 + (int)((r >> 32) % (WORDS - 1))) % WORDS;
            __transaction_atomic {
                word[a] += d;
                word[b] -= d;
                commits++;
            }
            mine[a] += d;
            mine[b] -= d;
            n_commit[id]++;
        } else if (kind < 7) { /* large update: +d on 32 words, -d on the 32 after them */
            __transaction_atomic {
                for (int k = 0; k < 32; k++) {
                    word[(a + k) % WORDS] += d;
                    word[(a + 32 + k) % WORDS] -= d;
                }
                commits++;
            }
            for (int k = 0; k < 32; k++) {
                mine[(a + k) % WORDS] += d;
                mine[(a + 32 + k) % WORDS] -= d;
            }
            n_commit[id]++;
        } else if (kind < 10) { /* small read-only */
            long s = 0;
            __transaction_atomic {
                for (int k = 0; k < 8; k++)
                    s += word[(a + k) % WORDS];
                if (trace != 0)
                    th_tx_fail("trace seen by a small reader = %ld", (long)trace);
            }
            (void)s;
        } else if (kind < 12) { /* large read-only audit */
            __transaction_atomic {
                long s = 0;
                for (int k = 0; k < WORDS; k++)
                    s += word[k];
                if (s != 0)
                    th_tx_fail("sum of all words = %ld", (long)s);
                if (trace != 0 || scribbles != 0)
                    th_tx_fail("trace or scribbles = %ld", (long)(trace + scribbles));
            }
        } else if (kind < 14) { /* cancelled scribbler */
            __transaction_atomic {
                trace = id + 1;
                for (int k = 0; k < 48; k++)
                    word[(a + 5 * k) % WORDS] = 1000 + k + i;
                scribbles = i + 1;
                if (word[a] != 0x7FFFFFFF) /* always true; keeps the cancel conditional */
                    __transaction_cancel;
                commits += 1000000;
            }
            n_cancel[id]++;
        } else { /* outer update with a nested transaction that cancels itself */
            int b = (a + 128) % WORDS;
            __transaction_atomic {
                word[a] += d;
                __transaction_atomic {
                    word[b] = 12345 + i;
                    trace = -1;
                    scribbles = i + 1;
                    if (word[b] != 0x7FFFFFFF)
                        __transaction_cancel;
                }
                word[b] -= d;
                commits++;
            }
            mine[a] += d;
            mine[b] -= d;
            n_commit[id]++;
            n_inner[id]++;
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    CHECK(n <= MAXT);
    iters = th_iters(30000);
    th_run(n, worker);

    long total_commits = 0, cancels = 0, inner = 0;
    for (int t = 0; t < n; t++) {
        total_commits += n_commit[t];
        cancels += n_cancel[t];
        inner += n_inner[t];
    }
    CHECK_EQ(commits, total_commits);
    CHECK_EQ(trace, 0);
    CHECK_EQ(scribbles, 0);
    long sum = 0;
    for (int k = 0; k < WORDS; k++) {
        long expect = 0;
        for (int t = 0; t < n; t++)
            expect += delta[t][k];
        CHECK_EQ(word[k], expect);
        sum += word[k];
    }
    CHECK_EQ(sum, 0);
    CHECK(cancels > 0 && inner > 0);
    printf("mt_mixed_cancel: %d threads, %ld commits, %ld cancels, %ld inner cancels\n", n,
           total_commits, cancels, inner);
    return 0;
}
