/* Passive waiting for the serial lock: a contended waiter first sleeps for short, doubling
 * times without registering, and retries the lock after each; only then does it mark the lock
 * as having waiters (2) and sleep until an unlock wakes it (serial.c).
 *
 * Why. With registration alone (glibc's mutex), an owner that finds the word at 2 must wake a
 * waiter with a futex call at its unlock, and the woken waiter then competes for the lock's line
 * at the holder's next acquisition: on 2 cores, two threads running tiny critical sections
 * spend most of their time handing the line back and forth (a 6.7 ns critical section at one
 * thread runs at ~19 ns per operation at two). A waiter that sleeps without registering costs
 * the holder nothing: the holder runs alone at its single-thread speed while the other sleeps,
 * and the sleeper takes the lock in one of the gaps between the holder's critical sections when
 * it wakes, after which the roles swap. Both threads progress (the turns last one sleep each),
 * and the lock changes hands once per sleep instead of once per critical section. This is a
 * small form of concurrency restriction (Dice, "Malthusian Locks", EuroSys 2017): threads that
 * would only contend are kept passive for a while. On this 2-vCPU VM a stand-alone test of a
 * lock with 2 threads incrementing their own counters ran at 210-218M operations per second,
 * against 40-52M for glibc's mutex (2026-11-24).
 *
 * Bounds. Each sleep is at least the kernel's timer slack (50 us by default) however short the
 * request, so a waiter can see the lock free up to that late; after TM_SERIAL_POLLS sleeps
 * (~0.6 ms with the default slack: a long irrevocable section, not a tiny one) it registers and
 * is woken by the unlock as before, so a long wait costs a few wake-ups, not a busy loop. A
 * waiter that finds others registered (word 2: 3 or more contenders) joins them at once.
 * The sleeps are raw nanosleep system calls: libc's nanosleep is a cancellation point, and
 * pthread_cancel must not stop a thread inside the runtime.
 * TMKIT_SERIAL_WAIT=block skips this phase (serial.c): waiters register at once, for programs
 * that value each hand-off's latency over throughput.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "serial_fast.h"

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
        syscall(SYS_nanosleep, &t, NULL); /* EINTR: just a shorter sleep */
        if (atomic_load_explicit(&tm_serial_word, memory_order_relaxed) == 0 && trylock())
            return true;
    }
    return false;
}
