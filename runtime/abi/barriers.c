/* Read, write and log barriers for every scalar and vector type GCC instruments.
 *
 * Families: R (read), RaR/RaW/RfW (read after read / after write / for write), W (write),
 * WaR/WaW (write after read / after write), L (log a location's current value so a restart
 * restores it). The a*-variants are hints; every algorithm here is correct treating them as the
 * plain R and W, which keeps one fast path per access size. The full name of every exported
 * function appears literally below so that grep finds it.
 */
#include <complex.h>
#include <immintrin.h>

#include "barrier_defs.h"

uint64_t tm_read_slow(const void *addr, unsigned size, tm_tx *tx)
{
    uint64_t raw = 0;
    (tx ? tx->disp : &tm_disp_direct)->read(tx, &raw, addr, size);
    return raw;
}

void tm_write_slow(void *addr, uint64_t raw, unsigned size, tm_tx *tx)
{
    (tx ? tx->disp : &tm_disp_direct)->write(tx, addr, &raw, size);
}

typedef float _Complex tm_cf;
typedef double _Complex tm_cd;
typedef long double _Complex tm_ce;

/* uint8_t */
TM_READ_SMALL(_ITM_RU1, uint8_t)
TM_READ_SMALL(_ITM_RaRU1, uint8_t)
TM_READ_SMALL(_ITM_RaWU1, uint8_t)
TM_READ_SMALL(_ITM_RfWU1, uint8_t)
TM_WRITE_SMALL(_ITM_WU1, uint8_t)
TM_WRITE_SMALL(_ITM_WaRU1, uint8_t)
TM_WRITE_SMALL(_ITM_WaWU1, uint8_t)
TM_LOG(_ITM_LU1, uint8_t)
/* uint16_t */
TM_READ_SMALL(_ITM_RU2, uint16_t)
TM_READ_SMALL(_ITM_RaRU2, uint16_t)
TM_READ_SMALL(_ITM_RaWU2, uint16_t)
TM_READ_SMALL(_ITM_RfWU2, uint16_t)
TM_WRITE_SMALL(_ITM_WU2, uint16_t)
TM_WRITE_SMALL(_ITM_WaRU2, uint16_t)
TM_WRITE_SMALL(_ITM_WaWU2, uint16_t)
TM_LOG(_ITM_LU2, uint16_t)
/* uint32_t */
TM_READ_SMALL(_ITM_RU4, uint32_t)
TM_READ_SMALL(_ITM_RaRU4, uint32_t)
TM_READ_SMALL(_ITM_RaWU4, uint32_t)
TM_READ_SMALL(_ITM_RfWU4, uint32_t)
TM_WRITE_SMALL(_ITM_WU4, uint32_t)
TM_WRITE_SMALL(_ITM_WaRU4, uint32_t)
TM_WRITE_SMALL(_ITM_WaWU4, uint32_t)
TM_LOG(_ITM_LU4, uint32_t)
/* uint64_t */
TM_READ_SMALL(_ITM_RU8, uint64_t)
TM_READ_SMALL(_ITM_RaRU8, uint64_t)
TM_READ_SMALL(_ITM_RaWU8, uint64_t)
TM_READ_SMALL(_ITM_RfWU8, uint64_t)
TM_WRITE_SMALL(_ITM_WU8, uint64_t)
TM_WRITE_SMALL(_ITM_WaRU8, uint64_t)
TM_WRITE_SMALL(_ITM_WaWU8, uint64_t)
TM_LOG(_ITM_LU8, uint64_t)
/* float */
TM_READ_SMALL(_ITM_RF, float)
TM_READ_SMALL(_ITM_RaRF, float)
TM_READ_SMALL(_ITM_RaWF, float)
TM_READ_SMALL(_ITM_RfWF, float)
TM_WRITE_SMALL(_ITM_WF, float)
TM_WRITE_SMALL(_ITM_WaRF, float)
TM_WRITE_SMALL(_ITM_WaWF, float)
TM_LOG(_ITM_LF, float)
/* double */
TM_READ_SMALL(_ITM_RD, double)
TM_READ_SMALL(_ITM_RaRD, double)
TM_READ_SMALL(_ITM_RaWD, double)
TM_READ_SMALL(_ITM_RfWD, double)
TM_WRITE_SMALL(_ITM_WD, double)
TM_WRITE_SMALL(_ITM_WaRD, double)
TM_WRITE_SMALL(_ITM_WaWD, double)
TM_LOG(_ITM_LD, double)
/* long double */
TM_READ(_ITM_RE, long double)
TM_READ(_ITM_RaRE, long double)
TM_READ(_ITM_RaWE, long double)
TM_READ(_ITM_RfWE, long double)
TM_WRITE(_ITM_WE, long double)
TM_WRITE(_ITM_WaRE, long double)
TM_WRITE(_ITM_WaWE, long double)
TM_LOG(_ITM_LE, long double)
/* float _Complex */
TM_READ_SMALL(_ITM_RCF, tm_cf)
TM_READ_SMALL(_ITM_RaRCF, tm_cf)
TM_READ_SMALL(_ITM_RaWCF, tm_cf)
TM_READ_SMALL(_ITM_RfWCF, tm_cf)
TM_WRITE_SMALL(_ITM_WCF, tm_cf)
TM_WRITE_SMALL(_ITM_WaRCF, tm_cf)
TM_WRITE_SMALL(_ITM_WaWCF, tm_cf)
TM_LOG(_ITM_LCF, tm_cf)
/* double _Complex */
TM_READ(_ITM_RCD, tm_cd)
TM_READ(_ITM_RaRCD, tm_cd)
TM_READ(_ITM_RaWCD, tm_cd)
TM_READ(_ITM_RfWCD, tm_cd)
TM_WRITE(_ITM_WCD, tm_cd)
TM_WRITE(_ITM_WaRCD, tm_cd)
TM_WRITE(_ITM_WaWCD, tm_cd)
TM_LOG(_ITM_LCD, tm_cd)
/* long double _Complex */
TM_READ(_ITM_RCE, tm_ce)
TM_READ(_ITM_RaRCE, tm_ce)
TM_READ(_ITM_RaWCE, tm_ce)
TM_READ(_ITM_RfWCE, tm_ce)
TM_WRITE(_ITM_WCE, tm_ce)
TM_WRITE(_ITM_WaRCE, tm_ce)
TM_WRITE(_ITM_WaWCE, tm_ce)
TM_LOG(_ITM_LCE, tm_ce)
/* __m64 */
TM_READ_SMALL(_ITM_RM64, __m64)
TM_READ_SMALL(_ITM_RaRM64, __m64)
TM_READ_SMALL(_ITM_RaWM64, __m64)
TM_READ_SMALL(_ITM_RfWM64, __m64)
TM_WRITE_SMALL(_ITM_WM64, __m64)
TM_WRITE_SMALL(_ITM_WaRM64, __m64)
TM_WRITE_SMALL(_ITM_WaWM64, __m64)
TM_LOG(_ITM_LM64, __m64)
/* __m128 */
TM_READ(_ITM_RM128, __m128)
TM_READ(_ITM_RaRM128, __m128)
TM_READ(_ITM_RaWM128, __m128)
TM_READ(_ITM_RfWM128, __m128)
TM_WRITE(_ITM_WM128, __m128)
TM_WRITE(_ITM_WaRM128, __m128)
TM_WRITE(_ITM_WaWM128, __m128)
TM_LOG(_ITM_LM128, __m128)

/* Any size (GCC logs aggregates with _ITM_LB). */
TM_EXPORT void _ITM_LB(const void *addr, size_t len)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting)
        tm_undo_push(&tx->locals, addr, len);
}
