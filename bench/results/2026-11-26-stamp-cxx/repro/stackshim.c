/* Diagnosis only, not a fix: an LD_PRELOAD library that makes every write barrier whose address
 * lies on the calling thread's stack store in place instead of reaching tmkit's redo log (copies
 * to the stack read their source through _ITM_memcpyRtWn/_ITM_memmoveRtWn). It does not undo
 * those stores on abort, so it is only meaningful for single-thread runs, which never abort.
 * With it, the four stamp_c++_stl programs that fail under norec and orec_lazy pass at 1 thread.
 *   gcc -O2 -shared -fPIC stackshim.c -o stackshim.so -ldl
 *   LD_PRELOAD=./stackshim.so LD_LIBRARY_PATH=$TMKIT/lib TMKIT_ALGO=norec PROGRAM -t1 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <immintrin.h>
static __thread uintptr_t lo, hi;
static int on_stack(const void *p, size_t n)
{
    if (!hi) {
        pthread_attr_t a; void *base; size_t sz;
        pthread_getattr_np(pthread_self(), &a);
        pthread_attr_getstack(&a, &base, &sz);
        lo = (uintptr_t)base; hi = lo + sz;
    }
    uintptr_t x = (uintptr_t)p;
    return x >= lo && x + n <= hi;
}
#define W(name, T) \
    void name(T *p, T v) { static void (*real)(T *, T); \
        if (on_stack(p, sizeof(T))) { memcpy(p, &v, sizeof(T)); return; } \
        if (!real) { real = dlsym(RTLD_NEXT, #name); } real(p, v); }
#define W3(s, T) W(_ITM_W##s, T) W(_ITM_WaR##s, T) W(_ITM_WaW##s, T)
W3(U1, uint8_t) W3(U2, uint16_t) W3(U4, uint32_t) W3(U8, uint64_t)
W3(F, float) W3(D, double) W3(M128, __m128)
void _ITM_memsetW(void *d, int c, size_t n) { static void (*real)(void *, int, size_t);
    if (on_stack(d, n)) { memset(d, c, n); return; }
    if (!real) { real = dlsym(RTLD_NEXT, "_ITM_memsetW"); } real(d, c, n); }
#define MC(name, alt) \
    void name(void *d, const void *s, size_t n) { static void (*real)(void *, const void *, size_t); \
        static void (*ralt)(void *, const void *, size_t); \
        if (on_stack(d, n)) { if (!ralt) ralt = dlsym(RTLD_NEXT, #alt); ralt(d, s, n); return; } \
        if (!real) { real = dlsym(RTLD_NEXT, #name); } real(d, s, n); }
MC(_ITM_memcpyRtWt, _ITM_memcpyRtWn) MC(_ITM_memcpyRnWt, _ITM_memcpyRtWn)
MC(_ITM_memmoveRtWt, _ITM_memmoveRtWn) MC(_ITM_memmoveRnWt, _ITM_memmoveRtWn)
