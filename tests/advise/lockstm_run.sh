#!/bin/sh
# LockSTM's example rewritten by `tmkit advise --patch` (lock groups for PromptForX and SwapXY,
# transactions for the rest) runs on tmkit: threads swap X and Y while others set and read Z
# and PromptForX reads a new X under its group; X + Y stays what the swaps preserve.
ROOT=$1 LIBDIR=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tests/advise"
cp "$ROOT/tests/advise/lockstm_paper.c" "$T/tests/advise/"
(cd "$ROOT" && bin/tmkit advise --patch tests/advise/lockstm_paper.c) > "$T/diff" || { echo "FAIL: advise --patch"; exit 1; }
grep -q "tm_group_lock" "$T/diff" && grep -q "tm_group_enter" "$T/diff" || { echo "FAIL: no group constructs"; cat "$T/diff"; exit 1; }
patch -s -p1 -d "$T" < "$T/diff" || { echo "FAIL: the diff does not apply"; exit 1; }
cat > "$T/main.c" <<'C'
#include <pthread.h>
#include <stdio.h>
void PromptForX(void); void SwapXY(void); int GetY(void); void SetY(int); int GetZ(void); void SetZ(int);
extern int X_for_test(void);
static void *swapper(void *a) { for (int i = 0; i < 20001; i++) SwapXY(); return a; }
static void *zed(void *a) { for (int i = 0; i < 20000; i++) SetZ(GetZ() + 1); return a; } /* racy, as with the locks */
int main(void)
{
    PromptForX(); /* reads 7 from stdin */
    SetY(5);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, i % 2 ? swapper : zed, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    int x = X_for_test(), y = GetY(), z = GetZ();
    printf("\nX %d Y %d Z %d\n", x, y, z);
    return x + y == 12 && (y == 5 || y == 7) && z > 0 ? 0 : 1;
}
C
# X is static in the example: read it as GetY between two swaps
sed -i 's/extern int X_for_test(void);/static int X_for_test(void) { SwapXY(); int v = GetY(); SwapXY(); return v; }/' "$T/main.c"
gcc -O2 -fgnu-tm -pthread -I "$ROOT/include" "$T/tests/advise/lockstm_paper.c" "$T/main.c" -o "$T/prog" \
    2> "$T/cc.err" || { echo "FAIL: the patched example does not compile"; cat "$T/cc.err"; exit 1; }
for algo in adaptive norec orec_eager gl_wt serialirr; do
    echo 7 | LD_LIBRARY_PATH="$LIBDIR" TMKIT_ALGO=$algo "$T/prog" > "$T/out" ||
        { echo "FAIL: $algo: $(cat "$T/out")"; exit 1; }
done
echo "lockstm_run: ok ($(tail -1 "$T/out"))"
