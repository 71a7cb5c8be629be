/* Run-time configuration, parsed once at load time from TMKIT_* environment variables through
 * one table (config.c). Unknown TMKIT_* names and malformed values stop the program. */
#ifndef TMKIT_CONFIG_H
#define TMKIT_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

typedef struct tm_algo tm_algo;

typedef struct tm_config {
    const tm_algo *algo;     /* TMKIT_ALGO */
    uint32_t max_retries;    /* TMKIT_MAX_RETRIES: failed attempts before running serially */
    uint32_t stats_stride; /* TMKIT_STATS_STRIDE: 0 adapts; N times ~1 attempt in N per site */
    uint32_t privatization;  /* TMKIT_PRIVATIZATION: enum tm_priv */
    uint32_t serial_wait;    /* TMKIT_SERIAL_WAIT: enum tm_serial_wait_mode */
    uint32_t htm;            /* TMKIT_HTM: enum tm_htm_mode */
    uint32_t adaptive_modes; /* TMKIT_ADAPTIVE_MODES: enum tm_adaptive_modes */
    uint32_t bias;           /* TMKIT_BIAS: enum tm_bias_mode */
    uint32_t redo_check;     /* TMKIT_REDO_CHECK: enum tm_redo_check_mode (redo.h) */
} tm_config_t;

/* TMKIT_PRIVATIZATION, in the order of its words in the table (config.c). */
enum tm_priv {
    TM_PRIV_AUTO,    /* quiesce unless the mode restarts faulting doomed readers (faultguard.c) */
    TM_PRIV_QUIESCE, /* every writer commit waits for concurrent transactions */
    TM_PRIV_OFF,     /* never: for programs that do not privatize */
};

/* TMKIT_HTM, in the order of its words in the table (config.c). */
enum tm_htm_mode {
    TM_HTM_AUTO, /* the serial modes elide the serial lock with RTM where the CPU has it (htm.c) */
    TM_HTM_OFF,
    TM_HTM_SIMULATE, /* tests: the hardware path runs, every try aborts as scripted (htm.c) */
};

enum tm_serial_wait_mode {
    TM_SERIAL_WAIT_SLEEP, /* hand-off, timed sleeps, then register (serial_handoff.c) */
    TM_SERIAL_WAIT_BLOCK, /* register at once and sleep until an unlock wakes us (glibc's way) */
};

/* TMKIT_BIAS, in the order of its words in the table (config.c). */
enum tm_bias_mode {
    TM_BIAS_ROTATE, /* the only transacting thread, or a serial holder on a streak (bias.c) */
    TM_BIAS_SINGLE, /* the only transacting thread */
};

/* TMKIT_ADAPTIVE_MODES, in the order of its words in the table (config.c). */
enum tm_adaptive_modes {
    TM_ADAPTIVE_WRITE_THROUGH, /* gl_wt, serial, orec_eager: libitm's visible semantics */
    TM_ADAPTIVE_ALL,           /* also NOrec and orec_lazy (redo logs; docs/algorithms.md) */
};

extern tm_config_t tm_config __attribute__((visibility("hidden")));

/* The configuration table as text (config.c; `tmkit-info --config`). */
void tm_config_describe(FILE *out) __attribute__((visibility("hidden")));

#endif
