/* Direct calls to _ITM_memsetW, _ITM_memsetWaR and _ITM_memsetWaW for sizes 0..100000 at every
 * misalignment 0..7, with fill values that need truncation to a byte (0x1A5 -> 0xA5, -1 -> 0xFF).
 * Preconditions of WaR/WaW are set up with byte barriers first. Inside the transaction the range
 * reads back as the fill value; after commit exactly the range changed; a cancel restores every
 * byte. The return value is checked in c_mem_retval.c. */
#include "harness.h"

typedef void *(*set_fn)(void *, int, size_t) TH_PURE;
static const struct {
    const char *name;
    set_fn fn;
    int pre; /* 0: none, 1: read first (WaR), 2: write first (WaW) */
} variants[] = {
    { "memsetW", _ITM_memsetW, 0 },
    { "memsetWaR", _ITM_memsetWaR, 1 },
    { "memsetWaW", _ITM_memsetWaW, 2 },
};

#define MEM (100000 + 64)
static unsigned char *mem, *orig;
static int flag;
static int inside_bad;

TH_PURE static void note(int ok) { inside_bad += !ok; }
TH_PURE static void tx_read(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        (void)_ITM_RU1(p + i);
}
TH_PURE static void tx_write(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        _ITM_WU1(p + i, (uint8_t)(i * 7 + 3));
}
TH_PURE static int tx_all(const unsigned char *p, unsigned char want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (_ITM_RU1(p + i) != want)
            return 0;
    return 1;
}

static void run_case(int v, size_t n, size_t off, int value, int cancel, unsigned seed)
{
    unsigned char *p = mem + off;
    unsigned char byte = (unsigned char)value;
    for (size_t i = 0; i < MEM; i++)
        mem[i] = (unsigned char)(i * 29 + seed);
    memcpy(orig, mem, MEM);

    __transaction_atomic {
        flag = 1;
        if (variants[v].pre == 1)
            tx_read(p, n);
        if (variants[v].pre == 2)
            tx_write(p, n);
        variants[v].fn(p, value, n);
        note(tx_all(p, byte, n));
        if (cancel)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    if (inside_bad) {
        fprintf(stderr, "%s n=%zu off=%zu: wrong bytes inside the transaction\n",
                variants[v].name, n, off);
        exit(1);
    }
    if (!cancel) {
        CHECK_EQ(flag, 1);
        memset(orig + off, byte, n);
    } else {
        CHECK_EQ(flag, 0);
    }
    if (memcmp(mem, orig, MEM) != 0) {
        size_t i = 0;
        while (mem[i] == orig[i])
            i++;
        fprintf(stderr, "%s n=%zu off=%zu cancel=%d: byte %zu is %#x, want %#x\n",
                variants[v].name, n, off, cancel, i, mem[i], orig[i]);
        exit(1);
    }
    flag = 0;
}

int main(void)
{
    th_check_runtime();
    mem = malloc(MEM);
    orig = malloc(MEM);
    CHECK(mem && orig);
    static const size_t sizes[] = { 0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4096, 4097 };
    static const int values[] = { 0, 0x5A, 0x1A5, -1 };
    unsigned seed = 0;
    int cases = 0;
    for (int v = 0; v < 3; v++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t off = 0; off < 8; off++)
                for (int cancel = 0; cancel < 2; cancel++) {
                    run_case(v, sizes[s], off, values[(s + off) % 4], cancel, seed++);
                    cases++;
                }
        /* One large range. */
        for (int cancel = 0; cancel < 2; cancel++) {
            run_case(v, 100000, 3, 0xC3, cancel, seed++);
            cases++;
        }
    }
    CHECK_EQ(cases, 3 * (14 * 8 * 2 + 2));
    free(mem);
    free(orig);
    return 0;
}
