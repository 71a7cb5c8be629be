#!/bin/sh
# The front end and its headers are one version (parse.py): a file including the SIMD headers
# (emmintrin.h, immintrin.h) and C11 atomics parses; a file with errors is skipped and listed,
# and the rest is analysed; a lone file with errors is an error (exit 2).
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/simd.c" <<'C'
#include <emmintrin.h>
#include <immintrin.h>
#include <stdatomic.h>
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int x;
static _Atomic long hits;
int f(__m128i a)
{
    atomic_fetch_add(&hits, 1);
    pthread_mutex_lock(&m);
    x += _mm_cvtsi128_si32(_mm_add_epi32(a, a));
    pthread_mutex_unlock(&m);
    return x;
}
C
printf 'int g( { not C\n' > "$T/bad.c"
"$ROOT/bin/tmkit" advise --json "$T/simd.c" "$T/bad.c" > "$T/out.json" 2> "$T/err" ||
    { echo "FAIL: advise exited $?"; cat "$T/err"; exit 1; }
python3 - "$T/out.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["sections"] == 1, d["summary"]
assert [s["file"].split("/")[-1] for s in d["skipped"]] == ["bad.c"], d["skipped"]
assert "error" in d["skipped"][0]["why"], d["skipped"]
PY
"$ROOT/bin/tmkit" advise "$T/simd.c" "$T/bad.c" | grep -q "Skipped 1 file" ||
    { echo "FAIL: the text report does not list the skipped file"; exit 1; }
"$ROOT/bin/tmkit" advise "$T/bad.c" > /dev/null 2> "$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "expected" "$T/err" && ! grep -q Traceback "$T/err" ||
    { echo "FAIL: a lone broken file: exit $rc"; cat "$T/err"; exit 1; }
echo "frontend: ok"
