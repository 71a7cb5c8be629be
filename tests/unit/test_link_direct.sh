#!/bin/sh
# Linking directly against tmkit's libitm works (compile with -fgnu-tm, link without it so the
# driver does not add the system -litm), and the binary then needs no library path.
. "$(dirname "$0")/lib.sh"
scratch
gcc -O2 -fgnu-tm -pthread -c "$ROOT/tests/unit/prog_counter.c" -o "$d/p.o" || fail "compile"
gcc -pthread "$d/p.o" -L"$BUILD/lib" -litm -Wl,-rpath,"$BUILD/lib" -o "$d/p" || fail "link"
ldd "$d/p" | grep libitm | grep -q "$BUILD/lib" || fail "not resolved to tmkit: $(ldd "$d/p" | grep libitm)"
expect_rc 0 env -u LD_LIBRARY_PATH "$d/p" 5000
expect_rc 2 env TMKIT_ALGO=bogus "$d/p"
echo "link: ok"
