/* Shared-line counting (the TMKIT_COUNT_LINES build, docs/scaling.md): every store or
 * read-modify-write the runtime makes to memory that other threads read or write, counted per
 * thread by kind (what the line is) and phase (where in the transaction), with writes to one
 * cache line counted once per attempt as well. Off by default: then every macro below is
 * empty and the runtime's code is what it would be without them.
 *
 * A site names its kind and either its phase or none (TM_LINES: the phase the transaction is
 * in, set by TM_LINES_PHASE where a begin, a barrier's general path, a commit, an abort or the
 * switch to irrevocable starts). TM_LINES_END closes an attempt (committed or not): the set of
 * lines it wrote starts again empty. */
#ifndef TMKIT_LINES_H
#define TMKIT_LINES_H

enum {
    TM_LK_CLOCK,       /* gl_wt's version, NOrec's sequence lock, the orec clock */
    TM_LK_OREC,        /* ownership records (lock and release) */
    TM_LK_SERIAL,      /* the serial lock's word (and the readers-excluded flag) */
    TM_LK_SERIAL_WAIT, /* the serial lock's sleeper words (tm_serial_rwait, tm_serial_rgen) */
    TM_LK_DESC,        /* own descriptor's shared_ts/attempts line: drain, quiescence, bias read it */
    TM_LK_CM_OWN,      /* own descriptor's adaptive commit count: the decider sums it per epoch */
    TM_LK_CM,          /* adaptive's shared decision state (busy flag, epoch, mode) */
    TM_LK_BIAS,        /* the bias word and the count of transacting threads */
    TM_LK_IDS,         /* transaction-id blocks, the descriptor registry */
    TM_LK_QREAD,       /* READS, not writes: other descriptors' shared_ts lines read by quiescence
                        * and by the serial lock's drain (their owners write them every attempt) */
    TM_LK_N
};

enum {
    TM_LP_BEGIN,
    TM_LP_READ,
    TM_LP_WRITE,
    TM_LP_COMMIT,
    TM_LP_ABORT,
    TM_LP_IRREV,  /* a speculative transaction switching to serial-irrevocable */
    TM_LP_THREAD, /* a thread's first transaction and its exit, not per transaction */
    TM_LP_N,
    TM_LP_CONTEXT = TM_LP_N /* a site's "the phase the transaction is in" */
};

#ifdef TMKIT_COUNT_LINES
#define TM_LINES_ON 1
extern unsigned tm_lines_print __attribute__((visibility("hidden"))); /* TMKIT_COUNT_LINES=1 */
void tm_lines_note(unsigned kind, unsigned phase, const volatile void *addr)
    __attribute__((visibility("hidden")));
void tm_lines_phase(unsigned phase) __attribute__((visibility("hidden")));
void tm_lines_end(int committed) __attribute__((visibility("hidden")));
#define TM_LINES(kind, addr) tm_lines_note((kind), TM_LP_CONTEXT, (addr))
#define TM_LINES_AT(kind, phase, addr) tm_lines_note((kind), (phase), (addr))
#define TM_LINES_PHASE(phase) tm_lines_phase(phase)
#define TM_LINES_END(committed) tm_lines_end(committed)
#else
#define TM_LINES_ON 0
#define TM_LINES(kind, addr) ((void)0)
#define TM_LINES_AT(kind, phase, addr) ((void)0)
#define TM_LINES_PHASE(phase) ((void)0)
#define TM_LINES_END(committed) ((void)0)
#endif

#endif
