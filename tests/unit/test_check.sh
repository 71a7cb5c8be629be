#!/bin/sh
# `tmkit check` finds what only write-through algorithms get right in transaction clones: inlined
# fills and copies, and calls of transaction_pure functions; plain memcpy & co. are information.
. "$(dirname "$0")/lib.sh"
T=$ROOT/bin/tmkit
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
expect_rc 1 "$T" check "$BUILD/tests/conf_c_wt_inline_fill_O2"
out=$("$T" check "$BUILD/tests/conf_c_wt_inline_fill_O2")
echo "$out" | grep -q "c_wt_inline_fill.c:[0-9]*: in _ZGTt9clear_all.*rep stos" || fail "inline fill not found: $out"
expect_rc 0 "$T" check "$BUILD/tests/conf_c_wt_memcpy_loop_O2"
"$T" check --all "$BUILD/tests/conf_c_wt_memcpy_loop_O2" | grep -q "in _ZGTt9dup_array: plain memcpy call" ||
    fail "--all does not list the memcpy call"
cat > "$d/p.c" <<'C'
#include <stdio.h>
char line[64];
__attribute__((transaction_pure, noinline)) int fmt(char *d, unsigned long n, long v)
{ return snprintf(d, n, "value %ld", v); }
__attribute__((transaction_safe, noinline)) void put(long v)
{ line[0] = 'x'; fmt(line, sizeof line, v); }
int main(void) { __transaction_atomic { put(42); } puts(line); return 0; }
C
gcc -O2 -g -fgnu-tm "$d/p.c" -o "$d/p" || fail "compile"
expect_rc 1 "$T" check "$d/p"
"$T" check "$d/p" | grep -q "p.c:6: in _ZGTt3put: calls fmt" || fail "pure call not found: $("$T" check "$d/p")"
expect_rc 2 "$T" check "$d/missing"
echo "$ERR" | grep -q "no such file" || fail "missing file not reported: $ERR"
echo "not an object" > "$d/text"
expect_rc 2 "$T" check "$d/text"
echo "check: ok"
