/* Return values of the memory-transfer functions. GCC declares the _ITM_memcpy*, _ITM_memmove*
 * and _ITM_memset* entry points like memcpy/memmove/memset and uses their result when the
 * program does (p = memcpy(...) inside a transaction, or return memcpy(...) in a transactional
 * function) and, at -O2, even when it does not (it reads the copied bytes back through the
 * returned pointer), so a runtime must return dst from all 33 of them, even though the Intel ABI
 * document declares them void.
 * The system libitm returns garbage from _ITM_memcpy* and _ITM_memmove* under gl_wt and ml_wt
 * (its functions are void); under serialirr the result happens to be dst. */
// TMTEST: libitm-methods=serialirr
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

typedef void *(*xfer_fn)(void *, const void *, size_t) TH_PURE;
typedef void *(*set_fn)(void *, int, size_t) TH_PURE;

#define X(op, sfx) { #op #sfx, _ITM_##op##sfx }
#define XFER(op)                                                                        \
    X(op, RnWt), X(op, RnWtaR), X(op, RnWtaW), X(op, RtWn), X(op, RtWt), X(op, RtWtaR), \
    X(op, RtWtaW), X(op, RtaRWn), X(op, RtaRWt), X(op, RtaRWtaR), X(op, RtaRWtaW),      \
    X(op, RtaWWn), X(op, RtaWWt), X(op, RtaWWtaR), X(op, RtaWWtaW)
static const struct {
    const char *name;
    xfer_fn fn;
} xfers[] = { XFER(memcpy), XFER(memmove) };
static const struct {
    const char *name;
    set_fn fn;
} sets[] = { { "memsetW", _ITM_memsetW }, { "memsetWaR", _ITM_memsetWaR },
             { "memsetWaW", _ITM_memsetWaW } };

static char src[256], dst[256];
static size_t len = 40; /* not a compile-time constant in the transactions below */
static int flag;

TM_SAFE NOINLINE static void *copy_in_clone(char *d, const char *s, size_t n)
{
    return memcpy(d, s, n);
}
TM_SAFE NOINLINE static void *move_in_clone(char *d, const char *s, size_t n)
{
    return memmove(d, s, n);
}
TM_SAFE NOINLINE static void *set_in_clone(char *d, int c, size_t n) { return memset(d, c, n); }

int main(void)
{
    th_check_runtime();
    int bad = 0;
    for (int i = 0; i < 256; i++)
        src[i] = (char)i;

    /* Direct calls, several destinations each. */
    for (size_t k = 0; k < sizeof xfers / sizeof xfers[0]; k++) {
        for (int off = 0; off < 4; off++) {
            void *r;
            __transaction_atomic {
                flag++;
                r = xfers[k].fn(dst + off * 3, src + off, len);
            }
            TH_FORGET_MEMORY();
            if (r != dst + off * 3) {
                fprintf(stderr, "_ITM_%s returned %p, want %p\n", xfers[k].name, r,
                        (void *)(dst + off * 3));
                bad++;
            }
        }
    }
    for (size_t k = 0; k < 3; k++) {
        for (int off = 0; off < 4; off++) {
            void *r;
            __transaction_atomic {
                flag++;
                r = sets[k].fn(dst + off, 0x33, len);
            }
            TH_FORGET_MEMORY();
            if (r != dst + off) {
                fprintf(stderr, "_ITM_%s returned %p, want %p\n", sets[k].name, r,
                        (void *)(dst + off));
                bad++;
            }
        }
    }
    CHECK_EQ(flag, (30 + 3) * 4);

    /* Compiler-emitted calls whose result the program uses. */
    for (int off = 0; off < 8; off++) {
        char *p = NULL, *q = NULL, *s = NULL;
        __transaction_atomic {
            p = memcpy(dst + off, src, len);
            q = memmove(dst + 1, dst + off, len);
            s = memset(dst + 2 * off, 0x77, len);
        }
        TH_FORGET_MEMORY();
        if (p != dst + off || q != dst + 1 || s != dst + 2 * off) {
            fprintf(stderr, "compiler-emitted calls: off %d returned %p %p %p\n", off,
                    (void *)p, (void *)q, (void *)s);
            bad++;
        }
        __transaction_atomic {
            p = copy_in_clone(dst + off, src, len);
            q = move_in_clone(dst + 3, dst + off, len);
            s = set_in_clone(dst + off, 0x11, len);
        }
        TH_FORGET_MEMORY();
        if (p != dst + off || q != dst + 3 || s != dst + off) {
            fprintf(stderr, "returned from TM clones: off %d returned %p %p %p\n", off,
                    (void *)p, (void *)q, (void *)s);
            bad++;
        }
    }
    /* No explicit use: at -O2 GCC itself addresses dst through the returned pointer when the
     * copied data is read back in the same transaction. */
    for (int round = 0; round < 8; round++) {
        char first = 0;
        __transaction_atomic {
            memcpy(dst + 1, src + round, len);
            first = dst[1];
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(first, src[round]);
    }
    CHECK_EQ(bad, 0);
    return 0;
}
