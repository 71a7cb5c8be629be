/* _ITM_addUserCommitAction and _ITM_addUserUndoAction in single-level transactions. Commit
 * actions run once each, in registration order, after the commit (they see the committed data,
 * and none has run while the transaction is still going); they never run when the transaction is
 * cancelled. Undo actions run when the transaction is cancelled, in reverse registration order,
 * and never on commit. Also 1000 actions in one transaction, and actions on several threads
 * (where conflicts may restart transactions; see action_worker). */
// TMTEST: valgrind=yes
#include "harness.h"

#define MAXEV 4096
static char events[MAXEV];
static int nev;
static int shared;
static int seen_shared_in_commit = -1;
static volatile int runtime_one = 1;

static void log_event(void *arg)
{
    CHECK(nev < MAXEV);
    events[nev++] = (char)(intptr_t)arg;
}
static void commit_sees_shared(void *arg)
{
    (void)arg;
    seen_shared_in_commit = shared;
}
static int nev_inside = -1;
TH_PURE static void peek(void) { nev_inside = nev; }

#define EV(c) ((void *)(intptr_t)(c))

static void expect(const char *want)
{
    events[nev] = 0;
    if (strcmp(events, want) != 0) {
        fprintf(stderr, "events \"%s\", want \"%s\"\n", events, want);
        exit(1);
    }
    nev = 0;
}

/* Worker threads: transactions may be restarted by conflicts, and a restart may run the undo
 * actions of the abandoned attempt. So count per iteration: commit actions exactly once for the
 * committed iterations and never for the cancelled ones; undo actions at least once for the
 * cancelled ones. */
#define WITERS 1000
static __thread int commit_seen[WITERS + 1], undo_seen[WITERS + 1];
static int per_thread_slot[64 * 16];
static void count_commit(void *arg) { commit_seen[(intptr_t)arg]++; }
static void count_undo(void *arg) { undo_seen[(intptr_t)arg]++; }
static void *action_worker(void *arg)
{
    int t = (int)(intptr_t)arg % 64;
    int one = runtime_one;
    for (int i = 1; i <= WITERS; i++) {
        __transaction_atomic {
            per_thread_slot[t * 16] = i;
            shared = i;
            _ITM_addUserCommitAction(count_commit, TH_NO_TRANSACTION_ID, EV(i));
            _ITM_addUserUndoAction(count_undo, EV(i));
            if ((i % 10 == 0) && one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    for (int i = 1; i <= WITERS; i++) {
        if (i % 10 == 0) {
            CHECK_EQ(commit_seen[i], 0);
            CHECK(undo_seen[i] >= 1);
        } else {
            CHECK_EQ(commit_seen[i], 1);
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Commit actions: order, once, after commit. */
    __transaction_atomic {
        shared = 42;
        _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, EV('a'));
        _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, EV('b'));
        _ITM_addUserCommitAction(commit_sees_shared, TH_NO_TRANSACTION_ID, NULL);
        _ITM_addUserUndoAction(log_event, EV('X'));
        _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, EV('c'));
        peek();
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(nev_inside, 0);
    CHECK_EQ(seen_shared_in_commit, 42);
    expect("abc");

    /* Cancel: undo actions in reverse order, commit actions dropped. */
    __transaction_atomic {
        shared = 7;
        _ITM_addUserUndoAction(log_event, EV('1'));
        _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, EV('C'));
        _ITM_addUserUndoAction(log_event, EV('2'));
        _ITM_addUserUndoAction(log_event, EV('3'));
        peek();
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(nev_inside, 0);
    CHECK_EQ(shared, 42);
    expect("321");

    /* The next transactions start with empty action lists. */
    __transaction_atomic {
        shared = 1;
    }
    TH_FORGET_MEMORY();
    expect("");
    __transaction_atomic {
        shared = 2;
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    expect("");

    /* Many actions in one transaction. */
    static char want[1001];
    for (int i = 0; i < 1000; i++)
        want[i] = (char)('A' + i % 26);
    want[1000] = 0;
    __transaction_atomic {
        shared = 3;
        for (int i = 0; i < 1000; i++)
            _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, EV('A' + i % 26));
    }
    TH_FORGET_MEMORY();
    expect(want);
    __transaction_atomic {
        shared = 4;
        for (int i = 0; i < 1000; i++) /* run backwards, they spell want again */
            _ITM_addUserUndoAction(log_event, EV('A' + (999 - i) % 26));
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    expect(want);
    CHECK_EQ(shared, 3);

    /* Per-thread action lists. */
    th_run(th_threads(), action_worker);
    return 0;
}
