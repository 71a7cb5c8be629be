/* __m256 barriers. This file alone is compiled with -mavx: the values travel in %ymm registers,
 * which only AVX code can produce; it is only ever called by code that was itself built for AVX. */
#include <immintrin.h>

#include "barrier_defs.h"

TM_READ(_ITM_RM256, __m256)
TM_READ(_ITM_RaRM256, __m256)
TM_READ(_ITM_RaWM256, __m256)
TM_READ(_ITM_RfWM256, __m256)
TM_WRITE(_ITM_WM256, __m256)
TM_WRITE(_ITM_WaRM256, __m256)
TM_WRITE(_ITM_WaWM256, __m256)
TM_LOG(_ITM_LM256, __m256)
