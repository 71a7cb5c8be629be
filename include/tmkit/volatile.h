/* tmkit/volatile.h — reading a volatile variable inside a transaction (included by tmkit.h).
 *
 *     extern volatile rel_time_t current_time;     // a timer thread stores it, under no lock
 *     __transaction_atomic {
 *         if (it->exptime != 0 && it->exptime <= tm_volatile_read(current_time))
 *             expired = 1;
 *     }
 *
 * GCC refuses a volatile access inside __transaction_atomic, and a relaxed transaction goes
 * serial-irrevocable at one. Code that read such a variable under a lock read it without any
 * synchronisation: its writer stores it outside every critical section, so the lock ordered
 * nothing about it. tm_volatile_read(v) does that same read from transaction_pure code, which
 * GCC runs inside a transaction as it is: one volatile load, not part of the transaction, so a
 * store to v neither aborts the transaction nor is ordered with it. Use it only for a variable
 * that no transaction writes (`tmkit advise --apply` checks that before it rewrites a read):
 * a transaction's store could be rolled back after the read saw it. v must be an integer, enum,
 * bool or pointer object of at most 8 bytes (anything larger does not compile); the value
 * has the type of `v + 0`. Outside transactions it is the plain volatile read. It needs no
 * runtime support, so it works on GCC's libitm too. GNU C only (it is a nested function inside
 * a statement expression); not defined in C++. */
#ifndef TMKIT_VOLATILE_H
#define TMKIT_VOLATILE_H

#ifndef __cplusplus
/* The read is a nested function declared transaction_pure, called at once: GCC refuses even
 * the address of a volatile object inside a transaction, but does not look into pure code.
 * The function uses no local of its caller, so it needs no trampoline (no executable stack).
 * The sizeof of a negative-sized array stops a wider object at compile time. */
#define tm_volatile_read(v)                                                                   \
    (__extension__({                                                                           \
        (void)sizeof(char[sizeof(v) <= 8 ? 1 : -1]);                                           \
        __attribute__((transaction_pure)) __typeof__((v) + 0) tmkit__volatile_read(void)       \
        {                                                                                      \
            return (v);                                                                        \
        }                                                                                      \
        tmkit__volatile_read();                                                                \
    }))
#endif

#endif
