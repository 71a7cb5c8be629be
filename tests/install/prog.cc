// The C++ side of tests/install/test_tree.sh: transactions with commit handlers (tmkit::on_commit)
// in two threads; prints the runtime's build string and the file it was loaded from.
#include <dlfcn.h>
#include <tmkit.h>

#include <cstdio>
#include <thread>

extern "C" const char tmkit_version[] __attribute__((weak));

static long total;
static long commits;

static void work()
{
    for (int i = 0; i < 5000; i++) {
        __transaction_atomic {
            total++;
            tmkit::on_commit([] { __atomic_add_fetch(&commits, 1, __ATOMIC_RELAXED); });
        }
    }
}

int main()
{
    std::thread a(work), b(work);
    a.join();
    b.join();
    Dl_info d;
    if (!tmkit_version || !dladdr(tmkit_version, &d)) {
        std::puts("not running on tmkit");
        return 1;
    }
    std::printf("%s|%s|%ld|%ld\n", tmkit_version, d.dli_fname, total, commits);
    return total == 10000 && commits == 10000 ? 0 : 1;
}
