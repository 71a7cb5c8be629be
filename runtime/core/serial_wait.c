/* The passive phase of waiting for the serial lock (serial.c), after the hand-off phase
 * (serial_handoff.c) or instead of it when it must not spin.
 *
 * A waiter sleeps for short, doubling times without registering and retries the lock after
 * each; after TM_SERIAL_POLLS sleeps (~0.6 ms) it marks the lock as having waiters (2) and
 * sleeps until an unlock wakes it. A waiter that finds others registered (word 2) joins them at
 * once. Sleeping without registering costs the holder nothing (no futex call at its unlock): a
 * small form of concurrency restriction (Dice, "Malthusian Locks", EuroSys 2017). With
 * registration alone (glibc's mutex) the woken waiter competes for the lock's line at the
 * holder's next acquisition, and two threads running tiny critical sections on 2 cores spend
 * most of their time handing the line back and forth (a 6.7 ns critical section at one thread
 * ran at ~19 ns per operation at two). Each sleep lasts at least the kernel's timer slack
 * (50 us by default), which is why waiters that can spin try the hand-off phase first. The
 * sleeps are raw nanosleep system calls: libc's nanosleep is a cancellation point, and
 * pthread_cancel must not stop a thread inside the runtime.
 * TMKIT_SERIAL_WAIT=block skips both phases (serial.c): waiters register at once.
 */
#define _GNU_SOURCE
#include <time.h>

#include "serial_fast.h"
#include "sys.h"

#define TM_SERIAL_POLLS 6
#define TM_SERIAL_POLL_NS 10000L /* the first sleep's request: 10 us (then 20, 40, ...) */

bool tm_serial_poll_wait(bool (*trylock)(void))
{
    long ns = TM_SERIAL_POLL_NS;
    for (int i = 0; i < TM_SERIAL_POLLS; i++, ns *= 2) {
        /* relaxed: only decides whether to wait or join; the trylock orders what follows. */
        if (atomic_load_explicit(&tm_serial_word, memory_order_relaxed) == 2)
            return false;
        struct timespec t = {0, ns};
        tm_sys3(SYS_nanosleep, (long)&t, 0, 0); /* EINTR: just a shorter sleep */
        if (atomic_load_explicit(&tm_serial_word, memory_order_relaxed) == 0 && trylock())
            return true;
    }
    return false;
}
