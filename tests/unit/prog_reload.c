/* Indirect calls inside transactions across an unload and a reload (test_reload.sh): each
 * thread calls the library's `reload_store` through a pointer in transactions, which makes the
 * runtime look up its transactional clone (and remember it, abi/clone_table.c); then the main
 * thread unloads library A, loads B at the same address, and the threads call again. Checks
 * the values each library's clone stores and that both ran in transactions that committed.
 * Exit 77 when the loader put B elsewhere (nothing to judge).
 * Usage: prog_reload LIB_A LIB_B THREADS */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*store_fn)(int) __attribute__((transaction_safe));
typedef int (*peek_fn)(void) __attribute__((transaction_safe));

static store_fn store;
static peek_fn peek;
static int expect_tag;

static void *worker(void *arg)
{
    int id = (int)(long)arg, bad = 0;
    for (int i = 0; i < 20000; i++) {
        int x = id * 100000 + i, got;
        __transaction_atomic {
            store(x);
            got = peek();
        }
        if (got != x * 10 + expect_tag)
            bad++;
    }
    return (void *)(long)bad;
}

static int run(int threads)
{
    pthread_t t[64];
    int bad = 0;
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (int)(long)r;
    }
    return bad;
}

static void *open_lib(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "prog_reload: %s\n", dlerror());
        exit(2);
    }
    store = (store_fn)dlsym(h, "reload_store");
    peek = (peek_fn)dlsym(h, "reload_peek");
    if (!store || !peek) {
        fprintf(stderr, "prog_reload: %s lacks reload_store/reload_peek\n", path);
        exit(2);
    }
    return h;
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[3]) < 1 || atoi(argv[3]) > 64) {
        fprintf(stderr, "usage: prog_reload LIB_A LIB_B THREADS (1-64)\n");
        return 2;
    }
    int threads = atoi(argv[3]);
    /* the main thread calls too: its memo outlives the unload */
    void *h = open_lib(argv[1]);
    store_fn first = store;
    expect_tag = 1;
    int bad = (int)(long)worker((void *)(long)threads) + run(threads);
    if (dlclose(h) != 0) {
        fprintf(stderr, "prog_reload: dlclose: %s\n", dlerror());
        return 2;
    }
    open_lib(argv[2]);
    if (store != first) {
        printf("prog_reload: B was loaded elsewhere (%p, A at %p): nothing to judge\n",
               (void *)store, (void *)first);
        return 77;
    }
    expect_tag = 2;
    int bad_b = (int)(long)worker((void *)(long)threads) + run(threads);
    printf("prog_reload: %d threads, wrong values: %d with A, %d with B at A's address\n",
           threads, bad, bad_b);
    return bad || bad_b;
}
