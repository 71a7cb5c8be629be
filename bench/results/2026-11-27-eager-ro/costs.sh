#!/bin/sh
# Instructions (callgrind) per operation for base and new: the least of the three differences
# of runs with N, 2N, 3N and 4N operations (as bench/fastpath_budget.sh), 1 thread, orec_eager.
# Usage: costs.sh BIN BASE_LIBDIR NEW_LIBDIR
bin=$1; base=$2; new=$3; N=${N:-20000}
count() { # count LIB OPS PROG ARGS...
    l=$1; ops=$2; shift 2
    env LD_LIBRARY_PATH=$l TMKIT_ALGO=orec_eager valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$@" --threads 1 --ops $ops 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
ipo() { # ipo LIB PROG ARGS...
    l=$1; shift
    prev=$(count $l $N "$@"); best=""
    for k in 2 3 4; do
        c=$(count $l $((k * N)) "$@"); d=$(((c - prev) / N)); prev=$c
        if [ -z "$best" ] || [ $d -lt $best ]; then best=$d; fi
    done
    echo $best
}
for side in base new; do
    if [ $side = base ]; then l=$base; else l=$new; fi
    r16=$(ipo $l $bin/micro-tm --mode reads --n 16); r48=$(ipo $l $bin/micro-tm --mode reads --n 48)
    w16=$(ipo $l $bin/micro-tm --mode writes --n 16); w48=$(ipo $l $bin/micro-tm --mode writes --n 48)
    echo "$side reads-16 $r16 reads-48 $r48 read-slope $(((r48 - r16) / 32))" \
         "writes-16 $w16 writes-48 $w48 write-slope $(((w48 - w16) / 32))"
    t=$(N=5000; ipo $l $bin/rbtree-tm --range 65536 --update-pct 20)
    h=$(N=2000; ipo $l $bin/hashset-tm --range 262144 --update-pct 10)
    echo "$side rbtree-65536-u20 $t hashset-262144-u10 $h"
done
