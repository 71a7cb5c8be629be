#!/bin/sh
# `tmkit algos` and `tmkit run` behave as documented.
. "$(dirname "$0")/lib.sh"
T=$ROOT/bin/tmkit
names=$("$T" algos --names | tr '\n' ' ' | sed 's/ $//')
[ "$names" = "$ALGOS" ] || fail "tmkit algos gives '$names', build lists '$ALGOS'"
first=$(echo "$ALGOS" | cut -d' ' -f1)
"$T" algos | head -1 | grep -q "^$first .*(default)" || fail "default not first/marked"
for a in $ALGOS; do
    expect_rc 0 "$T" run --algo=$a "$PROG" 3000
    expect_rc 0 "$T" run --algo=$a -- "$PROG" 3000
done
# The program really runs on tmkit: a bad TMKIT_ALGO only fails if our library is loaded.
expect_rc 2 env TMKIT_ALGO=bogus "$T" run "$PROG"
expect_rc 2 "$T" run --algo=bogus "$PROG"
echo "$ERR" | grep -q "valid:" || fail "no list of valid algorithms: $ERR"
expect_rc 127 "$T" run /nonexistent/program
expect_rc 2 "$T" run
# --version: the command's version, the library it would run programs on (its exported build
# string, runtime/core/version.c) and the algorithms; the same from `tmkit run --version`.
v=$("$T" --version) || fail "tmkit --version failed"
echo "$v" | head -1 | grep -qE "^tmkit [0-9]+\.[0-9]+\.[0-9]+$" || fail "tmkit --version: $v"
echo "$v" | grep -qF "runtime: $BUILD/lib/libitm.so.1: tmkit " || fail "tmkit --version names no runtime: $v"
echo "$v" | grep -qF "algorithms: $first (default), " || fail "tmkit --version lists no algorithms: $v"
[ "$("$T" run --version)" = "$v" ] || fail "tmkit run --version differs from tmkit --version"
built=$("$BUILD/bin/tmkit-info" --version)
strings "$BUILD/lib/libitm.so.1" | grep -qxF "$built" || fail "libitm.so.1 lacks '$built'"
nm -D "$BUILD/lib/libitm.so.1" | grep -q " R tmkit_version$" || fail "no unversioned tmkit_version symbol"
echo "cli: ok"
