/* memcpy, memmove, memset and large struct assignments written in transactional code: GCC turns
 * them into _ITM_memcpy*, _ITM_memmove* and _ITM_memset* calls (in transaction bodies and in
 * transaction_safe clones). Checks the bytes after commit, the restore after a cancel, reads of
 * the copied data later in the same transaction, copies between shared memory and locals, and
 * overlapping memmove in both directions. Results of the calls are not used here (see
 * c_mem_retval.c): the data is not read back right after a memcpy in the same transaction, since
 * GCC -O2 then reuses the returned pointer.
 * The copies into locals run in a helper frame below the locals' frame: the system libitm does
 * not restore an undo entry that starts at the stack pointer of the frame that began the
 * transaction (c_stack_frame_bottom.c), and at -O0 GCC puts the local struct exactly there. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

#define BUF 8192
static unsigned char g_src[BUF], g_dst[BUF], g_ref[BUF];
static struct big {
    long v[40];
    char tag[17];
} g_a, g_b;
static volatile int runtime_one = 1;
static int inside_bad;
TH_PURE static void note(int ok) { inside_bad += !ok; }

TM_SAFE NOINLINE static void clone_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    memcpy(d, s, n);
}
TM_SAFE NOINLINE static void clone_move(unsigned char *d, const unsigned char *s, size_t n)
{
    memmove(d, s, n);
}
TM_SAFE NOINLINE static void clone_set(unsigned char *d, int c, size_t n) { memset(d, c, n); }

/* Copies between shared memory and the caller's locals; cancels if asked. */
NOINLINE static void local_tx(unsigned char *local, struct big *lb, size_t n, int cancel)
{
    __transaction_atomic {
        memcpy(local + 1, g_src + 10, 2 * n); /* shared -> local */
        memcpy(g_dst + 50, local, n);         /* local -> shared */
        *lb = g_a;
        if (cancel)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
}

static void reset(unsigned seed)
{
    for (size_t i = 0; i < BUF; i++) {
        g_src[i] = (unsigned char)(i * 7 + seed);
        g_dst[i] = (unsigned char)(i * 11 + 3 * seed);
    }
    memcpy(g_ref, g_dst, BUF);
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    static const size_t sizes[] = { 0, 1, 7, 8, 63, 64, 4097 };
    unsigned seed = 0;

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k] * (size_t)one;
        for (int cancel = 0; cancel < 2; cancel++) {
            /* Copy, move (overlapping up and down), set, in the body and in clones. */
            reset(++seed);
            __transaction_atomic {
                memcpy(g_dst + 1, g_src + 2, n);
                memmove(g_dst + 3000, g_dst + 3005, n);
                memmove(g_dst + 7005 - n, g_dst + 7000 - n, n);
                memset(g_dst + 2000, 0xAB, n / 2);
                clone_copy(g_dst + 5, g_src + 5000 - n / 2, n / 2);
                clone_move(g_dst + 100, g_dst + 90, n / 3);
                clone_set(g_dst + 4000, 0x5C, n / 4);
                note(n < 4 || g_dst[4000] == 0x5C);
                if (cancel)
                    __transaction_cancel;
            }
            TH_FORGET_MEMORY();
            CHECK_EQ(inside_bad, 0);
            if (!cancel) {
                memcpy(g_ref + 1, g_src + 2, n);
                memmove(g_ref + 3000, g_ref + 3005, n);
                memmove(g_ref + 7005 - n, g_ref + 7000 - n, n);
                memset(g_ref + 2000, 0xAB, n / 2);
                memcpy(g_ref + 5, g_src + 5000 - n / 2, n / 2);
                memmove(g_ref + 100, g_ref + 90, n / 3);
                memset(g_ref + 4000, 0x5C, n / 4);
            }
            CHECK(memcmp(g_dst, g_ref, BUF) == 0);
        }
    }

    /* Struct assignment. */
    for (int i = 0; i < 40; i++) {
        g_a.v[i] = i;
        g_b.v[i] = -i;
    }
    strcpy(g_a.tag, "struct-a");
    strcpy(g_b.tag, "struct-b");
    __transaction_atomic {
        g_a = g_b;
        g_a.v[0] = 99;
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK(g_a.v[5] == 5 && g_a.v[0] == 0 && strcmp(g_a.tag, "struct-a") == 0);
    __transaction_atomic {
        g_a = g_b;
        g_b.v[1] = 77;
    }
    TH_FORGET_MEMORY();
    CHECK(g_a.v[5] == -5 && g_a.v[1] == -1 && strcmp(g_a.tag, "struct-b") == 0);
    CHECK(g_b.v[1] == 77);

    /* Shared <-> local copies. */
    unsigned char local[256];
    struct big lb = g_b;
    reset(++seed);
    memset(local, 'L', sizeof local);
    local_tx(local, &lb, 100 * (size_t)one, one);
    for (int i = 0; i < 256; i++)
        CHECK_EQ(local[i], 'L');
    CHECK(lb.v[1] == 77 && strcmp(lb.tag, "struct-b") == 0);
    CHECK(memcmp(g_dst, g_ref, BUF) == 0);
    local_tx(local, &lb, 100 * (size_t)one, 0);
    CHECK_EQ(local[0], 'L');
    CHECK(memcmp(local + 1, g_src + 10, 200) == 0);
    CHECK_EQ(local[201], 'L');
    CHECK_EQ(g_dst[50], 'L');
    CHECK(memcmp(g_dst + 51, g_src + 10, 99) == 0);
    CHECK(lb.v[5] == -5 && lb.v[1] == -1);
    return 0;
}
