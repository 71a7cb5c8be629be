// tmkit.h in C++: tmkit::on_commit / tmkit::on_abort with lambdas, at any optimisation level.
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"
#include "tmkit.h"

#include <vector>

static long seen[64];
static int n_seen;
static long counter;

static void note(long v) { seen[n_seen++] = v; }

struct pool {
    long released;
};

static long per_thread[16];

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < th_iters(20000); i++) {
        __transaction_atomic {
            counter++;
            tmkit::on_commit([=] { per_thread[id]++; });
        }
    }
    return nullptr;
}

int main()
{
    th_check_runtime();
    pool p{0};
    pool *pp = &p;
    long x = 1;
    __transaction_atomic {
        x = 4; // written in the transaction before capture
        long y = x;
        tmkit::on_commit([=] { pp->released += y; note(y); });
        tmkit::on_abort([=] { note(-y); });
        tmkit::on_commit([=] { note(y * 10); });
    }
    CHECK_EQ(p.released, 4);
    CHECK_EQ(n_seen, 2);
    CHECK_EQ(seen[0], 4);
    CHECK_EQ(seen[1], 40);

    n_seen = 0;
    int cancel = 1;
    __transaction_atomic {
        long y = 8;
        tmkit::on_commit([=] { note(y); });
        tmkit::on_abort([=] { note(-y); });
        if (cancel)
            __transaction_cancel;
    }
    tmkit_compiler_barrier(); /* abort handlers wrote memory GCC thinks a cancel left alone */
    CHECK_EQ(n_seen, 1);
    CHECK_EQ(seen[0], -8);

    int t = th_threads() > 16 ? 16 : th_threads();
    th_run(t, worker);
    long total = 0;
    for (int i = 0; i < t; i++) {
        CHECK_EQ(per_thread[i], th_iters(20000));
        total += per_thread[i];
    }
    CHECK_EQ(counter, total);
    return 0;
}
