#!/bin/sh
# The tmkit headers compile cleanly under the warnings real programs build with (issue 47), and
# the programs that use them still work.
#   check.sh c STD       gcc -std=STD -O2: every header alone, and with the common C library
#                        headers before and after it, each with and without -D_GNU_SOURCE;
#                        every header at once (include.c ALL); then use.c, a use of each API,
#                        at -O0 and -O2
#   check.sh cxx         the same under g++ -std=c++17, at -O0 and -O2, with use.cc
#   check.sh run         use.c (gnu11, and strict c11: the headers' stand-ins for what POSIX
#                        hides there) and use.cc built, and run on tmkit (LD_LIBRARY_PATH=
#                        $BUILD/lib) and on the system libitm (the headers' fallbacks)
# Environment: ROOT (the source tree), BUILD (the build tree), CC, CXX.
# A compilation fails on any diagnostic: -Werror, and nothing at all on its stderr.
set -u
HERE=$ROOT/tests/headers
INC=$ROOT/include
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

# The warnings of issue 47, and then some.
CWARN="-Wall -Wextra -pedantic -Wmissing-prototypes -Wmissing-declarations -Wredundant-decls
       -Wshadow -Wstrict-prototypes -Wold-style-definition -Wcast-qual -Wpointer-arith -Werror"
CXXWARN="-Wall -Wextra -pedantic -Wredundant-decls -Wshadow -Wmissing-declarations -Wcast-qual
         -Wpointer-arith -Werror"

# compile WHAT CMD...: runs CMD, counts a failure (with its first diagnostics) if it fails or
# says anything.
compile() {
    what=$1
    shift
    if ! "$@" >"$T/out" 2>&1 || [ -s "$T/out" ]; then
        echo "FAIL: $what"
        echo "  $*"
        head -n 12 "$T/out" | sed 's/^/    /'
        fails=$((fails + 1))
    fi
}

headers=$(cd "$INC" && ls tmkit.h tmkit/*.h)

# Every header must be in include.c's ALL list, or a new one would miss the all-at-once check.
for h in $headers; do
    grep -q "^#include <$h>" "$HERE/include.c" || {
        echo "FAIL: $h is not in include.c's ALL list"
        fails=$((fails + 1))
    }
done

# includes LANG-FLAGS...: every header alone and between C library headers, then all at once.
# A header alone, and the C library's order and feature macros, change only what the front end
# sees (declarations, and which of them the headers use), so those checks stop there
# (-fsyntax-only: a compile of the libc wrappers at -O2 takes a second); all headers at once and
# use.c are compiled to objects, which runs the optimizers' own warnings. The tmkit/libc_*.h parts bring in tmkit/libc.h
# whole: alone, the front end checks that; the rest is tmkit/libc.h's.
includes() {
    for h in $headers; do
        case $h in
        tmkit/libc_*.h)
            compile "$h alone" "$@" -fsyntax-only -DHEADER="<$h>" "$HERE/include.c"
            continue
            ;;
        esac
        compile "$h alone" "$@" -fsyntax-only -DHEADER="<$h>" "$HERE/include.c"
        for gnu in "" -D_GNU_SOURCE; do
            for where in LIBC_BEFORE LIBC_AFTER; do
                compile "$h, $where $gnu" "$@" -fsyntax-only $gnu -D$where -DHEADER="<$h>" \
                    "$HERE/include.c"
            done
        done
    done
    for gnu in "" -D_GNU_SOURCE; do
        compile "all headers $gnu" "$@" -c -o "$T/o.o" $gnu -DALL "$HERE/include.c"
    done
}

case ${1:-} in
c)
    # The headers' own checks at -O2 (where the optimizers add warnings: -Wmaybe-uninitialized
    # and the like; the variants between libc headers are -fsyntax-only, the same at any level),
    # and the use of every API at -O0 and -O2.
    std=$2
    includes $CC -x c -fgnu-tm -std=$std -O2 $CWARN -I$INC
    for opt in O0 O2; do
        compile "use.c -$opt" $CC -fgnu-tm -std=$std -$opt $CWARN -I$INC -pthread -c \
            -o "$T/o.o" "$HERE/use.c"
    done
    label="gcc -std=$std"
    ;;
cxx)
    includes $CXX -x c++ -fgnu-tm -std=c++17 -O2 $CXXWARN -I$INC
    for opt in O0 O2; do
        compile "use.cc -$opt" $CXX -fgnu-tm -std=c++17 -$opt $CXXWARN -I$INC -pthread -c \
            -o "$T/o.o" "$HERE/use.cc"
    done
    label="g++ -std=c++17"
    ;;
run)
    # run NAME: the program on tmkit, then on the system libitm.
    run() {
        if ! EXPECT_RUNTIME=tmkit LD_LIBRARY_PATH=$BUILD/lib timeout 60 "$T/$1"; then
            echo "FAIL: $1 on tmkit"
            fails=$((fails + 1))
        fi
        if ! (unset LD_LIBRARY_PATH TMKIT_ALGO; EXPECT_RUNTIME=libitm timeout 60 "$T/$1"); then
            echo "FAIL: $1 on the system libitm"
            fails=$((fails + 1))
        fi
    }
    for std in gnu11 c11; do
        compile "use.c -std=$std" $CC -fgnu-tm -std=$std -O2 $CWARN -I$INC -pthread \
            -o "$T/use_$std" "$HERE/use.c"
        [ -x "$T/use_$std" ] && run use_$std
    done
    compile "use.cc" $CXX -fgnu-tm -std=c++17 -O2 $CXXWARN -I$INC -pthread -o "$T/use_cxx" \
        "$HERE/use.cc"
    [ -x "$T/use_cxx" ] && run use_cxx
    label="the use programs"
    ;;
*)
    echo "usage: check.sh c STD | cxx | run" >&2
    exit 2
    ;;
esac

if [ $fails -ne 0 ]; then
    echo "$fails failure(s) under $label"
    exit 1
fi
echo "ok: the tmkit headers under $label"
