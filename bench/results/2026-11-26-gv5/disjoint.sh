#!/bin/sh
# old/new alternated: orec_eager disjoint 16-word updates, ops/s
B=/work/main/build-me
for rep in 1 2 3 4 5; do
 for t in 1 2; do for p in auto off; do for lib in old new; do
  if [ $lib = old ]; then L=/tmp/old-src/b/lib; else L=/tmp/tmkit-lib-8b580a4; fi
  v=$(LD_LIBRARY_PATH=$L TMKIT_ALGO=orec_eager TMKIT_PRIVATIZATION=$p $B/bin/micro-tm --mode disjoint --threads $t --seconds 1 | tail -1 | sed 's/.*ops_per_s=\([0-9]*\).*/\1/')
  echo "$lib,$t,$p,$v"
 done; done; done
done
