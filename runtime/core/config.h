/* Run-time configuration, parsed once at load time from TMKIT_* environment variables through
 * one table (config.c). Unknown TMKIT_* names and malformed values stop the program. */
#ifndef TMKIT_CONFIG_H
#define TMKIT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tm_algo tm_algo;

typedef struct tm_config {
    const tm_algo *algo;     /* TMKIT_ALGO */
    uint32_t max_retries;    /* TMKIT_MAX_RETRIES: failed attempts before running serially */
    uint32_t stats_stride; /* TMKIT_STATS_STRIDE: 0 adapts; N times ~1 attempt in N per site */
    bool privatization;      /* TMKIT_PRIVATIZATION=quiesce|off */
} tm_config_t;

extern tm_config_t tm_config __attribute__((visibility("hidden")));

#endif
