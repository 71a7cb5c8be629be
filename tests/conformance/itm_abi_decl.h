/* Declarations of the Intel TM ABI entry points that tests call directly (GCC does not declare
 * them for user code). Marked transaction_pure so a test may call them inside a transaction.
 * Note: a transaction whose body only calls pure functions is removed by GCC; tests that call
 * barriers directly must also make at least one ordinary transactional access. */
#ifndef TMKIT_TEST_ITM_ABI_DECL_H
#define TMKIT_TEST_ITM_ABI_DECL_H

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h> /* __m64, __m128, __m256 for the vector barriers */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TH_PURE __attribute__((transaction_pure))

typedef uint32_t _ITM_transactionId_t;
typedef void (*_ITM_userUndoFunction)(void *);
typedef void (*_ITM_userCommitFunction)(void *);

enum { th_outsideTransaction = 0, th_inRetryableTransaction = 1, th_inIrrevocableTransaction = 2 };
enum { th_userAbort = 1, th_userRetry = 2, th_TMConflict = 4, th_exceptionBlockAbort = 8,
       th_outerAbort = 16 };
#define TH_NO_TRANSACTION_ID 1u

const char *_ITM_libraryVersion(void) TH_PURE;
int _ITM_versionCompatible(int) TH_PURE;
int _ITM_inTransaction(void) TH_PURE;
_ITM_transactionId_t _ITM_getTransactionId(void) TH_PURE;
void _ITM_addUserCommitAction(_ITM_userCommitFunction, _ITM_transactionId_t, void *) TH_PURE;
void _ITM_addUserUndoAction(_ITM_userUndoFunction, void *) TH_PURE;
void _ITM_dropReferences(void *, size_t) TH_PURE;
void _ITM_registerTMCloneTable(void *, size_t) TH_PURE;
void _ITM_deregisterTMCloneTable(void *) TH_PURE;
void *_ITM_getTMCloneOrIrrevocable(void *) TH_PURE;
void *_ITM_getTMCloneSafe(void *) TH_PURE;

/* ---- Load/store barriers (R, RaR, RaW, RfW, W, WaR, WaW) and logging (L) for one type. ---- */
#define TH_DECLARE_BARRIERS(T, S)      \
    T _ITM_R##S(const T *) TH_PURE;    \
    T _ITM_RaR##S(const T *) TH_PURE;  \
    T _ITM_RaW##S(const T *) TH_PURE;  \
    T _ITM_RfW##S(const T *) TH_PURE;  \
    void _ITM_W##S(T *, T) TH_PURE;    \
    void _ITM_WaR##S(T *, T) TH_PURE;  \
    void _ITM_WaW##S(T *, T) TH_PURE;  \
    void _ITM_L##S(const T *) TH_PURE;

TH_DECLARE_BARRIERS(uint8_t, U1)
TH_DECLARE_BARRIERS(uint16_t, U2)
TH_DECLARE_BARRIERS(uint32_t, U4)
TH_DECLARE_BARRIERS(uint64_t, U8)
TH_DECLARE_BARRIERS(float, F)
TH_DECLARE_BARRIERS(double, D)
TH_DECLARE_BARRIERS(long double, E)
TH_DECLARE_BARRIERS(_Complex float, CF)
TH_DECLARE_BARRIERS(_Complex double, CD)
TH_DECLARE_BARRIERS(_Complex long double, CE)

#if defined(__x86_64__) || defined(__i386__)
TH_DECLARE_BARRIERS(__m64, M64)
TH_DECLARE_BARRIERS(__m128, M128)
/* __m256 is passed in ymm registers only when AVX is enabled: call the M256 barriers only from
 * code compiled with AVX (-mavx or __attribute__((target("avx")))), after checking the CPU. */
TH_DECLARE_BARRIERS(__m256, M256)
#endif

void _ITM_LB(const void *, size_t) TH_PURE;

/* ---- Memory transfer. The Intel ABI documents these as returning void, but GCC declares them
 * like memcpy/memmove/memset and uses the result, so a runtime must return dst. ---- */
#define TH_DECLARE_MEMTRANSFER(OP)                                   \
    void *_ITM_##OP##RnWt(void *, const void *, size_t) TH_PURE;     \
    void *_ITM_##OP##RnWtaR(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RnWtaW(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtWn(void *, const void *, size_t) TH_PURE;     \
    void *_ITM_##OP##RtWt(void *, const void *, size_t) TH_PURE;     \
    void *_ITM_##OP##RtWtaR(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtWtaW(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtaRWn(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtaRWt(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtaRWtaR(void *, const void *, size_t) TH_PURE; \
    void *_ITM_##OP##RtaRWtaW(void *, const void *, size_t) TH_PURE; \
    void *_ITM_##OP##RtaWWn(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtaWWt(void *, const void *, size_t) TH_PURE;   \
    void *_ITM_##OP##RtaWWtaR(void *, const void *, size_t) TH_PURE; \
    void *_ITM_##OP##RtaWWtaW(void *, const void *, size_t) TH_PURE;

TH_DECLARE_MEMTRANSFER(memcpy)
TH_DECLARE_MEMTRANSFER(memmove)
void *_ITM_memsetW(void *, int, size_t) TH_PURE;
void *_ITM_memsetWaR(void *, int, size_t) TH_PURE;
void *_ITM_memsetWaW(void *, int, size_t) TH_PURE;

/* Code-property bits passed to _ITM_beginTransaction. */
enum { th_pr_instrumentedCode = 0x1, th_pr_uninstrumentedCode = 0x2, th_pr_hasNoAbort = 0x8,
       th_pr_doesGoIrrevocable = 0x40 };

/* Compiler barrier for use right after a transaction (never inside one). GCC assumes that a
 * cancelled transaction left memory exactly as it was when the transaction began, so at -O2 it
 * may answer a check made after the cancel from a value it stored before the transaction,
 * without loading it; the check would then pass whatever the runtime did. After this barrier
 * every check reads memory. */
#define TH_FORGET_MEMORY() __asm__ __volatile__("" ::: "memory")

#ifdef __cplusplus
}
#endif
#endif
