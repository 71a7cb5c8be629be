#!/bin/sh
# tmkit's GCC plugin (tools/gcc-plugin/): prog_inline.c built with and without it.
# - The plugin build has inline fast paths (every function with 1-8 byte barrier calls loads the
#   descriptor from %fs:0x50), the plain build none, and -O0 none.
# - It runs under every tmkit algorithm at 2 and 8 threads (4x the cores) with its invariants
#   holding, and on GCC's libitm under its three methods, where the inline data never resolves,
#   also when it was linked against tmkit's library.
# - In the modes it inlines (gl_wt, orec_eager) a 1-thread run makes far fewer 8-byte read
#   calls than the plain build (counted by a preloaded shim, prog_inline_count.c); in the
#   exclusive ones (serialirr's serial_undo, where the cancellable moves run instrumented, and
#   the default's single thread) none, and only the misaligned field's writes.
# - The runtime's words are cached across a loop: an inlined read in a loop of a clone costs at
#   most 10 instructions under gl_wt and 32 under orec_eager (callgrind, the difference between
#   128 and 64 reads a transaction), where the plain build's call costs at least 5 more.
# - `tmkit check` takes the fast paths' plain accesses for what they are, and still reports an
#   inlined fill in a plugin build.
# - An unknown plugin option is an error naming it.
. "$(dirname "$0")/lib.sh"
PLUGIN=$BUILD/lib/tmkit_inline.so
[ -f "$PLUGIN" ] || fail "$PLUGIN is missing"
scratch
src=$ROOT/tests/unit/prog_inline.c
CC="gcc -g -fgnu-tm -pthread -Wall -Werror"
$CC -O2 -fplugin="$PLUGIN" "$src" -o "$d/inl" || fail "plugin build"
$CC -O2 "$src" -o "$d/plain" || fail "plain build"
$CC -O0 -fplugin="$PLUGIN" "$src" -o "$d/inl0" || fail "plugin build at -O0"
gcc -O2 -shared -fPIC "$ROOT/tests/unit/prog_inline_count.c" -o "$d/count.so" -ldl || fail "shim"

# Per function: barrier calls of 1-8 bytes, and descriptor loads from %fs:0x50.
sites() {
    objdump -d --no-show-raw-insn "$1" | awk '
        /^[0-9a-f]+ <.*>:$/ { fn = $2 }
        /call.*<_ITM_(R|W|RaR|RaW|RfW|WaR|WaW)U[1248]@plt>/ { calls[fn]++; all++ }
        /%fs:0x50/ { fs[fn]++; loads++ }
        END {
            for (f in calls) if (!fs[f]) { print "short", f, calls[f]; bad = 1 }
            print "calls", all + 0, "loads", loads + 0
        }'
}
s=$(sites "$d/inl")
echo "plugin build: $s"
echo "$s" | grep -q "^short" && fail "a barrier call without its fast path: $s"
calls=$(echo "$s" | awk '/^calls/ {print $2}')
[ "$calls" -ge 10 ] || fail "expected at least 10 barrier call sites, found $calls"
for b in plain inl0; do
    s=$(sites "$d/$b")
    echo "$s" | grep -q "loads 0$" || fail "$b: inline code where the plugin did not run: $s"
done

for algo in $ALGOS; do
    for n in 2 8; do
        out=$(TMKIT_ALGO=$algo TEST_THREADS=$n LD_LIBRARY_PATH=$BUILD/lib "$d/inl" 2>&1) ||
            fail "$algo, $n threads: $out"
        echo "$out" | grep -q "inline_data=yes ok=1" || fail "$algo, $n threads: $out"
    done
done
# On GCC's libitm: the usual build (linked against the system libitm) and one linked against
# tmkit's library, which needs no version of tmkit's (docs/abi.md) and so starts there too.
$CC -O2 -fplugin="$PLUGIN" "$src" -o "$d/inl_tm" -L"$BUILD/lib" -litm ||
    fail "plugin build linked against tmkit"
for b in inl inl_tm; do
    for m in serialirr gl_wt ml_wt; do
        out=$(env -u LD_LIBRARY_PATH ITM_DEFAULT_METHOD=$m TEST_THREADS=2 "$d/$b" 2>&1) ||
            fail "$b on libitm $m: $out"
        echo "$out" | grep -q "inline_data=no ok=1" || fail "$b on libitm $m: $out"
    done
done

# counted ALGO: one 1-thread run of each build under the counting shim; sets reads_plain,
# writes_plain, reads_inl and writes_inl (8-byte barrier calls).
counted() {
    for b in plain inl; do
        out=$(TMKIT_ALGO=$1 TEST_THREADS=1 TEST_ITERS=2000 LD_LIBRARY_PATH=$BUILD/lib \
              LD_PRELOAD=$d/count.so "$d/$b" 2>&1) || fail "$1 $b counted: $out"
        r=$(echo "$out" | sed -n 's/^barrier_calls reads=\([0-9]*\) writes=\([0-9]*\)$/\1/p')
        w=$(echo "$out" | sed -n 's/^barrier_calls reads=\([0-9]*\) writes=\([0-9]*\)$/\2/p')
        [ -n "$r" ] && [ -n "$w" ] || fail "$1 $b: no count: $out"
        eval "reads_$b=$r writes_$b=$w"
    done
}

for algo in gl_wt orec_eager; do
    counted $algo
    echo "$algo: 8-byte read calls plain $reads_plain, plugin $reads_inl"
    [ "$reads_plain" -ge 5000 ] || fail "$algo: the plain build made only $reads_plain read calls"
    # gl_wt's read fails only when the clock moves: never at one thread. orec_eager's also
    # leaves the first read of an orec after a commit cleared our readers' bit to the call, as
    # the runtime's own fast path does (algo/orec.h): about a quarter of this program's reads.
    div=20
    [ "$algo" = orec_eager ] && div=2
    [ $((reads_inl * div)) -le "$reads_plain" ] ||
        fail "$algo: the plugin build made $reads_inl of the plain build's $reads_plain read calls"
done

# The exclusive modes: reads are plain loads at any alignment, aligned writes an undo record
# and the store; only the packed field's write (one per move) takes the call, and the writes
# that find the undo log full (its first growth).
for algo in serialirr adaptive; do
    counted $algo
    echo "$algo, 1 thread: 8-byte calls plain $reads_plain reads $writes_plain writes, plugin $reads_inl and $writes_inl"
    [ "$reads_plain" -ge 5000 ] && [ "$writes_plain" -ge 5000 ] ||
        fail "$algo: the plain build made only $reads_plain reads and $writes_plain writes"
    [ "$reads_inl" -eq 0 ] || fail "$algo: the plugin build made $reads_inl read calls"
    [ "$writes_inl" -le 2016 ] ||
        fail "$algo: the plugin build made $writes_inl write calls (the packed field's: 2000)"
done

# The cache (tools/gcc-plugin/cache.cc): instructions per read of a loop in a clone, from the
# difference between transactions of 128 and 64 reads (begin, commit and start-up cancel).
cat > "$d/sum.c" <<'C'
#include <stdlib.h>
static long w[128];
__attribute__((transaction_safe, noinline)) long sum(const long *p, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += p[i];
    return s;
}
int main(int argc, char **argv)
{
    long n = atol(argv[1]), bad = 0;
    for (long i = 0; i < n; i++)
        w[i] = 1;
    for (int k = 0; k < 2000; k++) {
        long s;
        __transaction_atomic { s = sum(w, n); }
        bad += s != n;
    }
    return bad != 0;
}
C
for b in plain inl; do
    if [ $b = inl ]; then $CC -O2 -fplugin="$PLUGIN" "$d/sum.c" -o "$d/sum-$b" || fail "sum build"
    else $CC -O2 "$d/sum.c" -o "$d/sum-$b" || fail "sum build"; fi
done
instr() { # instr ALGO BUILD N: instructions of the whole run
    TMKIT_ALGO=$1 LD_LIBRARY_PATH=$BUILD/lib valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "$d/sum-$2" "$3" 2>&1 |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
for algo in gl_wt orec_eager; do
    budget=10
    [ $algo = orec_eager ] && budget=32
    for b in plain inl; do
        lo=$(instr $algo $b 64) && hi=$(instr $algo $b 128) && [ -n "$lo" ] && [ -n "$hi" ] ||
            fail "$algo $b: callgrind did not run"
        eval "per_$b=$(( (hi - lo) / (64 * 2000) ))"
    done
    echo "$algo: instructions per read $per_plain (call), $per_inl (inlined)"
    [ "$per_inl" -le $budget ] || fail "$algo: an inlined read costs $per_inl instructions (budget $budget)"
    [ "$per_plain" -ge $((per_inl + 5)) ] || fail "$algo: the call costs $per_plain, the inline read $per_inl"
done

# tmkit check: the plugin's plain accesses to a clone's globals are its fast paths, not a redo-log
# hazard; an inlined fill in a plugin build still is one.
cat > "$d/glob.c" <<'C'
long counter; int small;
__attribute__((transaction_safe, noinline)) void bump(void) { counter += 1; small += 2; }
int main(void) { __transaction_atomic { bump(); } return counter != 1; }
C
$CC -O2 -fplugin="$PLUGIN" "$d/glob.c" -o "$d/glob" || fail "glob build"
objdump -d "$d/glob" | grep -q "%fs:0x50" || fail "glob: nothing inlined"
out=$("$ROOT/bin/tmkit" check "$d/glob" 2>&1) || fail "tmkit check glob: $out"
echo "$out" | grep -q ": 0 redo-log hazards" || fail "tmkit check on the plugin's fast paths: $out"
fill=$ROOT/tests/conformance/c_redo_builtin_fill.c
$CC -O2 -fplugin="$PLUGIN" -I"$ROOT/tests/conformance" "$fill" -o "$d/fill" || fail "fill build"
out=$("$ROOT/bin/tmkit" check "$d/fill" 2>&1)
echo "$out" | grep -q "without a barrier" || fail "tmkit check missed the inlined fill: $out"

expect_rc 1 gcc -O2 -fgnu-tm -fplugin="$PLUGIN" -fplugin-arg-tmkit_inline-bogus -c "$src" -o "$d/x.o"
echo "$ERR" | grep -q "unknown option.*bogus" || fail "unknown option: $ERR"
echo "ok"
