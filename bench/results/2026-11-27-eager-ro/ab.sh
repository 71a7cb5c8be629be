#!/bin/sh
# A/B of two tmkit libraries (base: logged reads everywhere; new: orec_eager's unlogged read-only
# attempts) on the cases the change touches: read-mostly data structures under orec_eager and
# the default, and cases whose reads are logged (writers) to see what the added mode test costs.
# Bench programs from BIN (they link libitm.so.1 dynamically; the library comes from
# LD_LIBRARY_PATH). Each round alternates base and new for every case; 0.5 s runs; one line per
# run: case threads algo lib ops/s. Usage: ab.sh BIN BASE_LIBDIR NEW_LIBDIR ROUNDS > runs.txt
bin=$1; base=$2; new=$3; rounds=${4:-5}
run() { # run CASE THREADS ALGO LIB_NAME LIB_DIR PROGRAM ARGS...
    c=$1; t=$2; a=$3; n=$4; l=$5; shift 5
    ops=$(env LD_LIBRARY_PATH=$l TMKIT_ALGO=$a timeout 60 "$@" --threads $t --seconds 0.5 |
          tr ' ' '\n' | sed -n 's/^ops_per_s=//p')
    echo "$c $t $a $n ${ops:-FAIL}"
}
for r in $(seq $rounds); do
  for t in 1 2; do
    for a in orec_eager adaptive; do
      for side in base new; do
        if [ $side = base ]; then l=$base; else l=$new; fi
        run rbtree-65536-u20 $t $a $side $l $bin/rbtree-tm --range 65536 --update-pct 20
        run rbtree-65536-u0 $t $a $side $l $bin/rbtree-tm --range 65536 --update-pct 0
        run hashset-262144-u10 $t $a $side $l $bin/hashset-tm --range 262144 --update-pct 10
        run reads-16 $t $a $side $l $bin/micro-tm --mode reads --n 16
        run disjoint $t $a $side $l $bin/micro-tm --mode disjoint
        run ring $t $a $side $l $bin/micro-tm --mode ring
      done
    done
  done
done
