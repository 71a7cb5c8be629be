/* User actions in nested transactions. When a nested transaction is cancelled, the undo actions
 * it registered run (newest first) and its commit actions are discarded, while those of the
 * enclosing transaction are kept: its commit actions run at the outermost commit, in order.
 * Actions registered in a nested transaction that commits belong to the enclosing transaction:
 * its commit actions wait for the outermost commit, its undo actions run if the outermost one
 * is cancelled later, together with the outer ones, newest first. Flat-nested transactions (no
 * cancel in them) behave the same way.
 * A runtime may restart the whole transaction (libitm gl_wt/ml_wt do so on the first nested
 * cancel, to switch to a method with closed nesting), and a restart may run the undo actions of
 * the abandoned attempt. So every action carries the number of the attempt that registered it:
 * the last attempt must produce exactly the expected sequence, earlier attempts only undo
 * actions, each at most once.
 * Every outer transaction makes an ordinary access of its own: GCC removes a transaction whose
 * body has only pure calls and nested transactions, which would move the outer actions out of
 * any transaction. Outer and inner transactions write different variables (a write in the outer
 * transaction followed by one in a cancelled inner transaction is c_cancel_nested_waw.c). */
// TMTEST: valgrind=yes
#include "harness.h"

#define MAXEV 256
static int events[MAXEV]; /* attempt << 8 | tag; tag < 0x60 is an undo, >= 0x60 a commit */
static int nev;
static int attempt;
static int outer_v, inner_v;
static volatile int runtime_one = 1;

TH_PURE static void new_attempt(void) { attempt++; }
static void log_event(void *arg)
{
    CHECK(nev < MAXEV);
    events[nev++] = (int)(intptr_t)arg;
}
/* Commit tags are lower case, undo tags upper case or digits. */
TH_PURE static void *ev(int tag) { return (void *)(intptr_t)(attempt << 8 | tag); }
#define COMMIT(c) _ITM_addUserCommitAction(log_event, TH_NO_TRANSACTION_ID, ev(c))
#define UNDO(c) _ITM_addUserUndoAction(log_event, ev(c))

static int snap_n = -1;
TH_PURE static void take_snapshot(void) { snap_n = nev; }

/* Checks events[0..upto) as described at the top; want is the last attempt's sequence. */
static void check_events(int upto, const char *want, int line)
{
    char got[MAXEV + 1];
    int n = 0;
    for (int i = 0; i < upto; i++) {
        int att = events[i] >> 8, tag = events[i] & 0xFF;
        if (att == attempt) {
            got[n++] = (char)tag;
        } else {
            if (att > attempt || tag >= 0x60) {
                fprintf(stderr, "line %d: action '%c' of abandoned attempt %d ran\n", line, tag,
                        att);
                exit(1);
            }
            for (int j = 0; j < i; j++)
                if (events[j] == events[i]) {
                    fprintf(stderr, "line %d: undo action '%c' ran twice\n", line, tag);
                    exit(1);
                }
        }
    }
    got[n] = 0;
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "line %d: events \"%s\", want \"%s\" (attempt %d)\n", line, got, want,
                attempt);
        exit(1);
    }
}
#define EXPECT(upto, want) check_events((upto), (want), __LINE__)
#define EXPECT_ALL(want) (EXPECT(nev, want), nev = 0)

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Cancelled inner transaction inside a committing outer one. */
    __transaction_atomic {
        new_attempt();
        outer_v = 1;
        COMMIT('a');
        UNDO('U');
        __transaction_atomic {
            inner_v = 2;
            COMMIT('x');
            UNDO('1');
            UNDO('2');
            COMMIT('y');
            if (one)
                __transaction_cancel;
        }
        take_snapshot(); /* the inner undo actions have run by now */
        COMMIT('b');
    }
    TH_FORGET_MEMORY();
    EXPECT(snap_n, "21");
    EXPECT_ALL("21ab");
    CHECK(outer_v == 1 && inner_v == 0);

    /* Committed inner transaction (with a cancel path), outer commits. */
    __transaction_atomic {
        new_attempt();
        outer_v = 2;
        COMMIT('a');
        __transaction_atomic {
            inner_v = 3;
            COMMIT('i');
            UNDO('U');
            if (inner_v == 4 && one)
                __transaction_cancel;
        }
        take_snapshot(); /* the inner commit actions have not run yet */
        COMMIT('b');
    }
    TH_FORGET_MEMORY();
    EXPECT(snap_n, "");
    EXPECT_ALL("aib");
    CHECK(outer_v == 2 && inner_v == 3);

    /* Committed inner transaction, then the outer one is cancelled: all undo actions run,
     * newest first, no commit action runs. */
    __transaction_atomic {
        new_attempt();
        outer_v = 4;
        UNDO('O');
        __transaction_atomic {
            inner_v = 5;
            UNDO('I');
            COMMIT('c');
            if (inner_v == 6 && one)
                __transaction_cancel;
        }
        UNDO('P');
        __transaction_atomic { /* flat nested */
            inner_v = 7;
            UNDO('F');
            COMMIT('d');
        }
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    EXPECT_ALL("FPIO");
    CHECK(outer_v == 2 && inner_v == 3);

    /* Two inner transactions: the first cancels, the second commits. */
    __transaction_atomic {
        new_attempt();
        outer_v = 6;
        COMMIT('p');
        __transaction_atomic {
            COMMIT('x');
            UNDO('A');
            inner_v = 7;
            if (one)
                __transaction_cancel;
        }
        __transaction_atomic {
            COMMIT('q');
            UNDO('B');
            inner_v = 8;
            if (inner_v == 9 && one)
                __transaction_cancel;
        }
        COMMIT('r');
    }
    TH_FORGET_MEMORY();
    EXPECT_ALL("Apqr");
    CHECK(outer_v == 6 && inner_v == 8);
    return 0;
}
