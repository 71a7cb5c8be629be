#!/bin/sh
# The exported ABI equals the system libitm's: same names, same version nodes, nothing internal.
# Beyond it, exactly: the four libc functions tmkit takes from the program inside transactions,
# under glibc's own non-default versions (runtime/abi/interpose.c), and tmkit's own names, all
# tmkit_* and all unversioned (the base version, abi/libitm.map says why): the extensions
# (runtime/ext/) and the data of the GCC plugin's inlined barriers (algo/inline_abi.c), the list
# being every tmkit_* name the runtime's sources mark TM_EXPORT. The two empty nodes that programs
# linked against an earlier tmkit need (TMKIT_1.0, TMKIT_INLINE_1) are defined.
# Then the point of the base version: a program that uses tmkit.h's extensions, built with the
# plugin and linked against tmkit's libitm (as `pkg-config --libs tmkit` links), needs none of
# our versions, so it loads and runs on GCC's libitm too.
. "$(dirname "$0")/lib.sh"
sys=$(gcc -print-file-name=libitm.so.1)
ours=$BUILD/lib/libitm.so.1
[ -e "$sys" ] || fail "system libitm not found"
ext=$(grep -rhoE "TM_EXPORT[^(=]*[^a-z0-9_]tmkit_[a-z0-9_]+" "$ROOT/runtime" |
      grep -oE "tmkit_[a-z0-9_]+$" | sort -u)
[ "$(echo "$ext" | wc -l)" -ge 10 ] || fail "only these tmkit_* exports in the sources: $ext"
echo "$ext" | grep -qx tmkit_inline_v1 || fail "no tmkit_inline_v1 in the sources' exports"
nm -D --defined-only --with-symbol-versions "$sys" | awk '{print $3}' > /tmp/abi_sys.$$
printf '%s\n' GLIBC_2.14 GLIBC_2.2.5 TMKIT_1.0 TMKIT_INLINE_1 memcpy@GLIBC_2.14 memmove@GLIBC_2.2.5 \
    memset@GLIBC_2.2.5 strlen@GLIBC_2.2.5 $ext >> /tmp/abi_sys.$$
sort -o /tmp/abi_sys.$$ /tmp/abi_sys.$$
nm -D --defined-only --with-symbol-versions "$ours" | awk '{print $3}' | sort > /tmp/abi_ours.$$
if ! diff /tmp/abi_sys.$$ /tmp/abi_ours.$$; then rm -f /tmp/abi_*.$$; fail "exported symbols differ (< expected, > tmkit)"; fi
n=$(wc -l < /tmp/abi_ours.$$); rm -f /tmp/abi_*.$$
[ "$n" -gt 170 ] || fail "only $n exported symbols"
soname=$(readelf -d "$ours" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libitm.so.1" ] || fail "soname is '$soname'"
readelf -lW "$ours" | grep GNU_STACK | grep -q RWE && fail "library asks for an executable stack"

# A tmkit.h program, built with the plugin and linked against tmkit's libitm, on both runtimes.
PLUGIN=$BUILD/lib/tmkit_inline.so
[ -f "$PLUGIN" ] || fail "$PLUGIN is missing"
scratch
cat > "$d/prog.c" <<'C'
#include <stdio.h>
#include <tmkit.h>
extern const char tmkit_version[] __attribute__((weak));
static tm_counter_t hits;
static long words[8];
int main(void)
{
    for (int i = 0; i < 1000; i++)
        __transaction_atomic { tm_counter_add(&hits, 1); words[i % 8] += i; }
    long s = 0;
    for (int i = 0; i < 8; i++)
        s += words[i];
    printf("%s hits=%ld sum=%ld\n", tmkit_version ? "tmkit" : "libitm", tm_counter_read(&hits), s);
    return 0;
}
C
gcc -O2 -fgnu-tm -fplugin="$PLUGIN" -I"$ROOT/include" "$d/prog.c" -o "$d/prog" \
    -L"$BUILD/lib" -Wl,-rpath,"$BUILD/lib" -litm || fail "building a tmkit.h program against tmkit"
needs=$(readelf -V "$d/prog" | sed -n 's/.*Name: \([A-Z][A-Z0-9_.]*\) *Flags.*/\1/p' | sort -u | tr '\n' ' ')
echo "$needs" | grep -q TMKIT && fail "the program needs a version of tmkit's: $needs"
for on in "tmkit $BUILD/lib" "libitm $(dirname "$sys")"; do
    out=$(LD_LIBRARY_PATH=${on#* } "$d/prog" 2>&1) || fail "on ${on#* }: $out"
    [ "$out" = "${on%% *} hits=1000 sum=499500" ] || fail "on ${on#* }: $out"
done
echo "abi: $n symbols: the system's ($sys), the libc four, $(echo "$ext" | wc -l) tmkit_* names;" \
    "a tmkit.h program linked against tmkit needs only $needs"
