#!/bin/sh
# GCC's own libitm testsuite (libitm/testsuite/libitm.c and libitm.c++ of GCC 12.2) on tmkit
# (label libitm-suite, `make test-real`: not part of `make test`, it downloads 89 MB).
# Debian bookworm's gcc-12 source package is fetched with `apt-get source` through a private
# sources list; only libitm/testsuite and libitm/libitm.h (the tests include it; Debian does not
# install it) are extracted from the inner gcc tarball. Everything is cached in
# BUILD/libitm-suite/ and never committed. suite.py honours each test's DejaGnu directives,
# compiles it once with the system gcc/g++ -fgnu-tm, and runs it under every tmkit algorithm
# (LD_LIBRARY_PATH=BUILD/lib) and under the system libitm (the reference).
# Usage: run.sh ROOT BUILD [suite.py options, e.g. --algos norec,gl_wt --only eh-1.C]
ROOT=$1 BUILD=$2
[ -n "$ROOT" ] && [ -n "$BUILD" ] || { echo "usage: run.sh ROOT BUILD [options]"; exit 2; }
shift 2
W=$BUILD/libitm-suite
. "$ROOT/tests/debsrc.sh"
debsrc_init "$W"
[ -f "$BUILD/lib/libitm.so.1" ] || { echo "FAIL: $BUILD/lib/libitm.so.1 missing (build the itm target)"; exit 1; }
SRCDIR=$(ls -d "$W"/gcc-12*/libitm 2>/dev/null | head -1)
if [ ! -f "$SRCDIR/libitm.h" ] || [ ! -d "$SRCDIR/testsuite/libitm.c" ]; then
    debsrc_update
    ls "$W"/gcc-12_*.orig.tar.gz >/dev/null 2>&1 ||
        (cd "$W" && $APT source --download-only gcc-12 >/dev/null 2>&1) ||
        { echo "FAIL: apt-get source gcc-12"; exit 1; }
    ORIG=$(ls "$W"/gcc-12_*.orig.tar.gz | head -1)
    INNER=$(tar tzf "$ORIG" | grep '/gcc-[0-9.]*-dfsg\.tar\.xz$' | head -1)
    [ -n "$INNER" ] || { echo "FAIL: no inner gcc tarball in $ORIG"; exit 1; }
    (cd "$W" && tar xzf "$ORIG" -O "$INNER" |
        tar xJf - --wildcards '*/libitm/testsuite/*' '*/libitm/libitm.h') ||
        { echo "FAIL: extracting libitm/testsuite from $INNER"; exit 1; }
    SRCDIR=$(ls -d "$W"/gcc-12*/libitm | head -1)
fi
exec python3 "$ROOT/tests/libitm_suite/suite.py" --libitm-dir "$SRCDIR" --lib "$BUILD/lib" \
    --work "$W/run" "$@"
