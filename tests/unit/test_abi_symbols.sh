#!/bin/sh
# The exported ABI equals the system libitm's: same names, same version nodes, nothing internal.
# Beyond it, exactly: the four libc functions tmkit takes from the program inside transactions,
# under glibc's own non-default versions (runtime/abi/interpose.c), and tmkit's extensions, all
# named tmkit_* and all in their own node TMKIT_1.0 (runtime/ext/, listed in abi/libitm.map),
# and the data of the GCC plugin's inlined barriers in TMKIT_INLINE_1 (algo/inline_abi.c).
. "$(dirname "$0")/lib.sh"
sys=$(gcc -print-file-name=libitm.so.1)
ours=$BUILD/lib/libitm.so.1
[ -e "$sys" ] || fail "system libitm not found"
map=$ROOT/runtime/abi/libitm.map
ext=$(awk '/^TMKIT_1.0 \{/{f=1; next} f && /^\}/{f=0} f && /^ *tmkit_[a-z_]*;/{gsub(/[ ;]/, ""); print $0 "@@TMKIT_1.0"}' "$map")
[ -n "$ext" ] || fail "no TMKIT_1.0 node in $map"
nm -D --defined-only --with-symbol-versions "$sys" | awk '{print $3}' > /tmp/abi_sys.$$
printf '%s\n' GLIBC_2.14 GLIBC_2.2.5 TMKIT_1.0 memcpy@GLIBC_2.14 memmove@GLIBC_2.2.5 memset@GLIBC_2.2.5 strlen@GLIBC_2.2.5 $ext \
    TMKIT_INLINE_1 tmkit_inline_v1@@TMKIT_INLINE_1 >> /tmp/abi_sys.$$
sort -o /tmp/abi_sys.$$ /tmp/abi_sys.$$
nm -D --defined-only --with-symbol-versions "$ours" | awk '{print $3}' | sort > /tmp/abi_ours.$$
if ! diff /tmp/abi_sys.$$ /tmp/abi_ours.$$; then rm -f /tmp/abi_*.$$; fail "exported symbols differ (< expected, > tmkit)"; fi
n=$(wc -l < /tmp/abi_ours.$$); rm -f /tmp/abi_*.$$
[ "$n" -gt 170 ] || fail "only $n exported symbols"
soname=$(readelf -d "$ours" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libitm.so.1" ] || fail "soname is '$soname'"
readelf -lW "$ours" | grep GNU_STACK | grep -q RWE && fail "library asks for an executable stack"
echo "abi: $n symbols: the system's ($sys), the libc four, $(echo "$ext" | wc -l) extensions"
