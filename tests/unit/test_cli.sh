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
echo "cli: ok"
