#!/bin/sh
# `tmkit check` finds what only write-through algorithms get right in transaction clones: inlined
# fills and copies, and calls of transaction_pure functions; plain memcpy & co. are information.
. "$(dirname "$0")/lib.sh"
T=$ROOT/bin/tmkit
scratch
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
# A call through a transaction_pure function pointer (issue 48): GCC calls it straight through
# the register, with no _ITM_getTMClone*; C and C++, -O0 and -O2, with the line of the call.
for t in c_redo_pure_fnptr:c cxx_redo_pure_fnptr:cc; do
    name=${t%%:*}
    line=$(grep -n "compare(\*pp" "$ROOT/tests/conformance/$name.${t##*:}" | cut -d: -f1)
    for opt in O0 O2; do
        expect_rc 1 "$T" check "$BUILD/tests/conf_${name}_$opt"
        "$T" check "$BUILD/tests/conf_${name}_$opt" |
            grep -q "$name.${t##*:}:$line: in _ZGTt.*: indirect call (\*%r[a-z0-9]*) that no _ITM_getTMClone\* resolved" ||
            fail "$name -$opt: pure pointer call not found: $("$T" check "$BUILD/tests/conf_${name}_$opt")"
    done
done
# A small fill GCC expanded inline as plain SSE stores to a global (a __builtin_memset of 32
# bytes, c_redo_builtin_fill at -O2): reported as `global`, with the line of the loop; at -O0
# the loop stays instrumented and nothing is reported.
line=$(grep -n "p\[i\] = 0" "$ROOT/tests/conformance/c_redo_builtin_fill.c" | cut -d: -f1)
out=$("$T" check "$BUILD/tests/conf_c_redo_builtin_fill_O2")
echo "$out" | grep -q "c_redo_builtin_fill.c:$line: in _ZGTt10clear_head[.a-z0-9]*: store to rec without a barrier" ||
    fail "inlined fill of a global not found: $out"
expect_rc 0 "$T" check "$BUILD/tests/conf_c_redo_builtin_fill_O0"
# Indirect calls that _ITM_getTMClone* resolved (virtual transaction_safe calls) are not
# reported, nor a fill of the clone's own stack frame (a C++ exception object's temporary).
expect_rc 0 "$T" check "$BUILD/tests/conf_cxx_objects_O2"
expect_rc 0 "$T" check "$BUILD/tests/conf_cxx_exceptions_O2"
# A tail call through a pure pointer is a call; a switch's table jump is not. A call of another
# object's function declared pure is `extern`; a stripped -fgnu-tm program cannot be checked.
cat > "$d/q.c" <<'C'
__attribute__((transaction_pure)) extern char *getenv(const char *);
typedef long cmp_fn(const void *, const void *) __attribute__((transaction_pure));
struct s { cmp_fn *cmp; int k; };
__attribute__((transaction_safe, noinline)) long tail(struct s *x, const void *a)
{ x->k++; return x->cmp(a, x); }
__attribute__((transaction_safe, noinline)) long sw(struct s *x, int c)
{
    switch (c) { case 0: x->k = 5; break; case 1: x->k += 7; break; case 2: x->k *= 3; break;
                 case 3: x->k -= 11; break; case 4: x->k ^= 9; break; default: x->k = 1; }
    return x->k;
}
__attribute__((transaction_safe, noinline)) long env(struct s *x) { return getenv("X") != 0 && x->k; }
static long cmp0(const void *a, const void *b) { return a == b; }
int main(int argc, char **argv)
{
    struct s v = {cmp0, 0};
    long r = 0;
    __transaction_atomic { r = tail(&v, argv) + sw(&v, argc) + env(&v); }
    return (int)r & 1;
}
C
gcc -O2 -g -fgnu-tm "$d/q.c" -o "$d/q" || fail "compile q.c"
out=$("$T" check "$d/q")
echo "$out" | grep -q "q.c:5: in _ZGTt4tail: indirect call" || fail "tail call through a pure pointer not found: $out"
echo "$out" | grep -q "in _ZGTt2sw" && fail "a switch's table jump taken for a call: $out"
echo "$out" | grep -q "q.c:12: in _ZGTt3env: calls getenv in another object" || fail "extern pure call not found: $out"
strip -o "$d/q-stripped" "$d/q"
expect_rc 1 "$T" check "$d/q-stripped"
"$T" check "$d/q-stripped" | grep -q "no symbol table" || fail "stripped program not reported"
# A hazard in a -fgnu-tm library the program loads is reported with the program (not with
# --no-libs); dead copies of weak functions after a clone are not the clone's (kvcache-tmkit
# has tmkit.h's wrappers so, and nothing to report).
cat > "$d/lib.c" <<'C'
struct ix { __attribute__((transaction_pure)) long (*cmp)(const void *, const void *); long n; };
__attribute__((transaction_safe)) long lib_find(struct ix *x, const void *k) { x->n++; return x->cmp(k, x); }
C
cat > "$d/main.c" <<'C'
struct ix { __attribute__((transaction_pure)) long (*cmp)(const void *, const void *); long n; };
__attribute__((transaction_safe)) long lib_find(struct ix *x, const void *k);
static long same(const void *a, const void *b) { return a == b; }
int main(void) { struct ix x = {same, 0}; long r; __transaction_atomic { r = lib_find(&x, &x); } return (int)r - 1; }
C
gcc -O2 -g -fgnu-tm -shared -fPIC "$d/lib.c" -o "$d/libtmix.so" || fail "compile lib.c"
gcc -O2 -g -fgnu-tm "$d/main.c" -L"$d" -ltmix -o "$d/uses-lib" || fail "compile main.c"
out=$(LD_LIBRARY_PATH=$d "$T" check "$d/uses-lib")
echo "$out" | grep -q "^$d/libtmix.so: 1 redo-log hazard" || fail "the library's hazard not found: $out"
echo "$out" | grep -q "lib.c:2: in _ZGTt8lib_find: indirect call" || fail "the library's call not named: $out"
LD_LIBRARY_PATH=$d "$T" check --no-libs "$d/uses-lib" | grep -q libtmix && fail "--no-libs scanned the library"
if [ -x "$BUILD/bin/kvcache-tmkit" ]; then
    expect_rc 0 "$T" check --no-libs "$BUILD/bin/kvcache-tmkit"
fi
expect_rc 2 "$T" check "$d/missing"
echo "$ERR" | grep -q "no such file" || fail "missing file not reported: $ERR"
echo "not an object" > "$d/text"
expect_rc 2 "$T" check "$d/text"
echo "check: ok"
