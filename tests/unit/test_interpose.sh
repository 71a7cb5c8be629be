#!/bin/sh
# The program's memcpy/memmove/memset inside transactions (runtime/abi/interpose.c):
#  - the library itself never calls them (core/libc_rename.h renames its own calls), so no
#    runtime copy can be mistaken for the program's;
#  - a program built with gcc -fgnu-tm binds its memcpy@GLIBC_2.14 to tmkit's definition, and
#    still gets glibc's results outside transactions (sizes 0..4096, overlapping memmove);
#  - a program linked directly against tmkit's libitm still records memcpy as libc's (the
#    non-default versions never capture a new link), so it also runs on the system libitm;
#  - the copies, fills and shifts GCC turns into plain calls inside transaction clones at -O2
#    are still plain calls there (if a compiler stops emitting them, the conformance tests
#    c_wt_*_loop.c and mt_wt_calls.c no longer test what they say), and the constant fill of
#    c_wt_inline_fill.c is inline `rep stos`, the case no runtime can see.
. "$(dirname "$0")/lib.sh"
lib=$BUILD/lib/libitm.so.1
und=$(nm -D --undefined-only "$lib" | grep -Ew 'memcpy|memmove|memset|strlen')
[ -z "$und" ] || fail "the runtime calls the interposed names itself: $und"
for s in memcpy@GLIBC_2.14 memmove@GLIBC_2.2.5 memset@GLIBC_2.2.5 strlen@GLIBC_2.2.5; do
    nm -D --defined-only --with-symbol-versions "$lib" | grep -q " T $s\$" || fail "$s not exported"
done

scratch
cat > "$d/plain.c" <<'C'
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <dlfcn.h>
static long counter;
int main(void)
{
    static unsigned char a[8192], b[8192], ref[8192];
    void *(*volatile cp)(void *, const void *, size_t) = memcpy; /* what the program calls */
    void *(*volatile mv)(void *, const void *, size_t) = memmove;
    void *(*volatile st)(void *, int, size_t) = memset;
    for (size_t n = 0; n <= 4096; n = n < 64 ? n + 1 : n * 2 + 3) {
        for (size_t i = 0; i < sizeof a; i++) { a[i] = (unsigned char)(i * 7); b[i] = (unsigned char)(i * 13); }
        if (cp(a + 1, b + 3, n) != a + 1) return 1;
        for (size_t i = 0; i < n; i++) if (a[1 + i] != (unsigned char)((i + 3) * 13)) return 2;
        for (size_t i = 0; i < sizeof a; i++) ref[i] = a[i];
        if (mv(a + 5, a + 2, n) != a + 5) return 3; /* overlapping, forwards */
        for (size_t i = 0; i < n; i++) if (a[5 + i] != ref[2 + i]) return 4;
        if (st(b + 7, 0x1A5, n) != b + 7) return 5;
        for (size_t i = 0; i < n; i++) if (b[7 + i] != 0xA5) return 6;
    }
    __transaction_atomic { counter++; } /* a descriptor exists: the check reads its mode */
    Dl_info i1, i2, i3;
    if (!dladdr((void *)cp, &i1) || !dladdr((void *)mv, &i2) || !dladdr((void *)st, &i3)) return 7;
    printf("%s %s %s\n", i1.dli_fname, i2.dli_fname, i3.dli_fname);
    return 0;
}
C
gcc -O2 -fgnu-tm -pthread "$d/plain.c" -o "$d/plain" -ldl || fail "compile"
out=$(LD_LIBRARY_PATH=$BUILD/lib "$d/plain") || fail "plain copies wrong under tmkit (rc $?)"
[ "$out" = "$BUILD/lib/libitm.so.1 $BUILD/lib/libitm.so.1 $BUILD/lib/libitm.so.1" ] ||
    fail "memcpy, memmove, memset resolve to '$out', not tmkit's"
out=$("$d/plain") || fail "plain copies wrong under the system libitm (rc $?)"
case $out in *libitm*) fail "memcpy etc. resolve to '$out' without tmkit" ;; esac

gcc -O2 -fgnu-tm -pthread -c "$d/plain.c" -o "$d/p.o" || fail "compile"
gcc -pthread "$d/p.o" -L"$BUILD/lib" -litm -ldl -Wl,-rpath,"$BUILD/lib" -o "$d/direct" || fail "link"
readelf -V "$d/direct" | awk '/File:/{f = /libitm/} f && /Name: GLIBC/' | grep -q . &&
    fail "a direct link binds glibc versions to libitm: $(readelf -V "$d/direct")"
readelf -V "$d/direct" | awk '/File:/{f = /libc.so/} f && /Name: GLIBC_2.14/' | grep -q . ||
    fail "a direct link does not take memcpy from libc"
env -u LD_LIBRARY_PATH "$d/direct" > /dev/null || fail "direct link: copies wrong"

clones() { objdump -d --no-show-raw-insn "$1" | awk '/^[0-9a-f]+ <_ZGTt/{p=1; next} /^[0-9a-f]+ </{p=0} p'; }
for t in c_wt_memcpy_loop:memcpy c_wt_memset_loop:memset c_wt_memmove_loop:memmove \
         c_wt_strlen_loop:strlen \
         mt_wt_calls:memcpy mt_wt_calls:memset mt_wt_calls:memmove; do
    exe=$BUILD/tests/conf_${t%%:*}_O2 fn=${t#*:}
    clones "$exe" | grep -Eq "(call|jmp) +[0-9a-f]+ <$fn@plt>" ||
        fail "${t%%:*} at -O2: no plain $fn call in a transaction clone any more"
done
clones "$BUILD/tests/conf_c_wt_inline_fill_O2" | grep -q "rep stos" ||
    fail "c_wt_inline_fill at -O2: the clone no longer fills with rep stos"
echo "interpose: ok"
