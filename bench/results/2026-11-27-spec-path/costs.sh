#!/bin/sh
# Instructions (callgrind) per operation, 1 thread, under gl_wt and orec_eager (neither is biased:
# every transaction is a speculative begin and commit), for a base and a new libitm.so: the
# difference of runs with 2N and N operations, over N.
# Usage: costs.sh BIN_DIR BASE_LIBDIR NEW_LIBDIR
bin=$1; base=$2; new=$3; N=${N:-50000}
ipo() { # ipo LIB ALGO PROG ARGS...
    l=$1 a=$2; shift 2
    c1=$(env LD_LIBRARY_PATH=$l TMKIT_ALGO=$a valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$@" --threads 1 --ops $N 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    c2=$(env LD_LIBRARY_PATH=$l TMKIT_ALGO=$a valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$@" --threads 1 --ops $((2 * N)) 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo $(((c2 - c1) / N))
}
for a in gl_wt orec_eager; do
    for side in base new; do
        if [ $side = base ]; then l=$base; else l=$new; fi
        echo "$a $side empty $(ipo $l $a $bin/micro-tm --mode empty)" \
             "reads-16 $(ipo $l $a $bin/micro-tm --mode reads --n 16)" \
             "writes-16 $(ipo $l $a $bin/micro-tm --mode writes --n 16)" \
             "hashset-262144-u10 $(ipo $l $a $bin/hashset-tm --buckets 65536 --range 262144 --update-pct 10)" \
             "rbtree-65536-u20 $(N=10000 ipo $l $a $bin/rbtree-tm --range 65536 --update-pct 20)"
    done
done
