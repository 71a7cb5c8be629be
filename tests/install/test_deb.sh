#!/bin/sh
# `make deb` (scripts/deb.sh): the package builds, lintian reports no error, it declares its
# dependencies, holds tmkit's libitm.so.1 only in its private directory, and the files it
# carries work: unpacked into an empty directory, its tmkit runs a -fgnu-tm program on its
# runtime. (Installing it with dpkg in a clean Debian root: test_deb_root.sh, `make test-deb`.)
. "$ROOT/tests/unit/lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
OUT=$BUILD/test-deb
# TMPDIR: lintian's scratch directories go into $T (it left some in /tmp)
TMPDIR=$T DEB_OUT=$OUT BUILD=$BUILD JOBS=1 sh "$ROOT/scripts/deb.sh" > "$T/deb.log" 2>&1
rc=$?
deb=$OUT/tmkit_${VERSION}_amd64.deb
[ -f "$deb" ] || { cat "$T/deb.log"; fail "no package built (log: $OUT/build.log)"; }
errors=$(grep '^E:' "$OUT/lintian.txt")
[ -z "$errors" ] && [ $rc = 0 ] || fail "lintian (exit $rc): $errors"
deps=$(dpkg-deb -f "$deb" Depends)
for d in python3 python3-matplotlib python3-clang-19 libclang-common-19-dev libc6; do
    echo "$deps" | grep -qE "(^|, )$d( |,|$)" || fail "Depends lacks $d: $deps"
done
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/tmkit ./usr/lib/x86_64-linux-gnu/tmkit/libitm.so.1.0.0 ./usr/include/tmkit.h \
         ./usr/lib/x86_64-linux-gnu/pkgconfig/tmkit.pc ./usr/lib/x86_64-linux-gnu/cmake/tmkit/tmkitConfig.cmake \
         ./usr/share/man/man1/tmkit-run.1.gz ./usr/share/man/man7/tmkit.7.gz ./usr/share/man/man3/tm_retry.3.gz \
         ./usr/lib/python3/dist-packages/tmkit_cli/installed.py; do
    echo "$list" | grep -qx "$f" || fail "the package lacks $f"
done
echo "$list" | grep -E '^\./(usr/)?lib/(x86_64-linux-gnu/)?libitm' && fail "the package puts a libitm on the system's path"
dpkg-deb -x "$deb" "$T/root" || fail "dpkg-deb -x"
gcc -O2 -g -fgnu-tm -pthread -I"$ROOT/include" "$ROOT/tests/install/prog.c" -o "$T/prog" || fail "build prog"
out=$(cd "$T" && env -u LD_LIBRARY_PATH "$T/root/usr/bin/tmkit" run ./prog) || fail "packaged tmkit run: $out"
case $out in *"|$T/root/usr/lib/x86_64-linux-gnu/tmkit/libitm.so.1|"*) ;;
    *) fail "packaged tmkit run used another runtime: $out";; esac
echo "deb: $(basename "$deb") built; lintian: $(grep -c '^W:' "$OUT/lintian.txt") warnings, no error; its tmkit runs"
