#!/bin/sh
# callgrind_costs.sh: instructions per operation (callgrind, 1 thread) of the speculative begin,
# commit and barriers, for one or more builds of tmkit's libitm.so (bench/results/fastpath/).
#
# Runs under gl_wt and orec_eager (neither is biased, so every transaction takes a speculative
# begin and commit; adaptive at 1 thread runs biased and uninstrumented): an empty transaction,
# 16 reads, 16 writes (build/bin/micro-tm), the 256K-key hash set with 65,536 buckets and 10%
# updates, and the 64K-key red-black tree with 20% updates, as `make bench` runs them. Each
# figure is the difference of runs with 2N and N operations over N (the set-up cancels out; the
# driver's loop stays in); N = 50,000 (10,000 for the tree), or $N.
#
# Usage: bench/scripts/callgrind_costs.sh BIN_DIR LABEL=LIBDIR [LABEL=LIBDIR...] > costs.txt
#   BIN_DIR  the bench programs (build/bin); LIBDIR a directory with libitm.so.1 (build/lib, or
#   a base revision's build for an A/B). ALGOS="gl_wt orec_eager" by default.
# Writes one line per algorithm and library:
#   "ALGO LABEL empty N reads-16 N writes-16 N hashset-262144-u10 N rbtree-65536-u20 N".
# Needs valgrind. Instruction counts do not depend on the machine's load.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR LABEL=LIBDIR [LABEL=LIBDIR...]" >&2; exit 2; }
bin=$1; shift
N=${N:-50000}
ipo() { # ipo LIB ALGO OPS PROG ARGS... -> instructions per operation
    l=$1 a=$2 n=$3; shift 3
    c1=$(env -u TMKIT_STATS LD_LIBRARY_PATH="$l" TMKIT_ALGO="$a" valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "$@" --threads 1 --ops "$n" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    c2=$(env -u TMKIT_STATS LD_LIBRARY_PATH="$l" TMKIT_ALGO="$a" valgrind --tool=callgrind \
        --callgrind-out-file=/dev/null "$@" --threads 1 --ops $((2 * n)) 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo $(((c2 - c1) / n))
}
for a in ${ALGOS:-gl_wt orec_eager}; do
    for side in "$@"; do
        label=${side%%=*}; l=${side#*=}
        echo "$a $label empty $(ipo "$l" "$a" "$N" "$bin/micro-tm" --mode empty)" \
             "reads-16 $(ipo "$l" "$a" "$N" "$bin/micro-tm" --mode reads --n 16)" \
             "writes-16 $(ipo "$l" "$a" "$N" "$bin/micro-tm" --mode writes --n 16)" \
             "hashset-262144-u10 $(ipo "$l" "$a" "$N" "$bin/hashset-tm" --buckets 65536 --range 262144 --update-pct 10)" \
             "rbtree-65536-u20 $(ipo "$l" "$a" $((N / 5)) "$bin/rbtree-tm" --range 65536 --update-pct 20)"
    done
done
