/* Direct calls to all 15 _ITM_memcpy* variants (Rn/Rt/RtaR/RtaW source x Wn/Wt/WtaR/WtaW
 * destination) for sizes 0..4097 at several source and destination misalignments. The "after
 * read"/"after write" preconditions are set up with byte barriers first, so RtaW must copy what
 * this transaction wrote to the source. Inside the transaction the destination reads back (with
 * barriers) as the copy; after commit memory matches a model; after a cancel everything is
 * restored, except a Wn destination, which is written directly and keeps the copy. The return
 * value is checked in c_mem_retval.c. */
// TMTEST: valgrind=yes
#include "harness.h"

typedef void *(*xfer_fn)(void *, const void *, size_t) TH_PURE;
enum kind { K_N, K_T, K_TAR, K_TAW };
struct variant {
    const char *name;
    xfer_fn fn;
    enum kind src, dst;
};
#define V(sfx, s, d) { #sfx, _ITM_memcpy##sfx, s, d }
static const struct variant variants[] = {
    V(RnWt, K_N, K_T),       V(RnWtaR, K_N, K_TAR),     V(RnWtaW, K_N, K_TAW),
    V(RtWn, K_T, K_N),       V(RtWt, K_T, K_T),         V(RtWtaR, K_T, K_TAR),
    V(RtWtaW, K_T, K_TAW),   V(RtaRWn, K_TAR, K_N),     V(RtaRWt, K_TAR, K_T),
    V(RtaRWtaR, K_TAR, K_TAR), V(RtaRWtaW, K_TAR, K_TAW), V(RtaWWn, K_TAW, K_N),
    V(RtaWWt, K_TAW, K_T),   V(RtaWWtaR, K_TAW, K_TAR), V(RtaWWtaW, K_TAW, K_TAW),
};

#define MEM 16384
static unsigned char mem[MEM], orig[MEM], model[MEM];
static int flag;       /* ordinary transactional access; undone by a cancel */
static int inside_bad;

TH_PURE static void note(int ok) { inside_bad += !ok; }
TH_PURE static int raw_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}
/* Transactional byte reads / writes used to set up the aR / aW preconditions. */
TH_PURE static void tx_read(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        (void)_ITM_RU1(p + i);
}
TH_PURE static void tx_write(unsigned char *p, size_t n, unsigned char salt)
{
    for (size_t i = 0; i < n; i++)
        _ITM_WU1(p + i, (uint8_t)(i * 13 + salt));
}
TH_PURE static int tx_equal(const unsigned char *p, const unsigned char *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (_ITM_RU1(p + i) != want[i])
            return 0;
    return 1;
}

static void run_case(const struct variant *v, size_t n, size_t soff, size_t doff, int cancel,
                     unsigned seed)
{
    unsigned char *src = mem + soff, *dst = mem + MEM / 2 + doff;
    size_t d_at = MEM / 2 + doff;
    for (size_t i = 0; i < MEM; i++)
        mem[i] = (unsigned char)((i * 31 + seed) ^ (i >> 8));
    memcpy(orig, mem, MEM);
    memcpy(model, mem, MEM);
    if (v->src == K_TAW)
        for (size_t i = 0; i < n; i++)
            model[soff + i] = (unsigned char)(i * 13 + 0x40);
    memcpy(model + d_at, model + soff, n);

    __transaction_atomic {
        flag = 1;
        if (v->src == K_TAR)
            tx_read(src, n);
        if (v->src == K_TAW)
            tx_write(src, n, 0x40);
        if (v->dst == K_TAR)
            tx_read(dst, n);
        if (v->dst == K_TAW)
            tx_write(dst, n, 0x99);
        v->fn(dst, src, n);
        if (v->dst == K_N)
            note(raw_equal(dst, model + d_at, n));
        else
            note(tx_equal(dst, model + d_at, n));
        if (cancel)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    if (inside_bad) {
        fprintf(stderr, "%s n=%zu soff=%zu doff=%zu: wrong data inside the transaction\n",
                v->name, n, soff, doff);
        exit(1);
    }
    if (cancel) {
        CHECK_EQ(flag, 0);
        if (v->dst == K_N) /* written directly: not undone */
            memcpy(orig + d_at, model + d_at, n);
        if (memcmp(mem, orig, MEM) != 0) {
            fprintf(stderr, "%s n=%zu soff=%zu doff=%zu: cancel did not restore memory\n",
                    v->name, n, soff, doff);
            exit(1);
        }
    } else {
        CHECK_EQ(flag, 1);
        if (memcmp(mem, model, MEM) != 0) {
            fprintf(stderr, "%s n=%zu soff=%zu doff=%zu: wrong memory after commit\n", v->name,
                    n, soff, doff);
            exit(1);
        }
    }
    flag = 0;
}

int main(void)
{
    th_check_runtime();
    static const size_t sizes[] = { 0, 1, 7, 8, 9, 63, 64, 4097 };
    static const size_t soffs[] = { 0, 1, 3, 7 };
    static const size_t doffs[] = { 0, 5 };
    unsigned seed = 1;
    int cases = 0;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t a = 0; a < sizeof soffs / sizeof soffs[0]; a++)
                for (size_t b = 0; b < sizeof doffs / sizeof doffs[0]; b++)
                    for (int cancel = 0; cancel < 2; cancel++) {
                        run_case(&variants[v], sizes[s], soffs[a], doffs[b], cancel, seed++);
                        cases++;
                    }
    CHECK_EQ(cases, 15 * 8 * 4 * 2 * 2);
    return 0;
}
