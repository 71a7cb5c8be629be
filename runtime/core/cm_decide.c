/* Adaptive's decision at the end of an epoch (core/cm.c's top comment says how adaptive works;
 * cm_state.h holds the state): the cost of the epoch just ended, the incumbent's moving average
 * and noise, the verdict of a probe (tm_cm_wins), and the start of the next probe. Runs in one
 * thread at a time, under the `busy` flag, about every 1.5 ms. */
#include "cm_state.h"

/* Transactions committed by the whole process so far. relaxed: a count a few commits stale
 * only moves them into the next epoch. The registry is push-only and counts only grow
 * (recycled descriptors keep theirs), so the sum never decreases. */
static tm_cm_tally tm_cm_commits(void)
{
    tm_cm_tally sum = {0, 0, 0};
    for (tm_tx *t = tm_registry_head(); t;
         t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        sum.all += atomic_load_explicit(&t->cm.commits, memory_order_relaxed);
        sum.writing += atomic_load_explicit(&t->cm.wcommits, memory_order_relaxed);
        sum.missed += atomic_load_explicit(&t->cm.hwmissed, memory_order_relaxed);
    }
    return sum;
}

/* An epoch's cost x against the average ref: at most twice it. */
static inline uint64_t tm_cm_clamp(uint64_t x, uint64_t ref) { return x > 2 * ref ? 2 * ref : x; }

static inline uint64_t tm_cm_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* How a mode ranks where two cost the same: the serial mode lowest, then the software
 * speculative modes, then htm while its commits run in hardware (its last epoch's attempts that
 * took the lock at most 1/8 of its commits; above that it is a serial mode, its fallbacks hold
 * the lock). */
static inline int tm_cm_rank(uint32_t m)
{
    if (m == TM_CM_HTM)
        return tm_cm.htm_hw ? 2 : 0;
    return m == TM_CM_SERIAL ? 0 : 1;
}

/* Does the probed mode m, at cost kc, take over from the incumbent i, at cost ki? Only when it
 * is cheaper by more than the noise of one epoch: 1/8, or three times the incumbent's own mean
 * deviation from epoch to epoch if that is more. (Without a margin, two modes of similar cost
 * trade places every few epochs, and every change of speculative algorithm drains all threads.
 * A fixed 1/8 is about 3 deviations of a closed loop of transactions on this 2-vCPU VM, but a
 * server's epochs, whose cost per commit is mostly the time between requests, deviate by
 * 10-15% from each other: there every mode won a probe in turn by the noise.) And a mode of a
 * higher rank (tm_cm_rank) takes over from one of a lower rank unless it costs more than 1/16,
 * or that noise, above it. Ties go to the modes that never hold the serial lock, because where
 * the two cost the same the serial one stops every other transaction for nothing, and the more
 * threads, the more it would; and among those to hardware transactions, which run GCC's
 * uninstrumented code and so spend the least CPU on each, where the wall-clock cost a commit
 * cannot tell (a server's is mostly the time between requests). The band between the two keeps
 * whichever is in, so noise around a real difference does not flip them at every probe. Under
 * a get/set load memcached measured every mode within 2% of the others; with a symmetric 1/8
 * whichever mode won a probe by the noise kept the process for up to 256 epochs, and its hot
 * path ran 19-46% of its transactions under the serial lock; 12-13% with the tie rule alone,
 * 0.4-1.4% with both (bench/results/advise-memcached). */
static bool tm_cm_wins(uint32_t m, uint64_t kc, uint32_t i, uint64_t ki)
{
    uint64_t noise = ki * tm_cm.noise[i] / 1024 * 3;
    if (tm_cm_rank(m) > tm_cm_rank(i))
        return kc <= ki + tm_cm_max(ki / 16, noise);
    return kc + tm_cm_max(kc / 8, noise) < ki;
}

/* A back-off after a lost probe or lock trial: doubled, from 2, up to TM_CM_RUN_MAX. (From 0,
 * a doubling would leave `left` at 0, whose decrement wraps: never challenged again.) */
static uint32_t tm_cm_doubled(uint32_t run)
{
    uint32_t next = run ? run * 2 : 2;
    return next > TM_CM_RUN_MAX ? TM_CM_RUN_MAX : next;
}

/* Puts setting `s` in force. relaxed: a grant or a waiter that reads an old value only applies
 * the new one a little late. */
static void tm_cm_lock_apply(uint32_t s)
{
    atomic_store_explicit(&tm_bias_grants_off, s != TM_CM_LOCK_GRANTS, memory_order_relaxed);
    atomic_store_explicit(&tm_serial_plain, s == TM_CM_LOCK_PLAIN, memory_order_relaxed);
}

/* Are bias grants in use (TMKIT_BIAS=rotate)? Without them the kept setting is at most the
 * turns: the same lock where nothing is granted. */
static bool tm_cm_lock_grants(void)
{
    const bool grants = tm_config.bias == TM_BIAS_ROTATE;
    if (!grants && tm_cm.lock_setting == TM_CM_LOCK_GRANTS)
        tm_cm.lock_setting = TM_CM_LOCK_TURNS;
    return grants;
}

/* The next setting to measure against the kept one, in turn, put in force. */
static uint32_t tm_cm_lock_challenge(bool grants)
{
    uint32_t c = tm_cm.lock_next % TM_CM_LOCK_N, inc = tm_cm.lock_setting;
    while (c == inc || (c == TM_CM_LOCK_GRANTS && !grants))
        c = (c + 1) % TM_CM_LOCK_N;
    tm_cm.lock_next = c + 1;
    if ((c == TM_CM_LOCK_GRANTS) != (inc == TM_CM_LOCK_GRANTS))
        tm_count_add1(&tm_cm.grant_trials);
    if ((c == TM_CM_LOCK_PLAIN) != (inc == TM_CM_LOCK_PLAIN))
        tm_count_add1(&tm_cm.plain_trials);
    tm_cm_lock_apply(c);
    return c;
}

/* The serial lock has three settings (cm_state.h), and which is cheapest depends on the
 * program; only a measurement tells, since the lock cannot tell them apart without perturbing
 * itself (serial_handoff.c: each look moves its line).
 *  - The bias grants (core/bias.c, TMKIT_BIAS=rotate) let the holder of a streak run with no
 *    lock, and the thread that wants the lock then waits out a turn. Where transactions come
 *    back to back (a shared counter) that wait costs nothing, since the lock was busy anyway,
 *    and the grants make 2 threads 1.7x faster (micro counter, 2026-12-03).
 *  - Turns without grants: the holder still keeps the lock for a turn once asked, but runs
 *    its transactions under the lock's atomics.
 *  - The plain lock (serial_handoff.c): a waiter takes a free lock at once and the holder hands
 *    it over at the first request. Where each thread commits a short transaction between
 *    longer work of its own (STAMP's kmeans, ssca2), a turn is time the waiter could have
 *    used: kmeans at 2 threads ran 18-30% slower with the grants than with turns alone, and
 *    1.5x faster with the plain lock (bench/results/third-party, "The plain serial lock");
 *    back to back, the plain lock made the counter 7x slower.
 * So every grant_run serial epochs adaptive runs one with another setting, the two others in
 * turn, and keeps it if it costs less by more than the noise, by the same rule as a probe
 * (tm_cm_wins); a lost trial doubles the interval up to TM_CM_RUN_MAX. Without grants
 * (TMKIT_BIAS=single) the trials are between the turns and the plain lock. Started: the epoch
 * that begins now runs the challenger. */
static void tm_cm_lock_trial(void)
{
    const bool grants = tm_cm_lock_grants();
    if (tm_bias_thread_count() < 2)
        return;
    if (tm_cm.grant_left > 1) {
        tm_cm.grant_left--;
        return;
    }
    tm_cm.lock_trial = true;
    tm_cm.lock_challenger = tm_cm_lock_challenge(grants);
}

/* A serial probe (from a speculative mode) runs with the kept setting, and every other one
 * with another setting in turn, counted as trials: the trials above run only while the serial
 * mode is in, and a program whose serial mode is only probed would otherwise measure it only
 * with the setting it started with, the grants. ssca2 at 2 threads, whose serial epochs want
 * the plain lock: kernel 1 in 1.11 s against 1.43 s (5 rounds; 0.99 against 1.37 s in 7 paired
 * ones), 0.87-1.02x its 1-thread time instead of 0.64-0.78x (bench/results/third-party,
 * "Serial probes try the lock's settings"). The verdict: tm_cm_decide. */
static void tm_cm_probe_lock(void)
{
    const bool grants = tm_cm_lock_grants();
    tm_cm.probe_setting = tm_cm.lock_setting;
    if (tm_bias_thread_count() >= 2 && (tm_cm.serial_probes++ & 1))
        tm_cm.probe_setting = tm_cm_lock_challenge(grants);
}

/* The end of a trial epoch (tm_cm_lock_trial) that cost `cost` in `mode`: keep its setting or
 * go back (also when the epoch did not stay in serial mode, which nothing does now). */
static void tm_cm_lock_verdict(uint32_t mode, tm_cm_price cost)
{
    uint64_t kc, ki;
    tm_cm.lock_trial = false;
    tm_cm_keys(cost, tm_cm_est_cost(TM_CM_SERIAL), &kc, &ki);
    if (mode == TM_CM_SERIAL && kc && ki && tm_cm_wins(TM_CM_SERIAL, kc, TM_CM_SERIAL, ki)) {
        tm_cm.lock_setting = tm_cm.lock_challenger;
        tm_cm_set_est(TM_CM_SERIAL, cost); /* the serial mode's cost is now this setting's */
        tm_cm.grant_run = 2;
    } else {
        tm_cm_lock_apply(tm_cm.lock_setting);
        tm_cm.grant_run = tm_cm_doubled(tm_cm.grant_run);
    }
    tm_cm.grant_left = tm_cm.grant_run;
}

/* Called by one thread at a time (busy flag), when the epoch's time is up. */
void tm_cm_decide(tm_tx *tx, uint64_t now)
{
    uint32_t mode = atomic_load_explicit(&tm_cm.mode, memory_order_relaxed);
    tm_cm_tally total = tm_cm_commits();
    if (tm_cm.epoch_start == 0 || total.all == tm_cm.at.all) {
        /* the first epoch starts now; an epoch without commits is extended */
        if (tm_cm.epoch_start == 0) {
            tm_cm.epoch_start = now;
            tm_cm.at = total;
        }
        atomic_store_explicit(&tm_cm.epoch_end, now + TM_CM_EPOCH, memory_order_relaxed);
        return;
    }
    uint64_t writing = total.writing - tm_cm.at.writing;
    tm_cm_price cost = {(now - tm_cm.epoch_start) / (total.all - tm_cm.at.all),
                       writing >= TM_CM_MIN_WRITING ? (now - tm_cm.epoch_start) / writing : 0};
    uint64_t kc, ki;
    if (tm_cm.probing && !tm_cm.warming && tm_cm.glance) {
        /* A quarter into the probe's measurement: a challenger already twice as dear as the
         * incumbent has lost (it goes on to the decision below with this cost); any other
         * is measured over the whole epoch, from where the measurement began. (The quarter
         * may have too few writing commits for their cost: then the two compare per commit.) */
        tm_cm.glance = false;
        tm_cm_keys(cost, tm_cm_est_cost(tm_cm.incumbent), &kc, &ki);
        if (!ki || kc <= 2 * ki) {
            atomic_store_explicit(&tm_cm.epoch_end, tm_cm.epoch_start + TM_CM_EPOCH,
                                  memory_order_relaxed);
            return;
        }
    }
    if (mode == TM_CM_HTM) /* its rank (tm_cm_rank) follows its latest measure */
        tm_cm.htm_hw = (total.missed - tm_cm.at.missed) * 8 <= total.all - tm_cm.at.all;
    uint64_t len = now - tm_cm.epoch_start;
    tm_cm.epoch_start = now;
    tm_cm.at = total;
    /* relaxed: only deciders (one at a time) write; the report reads a recent value. */
    /* Epochs in each mode, counted in whole epochs of time (a probe's parts are shorter). */
    tm_cm.time[mode] += len;
    atomic_store_explicit(&tm_cm.epochs[mode], tm_cm.time[mode] / TM_CM_EPOCH,
                          memory_order_relaxed);
    if (mode == TM_CM_SERIAL && atomic_load_explicit(&tm_bias_grants_off, memory_order_relaxed))
        tm_count_add1(&tm_cm.grants_off_epochs);
    if (mode == TM_CM_SERIAL && atomic_load_explicit(&tm_serial_plain, memory_order_relaxed))
        tm_count_add1(&tm_cm.plain_epochs);
    uint64_t next = TM_CM_EPOCH;
    if (tm_cm.probing && tm_cm.warming) {
        tm_cm.warming = false; /* the probe's warm-up: not measured (see above) */
        tm_cm.glance = true;
        next = TM_CM_EPOCH / 4;
    } else if (tm_cm.probing) {
        tm_cm.probing = false;
        if (mode == TM_CM_SERIAL && tm_cm.probe_setting != tm_cm.lock_setting) {
            /* a probe with another setting of the lock (tm_cm_probe_lock): kept if it cost
             * less than the serial mode's last measure with the kept one; else that measure
             * stays the serial mode's, and the kept setting is put back */
            tm_cm_keys(cost, tm_cm_est_cost(TM_CM_SERIAL), &kc, &ki);
            if (kc && ki && kc < ki) {
                tm_cm.lock_setting = tm_cm.probe_setting;
            } else {
                if (kc && ki) /* (with nothing to compare, this measure is the serial mode's) */
                    cost = tm_cm_est_cost(TM_CM_SERIAL);
                tm_cm_lock_apply(tm_cm.lock_setting);
            }
        }
        tm_cm_set_est(mode, cost); /* a fresh measurement of the probed mode */
        uint32_t inc = tm_cm.incumbent;
        tm_cm_keys(cost, tm_cm_est_cost(inc), &kc, &ki);
        if (tm_cm_wins(mode, kc, inc, ki)) {
            tm_cm.incumbent = mode;
            tm_cm.run = 2;
            tm_cm.base = cost;
        } else {
            tm_cm_switch(tx, inc);
            tm_cm.run = tm_cm_doubled(tm_cm.run);
            tm_cm.base = tm_cm_est_cost(inc);
        }
        tm_cm.left = tm_cm.run;
    } else if (tm_cm.lock_trial) {
        /* A serial epoch with another setting of the lock (nothing else runs one: a trial
         * starts only in serial mode, and only when no probe does) */
        tm_cm_lock_verdict(mode, cost);
    } else {
        /* The moving average, with an epoch dearer than twice it counted as twice it (one
         * epoch in which the threads were preempted must not make every challenger look
         * cheap, nor restart the back-off below), and the epochs' deviation from it. */
        tm_cm_price old = tm_cm_est_cost(mode), avg = cost;
        if (old.c) {
            uint64_t c = tm_cm_clamp(cost.c, old.c), d = c > old.c ? c - old.c : old.c - c;
            tm_cm.noise[mode] = (3 * tm_cm.noise[mode] + (uint32_t)(d * 1024 / old.c)) / 4;
            avg.c = (old.c + c) / 2;
        }
        if (old.w && cost.w)
            avg.w = (old.w + tm_cm_clamp(cost.w, old.w)) / 2;
        tm_cm_set_est(mode, avg);
        /* The workload changed under the incumbent (see the top): challenge it again soon. */
        tm_cm_keys(avg, tm_cm.base, &kc, &ki);
        if (ki && kc > 2 * ki && tm_cm.left > 2) {
            tm_cm.run = 2;
            tm_cm.left = 2;
            tm_cm.base = avg;
        }
        /* The next mode worth probing now, in turn (the orec modes only with enough threads
         * to pay for them; the redo-log ones only if allowed). gl_wt and serial always are. */
        uint32_t threads = tm_bias_thread_count(), probe = tm_cm.next_probe % TM_CM_N_MODES;
        while (probe == mode || !tm_cm_usable(probe, threads))
            probe = (probe + 1) % TM_CM_N_MODES;
        if (tm_cm_est(probe) == 0 || --tm_cm.left == 0) {
            /* The rotation moves on only when a probe starts. (It used to move at every
             * epoch: with two challengers and an even back-off, the one whose turn fell on
             * the last epoch was always the same, and the other was never measured again.) */
            tm_cm.next_probe = probe + 1;
            tm_cm.incumbent = mode;
            const tm_dispatch *d = tm_hooks.adaptive_modes[probe];
            if (d && d->prepare)
                d->prepare(); /* before the drain: the others go on meanwhile */
            if (probe == TM_CM_SERIAL)
                tm_cm_probe_lock();
            tm_cm_switch(tx, probe);
            tm_cm.probing = true;
            tm_cm.warming = true;
            next = TM_CM_WARM;
            tm_count_add1(&tm_cm.probes[probe]);
        } else if (mode == TM_CM_SERIAL) {
            tm_cm_lock_trial();
        }
    }
    atomic_store_explicit(&tm_cm.epoch_end, now + next, memory_order_relaxed);
}
