#!/bin/sh
# read-mostly data structures: old/new tmkit (adaptive, orec_eager), libitm, mutex; ops/s
B=/work/main/build-me
for rep in 1 2 3; do
 for bench in "rbtree --range 65536 --update-pct 20" "hashset --range 262144 --update-pct 10"; do
  name=${bench%% *}; args=${bench#* }
  for t in 1 2; do
   for cfg in old-adaptive new-adaptive old-orec_eager new-orec_eager libitm mutex; do
    case $cfg in
     old-*) L=/tmp/old-src/b/lib; A=${cfg#old-}; prog=$B/bin/$name-tm;;
     new-*) L=/tmp/tmkit-lib-8b580a4; A=${cfg#new-}; prog=$B/bin/$name-tm;;
     libitm) L=/nonexistent; A=adaptive; prog=$B/bin/$name-tm;;
     mutex) L=/nonexistent; A=adaptive; prog=$B/bin/$name-mutex;;
    esac
    v=$(LD_LIBRARY_PATH=$L TMKIT_ALGO=$A $prog --threads $t --seconds 1 $args | tail -1 | sed 's/.*ops_per_s=\([0-9]*\).*/\1/')
    echo "$name,$cfg,$t,$v"
   done
  done
 done
done
