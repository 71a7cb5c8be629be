#!/bin/sh
# Instructions per instrumented read and write (callgrind, one thread): the slope between 16 and
# 64 accesses per transaction of build/bin/micro-tm, as `tmkit bench` computes it.
# usage: slopes.sh BUILD_DIR [ALGO...]   (BUILD_DIR has bin/micro-tm and lib/libitm.so.1)
set -eu
b=$(cd "$1" && pwd); shift
ops=20000
count() { # algo mode n -> instructions of the whole run
    TMKIT_ALGO=$1 LD_LIBRARY_PATH="$b/lib" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$b/bin/micro-tm" --mode "$2" --n "$3" --ops $ops 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ,
}
[ $# -gt 0 ] || set -- gl_wt norec orec_lazy orec_eager
echo "algorithm,instructions per read,instructions per write"
for a in "$@"; do
    r16=$(count "$a" reads 16); r64=$(count "$a" reads 64)
    w16=$(count "$a" writes 16); w64=$(count "$a" writes 64)
    echo "$a,$(( (r64 - r16) / (ops * 48) )),$(( (w64 - w16) / (ops * 48) ))"
done
