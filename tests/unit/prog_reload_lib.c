/* A transaction-safe library loaded, unloaded and replaced by prog_reload.c (test_reload.sh).
 * Built twice: the B build stores another value and has one more function after the two
 * below, so its `reload_store` starts at the same offset as A's but its transactional clone
 * (which GCC places after all the plain functions) does not. A process that unloads A and loads
 * B at the same address then calls `reload_store` indirectly in a transaction must find B's
 * clone: one that kept A's clone address would jump into the middle of B's padding function. */
#ifdef RELOAD_B
#define RELOAD_TAG 2
#else
#define RELOAD_TAG 1
#endif

int reload_cell;

__attribute__((transaction_safe)) void reload_store(int x) { reload_cell = x * 10 + RELOAD_TAG; }

__attribute__((transaction_safe)) int reload_peek(void) { return reload_cell; }

#ifdef RELOAD_B
/* Padding: shifts B's clones, and nothing else, away from A's. */
__attribute__((noinline)) int reload_padding(int n)
{
    volatile int s = 0;
    for (int i = 0; i < n; i++)
        s += i * 7 + (s >> 3) * 11;
    return s;
}
#endif
